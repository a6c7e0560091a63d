"""On a real GPU (marked `gpu`; skipped cleanly without cupy and a CUDA device).

- every example runs on the GPU and its host block checks it against its reference;
- the stress programs of tests/gpu/ (≥ 100 000 iterations each: mutual exclusion under
  every mutex, message passing through channels, the semaphore bound, barrier phases)
  find no violation, at -O0 and -O2; run with --unsafe-no-fences they print how many
  violations the GPU showed without the fences (not asserted: a GPU may show none);
- the watchdog turns a deadlocked kernel into exit status 3 and E0904;
- a run-time bounds check that fails stalls its thread, and the fault record in mapped host
  memory, read while the kernel runs, gives E0913 with the index and the thread (and
  syncc.IndexOutOfBounds), long before the watchdog's timeout;
- the Python API launches kernels on numpy and cupy arrays, and refuses bad launches.
"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from helpers import EXAMPLES, ROOT, no_gpu, syncc
import syncc as syncc_api


# the rwlock, latch and trywait tests reuse tests/ir/test_prims_sim.py's programs: importable however
# pytest was started (run alone, this file would not see tests/ir)
if str(ROOT / "tests" / "ir") not in sys.path:
    sys.path.append(str(ROOT / "tests" / "ir"))

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")]
STRESS = sorted(p for p in (ROOT / "tests" / "gpu").glob("*_stress.sync"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs_on_the_gpu(path):
    r = syncc("run", str(path.relative_to(ROOT)), "--target", "gpu", "--timeout", "60")
    assert r.code == 0, r.err + r.out


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
@pytest.mark.parametrize("path", STRESS, ids=lambda p: p.stem)
def test_stress_finds_no_violation(path, opt):
    r = syncc("run", str(path.relative_to(ROOT)), "--target", "gpu", "--timeout", "120", opt)
    print(r.out)
    assert r.code == 0, r.err + r.out


@pytest.mark.parametrize("fences", [True, False], ids=["fenced", "unfenced"])
@pytest.mark.parametrize("impl", ["ring", "locked", "ring@warp", "ring@block"])
def test_queue_stress_per_implementation(tmp_path, impl, fences):
    """tests/gpu/queue_stress.sync (1 013 760 values) with each queue implementation named, and the
    ring's @warp and @block parties (a warp or block puts one value per thread as one item): every
    value taken once and in order per producer, at -O2. Without fences, what the GPU shows is
    printed, not asserted (exit 1: the program's check failed; 3: a kernel hung)."""
    impl, _, gran = impl.partition("@")
    path = tmp_path / f"queue_{impl}_{gran or 'thread'}.sync"
    text = (ROOT / "tests/gpu/queue_stress.sync").read_text()
    path.write_text(text.replace("in global @thread", f"in global @{gran or 'thread'} using {impl}", 1))
    assert f"using {impl}" in path.read_text()
    _run_checked(path, f"queue_stress using {impl}", fences)


@pytest.mark.parametrize("fences", [True, False], ids=["fenced", "unfenced"])
@pytest.mark.parametrize("impl", ["mbarrier"])
def test_party_queue_stress_per_implementation(tmp_path, impl, fences):
    """tests/gpu/queue_party_stress.sync (1 013 760 values from warp 0 to warp 1 of each block
    through a shared @warp queue) with the implementations other than the default (which
    test_stress_finds_no_violation runs), at -O2. Without fences, what the
    GPU shows is printed, not asserted (an mbarrier queue's ordering is the mbarriers' own, which
    --unsafe-no-fences does not remove)."""
    path = tmp_path / f"party_{impl}.sync"
    text = (ROOT / "tests/gpu/queue_party_stress.sync").read_text()
    path.write_text(text.replace("in shared @warp", f"in shared @warp using {impl}", 1))
    assert f"using {impl}" in path.read_text()
    _run_checked(path, f"queue_party_stress using {impl}", fences)


def _run_checked(path, what: str, fences: bool) -> None:
    """`syncc run` a stress program at -O2 in a subprocess: it must pass with its fences; without
    them, what the GPU shows is printed, not asserted (exit 1: its check failed; 3: it hung)."""
    flags = [] if fences else ["--unsafe-no-fences"]
    p = subprocess.run([sys.executable, "-m", "syncc", "run", str(path), "--target", "gpu", "--timeout", "60",
                        "-O2", *flags], cwd=ROOT, capture_output=True, text=True, timeout=300)
    print(f"{what}{'' if fences else ' without fences'}: exit {p.returncode}\n{p.stdout}{p.stderr[-600:]}")
    if fences:
        assert p.returncode == 0, p.stderr
    else:
        assert p.returncode in (0, 1, 3), p.stderr


@pytest.mark.parametrize("arch", ["sm_75", "sm_80", "sm_90"])
def test_an_mbarrier_queue_on_every_architecture(tmp_path, arch):
    """The party stress through an `mbarrier` queue, from PTX built for each architecture and
    compiled by the driver for the device: mbarrier.try_wait (sm_90), test_wait (sm_80), and
    the two shared words that stand in for an mbarrier before sm_80."""
    from syncc.driver import compile_file
    from syncc.runtime.gpu import GpuLauncher
    path = tmp_path / "party_mbarrier.sync"
    text = (ROOT / "tests/gpu/queue_party_stress.sync").read_text()
    path.write_text(text.replace("in shared @warp", "in shared @warp using mbarrier", 1))
    comp = compile_file(str(path), target="ptx")
    assert comp.ir is not None, comp.diagnostics
    launcher = GpuLauncher(comp.ir, timeout=60, arch=arch)
    assert ("mbarrier.try_wait" in launcher.program.text) == (arch == "sm_90")
    assert ("mbarrier.arrive" in launcher.program.text) == (arch != "sm_75")
    items = 132 * 32 * 240
    got, seen = np.zeros(items, np.int32), np.zeros(132 * 32, np.int32)
    late, wrong = np.zeros(1, np.int32), np.zeros(1, np.int32)
    launcher("stream", [got, seen, late, wrong], (132, 1, 1), (64, 1, 1))
    print(f"mbarrier queue built for {arch}: {int((got == 1).sum())} of {items} values once, "
          f"{int(late[0])} late, {int(wrong[0])} misplaced")
    assert (got == 1).all() and late[0] == 0 and wrong[0] == 0


@pytest.mark.parametrize("path", STRESS, ids=lambda p: p.stem)
def test_stress_without_fences(path):
    """What the GPU shows without any ordering: printed, not asserted (exit 1: a violation was
    seen; exit 3: a kernel hung). In a subprocess, because a hung kernel ends the process."""
    p = subprocess.run([sys.executable, "-m", "syncc", "run", str(path.relative_to(ROOT)), "--target", "gpu",
                        "--timeout", "20", "--unsafe-no-fences", "-O0"], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    print(f"{path.stem} without fences: exit {p.returncode}\n{p.stdout}{p.stderr[-600:]}")
    assert p.returncode in (0, 1, 3), p.stderr


def test_watchdog_reports_a_deadlock():
    p = subprocess.run([sys.executable, "-m", "syncc", "run", "tests/gpu/deadlock.sync", "--target", "gpu",
                        "--timeout", "3", "--error-format", "json"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 3, p.stderr
    [record] = [json.loads(line) for line in p.stderr.splitlines() if line.startswith("{")]
    assert record["code"] == "E0904" and record["line"] == 11
    assert "channel `done`" in p.stderr


def test_a_failed_bounds_check_is_reported_from_the_record():
    """tests/gpu/bounds_fault.sync: item 4321 names lock 53 of 48. The failing threads stall at
    the check, and the record in mapped pinned memory says which index and thread as soon as it
    is written (the watchdog's 600 s would outlast this test's 180)."""
    p = subprocess.run([sys.executable, "-m", "syncc", "run", "tests/gpu/bounds_fault.sync", "--target", "gpu",
                        "--timeout", "600", "--error-format", "json"], cwd=ROOT, capture_output=True, text=True,
                       timeout=180)
    assert p.returncode == 1, p.stderr
    [record] = [json.loads(line) for line in p.stderr.splitlines() if line.startswith("{")]
    assert record["code"] == "E0913" and (record["line"], record["column"]) == (16, 20), record
    assert record["message"] == ("`k`: index 53 is outside `locks` (48 elements), in thread 225 of block 16"), record
    ok = subprocess.run([sys.executable, "-m", "syncc", "run", "tests/gpu/bounds_fault.sync", "--target", "gpu",
                         "--timeout", "30", "-D", "FAULT=false"], cwd=ROOT, capture_output=True, text=True,
                        timeout=180)
    assert ok.returncode == 0, ok.stderr


def test_the_api_raises_index_out_of_bounds_on_the_gpu():
    code = (
        "import numpy as np, syncc\n"
        "prog = syncc.compile('tests/gpu/bounds_fault.sync')\n"
        "work = (np.arange(66 * 256) % 48).astype(np.int32)\n"
        "work[7] = -3\n"
        "try:\n"
        "    prog.tally(work, np.zeros(48, np.int32))\n"
        "except syncc.IndexOutOfBounds as e:\n"
        "    print('raised', e.index, e.thread, e.block, e.check.array)\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert "raised -3 (7, 0, 0) (0, 0, 0) locks" in p.stdout, p.stdout + p.stderr


def test_python_api_launches_on_numpy_and_cupy():
    import cupy

    import syncc
    prog = syncc.compile(str(ROOT / "examples" / "wavefront.sync"))
    n = 31
    refm = np.random.default_rng(1).integers(-10, 11, size=(n, n)).astype(np.int32)
    out = np.zeros((n + 1, n + 1), np.int32)
    prog.nw(refm, out, 10)
    ref = np.zeros((n + 1, n + 1), np.int64)
    ref[0, :] = -10 * np.arange(n + 1)
    ref[:, 0] = -10 * np.arange(n + 1)
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            ref[i, j] = max(ref[i - 1, j - 1] + refm[i - 1, j - 1], ref[i - 1, j] - 10, ref[i, j - 1] - 10)
    assert (out == ref).all()
    dev = cupy.zeros((n + 1, n + 1), cupy.int32)
    prog.nw(cupy.asarray(refm), dev, 10)
    assert (dev.get() == ref).all()


def test_python_api_refuses_bad_launches():
    import syncc
    from syncc.runtime.gpu import LaunchError
    prog = syncc.compile(str(ROOT / "examples" / "wavefront.sync"))
    with pytest.raises(LaunchError, match="needs i32"):
        prog.nw(np.zeros((31, 31), np.int64), np.zeros((32, 32), np.int32), 10)
    with pytest.raises(LaunchError, match="compiled for block"):
        prog.nw[1, (16, 16)](np.zeros((31, 31), np.int32), np.zeros((32, 32), np.int32), 10)
    barrier = syncc.compile(str(ROOT / "examples" / "barrier.sync"))
    # (the analyses, run for this launch's grid before it is made, refuse it: E0708; the
    # launcher's occupancy check stands behind them for what registers and shared memory cost)
    with pytest.raises(syncc.CompileError, match="E0708"):
        barrier.smooth[100_000, 128](np.zeros(2048, np.int32), np.zeros(2048, np.int32))


# ---- reader-writer locks, latches and bounded trywait (tests/ir/test_prims_sim.py's programs) ----------

def _ptx(tmp_path, source: str):
    path = tmp_path / "p.sync"
    path.write_text(source)
    return syncc_api.compile(str(path))


@pytest.mark.parametrize("impl", ["counter", "ticket"])
@pytest.mark.parametrize("placement, gran", [("global", "thread"), ("global", "warp"), ("shared", "thread")])
def test_rwlock_on_the_gpu(tmp_path, impl, placement, gran):
    from test_prims_sim import GRID, rw_source, writes_expected
    prog = _ptx(tmp_path, rw_source(impl, placement, gran))
    data, occ, stats = np.zeros((GRID, 2), np.int32), np.zeros(GRID, np.int32), np.zeros((GRID, 4), np.int32)
    for _ in range(20):
        prog.rw(data, occ, stats)
    assert data[:, 0].tolist() == [20 * w for w in writes_expected(placement, gran)]
    assert stats[:, 1].sum() == 0 and stats[:, 2].sum() == 0


@pytest.mark.parametrize("case", ["global-thread", "global-block", "shared-warp"])
def test_latch_on_the_gpu(tmp_path, case):
    from test_prims_sim import BLOCK, GRID, LATCH_CASES, latch_source
    placement, gran, count, counters = next(c for c in LATCH_CASES if f"{c[0]}-{c[1]}" == case)
    prog = _ptx(tmp_path, latch_source(placement, gran, count, counters))
    for _ in range(20):
        arrived = np.zeros(GRID, np.int32)
        seen, peek, data = (np.zeros(GRID * BLOCK, np.int32) for _ in range(3))
        prog.latch_k(arrived, seen, peek, data, np.zeros(1, np.int32))
        assert seen.min() >= count
        if counters == "true":
            assert (peek != 0).all()


@pytest.mark.parametrize("impl", ["spin", "backoff", "sleeping"])
def test_bounded_trywait_on_the_gpu(tmp_path, impl):
    from test_prims_sim import trywait_source
    prog = _ptx(tmp_path, trywait_source(impl, "global"))
    res = np.full(8, -1, np.int32)
    prog.tries(res, np.int32(41))
    assert res.tolist() == [0, 0, 1, 0, 1, 1, 0, 0]


@pytest.mark.parametrize("impl", ["spin", "backoff", "sleeping"])
@pytest.mark.parametrize("gran", ["thread", "warp", "block"])
def test_trywait_bounded_by_time_on_the_gpu(tmp_path, impl, gran):
    """`trywait s for t us` on %globaltimer: the answers of the simulator's test, and a launch
    whose every thread waits out t µs for a permit that never comes takes at least t µs."""
    from test_prims_sim import timed_source
    prog = _ptx(tmp_path, timed_source(impl, "global", gran))
    res = np.full((64, 4), -1, np.int32)
    prog.timed(res, np.int32(5))
    assert res.tolist() == [[0, 1, 0, 0]] * 64
    launcher = prog.launcher("gpu", 60.0)
    for t in (200, 900):          # (below 1000: the source's `for (t - 1000) ms` makes one attempt)
        times = launcher.timed("timed", [np.zeros((64, 4), np.int32), np.int32(t)], (1, 1, 1), (64, 1, 1),
                               repeats=3, warmup=1)
        print(f"{impl} @{gran} for {t} us: {[round(x * 1e6) for x in times]} us")
        assert min(times) >= t * 1e-6 and max(times) < t * 1e-6 + 5e-3


# Nested @thread critical sections taken lower index first (tests/gpu/nested_locks.sync): a
# __syncwarp closing the outer polling loop hung these on an H100; now every shape finishes with
# the right balances. Few locks and many threads (contention), many locks (little), many blocks.
NESTED_SHAPES = [("BLOCKS=2", "THREADS=64", "ACCOUNTS=16", "NODES=32"),
                 ("BLOCKS=1", "THREADS=64", "ACCOUNTS=32", "NODES=32"),
                 ("BLOCKS=1", "THREADS=32", "ACCOUNTS=2", "NODES=4"),
                 ("BLOCKS=132", "THREADS=256", "ACCOUNTS=16", "NODES=64"),
                 ("BLOCKS=132", "THREADS=256", "ACCOUNTS=4096", "NODES=4096"),
                 ("BLOCKS=528", "THREADS=128", "ACCOUNTS=64", "NODES=256")]


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
@pytest.mark.parametrize("shape", NESTED_SHAPES, ids=lambda s: "-".join(x.split("=")[1] for x in s[:3]))
def test_nested_locks_finish(shape, opt):
    defines = [w for d in shape for w in ("-D", d)]
    p = subprocess.run([sys.executable, "-m", "syncc", "run", "tests/gpu/nested_locks.sync", "--target", "gpu",
                        "--timeout", "20", opt, *defines], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:] + p.stdout[-500:]


# The nests of tests/properties/nest.sync, launched many times: with a polling loop per level,
# `backoff_global_branch` (lanes of a warp taking two `backoff` locks, lower first, in either arm
# of a branch) hung an H200 within 9 launches in each of 11 processes, a lane that held its outer
# lock waiting at the BSYNC ptxas closes the inner loop with for warp-mates polling for that lock.
# Taken all-or-nothing (passes/structure.py, every target), each ran 300 launches (2026-11-28).
NEST_KERNELS = ["backoff_global_branch", "backoff_global_three", "tas_global_minmax", "ttas_global_minmax"]


@pytest.mark.parametrize("opt", [0, 2], ids=["O0", "O2"])
@pytest.mark.parametrize("kernel", NEST_KERNELS)
def test_nests_of_lanes_of_one_warp_finish_launch_after_launch(kernel, opt):
    prog = syncc_api.compile(str(ROOT / "tests/properties/nest.sync"), target="ptx", opt=opt)
    launch = prog.launcher("gpu", 10.0)
    for _ in range(300):
        ev, done = np.zeros((16, 4), np.int32), np.zeros(2, np.int32)
        launch(kernel, [ev, done], (2, 1, 1), (32, 1, 1))
        assert ev[:, 2].max() == 1 and (ev[:, 0] == ev[:, 3]).all(), ev   # one holder at a time, no lost update


# A whole warp's @warp mutex (tas, ticket) and @warp trylock right after some of its lanes polled a
# @thread semaphore (tests/gpu/warp_after_poll.sync). When the party was the lanes `activemask`
# named after the warp met, the H100 hung: part of the warp led a party of its own. Few pollers
# and the whole warp polling; one block and many; many rounds.
POLL_SHAPES = [("BLOCKS=4", "WARPS=4", "POLLERS=4", "ROUNDS=2"),
               ("BLOCKS=4", "WARPS=4", "POLLERS=32", "ROUNDS=2"),
               ("BLOCKS=1", "WARPS=2", "POLLERS=1", "ROUNDS=1"),
               ("BLOCKS=132", "WARPS=8", "POLLERS=7", "ROUNDS=16"),
               ("BLOCKS=528", "WARPS=4", "POLLERS=31", "ROUNDS=4")]


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
@pytest.mark.parametrize("shape", POLL_SHAPES, ids=lambda s: "-".join(x.split("=")[1] for x in s))
def test_warp_party_after_polling(shape, opt):
    defines = [w for d in shape for w in ("-D", d)]
    p = subprocess.run([sys.executable, "-m", "syncc", "run", "tests/gpu/warp_after_poll.sync", "--target", "gpu",
                        "--timeout", "20", opt, *defines], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:] + p.stdout[-500:]


@pytest.mark.parametrize("kib", [64, 200])
def test_shared_arrays_past_48_kb(tmp_path, kib):
    """Shared arrays past the static 48 KB become dynamic shared memory, asked for at launch: every
    word of a `kib` KiB array is written by one thread and read back by another after `barrier`."""
    words = kib * 256
    prog = _ptx(tmp_path, f"""
kernel fill(out: global i32[{words}]) launch grid(2) block(256) {{
    shared s: i32[{words}]
    shared tail: i32[16]
    for i in 0 .. {words // 256} {{ s[i * 256 + tid] = i * 256 + tid + bid }}
    if tid < 16 {{ tail[tid] = tid }}
    barrier
    if bid == 0 {{
        for i in 0 .. {words // 256} {{ out[i * 256 + tid] = s[{words} - 1 - (i * 256 + tid)] + tail[tid % 16] }}
    }}
}}""")
    out = np.zeros(words, np.int32)
    prog.fill(out)
    i = np.arange(words)
    assert (out == (words - 1 - i) + (i % 256) % 16).all()


def test_shared_arrays_past_the_gpu_are_refused(tmp_path):
    prog = _ptx(tmp_path, """
kernel fill(out: global i32[1]) launch grid(1) block(32) {
    shared s: i32[65536]
    s[tid] = tid
    barrier
    if tid == 0 { out[0] = s[0] }
}""")
    from syncc.runtime.gpu import LaunchError
    with pytest.raises(LaunchError, match="shared arrays take 262144 bytes"):
        prog.fill(np.zeros(1, np.int32))


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
@pytest.mark.parametrize("program", ["float_ops", "float_queues"])
def test_floats_are_the_hosts(program, opt):
    """tests/gpu/float_ops.sync: every f32/f64 operation, conversion and built-in gives on the GPU
    the value the host block computes (special values included), and float atomics add, min, max,
    exchange and compare-and-swap as documented; float_queues.sync: f32 and f64 values arrive
    through a channel and two queues bit for bit."""
    r = syncc("run", f"tests/gpu/{program}.sync", "--target", "gpu", "--timeout", "60", opt)
    assert r.code == 0, r.err + r.out


_FLOAT_DRIVER = r"""
#include <cstdio>
#include "float_ops.cuh"
int main() {
    const int n = 1024;
    static float a[n], b[n], out[16 * n];
    static int32_t ints[4 * n];
    FILE* f = fopen("in.bin", "rb");
    if (fread(a, 4, n, f) != n || fread(b, 4, n, f) != n) return 2;
    fclose(f);
    float *da, *db, *dout; int32_t* dints;
    cudaMalloc(&da, sizeof a); cudaMalloc(&db, sizeof b); cudaMalloc(&dout, sizeof out); cudaMalloc(&dints, sizeof ints);
    cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
    syncc_float_ops::ops32<<<4, 256>>>(da, db, dout, dints);
    if (cudaDeviceSynchronize() != cudaSuccess) return 3;
    cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    cudaMemcpy(ints, dints, sizeof ints, cudaMemcpyDeviceToHost);
    f = fopen("out.bin", "wb");
    fwrite(out, 4, 16 * n, f);
    fwrite(ints, 4, 4 * n, f);
    fclose(f);
    return 0;
}
"""


def test_the_cuda_header_computes_floats_as_the_ptx_does(tmp_path):
    """The `--target cuda` header of float_ops.sync, built by nvcc and launched from C++, writes the
    same bits as the PTX the runtime launches, on random and special values."""
    import shutil
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on PATH")
    r = syncc("build", "tests/gpu/float_ops.sync", "--target", "cuda", "-o", str(tmp_path / "float_ops.cuh"))
    assert r.code == 0, r.err
    (tmp_path / "drive.cu").write_text(_FLOAT_DRIVER)
    p = subprocess.run(["nvcc", "-arch=sm_90", "-std=c++17", "-Werror", "all-warnings", "-o", "drive", "drive.cu"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rng = np.random.default_rng(11)
    a = rng.uniform(-100, 100, 1024).astype(np.float32)
    b = rng.uniform(-3, 3, 1024).astype(np.float32)
    a[:9] = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-40, -3e-45, 3e38, 5e9]
    b[10:17] = [0.0, -0.0, np.nan, np.inf, 1e-38, 3e38, -1e10]
    (tmp_path / "in.bin").write_bytes(a.tobytes() + b.tobytes())
    p = subprocess.run(["./drive"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    raw = np.frombuffer((tmp_path / "out.bin").read_bytes(), np.uint32)
    header_out, header_ints = raw[:16 * 1024].reshape(16, 1024), raw[16 * 1024:].reshape(4, 1024)
    prog = syncc_api.compile(str(ROOT / "tests" / "gpu" / "float_ops.sync"))
    out, ints = np.zeros((16, 1024), np.float32), np.zeros((4, 1024), np.int32)
    prog.ops32(a, b, out, ints)
    both_nan = np.isnan(out) & np.isnan(header_out.view(np.float32))
    differ = (out.view(np.uint32) != header_out) & ~both_nan
    assert not differ.any(), [(k, i, a[i], b[i], out[k, i], header_out.view(np.float32)[k, i])
                              for k, i in zip(*np.nonzero(differ))][:10]
    wrong = ints.view(np.uint32) != header_ints
    assert not wrong.any(), [(k, i, a[i], b[i], ints[k, i], header_ints.view(np.int32)[k, i])
                             for k, i in zip(*np.nonzero(wrong))][:10]


def test_arrays_sized_at_launch_on_the_gpu(tmp_path):
    """`global f32[n]`: one compiled kernel at several lengths through the API; an index past the
    length the launch gives is stopped by the run-time check against that length."""
    path = tmp_path / "saxpy.sync"
    path.write_text("kernel saxpy(n: i32, a: f32, x: global f32[n], y: global f32[n]) launch grid(8) block(256) {\n"
                    "    if gtid < n { y[gtid] = fma(a, x[gtid], y[gtid]) }\n}\n"
                    "kernel shifted(n: i32, k: global i32[2], x: global i32[n]) launch grid(1) block(32) {\n"
                    "    x[tid + k[0]] = tid\n}\n")
    from syncc.core import floats
    from syncc.core.types import F32
    prog = syncc_api.compile(str(path))
    rng = np.random.default_rng(3)
    for n in (1, 100, 2048):
        x = rng.random(n).astype(np.float32)
        y = rng.random(n).astype(np.float32)
        want = np.array([floats.fma(float(a), 1.5, float(b), F32) for a, b in zip(x, y)], np.float32)
        prog.saxpy(n, 1.5, x, y)
        assert (y == want).all(), n
    x = np.zeros(40, np.int32)
    prog.shifted(40, np.array([8, 0], np.int32), x)
    assert list(x[8:40]) == list(range(32))
    with pytest.raises(syncc_api.IndexOutOfBounds, match="index 40 is outside `x`"):
        prog.shifted(40, np.array([9, 0], np.int32), np.zeros(40, np.int32))


@pytest.mark.parametrize("impl", ["lookback", "chained"])
def test_the_scan_is_the_hosts_at_every_size(tmp_path, impl):
    """bench/programs/scan.sync (a decoupled look-back scan written with `scan`) with each
    implementation: the exclusive running sum of n i32 (exact) and f32 (within rounding) at sizes
    around the tile and past 32 tiles (the look-back's window), launch after launch."""
    from syncc.bench.gpu_scan import check, inputs
    source = (ROOT / "bench" / "programs" / "scan.sync").read_text()
    path = tmp_path / "scan.sync"
    path.write_text(source.replace("in global @block", f"in global @block using {impl}"))
    tile = 128 * 31
    prog = syncc_api.compile(str(path))
    rng = np.random.default_rng(5)
    for type_name in ("i32", "f32"):
        for n in (1, 7, tile - 1, tile, tile + 1, 33 * tile + 5, 1 << 20, 3_000_001):
            x = inputs(type_name, n, rng)
            y = np.full(n, 77, x.dtype)           # poisoned: every element must be written
            getattr(prog, f"scan_{type_name}")[-(-n // tile), 128](n, x, y)
            check(type_name, x, y)


def test_scans_of_64_bit_values_on_the_gpu(tmp_path):
    """An i64 and an f64 scan (the status apart from the value, with release and acquire): the
    running sums of 2,000,003 values, exactly (i64, sums past 2^31) and within rounding (f64)."""
    path = tmp_path / "wide.sync"
    path.write_text(
        "kernel wide(n: i32, x: global i32[n], y: global i64[n], z: global f64[n]) launch block(256) {\n"
        "    scan s: i64 in global @block\n    scan r: f64 in global @block\n"
        "    let t = tile s\n    let i = t * 256 + tid\n    var v: i64 = 0\n    if i < n { v = i64(x[i]) }\n"
        "    let before = exclusive s(v)\n    if i < n { y[i] = before }\n"
        "    let u = tile r\n    let j = u * 256 + tid\n    var w: f64 = 0.0\n    if j < n { w = f64(x[j]) * 0.5 }\n"
        "    let upto = inclusive r(w)\n    if j < n { z[j] = upto }\n}\n")
    prog = syncc_api.compile(str(path))
    n = 2_000_003
    x = np.random.default_rng(9).integers(0, 5000, n, dtype=np.int32)
    y, z = np.zeros(n, np.int64), np.zeros(n, np.float64)
    prog.wide[-(-n // 256), 256](n, x, y, z)
    running = np.cumsum(x.astype(np.int64))
    assert running[-1] > 1 << 31
    assert (y == running - x).all()
    assert np.allclose(z, running * 0.5, rtol=1e-12)
