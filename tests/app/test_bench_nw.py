"""bench/programs/nw.sync, the GPU suite's Needleman–Wunsch strip pipeline, on the simulator.

The GPU section (`syncc bench gpu --only gpu_nw`) checks its matrix against the baseline's on a
GPU; this runs the same program without one, small enough for Fermi's 48 KB of shared memory
(tiles of 8 columns, two groups of memory warps of 128 rows each, a ring of 8 tiles), strip by
strip through the `done` channel, under two schedulers, against the numpy recurrence.
"""
import numpy as np
import pytest

import syncc
from syncc.backends.sim.machine import FermiConfig
from syncc.bench.gpu_nw import PENALTY, STRIP_ROWS, bordered, reference
from helpers import ROOT

SMALL = {"WSHIFT": 3, "M": 2, "MR": 128, "RING": 8}     # 41 KB of shared memory, 96 threads


@pytest.mark.parametrize("n, policy", [(256, "lrr"), (384, "random:3")])
def test_strips_compute_the_recurrence(n, policy):
    prog = syncc.compile(str(ROOT / "bench" / "programs" / "nw.sync"), defines={"N": n, **SMALL},
                         target="fermi-sim")
    refm = np.random.default_rng(n).integers(-10, 11, size=(n, n)).astype(np.int32)
    score = bordered(np, n)
    prog.nw_strips[(n // STRIP_ROWS, 1, 1), (96, 1, 1)](refm, score, PENALTY,
                                                        sim_config=FermiConfig(policy=policy))
    assert np.array_equal(score, reference(refm, PENALTY))
