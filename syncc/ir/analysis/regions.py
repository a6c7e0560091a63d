"""Cutting a stretch of code out of its blocks, for passes that move it into a loop.

    pre, entry, exit_, after, first, last = isolate(b, (label, i), (end_label, j))

splits the blocks so that the instructions strictly between instruction i of
`label` and instruction j of `end_label` (which must form a single-entry,
single-exit stretch: see encloses()) run from block `entry` to block `exit_`.
`first` and `last` are the two bounding instructions, taken out; `pre` is
`label` holding what came before `first`; `after` holds what followed `last`
and `end_label`'s old terminator. `pre` and `exit_` are left open (no
terminator) for the caller to wire up. With j == -1 the stretch is empty.
"""
from __future__ import annotations

from ..builder import KernelBuilder
from .cfg import CFG
from ..nodes import Instr


def encloses(cfg: CFG, start: str, start_index: int, end: str, end_index: int) -> bool:
    """Do the instructions from (start, start_index) to (end, end_index) form a single-entry,
    single-exit stretch: the end reached on every path, nothing entering in between?"""
    if start == end:
        return end_index > start_index
    if not (cfg.dominates(start, end) and cfg.post_dominates(end, start)):
        return False
    inside, todo = set(), list(cfg.succs[start])
    while todo:
        label = todo.pop()
        if label == end or label in inside:
            continue
        if label == start:
            return False       # the stretch would loop back to its own start
        inside.add(label)
        todo.extend(cfg.succs[label])
    return all(p in inside or p == start for label in inside | {end} for p in cfg.preds[label])


def isolate(b: KernelBuilder, start: tuple[str, int], end: tuple[str, int] | None, hint: str = "region"):
    label, i = start
    code, term = b.code[label], b.terms[label]
    first = code[i]
    entry = b.new_block(hint, after=label)
    b.code[entry], b.terms[entry] = code[i + 1:], term
    b.code[label], b.terms[label] = code[:i], None
    if end is None:
        end_label, j = entry, -1
    else:
        end_label, j = end
        if end_label == label:
            end_label, j = entry, j - (i + 1)
    end_code, end_term = b.code[end_label], b.terms[end_label]
    last: Instr | None = end_code[j] if j >= 0 else None
    after = b.new_block(f"{hint}.after", after=end_label)
    b.code[after], b.terms[after] = end_code[j + 1:], end_term
    b.code[end_label], b.terms[end_label] = end_code[:max(j, 0)], None
    return label, entry, end_label, after, first, last
