"""The confusion matrix of each external suite, per target (tests/external/README.md):

    python -m tests.external.matrix                 # syncc check of every case
    python -m tests.external.matrix --runs 20       # and each case's outcome under 20 schedules

A case is buggy when its suite says so (race, assert, nonterm) and rejected when syncc reports an
error for that target. With --runs, each case also runs on the simulator as written (its hazard
checks skipped; seeds 1..N of the adversarial policy on weak memory), so that an accepted buggy case
that fails, and a rejected one that never does, are counted.
"""
from __future__ import annotations

import argparse
import io
import os
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from syncc.cli import run_cli

from .harness import Case, cases, check, outcome, sim_args, targets_of

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = run_cli(list(args))
    finally:
        os.chdir(cwd)
    return code, out.getvalue(), err.getvalue()


def _runs(case: Case, n: int) -> Counter:
    seen = Counter()
    for seed in range(1, n + 1):
        code, _, err = _cli(*sim_args(case, seed))
        seen[outcome(code, err)] += 1
    return seen


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=0, help="simulator runs per case (0: none)")
    ap.add_argument("--suite", help="only this folder")
    ap.add_argument("--cases", action="store_true", help="one line per case as well")
    a = ap.parse_args(argv)
    table: Counter = Counter()
    for case in cases():
        if a.suite and case.suite != a.suite:
            continue
        runs = _runs(case, a.runs) if a.runs and not case.pending else Counter()
        for target in targets_of(case):
            if case.pending:
                cell = "pending"
            else:
                code, got, _ = check(_cli, case, target)
                cell = "rejected" if code == 1 else "accepted" if code == 0 else f"exit {code}"
            kind = "buggy" if case.buggy else "correct"
            table[(case.suite, target, kind, cell)] += 1
            if runs and cell == "accepted" and kind == "buggy" and runs["ok"] < a.runs:
                table[(case.suite, target, kind, "accepted, fails on the simulator")] += 1
            if a.cases:
                shown = " ".join(f"{k}={v}" for k, v in sorted(runs.items()))
                print(f"{case.name:48} {target:6} {case.verdict:8} {cell:9} {shown}")
    print(f"{'suite':10} {'target':6} {'suite says':10} {'syncc':34} cases")
    for (suite, target, kind, cell), n in sorted(table.items()):
        print(f"{suite:10} {target:6} {kind:10} {cell:34} {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
