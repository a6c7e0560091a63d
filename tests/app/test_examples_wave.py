"""examples/wavefront_tiled.sync: Needleman–Wunsch over a grid of tiles in the three versions of
seed 000 §6 (tiny-lock and atomic-lock dataflow, data-parallel), end to end.

On fermi-sim at small multi-tile sizes (small tiles through -D), under adversarial schedules
and on a one-SM machine (blocks one after another: the tiles are drawn in dependence order, so
no block waits for one that has not started); on a GPU (marker `gpu`) at Table 3's largest grid
and beyond.
"""
import numpy as np
import pytest

import syncc as api
from helpers import ROOT, no_gpu, syncc
from syncc.backends.sim.machine import FermiConfig
from syncc.bench.wavefront import reference
from syncc.driver import check_file

PATH = ROOT / "examples" / "wavefront_tiled.sync"
KERNELS = ["nw_tiny", "nw_atomic", "nw_diag"]


def inputs(n: int, seed: int = 3):
    refm = np.random.default_rng(seed).integers(-10, 11, size=(n, n)).astype(np.int32)
    return refm, reference(refm, 10)


def test_three_versions_as_in_the_paper():
    module = check_file(str(PATH)).module
    assert set(module.kernels) == set(KERNELS)
    score = {k: next((p for p in module.kernels[k].prims if p.decl.name.text == "score"), None) for k in KERNELS}
    assert (score["nw_tiny"].placement, score["nw_tiny"].granularity, score["nw_tiny"].impl.name) == \
        ("shared", "thread", "tinylock")
    assert score["nw_atomic"].impl.name == "atomlock" and score["nw_diag"] is None
    for k in KERNELS:                              # tiles signal each other in global memory
        done = next(p for p in module.kernels[k].prims if p.decl.name.text == "done")
        assert (done.kind, done.placement, done.impl.name) == ("channel", "global", "flag")
    # a dataflow tile of 31 × 31 points and its halo: 1024 threads, 1024 lock bits; one warp for the DP tile
    assert module.kernels["nw_tiny"].threads_per_block == score["nw_tiny"].instances == 1024
    assert module.kernels["nw_diag"].threads_per_block == 32


@pytest.mark.parametrize("defines", [["-D", "TILE=7", "-D", "TILES=3"], ["-D", "TILE=3", "-D", "TILES=5"],
                                     ["-D", "TILE=7", "-D", "TILES=1"]], ids=["3x3of7", "5x5of3", "1x1of7"])
def test_host_block_checks_every_version_on_the_simulator(defines):
    r = syncc("run", "examples/wavefront_tiled.sync", "--target", "fermi-sim", *defines)
    assert r.code == 0, r.err
    tiles = int(defines[3].split("=")[1])
    assert f"on {tiles} x {tiles} tiles" in r.out


@pytest.mark.slow
def test_default_two_by_two_tiles_of_31_on_the_simulator():
    r = syncc("run", "examples/wavefront_tiled.sync", "--target", "fermi-sim")
    assert r.code == 0, r.err
    assert "on 2 x 2 tiles of 31 x 31" in r.out


@pytest.mark.parametrize("target", ["ptx", "fermi-sim"])
@pytest.mark.parametrize("defines", [[], ["-D", "TILES=64"], ["-D", "TILE=16", "-D", "TILES=256"]],
                         ids=["default", "1984", "4096"])
def test_checks_clean_at_every_size(target, defines):
    r = syncc("check", "examples/wavefront_tiled.sync", "--target", target, *defines)
    assert r.code == 0 and "warning" not in r.err, r.err


@pytest.fixture(scope="module")
def small():
    return api.compile(str(PATH), target="fermi-sim", defines={"TILE": 7, "TILES": 3})


@pytest.mark.parametrize("kernel", KERNELS)
def test_each_block_draws_one_tile_and_the_matrix_is_right(small, kernel):
    refm, want = inputs(21)
    out, next_tile = np.zeros((22, 22), np.int32), np.zeros(1, np.int32)
    outcome = getattr(small, kernel)(refm, out, next_tile, 10)
    assert np.array_equal(out, want)
    assert next_tile[0] == 9                       # 9 blocks, 9 tickets
    assert outcome.cycles > 0


@pytest.mark.parametrize("config", [FermiConfig(sms=1), FermiConfig(policy="adversarial:11"),
                                    FermiConfig(policy="random:5"), FermiConfig(sms=2, policy="gto")],
                         ids=["one-sm", "adversarial", "random", "two-sm-gto"])
@pytest.mark.parametrize("kernel", ["nw_tiny", "nw_diag"])
def test_forward_progress_under_other_schedules(small, kernel, config):
    refm, want = inputs(21, seed=8)
    out = np.zeros((22, 22), np.int32)
    getattr(small, kernel)(refm, out, np.zeros(1, np.int32), 10, sim_config=config)
    assert np.array_equal(out, want)


def test_a_wrong_result_is_caught(small):
    """The comparison the host block makes can fail: a different penalty gives another matrix."""
    refm, want = inputs(21)
    out = np.zeros((22, 22), np.int32)
    small.nw_tiny(refm, out, np.zeros(1, np.int32), 9)
    assert not np.array_equal(out, want)
    assert np.array_equal(out, reference(refm, 9))


# ---- on a GPU ---------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
@pytest.mark.parametrize("tile, tiles", [(31, 64), (16, 128), (16, 256), (31, 128)],
                         ids=["1984", "2048", "4096", "3968"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_large_grids_on_the_gpu(kernel, tile, tiles):
    import cupy
    n = tile * tiles
    prog = api.compile(str(PATH), defines={"TILE": tile, "TILES": tiles})
    refm, want = inputs(n, seed=n)
    out = cupy.zeros((n + 1, n + 1), cupy.int32)
    next_tile = cupy.zeros(1, cupy.int32)
    getattr(prog, kernel)(cupy.asarray(refm), out, next_tile, 10, timeout=60.0)
    assert int(next_tile.get()[0]) == tiles * tiles
    assert np.array_equal(out.get(), want)


@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
def test_host_block_at_496_on_the_gpu():
    r = syncc("run", "examples/wavefront_tiled.sync", "--target", "gpu", "-D", "TILES=16", "--timeout", "60")
    assert r.code == 0, r.err + r.out
    assert "on 16 x 16 tiles of 31 x 31" in r.out
