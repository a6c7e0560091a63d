"""The Python API on the Fermi simulator: kernels launched on numpy arrays, results against
references computed here, and a hang reported as a located RunError."""
from __future__ import annotations

import numpy as np
import pytest

import syncc
from helpers import ROOT
from syncc.backends.sim.machine import FermiConfig


def needleman_wunsch(refm: np.ndarray, penalty: int) -> np.ndarray:
    n = refm.shape[0] + 1
    s = np.zeros((n, n), np.int64)
    for i in range(n):
        for j in range(n):
            if i == 0 or j == 0:
                s[i, j] = -penalty * (i + j)
            else:
                s[i, j] = max(s[i - 1, j - 1] + refm[i - 1, j - 1], s[i - 1, j] - penalty, s[i, j - 1] - penalty)
    return s


def test_wavefront_kernel_on_the_simulator_is_needleman_wunsch():
    prog = syncc.compile(str(ROOT / "examples" / "wavefront.sync"), target="fermi-sim")
    assert prog.default_target == "fermi-sim"
    refm = np.random.default_rng(5).integers(-10, 11, size=(31, 31)).astype(np.int32)
    out = np.zeros((32, 32), np.int32)
    outcome = prog.nw(refm, out, 7)
    assert out.tolist() == needleman_wunsch(refm, 7).tolist()
    assert outcome.cycles > 0 and outcome.warp_instructions > 0 and outcome.thread_instructions > 0


def test_a_program_compiled_for_ptx_launches_on_the_simulator_too():
    prog = syncc.compile(str(ROOT / "examples" / "chain.sync"))
    out = np.zeros(512, np.int32)
    prog.tiny_lock(np.arange(32, dtype=np.int32), out, target="fermi-sim")
    ref = [0] * 512
    for t in range(512):
        ref[t] = (t if t < 32 else ref[t - 32]) + t
    assert out.tolist() == ref
    assert "LDSLK" in prog.fermi_sass() and "STSUL" in prog.fermi_sass()


@pytest.mark.parametrize("policy", ["gto", "random:3"])
def test_the_host_block_runs_on_the_simulator_under_another_policy(policy):
    lines = []
    prog = syncc.compile(str(ROOT / "examples" / "counter.sync"), target="fermi-sim",
                         defines={"BLOCKS": 2, "PER_THREAD": 1}, sim_config=FermiConfig(policy=policy))
    prog.run(write=lines.append)
    assert lines == ["counts: [128]"]


def test_a_hang_is_a_run_error_with_the_located_diagnosis():
    prog = syncc.compile(str(ROOT / "tests" / "gpu" / "deadlock.sync"), target="fermi-sim")
    which = np.full(64, 63, np.int32)
    with pytest.raises(syncc.api.RunError) as info:
        prog.stuck(which)
    assert info.value.deadlock
    text = str(info.value)
    assert "deadlock.sync:7:5: error[E0908]" in text and "`done.flag[63]`" in text


def test_wrong_arguments_are_refused_before_anything_runs():
    prog = syncc.compile(str(ROOT / "examples" / "chain.sync"), target="fermi-sim")
    from syncc.runtime.args import LaunchError
    with pytest.raises(LaunchError):
        prog.tiny_lock(np.arange(32, dtype=np.int64), np.zeros(512, np.int32))


def test_seed003_listing_3_3_in_the_language_finishes_under_its_with_or_without_syncwarp():
    """As on an H100: the polling loop syncc emits yields each round (YIELD), so the split that
    would end the spin runs; the livelock of seed 003 needs a loop without one
    (examples/sass/its_livelock_3_3.sass). On Fermi the same wait is a potential SIMT deadlock."""
    from helpers import syncc as cli
    path = str(ROOT / "tests" / "sim" / "its_ring.sync")
    fixed = cli("run", path, "--its")
    assert fixed.code == 0 and fixed.out.strip() == "32"
    bare = cli("run", path, "--its", "--unsafe-no-syncwarp")
    assert bare.code == 0 and bare.out.strip() == "32" and "warning[W0702]" in bare.err
    fermi = cli("run", path)
    assert fermi.code == 1 and "error[E0701]" in fermi.err


def test_a_launch_takes_its_own_sim_config():
    """One compiled program, many schedules: `sim_config=` on a launch replaces the program's
    configuration for that launch; the same seed repeats its run exactly, and seeds differ."""
    prog = syncc.compile(str(ROOT / "tests" / "properties" / "mutex.sync"), target="fermi-sim")

    def cycles(policy):
        ev, arr, ent = np.zeros((4, 8), np.int32), np.zeros((4, 16), np.int32), np.zeros((4, 16), np.int32)
        outcome = prog.ticket_global_warp(ev, arr, ent, sim_config=FermiConfig(policy=policy))
        assert ev[0][0] == 8                               # 4 warps, 2 acquisitions each
        return outcome.cycles, arr.tolist(), ent.tolist()
    runs = {seed: cycles(f"adversarial:{seed}") for seed in range(6)}
    assert cycles("adversarial:3") == runs[3]
    assert len({c for c, _, _ in runs.values()}) > 1, "every seed gave the same schedule"
    assert cycles("lrr") != runs[0]


def test_a_launch_config_is_checked():
    prog = syncc.compile(str(ROOT / "examples" / "counter.sync"), target="fermi-sim")
    with pytest.raises(ValueError, match="unknown scheduling policy"):
        prog.counter(*_counter_args(), sim_config=FermiConfig(policy="adversarial:x"))
    with pytest.raises(ValueError, match="compiled without ITS"):
        prog.counter(*_counter_args(), sim_config=FermiConfig(its=True))


def _counter_args():
    return np.zeros(1, np.int32), np.zeros(4 * 64 * 2, np.int32)        # counter.sync's default ITEMS
