"""Times the block-mutex hand-over variants of handover.cu beside locks.cu's hand-written locks
and syncc's own PTX (block_mutex.ptx), in one process, with CUDA events: thread 0 of each of B
blocks (128 threads) takes the lock 64 times; M hand-overs/s = B * 64 / median launch time.

    python3 handover.py BUILD_DIR [--rounds 2] [--sizes 132,264,528,1056] [--only a,b] [--json F]

BUILD_DIR holds handover.cubin and locks.cubin (run.sh builds them); block_mutex.ptx is read from
this folder, and block_mutex.prev.ptx (syncc's PTX before a change, timed beside it) where it exists. Every launch starts from zeroed state and is checked (count, and no watchdog fired).
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

import cupy as cp
import numpy as np

HERE = Path(__file__).resolve().parent
BLOCK, ITERS = 128, 64
SAME, SEP = 1, 32            # `serving` at word 1 of `next`'s line, or 128 bytes on
SAME64 = 2                   # a 64-bit {serving, count} word in `next`'s line (8-byte aligned)

# label, module, kernel, where `serving` lies, argument convention
VARIANTS = [
    ("locks.cu ticket (a)", "locks", "block_ticket", SAME, "locks"),
    ("locks.cu binary_semaphore (b)", "locks", "block_binary_semaphore", SAME, "locks"),
    ("syncc default (PTX)", "syncc", "block_default", SEP, "syncc"),
    ("syncc default (PTX), same line", "syncc", "block_default", SAME, "syncc"),
    ("syncc ticket (PTX)", "syncc", "block_ticket", SEP, "syncc"),
    ("syncc ticket (PTX), same line", "syncc", "block_ticket", SAME, "syncc"),
    ("syncc backoff (PTX)", "syncc", "block_backoff", SEP, "syncc1"),
    ("syncc default (previous PTX)", "syncc_prev", "block_default", SEP, "syncc"),
    ("syncc ticket (previous PTX)", "syncc_prev", "block_ticket", SEP, "syncc"),
    ("syncc backoff (previous PTX)", "syncc_prev", "block_backoff", SEP, "syncc1"),
    ("syncc tas (PTX)", "syncc", "block_tas", SEP, "syncc1"),
    ("syncc tas (previous PTX)", "syncc_prev", "block_tas", SEP, "syncc1"),
    ("syncc default (ptxas cubin)", "syncc_cubin", "block_default", SEP, "syncc"),
    ("syncc ticket (ptxas cubin)", "syncc_cubin", "block_ticket", SEP, "syncc"),
    ("syncc default (PTX), barrier.sync.aligned", "syncc_aligned", "block_default", SEP, "syncc"),
    ("syncc ticket (PTX), barrier.sync.aligned", "syncc_aligned", "block_ticket", SEP, "syncc"),
    ("ticket_hw (a, + watchdog)", "hw", "ticket_hw", SAME, "hw"),
    ("ticket_hw, serving own line (f)", "hw", "ticket_hw", SEP, "hw"),
    ("semaphore (b, mine)", "hw", "semaphore", SAME, "hw"),
    ("ticket_red_rel (c)", "hw", "ticket_red_rel", SAME, "hw"),
    ("ticket_st_rel (c)", "hw", "ticket_st_rel", SAME, "hw"),
    ("ticket_ld_acq (d)", "hw", "ticket_ld_acq", SAME, "hw"),
    ("ticket_acqrel_fence (d)", "hw", "ticket_acqrel_fence", SAME, "hw"),
    ("ticket_acq_red (c+d)", "hw", "ticket_acq_red", SAME, "hw"),
    ("ticket_acq_red, serving own line (f)", "hw", "ticket_acq_red", SEP, "hw"),
    ("ticket_acq_st (c+d)", "hw", "ticket_acq_st", SAME, "hw"),
    ("shape_hw: syncc shape, hw ticket", "hw", "shape_hw", SEP, "hw"),
    ("shape_acq_red: syncc shape+prims", "hw", "shape_acq_red", SEP, "hw"),
    ("shape_acq_red_k100: = syncc default", "hw", "shape_acq_red_k100", SEP, "hw"),
    ("ticket_k25 (e)", "hw", "ticket_k25", SAME, "hw"),
    ("ticket_k50 (e)", "hw", "ticket_k50", SAME, "hw"),
    ("ticket_k100 (e)", "hw", "ticket_k100", SAME, "hw"),
    ("ticket_k200 (e)", "hw", "ticket_k200", SAME, "hw"),
    ("ticket_k100_head (e)", "hw", "ticket_k100_head", SAME, "hw"),
    ("ticket_k200_head (e)", "hw", "ticket_k200_head", SAME, "hw"),
    ("ticket_k400_head (e)", "hw", "ticket_k400_head", SAME, "hw"),
    ("ticket_hw_k200_head (e)", "hw", "ticket_hw_k200_head", SAME, "hw"),
    ("ticket_k200_pipe100 (h)", "hw", "ticket_k200_pipe100", SAME, "hw"),
    ("ticket_k200_pipe200 (h)", "hw", "ticket_k200_pipe200", SAME, "hw"),
    ("ticket_facq_st (h: fence.acquire)", "hw", "ticket_facq_st", SAME, "hw"),
    ("ticket_acq_frel (h: fence.release)", "hw", "ticket_acq_frel", SAME, "hw"),
    ("ticket_acq_st_weak (weak count)", "hw", "ticket_acq_st_weak", SAME, "hw"),
    ("shape_acq_red_weak: = syncc ticket", "hw", "shape_acq_red_weak", SEP, "hw"),
    ("ticket_acq_st_k200_head (c+d+e)", "hw", "ticket_acq_st_k200_head", SAME, "hw"),
    ("ticket_acq_st_k200_head, own line", "hw", "ticket_acq_st_k200_head", SEP, "hw"),
    ("shape_acq_st_k200_head", "hw", "shape_acq_st_k200_head", SEP, "hw"),
    ("shape_acq_st_k200_head_weak: proposal", "hw", "shape_acq_st_k200_head_weak", SEP, "hw"),
    ("ticket_facq_st_k200_head", "hw", "ticket_facq_st_k200_head", SAME, "hw"),
    ("ticket_facq_st_k200_head, own line", "hw", "ticket_facq_st_k200_head", SEP, "hw"),
    ("S0 shape_acq_red_k100_weak (=syncc dflt)", "hw", "shape_acq_red_k100_weak", SEP, "hw"),
    ("S1 + head polls without sleeping", "hw", "shape_acq_red_k100_head_weak", SEP, "hw"),
    ("S2 + relaxed poll, fence.acquire", "hw", "shape_facq_red_k100_head_weak", SEP, "hw"),
    ("S3 + st.release of me+1", "hw", "shape_facq_st_k100_head_weak", SEP, "hw"),
    ("S4 + K = 200 ns", "hw", "shape_facq_st_k200_head_weak", SEP, "hw"),
    ("S5 = S4 without sleeping", "hw", "shape_facq_st_weak", SEP, "hw"),
    ("syncc ticket, hand-written, no watchdog", "hw", "shape_acq_red_weak_nowd", SEP, "hw"),
    ("syncc default, hand-written, no watchdog", "hw", "shape_acq_red_k100_weak_nowd", SEP, "hw"),
    ("S4 without watchdog", "hw", "shape_facq_st_k200_head_weak_nowd", SEP, "hw"),
    ("syncc ticket, hand-written, no wd, regbar", "hw", "shape_acq_red_weak_nowd_regbar", SEP, "hw"),
    ("syncc default, hand-written, no wd, regbar", "hw", "shape_acq_red_k100_weak_nowd_regbar", SEP, "hw"),
    ("S4 without watchdog, regbar", "hw", "shape_facq_st_k200_head_weak_nowd_regbar", SEP, "hw"),
    ("ticket_facq_st_k200_head own line, no wd", "hw", "ticket_facq_st_k200_head_nowd", SEP, "hw"),
    ("carry_rel (g)", "hw", "carry_rel", SAME64, "carry"),
    ("carry_rel, word own line (g)", "hw", "carry_rel", SEP, "carry"),
    ("carry_frel, word own line (g+h)", "hw", "carry_frel", SEP, "carry"),
    ("carry_facq, word own line (g+h)", "hw", "carry_facq", SEP, "carry"),
    ("carry_facq_k200_head, own line", "hw", "carry_facq_k200_head", SEP, "carry"),
    ("carry_rlx, word own line (g, floor)", "hw", "carry_rlx", SEP, "carry"),
    ("carry_rel_k200_head, own line (g+e)", "hw", "carry_rel_k200_head", SEP, "carry"),
]


def load(build: Path):
    mods = {}
    for name in ("hw", "locks"):
        m = cp.cuda.function.Module()
        m.load_file(str(build / f"{'handover' if name == 'hw' else 'locks'}.cubin"))
        mods[name] = m
    m = cp.cuda.function.Module()
    m.load((HERE / "block_mutex.ptx").read_bytes())          # JIT by the driver, as syncc's runtime does
    mods["syncc"] = m
    if (HERE / "block_mutex.prev.ptx").exists():                  # syncc's PTX before a change, to compare
        m = cp.cuda.function.Module()
        m.load((HERE / "block_mutex.prev.ptx").read_bytes())
        mods["syncc_prev"] = m
    m = cp.cuda.function.Module()                                 # syncc's PTX, its barriers .aligned
    text = re.sub(r"barrier\.sync\s+%r\d+;", "barrier.sync.aligned 0;", (HERE / "block_mutex.ptx").read_text())
    m.load(text.encode())
    mods["syncc_aligned"] = m
    m = cp.cuda.function.Module()
    m.load_file(str(build / "block_mutex.cubin"))                # the same PTX through ptxas 13.0 -O3
    mods["syncc_cubin"] = m
    try:                                                          # the driver's JIT output, to disassemble
        ls = cp.cuda.function.LinkState()
        ls.add_ptr_data((HERE / "block_mutex.ptx").read_bytes(), "block_mutex.ptx")
        (build / "block_mutex.jit.cubin").write_bytes(ls.complete())
    except Exception as e:                                        # noqa: BLE001
        print("could not keep the JIT's cubin:", repr(e))
    return mods


def warm_up(seconds=1.5):
    x = cp.random.random(1 << 24)
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(20):
            x = cp.sqrt(x * x + 1.0)
        cp.cuda.Device().synchronize()


class Bench:
    def __init__(self, mods):
        self.mods = mods
        self.state = cp.zeros(256, cp.uint32)         # next at word 0; serving at word 1, 2 or 32
        self.count = cp.zeros(32, cp.int32)
        self.err = cp.zeros(1, cp.int32)
        self.stream = cp.cuda.Stream(non_blocking=True)

    def launch_once(self, module, kernel, where, conv, blocks):
        fn = self.mods[module].get_function(kernel)
        s, n = self.state, np.int32(ITERS)
        with self.stream:
            s.fill(0); self.count.fill(0); self.err.fill(0)
            if kernel == "block_binary_semaphore":
                self.mods["locks"].get_function("init_binary_semaphore")((1,), (1,), (s,), stream=self.stream)
            if kernel == "semaphore":
                self.mods["hw"].get_function("init_semaphore")((1,), (1,), (s,), stream=self.stream)
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record(self.stream)
            if conv == "locks":
                fn((blocks,), (BLOCK,), (s, self.count, n), stream=self.stream)
            elif conv == "syncc":
                fn((blocks,), (BLOCK,), (self.count, s, s[where:]), stream=self.stream)
            elif conv == "syncc1":
                fn((blocks,), (BLOCK,), (self.count, s[where:]), stream=self.stream)
            else:
                fn((blocks,), (BLOCK,), (s, s[where:], self.count, n, self.err), stream=self.stream)
            end.record(self.stream)
        deadline = time.monotonic() + 20
        while not end.done:
            if time.monotonic() > deadline:
                print(f"HANG: {kernel} at {blocks} blocks still running after 20 s", flush=True)
                sys.stdout.flush()
                import os
                os._exit(3)
            time.sleep(0.001)
        ms = cp.cuda.get_elapsed_time(start, end)
        want = blocks * ITERS
        if conv == "carry":
            w = int(s[where:where + 2].view(cp.uint64).get()[0])
            got, turns = w >> 32, w & 0xFFFFFFFF
        else:
            got, turns = int(self.count.get()[0]), want
        if got != want or turns != want or int(self.err.get()[0]):
            raise SystemExit(f"WRONG: {kernel} at {blocks} blocks counted {got} (want {want}), "
                             f"turns {turns}, watchdog {int(self.err.get()[0])}")
        return ms / 1000

    def rate(self, v, blocks, warmup, repeats):
        _, module, kernel, where, conv = v
        for _ in range(warmup):
            self.launch_once(module, kernel, where, conv, blocks)
        times = [self.launch_once(module, kernel, where, conv, blocks) for _ in range(repeats)]
        med = statistics.median(times)
        return blocks * ITERS / med, times


def latencies(mods):
    word = cp.zeros(256, cp.uint32)
    out = cp.zeros(10, cp.int64)
    mods["hw"].get_function("latency")((1,), (1,), (word, out))
    cp.cuda.Device().synchronize()
    names = ["ld.relaxed.gpu (dependent)", "atom.add (dependent)", "st + fence.sc.gpu",
             "st + fence.acq_rel.gpu", "fence.sc.gpu alone", "red.release.gpu (issue, back to back)",
             "ld.acquire.gpu (dependent)", "st + fence.release.gpu", "fence.acquire.gpu alone"]
    return dict(zip(names, (int(x) for x in out.get()[:9])))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", type=Path)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--sizes", default="132,264,528,1056")
    ap.add_argument("--only", default="")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    sizes = [int(x) for x in a.sizes.split(",")]
    variants = [v for v in VARIANTS if not a.only or v[2] in a.only.split(",")]
    mods = load(a.build)
    variants = [v for v in variants if v[1] in mods]
    bench = Bench(mods)
    warm_up()
    lat = latencies(mods)
    print("latencies (cycles, one thread of block 0):", json.dumps(lat), flush=True)
    results = {"latency_cycles": lat, "rounds": []}
    for r in range(a.rounds):
        table = {}
        t0 = time.perf_counter()
        for blocks in sizes:
            for v in variants:
                rate, times = bench.rate(v, blocks, a.warmup, a.repeats)
                table.setdefault(v[0], {})[blocks] = {"rate": rate, "times": times}
        results["rounds"].append(table)
        print(f"\nround {r + 1} ({time.perf_counter() - t0:.0f} s): M hand-overs/s, median of {a.repeats} "
              f"launches after {a.warmup}; x sem = ratio to locks.cu binary_semaphore at that size", flush=True)
        base = table.get("locks.cu binary_semaphore (b)")
        head = f"{'variant':40s}" + "".join(f"{b:>8d}" for b in sizes) + ("   x sem " + " ".join(f"{b:>5d}" for b in sizes) if base else "")
        print(head)
        for name, by in table.items():
            line = f"{name:40s}" + "".join(f"{by[b]['rate'] / 1e6:8.3f}" for b in sizes)
            if base:
                line += "         " + " ".join(f"{by[b]['rate'] / base[b]['rate']:5.2f}" for b in sizes)
            print(line, flush=True)
    if a.json:
        a.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
