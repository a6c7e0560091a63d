"""The fences syncc places in each example, pinned (issue 3: "the number of fences per
example is pinned by tests"), and what minimization must never do: place more than the
unminimized placement, or than the naive fence-around-every-sync-operation count.

A change that moves these numbers must say why in its commit; bench/passes.py prints
the same table (docs/targets.md explains the rules that produce it)."""
from __future__ import annotations

import pytest

from helpers import EXAMPLES
from syncc.driver import check_file
from syncc.ir.context import PassContext
from syncc.ir.pipeline import compile_module
from syncc.ir.stats import fence_stats
from syncc.ir.machine_model import FERMI, PTX

# (example, target) → (explicit fences, of them at cta scope, orderings carried by atomics and loads)
PINNED = {
    ("barrier.sync", "ptx"): (0, 0, 4),        # the XF barrier: flags stored with release, read with acquire
    ("barrier.sync", "fermi"): (6, 0, 0),      # the same as gpu fences, plus one on each side of the barrier
    # jacobi: a flip barrier's split phase and its `sync` (ptx: each an arrival released on the flat and
    # the grouped path's atomics, one acquiring poll); the xf barrier's flags on Fermi, fenced
    ("jacobi.sync", "ptx"): (0, 0, 8),
    ("jacobi.sync", "fermi"): (12, 0, 0),
    ("chain.sync", "ptx"): (0, 0, 8),
    ("chain.sync", "fermi"): (6, 6, 0),        # atom_lock and shrd_lock; lock bits and named barriers need none
    # counter: `counter`'s section is elided to one relaxed atom.add (nothing else reads `counts`:
    # no fence); six locked two-word sections, each at least an acquire and a release
    ("counter.sync", "ptx"): (0, 0, 24),
    ("counter.sync", "fermi"): (24, 0, 0),
    # hashtable: six locked inserts, and the lock-free insert's own `fence gpu` before its CAS
    # (written by the program, not placed)
    # hash: the one ttas bucket lock of `insert`, its acquire and release riding on its atomics on
    # PTX, fenced on Fermi; `count` walks the finished table with no ordering
    ("hash.sync", "ptx"): (0, 0, 2),
    ("hash.sync", "fermi"): (2, 0, 0),
    ("hashtable.sync", "ptx"): (1, 0, 24),
    ("hashtable.sync", "fermi"): (25, 0, 0),
    # primitives: three grid barriers, three block mutexes and three block semaphores, each
    # ordering on its atomics and polls (Fermi: gpu fences; the block barriers around the leader's
    # operations need none)
    ("primitives.sync", "ptx"): (3, 0, 24),    # + the CHECK path's hand-written poll of `holders` (acquire)
    ("primitives.sync", "fermi"): (35, 0, 0),
    ("histogram.sync", "ptx"): (0, 0, 0),      # relaxed atomics; the merge is ordered by the barrier
    ("histogram.sync", "fermi"): (0, 0, 0),
    # two ttas sections (cas.acquire, exch.release) and insert_coupled's two trylocks and unlocks
    ("sortedlist.sync", "ptx"): (0, 0, 8),
    ("sortedlist.sync", "fermi"): (8, 0, 0),
    ("wavefront.sync", "ptx"): (0, 0, 4),      # two puts release, two polls acquire, all cta scope
    ("wavefront.sync", "fermi"): (0, 0, 0),    # the value travels in the lock-bit word itself
    # wavefront_tiled: the tiles' gpu-scope flags and counter, the shared atomlock and tinylock slots
    ("wavefront_tiled.sync", "ptx"): (3, 0, 17),   # + an acquire after each kernel's tile ticket
    # (a `when` of two atomlock gets: a fence in each poll's path to its value, where one fence began the body)
    ("wavefront_tiled.sync", "fermi"): (16, 4, 0),
    # ring: two sleeping semaphores (each wait acquires, each post releases) and two ticket
    # mutexes around the slot's write and read
    ("ring.sync", "ptx"): (0, 0, 10),
    ("ring.sync", "fermi"): (8, 0, 0),
    # queue (a `ring`): each put acquires its slot's poll and releases its publication, each get
    # the same; no lock (`using locked` would be ring.sync's 10 and 8)
    ("queue.sync", "ptx"): (0, 0, 4),
    ("queue.sync", "fermi"): (4, 0, 0),
    # pipeline (a shared ring queue, closed): the put's poll and publication, the loop's get's
    # poll (its slot's word, and the close latch's where the slot is not full) and free, the
    # close's release and the loop end's acquire, at cta scope
    ("pipeline.sync", "ptx"): (0, 0, 7),
    ("pipeline.sync", "fermi"): (7, 7, 0),     # + the look that finds the queue closed, before the tail's read
    # reduction: the two `fence gpu` the program writes (threadFenceReduction's)
    ("reduction.sync", "ptx"): (3, 0, 0),      # its two written fences and the acquire after the count
    ("reduction.sync", "fermi"): (3, 0, 0),
    # scan: on PTX a tile's status word carries its value (strong relaxed stores and polls, no
    # ordering); on Fermi status and value lie apart: a release before each of the three status
    # stores (the aggregate, the first tile's total, a later tile's) and an acquire after the poll
    ("scan.sync", "ptx"): (0, 0, 0),
    # bfs: no primitive, no fence written: atomics and barriers only
    ("bfs.sync", "ptx"): (0, 0, 0),
    ("bfs.sync", "fermi"): (0, 0, 0),
    ("scan.sync", "fermi"): (4, 0, 0),
    # task: a work pool (ir/impls/queue/pool.py): the seed's reserve and publication, the close,
    # each round's look, free and end (the count's decrement, with release), the inner puts' single
    # looks and publications, the loop end's acquires (the close latch, the count)
    ("task.sync", "ptx"): (0, 0, 13),
    ("task.sync", "fermi"): (13, 0, 0),        # + the look that finds the pool closed, before its count's read
}

# fences a program writes itself (`fence gpu`), which no target turns into an ordered atomic, and
# those its hand-written synchronization owes (passes/hand_fences.py: explicit fences everywhere)
WRITTEN = {"hashtable.sync": 1, "reduction.sync": 2 + 1, "primitives.sync": 3, "wavefront_tiled.sync": 3}


def stats(path, target, minimize=True):
    comp = check_file(str(path))
    module = compile_module(comp.module, PassContext(target, 2, comp.sink, minimize_fences=minimize))
    assert module is not None, comp.diagnostics
    return fence_stats(module)


def test_every_example_is_pinned():
    assert {(p.name, t) for p in EXAMPLES for t in ("ptx", "fermi")} == set(PINNED)


@pytest.mark.parametrize("name, target", sorted(PINNED), ids=[f"{n}-{t}" for n, t in sorted(PINNED)])
def test_fences_per_example(name, target):
    path = next(p for p in EXAMPLES if p.name == name)
    model = {"ptx": PTX, "fermi": FERMI}[target]
    after = stats(path, model)
    assert (after.fences, after.cta_fences, after.ordered) == PINNED[(name, target)]
    before = stats(path, model, minimize=False)
    assert after.fences <= before.fences <= after.naive
    assert before.ordered == 0                  # unminimized, every ordering is an explicit fence
    if model.ordered_atomics:                 # on PTX every ordering rides on an atomic or a load,
        assert after.fences == WRITTEN.get(name, 0)   # but for WRITTEN's


# A global channel's get on Fermi (flag and atomlock, one slot or a warp's at once): a load may be
# performed before the poll it follows (docs/fermi.md, "loads"), so the acquire fence stands
# between seeing the slot full and loading its value, not after the load (channel_stress.sync
# read values from before their put with it after). The pass asks; the channel's expansion places it.
CHANNEL = """kernel k(out: global i32[64]) launch grid(2) block(32) {{
    channel c[32]: i32 in global @{gran} using {impl}
    if bid == 0 {{ put c[tid] = tid * 3 }}
    if bid == 1 {{ out[tid] = get c[tid] }}
}}
"""


@pytest.mark.parametrize("impl, gran", [("flag", "thread"), ("flag", "warp"), ("atomlock", "thread"),
                                        ("atomlock", "warp")])
def test_a_fermi_get_fences_before_it_loads_the_value(tmp_path, impl, gran):
    path = tmp_path / "get.sync"
    path.write_text(CHANNEL.format(impl=impl, gran=gran))
    comp = check_file(str(path))
    module = compile_module(comp.module, PassContext(FERMI, 2, comp.sink))
    assert module is not None, comp.diagnostics
    (kernel,) = module.kernels
    loads = [(block.instrs[i - 1] if i else None) for block in kernel.blocks
             for i, ins in enumerate(block.instrs)
             if ins.op == "ld" and ins.args[0].name == "c.data"]
    assert loads and all(before is not None and before.op == "fence" for before in loads)


def test_a_fermi_pool_fences_before_it_reads_the_count_a_closed_queue_vouches_for():
    """A work pool's look that finds its queue closed reads `q.pending` next: without a fence
    between, that read may be performed before the close was seen and return a count from before
    the last puts (examples/task.sync then never finished on the simulator)."""
    comp = check_file(str(next(p for p in EXAMPLES if p.name == "task.sync")))
    module = compile_module(comp.module, PassContext(FERMI, 2, comp.sink))
    before = [block.instrs[i - 1] if i else None for kernel in module.kernels for block in kernel.blocks
              for i, ins in enumerate(block.instrs) if ins.op == "ld" and ins.args[0].name.endswith(".pending")]
    assert before and all(ins is not None and ins.op == "fence" for ins in before)
