"""What the gpu sections share: building and loading the hand-written baselines with nvcc,
timing a launch with CUDA events, and compiling syncc's bench programs (bench/programs/)."""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
from pathlib import Path

from .core import BenchError, Context

TIMEOUT = 60.0          # a launch still running after this long is a deadlock, not a result


def cupy():
    from ..runtime.gpu import _cupy
    return _cupy()


def arch() -> str:
    from ..runtime.gpu import device
    return device().arch


def nvcc() -> str:
    found = shutil.which("nvcc") or next((str(p) for p in (Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) /
                                                          "bin" / "nvcc",) if p.exists()), None)
    if not found:
        raise BenchError("nvcc is not on PATH (the baselines in bench/baselines/ are CUDA C++)")
    return found


def baseline_executable(ctx: Context, name: str) -> str:
    """bench/baselines/NAME.cu built for this GPU with nvcc -O3 as an executable (into the results
    folder, once): for the yardsticks that are CUB's device-wide calls, which are host calls."""
    source = ctx.path(f"bench/baselines/{name}.cu")
    build = ctx.out / "build"
    build.mkdir(exist_ok=True)
    exe = build / f"{name}.{arch()}"
    if not exe.exists() or exe.stat().st_mtime < source.stat().st_mtime:
        r = subprocess.run([nvcc(), f"-arch={arch()}", "-std=c++17", "-O3", "-o", str(exe), str(source)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise BenchError(f"nvcc failed on {source.name}:\n{r.stderr}")
    return str(exe)


def baseline(ctx: Context, name: str, defines: dict | None = None):
    """bench/baselines/NAME.cu built for this GPU with nvcc -O3 (into the results folder, once
    for each set of `defines`, passed as -DNAME=VALUE), loaded as a cupy module."""
    source = ctx.path(f"bench/baselines/{name}.cu")
    build = ctx.out / "build"
    build.mkdir(exist_ok=True)
    flags = [f"-D{k}={v}" for k, v in sorted((defines or {}).items())]
    suffix = "".join(f".{k}{v}" for k, v in sorted((defines or {}).items()))
    cubin = build / f"{name}{suffix}.{arch()}.cubin"
    if not cubin.exists() or cubin.stat().st_mtime < source.stat().st_mtime:
        cmd = [nvcc(), "-cubin", f"-arch={arch()}", "-std=c++17", "-O3", *flags, "-o", str(cubin), str(source)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise BenchError(f"nvcc failed on {source.name}:\n{r.stderr}")
    module = cupy().cuda.function.Module()
    module.load_file(str(cubin))
    return module


def time_launches(launch, repeats: int, before=None, warmup: int = 1) -> list[float]:
    """Seconds per call of launch(stream), from CUDA events; before(stream) runs first, untimed."""
    cp = cupy()
    cp.cuda.Device().synchronize()     # arrays copied on the default stream, which a non-blocking one does not wait for
    stream = cp.cuda.Stream(non_blocking=True)
    times = []
    for k in range(warmup + repeats):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        with stream:
            if before:
                before(stream)
            start.record(stream)
            launch(stream)
            end.record(stream)
        end.synchronize()
        if k >= warmup:
            times.append(cp.cuda.get_elapsed_time(start, end) / 1000)
    return times


def fresh_lock(module, name: str, state, count):
    """before(stream) for a lock of bench/baselines/locks.cu: its state and the count zeroed, and
    libcu++'s binary_semaphore constructed in its state."""
    def before(stream):
        state.fill(0)
        count.fill(0)
        if name == "binary_semaphore":
            module.get_function("init_binary_semaphore")((1,), (1,), (state,), stream=stream)
    return before


def program(ctx: Context, relative: str, opt: int = 2, defines: dict | None = None):
    """A bench program compiled for the GPU; with ctx.bounds "both", the same without its run-time
    bounds checks rides along (`prog.bounds_pair`), for `timed` to time beside it."""
    import syncc
    try:
        prog = syncc.compile(str(ctx.path(relative)), defines=defines, opt=opt, target="ptx",
                             bounds_checks=ctx.bounds != "off")
        if ctx.bounds == "both":
            bare = syncc.compile(str(ctx.path(relative)), defines=defines, opt=opt, target="ptx",
                                 bounds_checks=False)
            prog.bounds_pair = (ctx, f"{relative}{''.join(f' {k}={v}' for k, v in (defines or {}).items())} -O{opt}",
                                bare)
        return prog
    except syncc.CompileError as e:
        raise BenchError(f"{relative} does not compile:\n{e}") from None


def timed(prog, kernel: str, args: list, grid, block, repeats: int, warmup: int = 1) -> list[float]:
    """A syncc kernel's launch times in seconds (GpuLauncher.timed: fresh state each launch).
    When the program rides with its unchecked twin (ctx.bounds "both") and the kernel has a
    bounds check, the twin is timed too, before and after (on copies of the arguments, so the
    section's own arrays see exactly its own launches), and the pair goes to ctx.pairs."""
    launcher = prog.launcher("gpu", TIMEOUT)
    block = block or getattr(prog, kernel).block
    pair = getattr(prog, "bounds_pair", None)
    if pair is None or repeats < 2 or not _has_checks(prog, kernel):
        return launcher.timed(kernel, args, grid, block, repeats=repeats, warmup=warmup)
    ctx, name, bare = pair
    twin = bare.launcher("gpu", TIMEOUT)
    without = twin.timed(kernel, _copies(args), grid, block, repeats=repeats, warmup=warmup)
    times = launcher.timed(kernel, args, grid, block, repeats=repeats, warmup=warmup)
    without += twin.timed(kernel, _copies(args), grid, block, repeats=repeats, warmup=warmup)
    ctx.pairs.append((name, kernel, tuple(grid)[0], statistics.median(times), statistics.median(without)))
    return times


def _has_checks(prog, kernel: str) -> bool:
    k = prog._comp("gpu").ir.kernel(kernel)
    return any(ins.op == "bounds.check" for _, _, ins in k.instructions())


def _copies(args: list) -> list:
    return [a.copy() if hasattr(a, "copy") and hasattr(a, "shape") else a for a in args]


def bounds_cost(ctx: Context):
    """The table of `syncc bench gpu --bounds-cost`: each syncc kernel with run-time bounds checks,
    timed with and without them in the same run."""
    from .core import Table
    table = Table("bounds_cost", "Run-time bounds checks: each checked syncc kernel's median launch time with its "
                  "checks and without (--unsafe-no-bounds-checks), timed in the same run (without, with, without)",
                  ["program", "kernel", "blocks", "with checks µs", "without µs", "with / without"])
    for name, kernel, blocks, t_with, t_without in ctx.pairs:
        table.rows.append([name, kernel, blocks, t_with * 1e6, t_without * 1e6, t_with / t_without])
    if ctx.pairs:
        ratios = sorted(r[-1] for r in table.rows)
        table.notes.append(f"goal ≤ 1.03: median {statistics.median(ratios):.3f}, worst {ratios[-1]:.3f} over "
                           f"{len(ratios)} kernels and shapes")
    return table


def best(times: list[float]) -> float:
    """The figure a section reports for repeated launches: their median (device/METHOD.md)."""
    return statistics.median(times)


def warm_up(seconds: float = 1.0) -> None:
    """Keep the GPU busy for about `seconds`, so that its clocks are up before the first timing."""
    import time
    cp = cupy()
    x = cp.random.random(1 << 24)
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(20):
            x = cp.sqrt(x * x + 1.0)
        cp.cuda.Device().synchronize()


def graph_of(launches):
    """launches(stream) captured once as a CUDA graph; returns replay(stream). A baseline made of
    many small launches is timed as a graph replay, without the launch gaps of a Python loop."""
    cp = cupy()
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        launches(stream)
        graph = stream.end_capture()
    graph.upload(stream)
    return lambda s: graph.launch(s)
