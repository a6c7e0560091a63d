"""The guarantee over declared configurations: every program a batch accepted, its kernels made to
declare a range of grids, checked over that range, and run at grids across it.

    python -m tests.oracle.declared --batch results/oracle --ranges 5,70 --out results/decl

For each program of the batch whose verdict on a target is `accepted-ok` and each range end H,
every kernel header's `grid(...)` becomes `grid(1 .. H)` (language.md §8) and every `launch` takes
a grid its host block computes. `syncc check` judges the declaration for the target: a range of at
most 16 grids value by value, a larger one at the picks of docs/targets.md ("Configurations a
kernel declares"). A declaration it rejects is `declared-rejected` (a grid in the range has a
hazard, or the kernel's generated checks need its own grid: not judged). A declaration it accepts
is run on the simulator at grids across the range: both ends, their neighbours and points drawn
between. At run time the launch checks judge each grid again (runtime/launch_check.py), so:

- `refused` at a grid inside an accepted range is a **premise** finding: the covering set missed a
  hazard the grid's own check sees (what the built code, launched by others, would not survive);
- a hang, a fault, an internal error or a timeout is a soundness finding, as in launch_shapes.py;
- `ok`, `other-result` (the generated checks expect the declared grid) and `stopped` are fine.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .launch_shapes import accepted_programs, run_one, with_runtime_grid

FINDINGS = ("premise", "hang", "fault", "internal", "timeout")
_HEADER_GRID = re.compile(r"\bgrid\(([^()]*)\)")
_KERNEL = re.compile(r"^kernel\s")


def with_declared_grid(text: str, hi: int) -> str:
    """The program with each kernel header's grid (or, where it has none, its `launch` line) a range
    1 .. hi; the host block's launches are left to with_runtime_grid."""
    out, in_header = [], False
    for line in text.splitlines():
        if _KERNEL.match(line):
            in_header = True
        if in_header:
            if _HEADER_GRID.search(line):
                line = _HEADER_GRID.sub(f"grid(1 .. {hi})", line, count=1)
            elif re.search(r"\blaunch\b", line) and "block(" in line:
                line = line.replace("launch ", f"launch grid(1 .. {hi}) ", 1)
            if "{" in line:
                in_header = False
        out.append(line)
    return "\n".join(out) + "\n"


def grids_to_run(hi: int, rng: random.Random, draws: int = 2) -> list[int]:
    """Both ends of 1 .. hi, their neighbours, and points drawn between."""
    picks = {1, 2, hi - 2, hi - 1} | {rng.randrange(1, hi) for _ in range(draws)}
    return sorted(g for g in picks if 1 <= g < hi)


def check(path: Path, target: str, timeout: float) -> tuple[str, list[str]]:
    command = [sys.executable, "-m", "syncc", "check", str(path), "--target",
               "ptx" if target == "ptx" else "fermi-sim", "--error-format", "json"]
    try:
        p = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", []
    codes = []
    for line in p.stderr.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            if record.get("severity") == "error":
                codes.append(record.get("code"))
    if p.returncode == 101:
        return "internal", codes
    return ("accepted" if p.returncode == 0 else "declared-rejected"), codes


def judge(name: str, text: str, hi: int, target: str, out: Path, args, seed: int) -> list[dict]:
    """The declared program's check for the target, then its runs at grids across the range."""
    declared = with_declared_grid(text, hi)
    stem = f"{name}_r{hi}_{target}"
    probe = out / "programs" / f"{stem}.sync"
    probe.write_text(with_runtime_grid(declared, 1))
    verdict, codes = check(probe, target, args.timeout)
    rows = [{"program": name, "range": hi, "target": target, "grid": None, "verdict": verdict, "codes": codes}]
    if verdict != "accepted":
        return rows
    for grid in grids_to_run(hi, random.Random(seed)):
        path = out / "programs" / f"{stem}_g{grid}.sync"
        path.write_text(with_runtime_grid(declared, grid))
        run_verdict, command = run_one(path, target, args.max_cycles, args.timeout)
        rows.append({"program": name, "range": hi, "target": target, "grid": grid,
                     "verdict": "premise" if run_verdict == "refused" else run_verdict, "command": command})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", required=True, help="an oracle run's --out (its programs/ and results.jsonl)")
    ap.add_argument("--ranges", default="5,70", help="the ends H of the declared ranges 1 .. H")
    ap.add_argument("--targets", default="fermi,ptx")
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--max-cycles", type=int, default=4_000_000)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--limit", type=int, default=0, help="at most this many programs (0: all)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    batch, out = Path(args.batch), Path(args.out)
    (out / "programs").mkdir(parents=True, exist_ok=True)
    accepted = accepted_programs(batch)
    names = sorted(accepted)[: args.limit or None]
    work = [(name, hi, target) for name in names for hi in (int(h) for h in args.ranges.split(","))
            for target in args.targets.split(",") if target in accepted[name]]

    def one(w):
        name, hi, target = w
        text = (batch / "programs" / f"{name}.sync").read_text()
        return judge(name, text, hi, target, out, args, args.seed * 7919 + zlib.crc32(f"{name} {hi} {target}".encode()))

    with ThreadPoolExecutor(args.jobs) as pool:
        rows = [row for rs in pool.map(one, work) for row in rs]
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        counts.setdefault(row["target"], {}).setdefault(row["verdict"], 0)
        counts[row["target"]][row["verdict"]] += 1
    findings = [row for row in rows if row["verdict"] in FINDINGS]
    with open(out / "results.jsonl", "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    declarations = sum(row["grid"] is None for row in rows)
    summary = {"programs": len(names), "declarations": declarations, "runs": len(rows) - declarations,
               "counts": counts, "findings": findings}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    for target, c in sorted(counts.items()):
        print(target, " ".join(f"{k} {v}" for k, v in sorted(c.items())))
    print(f"{len(names)} programs, {declarations} declarations, {len(rows) - declarations} runs, "
          f"{len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
