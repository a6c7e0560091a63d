"""Data races: the updates the guarantee says a program must not lose.

    E0730  data that a lock's critical sections guard, accessed by another thread without that lock
           (or inside a `read` section, which other readers hold at once), one of the two a plain
           write, with nothing ordering them
    E0731  plain stores to one location from several threads (of different blocks, of different
           warps, or lanes of one warp), with nothing ordering them, that can store different values;
           or a plain store beside another thread's atomic update of the location
    E0732  a plain read of a location another thread can store to plainly, with nothing ordering them

Locks are syncc's mutexes, rwlocks and semaphores (`critical`, `read`/`write`, `acquire` and a
`wait` the thread's own `post` follows: what held.py says a thread may hold at each instruction)
and hand-written spin locks (analysis/hand_locks.py). Two accesses exclude each other when both
may hold one lock: a mutex, an rwlock where one of them holds it to write, a hand-written lock, a
semaphore where the least permits the two sections take add up to more than its count (and no
`post` outside a section adds permits); a `@warp` or `@block` lock does not keep apart the
threads of one party, which hold it together. Lock indices are not compared (two elements of one mutex
array count as one lock): where in doubt, the check accepts.

Which accesses can meet is decided by enumeration (analysis/space.py): the element each thread
and round of a counted loop touches, over the launch shape's threads (every block, or a sample of
them for a large launch; the first block alone when the index, the stored value and the guards are
the same in every block). An access whose index or whose threads are not known (data decides
them: a guard on data, not the exit of a spin loop the access comes after) is never reported.
Two instances meet when they touch the same element (of a shared array: in one block) in
different threads and:

- different blocks: nothing orders them unless one of them is *synchronized*: a syncc operation
  on a semaphore (but the `acquire`/`wait` and `post` of a section, which keep threads apart:
  the locksets'), channel, latch, queue, scan, grid barrier or mbarrier on a path that reaches
  the access or that it reaches (in either thread: conservatively, any such operation before or
  after either access orders the two); or one comes after a hand-written spin loop (a loop whose
  exit reads memory), or where a branch on an atomic's or a `load_cg`'s result decides (up to
  the point its two sides meet again: the last block of a threadfence reduction), and the other
  before a write of a word that spin or branch reads (_sides: the write can be what it waited
  for or saw). Where the way is open from the start (0 passes) and no write of the word can
  close it (stores of the values the tests let through), the accesses after it are not on the
  writers' side;
- one block: besides, no block barrier (`barrier`, a named barrier's `sync` and `arrive`) that
  orders them, in the pairs of rounds of the loops around both that it leaves unordered
  (analysis/barrier_order.py: one phase of the barrier that the second access's threads pass);
- one warp: besides, no warp collective (`syncwarp()`, `ballot`, votes) between them (on Fermi,
  lanes in lockstep: one access before the other in the program).

An index that is the value an atomic add returned (`let j = atomic_add(n[0], k); out[j] = v`, plus
a constant) is judged thread by thread from the operands: an add (or sub) of 0 or less in some
thread returns the value the next thread to add gets too, so two threads store to one element;
adds (subs) of 1 or more hand out distinct elements.

Two stores of the same value (a constant or a parameter, the same in every thread: `flag[0] = 1`;
a value loaded from one element that nothing in the kernel writes) lose nothing, nor do a store
and an `atomic_exch` of one value; atomics never race with atomics (an atomic counts only beside
a plain store), and a `load_cg`, an atomic that leaves the word as it is (an add of 0), or the
load a hand-written spin polls is a read that means to race. A read inside a statement whose
store is reported is not reported again.
A kernel's launches are separate: only accesses of one launch meet.
"""
from __future__ import annotations

from typing import NamedTuple

from ...core.diagnostics import Note
from ..context import PassContext
from ..nodes import Branch, Imm, Instr, Reg
from ..analysis.cfg import beyond
from ..analysis.barrier_order import CROSS as OTHER_ROUND, NEXT, SAME, BarrierOrder
from ..analysis.facts import Facts, explained_reads
from ..analysis.hand_locks import hand_locks, section
from ..analysis.hand_sync import constant_written, hand_sync, lets_through
from ..analysis.permits import amounts
from .held import LOCKABLE, held, lock_like
from .retries import leaves_only_after
from .waits import word_keys

CODES = ("E0730", "E0731", "E0732")      # what it reports (tests/ir/test_hazard_checks.py)

CROSS, BLOCK, WARP = "another block", "another warp of the block", "another lane of the warp"
_REPS = 8          # threads kept per element: enough to find one of another block, warp or value
_LARGE = 1 << 12   # instances of two accesses beyond which numpy picks the elements to search
_CANDIDATES = 16   # elements searched then (a race elsewhere is missed, never invented)


class _Access:
    """One memory access of the program to an array that some thread stores to."""
    __slots__ = ("ins", "label", "at", "kind", "locks", "synced", "cols", "after", "before")

    def __init__(self, ins: Instr, label: str, at: tuple[str, int], kind: str, locks: frozenset, synced: bool):
        self.ins, self.label, self.at, self.kind, self.locks, self.synced = ins, label, at, kind, locks, synced
        self.cols: dict = {}       # space id → (rows, elements, stored values, symbolic parts) or None
        self.after = self.before = frozenset()     # the spins it comes after, and before a write for

    @property
    def name(self) -> str:
        return self.ins.ref.name


def check_races(facts: Facts, ctx: PassContext) -> None:
    k = facts.k
    stored = {name for name in facts.stores if _data(k, name)}
    if not stored:
        return
    hand = hand_locks(facts)
    stored -= {lock.acquire.ref.name for lock in hand}          # a lock word is the lock's, not data
    if not stored:
        return
    sites = [(b.label, i, ins) for b, i, ins in k.instructions()
             if ins.ref is not None and ins.ref.name in stored and b.label in facts.cfg.reachable
             and (ins.op in ("ld", "st") or ins.info.group == "atomic")]
    def judged(ins: Instr) -> bool:        # an index from data: assume nothing, but a ticket's
        return not facts.space.unknowable(ins.ref.index) or ins.op == "st" and _ticket(facts, ins) is not None
    if not any(ins.op == "st" and judged(ins) for _, _, ins in sites):
        return
    locks, holds = _locksets(facts, hand)
    touched, spins = _synchronized(facts, hand, holds)
    by_array: dict[tuple, list[_Access]] = {}
    for label, i, ins in sites:
        if not judged(ins):
            continue
        kind = "write" if ins.op == "st" else "read" if ins.op == "ld" or ins.reads_only else "atomic"
        acc = _Access(ins, label, (label, i), kind, locks.get(id(ins), frozenset()), label in touched)
        acc.after = frozenset(n for n, (after, _, _) in enumerate(spins) if label in after)
        acc.before = frozenset(n for n, (_, before, _) in enumerate(spins) if label in before)
        by_array.setdefault((ins.ref.name, ins.ref.field), []).append(acc)
    order = {BLOCK: BarrierOrder(facts, "block"), WARP: BarrierOrder(facts, "warp")}
    reported: dict[str, list] = {}      # code → the spans reported (one report per statement)
    for accesses in by_array.values():
        if not any(a.kind == "write" for a in accesses):
            continue
        accesses.sort(key=lambda a: a.kind != "write")           # a statement's store before its loads
        for reads in (False, True):       # a read races last: not where its statement's store does
            for n, a in enumerate(accesses):
                for b in accesses[n:]:
                    _judge(facts, order, a, b, reported, ctx, reads)


def _polls(facts: Facts) -> set[int]:
    """The plain loads a hand-written spin polls (hand_sync: read as `load_cg`)."""
    if "races.polls" not in facts.memo:
        facts.memo["races.polls"] = {id(i) for i in hand_sync(facts).plain_polls()}
    return facts.memo["races.polls"]


def _data(k, name: str) -> bool:
    """The program's own arrays: its parameters and shared arrays (not the compiler's, a primitive's
    state or the word a @block trylock tells its block through, which has no declaration)."""
    a = k.array(name)
    return a is not None and (a.kind == "param" or a.kind == "data" and a.span is not None)


# ---- locks -------------------------------------------------------------------------------------

class _Lock(NamedTuple):
    """A lock an access may run holding. A semaphore's hold keeps two apart only when the permits
    they take exceed its count and no other `post` adds to it (`room`: the count, else None)."""
    name: str
    mode: str | None         # an rwlock's `read` or `write`; None for a mutex and a semaphore
    gran: str                # the granularity of the parties that hold it together
    permits: int | None = None   # a semaphore's: the least this hold takes
    room: int | None = None


def _locksets(facts: Facts, hand) -> tuple[dict[int, frozenset], set[int]]:
    """(id(instruction) → the locks it may run holding; the ids of the semaphore operations that
    take and give back a hold, which keep threads apart rather than order them)."""
    k = facts.k
    out: dict[int, frozenset] = {}
    holds: set[int] = set()
    kinds = LOCKABLE + ("semaphore",)
    if any(p.kind in kinds for p in k.prims):
        before, _ = held(facts, kinds=kinds)
        room = _room(facts, before, holds)
        for key, hs in before.items():
            if hs:
                out[key] = frozenset(_entry(facts, h, room) for h in hs)
    for lock in hand:
        entry = _Lock(lock.acquire.ref.name, None, "thread")
        for ins in section(facts, lock):
            out[id(ins)] = out.get(id(ins), frozenset()) | {entry}
    return out, holds


def _room(facts: Facts, before: dict, holds: set[int]) -> dict[str, int | None]:
    """Semaphore → its count where only the holds give permits back, else None; `holds` gets the
    ids of the waits and posts that take and give back a hold."""
    room = {p.name: p.count for p in facts.k.prims if p.kind == "semaphore"}
    taking = lock_like(facts)
    for _, _, ins in facts.k.instructions():
        if ins.ref is None or ins.ref.name not in room:
            continue
        if id(ins) in taking:
            holds.add(id(ins))
        elif ins.judged_as == "sem.post":
            key = (ins.ref.name, facts.value_key(ins.ref.index))
            if any(h.key == key for h in before.get(id(ins), ())):
                holds.add(id(ins))
            else:
                room[ins.ref.name] = None      # a post that adds permits: no hold keeps others out
    return room


def _entry(facts: Facts, h, room: dict) -> _Lock:
    prim = facts.k.prim(h.prim)
    if prim.kind != "semaphore":
        return _Lock(h.prim, h.mode, prim.granularity)
    least = amounts(facts, facts.where[id(h.site)][0], h.site, upper=False)
    least = least if isinstance(least, int) else min(least, default=1)
    return _Lock(h.prim, None, prim.granularity, least, room[h.prim])


def _apart(x: _Lock, y: _Lock) -> bool:
    """Does holding x in one thread keep another that holds y out (parties aside)?"""
    if x.name != y.name:
        return False
    if x.permits is not None:
        return x.room is not None and x.permits + y.permits > x.room
    return not x.mode == y.mode == "read"


def _shared(a: frozenset, b: frozenset) -> list[_Lock]:
    """The locks both may hold that do not keep them apart: a `read` section's, a semaphore's
    whose permits leave room for both."""
    return [x for x in a for y in b if x.name == y.name and not _apart(x, y)]


def _excluded(a: frozenset, b: frozenset) -> set[str]:
    """The relations between two threads that a lock both accesses hold keeps apart."""
    out: set[str] = set()
    for x in a:
        for y in b:
            if not _apart(x, y):
                continue
            if x.gran in ("thread", "warp", "block"):
                out.add(CROSS)
            if x.gran in ("thread", "warp"):
                out.add(BLOCK)
            if x.gran == "thread":
                out.add(WARP)
    return out


def _lock_word(locks) -> str:
    names = sorted({lock.name for lock in locks})
    return ", ".join(f"`{n}`" for n in names)


# ---- what orders accesses ----------------------------------------------------------------------

_SYNCHRONIZED: dict[int, tuple] = {}      # id(kernel's blocks) → (blocks, hand locks, the answer)


def _synchronized(facts: Facts, hand, holds: set[int]) -> tuple[set[str], list[tuple[set, set, set]]]:
    """The blocks that run before or after an operation that may synchronize threads of different
    blocks (the module's docstring lists them), where an access is taken as ordered with any other;
    and the two sides of each hand-written spin or branch on a polled word (_sides). The same for
    every launch shape of one kernel's code (a declared range checks hundreds): kept for the code's
    blocks, while they are the same object, and the same hand-written locks and semaphore holds."""
    locks = (tuple(sorted((lock.loop.head, facts.where[id(lock.acquire)]) for lock in hand)),
             frozenset(holds))
    known = _SYNCHRONIZED.get(id(facts.k.blocks))
    if known is not None and known[0] is facts.k.blocks and known[1] == locks:
        return known[2]
    found = _synchronized_blocks(facts, hand, holds)
    if len(_SYNCHRONIZED) >= 8:
        _SYNCHRONIZED.clear()
    _SYNCHRONIZED[id(facts.k.blocks)] = (facts.k.blocks, locks, found)
    return found


def _synchronized_blocks(facts: Facts, hand, holds: set[int]) -> tuple[set[str], list[tuple[set, set, set]]]:
    """(the blocks synchronized as the module's docstring says; for each hand-written spin loop, and
    each branch on an atomic's or a `load_cg`'s result, the blocks after it and the blocks before a
    write of a word it reads: _sides)."""
    k, cfg = facts.k, facts.cfg
    lock_loops = {lock.loop.head for lock in hand}
    lock_atomics = {id(lock.acquire) for lock in hand} | {id(lock.release) for lock in hand}
    sync: set[str] = set()
    sides: list[tuple] = []
    memo: dict = {}
    for b in k.blocks:
        if b.label not in cfg.reachable:
            continue
        if any(_synchronizes(k, ins) and id(ins) not in holds for ins in b.instrs):
            sync.add(b.label)
        term = b.term
        if not isinstance(term, Branch) or not isinstance(term.cond, Reg):
            continue
        read = {x.ref.name for x in facts.sources(term.cond)
                if (x.info.group == "atomic" or x.op == "ld" and x.attr("cache") is not None)
                and id(x) not in lock_atomics and x.ref is not None}
        if read:
            stop = cfg.ipdom(b.label)
            region = cfg.reach([term.if_true, term.if_false], stop=stop)
            # (an `if` without `else`: its body is entered on true, the test that can stay open)
            sides.append((_sides(facts, region, read, [(b.label, True)] if term.if_false == stop else None, memo),
                          read))
    for loop in facts.loops:
        if loop.head in lock_loops or loop.head in facts.space.counted:
            continue
        exits = [(inside, cfg.blocks[inside].term.if_true not in loop.blocks) for inside, _ in loop.exits
                 if isinstance(cfg.blocks[inside].term, Branch)]
        polled = {x.ref.name for inside, _ in exits for x in facts.sources(cfg.blocks[inside].term.cond)
                  if (x.op == "ld" or x.info.group == "atomic") and x.ref is not None}
        if polled:
            sides.append((_sides(facts, beyond(loop.blocks, cfg.succs), polled, exits, memo), polled))
    sides = _chained(facts, sides)
    if not sync:
        return set(), sides
    return sync | beyond(sync, cfg.succs) | beyond(sync, cfg.preds), sides


class _Side(NamedTuple):
    """A spin's or a branch's two sides, before chaining (_sides, _chained)."""
    after: set                # the blocks after it
    loose: frozenset          # the blocks of writes it may take, any one of which may be what it saw
    exact: tuple              # the blocks of the stores of values it leaves on, each from one thread
    shut: bool                # no write can close its way: what comes after is not on the writers' side


def _sides(facts: Facts, after: set[str], read: set[str], tests, memo: dict) -> _Side:
    """The writes a spin loop or a branch on what it read can take. An access after it in one
    thread is ordered after an access in another before such a write (the write can be what the
    spin waited for, what the branch saw): any write of a word it reads whose value is not a
    constant (an atomic add: `loose`, any one suffices), and the stores of constants its tests let
    through (hand_sync.lets_through: `while atomic_add(f[0], 0) != 2 {}` waits for a 2, and a 1
    written after an access orders nothing for it), where an access must come before each of them
    (`exact`: the spin ends on whichever comes; _chained). Where two threads store such a value to
    one element, it orders after neither (_one_thread_each). Where no write can close the way
    (each stores a value the tests let through: `lk[c] = 0` beside `while load_cg(lk[c]) != 0 {}`,
    a lock whose taking is missing), threads pass together: what comes after is not on the writers'
    side. `tests`: (block, the test's value that lets through), or None where that is not known."""
    key = (frozenset(read), tuple(tests) if tests else None)
    if key not in memo:          # (many branches read one word: its writers are found once)
        loose, taken = set(), []
        for _, _, ins in facts.k.instructions():
            if ins.ref is None or ins.ref.name not in read or not (
                    ins.op == "st" or ins.info.group == "atomic" and not ins.reads_only):
                continue
            value = constant_written(ins) if tests else None
            if value is None:
                loose.add(facts.where[id(ins)][0])
            elif lets_through(facts, tests, ins.ref.name, value):
                taken.append(ins)
        exact = tuple(sorted({facts.where[id(ins)][0] for ins in taken})) if _one_thread_each(facts, taken) else ()
        memo[key] = frozenset(loose), exact
    loose, exact = memo[key]
    return _Side(after, loose, exact, bool(tests) and _never_closes(facts, tests, read))


def _one_thread_each(facts: Facts, stores: list[Instr]) -> bool:
    """Does each element get each of these stores from one thread at most (yes where an index is
    not known)? Where two threads store a value a spin leaves on to one element by one instruction,
    the spin ends on either store, and the check, which tells threads apart by the blocks of code
    they run, cannot name which (two publishers raising one flag)."""
    for ins in stores:
        first: dict = {}
        keys = word_keys(facts, facts.where[id(ins)][0], ins)
        if keys is None or keys[1] is None:
            continue
        rows, elements, symbolic = keys
        for row, element in zip(rows, elements):
            if first.setdefault((element, symbolic), row) != row:
                return False
    return True


def _chained(facts: Facts, sides: list[tuple[_Side, set]]) -> list[tuple[set, set, set]]:
    """(after, before, the words it reads) of each spin or branch: before it, the blocks that come
    before any of its loose writes, or before each of its exact ones (_sides), with hand-offs
    chained: where a write one takes comes after another spin, what comes before that spin comes
    before the write too (ScoR's HRF-indirect relays: block 0's thread 0 raises 1 for its thread 32,
    which raises 2 for block 1; block 1 is after thread 0's write, through thread 32)."""
    preds, reach = facts.cfg.preds, {}

    def before_write(label: str, befores: list) -> set:
        if label not in reach:
            reach[label] = {label} | beyond({label}, preds)
        out = set(reach[label])
        for (side, _), known in zip(sides, befores):
            if label in side.after:
                out |= known
        return out

    befores: list[set] = [set() for _ in sides]
    changed = True
    while changed:
        changed = False
        for n, (side, _) in enumerate(sides):
            new = set()
            for label in side.loose:
                new |= before_write(label, befores)
            if side.exact:
                new |= set.intersection(*(before_write(label, befores) for label in side.exact))
            if side.shut:
                new -= side.after
            if not new <= befores[n]:
                befores[n] |= new
                changed = True
    return [(side.after, before, read) for (side, read), before in zip(sides, befores)]


def _hand_order(facts: Facts) -> tuple[set[str], list[tuple[set, set, set]]]:
    """_synchronized for the kernel's own hand-written locks and semaphore holds, found once per
    Facts for the checks that ask about pairs (ordered_by_hand, unordered_stores)."""
    if "races.hand_order" not in facts.memo:
        hand = hand_locks(facts)
        _, holds = _locksets(facts, hand)
        facts.memo["races.hand_order"] = _synchronized(facts, hand, holds)
    return facts.memo["races.hand_order"]


def ordered_by_hand(facts: Facts, first: Instr, second: Instr) -> bool:
    """Does `second` come after a hand-written spin, or a branch on a polled word, that a write made
    after `first` can let through, directly or down a chain of hand-offs (_sides, _chained), on
    words neither accesses? Then the hand-off orders them across blocks (its fences are
    checks/memory.py's); an access to the polled word is part of the hand-off, not ordered by it."""
    _, spins = _hand_order(facts)
    first_label, second_label = facts.where[id(first)][0], facts.where[id(second)][0]
    words = {first.ref.name, second.ref.name}
    return any(first_label in before and second_label in after and not words & read for after, before, read in spins)


def _never_closes(facts: Facts, tests, read: set[str]) -> bool:
    """Does every test compare a word read against a constant (`== c`, `!= c`) that lets 0 through
    (the value memory starts at when the host zeroes it: the way is open from the start) and that
    every write of those arrays leaves it on (stores and exchanges of constants it lets through)?
    A spin that 0 keeps in (`while load_cg(done[bid - 1]) == 0 {}`) waits for a write, as a chain
    of blocks does, even where every write lets it through."""
    opens = []
    for label, through in tests:
        test = facts.def_of(facts.cfg.blocks[label].term.cond)
        if test is None or test.op not in ("cmp.eq", "cmp.ne"):
            return False
        value, const = test.args
        if isinstance(value, Imm):
            value, const = const, value
        d = facts.def_of(value)
        if not isinstance(const, Imm) or d is None or d.ref is None or d.ref.name not in read:
            return False
        equal = (test.op == "cmp.eq") == through            # through when equal to c (else when not)
        if (const.value == 0) != equal:
            return False                                    # 0 does not pass: the way starts closed
        opens.append((const.value, equal))
    for _, _, ins in facts.k.instructions():
        if ins.ref is None or ins.ref.name not in read or not (ins.op == "st" or ins.info.group == "atomic"):
            continue
        if ins.reads_only:
            continue
        value = ins.args[1] if ins.op in ("st", "atom.exch") else None
        if not isinstance(value, Imm) or not all((value.value == c) == equal for c, equal in opens):
            return False
    return True


def _synchronizes(k, ins: Instr) -> bool:
    group = ins.info.group
    if group == "mbarrier":
        return True
    if group != "prim":
        return False
    prim = k.prim(ins.ref.name.split(".")[0]) if ins.ref is not None else None
    if prim is None:
        return True
    if prim.kind in LOCKABLE:
        return False                 # exclusion, not order: the locksets' business (a semaphore's
                                     # holds too: the caller leaves them out)
    return not (prim.kind == "barrier" and prim.granularity != "grid")     # a block's or a warp's: BarrierOrder


def unordered_stores(facts: Facts, first: Instr, second: Instr):
    """(row of first's thread, row of second's, element, relation) of two instances of two stores
    (plain, or an atomic exchange) of different values that touch one element in different threads
    with nothing ordering them, by this check's order (syncc's primitives, hand-offs, a block's
    barriers by phase, a warp's collectives); None where none can meet so, or where it cannot be
    known. Locks are left out: a lock keeps the two apart, not in an order."""
    touched, spins = _hand_order(facts)
    a, b = (_Access(ins, facts.where[id(ins)][0], facts.where[id(ins)], "write", frozenset(),
                    facts.where[id(ins)][0] in touched) for ins in (first, second))
    for acc in (a, b):
        acc.after = frozenset(n for n, (after, _, _) in enumerate(spins) if acc.label in after)
        acc.before = frozenset(n for n, (_, before, _) in enumerate(spins) if acc.label in before)
    if a.synced or b.synced or a.after & b.before or b.after & a.before:
        return None
    if "races.order" not in facts.memo:
        facts.memo["races.order"] = {BLOCK: BarrierOrder(facts, "block"), WARP: BarrierOrder(facts, "warp")}
    order = facts.memo["races.order"]
    relations = {CROSS, BLOCK, WARP}
    if facts.k.array(a.name).space == "shared":
        relations.discard(CROSS)            # each block its own
    rounds = _unordered_rounds(order, a, b, relations)
    relations -= {r for r, left in rounds.items() if not left}
    return _meeting(facts, order, a, b, relations, True, rounds) if relations else None


# ---- which accesses meet -----------------------------------------------------------------------

def _judge(facts: Facts, order: dict, a: _Access, b: _Access, reported: dict, ctx: PassContext,
           reads: bool) -> None:
    """Report the two accesses if they can meet unordered: E0732 (a plain read beside a plain write)
    when `reads`, the other codes when not."""
    if "write" not in (a.kind, b.kind) or a.synced or b.synced:
        return
    if a.after & b.before or b.after & a.before:
        return                  # a spin in one thread can wait for a write the other makes after its access
    names_a, names_b = {x.name for x in a.locks}, {x.name for x in b.locks}
    shared = _shared(a.locks, b.locks)
    if names_a != names_b or shared:
        code = "E0730"
        at = _reported_at(a, b, names_a, names_b)
        if at.kind == "read" and (at.ins.attr("cache") is not None or at.ins.info.group == "atomic"):
            return              # a `load_cg` of guarded data (or an atomic add of 0): a read that means
                                # to race, and loses nothing
    elif a.kind == b.kind == "write":
        code = "E0731"          # no lock, or one that the two threads hold together (one @warp party)
        at = b if _later(b, a) else a
    elif {a.kind, b.kind} == {"write", "atomic"}:
        code = "E0731"          # a plain store beside an atomic update: the store is not atomic with it
        at = a if a.kind == "write" else b
    else:                       # a plain read beside a plain write, no lock
        code = "E0732"
        at = a if a.kind == "read" else b
        if at.ins.attr("cache") is not None or at.ins.info.group == "atomic" or id(at.ins) in _polls(facts):
            return              # a `load_cg`, an atomic read, a poll: reads that mean to race
        if id(at.ins) in explained_reads(facts):
            return              # (E0704 blames it already: a condition read beside a store)
    if (code == "E0732") != reads:
        return
    done = reported.get(code, []) + (reported.get("E0730", []) + reported.get("E0731", []) if reads else [])
    if any(_overlap(at.ins.span, span) for span in done):
        return                  # (a read inside a store that races: the store's report says it)
    relations = {CROSS, BLOCK, WARP} - _excluded(a.locks, b.locks)
    if facts.k.array(a.name).space == "shared":
        relations.discard(CROSS)            # each block its own
    rounds = _unordered_rounds(order, a, b, relations)
    relations -= {r for r, left in rounds.items() if not left}
    if not relations:
        return
    both_write = a.kind in ("write", "atomic") and b.kind in ("write", "atomic")
    found = _meeting(facts, order, a, b, relations, both_write, rounds)
    if found is None and a.kind == b.kind == "write":
        found = _same_ticket(facts, a, b, relations)
    if found is None:
        return
    reported.setdefault(code, []).append(at.ins.span)
    other = b if at is a else a
    first, second, element, relation = found
    if at is b:
        first, second = second, first
    _report(facts, code, at, other, first, second, element, relation, shared, ctx)


def _unordered_rounds(order: dict, a: _Access, b: _Access, relations: set[str]) -> dict[str, frozenset]:
    """Relation (of threads of one block, of one warp) → the classes of their instance pairs that no
    barrier orders (analysis/barrier_order.py: pairs in one round, in consecutive rounds, in any
    two rounds of the loops around both). A block barrier orders lanes of a warp too."""
    if a.kind == "write" and b.kind == "read":
        a, b = b, a
    read_write = a.kind == "read" and b.kind == "write"
    out: dict[str, frozenset] = {}
    for relation in (BLOCK, WARP):
        if relation in relations:
            out[relation] = order[relation].unordered(a.at, b.at, read_write)
    if out.get(BLOCK) == frozenset() and WARP in out:
        out[WARP] = frozenset()
    return out


def _overlap(a, b) -> bool:
    """Is one span inside the other (a load inside the statement that stores)?"""
    if a is None or b is None:
        return a is b
    return a.file == b.file and (a.start <= b.start and b.end <= a.end or b.start <= a.start and a.end <= b.end)


def _reported_at(a: _Access, b: _Access, names_a: set, names_b: set) -> _Access:
    """Where an E0730 goes: the access without a lock the other holds (the later, where each lacks
    one of the other's); in a `read` section, the write."""
    if names_b - names_a and not names_a - names_b:
        return a
    if names_a - names_b and not names_b - names_a:
        return b
    if names_a == names_b:
        return a if a.kind == "write" else b
    return b if _later(b, a) else a


def _later(a: _Access, b: _Access) -> bool:
    sa, sb = a.ins.span, b.ins.span
    return (sa.start if sa else 0) > (sb.start if sb else 0)


def _meeting(facts: Facts, order: dict, a: _Access, b: _Access, relations: set[str], both_write: bool,
             rounds: dict):
    """(row of a's thread, row of b's thread, element, relation) of two instances that touch one
    element in threads whose relation is among `relations` (storing different values, where both
    store) and whose rounds the barriers leave unordered (`rounds`: relation → the classes of
    pairs, _unordered_rounds; a relation not in it: every pair); None where there are none or
    where it cannot be known. Rows are the space's; a row of a virtual other block (the first
    block standing for every block) is given as -1 - row."""
    first_block = facts.threads.shape.blocks > 1 and _blockless(facts, a) and _blockless(facts, b)
    space = facts.first_block_space if first_block else facts.space
    ca, cb = _columns(facts, space, a), _columns(facts, space, b)
    if ca is None or cb is None:
        return None
    (rows_a, el_a, val_a, sym_a), (rows_b, el_b, val_b, sym_b) = ca, cb
    if sym_a != sym_b:
        return None                      # indices of different unknowns: cannot be compared
    if both_write and val_a is not None and val_b is not None and len(set(val_a) | set(val_b)) == 1:
        return None                      # one value, stored by all: nothing lost
    pairs = _round_filter(facts, space, order, a, b, relations, rounds)
    if pairs is not None:
        filters, rd_a, rd_b, _ = pairs
        if all(filters.get(r) == {SAME} for r in relations):      # one round only: (element, round)
            ca = (rows_a, list(zip(el_a, rd_a)), val_a, sym_a)
            cb = (rows_b, list(zip(el_b, rd_b)), val_b, sym_b)
            found = _meeting_at(facts, order, space, a, b, ca, cb, relations, both_write, first_block, None)
            return found and found[:2] + (found[2][0],) + found[3:]
    return _meeting_at(facts, order, space, a, b, (rows_a, el_a, val_a, sym_a), (rows_b, el_b, val_b, sym_b),
                       relations, both_write, first_block, pairs)


def _meeting_at(facts: Facts, order: dict, space, a: _Access, b: _Access, ca, cb, relations: set[str], both_write: bool,
                first_block: bool, pairs):
    """_meeting's search over the columns `ca`, `cb` (rows, elements, values, symbolic part), the
    pairs of instances kept to those `pairs` allows (_round_filter; None: all)."""
    (rows_a, el_a, val_a, _), (rows_b, el_b, val_b, _) = ca, cb
    rd_a, rd_b = (pairs[1], pairs[2]) if pairs else (None, None)
    if a is b:
        if len(set(el_a)) == len(el_a) and not (first_block and CROSS in relations):
            return None                  # every instance its own element
    elif set(el_a).isdisjoint(el_b):
        return None
    cols = space.threads.columns
    if len(el_a) + len(el_b) > _LARGE:
        codes = {e: n for n, e in enumerate(set(el_a) | set(el_b))} if el_a and isinstance(el_a[0], tuple) else None
        if codes is not None:            # (numpy groups integers: an (element, round) by its number)
            ca = (rows_a, [codes[e] for e in el_a]) + tuple(ca[2:])
            cb = (rows_b, [codes[e] for e in el_b]) + tuple(cb[2:])
        kept = _candidates(facts, space, ca, cb, a is b, relations, first_block)
        if not kept:
            return None
        if codes is not None:
            kept = {e for e, n in codes.items() if n in kept}
            ca, cb = (rows_a, el_a) + tuple(ca[2:]), (rows_b, el_b) + tuple(cb[2:])
        (rows_a, el_a, val_a, rd_a), (rows_b, el_b, val_b, rd_b) = _only(ca, kept, rd_a), _only(cb, kept, rd_b)
    block, warp = cols["block"], cols["warp"]
    exposed_a, exposed_b = (order[BLOCK].unsheltered(a.at), order[BLOCK].unsheltered(b.at)) if BLOCK in relations \
        else ((), ())
    reps: dict[object, list[tuple[int, object, object]]] = {}
    for n, (row, e) in enumerate(zip(rows_a, el_a)):
        kept = reps.setdefault(e, [])
        v = val_a[n] if val_a is not None else None
        rd = rd_a[n] if rd_a is not None else None
        if len(kept) < 2 and all(r != row for r, _, _ in kept) or len(kept) < _REPS and all(
                (block[r], warp[r], w, q) != (block[row], warp[row], v, rd) for r, w, q in kept):
            kept.append((row, v, rd))
    best = None          # the widest relation found (the same report on every machine model), and
                         # a thread that passes no barrier before its access (the likeliest example)
    for n, (row, e) in enumerate(zip(rows_b, el_b)):
        v = val_b[n] if val_b is not None else None
        rd = rd_b[n] if rd_b is not None else None
        for r, w, q in reps.get(e, ()):
            if both_write and v is not None and w is not None and v == w:
                continue
            if first_block and CROSS in relations:
                return r, -1 - row, e, CROSS
            if r == row:
                continue
            relation = CROSS if block[r] != block[row] else BLOCK if warp[r] != warp[row] else WARP
            if relation in relations and (pairs is None or _in_class(pairs[0].get(relation), q, rd, pairs[3])):
                if relation == CROSS:
                    return r, row, e, relation
                rank = (relation == BLOCK, (r in exposed_a) + (row in exposed_b))
                if best is None or rank > best[0]:
                    best = (rank, (r, row, e, relation))
    return best and best[1]


def _round_filter(facts: Facts, space, order: dict, a: _Access, b: _Access, relations: set[str], rounds: dict):
    """(relation → the classes of pairs left unordered, the rounds of a's instances and of b's (a
    tuple per instance: the values of the counted loops around both, outermost first), each
    loop's step), or None where every pair counts: no barrier leaves some pairs ordered, or a
    loop around both is not counted."""
    filters = {r: rounds[r] for r in relations if r in rounds}
    if not filters:
        return None
    common = order[BLOCK].common_loops(a.label, b.label)
    counted = [space.counted.get(lp.head) for lp in common]
    if not common or any(c is None for c in counted):
        return None                    # (no loop around both: every pair is of one round)
    columns = []
    for acc in (a, b):
        inst = space.of(acc.label)
        if inst is None or any(c.var not in inst.iters for c in counted):
            return None
        columns.append(list(zip(*(inst.iters[c.var] for c in counted))))
    return filters, columns[0], columns[1], [abs(c.step) for c in counted]


def _in_class(classes, x: tuple, y: tuple, steps: list[int]) -> bool:
    """Is a pair of instances of rounds x and y among the classes left unordered (None: all)?"""
    if classes is None:
        return True
    if x == y:
        return SAME in classes
    depth = next(d for d, (p, q) in enumerate(zip(x, y)) if p != q)
    return (OTHER_ROUND, depth) in classes or (NEXT, depth) in classes and abs(x[depth] - y[depth]) == steps[depth]


def _ticket(facts: Facts, ins: Instr):
    """(the atomic add or sub, the constant added) where the access's index is the value an atomic
    returned (`let j = atomic_add(n[0], k); out[j] = v`), converted or plus a constant; else None."""
    v, offset = ins.ref.index, 0
    for _ in range(8):
        d = facts.def_of(v)
        if d is None:
            return None
        if d.op in ("mov", "cvt"):
            v = d.args[0]
        elif d.op == "add" and isinstance(d.args[1], Imm):
            v, offset = d.args[0], offset + int(d.args[1].value)
        elif d.op in ("atom.add", "atom.sub"):
            return d, offset
        else:
            return None
    return None


def _same_ticket(facts: Facts, a: _Access, b: _Access, relations: set[str]):
    """Two threads that store at the value one atomic add returned them both: an add (or a sub)
    that can be of 0 or less in some thread hands that thread's value to the next one to add
    too (thread by thread, the operands known). (row, row, a description of the element,
    relation), or None where every add is of 1 or more, or the operands or threads are unknown."""
    ta, tb = _ticket(facts, a.ins), _ticket(facts, b.ins)
    if ta is None or tb is None or ta[0] is not tb[0] or ta[1] != tb[1]:
        return None
    atom = ta[0]
    label = facts.where[id(atom)][0]
    space = facts.space
    inst = space.of(label)
    operand = space.value(atom.args[1], label) if _certain(facts, space, label, inst) else None
    if operand is None or operand[1]:
        return None
    values, rows = operand[0], list(inst.thread)
    ahead = next(((row, x) for row, x in zip(rows, values) if x <= 0), None)   # (a sub of 0 or less too)
    if ahead is None or len(rows) < 2:
        return None
    if any(s is None or list(s.thread) != rows for s in (space.of(a.label), space.of(b.label))):
        return None                 # the store's threads are not the atomic's (a guard between them)
    cols = space.threads.columns
    block, warp = cols["block"], cols["warp"]
    first, amount = ahead
    for row in rows:
        if row == first:
            continue
        relation = CROSS if block[row] != block[first] else BLOCK if warp[row] != warp[first] else WARP
        if relation in relations:
            return first, row, (f"the same element: `{atom.op[5:]}` of {amount} on `{atom.ref.name}` in "
                                f"{_thread(facts, first)} leaves the value it returned for the next thread "
                                f"to {atom.op[5:]} too"), relation
    return None


def _candidates(facts: Facts, space, ca, cb, same: bool, relations: set[str], first_block: bool) -> set:
    """For many instances (a launch of thousands of threads, rounds of a loop): a few elements where
    two instances can meet in threads of an allowed relation, found with numpy over the whole
    columns (imported only here: a small launch never pays for it), for the exact search to look
    at alone. Per relation, the instances are grouped by element (and block, or warp), and a group
    is a candidate where both accesses are in it and the block (warp, thread) is not the same
    throughout: then two of them, one of each access, differ in it."""
    import numpy as np
    rows_a, el_a = np.asarray(ca[0]), np.asarray(ca[1])
    rows_b, el_b = (rows_a, el_a) if same else (np.asarray(cb[0]), np.asarray(cb[1]))
    if first_block:
        common = np.unique(el_a) if same else np.intersect1d(el_a, el_b)
        return set(common[:_CANDIDATES].tolist()) if CROSS in relations else set()
    cols = _arrays(facts, space)
    found: list = []
    for relation, group, differ in ((CROSS, None, "block"), (BLOCK, "block", "gwarp"), (WARP, "gwarp", None)):
        if relation not in relations:
            continue
        keys_a = [el_a] if group is None else [el_a, cols[group][rows_a]]
        keys_b = [el_b] if group is None else [el_b, cols[group][rows_b]]
        x_a = rows_a if differ is None else cols[differ][rows_a]
        x_b = rows_b if differ is None else cols[differ][rows_b]
        if same:
            keys, x, side = keys_a, x_a, None
        else:
            keys = [np.concatenate((p, q)) for p, q in zip(keys_a, keys_b)]
            x = np.concatenate((x_a, x_b))
            side = np.concatenate((np.zeros(len(x_a), np.int8), np.ones(len(x_b), np.int8)))
        order = np.lexsort((x, *reversed(keys)))
        ks = [k[order] for k in keys]
        starts = np.flatnonzero(np.r_[True, np.any([k[1:] != k[:-1] for k in ks], axis=0)])
        ends = np.r_[starts[1:], len(order)] - 1
        xs = x[order]
        ok = xs[starts] != xs[ends]
        if side is not None:
            sides = side[order]
            ok &= np.minimum.reduceat(sides, starts) != np.maximum.reduceat(sides, starts)
        found.extend(ks[0][starts[ok]][:_CANDIDATES].tolist())
        if len(found) >= _CANDIDATES:
            break
    return set(found[:_CANDIDATES])


def _arrays(facts: Facts, space) -> dict:
    """The space's thread columns the candidates group by, as numpy arrays (made once)."""
    import numpy as np
    key = ("races.arrays", id(space))
    if key not in facts.memo:
        cols = space.threads.columns
        facts.memo[key] = {name: np.asarray(cols[name]) for name in ("block", "gwarp")}
    return facts.memo[key]


def _only(col, kept: set, rounds):
    """(rows, elements, values, rounds) of the instances that touch an element of `kept`."""
    rows, els, vals = col[0], col[1], col[2]
    keep = [n for n, e in enumerate(els) if e in kept]
    return ([rows[n] for n in keep], [els[n] for n in keep], None if vals is None else [vals[n] for n in keep],
            None if rounds is None else [rounds[n] for n in keep])


def _blockless(facts: Facts, acc: _Access) -> bool:
    """Are the access's index, its stored value and who runs it the same in every block?"""
    space = facts.space
    return space.same_in_every_block(acc.ins.ref.index, acc.label) and (
        acc.kind != "write" or space.same_in_every_block(acc.ins.args[1], acc.label))


def _columns(facts: Facts, space, acc: _Access):
    """(rows, elements, stored values or None, the index's symbolic part) of the access's instances,
    in `space`; None where who runs it, or the element, is not known."""
    key = id(space)
    if key not in acc.cols:
        acc.cols[key] = None
        inst = space.of(acc.label)
        index = space.value(acc.ins.ref.index, acc.label) if _certain(facts, space, acc.label, inst) else None
        if index is not None:
            values = None
            if acc.kind == "write" or acc.ins.op == "atom.exch":      # (another atomic's result: unknown)
                stored = space.value(acc.ins.args[1], acc.label) or _read_only_word(facts, space, acc)
                if stored is not None and not stored[1]:
                    values = stored[0]
                elif stored is not None:
                    values = [(x, stored[1]) for x in stored[0]]     # a parameter's value: compared whole
            acc.cols[key] = (inst.thread, index[0], values, index[1])
    return acc.cols[key]


def _read_only_word(facts: Facts, space, acc: _Access):
    """The stored value as a column where it is loaded from one element, the same in every instance,
    of an array the kernel never writes: every thread stores the same value (`x[1] = x[3]`)."""
    v = acc.ins.args[1]
    d = facts.def_of(v)
    while d is not None and d.op in ("mov", "cvt"):
        d = facts.def_of(d.args[0])
    if d is None or d.op != "ld":
        return None
    index = space.value(d.ref.index, acc.label)
    if index is None or len(set(index[0])) > 1:
        return None
    word = (d.ref.name, d.ref.field, index[0][0] if index[0] else None, index[1])
    if _may_write(facts, space, word):
        return None
    return [0] * len(index[0]), (word,)


def _may_write(facts: Facts, space, word) -> bool:
    """Can a store or an atomic of the kernel touch the element `word` (name, field, index, symbolic
    part)? Yes where one's index is not known."""
    name, field, element, sym = word
    for b, _, ins in facts.k.instructions():
        if ins.ref is None or ins.ref.name != name or ins.ref.field != field or not (
                ins.op == "st" or ins.info.group == "atomic"):
            continue
        col = space.value(ins.ref.index, b.label)
        if col is None or col[1] != sym or element in col[0]:
            return True
    return False


def _certain(facts: Facts, space, label: str, inst) -> bool:
    """Do exactly the instances listed run the block? As the space says (`exact`), or where the only
    conditions it could not evaluate are the exits of loops the block comes after: a thread that
    reaches a spin loop runs what follows once the loop ends (that it ends is the waits' checks'
    business); or tests inside an uncounted loop that can only end once the block has run (a
    retry loop's section: `while !done { if try() { section; done = true } }`), which each
    thread that enters it then runs at least once."""
    if inst is None or inst.exact:
        return inst is not None
    retried = [lp for lp in facts.loops if label in lp.blocks and lp.head not in space.counted]
    if not all(leaves_only_after(facts, lp, label) for lp in retried):
        return False                     # (an uncounted loop that can end without running the block)
    for cond, _, branch in facts.guards(label):
        if facts.is_party_branch(branch):
            return False                 # a @warp/@block leader's: the space lists the whole party
        if branch in space.counted or any(branch in lp.blocks for lp in retried):
            continue                     # (a test inside a loop that ends only once the block has run)
        if any(branch in lp.blocks and label not in lp.blocks for lp in facts.loops):
            continue                     # the exit of a loop before the block
        col = space.value(cond, label)
        if col is None or col[1]:
            return False
    return True


# ---- the report --------------------------------------------------------------------------------

def _report(facts: Facts, code: str, at: _Access, other: _Access, row_at: int, row_other: int, element,
            relation: str, shared: list, ctx: PassContext) -> None:
    name = at.name
    what = f"`{name}{_subscripts(facts, name, element)}`" if isinstance(element, int) else f"`{name}` at {element}"
    if at.ins.ref.field is not None:
        what += f" (field `{at.ins.ref.field}`)"
    t_at, t_other = _thread(facts, row_at), _thread(facts, row_other)
    verb = {"write": "stores to", "read": "reads", "atomic": "updates"}
    if code == "E0732":
        ctx.sink.error("E0732", f"{t_at} reads {what} while {t_other} ({relation}) can store to it, with nothing "
                       "ordering the two: the read can see the value before the store or after it",
                       at.ins.span, notes=[Note(f"{t_other} stores to it here", other.ins.span)],
                       help="order the two (a `barrier` between threads of one block, a wait the writer ends), "
                            "or read with `load_cg` where either value will do")
        return
    if code == "E0731" and other.kind == "atomic":
        op = other.ins.op.split(".")[1]
        ctx.sink.error("E0731", f"{t_at} stores to {what} plainly while {t_other} ({relation}) updates it with "
                       f"`atomic_{op}`, with nothing ordering the two: a plain store is not atomic with the update, "
                       f"so {'the update can be lost' if op != 'exch' else 'which value remains depends on the schedule'}",
                       at.ins.span, notes=[Note(f"{t_other} updates it here", other.ins.span)],
                       help="store with an atomic too (`atomic_exch`), or order the store before the updates (a "
                            "`barrier` between threads of one block, a launch of its own between blocks)")
        return
    if code == "E0731":
        notes = [] if other is at else [Note(f"{t_other} stores to it here", other.ins.span)]
        party = ""
        if at.locks:
            gran = sorted({x.gran for x in at.locks if x.gran != "thread"})
            party = (f", although both hold {_lock_word(at.locks)}: a @{'/@'.join(gran)} lock is held by its "
                     "party's threads together, and keeps apart only threads of different parties")
        ctx.sink.error("E0731", f"{t_at} and {t_other} ({relation}) both store to {what}, with nothing "
                       f"ordering the two stores{party}: which value remains depends on the schedule", at.ins.span,
                       notes=notes,
                       help="give each thread its own element (`out[gtid]`), let one thread store (`if gtid == 0 "
                            "{ ... }`), order the stores (a `barrier` between threads of one block), or combine "
                            "the values with an atomic (`atomic_add`, `atomic_max`)")
        return
    if shared:
        lock = shared[0]
        if lock.permits is None:
            inside = f"a `read` section of `{lock.name}`, which readers hold at once"
            fix = "write under `write`, which keeps every other reader and writer out"
        else:
            most = max((x.permits for x in shared), default=1)
            inside = (f"an `acquire` section of `{lock.name}`, whose permits let others hold it at once"
                      if lock.room is None else
                      f"an `acquire` section of the semaphore `{lock.name}` ({lock.room} permits), which "
                      f"this section and the other ({lock.permits} + {most} permits) hold at once")
            fix = (f"make the sections that update it take more than half of `{lock.name}`'s permits "
                   f"(`acquire {lock.name}(k)`), or guard the data with a `mutex`")
            if lock.room is None:
                fix = f"no `post` of `{lock.name}` outside its sections may add permits; or guard the data with a `mutex`"
        ctx.sink.error("E0730", f"{t_at} {verb[at.kind]} {what} inside {inside}: {t_other} can "
                       f"{'store to' if other.kind == 'write' else 'touch'} it at the same time, and an "
                       "update is lost", at.ins.span,
                       notes=[Note(f"guarded by {_lock_word(other.locks)} here", other.ins.span)] if other is not at
                       else (),
                       help=fix)
        return
    held_here = {x.name for x in at.locks}
    guard = _lock_word(frozenset(x for x in other.locks if x.name not in held_here) or other.locks)
    can = {"write": "store to", "read": "read", "atomic": "update"}
    ctx.sink.error("E0730", f"{t_at} {verb[at.kind]} {what} without {guard}, which guards it elsewhere: "
                   f"{t_other} can {can[other.kind]} it at the same time, and an update is lost", at.ins.span,
                   notes=[Note(f"guarded by {guard} here", other.ins.span)],
                   help=f"take {guard} here too (a `critical` section around the access), or order the "
                        "two accesses (a barrier, or a wait the other side ends)")


def _subscripts(facts: Facts, name: str, element: int) -> str:
    """`[2][5]` for element 21 of an array of 8 columns (row-major), `[21]` where the shape is not
    known."""
    dims = facts.k.array(name).dims
    if len(dims) < 2 or not all(isinstance(d, int) for d in dims):
        return f"[{element}]"
    out = []
    for d in reversed(dims):
        out.append(element % d)
        element //= d
    return "".join(f"[{x}]" for x in reversed(out))


def _thread(facts: Facts, row: int) -> str:
    """A row's thread; a virtual row (-1 - r: the first block's row r in another block) as block 1.
    (The first block's rows are the same threads in the whole launch's space.)"""
    cols = facts.threads.columns
    if row < 0:
        return f"thread {cols['tid'][-1 - row]} of block 1"
    if facts.threads.shape.blocks == 1:
        return f"thread {cols['tid'][row]}"
    return f"thread {cols['tid'][row]} of block {cols['block'][row]}"
