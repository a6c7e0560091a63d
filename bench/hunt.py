"""How many seeds of each scheduling policy expose each buggy program (tests/sim/buggy, and the
hazard corpus's hand lock with no release fence written), run past the hazard checks on fermi-sim.

    python bench/hunt.py [--seeds 50] [--policies adversarial hunt --] [PROGRAM ...]

A run exposes the bug when the program's own check fails, or it does not finish. Each seed seeds
both the schedule and the weak memory (`--policy NAME:SEED`). The programs run as written, with
none of the compiler's orderings (`fences=False`): syncc would insert the missing ones
(passes/hand_fences.py). Prints a markdown table.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROGRAMS = ["tests/sim/buggy/publish_no_reader_fence.sync", "tests/sim/buggy/lock_no_acquire_fence.sync",
            "tests/sim/buggy/ticket_no_release_fence.sync", "tests/hazards/clean/lock_in_loop_no_release_fence.sync",
            "tests/sim/buggy/lock_plain_store_take.sync"]


def exposed(path: str, policy: str, seeds: int) -> int:
    import syncc
    from syncc.backends.sim.machine import FermiConfig
    prog = syncc.compile(os.path.join(ROOT, path), target="fermi-sim", hazards=False, fences=False,
                         sim_config=FermiConfig(max_cycles=2_000_000))
    count = 0
    for seed in range(1, seeds + 1):
        config = FermiConfig(policy=f"{policy}:{seed}", max_cycles=2_000_000)
        prog._options = dataclasses.replace(prog._options, sim_config=config)
        try:
            prog.run(target="fermi-sim", write=lambda *a: None)
        except syncc.RunError:
            count += 1
    return count


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--policies", nargs="+", default=["adversarial", "hunt"])
    ap.add_argument("programs", nargs="*", default=PROGRAMS)
    args = ap.parse_args()
    sys.path.insert(0, ROOT)
    from syncc.backends.sim.machine import FermiConfig
    for policy in args.policies:      # (a program after --policies without `--` would be taken as one)
        problem = FermiConfig(policy=f"{policy}:1").check()
        if problem is not None:
            ap.error(f"--policies {policy}: {problem} (end the policies with `--` before the programs)")
    print("| program | " + " | ".join(f"{p}:SEED, of {args.seeds}" for p in args.policies) + " |")
    print("| --- |" + " ---: |" * len(args.policies))
    for path in args.programs:
        counts = [exposed(path, p, args.seeds) for p in args.policies]
        print(f"| {os.path.basename(path)} | " + " | ".join(map(str, counts)) + " |", flush=True)


if __name__ == "__main__":
    main()
