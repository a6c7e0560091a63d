"""A witness for every fence: per example, the orderings the compiler inserted for fermi-sim, how
many have a run that goes wrong without them, and how many runs that took.

    python bench/witness.py [--runs 20] [--its] [--json OUT] [FILE ...]

Each example is what `syncc explain --witness` does (syncc/witness.py), at the sizes below (the
simulator runs every seed of every ordering). Prints a markdown table and, with --json, every
witness.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from syncc.driver import parse_define
from syncc.witness import find_witnesses

SIZES = {        # small enough that 20 runs of every ordering take minutes, not hours
    "examples/counter.sync": ["BLOCKS=2"],
    "examples/primitives.sync": ["BLOCKS=4", "ITERS=2"],
    "examples/hashtable.sync": ["BLOCKS=2"],
    "examples/wavefront_tiled.sync": ["TILE=7", "TILES=2"],
}


def examples() -> list[str]:
    return sorted(f"examples/{n}" for n in os.listdir(os.path.join(ROOT, "examples")) if n.endswith(".sync"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--its", action="store_true", help="the simulator's independent thread scheduling")
    ap.add_argument("--json")
    args = ap.parse_args()
    rows, dump = [], []
    for path in args.files or examples():
        defines = dict(parse_define(d) for d in SIZES.get(path, []))
        defines = {k: (v, f"{k}={v}") for k, v in defines.items()}
        start = time.time()
        report = find_witnesses(os.path.join(ROOT, path), defines, args.its, args.runs)
        seconds = time.time() - start
        ws = report.witnesses
        fences = [w for w in ws if w.topic == "fence"]
        syncwarps = [w for w in ws if w.topic == "syncwarp"]
        needed = sorted(w.tried for w in ws if w.found)
        rows.append((path, len(fences), sum(w.found for w in fences), len(syncwarps),
                     sum(w.found for w in syncwarps), needed, report.note, seconds))
        print(f"{path}: {sum(w.found for w in ws)} of {len(ws)} ({seconds:.0f} s)", file=sys.stderr)
        dump.append({"program": path, "defines": SIZES.get(path, []), "note": report.note, "witnesses": [
            {"kernel": w.kernel, "topic": w.topic, "line": w.line, "col": w.col, "what": w.what, "tried": w.tried,
             "seed": w.seed, "problem": w.run.problem if w.run else None, "excerpt": w.run.excerpt if w.run else [],
             "note": w.note} for w in ws]})
    mode = "fermi-sim --its" if args.its else "fermi-sim"
    print(f"| example ({mode}, up to {args.runs} runs each) | fences inserted | with a witness | "
          "__syncwarps inserted | with a witness | runs needed (each witness) | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for path, nf, wf, ns, wsn, needed, note, seconds in rows:
        shown = ", ".join(map(str, needed)) if needed else "—"
        if note:
            shown = note
        print(f"| {path} | {nf} | {wf} | {ns} | {wsn} | {shown} | {seconds:.0f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dump, f, indent=1)


if __name__ == "__main__":
    main()
