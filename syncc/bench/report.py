"""Where results go and how they look: a terminal table, a CSV per table, a PNG per plot.

The results folder is `results/<device>-<date>` (for example `results/fermi-sim-2026-11-22`,
`results/nvidia-h100-80gb-hbm3-2026-11-22`). Plots need matplotlib (`pip install
'syncc[bench]'`); without it the tables and CSVs are still written and the run says so.
"""
from __future__ import annotations

import csv
import re
import time
from pathlib import Path

from .core import Plot, Table


def results_folder(base: Path, device: str) -> Path:
    slug = re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-")
    return base / f"{slug}-{time.strftime('%Y-%m-%d')}"


def cell(v) -> str:
    if isinstance(v, float):
        if v != v:                                  # NaN: not measured
            return "—"
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        return f"{v:.2f}" if abs(v) < 10 else f"{v:.1f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def render(table: Table) -> str:
    cells = [[cell(v) for v in row] for row in table.rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(table.columns)]
    numeric = [all(isinstance(r[i], (int, float)) for r in table.rows) for i in range(len(table.columns))]

    def line(values):
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)).rstrip()

    out = [f"## {table.title}", line(table.columns), line(["-" * w for w in widths])]
    out += [line(r) for r in cells]
    out += [f"   {n}" for n in table.notes]
    return "\n".join(out)


def write_csv(table: Table, folder: Path) -> Path:
    path = folder / f"{table.name}.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(table.columns)
        for row in table.rows:
            w.writerow([f"{v:.6g}" if isinstance(v, float) else v for v in row])
    return path


def write_png(plot: Plot, folder: Path) -> Path | None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=110)
    for label, points in plot.series.items():
        xs, ys = zip(*points) if points else ((), ())
        ax.plot(xs, ys, marker="o", label=label)
    ax.set(title=plot.title, xlabel=plot.xlabel, ylabel=plot.ylabel)
    if plot.logx:
        ax.set_xscale("log", base=2)
    if plot.logy:
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = folder / f"{plot.name}.png"
    fig.savefig(path)
    plt.close(fig)
    return path
