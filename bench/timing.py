"""What the benchmark scripts share: interleaved medians, and how results are printed and saved."""
from __future__ import annotations

import csv
import gc
import platform
import statistics
import time
from pathlib import Path

Row = tuple[str, float, str]      # (what, value, unit: "" ms | "baseline" ms | "x" ratio)


def median_ms(fns: dict, runs: int, warmup: int = 30) -> dict[str, float]:
    """Medians of the functions, run interleaved so that the machine's drift hits them alike."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times = {name: [] for name in fns}
    gc.disable()
    try:
        for _ in range(runs):
            for name, fn in fns.items():
                t = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t)
    finally:
        gc.enable()
    return {name: statistics.median(ts) * 1000 for name, ts in times.items()}


def header() -> str:
    return (f"# {platform.node()} · {platform.processor() or platform.machine()} · Python "
            f"{platform.python_version()} · {time.strftime('%Y-%m-%d')}")


def report(rows: list[Row], csv_path: Path | None = None) -> None:
    for name, value, unit in rows:
        shown = f"{value:8.2f} x " if unit == "x" else f"{value:8.2f} ms"
        print(f"{shown}  {name}{'  (baseline)' if unit == 'baseline' else ''}")
    if csv_path:
        with csv_path.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["measure", "value", "unit"])
            for name, value, unit in rows:
                w.writerow([name, f"{value:.4f}", "ratio" if unit == "x" else "ms"])
