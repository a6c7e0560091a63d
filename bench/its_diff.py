"""Differential check of independent thread scheduling: the same programs on a GPU and on the
simulator's `--its` mode, outcome by outcome.

    python bench/its_diff.py run --target gpu  --out gpu.jsonl     # on a machine with a GPU
    python bench/its_diff.py run --target its  --out its.jsonl     # anywhere
    python bench/its_diff.py table gpu.jsonl its.jsonl             # the table (markdown)

The programs: the examples, the GPU stress programs (small sizes, the same on both), the
hazard corpus's clean programs (tests/hazards/clean) and its buggy ones that have a host block
and are not for Fermi only (tests/hazards: many cannot finish), and the warp-split spins of
bench/its (seed 003's Listing 3.3 and its neighbours). Every program runs with
`--unsafe-skip-hazard-checks`, so that what the analyses reject runs too. An outcome is
`finishes` (exit 0), `wrong` (the host block's check failed, E0901), `cannot finish` (the GPU
watchdog or the simulator's deadlock, livelock or budget verdict: exit 3), or `error` (anything
else). Printed lines are compared too, where both finished. On the GPU, programs run `--jobs`
at a time; one that did not finish runs again alone, so that a neighbour's hang cannot make it
miss the watchdog.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SMALL = {   # the same sizes on both machines: small enough for the simulator
    "tests/gpu/mutex_stress.sync": ["BLOCKS=8", "THREADS=32", "ITER=2"],
    "tests/gpu/channel_stress.sync": ["BLOCKS=4", "THREADS=64", "ROUNDS=1"],
    "tests/gpu/barrier_stress.sync": ["BLOCKS=8", "THREADS=64", "ROUNDS=2", "NR=2"],
    "tests/gpu/semaphore_stress.sync": ["BLOCKS=8", "THREADS=32", "ITER=2"],
    "examples/wavefront_tiled.sync": ["TILE=7", "TILES=3"],
}
FOLDERS = ("examples", "tests/gpu", "tests/hazards/clean", "tests/hazards", "bench/its")
ARGS = re.compile(r"^\s*//\s*syncc-args:(.*)$", re.MULTILINE)


def programs() -> list[str]:
    """Every program of FOLDERS that has a host block (of tests/hazards, those not for Fermi only)."""
    found = []
    for folder in FOLDERS:
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            path = f"{folder}/{name}"
            if not name.endswith(".sync"):
                continue
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                text = f.read()
            if "\nhost" not in "\n" + text:
                continue
            if folder == "tests/hazards" and "fermi" in " ".join(m.group(1) for m in ARGS.finditer(text)):
                continue                        # a hazard of Fermi's stack, which ITS does not have
            found.append(path)
    return found


def run_one(path: str, target: str, timeout: float, watchdog: float = 10) -> dict:
    defines = [x for d in SMALL.get(path, []) for x in ("-D", d)]
    extra = ["--target", "gpu", "--timeout", str(watchdog)] if target == "gpu" \
        else ["--its", "--max-cycles", "20000000"]
    start = time.time()
    try:
        p = subprocess.run([sys.executable, "-m", "syncc", "run", path, *defines, *extra,
                            "--unsafe-skip-hazard-checks"], cwd=ROOT,
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
    r.add_argument("--jobs", type=int, default=1, help="programs at a time")
    r.add_argument("--watchdog", type=float, default=10, help="GPU: seconds before a launch counts as hung")
    r.add_argument("programs", nargs="*", help="only these (default: every program of the folders)")
    t = sub.add_parser("table")
    t.add_argument("files", nargs="+")
    args = ap.parse_args()
    if args.cmd == "table":
        table(args.files)
        return
    paths = args.programs or programs()
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(lambda path: run_one(path, args.target, args.timeout, args.watchdog), paths))
    for i, r in enumerate(results):
        if args.target == "gpu" and args.jobs > 1 and r["outcome"] != "finishes":
            results[i] = r = run_one(r["program"], args.target, args.timeout, args.watchdog)   # alone this time
        print(f"{r['program']}: {r['outcome']} ({r['seconds']} s)", file=sys.stderr)
    with open(args.out, "w") as out:
        for r in results:
            out.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
