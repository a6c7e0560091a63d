"""Run the litmus tests of bench/litmus/litmus.sync and print the outcome table.

    python bench/litmus.py [--seeds 100] [--instances 64]        # the Fermi simulator, weak memory
    python bench/litmus.py --gpu [--instances 65536 --rounds 16]  # a real GPU (cupy)
    python bench/litmus.py --memory sc                            # the simulator, sequentially consistent

Each shape's runs are counted by outcome; the table gives, per shape, the
outcome that only a weak memory shows, whether the simulator's model allows it
(docs/fermi.md, "The memory model"), and how often it was seen.
"""
from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "litmus", "litmus.sync")

# shape number in litmus.sync → (name, reads shown, the weak outcome, does the weak model allow it)
SHAPES = {
    0: ("MP", "r0 r1", (1, 0), True),
    1: ("MP + fence gpu", "r0 r1", (1, 0), False),
    2: ("MP + fence cta (writer)", "r0 r1", (1, 0), True),
    3: ("SB", "r0 r1", (0, 0), True),
    4: ("SB + fence gpu", "r0 r1", (0, 0), False),
    5: ("LB", "r0 r1", (1, 1), False),
    6: ("LB + fence gpu", "r0 r1", (1, 1), False),
    7: ("IRIW", "r0 r1 r2 r3", (1, 0, 1, 0), True),
    8: ("IRIW + fence gpu", "r0 r1 r2 r3", (1, 0, 1, 0), False),
    9: ("CoRR", "r0 r1", (2, 1), False),
    10: ("MP + fence gpu (writer only)", "r0 r1", (1, 0), True),
}


def reads(outcome: int, n: int) -> tuple[int, ...]:
    r = (outcome % 4, (outcome // 4) % 4, (outcome // 16) % 2, (outcome // 32) % 2)
    return r[:n]


def run_once(args, extra: list[str]) -> dict[int, collections.Counter]:
    # Without run-time bounds checks: the instance index comes from `bid`, which the compiler
    # cannot bound, and a check's compare and branch beside the shape's loads and stores would
    # change the timing the shape is run for (the indices are inside by construction).
    # Without the compiler's orderings and hazard checks: the shapes are the memory model's test,
    # written with exactly the fences each row names (syncc would fence the unfenced ones, and
    # refuses the `fence cta` between blocks, E0709).
    cmd = [sys.executable, "-m", "syncc", "run", PROGRAM, "-D", f"N={args.instances}", "-D",
           f"ROUNDS={args.rounds}", "--unsafe-no-bounds-checks", "--unsafe-no-fences",
           "--unsafe-skip-hazard-checks", *extra]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({out.returncode}):\n{out.stdout}{out.stderr}")
    counts: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    for line in out.stdout.splitlines():
        parts = line.split()
        if parts[:1] == ["litmus"]:
            shape, outcome, n = map(int, parts[1:])
            counts[shape][outcome] += n
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpu", action="store_true", help="run on the GPU instead of the simulator")
    ap.add_argument("--seeds", type=int, default=100, help="simulator: runs, with seeds 1..SEEDS")
    ap.add_argument("--instances", type=int, default=None, help="instances per launch (N)")
    ap.add_argument("--rounds", type=int, default=1, help="launches per shape and run")
    ap.add_argument("--memory", default="weak", help="simulator: weak or sc")
    args = ap.parse_args()
    args.instances = args.instances or (65536 if args.gpu else 64)
    total: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    if args.gpu:
        runs = [["--target", "gpu", "--timeout", "60"]]
    else:
        runs = [["--policy", f"adversarial:{s}", "--memory", args.memory if args.memory == "sc"
                 else f"weak:{s}"] for s in range(1, args.seeds + 1)]
    for extra in runs:
        for shape, c in run_once(args, extra).items():
            total[shape].update(c)
    where = "GPU" if args.gpu else f"fermi-sim ({args.memory}, {args.seeds} seeds)"
    print(f"| shape | reads | weak outcome | model allows it | seen on {where} | runs | other outcomes |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for shape, (name, names, weak, allowed) in SHAPES.items():
        c = total[shape]
        n = len(weak)
        by_reads = collections.Counter()
        for o, k in c.items():
            by_reads[reads(o, n)] += k
        seen = by_reads.get(weak, 0)
        others = ", ".join(f"{' '.join(map(str, r))}: {k}" for r, k in sorted(by_reads.items()) if r != weak)
        print(f"| {name} | {names} | {' '.join(map(str, weak))} | {'yes' if allowed else 'no'} | {seen} | "
              f"{sum(c.values())} | {others} |")


if __name__ == "__main__":
    main()
