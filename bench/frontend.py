"""Front-end timings, each beside a baseline measured in the same run.

    python bench/frontend.py [--runs 300] [--process-runs 30] [--csv results.csv] [--against CHECKOUT]

1. parse + check of examples/wavefront.sync in this process (warm), beside
   CPython's compile() of the same program written in Python
   (bench/baselines/wavefront_equivalent.py);
2. `syncc check examples/wavefront.sync` as a whole process, beside a bare
   `python -c pass` and `python -c "import click"`.

With `--against CHECKOUT` (another checkout of syncc, e.g. `git worktree add /tmp/old
b931930`) it also times that checkout's `syncc check` of the same file, run for run
alternating with this one's, and reports the ratio: how much a change costs.

Reports medians and the ratio to each baseline. Absolute times depend on the
machine; the ratios travel better. Tests never assert on these numbers.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import header, median_ms, report  # noqa: E402
SOURCE = ROOT / "examples" / "wavefront.sync"
BASELINE = ROOT / "bench" / "baselines" / "wavefront_equivalent.py"


def in_process(runs: int) -> list[tuple[str, float, str]]:
    sys.path.insert(0, str(ROOT))
    from syncc.driver import check_file

    result = check_file(str(SOURCE))
    assert result.ok, "wavefront.sync must check clean"
    python_source = BASELINE.read_text()
    ms = median_ms({"syncc": lambda: check_file(str(SOURCE)),
                    "python": lambda: compile(python_source, str(BASELINE), "exec")}, runs, warmup=20)
    syncc_ms, python_ms = ms["syncc"], ms["python"]
    return [
        ("parse+check wavefront.sync (in-process)", syncc_ms, ""),
        ("CPython compile() of the same program in Python", python_ms, "baseline"),
        ("ratio syncc / CPython compile", syncc_ms / python_ms, "x"),
    ]


def process_ms(argv: list[str], runs: int) -> float:
    # As installed: with bytecode (pip compiles it at install time; some sandboxes turn it off).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["NO_COLOR"] = "1"
    subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, check=False)   # warm the disk caches
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True)
        times.append(time.perf_counter() - t)
        assert p.returncode == 0, p.stderr
    return statistics.median(times) * 1000


def whole_process(runs: int) -> list[tuple[str, float, str]]:
    py = sys.executable
    syncc_ms = process_ms([py, "-m", "syncc", "check", str(SOURCE.relative_to(ROOT))], runs)
    bare_ms = process_ms([py, "-c", "pass"], runs)
    click_ms = process_ms([py, "-c", "import click"], runs)
    return [
        ("syncc check wavefront.sync (whole process)", syncc_ms, ""),
        ("python -c pass", bare_ms, "baseline"),
        ("python -c 'import click'", click_ms, "baseline"),
        ("ratio syncc check / python -c pass", syncc_ms / bare_ms, "x"),
        ("ratio syncc check / python -c 'import click'", syncc_ms / click_ms, "x"),
    ]


def against(other: Path, runs: int) -> list[tuple[str, float, str]]:
    """This checkout's `syncc check` and another's, alternating run by run (so drift in the
    machine's load hits both alike)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["NO_COLOR"] = "1"
    argv = [sys.executable, "-m", "syncc", "check", str(SOURCE)]
    times: dict[Path, list[float]] = {ROOT: [], other: []}
    for where in (ROOT, other):           # warm the caches (and write bytecode) first
        subprocess.run(argv, cwd=where, env=env, capture_output=True, check=False)
    for _ in range(runs):
        for where in (ROOT, other):
            t = time.perf_counter()
            p = subprocess.run(argv, cwd=where, env=env, capture_output=True)
            times[where].append(time.perf_counter() - t)
            assert p.returncode == 0, (where, p.stderr)
    mine, theirs = (statistics.median(times[w]) * 1000 for w in (ROOT, other))
    return [
        ("syncc check wavefront.sync (whole process), this checkout", mine, ""),
        (f"the same, {other}", theirs, "baseline"),
        ("ratio this / that", mine / theirs, "x"),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=300, help="warm in-process runs (median)")
    ap.add_argument("--process-runs", type=int, default=30, help="whole-process runs (median)")
    ap.add_argument("--csv", type=Path, help="also write the rows to this CSV file")
    ap.add_argument("--against", type=Path, help="another checkout of syncc to time `syncc check` beside")
    args = ap.parse_args()

    rows = in_process(args.runs) + whole_process(args.process_runs)
    if args.against:
        rows += against(args.against.resolve(), args.process_runs)
    print(header())
    report(rows, args.csv)

if __name__ == "__main__":
    main()
