"""The packed ring (packed.cu) beside the hand-written sequence ring and semaphore ring, in one
process, three interleaved rounds; every launch checked (each item once, in order per producer).

    nvcc -cubin -arch=sm_90 -O3 -std=c++17 -o /tmp/packed.cubin bench/experiments/queue_packed/packed.cu
    python3 bench/experiments/queue_packed/run.py /tmp/packed.cubin [--json F]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import cupy as cp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "queue_baselines"))
from run import BLOCKS, CAP, REPEATS, WARMUP, between_blocks, check, launch  # noqa: E402


def packed(mod, blocks, per_producer):
    producers = blocks // 2
    items = producers * per_producer
    state = cp.zeros(32, cp.uint32)
    slots = cp.zeros(CAP, cp.uint64)
    seen = cp.zeros(items, cp.uint32)
    err = cp.zeros(1, cp.int32)
    fn = mod.get_function("packed_ring")
    args = (state, slots, np.int32(CAP), np.int32(producers), np.int32(per_producer), seen, err)
    times = []
    for i in range(WARMUP + REPEATS):
        t = launch(fn, blocks, 32, args, 4 * producers, lambda: (state.fill(0), slots.fill(0), seen.fill(0), err.fill(0)))
        check(f"packed_ring at {blocks} blocks", seen, err, items)
        if i >= WARMUP:
            times.append(t)
    return items / statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cubin")
    ap.add_argument("--json")
    a = ap.parse_args()
    mod = cp.cuda.function.Module()
    mod.load_file(a.cubin)
    dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    out = {"device": dev, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "rounds": []}
    print(f"# {dev}, {out['date']}; M items/s (median of {REPEATS} launches), capacity {CAP}")
    for rnd in range(3):
        rates = {}
        for blocks in BLOCKS:
            per = 256 if blocks > 2 else 4096
            row = {"seq_ring": between_blocks(mod, "seq_ring", blocks, per),
                   "sem_ring": between_blocks(mod, "sem_ring", blocks, per),
                   "packed_ring": packed(mod, blocks, per)}
            rates[blocks] = row
            print(f"round {rnd} {blocks:5d} blocks: " + "  ".join(f"{k} {v / 1e6:8.3f}" for k, v in row.items())
                  + f"   packed/seq {row['packed_ring'] / row['seq_ring']:.2f}  packed/sem "
                  f"{row['packed_ring'] / row['sem_ring']:.2f}", flush=True)
        out["rounds"].append(rates)
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
