"""The confusion matrix of each external suite, per target (tests/external/README.md):

    python -m tests.external.matrix                 # syncc check of every case
    python -m tests.external.matrix --runs 20       # and each case's outcome under 20 schedules
    python -m tests.external.matrix --pin           # rewrite each case's `// expect:` lines to syncc's verdict

A case is buggy when its suite says so (race, assert, nonterm) and rejected when syncc reports an
error for that target. With --runs, each case also runs on the simulator as written (its hazard
checks skipped; seeds 1..N of the adversarial policy on weak memory; for the ptx column with
independent thread scheduling, as on the GPUs ptx is for), so that an accepted buggy case that
fails, and a rejected one that never does, are counted (the cases that pin `// sim:`: the others
are too large to simulate).
"""
from __future__ import annotations

import argparse
import re
from collections import Counter

from ..helpers import syncc as run_syncc
from .harness import TARGETS, Case, cases, check, extra_args, outcome, read_case, sim_args, targets_of



def _cli(*args: str) -> tuple[int, str, str]:
    r = run_syncc(*args)
    return r.code, r.out, r.err


def _fenced(case: Case, target: str) -> bool:
    """Did syncc insert orderings for the case's hand-written synchronization (`explain`)?"""
    _, out, _ = _cli("explain", str(case.path), "--target", TARGETS[target], *extra_args(case.path.read_text()))
    return "hand-written synchronization" in out


def _runs(case: Case, n: int, target: str) -> Counter:
    seen = Counter()
    for seed in range(1, n + 1):
        code, _, err = _cli(*sim_args(case, seed, target=target))
        seen[outcome(code, err)] += 1
    return seen


def pin(case: Case) -> None:
    """Put `// expect:` (or `// expect-ptx:`, `// expect-fermi:`) at each line syncc reports on."""
    found: dict[int, dict[str, list[str]]] = {}
    for target in targets_of(case):
        _, got, _ = check(_cli, case, target)
        for line, code in got:
            found.setdefault(line, {}).setdefault(target, []).append(code)
    lines = [re.sub(r"\s*//\s*expect(-ptx|-fermi)?:.*$", "", x) for x in case.path.read_text().splitlines()]
    every = targets_of(case)
    for n, by_target in found.items():
        codes = {t: ", ".join(sorted(set(c))) for t, c in by_target.items()}
        if len(every) > 1 and len(codes) == len(every) and len(set(codes.values())) == 1:
            marks = [f"// expect: {next(iter(codes.values()))}"]
        elif len(every) == 1:
            marks = [f"// expect: {codes[every[0]]}"]
        else:
            marks = [f"// expect-{t}: {c}" for t, c in sorted(codes.items())]
        lines[n - 1] = f"{lines[n - 1]}   {' '.join(marks)}"
    case.path.write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=0, help="simulator runs per case (0: none)")
    ap.add_argument("--suite", help="only this folder")
    ap.add_argument("--cases", action="store_true", help="one line per case as well")
    ap.add_argument("--pin", action="store_true", help="rewrite the `// expect:` lines to what syncc reports now")
    a = ap.parse_args(argv)
    table: Counter = Counter()
    for case in cases():
        if a.suite and case.suite != a.suite:
            continue
        if a.pin and not case.pending:
            pin(case)
            case = read_case(case.path)
        for target in targets_of(case):
            runs = _runs(case, a.runs, target) if a.runs and case.sim and not case.pending else Counter()
            if case.pending:
                cell = "pending"
            else:
                code, got, _ = check(_cli, case, target)
                cell = "rejected" if code == 1 else "accepted" if code == 0 else f"exit {code}"
                if cell == "accepted" and _fenced(case, target):
                    cell = "accepted, orderings inserted"
            kind = "buggy" if case.buggy else "correct"
            table[(case.suite, target, kind, cell)] += 1
            if runs and cell.startswith("accepted") and kind == "buggy" and runs["ok"] < a.runs:
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
