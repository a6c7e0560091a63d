"""Hand-written locks as the data-race check sees them: a spin loop that exits when
`atomic_cas(l[i], 0, x)` or `atomic_exch(l[i], x)` returned 0, released by the next store or
exchange of 0 to the same word, and the critical section between (`hand_locks`, `section`).
The atomic decides the loop's exit through arithmetic or through a flag variable it sets (`var
got`): what hand_sync.py says its value decides, whatever the loop's shape. (The orderings such a
lock owes are hand_sync.py's too.)
"""
from __future__ import annotations

from ...core.prebuilt import dataclass
from ..nodes import Instr
from .facts import Facts, Loop
from .hand_sync import hand_sync


@dataclass(frozen=True)
class HandLock:
    acquire: Instr          # the atomic the spin loop exits on
    loop: Loop
    release: Instr
    release_at: tuple[str, int]


def hand_locks(facts: Facts) -> list[HandLock]:
    out = []
    atomics = [(ins, branches) for ins, branches in hand_sync(facts).decides.values()
               if ins.op in ("atom.cas", "atom.exch")]
    for loop in facts.loops:
        exits = {inside for inside, _ in loop.exits}
        for ins, branches in atomics:
            if facts.where[id(ins)][0] in loop.blocks and not exits.isdisjoint(branches):
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


def section(facts: Facts, lock: HandLock) -> list[Instr]:
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
