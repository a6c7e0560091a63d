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
from syncc.targets import FERMI, PTX

# (example, target) → (explicit fences, of them at cta scope, orderings carried by atomics and loads)
PINNED = {
    ("barrier.sync", "ptx"): (0, 0, 4),        # the XF barrier: flags stored with release, read with acquire
    ("barrier.sync", "fermi"): (6, 0, 0),      # the same as gpu fences, plus one on each side of the barrier
    ("chain.sync", "ptx"): (0, 0, 8),
    ("chain.sync", "fermi"): (6, 6, 0),        # atom_lock and shrd_lock; lock bits and named barriers need none
    ("counter.sync", "ptx"): (0, 0, 1),        # the section is elided to one atom.add.acq_rel
    ("counter.sync", "fermi"): (2, 0, 0),      # ... which Fermi brackets with two fences
    ("hashtable.sync", "ptx"): (0, 0, 2),      # ttas: cas.acquire, exch.release
    ("hashtable.sync", "fermi"): (2, 0, 0),    # a fence opening the section, one before the unlock
    ("wavefront.sync", "ptx"): (0, 0, 4),      # two puts release, two polls acquire, all cta scope
    ("wavefront.sync", "fermi"): (0, 0, 0),    # the value travels in the lock-bit word itself
}


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
    machine = {"ptx": PTX, "fermi": FERMI}[target]
    after = stats(path, machine)
    assert (after.fences, after.cta_fences, after.ordered) == PINNED[(name, target)]
    before = stats(path, machine, minimize=False)
    assert after.fences <= before.fences <= after.naive
    assert before.ordered == 0                  # unminimized, every ordering is an explicit fence
    if machine.ordered_atomics:
        assert after.fences == 0                # on PTX every ordering rides on an atomic or a load
