"""The scan on a GPU: the exclusive running sum of n i32 or f32 in one launch (bench/programs/scan.sync,
the single-pass scan with decoupled look-back written with syncc's `scan`, sizes at launch), beside
CUB's `cub::DeviceScan::ExclusiveSum` and a device-to-device copy of the same bytes
(bench/baselines/cub_scan.cu, an executable nvcc builds), at 2^20, 2^24 and 2^28 elements. Every
batch's output is checked against the host's scan. Both are timed as LAUNCHES calls queued back to
back between two CUDA events, so that the host's work on a call hides behind the GPU's on the one
before (at 2^20 it does not quite: the figure then includes some of it); syncc's includes refilling
the scan's state before each launch (its tile counter and one status word a tile), as CUB's
includes the kernel that initializes its tile states. Issue 38's goal: ≥ 0.9× CUB at 2^24 and 2^28.
"""
from __future__ import annotations

import math
import subprocess

import numpy as np

from .core import BenchError, Context, Table
from .gpu_common import baseline_executable, best, program

SIZES = (1 << 20, 1 << 24, 1 << 28)
TILE = 128 * 31          # bench/programs/scan.sync's THREADS * ITEMS
LAUNCHES = 20            # launches timed back to back, here and in the baseline
TYPES = {"i32": np.int32, "f32": np.float32}


def cub_times(ctx: Context, type_name: str, n: int, repeats: int) -> dict[str, float]:
    """CUB's exclusive scan and the copy of n values: milliseconds, from the baseline executable."""
    exe = baseline_executable(ctx, "cub_scan")
    r = subprocess.run([exe, type_name, str(n), str(repeats), str(LAUNCHES), "1"], capture_output=True, text=True,
                       timeout=600)
    words = r.stdout.split()
    if r.returncode != 0 or "OK" not in words:
        raise BenchError(f"cub_scan {type_name} {n}: {r.stdout}{r.stderr}")
    return {words[i]: float(words[i + 1]) for i in range(0, len(words) - 1, 2) if words[i].endswith("_ms")}


def inputs(type_name: str, n: int, rng) -> np.ndarray:
    if type_name == "i32":          # small values: the running sum stays far from overflow
        return rng.integers(-50, 50, n, dtype=np.int32)
    return rng.uniform(-1, 1, n).astype(np.float32)


def check(type_name: str, x: np.ndarray, y: np.ndarray) -> None:
    """y must be x's exclusive running sum: exactly for i32; for f32 within the rounding of sums of
    up to n terms of magnitude at most 1, summed in some order."""
    want = np.concatenate(([0], np.cumsum(x, dtype=np.int64 if type_name == "i32" else np.float64)[:-1]))
    if type_name == "i32":
        bad = np.flatnonzero(y.astype(np.int64) != want)
    else:
        bad = np.flatnonzero(np.abs(y.astype(np.float64) - want) > 1e-5 * (np.arange(len(x)) + 1))
    if len(bad):
        i = int(bad[0])
        raise BenchError(f"scan of {len(x)} {type_name}: element {i} is {y[i]}, the host's {want[i]} "
                         f"({len(bad)} differ)")


def run(ctx: Context):
    repeats = 3 if ctx.quick else 7
    prog = program(ctx, "bench/programs/scan.sync")
    table = Table("gpu_scan", "Exclusive scan of n values in one launch (decoupled look-back with syncc's `scan`, "
                  "sizes at launch) beside CUB's DeviceScan::ExclusiveSum and a device-to-device copy of the same "
                  "bytes (median of batches of launches back to back, state refill included)",
                  ["type", "n", "syncc ms", "M elements/s", "CUB ms", "× CUB", "copy ms", "copy ms / syncc ms"])
    rng = np.random.default_rng(1)
    launcher = prog.launcher("gpu", 120)
    for type_name in TYPES:
        for n in SIZES[:2] if ctx.quick else SIZES:
            x = inputs(type_name, n, rng)
            y = np.zeros(n, TYPES[type_name])
            grid = math.ceil(n / TILE)
            kernel = f"scan_{type_name}"
            t = best([launcher.timed_batch(kernel, [n, x, y], (grid, 1, 1), getattr(prog, kernel).block,
                                           launches=LAUNCHES) for _ in range(repeats)])
            check(type_name, x, y)
            cub = cub_times(ctx, type_name, n, repeats)
            cub_s, copy_s = cub["scan_ms"] / 1e3, cub["copy_ms"] / 1e3
            table.rows.append([type_name, f"2^{n.bit_length() - 1}", t * 1e3, n / t / 1e6, cub_s * 1e3, cub_s / t,
                               copy_s * 1e3, copy_s / t])
            ctx.log(f"   scan {type_name} 2^{n.bit_length() - 1}: syncc {t * 1e3:.4f} ms, CUB {cub_s * 1e3:.4f} ms, "
                    f"copy {copy_s * 1e3:.4f} ms")
    table.notes.append("the copy and both scans read and write the n values once each")
    return [table]
