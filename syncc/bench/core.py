"""What a benchmark section returns (tables and plots) and what it is given (the context)."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable


class BenchError(Exception):
    """A suite cannot run here (no GPU, no repository checkout, no nvcc): a message, exit 1."""


@dataclass
class Table:
    """Rows of one measurement, written to `<name>.csv` and printed. Ratios are to the baseline
    measured in the same run; `notes` are printed under the table (paper values, crossovers)."""
    name: str
    title: str
    columns: list[str]
    rows: list[list] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class Plot:
    """A trend: one line per series of (x, y) points, written to `<name>.png`."""
    name: str
    title: str
    xlabel: str
    ylabel: str
    series: dict[str, list[tuple[float, float]]]
    logx: bool = False
    logy: bool = False


@dataclass
class Context:
    root: Path                      # the repository: examples/, bench/baselines/
    out: Path                       # the results folder
    quick: bool = False             # fewer sizes and repetitions (the tests use this)
    log: Callable[[str], None] = print
    started: float = field(default_factory=time.perf_counter)
    # syncc's run-time bounds checks in the programs timed: "on" (as compiled by default), "off"
    # (--unsafe-no-bounds-checks), or "both": each syncc kernel that has a check is also timed
    # without its checks, on copies of its arguments, in the same run (gpu_common.timed), and
    # `pairs` collects (program, kernel, grid, median with, median without) for the bounds_cost table
    bounds: str = "on"
    pairs: list = field(default_factory=list)

    def path(self, relative: str) -> Path:
        p = self.root / relative
        if not p.exists():
            raise BenchError(f"{relative} is not here: `syncc bench` runs from a checkout of the "
                             f"syncc repository ({self.root})")
        return p
