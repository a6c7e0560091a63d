"""Queues (docs/language.md, "Queues"): what the checker says of a declaration, what lowering makes
of a `put` and a `get` (the `locked` parts: two semaphores, two mutexes), values through a queue
on the simulator, checked by the program's own host block against what went in, and the single
attempts `tryput` and `tryget`."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers import ROOT, syncc

BAD = """kernel k(o: global i32[32]) launch grid(1) block(32) {
    queue q(0): i32 in shared @thread
    queue r(4) in shared @thread
    queue s(4): i32 in shared @block
    queue t(4): i32 in shared @thread using nosuch
    q = 3
    o[0] = t[0]
}
"""


def test_declaration_errors(tmp_path):
    path = tmp_path / "bad.sync"
    path.write_text(BAD)
    r = syncc("check", str(path), "--error-format=json")
    got = sorted((rec["line"], rec["code"]) for rec in map(json.loads, r.err.splitlines()) if rec.get("code"))
    assert got == [(2, "E0306"), (3, "E0406"), (4, "E0402"), (5, "E0408"), (6, "E0411"), (7, "E0210")], r.err


@pytest.mark.parametrize("target", ["ptx", "fermi-sim"])
def test_explain_names_the_ring_and_its_orderings(target):
    r = syncc("explain", "examples/queue.sync", "--target", target)
    assert r.code == 0, r.err
    machine = target.split("-")[0]
    assert "queue `q` (global @thread, capacity 64): ring" in r.out and f"the {machine} default" in r.out
    # on ptx a slot is one 64-bit word: the put gives its value with the publication, and the get's
    # poll takes it (impls/queue/ring.py)
    publish, poll = ("queue.give", "queue.polltake") if machine == "ptx" else ("queue.publish", "queue.poll")
    assert f"release `q.items` at `{publish}`" in r.out and f"acquire `q.items` at `{poll}`" in r.out, r.out
    assert "the get reads the value its put published" in r.out
    assert ("value and sequence word in one 64-bit word" in r.out) == (machine == "ptx")


def test_a_locked_put_and_get_are_the_parts_operations(tmp_path):
    path = tmp_path / "locked.sync"
    path.write_text(Path("examples/queue.sync").read_text().replace("@thread", "@thread using locked", 1))
    r = syncc("explain", str(path), "--target", "ptx")
    assert r.code == 0, r.err
    assert "queue `q` (global @thread, capacity 64): locked" in r.out and "chosen with `using`" in r.out
    for part in ("`q.space` (semaphore", "`q.items` (semaphore", "`q.tail` (mutex", "`q.head` (mutex"):
        assert part in r.out


SMALL = """const CAP = 4
kernel k(got: global i32[256], last: global i32[64], bad: global i32[1]) launch grid(2) block(64) {
    queue q(CAP): i32 in global @thread
    for i in 0 .. 4 {
        if bid == 0 {
            put q = tid * 4 + i
        } else {
            let v = get q
            atomic_add(got[v], 1)
        }
    }
}
host {
    let got = zeros(i32, 256)
    let last = zeros(i32, 64)
    let bad = zeros(i32, 1)
    launch k(got, last, bad)
    check got == full(i32, 256, 1), "a value was lost or taken twice"
}
"""


@pytest.mark.parametrize("impl", ["ring", "locked"])
@pytest.mark.parametrize("flags", [(), ("--its",), ("--policy", "random:3"), ("--its", "--policy", "gto")],
                         ids=" ".join)
def test_every_value_comes_out_once_on_the_simulator(tmp_path, flags, impl):
    path = tmp_path / "small.sync"
    path.write_text(SMALL.replace("@thread", f"@thread using {impl}"))
    r = syncc("run", str(path), *flags)
    assert r.code == 0, r.err


def test_the_check_fails_when_a_value_is_missing(tmp_path):
    """The host block's check is not vacuous: one producer short, and the analysis says so first."""
    path = tmp_path / "short.sync"
    path.write_text(SMALL.replace("if bid == 0 {", "if bid == 0 && tid > 0 {"))
    r = syncc("check", str(path))
    assert r.code == 1 and "E0705" in r.err


def test_a_library_vends_put_get_and_closing(tmp_path):
    r = syncc("build", "stdlib/queue.sync", "--target", "cuda")
    assert r.code == 0, r.err
    for text in ("struct stream", "struct local", "void put(int32_t value)", "int32_t get()",
                 "bool try_put(int32_t value)", "implementation: ring(delay=128)", "implementation: ring(delay=0)",
                 "void close()", "bool next(int32_t& value)", "bool next(uint32_t& value)",
                 "closed_count;   // global, 1 i32, first value 1"):
        assert text in r.out


def test_each_vended_queue_names_its_own_implementation():
    """The comment over each type says which implementation it got: `stages` is an mbarrier
    queue and `lanes` and `link` spsc ones (stdlib/queue.sync), not `locked`."""
    r = syncc("build", "stdlib/queue.sync", "--target", "cuda")
    assert r.code == 0, r.err
    said = {name: impl for impl, name in re.findall(r"//   implementation: ([^:]+):.*\n(?://.*\n)*struct (\w+)", r.out)}
    assert {name: said[name] for name in ("stream", "stages", "lanes", "link")} == {
        "stream": "ring(delay=128)", "stages": "mbarrier", "lanes": "spsc", "link": "spsc"}


def test_a_vended_queue_closes_after_its_declared_writers(tmp_path):
    """`writers = N` is the closing count's first value; a `using locked` queue cannot close (E0418),
    so its type has no `close` or `next`."""
    lib = tmp_path / "lib.sync"
    lib.write_text("queue jobs(32, writers = 6): i32 in global @thread\n"
                   "queue plain(32): i32 in global @thread using locked\n")
    r = syncc("build", str(lib), "--target", "cuda")
    assert r.code == 0, r.err
    jobs, plain = r.out.split("struct plain")[0].split("struct jobs")[1], r.out.split("struct plain")[1]
    assert "closed_count;   // global, 1 i32, first value 6" in jobs and "bool next(int32_t& value)" in jobs
    assert "close()" not in plain and "next(" not in plain


@pytest.mark.parametrize("impl", ["ring", "locked"])
@pytest.mark.parametrize("flags", [(), ("--its",)], ids=" ".join)
def test_tryput_finds_it_full_and_tryget_finds_it_empty(tmp_path, flags, impl):
    path = tmp_path / "try.sync"
    path.write_text((ROOT / "tests/sim/queue_try.sync").read_text().replace("@thread", f"@thread using {impl}"))
    assert f"using {impl}" in path.read_text()
    r = syncc("run", str(path), *flags)
    assert r.code == 0, r.err


def test_tryput_takes_a_whole_expression_and_tryget_binds_its_value(tmp_path):
    path = tmp_path / "forms.sync"
    path.write_text("""kernel k(o: global i32[64], m: global i32[1]) launch grid(1) block(64) {
    queue q(4): i32 in shared @thread
    mutex x in shared @thread
    let sent = tryput q = tid * 2 + 1
    tryget v = q { o[tid] = v } else { o[tid] = 0 }
    if tryput x = 1 { m[0] = 1 }
    v = 3
}
""")
    r = syncc("check", str(path), "--error-format=json")
    got = sorted((rec["line"], rec["code"]) for rec in map(json.loads, r.err.splitlines()) if rec.get("code"))
    # `tryput` on a mutex is the wrong kind; `v` is not in scope after the tryget
    assert got == [(6, "E0404"), (7, "E0101")], r.err


# ---- closing: `close q` and `for v in q` ------------------------------------------------------

CLOSING_ERRORS = """kernel k(o: global i32[64]) launch grid(1) block(64) {
    queue a(4, writers = 0): i32 in shared @thread
    queue b(4): i32 in shared @thread using locked
    mutex m in shared @thread
    close m
    close b
    for v in b { o[0] = v }
    for v in 3 { o[0] = v }
    for v in o[1] { o[0] = v }
    for v in m { o[0] = v }
}
"""


def test_closing_errors_name_what_is_wrong(tmp_path):
    path = tmp_path / "bad.sync"
    path.write_text(CLOSING_ERRORS)
    r = syncc("check", str(path), "--error-format=json")
    got = sorted((rec["line"], rec["code"]) for rec in map(json.loads, r.err.splitlines()) if rec.get("code"))
    # writers 0; close on a mutex; close and for on a locked queue; `for` over a number, an array
    # element and a mutex
    assert got == [(2, "E0306"), (5, "E0404"), (6, "E0418"), (7, "E0418"), (8, "E0404"), (9, "E0404"),
                   (10, "E0404")], r.err


ONE_WRITER = """kernel k(o: global i32[32], n: global i32[1]) launch grid(1) block(64) {
    queue q(4): i32 in shared @thread
    if tid == 0 {
        for i in 0 .. 32 { put q = i }
        close q
    } else if tid >= 32 {
        for v in q {
            atomic_add(o[v], 1)
            atomic_add(n[0], 1)
        }
    }
}
host {
    let o = zeros(i32, 32)
    let n = zeros(i32, 1)
    launch k(o, n)
    check o == full(i32, 32, 1) && n[0] == 32, "the loops did not take each value once"
}
"""


@pytest.mark.parametrize("flags", [(), ("--its",), ("--policy", "random:5")], ids=" ".join)
def test_a_queue_with_one_writer_closes_at_its_close(tmp_path, flags):
    """Without `writers`, one `close` closes the queue: 32 consumer lanes share 32 values, each
    taking as many as it gets, and every loop ends."""
    path = tmp_path / "one.sync"
    path.write_text(ONE_WRITER)
    r = syncc("run", str(path), *flags)
    assert r.code == 0, r.err


def test_a_for_loop_can_break_and_continue(tmp_path):
    """`break` leaves the loop at once (the rest of the queue stays for the others), `continue`
    takes the next value; the loop variable is read-only."""
    path = tmp_path / "flow.sync"
    path.write_text("""kernel k(o: global i32[64], firsts: global i32[1]) launch grid(1) block(64) {
    queue q(8, writers = 32): i32 in shared @thread
    if tid < 32 {
        put q = tid
        put q = tid + 32
        close q
    } else {
        var n = 0
        for v in q {
            if v % 2 == 1 { continue }
            atomic_add(o[v], 1)
            n += 1
            if n == 64 { break }
        }
        if tid == 32 { v = 1 }
    }
}
""")
    r = syncc("check", str(path), "--error-format=json")
    codes = [(rec["line"], rec["code"]) for rec in map(json.loads, r.err.splitlines()) if rec.get("code")]
    assert codes == [(15, "E0101")], r.err        # `v` is not in scope after the loop
    path.write_text(path.read_text().replace("        if tid == 32 { v = 1 }\n", "").replace(
        "kernel k", "kernel k").rstrip() + """
host {
    let o = zeros(i32, 64)
    let f = zeros(i32, 1)
    launch k(o, f)
    var even = 0
    for i in 0 .. 64 { if i % 2 == 0 { even += o[i] } }
    check even == 32, "every even value is taken once"
}
""")
    r = syncc("run", str(path))
    assert r.code == 0, r.err


def test_the_for_loop_takes_its_values_inside_the_polling_loop():
    """The get of `for v in q` reads its slot and frees it inside the polling loop, before the
    warp reconverges: on Fermi a lane of the same warp may be polling for that slot's next round
    (without it, tests/hazards/clean/queue_for_pipeline.sync deadlocks on the simulator)."""
    r = syncc("build", "tests/hazards/clean/queue_for_pipeline.sync", "--target", "fermi-sass",
              "--dump-after", "structure")
    assert r.code == 0, r.err
    text = r.out
    poll = text.index("queue.pollnext")
    free = text.index("queue.free")
    reconverge = text.index("reconverge", poll)
    latch_of_loop = text.index("%done", poll)
    assert poll < free and latch_of_loop < reconverge
    body = text[text.index("fire", poll):reconverge]
    assert "queue.free" in text[text.index("take:"):text.index("joined:")] and "br %more, take, none" in body


TWO_PUTS = """kernel k(o: global i32[64]) launch grid(1) block(64) {
    queue q(CAP): i32 in shared @thread
    if tid < 32 {
        put q = tid
        put q = tid + 32
    } else {
        for j in 0 .. 2 {
            let v = get q
            atomic_add(o[v], 1)
        }
    }
}
host {
    let o = zeros(i32, 64)
    launch k(o)
    check o == full(i32, 64, 1), "every value is taken once"
}
"""


@pytest.mark.parametrize("impl", ["ring", "locked"])
@pytest.mark.parametrize("cap", [4, 8, 16])
def test_a_put_ends_at_its_own_publication(tmp_path, cap, impl):
    """A warp whose 32 tickets span several rounds of the ring (capacity below 32), each lane
    putting twice. The first put's polling loop must end at its own publication: were it to run
    up to the second put's (the thread's last release), the lanes that got through would poll
    for the second round inside the first loop, while lanes of their warp still waiting there
    hold the values the consumers need first — a SIMT deadlock on Fermi (wait_regions.py)."""
    path = tmp_path / "two.sync"
    path.write_text(TWO_PUTS.replace("CAP", str(cap)).replace("@thread", f"@thread using {impl}", 1))
    r = syncc("run", str(path))
    assert r.code == 0, r.err


@pytest.mark.parametrize("program, says", [
    ("queue_more_gets", "queue `q`: 63 puts and 64 gets have taken a ticket; 0 of its 8 slots hold a value; "
                        "the slot waited on (7) is empty for round 7: a get waiting for a put to fill the slot"),
    ("queue_warp_split", "queue `q` of block (0, 0, 0): 16 puts and 0 gets have taken a ticket; 2 of its 2 slots "
                         "hold a value; the slot waited on (0) is full for round 0: a put waiting for a get"),
    ("queue_close_too_few", "queue `q`: 256 puts and 320 gets have taken a ticket; 0 of its 8 slots hold a "
                            "value; 1 close still to come"),
])
def test_the_simulator_says_where_a_stuck_queue_stands(program, says):
    """A stream deadlock's report names the queue, its occupancy (tickets taken on each side, slots
    full), its closes still to come, and which side the waiter is on, read from memory at the stop
    (syncc/backends/sim/queues.py); the counts are the programs' own (63 values for 64 gets, 16
    puts into 2 slots from lanes that also get, 63 closes of 64)."""
    r = syncc("run", f"tests/hazards/{program}.sync", "--unsafe-skip-hazard-checks", "--max-cycles", "3000000")
    assert r.code == 3, r.err
    assert says in r.err, r.err
