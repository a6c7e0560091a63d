"""Checks on memory ordering in hand-written synchronization (locks built from atomics,
counters that elect a last block). syncc orders its own primitives (insert_fences);
these are the orderings a program must write itself with `fence`.

    E0709  a `fence cta` in a lock that threads of other blocks also take (an element of it)
    E0710  a hand-written lock without a fence after taking it or before releasing it
    E0711  the fence that should precede the release comes after it
    E0712  a counter that elects the last block to read the others' results, with no
           fence between those results and the counter (the seed 002 reduction)

A hand-written lock is a spin loop that exits when `atomic_cas(l[i], 0, x)` or
`atomic_exch(l[i], x)` returned 0; its release is the next store or exchange of 0
to the same word. Between the two, the critical section must be fenced at both
ends (seed 003 Listing 3.1: `__threadfence()` after the loop and before the
`atomicExch`), because the atomics themselves are relaxed.
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ...core.prebuilt import dataclass
from ..context import PassContext
from ..nodes import Branch, Instr, Kernel
from ..analysis.blocks_meet import other_block_meets
from ..analysis.facts import Facts, Loop

CODES = ("E0709", "E0710", "E0711", "E0712")      # what it reports (tests/ir/test_hazard_checks.py)


@dataclass(frozen=True)
class HandLock:
    acquire: Instr          # the atomic the spin loop exits on
    loop: Loop
    release: Instr
    release_at: tuple[str, int]


def check_memory_order(facts: Facts, ctx: PassContext) -> None:
    for lock in _hand_locks(facts):
        if not _one_taker(facts, lock):
            _check_lock(facts, lock, ctx)
    _last_block(facts, ctx)


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


def _one_taker(facts: Facts, lock: HandLock) -> bool:
    """Does at most one thread of the launch take each element of the lock? Then there is no other
    holder to see the section's accesses out of order, and no fence is owed (E0710, E0711). Known
    where every block is listed and the element each thread may take is: the instances of the
    acquire are who *may* run it (a guard on data keeps everyone), so one taker among them is one."""
    if not facts.threads.every_block:
        return False
    label = facts.where[id(lock.acquire)][0]
    inst = facts.instances(label)
    col = facts.value(lock.acquire.ref.index, label) if inst is not None else None
    if col is None or col[1]:
        return False
    taker: dict[int, int] = {}
    for element, row in zip(col[0], inst.thread):
        if taker.setdefault(element, row) != row:
            return False
    return True


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


def _check_lock(facts: Facts, lock: HandLock, ctx: PassContext) -> None:
    k = facts.k
    word = lock.acquire.ref.name
    lock_array = k.array(word)
    section = _section(facts, lock)
    # the section's instructions in block order: a linear view, which suits the straight-line
    # sections hand-written locks have
    fenced, unfenced_access, dirty = False, None, False
    for ins in section:
        if ins.op == "fence":
            _scope(facts, lock, ins, lock_array, ctx)
            fenced, dirty = True, False
        elif _data_access(ins, word):
            if not fenced and unfenced_access is None:
                unfenced_access = ins
            dirty = True
    if unfenced_access is not None:
        ctx.sink.error("E0710", f"this hand-written lock on `{word}` is taken without a fence: the critical "
                       "section's memory accesses can be seen before the lock is", lock.acquire.span,
                       notes=[Note("the first access that is not ordered after the lock", unfenced_access.span)],
                       help=f"put `fence {_scope_word(lock_array)}` right after the loop, or use a `mutex`, "
                            "which syncc fences")
    if dirty:
        late = _fence_after(facts, lock)
        plain = "a plain store" if lock.release.op == "st" else "an atomic exchange"
        if late is not None:
            _scope(facts, lock, late, lock_array, ctx)
            ctx.sink.error("E0711", f"this fence comes after the release of `{word}`: another thread can take "
                           "the lock and read the critical section's data before it is written", late.span,
                           notes=[Note("the release", lock.release.span)],
                           help="move the fence before the release")
        else:
            ctx.sink.error("E0710", f"the lock `{word}` is released with {plain} and no fence before it: the "
                           "critical section's writes can become visible after the next thread takes the lock",
                           lock.release.span, notes=[Note("the lock is taken here", lock.acquire.span)],
                           help=f"put `fence {_scope_word(lock_array)}` before the release")


def _scope_word(array) -> str:
    return "cta" if array is not None and array.space == "shared" else "gpu"


def _scope(facts: Facts, lock: HandLock, fence: Instr, lock_array, ctx: PassContext) -> None:
    # (a lock per block, `locks[bid]`, is taken by no other block: block scope is enough)
    if fence.attr("scope") == "cta" and lock_array is not None and lock_array.space == "global" and \
            other_block_meets(facts, lock.acquire, lock.acquire) is not None:
        ctx.sink.error("E0709", f"`fence cta` orders memory only for this block, but the lock `{lock.acquire.ref.name}` "
                       "is in global memory and taken by threads of other blocks", fence.span,
                       notes=[Note("the lock", lock.acquire.span)], help="use `fence gpu`")


def _data_access(ins: Instr, word: str) -> bool:
    if ins.ref is None or ins.ref.name == word:
        return False
    return ins.info.group in ("memory", "atomic", "prim")


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


def _fence_after(facts: Facts, lock: HandLock) -> Instr | None:
    """A fence right after the release, before any other memory access (the usual slip)."""
    label, i = lock.release_at
    while True:
        for ins in facts.cfg.blocks[label].instrs[i + 1:]:
            if ins.op == "fence":
                return ins
            if ins.info.group in ("memory", "atomic", "prim"):
                return None
        succs = facts.cfg.succs[label]
        if len(succs) != 1:
            return None
        label, i = succs[0], -1


# ---- the last block ------------------------------------------------------------------------------------

def _last_block(facts: Facts, ctx: PassContext) -> None:
    k = facts.k
    stores = {}
    for b, i, ins in k.instructions():
        if ins.op == "st" and _global(k, ins.ref.name):
            stores.setdefault(ins.ref.name, []).append((b.label, i, ins))
    if not stores:
        return
    for b in k.blocks:
        term = b.term
        if not isinstance(term, Branch):
            continue
        counters = [x for x in facts.sources(term.cond, through_shared=True)
                    if x.info.group == "atomic" and _global(k, x.ref.name)
                    and facts.loop_of(facts.where[id(x)][0]) is None]
        for counter in counters:
            for read in _reads_under(facts, b.label):
                for label, i, st in stores.get(read.ref.name, ()):
                    if read.ref.name == counter.ref.name:
                        continue
                    if _unfenced_path(facts, (label, i), facts.where[id(counter)]):
                        ctx.sink.error("E0712", f"the result of this atomic on `{counter.ref.name}` decides who "
                                         f"reads `{read.ref.name}`, but nothing orders the write of "
                                         f"`{read.ref.name}` before it: the last block can read stale values",
                                         counter.span, notes=[Note("the write", st.span),
                                                              *_told_through(facts, term.cond, counter),
                                                              Note("the read it decides", read.span)],
                                         help="put `fence gpu` between the write and the atomic "
                                              "(the threadFenceReduction pattern, seed 002)")
                        return


def _told_through(facts: Facts, cond, counter: Instr) -> list[Note]:
    """Where the atomic's result is written to the shared word the branch tests, when it does not
    test the result itself (thread 0 telling its block whether it is the last one)."""
    if any(x is counter for x in facts.sources(cond)):
        return []
    for name, stores in facts.stores.items():
        array = facts.k.array(name)
        if array is None or array.space != "shared":
            continue
        for st in stores:
            if any(x is counter for x in facts.sources(st.args[1])):
                return [Note(f"the result reaches the branch through the shared word `{name}`", st.span)]
    return []


def _global(k: Kernel, name: str) -> bool:
    a = k.array(name)
    return a is not None and a.space == "global" and a.kind != "state"


def _reads_under(facts: Facts, label: str) -> list[Instr]:
    """Global loads in the blocks that run only on the taken side of the branch ending `label`."""
    term = facts.cfg.blocks[label].term
    join = facts.cfg.ipdom(label)
    seen, todo, out = set(), [term.if_true], []
    while todo:
        x = todo.pop()
        if x == join or x in seen:
            continue
        seen.add(x)
        out.extend(ins for ins in facts.cfg.blocks[x].instrs if ins.op == "ld" and _global(facts.k, ins.ref.name))
        todo.extend(facts.cfg.succs[x])
    return out


def _unfenced_path(facts: Facts, start: tuple[str, int], end: tuple[str, int]) -> bool:
    """Is there a path from the store at `start` to the atomic at `end` without a fence that orders
    them for the other blocks (`fence cta` does not: the last block is another block)?"""
    label, i = start
    seen = set()
    todo = [(label, i + 1)]
    while todo:
        label, i = todo.pop()
        code = facts.cfg.blocks[label].instrs
        stop = end[1] if label == end[0] and i <= end[1] else len(code)
        if any(ins.op == "fence" and ins.attr("scope") != "cta" for ins in code[i:stop]):
            continue
        if label == end[0] and i <= end[1]:
            return True
        for s in facts.cfg.succs[label]:
            if s not in seen:
                seen.add(s)
                todo.append((s, 0))
    return False
