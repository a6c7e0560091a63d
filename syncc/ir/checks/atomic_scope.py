"""Block-scoped atomics on words that threads of other blocks also touch.

    E0709  an `atomic_*.cta` on an element of a global array that a thread of another block also
           accesses in the same launch (by an atomic, `load_cg`, a load or a store)

An atomic at cta scope (`atomic_add.cta(c[i], 1)`, PTX's `atom.cta`) is atomic, and its value
is promised to be seen, only among the threads of its own block. On a word of global memory
that another block also updates or reads, two blocks' read-modify-writes can lose each other's
updates, and another block's poll need never see it. Which elements meet is decided over the
launch's threads (analysis/blocks_meet.py): `cnt[bid]` with `.cta` is each block's own word, a
launch of one block has no other block, and an index the analysis cannot evaluate is assumed
to meet; an access that a grid barrier's `sync` separates from the atomic (every thread runs
one before the barrier, the other after it) does not meet it, nor one that a hand-written
hand-off orders after it (a flag raised after the atomic that the other's spin can take, directly
or down a chain of hand-offs: races.ordered_by_hand, the race check's order; ScoR's HRD-indirect
relay), whose fences checks/memory.py judges. Shared memory is the block's own, so any scope
fits there; `.gpu` and `.sys` are atomic across blocks. (A `fence cta` in a lock that other
blocks take is checks/memory.py's.) The report is at the atomic, with a note at the other
block's access; an accepted one is listed by `syncc explain` with the reason block scope is
enough.
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ..analysis.blocks_meet import other_block_meets
from ..analysis.facts import Facts
from ..context import PassContext
from .races import ordered_by_hand

CODES = ("E0709",)      # what it reports (tests/ir/test_hazard_checks.py)

_VERB = {"ld": "reads", "st": "writes"}      # (an atomic: updates)


def check_atomic_scope(facts: Facts, ctx: PassContext) -> None:
    k = facts.k
    accesses: dict[str, list] = {}
    for _, _, ins in k.instructions():
        if ins.ref is not None and (ins.op in _VERB or ins.info.group == "atomic"):
            accesses.setdefault(ins.ref.name, []).append(ins)
    syncs = [(b.label, i) for b, i, ins in k.instructions() if ins.op == "prim.sync" and _grid_barrier(k, ins)]
    reported = set()
    for _, _, ins in k.instructions():
        if ins.info.group != "atomic" or ins.attr("scope") != "cta" or ins.span in reported:
            continue
        array = k.array(ins.ref.name)
        if array is None or array.space != "global" or array.kind == "state":
            continue
        ordered = None          # what orders a meeting: a grid barrier, a hand-off
        for other in accesses[ins.ref.name]:
            meeting = other_block_meets(facts, ins, other)
            if meeting is None:
                continue
            if _sync_between(facts, syncs, ins, other) or _sync_between(facts, syncs, other, ins):
                ordered = ordered or "on the other side of a grid barrier's `sync`"
                continue
            if ordered_by_hand(facts, ins, other) or ordered_by_hand(facts, other, ins):
                ordered = ordered or "where a hand-off orders them (a flag raised after one access, polled " \
                    "before the other)"
                continue
            reported.add(ins.span)
            _report(facts, ctx, ins, other, meeting)
            break
        else:
            why = "the launch has one block" if facts.shape.blocks < 2 else \
                f"the other blocks touch its elements only {ordered}" if ordered else \
                "no thread of another block touches the elements it updates"
            ctx.remark(k.name, "scope", f"`{_name(ins)}.cta` on `{ins.ref.name}`: block scope is enough, {why}",
                       ins.span)


def _grid_barrier(k, ins) -> bool:
    prim = k.prim(ins.ref.name) if ins.ref is not None else None
    return prim is not None and prim.kind == "barrier" and prim.granularity == "grid"


def _sync_between(facts: Facts, syncs: list[tuple[str, int]], first, then) -> bool:
    """Does every thread run `first` before a grid barrier's `sync` (one of `syncs`) that every path
    to `then` goes through, and that never leads back to `first`? Then the barrier orders every
    block's `first` before any block's `then`, at gpu scope: per-block words counted at block
    scope and read by another block after the barrier are fine."""
    fl, fi = facts.where[id(first)]
    tl, ti = facts.where[id(then)]
    return any(facts.cfg.dominates(label, tl) and (label != tl or i < ti)
               and not facts.reaches((label, i), (fl, fi)) for label, i in syncs)


def _name(ins) -> str:
    return "atomic_" + ins.op.split(".", 1)[1]


def _report(facts: Facts, ctx: PassContext, ins, other, meeting) -> None:
    name, op = ins.ref.name, _name(ins)
    verb = _VERB.get(other.op, "updates")
    describe = facts.threads.describe
    if meeting.first is None:
        who, whom = "a thread of one block", "a thread of another"
    else:
        who, whom = describe(meeting.first), describe(meeting.second)
    where = f"element {meeting.element} of `{name}`" if meeting.element is not None else \
        f"`{name}` at an index the compiler cannot evaluate (assumed to be the same element)"
    ctx.sink.error("E0709", f"`{op}.cta` is atomic only among the threads of its block, but {who} updates "
                   f"{where} here and {whom} {verb} it too: the blocks can lose each other's updates or "
                   "never see them", ins.span,
                   notes=[Note(f"{whom} {verb} it here", other.span)],
                   help=f"use `{op}` (gpu scope) for a word that several blocks share, or give each block "
                        "its own word (`c[bid]`)")
