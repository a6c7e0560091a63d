"""Run programs on a GPU and say what each did: the ground truth for the `ptx` target.

    python bench/experiments/corpus_on_gpu.py [--jobs 4] [--timeout 5] [--json OUT] DIR_OR_FILE...
    python bench/experiments/corpus_on_gpu.py --script results/oracle/gpu/run_gpu.sh ...

(With --script, the programs and their -D options are the `run NAME ...` lines of an oracle GPU
batch, tests/oracle/gpu.py: the same verdicts, several programs at a time.)

Each program runs with `syncc run FILE --target gpu --unsafe-skip-hazard-checks` (so that a
program the analyses reject runs too) in a process of its own, under the watchdog. Verdicts:
`ok` (exit 0: every `check` held), `hang` (exit 3, E0904: still running after the timeout),
`wrong` (exit 1 with E0901: a `check` failed), `refused` (the launch was refused, E0903),
`error` (anything else: the first error line is kept). Programs meant only for Fermi
(`// syncc-args: --target fermi-sim`) are skipped. A buggy program of tests/hazards that the
GPU runs correctly is not a false alarm of the analyses: many hazards show only under some
schedules (and the H100 is not Fermi); a correct neighbour that hangs or goes wrong is a bug.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARGS = re.compile(r"^\s*//\s*syncc-args:(.*)$", re.M)
EXPECT = re.compile(r"//\s*expect:\s*([EW]\d{4}(?:\s*,\s*[EW]\d{4})*)")


def programs(paths: list[Path]) -> list[Path]:
    out = []
    for p in paths:
        out += sorted(p.rglob("*.sync")) if p.is_dir() else [p]
    return [p for p in out if "\nhost" in "\n" + p.read_text() and "fermi" not in " ".join(
        m.group(1) for m in ARGS.finditer(p.read_text()))]


def from_script(script: Path) -> list[tuple[Path, list[str]]]:
    """The programs of an oracle GPU batch: its `run NAME [-D ...]` lines."""
    out = []
    for line in script.read_text().splitlines():
        if line.startswith("run ") and not line.startswith("run()"):
            name, *args = line.split()[1:]
            out.append((script.parent / f"{name}.sync", args))
    return out


def run_one(path: Path, timeout: float, extra: list[str] = ()) -> dict:
    cmd = [sys.executable, "-m", "syncc", "run", str(path), "--target", "gpu", "--timeout", str(timeout),
           "--unsafe-skip-hazard-checks", *extra]
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout + 120)
    except subprocess.TimeoutExpired:
        return {"program": str(path), "verdict": "hang", "detail": "the process did not end"}
    err = p.stderr
    if p.returncode == 0:
        verdict = "ok"
    elif p.returncode == 3 or "E0904" in err:
        verdict = "hang"
    elif "E0901" in err:
        verdict = "wrong"
    elif "E0903" in err:
        verdict = "refused"
    else:
        verdict = "error"
    first = next((line for line in err.splitlines() if "error[" in line), "")
    expects = sorted({c for m in EXPECT.finditer(path.read_text()) for c in m.group(1).replace(" ", "").split(",")})
    return {"program": str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path), "verdict": verdict,
            "expects": expects, "detail": first[:300]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", type=Path)
    ap.add_argument("--script", type=Path, help="an oracle batch's run_gpu.sh: run its programs")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    todo = [(p, []) for p in programs([p.resolve() for p in args.paths])]
    if args.script:
        todo += from_script(args.script.resolve())
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda job: run_one(job[0], args.timeout, job[1]), todo))
    counts: dict[str, int] = {}
    for r in results:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        print(f"{r['verdict']:8} {r['program']}  {','.join(r['expects'])}  {r['detail'][:120]}", flush=True)
    print("counts:", json.dumps(counts, sort_keys=True))
    if args.json:
        args.json.write_text(json.dumps({"counts": counts, "results": results}, indent=1))


if __name__ == "__main__":
    main()
