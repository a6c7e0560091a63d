"""How many permits each instance of a semaphore operation takes or gives (`wait s(k)`, `post s(k)`).

    amounts(facts, label, ins, upper)   # per instance of block `label` (facts.instances order):
                                        # an int for all of them, a list, or None when unknown

An operation without `(k)` (and every queue operation judged as a semaphore's) takes 1. A k that
the thread and block indices, constants and counted loops decide (analysis/space.py) is known per
instance. Otherwise the value ranges (analysis/ranges.py) bound it: `upper` asks for the most it
can be (what posts can give, what tries can take), else the least (what waits need at least);
an upper bound the ranges leave at the type's limit is unknown (None), the way a count that
depends on data is. A k below 1 stops the kernel at its run-time check (passes/bounds.py) before
the operation acts, so no instance counts as taking or giving fewer than one.
"""
from __future__ import annotations

from ..nodes import Imm, Instr
from .ranges import Ranges

_UNBOUNDED = 0x7FFF_FFFF      # the most an i32 k can be: an upper bound no smaller says nothing


def amounts(facts, label: str, ins: Instr, upper: bool):
    """k per instance of `ins` in block `label`: an int (every instance), a list, or None."""
    k = ins.permits
    if isinstance(k, Imm):
        return max(int(k.value), 1)
    col = facts.value(k, label)
    if col is not None and not col[1]:
        return [max(int(v), 1) for v in col[0]]
    lo, hi = bounds(facts, ins)
    if upper:
        return None if hi >= _UNBOUNDED else max(hi, 1)
    return max(lo, 1)


def bounds(facts, ins: Instr) -> tuple[int, int]:
    """The interval of `ins`'s number of permits where it stands (the launch's shape known)."""
    memo = facts.memo.setdefault("permit_ranges", {})
    if "ranges" not in memo:
        memo["ranges"] = Ranges(facts.k, shape=(facts.shape.grid, facts.shape.block))
    ranges = memo["ranges"]
    got = ranges.range_at(*facts.where[id(ins)], ins.permits)
    return got if got is not None else (1, 1)


def weigh(amount, n: int) -> int:
    """Instance n's k, from what `amounts` returned (not None)."""
    return amount if isinstance(amount, int) else amount[n]
