"""Scoped atomics (`atomic_add.cta(...)`, `.gpu`, `.sys`) end to end: the programs the scope check
accepts (tests/hazards/clean/scoped_*.sync: per-block words at block scope, shared words at any
scope, a launch of one block, gpu and system scope across blocks, a lock per block) run and
check their own results on the simulator, under several schedules and with independent thread
scheduling. Fermi has no scoped atomics: each runs as the device's atomic, which is at least as
strong as the scope asked for (docs/fermi.md). On a GPU each runs with its PTX scope."""
from __future__ import annotations

import pytest

from helpers import ROOT, no_gpu, syncc

ACCEPTED = sorted((ROOT / "tests" / "hazards" / "clean").glob("scoped_*.sync"))
SCHEDULES = [["--policy", "lrr"], ["--policy", "gto"], ["--policy", "random:3"], ["--its"]]


def test_there_are_accepted_scoped_programs():
    assert len(ACCEPTED) >= 5


@pytest.mark.parametrize("schedule", SCHEDULES, ids=lambda s: "-".join(x.strip("-") for x in s))
@pytest.mark.parametrize("path", ACCEPTED, ids=lambda p: p.stem)
def test_accepted_scoped_atomics_run_correctly_on_the_simulator(path, schedule):
    r = syncc("run", str(path.relative_to(ROOT)), "--target", "fermi-sim", "--max-cycles", "3000000", *schedule)
    assert r.code == 0, r.err[-3000:] + r.out[-500:]


@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
@pytest.mark.parametrize("path", ACCEPTED, ids=lambda p: p.stem)
def test_accepted_scoped_atomics_run_correctly_on_the_gpu(path):
    r = syncc("run", str(path.relative_to(ROOT)), "--target", "gpu")
    assert r.code == 0, r.err[-3000:] + r.out[-500:]
