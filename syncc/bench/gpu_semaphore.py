"""A counting semaphore per block on a GPU (seed 001 §6): thread 0 of each block takes a permit
64 times, with 1, 2, 10 and 120 permits, at 132 and 1056 blocks of 128 threads; acquisitions
per second. syncc's @block semaphores (bench/programs/semaphore.sync) beside libcu++'s
counting_semaphore (bench/baselines/locks.cu) in one run. Each run checks that no more holders
than permits were ever inside and that every acquisition happened.
"""
from __future__ import annotations

import numpy as np

from .core import BenchError, Context, Plot, Table
from .gpu_common import baseline, best, cupy, program, time_launches, timed

BLOCK, ITERS = 128, 64
PERMITS = [1, 2, 10, 120]
SYNCC = ["sleeping", "spin", "backoff"]


def run(ctx: Context):
    cp = cupy()
    repeats = 2 if ctx.quick else 5
    sizes = [132] if ctx.quick else [132, 1056]
    module = baseline(ctx, "locks")
    state, now = cp.zeros(64, cp.int32), cp.zeros(3, cp.int32)
    fn, init = module.get_function("block_counting_semaphore"), module.get_function("init_counting_semaphore")
    rate: dict[tuple[str, int], dict[int, float]] = {}
    for permits in PERMITS:
        prog = program(ctx, "bench/programs/semaphore.sync", defines={"PERMITS": permits})
        for blocks in sizes:
            entries = blocks * ITERS

            def before(stream, permits=permits):
                state.fill(0)
                now.fill(0)
                init((1,), (1,), (state, np.int32(permits)), stream=stream)
            t = time_launches(lambda s: fn((blocks,), (BLOCK,), (state, now, np.int32(ITERS)), stream=s),
                              repeats, before)
            got = now.get()
            if got[2] != entries or got[1] > permits:
                raise BenchError(f"counting_semaphore({permits}) at {blocks} blocks: {got[2]} entries, "
                                 f"{got[1]} holders at once")
            rate.setdefault(("libcu++ counting_semaphore", permits), {})[blocks] = entries / best(t)
            for name in SYNCC:
                out = np.zeros(3, np.int32)
                t = timed(prog, f"sem_{name}", [out], (blocks, 1, 1), None, repeats)
                if out[2] != entries * (repeats + 1) or out[1] > permits:
                    raise BenchError(f"syncc {name}({permits}) at {blocks} blocks: {out[2]} entries, "
                                     f"{out[1]} holders at once")
                rate.setdefault((f"syncc {name}", permits), {})[blocks] = entries / best(t)
        ctx.log(f"   semaphore: {permits} permits done")
    table = Table("gpu_semaphore", f"Block semaphore: M acquisitions/s ({BLOCK} threads per block, {ITERS} "
                  "each; ratio to libcu++ counting_semaphore with the same permits, same run)",
                  ["semaphore", "permits"] + [f"{b} blocks" for b in sizes] + [f"× libcu++ @{b}" for b in sizes])
    for (name, permits), by in rate.items():
        base = rate[("libcu++ counting_semaphore", permits)]
        table.rows.append([name, permits] + [by[b] / 1e6 for b in sizes] + [by[b] / base[b] for b in sizes])
    b = sizes[-1]
    plot = Plot("gpu_semaphore", f"Block semaphore at {b} blocks vs permits", "permits", "M acquisitions/s",
                {n: [(p, rate[(n, p)][b] / 1e6) for p in PERMITS] for n in dict.fromkeys(k[0] for k in rate)},
                logx=True)
    return [table, plot]
