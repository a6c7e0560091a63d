"""The Fermi simulator: how fast it simulates, and seed 000's Figure 4 on it.

    python bench/fermi.py [--runs 5] [--csv results.csv] [--only speed|figure4]

1. speed: `examples/wavefront.sync` (N = 31: a 32 × 32 grid of actors, one block of
   32 warps) compiled for fermi-sim and run with timing on, several times; the
   median run gives simulated warp-instructions, thread-instructions and cycles per
   second of host time. Beside it, in the same run, a floor: the same number of
   warp-instructions as one numpy 32-lane add each through a dict dispatch, the
   least a simulator that keeps registers in numpy rows can do per instruction.
   The ratio says how far the simulator is from that floor. (Accel-Sim's ≈ 12.5 K
   warp-instructions/s single-threaded is a quoted anchor, not run here.)
2. figure4: the five kernels of `examples/chain.sync` (seed 000 Table 1's schemes),
   each run once (the simulator is deterministic): the kernel's cycles and the
   reduction phase's, from the first instruction of warp 0's `put` (the phase starts
   when the first value is ready) to the last instruction of the last warp's `put`;
   each as a speed ratio to atom_lock beside the paper's (Table 2).

Tests never assert on these numbers.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import syncc  # noqa: E402
from syncc.backends.sim.machine import FermiConfig  # noqa: E402
from syncc.runtime.sim import SimLauncher  # noqa: E402
from timing import header  # noqa: E402
from syncc.bench.figure4 import PAPER, measure  # noqa: E402


# ---- 1. simulation speed -------------------------------------------------------------------

def wavefront_args():
    rng = np.random.default_rng(1)
    refm = rng.integers(-10, 11, size=(31, 31)).astype(np.int32)
    return [refm, np.zeros((32, 32), np.int32), 10]


def speed(runs: int) -> list[tuple[str, float, str]]:
    prog = syncc.compile(str(ROOT / "examples" / "wavefront.sync"), target="fermi-sim")
    program = prog._fermi_program()
    times, outcome = [], None
    floor_times = []
    for _ in range(runs):
        launcher = SimLauncher(program, FermiConfig())
        args = wavefront_args()
        t = time.perf_counter()
        outcome = launcher("nw", args, (1, 1, 1), (32, 32, 1))
        times.append(time.perf_counter() - t)
        floor_times.append(_floor(outcome.warp_instructions))
    sim_s, floor_s = statistics.median(times), statistics.median(floor_times)
    wi, ti, cy = outcome.warp_instructions, outcome.thread_instructions, outcome.cycles
    return [
        ("wavefront N=31 on fermi-sim: host seconds per run (median)", sim_s, "s"),
        (f"  simulated: {wi:,} warp-instructions, {ti:,} thread-instructions, {cy:,} cycles", 0.0, "info"),
        ("  warp-instructions per second", wi / sim_s, "/s"),
        ("  thread-instructions per second", ti / sim_s, "/s"),
        ("  cycles per second", cy / sim_s, "/s"),
        ("floor: one numpy 32-lane add per warp-instruction, seconds (baseline)", floor_s, "s"),
        ("  simulator time / floor time", sim_s / floor_s, "x"),
    ]


def _floor(n: int) -> float:
    """n warp-instructions at the least cost a numpy-register simulator pays: a dispatch and one
    32-lane ufunc with an output row."""
    regs = np.zeros((64, 32), np.int32)
    ops = {"IADD": lambda a, b, d: np.add(regs[a], regs[b], out=regs[d])}
    program = [("IADD", i % 60, (i + 1) % 60, (i + 2) % 60) for i in range(64)]
    t = time.perf_counter()
    for i in range(n):
        op, a, b, d = program[i & 63]
        ops[op](a, b, d)
    return time.perf_counter() - t


# ---- 2. Figure 4 (syncc/bench/figure4.py; also `syncc bench paper --only figure4`) -----------

def figure4(config: FermiConfig | None = None) -> dict[str, tuple[int, int]]:
    return measure(ROOT / "examples" / "chain.sync", config)


def figure4_rows() -> list[tuple[str, float, str]]:
    result = figure4()
    base_kernel, base_phase = result["atom_lock"]
    rows = [("atom_lock: reduction-phase cycles (baseline)", base_phase, "cycles")]
    for name, (cycles, phase) in result.items():
        rows.append((f"{name}: kernel {cycles:,} cycles ({base_kernel / cycles:.2f}x), reduction phase "
                     f"{phase:,} cycles: speed {base_phase / phase:.2f}x atom_lock (paper {PAPER[name]}x)",
                     base_phase / phase, "x"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", choices=("speed", "figure4"))
    parser.add_argument("--csv", type=Path)
    args = parser.parse_args()
    print(header())
    rows = []
    if args.only in (None, "figure4"):
        rows += figure4_rows()
    if args.only in (None, "speed"):
        rows += speed(args.runs)
    for name, value, unit in rows:
        if unit == "info":
            print(name)
        elif unit in ("/s",):
            print(f"{value:14,.0f} {unit:6s} {name}")
        elif unit == "s":
            print(f"{value:14.3f} {unit:6s} {name}")
        elif unit == "cycles":
            print(f"{value:14,.0f} {unit:6s} {name}")
        else:
            print(f"{value:14.2f} {unit:6s} {name}")
    if args.csv:
        import csv
        with args.csv.open("w", newline="") as f:
            csv.writer(f).writerows([(n, v, u) for n, v, u in rows if u != "info"])


if __name__ == "__main__":
    main()
