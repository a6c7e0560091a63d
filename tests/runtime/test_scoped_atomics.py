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


# A launch whose grid is known only when the host block runs is checked then (CheckedLauncher):
# two blocks on one word at block scope are refused, one block runs.
AT_RUN_TIME = """\
kernel k(total: global i32[1]) launch grid(1) block(64) {
    atomic_add.cta(total[0], 1)
}
host {
    let t = zeros(i32, 1)
    let g = popc(BITS)
    launch k(t) grid(g)
    check t[0] == 64 * g, "lost"
}
"""


@pytest.mark.parametrize("bits, refused", [(1, False), (3, True)])
def test_a_grid_known_at_run_time_is_checked_for_scope(bits, refused, tmp_path):
    path = tmp_path / "t.sync"
    path.write_text(AT_RUN_TIME.replace("BITS", str(bits)))
    assert syncc("check", str(path)).code == 0          # the declared launch of one block is fine
    r = syncc("run", str(path), "--target", "fermi-sim")
    assert (r.code != 0) == refused, r.err
    assert ("E0709" in r.err) == refused, r.err
