"""The sequential reference: expressions written once and read two ways.

Every index, guard and value a generated program computes is written as a string in the
common subset of the .sync language and Python (integers, `+ - * % ^`, comparisons,
`min`/`max`, subscripts, and `&&`/`||`, which `py` turns into `and`/`or`). The generator puts
the string into the program as it is, and evaluates it here, thread by thread, with the
built-in values of that thread. The expected results therefore come from the language's
semantics as the docs state them, not from anything syncc computes. Values are kept
non-negative, where `%` means the same in both languages.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

WARP = 32


@dataclass(frozen=True)
class Thread:
    """One GPU thread of a launch: the built-in values a kernel can read (docs/language.md §8)."""
    bid: int
    tid: int
    ntid: int
    nbid: int

    @property
    def lane(self) -> int:
        return self.tid % WARP

    @property
    def warp(self) -> int:
        return self.tid // WARP

    @property
    def gtid(self) -> int:
        return self.bid * self.ntid + self.tid

    @property
    def nwarps(self) -> int:
        return (self.ntid + WARP - 1) // WARP

    def env(self, **more) -> dict:
        return {"bid": self.bid, "tid": self.tid, "ntid": self.ntid, "nbid": self.nbid, "lane": self.lane,
                "warp": self.warp, "gtid": self.gtid, "nwarps": self.nwarps, **more}


def threads(grid: int, block: int) -> Iterator[Thread]:
    """Every thread of a one-dimensional launch, block by block."""
    for b in range(grid):
        for t in range(block):
            yield Thread(b, t, block, grid)


_LOGIC = (("&&", " and "), ("||", " or "))


def py(expr: str) -> str:
    """The Python spelling of an expression of the common subset."""
    for op, word in _LOGIC:
        expr = expr.replace(op, word)
    if re.search(r"(?<![=!<>])!(?!=)", expr):
        raise ValueError(f"`!` is not in the common subset: {expr}")
    return expr


def evaluate(expr: str, env: dict):
    """The value of `expr` for one thread (or one host loop index), by Python's rules."""
    return eval(py(expr), {"__builtins__": {}, "min": min, "max": max}, env)
