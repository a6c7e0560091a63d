"""Can threads of two different blocks of the launch touch one element through two accesses?

    meeting = other_block_meets(facts, atomic, access)   # None: never in this launch shape

The question the scope checks ask of a word accessed at block scope (an `atomic_add.cta`, a
`fence cta` in a lock): is there an element that an instance of the first access and an
instance of the second touch from different blocks? It is answered over the launch's threads
(facts.py, `instances` and `value`): each access's index per thread and counted-loop round. An
index the analysis cannot evaluate (from data, a merge, a symbolic argument the other side does
not share) is assumed to meet any element: the accesses meet wherever the two run in two
different blocks. Who runs an access is who *may* run it (a guard on data keeps everyone), so
a meeting may be one that a run never makes, and no meeting is certain. In a launch larger
than the analyses list (space.py: over 2^17 threads), the blocks are a sample, first and last
among them, as for the bounds check.
"""
from __future__ import annotations

from typing import NamedTuple

from ..nodes import Instr


class Meeting(NamedTuple):
    element: int | None      # the element both touch; None where an index is not known
    first: int | None        # the threads (rows of facts.threads) of the two accesses, of two
    second: int | None       # blocks; None where the instances are too many to list


def other_block_meets(facts, first: Instr, second: Instr) -> Meeting | None:
    """A meeting of `first` and `second` (possibly the same instruction, run by two blocks) at one
    element from two different blocks, or None where the launch has none."""
    if facts.shape.blocks < 2:
        return None
    la, lb = facts.where[id(first)][0], facts.where[id(second)][0]
    if la not in facts.cfg.reachable or lb not in facts.cfg.reachable:
        return None
    ia, ib = facts.instances(la), facts.instances(lb)
    if ia is None or ib is None:
        return Meeting(None, None, None)              # too many instances to list: assume they meet
    block = facts.threads.columns["block"]
    ca, cb = facts.value(first.ref.index, la), facts.value(second.ref.index, lb)
    if ca is None or cb is None or ca[1] != cb[1]:
        rows: dict[int, int] = {}                     # a block running `first` → one of its threads
        for r in ia.thread:
            rows.setdefault(block[r], r)
            if len(rows) > 1:
                break
        for r in ib.thread:
            other = next((row for b, row in rows.items() if b != block[r]), None)
            if other is not None:
                return Meeting(None, other, r)
        return None
    seen: dict[int, list] = {}       # element → threads of `first` there, of up to two blocks
    for element, r in zip(ca[0], ia.thread):
        got = seen.get(element)
        if got is None:
            seen[element] = [r]
        elif len(got) == 1 and block[got[0]] != block[r]:
            got.append(r)
    for element, r in zip(cb[0], ib.thread):
        other = next((row for row in seen.get(element, ()) if block[row] != block[r]), None)
        if other is not None:
            return Meeting(element, other, r)
    return None
