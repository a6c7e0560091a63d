"""Needleman–Wunsch on a GPU, full score matrix, penalty 10, at N = 2048 and 16384.

syncc's strip pipeline (bench/programs/nw.sync: a block per strip of 128 rows, one computing
warp with four rows a lane and sixteen memory warps, one launch, blocks handing their last row
down through a global @thread channel, a value and its flag in one word a slot) beside a
Rodinia-style baseline (bench/baselines/nw_rodinia.cu: 16 × 16 tiles, one launch per diagonal
of tiles, captured as a CUDA graph so that the baseline pays no launch gaps from Python; the
table also gives it launched a kernel at a time, as Rodinia runs it), in one run
(docs/references.md: Rodinia-style 1.35 ms at 2048, 13.8 ms at 16384). The two matrices must
be equal, and at 2048 both equal a numpy reference computed by anti-diagonals. Goal (issue 7):
≥ 5× the baseline at both sizes.
"""
from __future__ import annotations

import numpy as np

from .core import BenchError, Context, Plot, Table
from .gpu_common import baseline, best, cupy, graph_of, program, time_launches, timed

PENALTY = 10
STRIP_ROWS = 128            # nw.sync's R: the rows of one strip, one block each


def reference(refm: np.ndarray, penalty: int) -> np.ndarray:
    """The recurrence by anti-diagonals: every cell of diagonal d depends only on d-1 and d-2."""
    n = refm.shape[0]
    score = np.zeros((n + 1, n + 1), np.int64)
    score[0, :] = -penalty * np.arange(n + 1)
    score[:, 0] = -penalty * np.arange(n + 1)
    for d in range(2, 2 * n + 1):              # i + j == d, 1 <= i, j <= n
        i = np.arange(max(1, d - n), min(n, d - 1) + 1)
        j = d - i
        score[i, j] = np.maximum(score[i - 1, j - 1] + refm[i - 1, j - 1],
                                 np.maximum(score[i - 1, j], score[i, j - 1]) - penalty)
    return score.astype(np.int32)


def bordered(cp, n: int):
    """The (n+1) × (n+1) score matrix with its first row and column filled (cp: cupy or numpy)."""
    score = cp.zeros((n + 1, n + 1), cp.int32)
    score[0, :] = -PENALTY * cp.arange(n + 1, dtype=cp.int32)
    score[:, 0] = -PENALTY * cp.arange(n + 1, dtype=cp.int32)
    return score


def run(ctx: Context):
    cp = cupy()
    repeats = 2 if ctx.quick else 7
    sizes = [2048] if ctx.quick else [2048, 16384]
    module = baseline(ctx, "nw_rodinia")
    fn = module.get_function("nw_tile_diagonal")
    table = Table("gpu_nw", "Needleman–Wunsch, full matrix: syncc strip pipeline vs Rodinia-style tiles "
                  "(ratio = baseline time / syncc time, same run)",
                  ["N", "Rodinia-style ms", "GCUPS", "syncc ms", "GCUPS ", "speed-up", "goal 5×",
                   "Rodinia-style, launches ms", "speed-up vs launches"])
    points = {"Rodinia-style": [], "syncc": []}
    for n in sizes:
        refm = cp.asarray(np.random.default_rng(n).integers(-10, 11, size=(n, n), dtype=np.int32))
        ours, theirs = bordered(cp, n), bordered(cp, n)
        tiles = n // 16

        def rodinia(stream, refm=refm, theirs=theirs, n=n, tiles=tiles):
            for d in range(2 * tiles - 1):
                fn((min(d, 2 * tiles - 2 - d) + 1,), (16,), (refm, theirs, np.int32(n), np.int32(PENALTY),
                                                              np.int32(d)), stream=stream)
        t_launches = best(time_launches(rodinia, repeats))       # as Rodinia runs it: a launch at a time
        t_base = best(time_launches(graph_of(rodinia), repeats))  # the stronger baseline: one graph
        prog = program(ctx, "bench/programs/nw.sync", defines={"N": n})
        t_ours = best(timed(prog, "nw_strips", [refm, ours, PENALTY], (n // STRIP_ROWS, 1, 1), None, repeats))
        if not bool((ours == theirs).all()):
            bad = int((ours != theirs).sum())
            raise BenchError(f"N={n}: syncc's matrix differs from the baseline's in {bad} cells")
        if n <= 2048 and not np.array_equal(theirs.get(), reference(refm.get(), PENALTY)):
            raise BenchError(f"N={n}: the matrices differ from the numpy reference")
        cells = n * n
        table.rows.append([n, t_base * 1e3, cells / t_base / 1e9, t_ours * 1e3, cells / t_ours / 1e9,
                           t_base / t_ours, "met" if t_base / t_ours >= 5 else "missed", t_launches * 1e3,
                           t_launches / t_ours])
        points["Rodinia-style"].append((n, t_base * 1e3))
        points["syncc"].append((n, t_ours * 1e3))
        ctx.log(f"   nw: N={n} done")
        refm = ours = theirs = rodinia = None          # 3 GiB at N = 16384: free before the next size
        cp.get_default_memory_pool().free_all_blocks()
    plot = Plot("gpu_nw", "Needleman–Wunsch time vs N", "N", "ms", points, logx=True, logy=True)
    return [table, plot]
