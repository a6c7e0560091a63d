"""Nests of locks on one @thread mutex array that structuring takes all-or-nothing: the
shape the structure pass rewrites (passes/structure.py) and the hazard check accepts
(checks/locks.py, E0701), asked the same way by both. Queries only: nothing here changes a
kernel.

    nest = nest_at(k, cfg, label, index)     # the nest whose outermost lock is that instruction
    nest = nest_of(k, cfg, label, index)     # the nest that takes that lock at one of its levels

A nest is two or more `mutex.lock`s of elements of one @thread mutex array (a `critical` inside a
`critical`, or low-level `lock`s), one after the other in one block, with nothing between two of
them that a round of an all-or-nothing loop could not run again each time it fails: arithmetic,
loads and bounds checks (an inner index computed, or read under the levels before it, and
checked), no store, atomic,
fence, barrier or other primitive operation. Each level is released on every path from the last
lock, before the level around it (innermost first): the body of the innermost section, and
whatever runs between one level's release and the next, lies between the last lock and the
outermost release. Whether its implementation can give a lock back (`can_give_up`) and whether
every thread takes the elements in one order are separate questions: the first is the
registry's, the second the hazard analyses' (checks/order.py).
"""
from __future__ import annotations

from typing import NamedTuple

from ..impls.registry import implementations
from ..nodes import Instr, Kernel
from .cfg import CFG
from .regions import encloses
from .wait_regions import UNPAIRED, release_point


def _rerunnable(ins: Instr) -> bool:
    """May the instruction stand between two levels (it runs again in every round that gets that
    far): arithmetic, special registers, loads and run-time bounds checks (of an inner level's
    index: passes/bounds.py), which change nothing."""
    return ins.info.group in ("arith", "special", "check") or ins.op == "ld"


class Nest(NamedTuple):
    """The locks of one nest, in the block `label`: `locks` their indices there, outermost first
    (what lies between two of them runs before the inner one's attempt); `releases` where each
    level is given back, outermost first."""
    label: str
    locks: tuple[int, ...]
    releases: tuple[tuple[str, int], ...]


def _level(k: Kernel, ins: Instr, name: str | None = None) -> bool:
    """Can the instruction be a level of a nest (of the array `name`, when given)?"""
    if ins.op != "mutex.lock" or ins.attr("party") is not None:
        return False
    prim = k.prim(ins.ref.name)
    return prim is not None and prim.granularity == "thread" and (name is None or ins.ref.name == name)


def nest_at(k: Kernel, cfg: CFG, label: str, index: int) -> Nest | None:
    """The nest whose outermost lock is instruction `index` of block `label`, or None."""
    block = cfg.blocks[label]
    first = block.instrs[index]
    if not _level(k, first):
        return None
    locks = [index]
    for j in range(index + 1, len(block.instrs)):
        ins = block.instrs[j]
        if _level(k, ins, first.ref.name):
            locks.append(j)
        elif not _rerunnable(ins):
            break
    if len(locks) < 2:
        return None
    last = locks[-1]
    releases = []
    for j in locks:
        end = release_point(k, cfg, label, last, block.instrs[j])
        if end is None or end is UNPAIRED or end[1] < 0:
            return None
        releases.append(end)
    # innermost first: each level given back on every path from the last lock, and before the level around it
    for outer, inner in zip(releases, releases[1:]):
        if not (encloses(cfg, label, last, *inner) and encloses(cfg, *inner, *outer)):
            return None
    return Nest(label, tuple(locks), tuple(releases))


def nest_of(k: Kernel, cfg: CFG, label: str, index: int) -> Nest | None:
    """The nest that takes the lock at instruction `index` of block `label` at one of its levels."""
    block = cfg.blocks[label]
    if not _level(k, block.instrs[index]):
        return None
    name = block.instrs[index].ref.name
    start = index
    for j in range(index - 1, -1, -1):
        ins = block.instrs[j]
        if _level(k, ins, name):
            start = j
        elif not _rerunnable(ins):
            break
    nest = nest_at(k, cfg, label, start)
    return nest if nest is not None and index in nest.locks else None


def can_give_up(k: Kernel, name: str) -> bool:
    """Can a thread take the mutex `name` in a single attempt and, having failed, leave nothing
    behind (tas, ttas, backoff, tinylock; not a ticket or queue lock, which queues every thread that
    tries it)?"""
    prim = k.prim(name)
    return implementations("mutex")[prim.impl].abandonable
