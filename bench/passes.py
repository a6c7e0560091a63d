"""Lowering and the safety passes: their time, and the fences they place.

    python bench/passes.py [--runs 300] [--csv results.csv]

1. lowering + every pass on examples/wavefront.sync in this process (warm,
   median), for PTX and for Fermi, beside the front end (parse + check) of the
   same file measured in the same run; also with --verify-each (the IR verifier
   after every pass, as the test suite runs it);
2. fences per example and target: the naive count (a fence on each side of
   every synchronizing operation), what insert_fences places with minimization
   off (every ordering point an explicit fence, in every thread of a party),
   and with it on (explicit fences, and the orderings PTX's atomics and loads
   carry themselves). Static counts, not executions.

Tests never assert on the times; tests/ir/test_fences.py pins the fence counts.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from syncc.driver import check_file  # noqa: E402
from syncc.ir.context import PassContext  # noqa: E402
from syncc.ir.pipeline import compile_module  # noqa: E402
from syncc.ir.stats import fence_stats  # noqa: E402
from syncc.ir.machine_model import FERMI, PTX  # noqa: E402
from timing import header, median_ms, report  # noqa: E402

SOURCE = ROOT / "examples" / "wavefront.sync"


def timings(runs: int) -> list[tuple[str, float, str]]:
    comp = check_file(str(SOURCE))
    assert comp.ok, "wavefront.sync must check clean"

    def passes(target, verify_each=False):
        def run():
            ctx = PassContext(target, 2, comp.sink, verify_each=verify_each)
            assert compile_module(comp.module, ctx) is not None
        return run
    ms = median_ms({"front end": lambda: check_file(str(SOURCE)), "ptx": passes(PTX), "fermi": passes(FERMI),
                    "ptx verify-each": passes(PTX, True)}, runs)
    return [
        ("lowering + all passes, wavefront.sync, ptx", ms["ptx"], ""),
        ("lowering + all passes, wavefront.sync, fermi", ms["fermi"], ""),
        ("the same for ptx with --verify-each", ms["ptx verify-each"], ""),
        ("parse + check of the same file", ms["front end"], "baseline"),
        ("ratio passes (ptx) / front end", ms["ptx"] / ms["front end"], "x"),
    ]


def fences() -> list[tuple[str, str, int, int, int, int, int]]:
    rows = []
    for path in sorted((ROOT / "examples").glob("*.sync")):
        for target in (PTX, FERMI):
            counts = []
            for minimize in (False, True):
                comp = check_file(str(path))
                module = compile_module(comp.module, PassContext(target, 2, comp.sink, minimize_fences=minimize))
                counts.append(fence_stats(module))
            before, after = counts
            rows.append((path.name, target.name, after.naive, before.fences, after.fences, after.cta_fences,
                         after.ordered))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=300, help="warm in-process runs (median)")
    ap.add_argument("--csv", type=Path, help="also write the timing rows to this CSV file")
    args = ap.parse_args()

    print(header())
    rows = timings(args.runs)
    report(rows, args.csv)
    print()
    print("| example | target | naive (2 × sync ops) | fences, unminimized | fences, minimized (cta) "
          "| orderings on atomics/loads |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, target, naive, before, after, cta, ordered in fences():
        print(f"| {name} | {target} | {naive} | {before} | {after} ({cta}) | {ordered} |")

if __name__ == "__main__":
    main()
