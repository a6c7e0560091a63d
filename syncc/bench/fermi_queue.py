"""Queues on the Fermi simulator (issue 19): cycles per value through each of syncc's queue
implementations, one producer to one consumer (1:1), 32 pairs each with a queue of its own, and
many to many (N:M), in a block's shared memory and between blocks in global memory. `spsc` and
`tinylock` serve one producer and one consumer per queue, so they are measured at 1:1 and on the
pairs (— elsewhere); `tinylock` is shared memory's (Fermi lock bits).

The program is QUEUE below, written once per implementation (`using` names a word, so it is
formatted, not defined); it is compiled for fermi-sim and every launch is checked: each value
taken exactly once. Cycles are the simulator's (deterministic), per value moved.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from ..ir.impls.registry import CATALOGUE
from .core import BenchError, Context, Table

IMPLS = ("ring", "locked", "spsc", "tinylock")
QUEUES = CATALOGUE["queue"]             # what each supports: placements; counted: one producer and one consumer
CAP = 16

# shape → (placement, grid, block, who puts, who takes, values per producer, queues: 1 or one per pair)
SHAPES = {
    "shared 1:1": ("shared", 1, 64, "tid == 0", "tid == 32", 512, 1),
    "shared 32 pairs": ("shared", 1, 64, "warp == 0", "warp == 1", 32, 32),
    "shared 32:32": ("shared", 1, 64, "warp == 0", "warp == 1", 32, 1),
    "global 1:1": ("global", 2, 32, "bid == 0 && tid == 0", "bid == 1 && tid == 0", 512, 1),
    "global 32 pairs": ("global", 2, 32, "bid == 0", "bid == 1", 32, 32),
    "global 64:64": ("global", 4, 32, "bid < 2", "bid >= 2", 16, 1),
}

QUEUE = """
kernel {name}(got: global i32[{values}]) launch grid({grid}) block({block}) {{
    queue q{dims}({cap}): i32 in {place} @thread using {impl}
    let me = {me}
    for k in 0 .. {per} {{
        if {puts} {{
            put q{index} = me * {per} + k
        }} else if {takes} {{
            let v = get q{index}
            atomic_add(got[v], 1)
        }}
    }}
}}
"""


def measured(shape: str, impl: str) -> bool:
    place, *_, queues = SHAPES[shape]
    if place not in QUEUES[impl].placements:
        return False
    return not QUEUES[impl].counted or queues > 1 or shape.endswith("1:1")


def _program() -> str:
    out = []
    for impl in IMPLS:
        for shape, (place, grid, block, puts, takes, per, queues) in SHAPES.items():
            if not measured(shape, impl):
                continue
            me = "tid % 32" if place == "shared" else "(bid % 2) * 32 + tid"
            out.append(QUEUE.format(name=_kernel(shape, impl), values=_producers(shape) * per, grid=grid,
                                    block=block, cap=CAP, place=place, impl=impl, me=me, per=per,
                                    puts=puts, takes=takes, dims=f"[{queues}]" if queues > 1 else "",
                                    index="[lane]" if queues > 1 else ""))
    return "".join(out)


def _kernel(shape: str, impl: str) -> str:
    return f"{shape.replace(' ', '_').replace(':', 'to')}_{impl}"


def _producers(shape: str) -> int:
    word = shape.split()[1]
    return int(word) if shape.endswith("pairs") else int(word.split(":")[0])


def run(ctx: Context):
    import syncc
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "queue_fermi.sync"
        path.write_text(_program())
        prog = syncc.compile(str(path), target="fermi-sim", bounds_checks=ctx.bounds != "off")
    table = Table("fermi_queue", f"Queues on fermi-sim: cycles per value (capacity {CAP}; every value "
                  "checked taken once; — where an implementation does not serve the shape)",
                  ["shape", "values"] + [f"{i} cycles/value" for i in IMPLS] + ["locked / ring", "ring / tinylock"])
    for shape, (*_, per, _) in SHAPES.items():
        values = _producers(shape) * per
        cycles = {}
        for impl in IMPLS:
            if not measured(shape, impl):
                cycles[impl] = float("nan")
                continue
            got = np.zeros(values, np.int32)
            outcome = getattr(prog, _kernel(shape, impl))(got)
            if not (got == 1).all():
                bad = int(np.argmax(got != 1))
                raise BenchError(f"{shape} ({impl}): value {bad} taken {int(got[bad])} times")
            cycles[impl] = outcome.cycles / values
        table.rows.append([shape, values] + [cycles[i] for i in IMPLS]
                          + [cycles["locked"] / cycles["ring"], cycles["ring"] / cycles["tinylock"]])
        ctx.log(f"   fermi_queue: {shape} done")
    return [table]
