"""What syncc/core/prebuilt_methods.py buys: a process's time with the prebuilt dataclass methods
and without them (every class then made by plain `dataclasses.dataclass`), side by side.

    python bench/prebuilt.py [--runs 15] [--no-pyc]

Each measurement is a fresh `python` process, timed from outside, interpreter start included:
its CPU time (user + system, which other jobs on the machine disturb less) and its wall clock.
The two variants alternate, and the table gives each one's medians and the difference. "without" replaces prebuilt_methods by an empty table before syncc is imported, so
the decorator falls back to `dataclasses.dataclass` for every class, as it does for a class whose
methods are stale.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# as an installed syncc runs: from .pyc files (without them every process compiles the 3,600
# lines of prebuilt_methods.py, which costs more than the methods save)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
WITHOUT = ("import sys, types; m = types.ModuleType('syncc.core.prebuilt_methods'); m.METHODS = {}; "
           "sys.modules['syncc.core.prebuilt_methods'] = m; ")
WITH = "import sys, types; "
CLI = "from syncc.cli import main; sys.argv = ['syncc', {args}]; main()"
WORKLOADS = {
    "import syncc.cli": "import syncc.cli",
    "syncc check examples/wavefront.sync": CLI.format(args="'check', 'examples/wavefront.sync'"),
    "syncc build examples/wavefront.sync --target fermi-sass":
        CLI.format(args="'build', 'examples/wavefront.sync', '--target', 'fermi-sass', '-o', '/dev/null'"),
}


def once(code: str) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one process running `code`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=ENV, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--no-pyc", action="store_true", help="read and write no .pyc (every module compiled)")
    args = ap.parse_args()
    runs = args.runs
    if args.no_pyc:
        ENV.update(PYTHONDONTWRITEBYTECODE="1", PYTHONPYCACHEPREFIX=tempfile.mkdtemp())
    for code in (WITH, WITHOUT):             # write the .pyc files, warm the disk cache
        for work in WORKLOADS.values():
            once(code + work)
    print(f"median of {runs} processes each, alternating; ms")
    print("| workload | CPU with | CPU without | saved | wall with | wall without | saved |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, work in WORKLOADS.items():
        t = {"with": [], "without": []}
        for _ in range(runs):
            t["with"].append(once(WITH + work))
            t["without"].append(once(WITHOUT + work))
        cpu = [statistics.median(x[0] for x in t[k]) * 1e3 for k in ("with", "without")]
        wall = [statistics.median(x[1] for x in t[k]) * 1e3 for k in ("with", "without")]
        print(f"| {name} | {cpu[0]:.0f} | {cpu[1]:.0f} | {cpu[1] - cpu[0]:.0f} "
              f"| {wall[0]:.0f} | {wall[1]:.0f} | {wall[1] - wall[0]:.0f} |")


if __name__ == "__main__":
    main()
