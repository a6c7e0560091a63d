"""Checks on memory ordering in hand-written synchronization (locks built from atomics, flags,
barriers built from counters). syncc orders its own primitives (insert_fences) and inserts the
orderings hand-written synchronization owes (passes/hand_fences.py, analysis/hand_sync.py); what
it cannot mend is a fence the program writes at too narrow a scope:

    E0709  a `fence cta` where the synchronization it orders is between blocks (a global sync word
           that threads of other blocks access), or the same in a hand-written lock

A hand-written lock or a last-block election without its fences, or with the fence after the
release, is no longer reported (three retired codes): the fences are inserted (docs/diagnostics.md).

A hand-written lock is a spin loop that exits when `atomic_cas(l[i], 0, x)` or
`atomic_exch(l[i], x)` returned 0; its release is the next store or exchange of 0 to the same
word (`_hand_locks`, `_section`: the data-race check reads them).
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ...core.prebuilt import dataclass
from ..context import PassContext
from ..nodes import Instr
from ..analysis.blocks_meet import other_block_meets
from ..analysis.facts import Facts, Loop
from ..analysis.hand_sync import ACQUIRE, RELEASE, STORE_LOAD, HandSync, Owed

CODES = ("E0709",)      # what it reports (tests/ir/test_hazard_checks.py)


@dataclass(frozen=True)
class HandLock:
    acquire: Instr          # the atomic the spin loop exits on
    loop: Loop
    release: Instr
    release_at: tuple[str, int]


def check_memory_order(facts: Facts, ctx: PassContext) -> None:
    told = set()
    for owed in HandSync(facts).owed():
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
    (analysis/blocks_meet.py: a lock or flag per block, `l[bid]`, is met by no other block.)"""
    sync = owed.before if owed.role == RELEASE else owed.cause
    return any(other_block_meets(facts, sync, ins) is not None
               for _, _, ins in facts.k.instructions() if ins.ref is not None and ins.ref.name == word)


# ---- hand-written locks ----------------------------------------------------------------------------

def _hand_locks(facts: Facts) -> list[HandLock]:
    out = []
    for loop in facts.loops:
        for inside, _ in loop.exits:
            term = facts.cfg.blocks[inside].term
            for ins in facts.sources(getattr(term, "cond", None)):
                if ins.op not in ("atom.cas", "atom.exch") or facts.where[id(ins)][0] not in loop.blocks:
                    continue
                release = _release_of(facts, loop, ins)
                if release is not None:
                    out.append(HandLock(ins, loop, *release))
    return out


def _zero(v) -> bool:
    return getattr(v, "value", None) == 0


def _release_of(facts: Facts, loop: Loop, acquire: Instr):
    """The first store or exchange of 0 to the lock word after the loop."""
    ref = acquire.ref
    word = facts.column(ref.index)
    for b, i, ins in facts.k.instructions():
        if b.label in loop.blocks or ins.ref is None or ins.ref.name != ref.name:
            continue
        if not (ins.op == "st" and _zero(ins.args[1]) or ins.op == "atom.exch" and _zero(ins.args[1])):
            continue
        if (ins.ref.index == ref.index or facts.value_key(ins.ref.index) == facts.value_key(ref.index)
                or word is not None and facts.column(ins.ref.index) == word):
            if any(facts.reaches((x, len(facts.cfg.blocks[x].instrs) - 1), (b.label, i)) or x == b.label
                   for x, _ in loop.exits):
                return ins, (b.label, i)
    return None


def _section(facts: Facts, lock: HandLock) -> list[Instr]:
    """The instructions on the paths from the spin loop's exits to the release that neither pass
    through the spin loop again nor go past the release, in block order. (In a loop around the
    lock, a path that goes on past the release reaches the next round's code, and one back
    into the spin loop takes the lock again: neither is the critical section.)"""
    release_label, release_index = lock.release_at
    cfg, spin = facts.cfg, lock.loop.blocks
    forward, todo = set(), [s for _, s in lock.loop.exits]
    while todo:
        x = todo.pop()
        if x in spin or x in forward:
            continue
        forward.add(x)
        if x != release_label:                # the release ends the section
            todo.extend(cfg.succs[x])
    backward, todo = set(), [release_label]
    while todo:
        x = todo.pop()
        if x in spin or x in backward:
            continue
        backward.add(x)
        todo.extend(p for p in cfg.preds[x] if p != release_label)
    between = forward & backward
    out = []
    for label in cfg.labels:
        if label in between:
            code = cfg.blocks[label].instrs
            out.extend(code[:release_index] if label == release_label else code)
    return out
