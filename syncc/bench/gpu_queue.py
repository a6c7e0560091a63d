"""Queues on a GPU: values per second through syncc's queues beside the hand-written rings of
bench/baselines/queues.cu, in one run (issue 19; docs/design/queues.md).

- between blocks: thread 0 of each block of 32 puts (the first half of the grid) or takes (the
  second half) through one global queue of capacity 64, 256 values each, at 2 to 1056 blocks,
  with syncc's default queue (a `ring`) and with `using locked`, and at 2 blocks (one producer,
  one consumer) `using spsc`;
  against a sequence-numbered ring (each slot a sequence word, a ticket per operation) and a ring
  built from libcu++ semaphores (free slots, stored values) and two binary semaphores as locks;
- inside a block: warp 0's lanes put, warp 1's take, through the block's shared queue (capacity
  64, each lane on its own), and through a @warp queue of 3 items of 32 values (the warp puts as
  one party), by default (the cost model makes it an `mbarrier` queue) and `using ring`; against an mbarrier ring of 3 stages of 32 values (one `full` and one `empty`
  mbarrier per stage).

Every launch is checked: each value taken exactly once. Goals (issue 19): ≥ 1.0× every
hand-written ring, ≥ 2× the semaphore-built one.
"""
from __future__ import annotations

import numpy as np

from .core import BenchError, Context, Table
from .gpu_common import baseline, best, cupy, program, time_launches, timed

CAP, PER, STEPS, STAGES = 64, 256, 256, 3
IMPLS = ("default", "locked")   # syncc's queues: the default (a `ring`, with its default parameters), `using locked`
# inside a block: (row, kernel of bench/programs/queue.sync)
IN_BLOCK = (("syncc queue (default)", "warp_to_warp_default"), ("syncc queue (locked)", "warp_to_warp_locked"),
            ("syncc @warp queue (default: mbarrier)", "warp_to_warp_party"),
            ("syncc @warp queue (ring)", "warp_to_warp_ring"))


def run(ctx: Context):
    cp = cupy()
    repeats = 2 if ctx.quick else 5
    sizes = [2, 132] if ctx.quick else [2, 132, 264, 528, 1056]
    module = baseline(ctx, "queues")
    prog = program(ctx, "bench/programs/queue.sync")
    rate: dict[str, dict[int, float]] = {}
    for blocks in sizes:
        producers = blocks // 2
        values = producers * PER
        for name in ("seq_ring", "sem_ring"):
            rate.setdefault(f"hand-written {name}", {})[blocks] = values / best(
                _ring(cp, module, name, blocks, producers, repeats))
        for impl in IMPLS:
            got = np.zeros(528 * PER, np.int32)
            t = timed(prog, f"between_blocks_{impl}", [got], (blocks, 1, 1), None, repeats)
            _exactly(got[:values], repeats + 1, f"syncc queue ({impl}) at {blocks} blocks")
            rate.setdefault(f"syncc queue ({impl})", {})[blocks] = values / best(t)
        spsc = rate.setdefault("syncc queue (spsc: 1:1 only)", {})
        spsc[blocks] = float("nan")
        if blocks == 2:                # one producer and one consumer: what `spsc` serves
            got = np.zeros(528 * PER, np.int32)
            t = timed(prog, "between_blocks_spsc", [got], (2, 1, 1), None, repeats)
            _exactly(got[:values], repeats + 1, "syncc queue (spsc) at 2 blocks")
            spsc[blocks] = values / best(t)
        ctx.log(f"   queue: {blocks} blocks done")
    table = Table("gpu_queue", f"Queue between blocks: M values/s (thread 0 of each block of 32; half put, "
                  f"half take, {PER} each; capacity {CAP}; ratio to the hand-written rings, same run)",
                  ["queue"] + [f"{b} blocks" for b in sizes] + [f"× seq @{b}" for b in sizes]
                  + [f"× sem @{b}" for b in sizes])
    seq, sem = rate["hand-written seq_ring"], rate["hand-written sem_ring"]
    for name, by in rate.items():
        table.rows.append([name] + [by[b] / 1e6 for b in sizes] + [by[b] / seq[b] for b in sizes]
                          + [by[b] / sem[b] for b in sizes])
    ours = rate["syncc queue (default)"]
    table.notes.append("goals, for the default (a ring): ≥ 1.0× the sequence ring: " + _met(min(ours[b] / seq[b] for b in sizes), 1.0)
                       + "; ≥ 2× the semaphore ring: " + _met(min(ours[b] / sem[b] for b in sizes), 2.0))
    return [table, _in_block(ctx, cp, module, prog, repeats)]


def _ring(cp, module, name: str, blocks: int, producers: int, repeats: int) -> list[float]:
    state = cp.zeros(32 + CAP + 32, cp.uint32)
    data = cp.zeros(CAP, cp.uint32)
    seen = cp.zeros(producers * PER, cp.uint32)
    err = cp.zeros(1, cp.int32)
    fn = module.get_function(name)

    def before(stream):
        state.fill(0)
        seen.fill(0)
        err.fill(0)
        if name == "sem_ring":
            module.get_function("init_sem_ring")((1,), (1,), (state, np.int32(CAP)), stream=stream)
    args = (state, data, np.int32(CAP), np.int32(producers), np.int32(PER), seen, err)
    times = time_launches(lambda s: fn((blocks,), (32,), args, shared_mem=4 * producers, stream=s), repeats, before)
    _exactly(seen.get(), 1, f"hand-written {name} at {blocks} blocks")
    if int(err.get()[0]):
        raise BenchError(f"hand-written {name} at {blocks} blocks took values out of order")
    return times


def _in_block(ctx: Context, cp, module, prog, repeats: int) -> Table:
    rate: dict[str, dict[int, float]] = {}
    for blocks in (1, 132):
        values = blocks * 32 * STEPS
        seen, err = cp.zeros(values, cp.uint32), cp.zeros(1, cp.int32)
        fn = module.get_function("mbar_ring")
        times = time_launches(lambda s: fn((blocks,), (64,), (np.int32(STAGES), np.int32(STEPS), seen, err), stream=s),
                              repeats, lambda s: (seen.fill(0), err.fill(0)))
        _exactly(seen.get(), 1, f"mbar_ring at {blocks} blocks")
        rate.setdefault(f"hand-written mbarrier ring ({STAGES} stages)", {})[blocks] = values / best(times)
        for row, kernel in IN_BLOCK:
            got = np.zeros(132 * 32 * STEPS, np.int32)
            t = timed(prog, kernel, [got], (blocks, 1, 1), None, repeats)
            _exactly(got[:values], repeats + 1, f"{kernel} at {blocks} blocks")
            rate.setdefault(row, {})[blocks] = values / best(t)
    table = Table("gpu_queue_block", f"Queue between two warps of a block: M values/s ({STEPS} values per lane; "
                  "ratio to the mbarrier ring, same run)", ["queue", "1 block", "132 blocks", "× mbar @1", "× mbar @132"])
    base = rate[f"hand-written mbarrier ring ({STAGES} stages)"]
    for name, by in rate.items():
        table.rows.append([name, by[1] / 1e6, by[132] / 1e6, by[1] / base[1], by[132] / base[132]])
    ctx.log("   queue: in a block done")
    return table


def _exactly(counts, times: int, what: str) -> None:
    counts = np.asarray(counts)
    if not (counts == times).all():
        bad = int(np.argmax(counts != times))
        raise BenchError(f"{what}: value {bad} was taken {int(counts[bad])} times, not {times}")


def _met(ratio: float, goal: float) -> str:
    return f"{ratio:.2f}× ({'met' if ratio >= goal else 'missed'})"
