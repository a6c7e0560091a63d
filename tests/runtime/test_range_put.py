"""Range puts (`put q = src[lo .. hi]`: hi - lo values into a @thread ring queue with one
reservation), end to end on the simulator: the gathered frontier (tests/hazards/clean), values in
order and contiguous, an empty range, a range of a queue array's element, a range past the end of
its source stopping the kernel before any ticket is taken, and the IR's one reservation."""
from __future__ import annotations

import pytest

from helpers import ROOT, no_gpu, syncc

CLEAN = ROOT / "tests" / "hazards" / "clean"
ENGINES = ["compiled", "reference"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_gathered_frontier_goes_in_with_one_reservation(engine):
    for extra in ([], ["--its"]):
        r = syncc("run", str(CLEAN / "range_put_frontier.sync"), "--target", "fermi-sim", "--engine", engine, *extra)
        assert r.code == 0, r.err


@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
def test_a_gathered_frontier_on_the_gpu():
    r = syncc("run", str(CLEAN / "range_put_frontier.sync"), "--target", "gpu")
    assert r.code == 0, r.err


# Two producers put 40 values each into a queue of 8 slots (so each put waits for room), one
# consumer takes them in the queue's order: each producer's values come out in order, and, as one
# reservation takes contiguous tickets, all of one producer's values before or after the other's.
ORDER = """\
kernel k(out: global i32[80], src: global i32[80]) launch grid(1) block(96) {
    queue q(8): IMPL i32 in SPACE @thread
    if tid == 0 || tid == 32 {
        let lo = tid / 32 * 40
        put q = src[lo .. lo + 40]
        put q = src[lo .. lo]                   // an empty range takes no ticket
    }
    if tid == 64 {
        for i in 0 .. 80 { out[i] = get q }
    }
}
host {
    let src = zeros(i32, 80)
    for i in 0 .. 80 { src[i] = 1000 + i }
    let out = zeros(i32, 80)
    launch k(out, src)
    let first = (out[0] - 1000) / 40 * 40       // whichever producer reserved first
    for i in 0 .. 40 {
        check out[i] == 1000 + first + i, "the first reservation's values out of order"
        check out[40 + i] == 1000 + (40 - first) + i, "the second reservation's values out of order"
    }
}
"""


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("space", ["global", "shared"])
def test_values_stay_in_order_and_contiguous(tmp_path, space, engine):
    path = tmp_path / "order.sync"
    path.write_text(ORDER.replace("SPACE", space).replace("IMPL ", ""))
    r = syncc("run", str(path), "--target", "fermi-sim", "--engine", engine)
    assert r.code == 0, r.err


ARRAY = """\
kernel k(out: global i32[64]) launch grid(1) block(128) {
    queue q[2](4): i32 in global @thread
    shared buf: i32[64]
    if tid < 64 { buf[tid] = tid }
    barrier
    if tid == 0 { put q[0] = buf[0 .. 32] }
    if tid == 32 { put q[1] = buf[32 .. 64] }
    if tid >= 64 && tid < 96 { out[tid - 64] = get q[0] }
    if tid >= 96 { let v = get q[1]; atomic_add(out[v], v) }
}
host {
    let out = zeros(i32, 64)
    launch k(out)
    for i in 0 .. 32 { check out[i] >= 0 && out[i] < 32, "q[0] gave a value of q[1]" }
    for i in 32 .. 64 { check out[i] == i, "a value of q[1] was lost" }
}
"""


def test_a_range_put_into_an_element_of_a_queue_array(tmp_path):
    path = tmp_path / "array.sync"
    path.write_text(ARRAY)
    r = syncc("run", str(path), "--target", "fermi-sim")
    assert r.code == 0, r.err


PAST_END = """\
kernel k(n: global i32[1], out: global i32[1]) launch grid(1) block(64) {
    queue q(64): i32 in global @thread
    shared buf: i32[16]
    if tid < 16 { buf[tid] = tid }
    barrier
    if tid == 0 {
        put q = buf[HI]
        close q
    }
    if tid >= 32 { for v in q { atomic_add(out[0], 1) } }
}
host {
    let n = zeros(i32, 1)
    n[0] = 17
    let out = zeros(i32, 1)
    launch k(n, out)
}
"""


@pytest.mark.parametrize("hi", ["0 .. n[0]", "n[0] .. 3"])
def test_a_range_outside_its_source_stops_the_kernel(tmp_path, hi):
    """Past the end (hi = 17 of 16), or hi - lo negative: the bounds check's fault, before a ticket."""
    path = tmp_path / "past.sync"
    path.write_text(PAST_END.replace("HI", hi))
    r = syncc("run", str(path), "--target", "fermi-sim")
    assert r.code != 0
    assert "E0913" in r.err and "`buf`" in r.err, r.err


def test_one_atomic_takes_every_ticket(tmp_path):
    path = tmp_path / "order.sync"
    path.write_text(ORDER.replace("SPACE", "global").replace("IMPL ", ""))
    r = syncc("build", str(path), "--dump-after", "check_hazards")
    assert r.code == 0, r.err
    assert r.out.count("queue.reservemany") == 2 and r.out.count("queue.reserveat") == 2, r.out
    assert "queue.reserve " not in r.out


POOL_SEEDS = """\
kernel walk(count: global i32[1]) launch grid(2) block(64) {
    queue q(64): i32 in global @thread
    shared seeds: i32[4]
    if tid < 4 { seeds[tid] = 3 }
    barrier
    if gtid == 0 {
        put q = seeds[0 .. 4]          // four seeds with one reservation
        close q
    }
    for v in q {
        atomic_add(count[0], 1)
        if v > 0 { put q = v - 1 }
    }
}
host {
    let count = zeros(i32, 1)
    launch walk(count)
    check count[0] == 16, "a node was lost"
}
"""


@pytest.mark.parametrize("extra", [[], ["--its"], ["--policy", "random:1"]])
def test_a_range_put_seeds_a_work_pool(tmp_path, extra):
    """Outside the pool's loops a range put is a writer's put: each of its values counts as an item."""
    path = tmp_path / "pool.sync"
    path.write_text(POOL_SEEDS)
    r = syncc("run", str(path), "--target", "fermi-sim", *extra)
    assert r.code == 0, r.err


RECORDS = """\
struct Task {
    id: i32,
    w: f32
}
kernel k(out: global i32[32]) launch grid(1) block(64) {
    queue q(4): Task in global @thread
    shared buf: Task[32]
    if tid < 32 { buf[tid] = Task(id = tid, w = 1.5) }
    barrier
    if tid == 0 { put q = buf[0 .. 32] }
    if tid >= 32 {
        let t = get q
        if t.w == 1.5 { atomic_add(out[t.id], 1) }
    }
}
host {
    let out = zeros(i32, 32)
    launch k(out)
    for i in 0 .. 32 { check out[i] == 1, "a record was lost or torn" }
}
"""


def test_a_range_put_of_records(tmp_path):
    """A queue of records takes a range of a record array: each slot's fields before its publication."""
    path = tmp_path / "records.sync"
    path.write_text(RECORDS)
    r = syncc("run", str(path), "--target", "fermi-sim")
    assert r.code == 0, r.err


LAUNCH_PAST_END = """\
kernel k(src: global i32[n], n: i32, hi: i32, out: global i32[64]) launch grid(1) block(64) {
    queue q(64): i32 in global @thread
    if tid == 0 {
        put q = src[0 .. hi]
        close q
    }
    if tid >= 32 { for v in q { atomic_add(out[v], 1) } }
}
host {
    let src = zeros(i32, 16)
    for i in 0 .. 16 { src[i] = i }
    let out = zeros(i32, 64)
    launch k(src, 16, 16, out)
    for i in 0 .. 16 { check out[i] == 1, "a value was lost" }
    launch k(src, 16, 17, out)
}
"""


def test_a_launch_whose_range_runs_past_the_end_is_refused_once(tmp_path):
    """The launch's arguments decide the range: the hazard checks of that launch find it past the end
    of `src` (E0726), once for the statement, before it runs; the launch before it runs."""
    path = tmp_path / "launch.sync"
    path.write_text(LAUNCH_PAST_END)
    r = syncc("run", str(path), "--target", "fermi-sim")
    assert r.code != 0
    assert r.err.count("error[E0726]") == 1 and "element 16 of the array `src`" in r.err, r.err
