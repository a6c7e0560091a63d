"""The Fermi simulator: how fast it simulates, on each engine, and seed 000's Figure 4 on it.

    python bench/fermi.py [--runs 3] [--csv results.csv] [--only speed|setup|floats|figure4]

1. speed: every launch of `syncc run FILE` for wavefront.sync (N = 31: 32 × 32 actors in
   one block), counter.sync, primitives.sync and ring.sync (4096 items through a 64-slot
   ring), and of counter.sync and primitives.sync compiled for ITS (`--its`), recorded once
   and replayed on the compiled core and on the reference engine,
   alternating, several times; the median run of each gives simulated warp-instructions per
   second of host time (the launch's set-up included: the core's tables and arrays). Beside
   them, in the same run, a floor: the same number of warp-instructions as one numpy 32-lane
   add each through a dict dispatch, the least a simulator that keeps registers in numpy rows
   can do per instruction. (Accel-Sim's ≈ 12.5 K warp-instructions/s single-threaded is a
   quoted anchor, not run here.)
2. setup: what a launch costs before it simulates: loading the core's cached native code
   (once per process, timed in a fresh one) and building a launch's arrays (median); then
   wavefront.sync at N = 1, 3, 7, 15, 31 on both engines: the smallest program where the
   compiled core wins.
3. floats: bench/programs/float_int.sync's six launches, each recorded once and replayed on
   both engines, alternating: the same loop on i32, i64, f32 and f64, and an f32 and an f64 loop of `/` and
   `sqrt` (the emitter's correctly rounded sequences); warp-instructions per second of host
   time for each, and each float kernel's rate as a ratio to the integer one's on the same
   engine in the same run (the ratio is the figure; a rate is this machine's only).
4. figure4: the five kernels of `examples/chain.sync` (seed 000 Table 1's schemes),
   each run once (the simulator is deterministic): the kernel's cycles and the
   reduction phase's, from the first instruction of warp 0's `put` (the phase starts
   when the first value is ready) to the last instruction of the last warp's `put`;
   each as a speed ratio to atom_lock beside the paper's (Table 2).

Tests never assert on these numbers.
"""
from __future__ import annotations

import argparse
import copy
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import syncc  # noqa: E402
from syncc.backends.sim.machine import FermiConfig  # noqa: E402
from syncc.backends.sim.simulator import Simulator  # noqa: E402
from syncc.runtime.sim import recording_launches  # noqa: E402
from timing import header  # noqa: E402
from syncc.bench.figure4 import PAPER, measure  # noqa: E402

PROGRAMS = ("wavefront.sync", "counter.sync", "primitives.sync", "ring.sync")
ITS_PROGRAMS = ("counter.sync", "primitives.sync")      # also run compiled for ITS (--its)
ENGINES = ("compiled", "reference")


# ---- 1. simulation speed -------------------------------------------------------------------

def recorded_launches(path: Path, defines: dict | None = None, its: bool = False) -> list[tuple]:
    """Every launch the host block of `path` makes, as it was before it ran (run once, on the
    reference engine; with `its`, compiled and run for independent thread scheduling)."""
    prog = syncc.compile(str(path), target="fermi-sim", defines=defines or {},
                         sim_config=FermiConfig(engine="reference", its=its))
    with recording_launches() as launches:
        prog.run(write=lambda *a: None)
    return launches


def replay(launches: list[tuple], engine: str) -> tuple[float, int]:
    """Host seconds and warp-instructions of every launch, run afresh on `engine`."""
    seconds, instructions = 0.0, 0
    for kernel, config, grid, block, gmem, params in launches:
        gmem = copy.deepcopy(gmem)
        t = time.perf_counter()
        outcome = Simulator(kernel, config.with_(engine=engine), grid, block, gmem, params).run()
        seconds += time.perf_counter() - t
        assert outcome.status == "finished", (kernel.name, outcome.status)
        instructions += outcome.warp_instructions
    return seconds, instructions


def medians(launches: list[tuple], runs: int) -> dict[str, float]:
    """Median host seconds per engine, the engines alternating (and swapping order) run by run."""
    replay(launches, "compiled")                      # the core's code is loaded before timing
    times: dict[str, list[float]] = {e: [] for e in ENGINES}
    for r in range(runs):
        for engine in ENGINES if r % 2 == 0 else ENGINES[::-1]:
            times[engine].append(replay(launches, engine)[0])
    return {e: statistics.median(ts) for e, ts in times.items()}


def speed(runs: int) -> list[tuple[str, float, str]]:
    rows = []
    for name, its in [(p, False) for p in PROGRAMS] + [(p, True) for p in ITS_PROGRAMS]:
        launches = recorded_launches(ROOT / "examples" / name, its=its)
        _, wi = replay(launches, "compiled")
        t = medians(launches, runs)
        floor_s = statistics.median(_floor(wi) for _ in range(runs))
        rows += [
            (f"{name}{' --its' if its else ''}: {len(launches)} launches, {wi:,} warp-instructions", 0.0, "info"),
            ("  reference engine, warp-instructions per second (baseline)", wi / t["reference"], "/s"),
            ("  compiled core, warp-instructions per second", wi / t["compiled"], "/s"),
            ("  floor (one numpy 32-lane add each), warp-instructions per second", wi / floor_s, "/s"),
            ("  compiled core / reference engine", t["reference"] / t["compiled"], "x"),
            ("  compiled core / floor", floor_s / t["compiled"], "x"),
        ]
    return rows


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


# ---- 2. what a launch costs before it simulates -----------------------------------------------

def setup(runs: int) -> list[tuple[str, float, str]]:
    from syncc.backends.sim.core.bridge import Core
    launches = recorded_launches(ROOT / "examples" / "wavefront.sync")
    kernel, config, grid, block, gmem, params = launches[0]
    builds = []
    for _ in range(max(runs, 5)):
        sim = Simulator(kernel, config.with_(engine="compiled"), grid, block, copy.deepcopy(gmem), params)
        t = time.perf_counter()
        Core(sim)
        builds.append(time.perf_counter() - t)
    loads = [_first_launch_s() for _ in range(3)]
    rows = [("loading the core's cached native code, once per process (median of 3 fresh processes)",
             statistics.median(loads), "s"),
            ("building one launch's state (wavefront.sync N = 31, median)", statistics.median(builds), "s")]
    for n in (1, 3, 7, 15, 31):
        launches = recorded_launches(ROOT / "examples" / "wavefront.sync", {"N": n})
        _, wi = replay(launches, "compiled")
        t = medians(launches, runs)
        what = (f"wavefront.sync N = {n} ({wi:,} warp-instructions): reference {t['reference'] * 1e3:.2f} ms, "
                f"compiled {t['compiled'] * 1e3:.2f} ms; compiled / reference")
        rows.append((what, t["reference"] / t["compiled"], "x"))
    return rows


def _first_launch_s() -> float:
    """Seconds a fresh process spends on its first compiled launch beyond its second: loading
    the core's native code from numba's cache."""
    script = (f"import sys, time; sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, {str(ROOT / 'bench')!r})\n"
              "from fermi import recorded_launches, replay, ROOT\n"
              "launches = recorded_launches(ROOT / 'examples' / 'wavefront.sync', {'N': 1})\n"
              "first = replay(launches, 'compiled')[0]; second = replay(launches, 'compiled')[0]\n"
              "print(first - second)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


# ---- 3. float code beside integer code -----------------------------------------------------

def floats(runs: int) -> list[tuple[str, float, str]]:
    launches = recorded_launches(ROOT / "bench" / "programs" / "float_int.sync")
    rate: dict[tuple[str, str], float] = {}
    rows = []
    for launch in launches:
        name = launch[0].name
        _, wi = replay([launch], "compiled")
        t = medians([launch], runs)
        rows.append((f"{name}: {wi:,} warp-instructions", 0.0, "info"))
        for engine in ENGINES:
            rate[name, engine] = wi / t[engine]
            rows.append((f"  {engine}, warp-instructions per second", rate[name, engine], "/s"))
    for name in ("poly_i64", "poly_f32", "div_sqrt_f32", "poly_f64", "div_sqrt_f64"):
        for engine in ENGINES:
            rows.append((f"{name} / poly_i32, warp-instructions per second, {engine}",
                         rate[name, engine] / rate["poly_i32", engine], "x"))
    return rows


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
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", choices=("speed", "setup", "floats", "figure4"))
    parser.add_argument("--csv", type=Path)
    args = parser.parse_args()
    print(header())
    rows = []
    if args.only in (None, "figure4"):
        rows += figure4_rows()
    if args.only in (None, "speed"):
        rows += speed(args.runs)
    if args.only in (None, "setup"):
        rows += setup(args.runs)
    if args.only in (None, "floats"):
        rows += floats(args.runs)
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
