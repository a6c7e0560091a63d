"""A mutex per block on a GPU: thread 0 of each block takes the lock for its block 64 times
(seed 001 §6), from 132 to 1056 contending blocks of 128 threads; handoffs per second.

syncc's @block mutexes (bench/programs/block_mutex.sync) beside the hand-written TAS, TTAS,
ticket and libcu++ binary_semaphore of bench/baselines/locks.cu, in one run (docs/references.md:
libcu++ ≈ 0.65–1.3 M handoffs/s, ceiling ≈ 1.7 M). Goal (issue 7): ≥ 1.5 M handoffs/s at every
block count, without collapse.
"""
from __future__ import annotations

import numpy as np

from .core import BenchError, Context, Plot, Table
from .gpu_common import baseline, best, cupy, fresh_lock, program, time_launches, timed

BLOCK, ITERS = 128, 64
BASELINES = ["binary_semaphore", "ticket", "ttas", "tas"]
SYNCC = ["default", "ticket", "ttas", "tas", "backoff"]


def run(ctx: Context):
    cp = cupy()
    repeats = 2 if ctx.quick else 5
    sizes = [132, 1056] if ctx.quick else [132, 264, 528, 1056]
    module = baseline(ctx, "locks")
    prog = program(ctx, "bench/programs/block_mutex.sync")
    state, count = cp.zeros(64, cp.int32), cp.zeros(1, cp.int32)
    rate: dict[str, dict[int, float]] = {}
    for blocks in sizes:
        handoffs = blocks * ITERS
        for name in BASELINES:
            fn = module.get_function(f"block_{name}")
            t = time_launches(lambda s, fn=fn: fn((blocks,), (BLOCK,), (state, count, np.int32(ITERS)), stream=s),
                              repeats, fresh_lock(module, name, state, count))
            if int(count.get()[0]) != handoffs:
                raise BenchError(f"baseline block_{name} counted {int(count.get()[0])}, not {handoffs}")
            rate.setdefault(f"hand-written {name}", {})[blocks] = handoffs / best(t)
        for name in SYNCC:
            out = np.zeros(1, np.int32)
            t = timed(prog, f"block_{name}", [out], (blocks, 1, 1), None, repeats)
            if int(out[0]) != handoffs * (repeats + 1):
                raise BenchError(f"syncc block_{name} counted {int(out[0])}, not {handoffs * (repeats + 1)}")
            rate.setdefault(f"syncc {name}", {})[blocks] = handoffs / best(t)
        ctx.log(f"   mutex: {blocks} blocks done")
    table = Table("gpu_mutex", f"Block mutex: M handoffs/s ({BLOCK} threads per block, {ITERS} each; "
                  "ratio to libcu++ binary_semaphore, same run)",
                  ["mutex"] + [f"{b} blocks" for b in sizes] + [f"× sem @{b}" for b in sizes])
    base = rate["hand-written binary_semaphore"]
    for name, by in rate.items():
        table.rows.append([name] + [by[b] / 1e6 for b in sizes] + [by[b] / base[b] for b in sizes])
    ours = {n: min(by.values()) for n, by in rate.items() if n.startswith("syncc")}
    top = max(ours, key=ours.get)
    table.notes.append(f"goal ≥ 1.5 M handoffs/s at every block count: {top} holds at least "
                       f"{ours[top] / 1e6:.2f} M ({'met' if ours[top] >= 1.5e6 else 'missed'})")
    plot = Plot("gpu_mutex", "Block mutex handoffs per second vs contending blocks", "blocks",
                "M handoffs/s", {n: [(b, by[b] / 1e6) for b in sizes] for n, by in rate.items()}, logx=True)
    return [table, plot]
