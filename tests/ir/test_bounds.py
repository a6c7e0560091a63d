"""Run-time bounds checks, end to end on the simulator: a data index outside its array stops
the kernel at its check with a located E0913 (the index, the array, the thread), a guarded one
gets no check and runs, and --unsafe-no-bounds-checks / bounds_checks=False take them out."""
from __future__ import annotations

import re

import numpy as np
import pytest

import syncc
from helpers import syncc as run_syncc

LOCKS = """\
kernel k(idx: global i32[64], o: global i32[64]) launch grid(1) block(64) {
    mutex locks[48] in global @thread
    let k = idx[tid]
    critical locks[k] {
        o[k] += 1
    }
}

host {
    let idx = zeros(i32, 64)
    let o = zeros(i32, 64)
    for i in 0 .. 64 {
        idx[i] = VALUE
    }
    launch k(idx, o)
    print(o[0])
}
"""

GUARDED = LOCKS.replace("    critical locks[k] {\n        o[k] += 1\n    }",
                        "    if k >= 0 && k < 48 {\n        critical locks[k] {\n            o[k] += 1\n        }\n    }")


def write(tmp_path, text: str, **values) -> str:
    for name, value in values.items():
        text = text.replace(name, str(value))
    path = tmp_path / "prog.sync"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_negative_index_from_data_stops_at_its_check(tmp_path, engine):
    path = write(tmp_path, LOCKS, VALUE="-1")
    r = run_syncc("run", path, "--engine", engine)
    assert r.code == 1, r.err
    assert re.search(r"prog\.sync:4:20: error\[E0913\]: `k`: index -1 is outside `locks` \(48 elements\), "
                     r"in thread 0 of block 0", r.err), r.err
    assert "critical locks[k] {\n  |                    ^" in r.err     # the caret under the index


def test_the_issues_case_locks_of_tid_with_more_threads_than_locks(tmp_path):
    path = write(tmp_path, LOCKS, VALUE="i")
    r = run_syncc("run", path)
    assert r.code == 1
    assert "error[E0913]: `k`: index 48 is outside `locks` (48 elements), in thread 48 of block 0" in r.err


def test_an_index_past_the_end_of_an_array(tmp_path):
    path = write(tmp_path, """\
kernel k(idx: global i32[8], o: global i32[4][16]) launch grid(2) block(8) {
    let r = idx[tid]
    o[r][tid] = 1
}

host {
    let idx = zeros(i32, 8)
    idx[5] = 4
    let o = zeros(i32, [4, 16])
    launch k(idx, o)
}
""")
    r = run_syncc("run", path)
    assert r.code == 1
    # a two-dimensional subscript: its row-major index, the whole array, and the block it ran in
    assert re.search(r"prog\.sync:3:5: error\[E0913\]: `o\[r\]\[tid\]`: row-major index 69 is outside `o` "
                     r"\(64 elements\), in thread 5 of block [01]$", r.err, re.M), r.err


def test_a_guarded_index_has_no_check_and_runs(tmp_path):
    path = write(tmp_path, GUARDED, VALUE="i - 8")
    r = run_syncc("run", path)
    assert r.code == 0, r.err
    assert r.out.strip() == "1"                    # thread 8's k is 0; threads 0-7 and 56-63 skipped
    ir = run_syncc("build", path, "--emit", "ir")
    assert "bounds.check" not in ir.out
    assert "BPT.TRAP" not in run_syncc("build", path, "--target", "fermi-sass").out
    ptx = run_syncc("build", path, "--target", "ptx").out
    assert "trap;" not in ptx and "bounds." not in ptx


def test_no_gpu_check_traps(tmp_path):
    """In PTX and in the vended CUDA a failed check stalls its thread rather than trap: ptxas
    builds a kernel around a path that never returns (ptx/codegen.py)."""
    path = write(tmp_path, LOCKS, VALUE="-1")
    ptx = run_syncc("build", path, "--target", "ptx").out
    assert "nanosleep" in ptx and not re.search(r"^\s*(@\S+\s+)?trap;", ptx, re.M)
    cuda = run_syncc("build", path, "--target", "cuda").out
    assert "bounds_stop();" in cuda and "__trap();" not in cuda


def test_the_flag_removes_every_check(tmp_path):
    path = write(tmp_path, LOCKS, VALUE="-1")
    checked = run_syncc("build", path, "--target", "fermi-sass")
    assert "BPT.TRAP" in checked.out
    for args in (("build", path, "--emit", "ir"), ("build", path, "--target", "fermi-sass"),
                 ("build", path, "--target", "ptx"), ("build", path, "--target", "cuda"), ("explain", path)):
        r = run_syncc(*args, "--unsafe-no-bounds-checks")
        assert r.code == 0, r.err
        assert not re.search(r"bounds|BPT|trap", r.out), args
    assert run_syncc("check", path, "--unsafe-no-bounds-checks").code == 0
    # without its check the lock index -1 reaches the lock's words: the simulator sees an access
    # outside every allocation at best (on a GPU it writes next to them)
    r = run_syncc("run", path, "--unsafe-no-bounds-checks")
    assert "E0913" not in r.err


def test_explain_lists_each_check(tmp_path):
    path = write(tmp_path, LOCKS, VALUE="-1")
    r = run_syncc("explain", path)
    assert "run-time bounds checks" in r.out
    assert re.search(r"4:5 +the index of `locks` is checked at run time: it must lie in 0\.\.47, and the value "
                     r"ranges give -2147483648\.\.2147483647", r.out), r.out


def test_the_api_raises_index_out_of_bounds(tmp_path):
    prog = syncc.compile(write(tmp_path, LOCKS, VALUE="-1"), target="fermi-sim")
    idx = np.zeros(64, np.int32)
    idx[7] = 99
    with pytest.raises(syncc.IndexOutOfBounds) as e:
        prog.k(idx, np.zeros(64, np.int32))
    assert (e.value.index, e.value.thread, e.value.block) == (99, (7, 0, 0), (0, 0, 0))
    assert e.value.check.array == "locks" and e.value.check.length == 48 and e.value.span.line == 4
    assert str(e.value) == "`k`: index 99 is outside `locks` (48 elements), in thread 7 of block 0"
    with pytest.raises(syncc.RunError, match=r"E0913"):
        prog.run()


def test_the_api_can_leave_the_checks_out(tmp_path):
    path = write(tmp_path, GUARDED, VALUE="i")
    checked = syncc.compile(path, target="fermi-sim")
    unchecked = syncc.compile(path, target="fermi-sim", bounds_checks=False)
    assert "BPT" not in unchecked.fermi_sass() and "BPT" not in checked.fermi_sass()   # guarded: none anyway
    bare = syncc.compile(write(tmp_path, LOCKS, VALUE="i"), target="fermi-sim", bounds_checks=False)
    assert "BPT" not in bare.fermi_sass() and "bounds.check" not in bare.ptx()


def test_a_checked_program_that_stays_inside_runs_as_before(tmp_path):
    path = write(tmp_path, LOCKS, VALUE="i % 48")
    r = run_syncc("run", path)
    assert r.code == 0, r.err
    assert r.out.strip() == "2"                     # threads 0 and 48 both counted into o[0]


def test_the_record_says_which_block_and_thread_in_several_dimensions(tmp_path):
    path = write(tmp_path, """\
kernel k(idx: global i32[4][8], o: global i32[16]) launch grid(2, 2) block(8, 4) {
    o[idx[tid.y][tid.x] + bid.y] = 1
}

host {
    let idx = zeros(i32, [4, 8])
    idx[2][3] = 15
    let o = zeros(i32, 16)
    launch k(idx, o)
}
""")
    r = run_syncc("run", path)
    assert r.code == 1
    assert re.search(r"index 16 is outside `o` \(16 elements\), in thread \(3, 2, 0\) of block \([01], 1, 0\)",
                     r.err), r.err


# ---- the GPU launcher's watchdog and error path, without a GPU (a stand-in stream and record)

class _Stream:
    """A stream whose launch is still running (600, cudaErrorNotReady) or failed (`error`: what
    cudaStreamQuery returns then, and what synchronize raises)."""
    ptr = 1

    def __init__(self, error=None):
        self.error = error

        self.queries = 0

    @property
    def status(self):
        self.queries += 1
        return 600 if self.error is None else 719

    def synchronize(self):
        if self.error is not None:
            raise self.error


def _launcher_and_launch(tmp_path, record_words):
    """A GpuLauncher for the LOCKS program with a fake cupy, and a launch whose fault record holds
    `record_words`: what _wait sees while the kernel runs, or after a launch error."""
    import types

    from syncc.ir.abi import FAULT_WORDS
    from syncc.runtime import gpu

    class CUDARuntimeError(Exception):
        pass
    comp = syncc.compile(write(tmp_path, LOCKS, VALUE="-1"))._comp("gpu")
    launcher = object.__new__(gpu.GpuLauncher)
    launcher.cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(
        CUDARuntimeError=CUDARuntimeError, streamQuery=lambda ptr: _STREAM.status)))
    launcher.kernels = {k.name: k for k in comp.ir.kernels}
    launcher.sites = {k.name: gpu.check_sites(k) for k in comp.ir.kernels}
    launcher.timeout = 0.01
    record = object.__new__(gpu.FaultRecord)
    record.words = np.zeros(FAULT_WORDS, np.uint32)
    record.words[:len(record_words)] = record_words
    launch = gpu._Launch(launcher.kernels["k"], None, None, (1, 1, 1), (64, 1, 1), [], [], [record], False)
    return launcher, launch, CUDARuntimeError


_STREAM = _Stream()


def _wait(launcher, launch, stream):
    """launcher._wait, except that a kernel it leaves running does not end this process at exit."""
    from unittest import mock

    from syncc.runtime import gpu
    global _STREAM
    _STREAM = stream
    with mock.patch.object(gpu, "_left_running", lambda *args: None):
        launcher._wait(stream, launch, None)


def test_after_a_trap_the_launcher_reads_the_record(tmp_path):
    launcher, launch, error = _launcher_and_launch(tmp_path, [1, 0, 0xFFFFFFFF, 0, 0, 0, 9, 0, 0])
    with pytest.raises(syncc.IndexOutOfBounds) as e:
        _wait(launcher, launch, _Stream(error=error("cudaErrorLaunchFailure")))
    assert (e.value.index, e.value.thread) == (-1, (9, 0, 0))
    assert e.value.message == "index -1 is outside `locks` (48 elements), in thread 9 of block 0"


def test_a_launch_error_with_no_record_is_that_error(tmp_path):
    launcher, launch, error = _launcher_and_launch(tmp_path, [])
    with pytest.raises(error):
        _wait(launcher, launch, _Stream(error=error("cudaErrorIllegalAddress")))


def test_a_kernel_still_running_with_a_record_reports_the_check_at_once(tmp_path):
    """A failed check's thread stalls there for good (ptx/codegen.py): the watchdog reads the
    record as it polls and reports the check at its first look, not after the timeout."""
    from syncc.runtime.gpu import ProbableDeadlock
    launcher, launch, _ = _launcher_and_launch(tmp_path, [1, 0, 48, 0, 0, 0, 48, 0, 0])
    launcher.timeout = 3600.0
    stream = _Stream()
    with pytest.raises(syncc.IndexOutOfBounds, match="index 48 is outside `locks`"):
        _wait(launcher, launch, stream)
    assert stream.queries == 1
    launcher, launch, _ = _launcher_and_launch(tmp_path, [])
    with pytest.raises(ProbableDeadlock):
        _wait(launcher, launch, _Stream())


def test_a_launch_runs_without_the_checks_its_grid_proves(tmp_path):
    """`out[gtid]` is checked (a launch may give any grid), but the simulator, like the GPU,
    runs each launch without the checks its shape proves: grid(2) needs none, grid(3) keeps it.
    (A launch from the API is checked by the analyses for its shape first: grid(3) is refused
    with E0726 before it runs; without the hazard checks the run-time check stops it.)"""
    path = write(tmp_path, """\
kernel k(out: global i32[128]) launch block(64) {
    out[gtid] = 1
}

host {
    let out = zeros(i32, 128)
    launch k(out) grid(2)
    check out[127] == 1, "every thread wrote"
}
""")
    assert "bounds.check" in run_syncc("build", path, "--emit", "ir").out
    assert run_syncc("run", path).code == 0
    prog = syncc.compile(path, target="fermi-sim")
    out = np.zeros(128, np.int32)
    prog.k[2, 64](out)
    launcher = prog.launcher("fermi-sim", 10.0)
    [(kernel, outcome, grid, block)] = launcher.runs
    assert outcome.ok and not any(ins.op == "BPT" for ins in kernel.instrs) and (out == 1).all()
    with pytest.raises(syncc.CompileError, match=r"E0726.*\n(.*\n)*.*grid\(3\) block\(64\), given at run time"):
        prog.k[3, 64](out)
    unchecked = syncc.compile(path, target="fermi-sim", hazards=False)
    with pytest.raises(syncc.IndexOutOfBounds, match=r"index 128 is outside `out` \(128 elements\), in thread 0 of "
                                                      r"block 2"):
        unchecked.k[3, 64](out)
    assert any(ins.op == "BPT" for ins in unchecked.launcher("fermi-sim", 10.0).runs[-1][0].instrs)


def test_a_process_that_leaves_a_kernel_running_exits_at_once_with_status_1():
    """Freeing device memory at exit would wait for the kernel for ever: the launcher ends the
    process instead, its output flushed."""
    import subprocess
    import sys
    code = ("import types\nfrom syncc.runtime import gpu\n"
            "gpu._left_running(None, None, types.SimpleNamespace(keep=()))\n"
            "gpu._left_running(None, None, types.SimpleNamespace(keep=()))\n"
            "print('the launch raised', end='')\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert (p.returncode, p.stdout, p.stderr) == (1, "the launch raised", "")


def _checks(k) -> list:
    return [ins for _, _, ins in k.instructions() if ins.op == "bounds.check"]


def test_an_index_tested_below_a_size_the_launch_gives_needs_no_check(tmp_path):
    """`if i < n { x[i] }` for `x: global f32[n]`: no run-time check where i is never negative
    (`tid`), for every launch; where it could be for some grid (`gtid` wraps past 2^31 threads) the
    launcher drops it for its own grid; an index from data, or one assigned after the test, keeps it."""
    from syncc.driver import compile_file
    from syncc.ir.faults import drop_proven_checks
    path = write(tmp_path, """\
kernel k(n: i32, x: global f32[n], d: global i32[32]) launch grid(4) block(32) {
    if tid < n { x[tid] = 1.0 }
    if gtid < n { x[gtid] = 2.0 }
    let j = d[tid]
    if j < n { x[j] = 3.0 }
    var m = tid
    if m < n {
        m = m + 1
        x[m] = 4.0
    }
}
""")
    k = compile_file(path, target="gpu").ir.kernel("k")
    kept = {str(ins.args[0]) for ins in _checks(k)}
    assert "%tid_x" not in kept and len(_checks(k)) == 3, kept          # gtid, j and m + 1 keep theirs
    shaped = drop_proven_checks(k, ((4, 1, 1), (32, 1, 1)))
    assert len(_checks(shaped)) == 2                                     # gtid's goes for grid(4)
