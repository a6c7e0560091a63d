"""Work pools (docs/language.md, "Work pools"; ir/impls/queue/pool.py): a `for v in q` loop whose
body puts into `q` ends once `q` is closed by its seeds' writers, empty, and no worker holds an
item.

- the tree walk of tests/hazards/clean/pool_tree_walk.sync counts every node once on the
  simulator, under several schedules and grids, on Fermi's SIMT stack and with `--its`; its host
  block walks the same tree;
- only a pool's queue counts its items (`q.pending`), and only its inner puts are `queue.push`;
- an inner put that finds its slot full stops the kernel with E0425, on the simulator (and on a
  GPU: marked `gpu`), at the put;
- a `get` or `tryget` of a pool's item finishes it, so loops over the queue still end.

The tree walk is also the test of the pool loop's shape: with a second edge back to its head
(from the look that found nothing), the Fermi back end made the look a loop of its own, and the
lanes holding values waited at its end for lanes that waited for their children (E0908).
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from helpers import ROOT, no_gpu, syncc

TREE = ROOT / "tests/hazards/clean/pool_tree_walk.sync"
BREAKS = ROOT / "tests/hazards/clean/pool_seeds_break_continue.sync"


@pytest.mark.parametrize("flags", [(), ("--policy", "gto"), ("--policy", "random:2"), ("--policy", "adversarial:3"),
                                   ("--its",)], ids=" ".join)
def test_the_tree_walk_counts_every_node_once(flags):
    r = syncc("run", str(TREE.relative_to(ROOT)), "--target", "fermi-sim", *flags)
    assert r.code == 0, r.err


@pytest.mark.parametrize("grid", [1, 4])
def test_the_tree_walk_on_other_grids(tmp_path, grid):
    path = tmp_path / "tree.sync"
    path.write_text(TREE.read_text().replace("launch grid(2) block(64)", f"launch grid({grid}) block(64)"))
    assert f"grid({grid})" in path.read_text()
    r = syncc("run", str(path), "--target", "fermi-sim")
    assert r.code == 0, r.err


@pytest.mark.parametrize("flags", [(), ("--its",)], ids=" ".join)
def test_a_shared_pool_per_block(tmp_path, flags):
    """A shared queue: each block walks its own copy of the tree (its thread 0 seeds and closes)."""
    path = tmp_path / "shared.sync"
    text = (TREE.read_text().replace("queue q(256): i32 in global @thread", "queue q(256): i32 in shared @thread")
            .replace("if gtid == 0 {", "if tid == 0 {")
            .replace("check count[0] == n,", "check count[0] == 2 * n,")
            .replace("want[id] += 1", "want[id] += 2"))
    assert "in shared" in text and "2 * n" in text and "want[id] += 2" in text
    path.write_text(text)
    r = syncc("run", str(path), "--target", "fermi-sim", *flags)
    assert r.code == 0, r.err


def test_the_walks_check_is_not_vacuous(tmp_path):
    """A pool that drops a child (its put skipped for one node) fails the host's count."""
    path = tmp_path / "tree.sync"
    path.write_text(TREE.read_text().replace("put q = (id * 2 + 1 + k) * 16 + d + 1",
                                             "if id != 2 { put q = (id * 2 + 1 + k) * 16 + d + 1 }"))
    r = syncc("run", str(path), "--target", "fermi-sim")
    assert r.code == 1 and "E0901" in r.err, r.err


@pytest.mark.parametrize("flags", [(), ("--its",)], ids=" ".join)
def test_the_task_example_sums_by_bisection(flags):
    """examples/task.sync: the persistent task queue, sized when the host block runs."""
    r = syncc("run", "examples/task.sync", "--target", "fermi-sim", *flags)
    assert r.code == 0 and "summed 3000 values" in r.out, r.err + r.out


def test_break_and_continue_finish_their_item():
    r = syncc("run", str(BREAKS.relative_to(ROOT)), "--target", "fermi-sim")
    assert r.code == 0, r.err


def _ir(path, *extra) -> str:
    r = syncc("build", str(path), "--target", "fermi-sass", "--dump-after", "check_hazards", *extra)
    assert r.code == 0, r.err
    return r.out + r.err


def test_only_a_pool_counts_its_items(tmp_path):
    """The counter, and the atomics on it, are a pool's: a closing queue whose loop puts into another
    queue has none, and its put is an ordinary reserve."""
    pool = _ir(TREE.relative_to(ROOT))
    assert "state @q.pending" in pool and "queue.push @q.space" in pool
    assert pool.count("queue.reserve @q.space") == 1          # the seed
    plain = tmp_path / "plain.sync"
    plain.write_text((ROOT / "tests/hazards/clean/queue_for_close.sync").read_text())
    text = _ir(plain)
    assert "pending" not in text and "queue.push" not in text


def test_a_full_pool_stops_with_e0425(tmp_path):
    """One warp, capacity 1, a root with two children: the second child's slot still holds the
    first (the warp's other lanes wait for this body), so the kernel stops at that put."""
    path = tmp_path / "full.sync"
    path.write_text(FULL)
    r = syncc("run", str(path), "--target", "fermi-sim", "--error-format=json")
    records = [json.loads(line) for line in r.err.splitlines() if line.startswith("{")]
    assert r.code == 1 and [(d["code"], d["line"]) for d in records] == [("E0425", 11)], r.err
    assert "queue `q` is full (capacity 1)" in records[0]["message"]


def test_room_for_a_level_is_enough(tmp_path):
    path = tmp_path / "room.sync"
    path.write_text(FULL.replace("queue q(1)", "queue q(8)"))
    r = syncc("run", str(path), "--target", "fermi-sim")
    assert r.code == 0, r.err


def test_a_tryget_finishes_the_item_it_takes(tmp_path):
    """Lane 0 seeds two items and takes one back with `tryget` before the warp's loops start (a
    blocking `get` there is E0701 on Fermi: the analyses cannot tell that its value is the seed's,
    not a child another lane puts after the warp reconverges): that item is done once taken (without that, the pool would count it for good and the loops would
    never end), and the loops take the other and its children."""
    path = tmp_path / "get.sync"
    path.write_text("""
kernel k(count: global i32[1], got: global i32[1]) launch grid(1) block(32) {
    queue q(64): i32 in global @thread
    if tid == 0 {
        put q = 3
        put q = 3
        close q
        tryget w = q { got[0] = w }
    }
    for v in q {
        atomic_add(count[0], 1)
        if v > 0 { put q = v - 1 }
    }
}
host {
    let count = zeros(i32, 1)
    let got = zeros(i32, 1)
    launch k(count, got)
    check got[0] == 3 && count[0] == 4, "the loops took the wrong items"
}
""")
    r = syncc("run", str(path), "--target", "fermi-sim")
    assert r.code == 0, r.err


@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
def test_on_the_gpu():
    r = syncc("run", str(TREE.relative_to(ROOT)), "--target", "gpu", "--timeout", "60")
    assert r.code == 0, r.err + r.out


@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
def test_a_full_pool_stops_with_e0425_on_the_gpu(tmp_path):
    """In a process of its own: the stopped kernel stays on the GPU, and `syncc run` leaves by
    os._exit rather than wait for it at exit (which would end this test process too)."""
    path = tmp_path / "full.sync"
    path.write_text(FULL)
    p = subprocess.run([sys.executable, "-m", "syncc", "run", str(path), "--target", "gpu", "--timeout", "60",
                        "--error-format=json"], cwd=ROOT, capture_output=True, text=True, timeout=180)
    records = [json.loads(line) for line in p.stderr.splitlines() if line.startswith("{")]
    assert p.returncode == 1 and [(d["code"], d["line"]) for d in records] == [("E0425", 11)], p.stderr


FULL = """kernel tree(count: global i32[1]) launch grid(1) block(32) {
    queue q(1): i32 in global @thread
    if tid == 0 {
        put q = 2
        close q
    }
    for v in q {
        atomic_add(count[0], 1)
        if v > 0 {
            put q = v - 1
            put q = v - 1
        }
    }
}

host {
    let count = zeros(i32, 1)
    launch tree(count)
    check count[0] == 7, "a node was lost"
}
"""
