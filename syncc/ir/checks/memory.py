"""Checks on memory ordering in hand-written synchronization (locks built from atomics, flags,
barriers built from counters). syncc orders its own primitives (insert_fences) and inserts the
orderings hand-written synchronization owes (passes/hand_fences.py, analysis/hand_sync.py); what
it cannot mend is a fence the program writes at too narrow a scope:

    E0709  a `fence cta` where the synchronization it orders is between blocks (a global sync word
           that threads of other blocks access), or the same in a hand-written lock

A hand-written lock or a last-block election without its fences, or with the fence after the
release, is no longer reported (three retired codes): the fences are inserted (docs/diagnostics.md).

"""
from __future__ import annotations

from ...core.diagnostics import Note
from ..context import PassContext
from ..nodes import Branch, Instr, Reg
from ..analysis.blocks_meet import other_block_meets
from ..analysis.facts import Facts
from ..analysis.hand_sync import ACQUIRE, RELEASE, STORE_LOAD, Owed, constant_written, hand_sync, lets_through

CODES = ("E0709",)      # what it reports (tests/ir/test_hazard_checks.py)


def check_memory_order(facts: Facts, ctx: PassContext) -> None:
    told = set()
    for owed in hand_sync(facts).owed():
        if owed.scope == "cta":
            continue
        word = (owed.before if owed.role == RELEASE else owed.cause).ref.name     # the sync word
        fence = _narrow_fence(facts, owed)
        if fence is None or id(fence) in told or not _between_blocks(facts, owed, word):
            continue
        told.add(id(fence))
        ctx.sink.error("E0709", f"`fence cta` orders memory only for this block, but `{word}` is in global memory "
                       "and threads of other blocks synchronize through it", fence.span,
                       notes=[Note(f"the {_WHAT[owed.role]}", owed.cause.span)], help="use `fence gpu`")


_WHAT = {ACQUIRE: "synchronizing read it orders", RELEASE: "access it orders before the synchronizing write",
         STORE_LOAD: "synchronizing store it orders"}


def _narrow_fence(facts: Facts, owed: Owed) -> Instr | None:
    """A `fence cta` the program wrote between the access that owes the ordering and the one it
    is owed before: the fence meant for it (on the one path back, through single predecessors)."""
    label, index = owed.at
    for _ in range(64):
        code = facts.cfg.blocks[label].instrs
        for ins in reversed(code[:index]):
            if ins is owed.cause:
                return None
            if ins.op == "fence":
                return ins if ins.attr("scope") == "cta" else None
        preds = facts.cfg.preds[label]
        if len(preds) != 1:
            return None
        label = preds[0]
        index = len(facts.cfg.blocks[label].instrs)
    return None


def _between_blocks(facts: Facts, owed: Owed, word: str) -> bool:
    """Can a thread of another block touch an element of the sync word this ordering is owed for?
    (analysis/blocks_meet.py: a lock or flag per block, `l[bid]`, is met by no other block.) For a
    release that writes a constant, only the accesses that can take that value count (_takes)."""
    sync = owed.before if owed.role == RELEASE else owed.cause
    value = constant_written(sync) if owed.role == RELEASE else None
    used = _used_registers(facts) if value is not None else frozenset()
    return any(other_block_meets(facts, sync, ins) is not None
               for _, _, ins in facts.k.instructions() if ins.ref is not None and ins.ref.name == word
               and (value is None or _takes(facts, ins, value, used)))


def _takes(facts: Facts, ins: Instr, value, used: frozenset) -> bool:
    """Can the access read `value` and act on it, and so need what was ordered before its write?
    Not a store, nor an atomic whose result nothing uses; nor a poll whose result only decides the
    way out of its loop, where no exit is taken on `value` (hand_sync.lets_through)."""
    if ins.op == "st" or not ins.dests or ins.dests[0].name not in used:
        return False
    loop = facts.loop_of(facts.where[id(ins)][0])
    if loop is None:
        return True
    result = ins.dests[0]
    uses = [t for _, _, t in facts.k.instructions() if result in t.args]
    exits = []
    for inside, _ in loop.exits:
        term = facts.cfg.blocks[inside].term
        if not isinstance(term, Branch) or facts.def_of(term.cond) not in uses:
            return True                 # an exit on something else: whatever was read, it may leave
        exits.append((inside, term.if_true not in loop.blocks))
    return len(uses) != len(exits) or lets_through(facts, exits, ins.ref.name, value)


def _used_registers(facts: Facts) -> frozenset:
    """The registers some instruction or branch reads."""
    if "used registers" not in facts.memo:
        used = {a.name for _, _, ins in facts.k.instructions() for a in ins.args if isinstance(a, Reg)}
        used |= {b.term.cond.name for b in facts.k.blocks if isinstance(getattr(b.term, "cond", None), Reg)}
        facts.memo["used registers"] = frozenset(used)
    return facts.memo["used registers"]
