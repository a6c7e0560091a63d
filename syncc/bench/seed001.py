"""Seed 001 §6 (Stuart & Owens), Figures 1–3 on the simulator: barrier, mutex and semaphore
throughput against the number of blocks.

The kernels are those of `examples/primitives.sync`, compiled without their checks
(`CHECK=false`: the paper timed empty sections), each launched with 1 … 120 blocks of 128
threads (120 = 15 SMs × 8 blocks, everything the simulated GTX480 holds at once, which a grid
barrier needs) and ITERS operations per block. Throughput is operations per million cycles:
barrier episodes (every block through once) for Figure 1, lock/unlock or wait/post pairs of
any block for Figures 2 and 3. Every run is checked: each block must report ITERS operations.
The notes compare the trends with what the paper found on its Fermi (a GTX580).
"""
from __future__ import annotations

import numpy as np

from .core import Context, Plot, Table

THREADS = 128
MAX_BLOCKS = 120
FULL = [1, 2, 4, 8, 15, 30, 60, 90, 120]
QUICK = [1, 4, 15]
BARRIERS = ["atomic", "xf", "hierarchical"]
MUTEXES = ["tas", "backoff", "ticket"]          # spin lock, spin lock with backoff, fetch-and-add
MUTEX_NAMES = {"tas": "spin (tas)", "backoff": "spin+backoff", "ticket": "fetch-and-add (ticket)"}
SEMAPHORES = ["spin", "backoff", "sleeping"]
COUNTS = [1, 2, 10, 120]


class Bench:
    """One compiled program per semaphore count; launches that check what each block did."""

    def __init__(self, ctx: Context):
        self.path = ctx.path("examples/primitives.sync")
        self.programs = {}

    def program(self, count: int = 2):
        import syncc
        if count not in self.programs:
            self.programs[count] = syncc.compile(
                str(self.path), target="fermi-sim",
                defines={"BLOCKS": MAX_BLOCKS, "CHECK": False, "SEM_COUNT": count})
        return self.programs[count]

    def cycles(self, kernel: str, blocks: int, iters: int, count: int = 2) -> int:
        done = np.zeros(MAX_BLOCKS, np.int32)
        if kernel.startswith("barrier"):
            extra = [np.zeros(MAX_BLOCKS, np.int32), np.zeros(MAX_BLOCKS, np.int32)]
        else:
            extra = [np.zeros(1 if kernel.startswith("mutex") else 2, np.int32)]
        launch = getattr(self.program(count), kernel)[(blocks, 1, 1), (THREADS, 1, 1)]
        outcome = launch(done, *extra, iters)
        if not (done[:blocks] == iters).all():
            raise RuntimeError(f"{kernel} with {blocks} blocks: blocks did {done[:blocks].tolist()} "
                               f"operations, not {iters} each")
        return outcome.cycles


def per_mcycle(ops: int, cycles: int) -> float:
    return ops * 1e6 / cycles


def run(ctx: Context):
    sizes = QUICK if ctx.quick else FULL
    iters = 2 if ctx.quick else 4
    bench = Bench(ctx)
    out = []
    for part in (barriers, mutexes, semaphores):
        out += part(ctx, bench, sizes, iters)
    return out


# ---- Figure 1: grid barriers

def barriers(ctx, bench, sizes, iters):
    rate = {impl: {} for impl in BARRIERS}
    table = Table("seed001_barrier", "Seed 001 Figure 1: grid barriers on fermi-sim (barriers per million cycles)",
                  ["blocks"] + [f"{b} cycles/barrier" for b in BARRIERS] + [f"{b} per Mcycle" for b in BARRIERS]
                  + ["atomic / xf"])
    for n in sizes:
        cyc = {impl: bench.cycles(f"barrier_{impl}", n, iters) for impl in BARRIERS}
        for impl in BARRIERS:
            rate[impl][n] = per_mcycle(iters, cyc[impl])
        table.rows.append([n] + [cyc[b] / iters for b in BARRIERS] + [rate[b][n] for b in BARRIERS]
                          + [rate["atomic"][n] / rate["xf"][n]])
    ctx.log(f"   seed001: barriers done ({len(sizes)} sizes)")
    first, last = sizes[0], sizes[-1]
    xf_best = [n for n in sizes if rate["xf"][n] >= max(rate[b][n] for b in BARRIERS)]
    table.notes += [
        f"paper: XF is always the fastest; here it is the fastest at {len(xf_best)} of {len(sizes)} sizes"
        f" ({', '.join(map(str, xf_best)) or 'none'} blocks).",
        f"paper: the atomic barrier runs at ~75% of XF at 1 block, ~30% at full scale; here "
        f"{rate['atomic'][first] / rate['xf'][first]:.0%} at {first} and "
        f"{rate['atomic'][last] / rate['xf'][last]:.0%} at {last} blocks. The simulator's L2 takes a contended "
        "atomic every 8 cycles (atomic_occupancy) and does not hold the line hostage as the paper's Fermi "
        "did, so one counter scales better than the paper saw.",
        f"throughput falls with blocks for every barrier ({_trend(rate, BARRIERS, first, last)}): each "
        "episode waits for the last block, and XF's master block polls one flag per block.",
    ]
    plot = Plot("seed001_figure1", "Seed 001 Figure 1: grid barriers (fermi-sim)", "blocks",
                "barriers per million cycles", {b: sorted(rate[b].items()) for b in BARRIERS}, logy=True)
    return [table, plot]


# ---- Figure 2: block mutexes

def mutexes(ctx, bench, sizes, iters):
    rate = {impl: {} for impl in MUTEXES}
    table = Table("seed001_mutex", "Seed 001 Figure 2: block mutexes on fermi-sim (lock/unlock pairs per million cycles)",
                  ["blocks"] + [f"{m} cycles" for m in MUTEXES] + [f"{m} per Mcycle" for m in MUTEXES]
                  + ["backoff / tas", "ticket / backoff"])
    for n in sizes:
        cyc = {impl: bench.cycles(f"mutex_{impl}", n, iters) for impl in MUTEXES}
        for impl in MUTEXES:
            rate[impl][n] = per_mcycle(n * iters, cyc[impl])
        table.rows.append([n] + [cyc[m] for m in MUTEXES] + [rate[m][n] for m in MUTEXES]
                          + [rate["backoff"][n] / rate["tas"][n], rate["ticket"][n] / rate["backoff"][n]])
    ctx.log(f"   seed001: mutexes done ({len(sizes)} sizes)")
    last = sizes[-1]
    best = max(MUTEXES, key=lambda m: rate[m][last])
    peak = max(sizes, key=lambda n: rate["tas"][n])
    table.notes += [
        f"paper (Fermi): at scale spin+backoff is fastest, ~45% over plain spin; here at {last} blocks the "
        f"fastest is {MUTEX_NAMES[best]}, backoff/tas = {rate['backoff'][last] / rate['tas'][last]:.2f}.",
        f"paper (Fermi): fetch-and-add runs at about half the speed of spin+backoff and below plain spin; here "
        f"ticket/backoff = {rate['ticket'][last] / rate['backoff'][last]:.2f} and ticket/tas = "
        f"{rate['ticket'][last] / rate['tas'][last]:.2f} at {last} blocks. The paper blames Fermi's atomic unit, "
        "which holds a contended line until its queue drains; the simulator serializes atomics per address "
        "but models no such hostage line, and a ticket waiter polls with plain loads that never queue "
        "at the atomic unit, so fetch-and-add is not penalized here.",
        f"paper: the spin lock's throughput rises up to ~40 blocks, then the atomic unit saturates; here "
        f"tas peaks at {peak} blocks.",
        "the critical sections serialize: total cycles grow with the number of blocks for every mutex.",
    ]
    plot = Plot("seed001_figure2", "Seed 001 Figure 2: block mutexes (fermi-sim)", "blocks",
                "lock/unlock pairs per million cycles", {MUTEX_NAMES[m]: sorted(rate[m].items()) for m in MUTEXES},
                logy=True)
    return [table, plot]


# ---- Figure 3: block semaphores

def semaphores(ctx, bench, sizes, iters):
    rate = {(impl, k): {} for k in COUNTS for impl in SEMAPHORES}
    table = Table("seed001_semaphore", "Seed 001 Figure 3: block semaphores on fermi-sim (wait/post pairs per million cycles)",
                  ["count", "blocks"] + [f"{s} cycles" for s in SEMAPHORES] + [f"{s} per Mcycle" for s in SEMAPHORES]
                  + ["sleeping / spin", "backoff / spin"])
    for k in COUNTS:
        for n in sizes:
            cyc = {impl: bench.cycles(f"sem_{impl}", n, iters, count=k) for impl in SEMAPHORES}
            for impl in SEMAPHORES:
                rate[impl, k][n] = per_mcycle(n * iters, cyc[impl])
            r = {impl: rate[impl, k][n] for impl in SEMAPHORES}
            table.rows.append([k, n] + [cyc[s] for s in SEMAPHORES] + [r[s] for s in SEMAPHORES]
                              + [r["sleeping"] / r["spin"], r["backoff"] / r["spin"]])
        ctx.log(f"   seed001: semaphores with count {k} done")
    last = sizes[-1]

    def ratio(a, b, k):
        return rate[a, k][last] / rate[b, k][last]

    fastest = {k: max(SEMAPHORES, key=lambda s: rate[s, k][last]) for k in COUNTS}
    slower = sum(rate["backoff", k][n] < rate["spin", k][n] for k in COUNTS for n in sizes)
    table.notes += [
        "paper (Fermi, full scale): sleeping vs spin is 1× at count 2, 6× at 10, 60× at 120; here at "
        f"{last} blocks " + ", ".join(f"{ratio('sleeping', 'spin', k):.2g}× at {k}" for k in COUNTS) +
        (" (with fewer blocks than the count nobody waits, so 10 and 120 differ only from 10 blocks up)"
         if last < max(COUNTS) else "") + ".",
        "paper: sleeping is almost always the fastest, except at count 1 at scale, where spin+backoff "
        "overtakes it; here the fastest at " + f"{last} blocks is " +
        ", ".join(f"{fastest[k]} (count {k})" for k in COUNTS) + ".",
        f"paper (Fermi): backoff makes the spin semaphore slower than plain spin in most cases; here at "
        f"{slower} of {len(COUNTS) * len(sizes)} points.",
        "paper (Fermi): the spin semaphore improves with the count, but not by much; here at "
        f"{last} blocks spin runs " + ", ".join(f"{rate['spin', k][last]:,.0f}" for k in COUNTS) +
        " pairs per Mcycle for counts " + ", ".join(map(str, COUNTS)) +
        ": every wait and post is a compare-and-swap or add on the one count word, so the atomic unit "
        "bounds it whatever the count.",
    ]
    series = {f"{s} ({k})": sorted(rate[s, k].items()) for k in COUNTS for s in SEMAPHORES}
    plot = Plot("seed001_figure3", "Seed 001 Figure 3: block semaphores, (initial value) (fermi-sim)", "blocks",
                "wait/post pairs per million cycles", series, logy=True)
    return [table, plot]


def _trend(rate, impls, first, last) -> str:
    return ", ".join(f"{i} {rate[i][first]:,.0f} → {rate[i][last]:,.0f}" for i in impls)
