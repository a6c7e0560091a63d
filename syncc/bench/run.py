"""Run a suite: each section in turn, its tables printed and saved as soon as it ends."""
from __future__ import annotations

import importlib
import time
from pathlib import Path

from . import SUITES
from .core import BenchError, Context, Plot, Table
from .report import render, results_folder, write_csv, write_png


def repository() -> Path:
    return Path(__file__).resolve().parent.parent.parent


def device_name(suite: str) -> str:
    if suite == "paper":
        return "fermi-sim"
    from ..runtime.gpu import GpuUnavailable, device
    try:
        return device().name
    except GpuUnavailable as e:
        raise BenchError(f"the gpu suite needs a GPU: {e}") from None


def run_suite(suite: str, base: Path, quick: bool = False, only: list[str] | None = None,
              write=print, bounds: str = "on") -> Path:
    """`bounds`: the programs' run-time bounds checks: "on", "off", or "both" (gpu: each checked
    kernel also timed without its checks, and a bounds_cost table of the pairs at the end)."""
    sections = SUITES[suite]
    for name in only or ():
        if name not in sections:
            raise BenchError(f"no section {name!r} in suite {suite!r} (it has: {', '.join(sections)})")
    out = results_folder(base, device_name(suite))
    out.mkdir(parents=True, exist_ok=True)
    ctx = Context(root=repository(), out=out, quick=quick, log=write, bounds=bounds)
    write(f"# syncc bench {suite} · {out.name} · results in {out}")
    if suite == "gpu":
        from .gpu_common import warm_up
        warm_up()
    missing_plots = False
    failed: list[str] = []
    for name in sections:
        if only and name not in only:
            continue
        module = importlib.import_module(f"{__package__}.{name}")
        t = time.perf_counter()
        try:
            results = module.run(ctx)
        except BenchError as e:          # a wrong result or a missing tool: the other sections still run
            write(f"\n## {name}: FAILED: {e}")
            failed.append(name)
            continue
        for r in results:
            if isinstance(r, Table):
                write("")
                write(render(r))
                write_csv(r, out)
            elif isinstance(r, Plot):
                missing_plots |= write_png(r, out) is None
        write(f"   ({name}: {time.perf_counter() - t:.1f} s)")
    if bounds == "both" and suite == "gpu":
        from .gpu_common import bounds_cost
        table = bounds_cost(ctx)
        write("")
        write(render(table))
        write_csv(table, out)
    if missing_plots:
        write("plots skipped: matplotlib is not installed (pip install 'syncc[bench]')")
    if failed:
        raise BenchError(f"{len(failed)} section(s) failed: {', '.join(failed)} (the others' results are in {out})")
    return out
