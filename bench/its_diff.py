"""Differential check of independent thread scheduling: the same programs on a GPU and on the
simulator's `--its` mode, outcome by outcome.

    python bench/its_diff.py run --target gpu  --out gpu.jsonl     # on a machine with a GPU
    python bench/its_diff.py run --target its  --out its.jsonl     # anywhere
    python bench/its_diff.py table gpu.jsonl its.jsonl             # the table (markdown)

The programs: the examples, the GPU stress programs (small sizes, the same on both), and the
hazard corpus's clean programs (tests/hazards/clean). An outcome is `finishes` (exit 0),
`wrong` (the host block's check failed, E0901), `cannot finish` (the GPU watchdog or the
simulator's deadlock, livelock or budget verdict: exit 3), or `error` (anything else). Printed
lines are compared too, where both finished.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SMALL = {   # the same sizes on both machines: small enough for the simulator
    "tests/gpu/mutex_stress.sync": ["BLOCKS=8", "THREADS=32", "ITER=2"],
    "tests/gpu/channel_stress.sync": ["BLOCKS=4", "THREADS=64", "ROUNDS=1"],
    "tests/gpu/barrier_stress.sync": ["BLOCKS=8", "THREADS=64", "ROUNDS=2", "NR=2"],
    "tests/gpu/semaphore_stress.sync": ["BLOCKS=8", "THREADS=32", "ITER=2"],
    "examples/wavefront_tiled.sync": ["TILE=7", "TILES=3"],
}
SKIP = {"tests/gpu/deadlock.sync"}      # a deliberate hang, for the watchdog


def programs() -> list[str]:
    found = []
    for folder in ("examples", "tests/gpu", "tests/hazards/clean"):
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            path = f"{folder}/{name}"
            if name.endswith(".sync") and path not in SKIP:
                found.append(path)
    return found


def run_one(path: str, target: str, timeout: float) -> dict:
    defines = [x for d in SMALL.get(path, []) for x in ("-D", d)]
    extra = ["--target", "gpu", "--timeout", "10"] if target == "gpu" else ["--its", "--max-cycles", "20000000"]
    start = time.time()
    try:
        p = subprocess.run([sys.executable, "-m", "syncc", "run", path, *defines, *extra], cwd=ROOT,
                           capture_output=True, text=True, timeout=timeout, check=False)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = 124, "", "host timeout"
    outcome = {0: "finishes", 3: "cannot finish", 124: "host timeout"}.get(rc, "error")
    if rc == 1 and "E0901" in out + err:
        outcome = "wrong"
    codes = sorted({w.split("[")[1].split("]")[0] for w in (out + err).split() if w.startswith(("error[", "warning["))
                    and "]" in w})
    return {"program": path, "target": target, "rc": rc, "outcome": outcome, "codes": codes,
            "printed": [line for line in out.splitlines() if not line.startswith("fermi-sim")],
            "seconds": round(time.time() - start, 2)}


def table(files: list[str]) -> None:
    rows: dict[str, dict] = {}
    for f in files:
        with open(f) as lines:
            for line in lines:
                r = json.loads(line)
                rows.setdefault(r["program"], {})[r["target"]] = r
    print("| program | H100 | `--its` | same printed results |")
    print("| --- | --- | --- | --- |")
    agree = 0
    for prog, by in rows.items():
        g, i = by.get("gpu"), by.get("its")
        if not g or not i:
            continue
        same = "yes" if g["printed"] == i["printed"] else "no"
        if g["outcome"] != "finishes" or i["outcome"] != "finishes":
            same = "—"
        agree += g["outcome"] == i["outcome"]
        mark = "" if g["outcome"] == i["outcome"] else " **(differs)**"
        print(f"| {prog} | {g['outcome']} {' '.join(g['codes'])} | {i['outcome']} {' '.join(i['codes'])}{mark} | {same} |")
    print(f"\n{agree} of {len(rows)} programs have the same outcome on both.")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--target", choices=["gpu", "its"], required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--timeout", type=float, default=300, help="host seconds per program")
    t = sub.add_parser("table")
    t.add_argument("files", nargs="+")
    args = ap.parse_args()
    if args.cmd == "table":
        table(args.files)
        return
    with open(args.out, "w") as out:
        for path in programs():
            r = run_one(path, args.target, args.timeout)
            print(f"{path}: {r['outcome']} ({r['seconds']} s)", file=sys.stderr)
            out.write(json.dumps(r) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
