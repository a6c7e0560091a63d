"""Queues (docs/language.md, "Queues"): what the checker says of a declaration, what lowering makes
of a `put` and a `get` (the `locked` parts: two semaphores, two mutexes), values through a queue
on the simulator, checked by the program's own host block against what went in, and the single
attempts `tryput` and `tryget`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import ROOT, syncc

BAD = """kernel k(o: global i32[32]) launch grid(1) block(32) {
    queue q(0): i32 in shared @thread
    queue r(4) in shared @thread
    queue s(4): i32 in shared @warp
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
    assert got == [(2, "E0306"), (3, "E0406"), (4, "E0401"), (5, "E0408"), (6, "E0411"), (7, "E0210")], r.err


@pytest.mark.parametrize("target", ["ptx", "fermi-sim"])
def test_explain_names_the_ring_and_its_orderings(target):
    r = syncc("explain", "examples/queue.sync", "--target", target)
    assert r.code == 0, r.err
    machine = target.split("-")[0]
    assert "queue `q` (global @thread, capacity 64): ring" in r.out and f"the {machine} default" in r.out
    assert "release `q.items` at `queue.publish`" in r.out and "acquire `q.items` at `queue.poll`" in r.out
    assert "the get reads the value its put published" in r.out


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


def test_a_library_vends_put_and_get(tmp_path):
    r = syncc("build", "stdlib/queue.sync", "--target", "cuda")
    assert r.code == 0, r.err
    for text in ("struct stream", "struct local", "void put(int32_t value)", "int32_t get()"):
        assert text in r.out


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
