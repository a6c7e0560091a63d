"""What a thread holds at each instruction: the mutexes, rwlocks and semaphore permits it has
taken and not yet given back.

    before, at_entry = held(facts, kinds=("mutex", "rwlock", "semaphore"))

`held(...)` is a forward dataflow over the lowered IR: at each instruction, the instances
some path may hold, as (primitive, index operand). A trylock adds its instance only on the
branch edge where it succeeded; a @warp/@block party's leader branch gives the lanes that skip
it the leader's lock too (the party holds it). A semaphore's `wait` holds a permit only when
the same thread gives it back later (`acquire s { }`, or `wait s` ... `post s`): a consumer's
wait, with no post after it, holds nothing.
"""
from __future__ import annotations

from ...core.prebuilt import dataclass
from ..nodes import Branch, Instr
from ..ops import LOCKS
from ..analysis.facts import Facts
from ..analysis.permits import amounts, weigh

LOCKABLE = ("mutex", "rwlock")
# what holds a primitive and what ends the hold: LOCKS, and a semaphore's permit (for held(...,
# kinds) callers that ask about semaphores too: who may be inside a section, not lock order)
HOLDS = {**LOCKS, "sem.wait": "sem.post"}
UNLOCKS = set(HOLDS.values())
TRIES = ("mutex.trylock", "sem.trywait", "sem.tryfor")


@dataclass(frozen=True)
class Held:
    prim: str
    index: object            # the index operand (a register or an immediate)
    value: object            # facts.value_key(index): equal for indices that are always equal
    site: Instr              # where it was taken

    @property
    def mode(self) -> str | None:
        """An rwlock's `read` or `write`; None for a mutex."""
        return self.site.attr("mode")

    @property
    def key(self) -> tuple:
        return (self.prim, self.value)


def held(facts: Facts, kinds=LOCKABLE) -> tuple[dict[int, frozenset[Held]], dict[str, frozenset[Held]]]:
    """(id(instruction) → the mutex instances possibly held just before it,
    block → those possibly held where it starts). `kinds`: the primitive kinds that count."""
    k, cfg = facts.k, facts.cfg
    mutexes = {p.name for p in k.prims if p.kind in kinds}
    at_entry: dict[str, frozenset[Held]] = {label: frozenset() for label in cfg.labels}
    before: dict[int, frozenset[Held]] = {}
    visited: set[str] = set()
    work = [cfg.entry]
    while work:
        label = work.pop()
        visited.add(label)
        state = at_entry[label]
        block = cfg.blocks[label]
        for ins in block.instrs:
            before[id(ins)] = state
            state = step(facts, state, ins, mutexes)
        for succ, out in _edges(facts, block, state, mutexes):
            new = at_entry[succ] | out
            if new != at_entry[succ] or succ not in visited:
                at_entry[succ] = new
                work.append(succ)
    return before, at_entry


def lock_like(facts: Facts) -> set[int]:
    """The semaphore waits that take a permit the same thread gives back later (`acquire s { }`,
    or a `wait s` some `post s` of the same instance follows): a hold, as a lock's. A wait with
    no post after it is a consumer's, which holds nothing; so is a queue's (impls/queue/), whose
    `put` takes free space that a `get`, the same thread's or another's, gives back."""
    if "lock_like" not in facts.memo:
        found = set()
        posts = [(facts.where[id(i)], i) for _, _, i in facts.k.instructions() if i.judged_as == "sem.post"]
        for _, _, ins in facts.k.instructions():
            if ins.judged_as not in ("sem.wait", "sem.trywait", "sem.tryfor") or of_a_queue(ins):
                continue
            key = facts.value_key(ins.ref.index)
            here = facts.where[id(ins)]
            if ins.attr("region") is not None or any(
                    p.ref.name == ins.ref.name and facts.value_key(p.ref.index) == key and facts.reaches(here, at)
                    and _same_threads(facts, here[0], at[0]) for at, p in posts):
                found.add(id(ins))
        facts.memo["lock_like"] = found
    return facts.memo["lock_like"]


def of_a_queue(ins: Instr) -> bool:
    """A queue's `put` or `get` waiting on (or trying) one of its semaphores (impls/queue/: a
    `locked` queue's semaphore operation marked `queue=`, or a `ring` queue's own): a producer's
    or consumer's wait, which holds nothing, whoever gives the permit back."""
    return ins.attr("queue") is not None or ins.op.startswith("queue.")


def _same_threads(facts: Facts, a: str, b: str) -> bool:
    """Can one thread run both blocks? (True when either is unknown.)"""
    ia, ib = facts.instances(a), facts.instances(b)
    if ia is None or ib is None:
        return True
    return not set(ia.thread).isdisjoint(ib.thread)


def step(facts: Facts, state: frozenset, ins: Instr, mutexes) -> frozenset:
    ref = ins.ref
    if ref is None or ref.name not in mutexes:
        return state
    op = ins.judged_as
    if op == "sem.wait" and id(ins) not in lock_like(facts):
        return state
    if op in HOLDS:
        return state | {Held(ref.name, ref.index, facts.value_key(ref.index), ins)}
    if op in UNLOCKS:
        key = (ref.name, facts.value_key(ref.index))
        return frozenset(h for h in state if h.key != key)
    return state


def _edges(facts: Facts, block, state: frozenset, mutexes) -> list[tuple[str, frozenset]]:
    """Successors with the state each receives. A successful trylock holds on its true edge.
    A leader's branch for a @warp/@block mutex gives the lanes that skip it the leader's
    lock or unlock too: the party holds the mutex, not the leader alone."""
    term = block.term
    if not isinstance(term, Branch):
        return [(t, state) for t in term.targets]
    if facts.is_party_branch(block.label):
        skipped = state
        for ins in facts.cfg.blocks[term.if_true].instrs:
            skipped = step(facts, skipped, ins, mutexes)
        return [(term.if_true, state), (term.if_false, skipped)]
    tries = [ins for ins in facts.sources(term.cond)
             if ins.judged_as in TRIES and ins.ref.name in mutexes and not of_a_queue(ins)
             and (ins.op == "mutex.trylock" or id(ins) in lock_like(facts))]    # (a consumer's try holds nothing)
    got = frozenset(Held(t.ref.name, t.ref.index, facts.value_key(t.ref.index), t) for t in tries)
    return [(term.if_true, state | got), (term.if_false, state)]


def can_run_out(facts: Facts, name: str) -> bool:
    """Can every permit of a semaphore be held at once, so that the next taker waits? Always for a
    mutex or rwlock; for a semaphore when its count is smaller than the permits its parties can
    hold at once (one each, or the most k each takes with `wait s(k)`: analysis/permits.py)."""
    prim = facts.k.prim(name)
    if prim.kind != "semaphore":
        return True
    memo = facts.memo.setdefault("runs_out", {})
    if name not in memo:
        parties: dict = {}          # party → the most permits it takes at once
        column = {"thread": None, "warp": "gwarp", "block": "block"}[prim.granularity]
        known = True
        for b, _, ins in facts.k.instructions():
            if ins.judged_as == "sem.wait" and ins.ref.name == name and id(ins) in lock_like(facts):
                inst = facts.instances(b.label)
                most = amounts(facts, b.label, ins, upper=True) if inst is not None else None
                if inst is None or most is None:
                    known = False
                    break
                rows = inst.thread if column is None else [facts.threads.columns[column][r] for r in inst.thread]
                for n, row in enumerate(rows):
                    parties[row] = max(parties.get(row, 0), weigh(most, n))
        memo[name] = not known or not facts.threads.every_block or sum(parties.values()) > (prim.count or 0)
    return memo[name]
