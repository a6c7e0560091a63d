"""The guarantee at launch shapes known only at run time: every program a batch accepted, run again
with each of its launches given a grid the host block computes, so that the compile-time analyses
never see it and runtime/launch_check.py must judge it when the launch is made.

    python -m tests.oracle.launch_shapes --batch results/oracle --grids 1,3,64,200 --out results/ls

For each program of the batch whose verdict on a target is `accepted-ok`, and each grid G, the
host block gets `let oracle_grid = G` and every `launch` a `grid(oracle_grid)`; the program runs on
the simulator for that target (Fermi's SIMT stack for `fermi`, `--its` for `ptx`). What may
happen: the launch is refused by the checks for its shape (`refused`, or `launch-refused` where
the launcher itself cannot make it), the kernel runs and the host's checks pass (`ok`) or fail
(`other-result`: the generated checks expect the declared grid, so that is not judged), or a
run-time bounds check stops it (`stopped`, the promise kept). What must not: a hang, an access
outside every allocation, an internal error or a timeout, which the summary counts as soundness
findings and writes into OUT/findings.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .judge import FAULT_CODES, HANG_CODES, STOP_CODES, WRONG_CODES

FINDINGS = ("hang", "fault", "internal", "timeout")
_LAUNCH = re.compile(r"^(\s*)launch (\w+)\(")
_HOST = re.compile(r"^host\b.*\{\s*$")


def with_runtime_grid(text: str, grid: int) -> str:
    """The program with its host block computing `grid` and every launch taking it."""
    out, in_host = [], False
    for line in text.splitlines():
        if _HOST.match(line):
            in_host = True
            out += [line, f"    let oracle_grid = {grid}"]
            continue
        m = _LAUNCH.match(line) if in_host else None
        if m is not None:
            end = _closing(line, m.end() - 1)
            shape = re.sub(r"grid\([^)]*\)", "", line[end + 1:]).strip()
            line = f"{line[:end + 1]} grid(oracle_grid) {shape}".rstrip()
        out.append(line)
    return "\n".join(out) + "\n"


def _closing(line: str, start: int) -> int:
    """The index of the `)` that closes the `(` at `start`."""
    depth = 0
    for i in range(start, len(line)):
        depth += {"(": 1, ")": -1}.get(line[i], 0)
        if depth == 0:
            return i
    raise ValueError(f"unbalanced launch: {line}")


def classify(code: int, stderr: str) -> str:
    if code == 0:
        return "ok"
    if code == 101:
        return "internal"
    codes = set()
    for line in stderr.splitlines():
        if line.startswith("{"):
            try:
                codes.add(json.loads(line).get("code"))
            except json.JSONDecodeError:
                pass
    if codes & HANG_CODES:
        return "hang"
    if codes & FAULT_CODES:
        return "fault"
    if codes & STOP_CODES:
        return "stopped"
    if "given at run time" in stderr:
        return "refused"
    if "E0903" in codes:
        return "launch-refused"
    if codes & WRONG_CODES:
        return "other-result"
    return "other:" + ",".join(sorted(c for c in codes if c))


def run_one(path: Path, target: str, max_cycles: int, timeout: float) -> tuple[str, str]:
    command = [sys.executable, "-m", "syncc", "run", str(path), "--target", "fermi-sim", "--error-format", "json",
               "--max-cycles", str(max_cycles)] + (["--its"] if target == "ptx" else [])
    try:
        p = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", " ".join(command)
    return classify(p.returncode, p.stderr), " ".join(command)


def accepted_programs(batch: Path) -> dict[str, set[str]]:
    """An oracle batch's programs judged accepted-ok, each with the targets it was accepted on."""
    accepted: dict[str, set[str]] = {}
    for line in (batch / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["verdict"] == "accepted-ok":
            accepted.setdefault(r["program"], set()).add(r["target"])
    return accepted


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", required=True, help="an oracle run's --out (its programs/ and results.jsonl)")
    ap.add_argument("--grids", default="1,3,64,200")
    ap.add_argument("--targets", default="fermi,ptx")
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--max-cycles", type=int, default=4_000_000)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--limit", type=int, default=0, help="at most this many programs (0: all)")
    args = ap.parse_args(argv)
    batch, out = Path(args.batch), Path(args.out)
    (out / "programs").mkdir(parents=True, exist_ok=True)
    accepted = accepted_programs(batch)
    names = sorted(accepted)[: args.limit or None]
    work = []
    for name in names:
        text = (batch / "programs" / f"{name}.sync").read_text()
        for grid in (int(g) for g in args.grids.split(",")):
            path = out / "programs" / f"{name}_g{grid}.sync"
            path.write_text(with_runtime_grid(text, grid))
            work += [(name, grid, target, path) for target in args.targets.split(",") if target in accepted[name]]
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda w: (w, run_one(w[3], w[2], args.max_cycles, args.timeout)), work))
    counts: dict[str, dict[str, int]] = {}
    findings = []
    with open(out / "results.jsonl", "w") as f:
        for (name, grid, target, path), (verdict, command) in results:
            counts.setdefault(target, {}).setdefault(verdict, 0)
            counts[target][verdict] += 1
            f.write(json.dumps({"program": name, "grid": grid, "target": target, "verdict": verdict,
                                "command": command}) + "\n")
            if verdict in FINDINGS:
                findings.append((name, grid, target, verdict, command))
    summary = {"programs": len(names), "runs": len(results), "counts": counts,
               "findings": [dict(zip(("program", "grid", "target", "verdict", "command"), f)) for f in findings]}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    for target, c in sorted(counts.items()):
        print(target, " ".join(f"{k} {v}" for k, v in sorted(c.items())))
    print(f"{len(names)} programs, {len(results)} runs, {len(findings)} soundness findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
