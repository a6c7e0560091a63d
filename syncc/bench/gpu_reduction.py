"""The float reduction on a GPU: the sum of n f32 in one launch (bench/programs/reduction.sync, CUDA's
threadFenceReduction written in syncc: the sizes come with the launch), beside CUB's
`cub::DeviceReduce::Sum` and a device-to-device copy of the same bytes (bench/baselines/cub_reduce.cu,
an executable nvcc builds: CUB's device-wide algorithms are host calls), at 2^20, 2^24 and 2^28
elements. Every sum is checked against the host's (f64) within the f32 rounding of its length.
Issue 38 asks for the figure beside CUB; the goal is the scan's (gpu_scan, later).
"""
from __future__ import annotations

import math
import subprocess

import numpy as np

from .core import BenchError, Context, Table
from .gpu_common import baseline_executable, best, program, timed

SIZES = (1 << 20, 1 << 24, 1 << 28)
BLOCKS_PER_SM = 8
THREADS = 256


def cub_times(ctx: Context, n: int, repeats: int) -> dict[str, float]:
    """CUB's reduce and scan and the copy of n f32: milliseconds, from the baseline executable."""
    exe = baseline_executable(ctx, "cub_reduce")
    r = subprocess.run([exe, str(n), str(repeats), "1"], capture_output=True, text=True, timeout=600)
    words = r.stdout.split()
    if r.returncode != 0 or "OK" not in words:
        raise BenchError(f"cub_reduce {n}: {r.stdout}{r.stderr}")
    return {words[i]: float(words[i + 1]) for i in range(0, len(words) - 1, 2) if words[i].endswith("_ms")}


def run(ctx: Context):
    from ..runtime.gpu import device
    repeats = 3 if ctx.quick else 7
    sms = device().sms
    prog = program(ctx, "bench/programs/reduction.sync")
    table = Table("gpu_reduction", "Float sum of n f32 in one launch (threadFenceReduction in syncc, sizes at launch) "
                  "beside CUB's DeviceReduce::Sum and a device-to-device copy of the same bytes (median launch)",
                  ["n", "syncc ms", "G elements/s", "CUB ms", "× CUB", "copy ms", "copy ms / syncc ms"])
    rng = np.random.default_rng(1)
    for n in SIZES[:2] if ctx.quick else SIZES:
        x = rng.uniform(-1, 1, n).astype(np.float32)
        grid = min(math.ceil(n / THREADS), sms * BLOCKS_PER_SM)
        result = np.zeros(1, np.float32)
        args = [n, grid, x, np.zeros(grid, np.float32), np.zeros(1, np.int32), result]
        t = best(timed(prog, "reduce", args, (grid, 1, 1), None, repeats))
        want = float(x.astype(np.float64).sum())
        if abs(float(result[0]) - want) > 1e-3 * math.sqrt(n):
            raise BenchError(f"reduction of {n}: {result[0]} against the host's {want}")
        cub = cub_times(ctx, n, repeats)
        seconds, cub_s, copy_s = t, cub["reduce_ms"] / 1e3, cub["copy_ms"] / 1e3
        # a copy moves the bytes twice (read and write); the reduction reads them once
        table.rows.append([f"2^{n.bit_length() - 1}", seconds * 1e3, n / seconds / 1e9, cub_s * 1e3,
                           cub_s / seconds, copy_s * 1e3, copy_s / seconds])
        ctx.log(f"   reduction: 2^{n.bit_length() - 1}: syncc {seconds * 1e3:.4f} ms, CUB {cub_s * 1e3:.4f} ms, "
                f"copy {copy_s * 1e3:.4f} ms")
    table.notes.append("the copy reads and writes the n f32; the reductions read them once")
    return [table]
