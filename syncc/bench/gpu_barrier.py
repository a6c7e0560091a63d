"""Grid barriers on a GPU: 1000 barriers in a row at 132 to 2112 blocks of 128 threads; µs per
barrier. syncc's grid barriers (bench/programs/grid_barrier.sync) beside cooperative groups'
grid.sync() (bench/baselines/grid_sync.cu), launched cooperatively in one run (docs/references.md:
grid.sync ≈ 1.1 µs at 132 blocks, 2.3 µs at 1056). A first, untimed launch of each checks every
round (a block that got through early would see its neighbour's slot behind); the timed launches
run the barriers alone. Goal (issue 7): ≤ 0.8 µs at 132 blocks,
≤ 1.5 µs at 1056.
"""
from __future__ import annotations

import numpy as np

from .core import BenchError, Context, Plot, Table
from .gpu_common import baseline, best, cupy, program, time_launches, timed

BLOCK, ROUNDS, MAX_BLOCKS = 128, 1000, 4096
SYNCC = ["default", "flip", "atomic", "xf", "hierarchical"]
GOALS = {132: 0.8, 1056: 1.5}


def run(ctx: Context):
    cp = cupy()
    repeats = 2 if ctx.quick else 5
    sizes = [132, 1056] if ctx.quick else [132, 264, 528, 1056, 2112]
    module = baseline(ctx, "grid_sync")
    prog = program(ctx, "bench/programs/grid_barrier.sync", defines={"ROUNDS": ROUNDS})
    slots, errors = cp.zeros(MAX_BLOCKS, cp.int32), cp.zeros(1, cp.int32)
    us: dict[str, dict[int, float]] = {}
    fn = module.get_function("grid_sync")
    for blocks in sizes:
        def before(stream):
            slots.fill(0)

        def launch(stream, check):
            fn((blocks,), (BLOCK,), (slots, errors, np.int32(ROUNDS), np.int32(check)), stream=stream,
               enable_cooperative_groups=True)
        time_launches(lambda s: launch(s, 1), 1, before, warmup=0)          # checked, untimed
        t = time_launches(lambda s: launch(s, 0), repeats)
        if int(errors.get()[0]):
            raise BenchError(f"grid.sync at {blocks} blocks: {int(errors.get()[0])} early exits")
        us.setdefault("cooperative groups grid.sync", {})[blocks] = best(t) / ROUNDS * 1e6
        for name in SYNCC:
            s, e = np.zeros(MAX_BLOCKS, np.int32), np.zeros(1, np.int32)
            timed(prog, f"grid_{name}", [s, e, 1], (blocks, 1, 1), None, 1, warmup=0)   # checked, untimed
            t = timed(prog, f"grid_{name}", [s, e, 0], (blocks, 1, 1), None, repeats)
            if int(e[0]):
                raise BenchError(f"syncc grid barrier {name} at {blocks} blocks: {int(e[0])} early exits")
            us.setdefault(f"syncc {name}", {})[blocks] = best(t) / ROUNDS * 1e6
        ctx.log(f"   barrier: {blocks} blocks done")
    base = us["cooperative groups grid.sync"]
    table = Table("gpu_barrier", f"Grid barrier: µs per barrier ({BLOCK} threads per block; ratio = "
                  "grid.sync time / this time, same run)",
                  ["barrier"] + [f"{b} blocks µs" for b in sizes] + [f"speed @{b}" for b in sizes])
    for name, by in us.items():
        table.rows.append([name] + [by[b] for b in sizes] + [base[b] / by[b] for b in sizes])
    for b, goal in GOALS.items():
        if b in sizes:
            name = min((n for n in us if n.startswith("syncc")), key=lambda n: us[n][b])
            table.notes.append(f"goal ≤ {goal} µs at {b} blocks: {name} {us[name][b]:.2f} µs "
                               f"({'met' if us[name][b] <= goal else 'missed'})")
    plot = Plot("gpu_barrier", "Grid barrier latency vs blocks", "blocks", "µs per barrier",
                {n: [(b, by[b]) for b in sizes] for n, by in us.items()}, logx=True)
    return [table, plot]
