"""The data-race check (checks/races.py) on the simulator: a program it rejects loses updates when
run anyway, and its correct neighbour, which it accepts, does not, under the same schedules."""
from __future__ import annotations

import pytest

from helpers import ROOT, syncc

HAZARDS = ROOT / "tests" / "hazards"
SEEDS = ["adversarial:2", "adversarial:3", "adversarial:4"]


def test_the_check_refuses_to_run_the_unguarded_write():
    r = syncc("run", str(HAZARDS / "race_unguarded_block_write.sync"), "--target", "fermi-sim")
    assert r.code == 1 and "E0730" in r.err and "E0901" not in r.err, r.err


@pytest.mark.parametrize("policy", SEEDS)
def test_the_unguarded_write_loses_updates(policy):
    """Block 0's thread 0 adds its bonus to `sum` without the mutex the other blocks take: under
    these schedules one of the two read-modify-writes overwrites the other, and the host's check
    of the total fails."""
    r = syncc("run", str(HAZARDS / "race_unguarded_block_write.sync"), "--target", "fermi-sim",
              "--unsafe-skip-hazard-checks", "--policy", policy)
    assert r.code == 1 and "E0901" in r.err and "an update of sum was lost" in r.err, r.err


@pytest.mark.parametrize("policy", SEEDS)
def test_the_guarded_neighbour_keeps_every_update(policy):
    r = syncc("run", str(HAZARDS / "clean" / "race_guarded_block_write.sync"), "--target", "fermi-sim",
              "--policy", policy)
    assert r.code == 0, r.err
