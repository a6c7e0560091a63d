"""Times the hand-written queues of bench/baselines/queues.cu on a GPU and checks every launch:
each item taken exactly once, each producer's items in order at every consumer.

    nvcc -cubin -arch=sm_90 -O3 -std=c++17 -o /tmp/queues.cubin bench/baselines/queues.cu
    python3 bench/experiments/queue_baselines/run.py /tmp/queues.cubin [--json F]

Items/s = items / median launch time (7 launches after 2), CUDA events; state zeroed before each
launch, outside the events. These are the baselines issue 19's `gpu_queue` section will put syncc's
queues beside (docs/design/queues.md).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import cupy as cp
import numpy as np

BLOCKS = (2, 132, 264, 528, 1056)       # half producers, half consumers
CAP = 64
STAGES = (2, 3, 4)
REPEATS, WARMUP = 7, 2


def launch(fn, grid, block, args, shared, before=None):
    if before:
        before()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    fn((grid,), (block,), args, shared_mem=shared)
    end.record()
    deadline = time.monotonic() + 20
    while not end.done:
        if time.monotonic() > deadline:
            print(f"HANG: a launch of {grid} blocks still running after 20 s", flush=True)
            os._exit(3)             # (exiting normally would wait for the kernel)
        time.sleep(0.0005)
    return cp.cuda.get_elapsed_time(start, end) / 1000


def check(name, seen, err, items):
    s = seen.get()
    bad = int(err.get()[0])
    if s.sum() != items or s.max() != 1 or bad:
        print(f"WRONG: {name}: {int(s.sum())} of {items} taken, most taken {int(s.max())} times, "
                 f"{bad} out of order", flush=True)
        os._exit(2)


def between_blocks(mod, kernel, blocks, per_producer):
    producers = blocks // 2
    items = producers * per_producer
    state = cp.zeros(32 + CAP + 32, cp.uint32)        # tickets, then seq[CAP] from word 32 (sem_ring: < 48)
    data = cp.zeros(CAP, cp.uint32)
    seen = cp.zeros(items, cp.uint32)
    err = cp.zeros(1, cp.int32)
    fn = mod.get_function(kernel)

    def reset():
        state.fill(0); seen.fill(0); err.fill(0)
        if kernel == "sem_ring":
            mod.get_function("init_sem_ring")((1,), (1,), (state, np.int32(CAP)))
    args = (state, data, np.int32(CAP), np.int32(producers), np.int32(per_producer), seen, err)
    times = []
    for i in range(WARMUP + REPEATS):
        t = launch(fn, blocks, 32, args, 4 * producers, reset)
        check(f"{kernel} at {blocks} blocks", seen, err, items)
        if i >= WARMUP:
            times.append(t)
    return items / statistics.median(times)


def in_block(mod, blocks, stages, steps):
    seen = cp.zeros(blocks * 32 * steps, cp.uint32)
    err = cp.zeros(1, cp.int32)
    fn = mod.get_function("mbar_ring")
    times = []
    for i in range(WARMUP + REPEATS):
        t = launch(fn, blocks, 64, (np.int32(stages), np.int32(steps), seen, err), 0,
                   lambda: (seen.fill(0), err.fill(0)))
        check(f"mbar_ring {stages} stages at {blocks} blocks", seen, err, blocks * 32 * steps)
        if i >= WARMUP:
            times.append(t)
    return blocks * 32 * steps / statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cubin")
    ap.add_argument("--json")
    a = ap.parse_args()
    mod = cp.cuda.function.Module()
    mod.load_file(a.cubin)
    dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    out = {"device": dev, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cap": CAP, "rows": []}
    print(f"# {dev}, {out['date']}; M items/s (median of {REPEATS} launches)")
    for kernel in ("seq_ring", "sem_ring"):
        rates = {}
        for blocks in BLOCKS:
            rates[blocks] = between_blocks(mod, kernel, blocks, 256 if blocks > 2 else 4096)
            print(f"   {kernel} {blocks} blocks: {rates[blocks] / 1e6:.3f} M items/s", flush=True)
        out["rows"].append({"kernel": kernel, "rates": rates})
        print(f"{kernel:10s} capacity {CAP}: " + "  ".join(f"{b} blocks {r / 1e6:7.2f}" for b, r in rates.items()),
              flush=True)
    for stages in STAGES:
        rates = {b: in_block(mod, b, stages, 4096) for b in (1, 132)}
        out["rows"].append({"kernel": "mbar_ring", "stages": stages, "rates": rates})
        print(f"mbar_ring  {stages} stages, warp to warp: " +
              "  ".join(f"{b} blocks {r / 1e6:9.1f}" for b, r in rates.items()), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
