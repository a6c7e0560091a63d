"""docs/targets.md says what the code does: its table of default implementations is the
cost model of the implementations' registry (syncc/ir/impls/registry.py), and its fence table
is what the compiler places."""
from __future__ import annotations

import re

import pytest

from helpers import EXAMPLES, ROOT, markdown_table
from syncc.driver import check_file
from syncc.ir.context import PassContext
from syncc.ir.impls.registry import DEFAULTS
from syncc.ir.pipeline import compile_module
from syncc.ir.stats import fence_stats
from syncc.ir.machine_model import TARGETS

DOC = (ROOT / "docs" / "targets.md").read_text()


def table(header: str) -> list[list[str]]:
    return [[cell.strip("`") for cell in row] for row in markdown_table(DOC, header)]


def test_default_implementations_table_is_the_cost_model():
    rows = table("| kind | placement | granularity | ptx | fermi |")
    documented = {(kind, placement, gran.lstrip("@")): (ptx, fermi) for kind, placement, gran, ptx, fermi in rows}
    in_code: dict[tuple, dict[str, str]] = {}
    for (target, kind, placement, gran, named), (impl, where) in DEFAULTS.items():
        if named is None:       # @warp barriers, with and without a count, are language.md's
            # `impl`, or `impl(name=value)` where the target tunes the default's parameters
            tuned = ", ".join(f"{k}={v}" for k, v in where.params)
            in_code.setdefault((kind, placement, gran), {})[target] = impl + (f"({tuned})" if tuned else "")
    assert documented == {key: (by.get("ptx"), by.get("fermi")) for key, by in in_code.items()}


def test_machine_names():
    assert set(TARGETS) == {"ptx", "fermi"}
    assert re.search(r"`fermi-sass`, `fermi-sim` \| \*\*fermi\*\*", DOC)


@pytest.mark.parametrize("row", table("| example | target | naive |"), ids=lambda r: f"{r[0]}-{r[1]}")
def test_fence_table_is_measured(row):
    name, target, naive, before, after, ordered = row
    fences, cta = re.match(r"(\d+) \((\d+)\)", after).groups()
    path = next(p for p in EXAMPLES if p.name == name)
    counts = []
    for minimize in (False, True):
        comp = check_file(str(path))
        ctx = PassContext(TARGETS[target], 2, comp.sink, minimize_fences=minimize)
        counts.append(fence_stats(compile_module(comp.module, ctx)))
    unminimized, minimized = counts
    assert (minimized.naive, unminimized.fences, minimized.fences, minimized.cta_fences, minimized.ordered) == \
        (int(naive), int(before), int(fences), int(cta), int(ordered))
