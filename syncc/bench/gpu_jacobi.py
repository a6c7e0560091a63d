"""Persistent Jacobi-style rounds on a GPU (issue 18): time per round with syncc's split-phase
grid barrier (`arrive`, the inner cells, `wait`), with a whole `sync` after the round's work,
and with cooperative groups' grid.sync() and its split barrier_arrive()/barrier_wait()
(bench/programs/jacobi.sync, bench/baselines/jacobi.cu), in one run. `jacobi_none`, the same
work with no grid barrier (wrong results), is the floor: what the rounds cost without one.

Every variant's first launch is checked against the rounds computed with numpy (the barrier-free
floor excepted); the timed launches follow. µs per round = median launch time / ROUNDS.
"""
from __future__ import annotations

import numpy as np

from .core import BenchError, Context, Table
from .gpu_common import baseline, best, cupy, program, time_launches, timed

THREADS, ROUNDS, MAX_BLOCKS, P = 128, 200, 1056, 1009
SYNCC = {"syncc split (arrive … wait)": "jacobi_split", "syncc whole (sync)": "jacobi_whole",
         "no grid barrier (floor; wrong results)": "jacobi_none"}
CUDA = {"cooperative groups grid.sync()": "jacobi_grid_sync",
        "cooperative groups barrier_arrive/wait": "jacobi_grid_split"}


def reference(start: np.ndarray, length: int, cells: int) -> np.ndarray:
    """The ROUNDS rounds one after another: round r reads copy r % 2 and writes the other."""
    u = start.astype(np.int64)
    for r in range(ROUNDS):
        src, dst = (r % 2) * cells, (1 - r % 2) * cells
        x = u[src:src + length]
        u[dst:dst + length] = (np.roll(x, 1) + 2 * x + np.roll(x, -1)) % P
    return u.astype(np.int32)


def run(ctx: Context):
    cp = cupy()
    repeats = 3 if ctx.quick else 7
    pers = [16] if ctx.quick else [4, 16, 64]
    sizes = [132] if ctx.quick else [132, 528, 1056]
    us: dict[tuple[str, int, int], float] = {}
    for per in pers:
        tile = THREADS * per
        cells = MAX_BLOCKS * tile
        prog = program(ctx, "bench/programs/jacobi.sync", defines={"PER": per, "ROUNDS": ROUNDS})
        module = baseline(ctx, "jacobi", defines={"PER": per, "ROUNDS": ROUNDS})
        for blocks in sizes:
            length = blocks * tile
            rng = np.random.default_rng(per * 10_000 + blocks)
            start = rng.integers(0, P, 2 * cells, dtype=np.int32)
            want = reference(start, length, cells)
            for label, kernel in SYNCC.items():
                u = start.copy()
                timed(prog, kernel, [u], (blocks, 1, 1), None, 1, warmup=0)          # checked, untimed
                if kernel != "jacobi_none" and not np.array_equal(u[:length], want[:length]):
                    raise BenchError(f"{kernel} at {blocks} blocks, PER {per}: the rounds differ from numpy's")
                t = timed(prog, kernel, [start.copy()], (blocks, 1, 1), None, repeats)
                us[(label, per, blocks)] = best(t) / ROUNDS * 1e6
            u = cp.asarray(start)
            for label, kernel in CUDA.items():
                fn = module.get_function(kernel)

                def launch(stream, fn=fn):
                    fn((blocks,), (THREADS,), (u, np.int32(cells)), stream=stream, enable_cooperative_groups=True)
                u.set(start)
                time_launches(launch, 1, warmup=0)                                    # checked, untimed
                if not np.array_equal(u.get()[:length], want[:length]):
                    raise BenchError(f"{kernel} at {blocks} blocks, PER {per}: the rounds differ from numpy's")
                us[(label, per, blocks)] = best(time_launches(launch, repeats)) / ROUNDS * 1e6
            ctx.log(f"   jacobi: {per} cells per thread, {blocks} blocks done")
    labels = list(SYNCC) + list(CUDA)
    shapes = [(per, b) for per in pers for b in sizes]
    table = Table("gpu_jacobi", f"Persistent Jacobi rounds: µs per round ({THREADS} threads per block, "
                  f"{ROUNDS} rounds a launch; columns: cells per thread × blocks; ratio = grid.sync time / "
                  "this time, same run)",
                  ["variant"] + [f"{per}×{b} µs" for per, b in shapes] + [f"speed {per}×{b}" for per, b in shapes])
    base = "cooperative groups grid.sync()"
    for label in labels:
        table.rows.append([label] + [us[(label, per, b)] for per, b in shapes]
                          + [us[(base, per, b)] / us[(label, per, b)] for per, b in shapes])
    for per, b in shapes:
        s, w, f = (us[(label, per, b)] for label in list(SYNCC))
        table.notes.append(f"{per}×{b}: the split phase hides {100 * (w - s) / max(w - f, 1e-9):.0f}% of the grid "
                           f"barrier's cost over the floor (whole {w:.2f}, split {s:.2f}, floor {f:.2f} µs)")
    return [table]
