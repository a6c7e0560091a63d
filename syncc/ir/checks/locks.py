"""Checks on mutexes and reader-writer locks: which are held where, the order they are
taken in, and whether they protect what they are used for.

    E0701  (stack-based targets) an element of a @thread mutex array taken while the thread
           holds another element of the same array: a lane that has finished waits, still holding
           its outer element, where its warp reconverges after the inner polling loop, for lanes
           that may spin on that very element (what the simulator reports as E0905)
    E0703  lock-order cycle: two locks taken in both orders, or one lock taken again (for an
           rwlock in either mode: a `write` inside a `read` of the same lock waits for itself;
           a `read` inside a `read` too, except with the reader-preferring `counter`, where no
           waiting writer can stand between the two)
    E0709  scope too narrow: a shared-memory mutex guarding global data that other blocks touch
    E0715  unlock of a mutex no path has locked, or a mutex still held when the kernel ends
    E0717  trylock on an implementation where a waiter cannot give up (ticket, MCS)

`held(...)` is a forward dataflow over the lowered IR: at each instruction, the
mutex and rwlock instances some path may hold, as (primitive, index operand). A trylock
adds its instance only on the branch edge where it succeeded.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...diagnostics import Note
from ...frontend.catalogue import implementations
from ..context import PassContext
from ..nodes import Branch, Instr
from ..ops import LOCKS
from .facts import Facts

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
            state = _step(facts, state, ins, mutexes)
        for succ, out in _edges(facts, block, state, mutexes):
            new = at_entry[succ] | out
            if new != at_entry[succ] or succ not in visited:
                at_entry[succ] = new
                work.append(succ)
    return before, at_entry


def _step(facts: Facts, state: frozenset, ins: Instr, mutexes) -> frozenset:
    ref = ins.ref
    if ref is None or ref.name not in mutexes:
        return state
    if ins.op in HOLDS:
        return state | {Held(ref.name, ref.index, facts.value_key(ref.index), ins)}
    if ins.op in UNLOCKS:
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
            skipped = _step(facts, skipped, ins, mutexes)
        return [(term.if_true, state), (term.if_false, skipped)]
    tries = [ins for ins in facts.sources(term.cond) if ins.op in TRIES and ins.ref.name in mutexes]
    got = frozenset(Held(t.ref.name, t.ref.index, facts.value_key(t.ref.index), t) for t in tries)
    return [(term.if_true, state | got), (term.if_false, state)]


def check_locks(facts: Facts, ctx: PassContext) -> None:
    k = facts.k
    if not any(p.kind in LOCKABLE for p in k.prims):
        return
    before, at_entry = held(facts)
    _trylock_support(facts, ctx)
    relocked = _lock_order(facts, before, ctx)
    _nested_in_one_warp(facts, before, ctx)
    _pairing(facts, before, at_entry, relocked, ctx)
    _narrow_scope(facts, before, ctx)


# ---- E0701 -------------------------------------------------------------------------------------

def _nested_in_one_warp(facts: Facts, before, ctx: PassContext) -> None:
    """Nested elements of one @thread mutex array, on a GPU whose warps reconverge on a stack.
    The inner lock's polling loop ends at a reconvergence point: a lane that got both locks
    and left the loop waits there, holding its outer element, for the lanes still polling, and
    one of them may poll for that element (seed 000 §4.4.1, for two locks)."""
    if not ctx.target.stack_based:
        return
    for _, _, ins in facts.k.instructions():
        if ins.op != "mutex.lock":
            continue
        prim = facts.k.prim(ins.ref.name)
        if prim.granularity != "thread":
            continue
        outer = next((h for h in before.get(id(ins), frozenset()) if h.prim == prim.name), None)
        if outer is None:
            continue
        ctx.sink.error(
            "E0701", f"potential SIMT deadlock: an element of `{prim.name}` is taken while this thread holds "
            f"another; a lane that gets both waits, still holding its first, where its warp reconverges after "
            f"this lock's polling loop, and another lane of the warp can be polling for that very element",
            ins.span, notes=[Note(f"the element of `{prim.name}` this thread holds is taken here", outer.site.span)],
            help=f"take both or neither in a retry loop: `if trylock {prim.name}[a] {{ if trylock "
                 f"{prim.name}[b] {{ ...; unlock {prim.name}[b] }}; unlock {prim.name}[a] }}` (a lane never waits "
                 "holding one), or make the mutex @warp")


# ---- E0717 -------------------------------------------------------------------------------------

def _trylock_support(facts: Facts, ctx: PassContext) -> None:
    for _, _, ins in facts.k.instructions():
        if ins.op != "mutex.trylock":
            continue
        prim = facts.k.prim(ins.ref.name)
        impl = implementations("mutex")[prim.impl]
        if not impl.abandonable:
            able = ", ".join(sorted(i.name for i in implementations("mutex").values()
                                    if i.abandonable and prim.placement in i.placements))
            ctx.sink.error("E0717", f"`trylock` cannot be used on `{prim.name}`: a {prim.impl} lock queues every "
                           "thread that tries it, so a thread cannot try once and give up", ins.span,
                           notes=[Note(f"`{prim.name}` is implemented as {prim.impl}", prim.span)],
                           help=f"declare it `using` an implementation a thread can give up on: {able}")


# ---- E0715 -------------------------------------------------------------------------------------

def _pairing(facts: Facts, before, at_entry, relocked: set[str], ctx: PassContext) -> None:
    """(A mutex taken twice was reported as E0703; its pairing would only repeat that.)"""
    k = facts.k
    for b, _, ins in k.instructions():
        # a structured section's unlock (region=N) is paired by construction
        if ins.op == "mutex.unlock" and ins.attr("region") is None and b.label in facts.cfg.reachable \
                and ins.ref.name not in relocked:
            state = before.get(id(ins), frozenset())
            if not any(h.prim == ins.ref.name for h in state):     # (any instance: indices may differ in form)
                ctx.sink.error("E0715", f"`unlock` of `{ins.ref.name}`, which no path to here has locked",
                               ins.span, help="lock it first on every path, or write `critical m { ... }`")
    mutexes = {p.name for p in k.prims if p.kind in LOCKABLE}
    reported = set()
    for b in k.blocks:
        if b.term.targets or b.label not in facts.cfg.reachable:
            continue
        state = at_entry[b.label]
        for ins in b.instrs:
            state = _step(facts, state, ins, mutexes)
        for h in sorted(state, key=lambda h: h.site.span.start if h.site.span else 0):
            if id(h.site) in reported or h.prim in relocked:
                continue
            reported.add(id(h.site))
            ctx.sink.error("E0715", f"`{h.prim}` may still be held when the kernel ends: some path from this "
                           "`lock` reaches the end without an `unlock`", h.site.span,
                           notes=[Note("the kernel ends here", b.term.span)] if b.term.span else (),
                           help="unlock on every path, or write `critical m { ... }`, which always releases")


# ---- E0703 -------------------------------------------------------------------------------------

def _lock_order(facts: Facts, before, ctx: PassContext) -> set[str]:
    """Report cycles; return the mutexes some thread takes while holding the same instance."""
    k = facts.k
    relocked: set[str] = set()
    edges: dict[tuple[str, str], tuple[Instr, Instr]] = {}   # (outer, inner) primitive names → sites
    for _, _, ins in k.instructions():
        if ins.op not in LOCKS:
            continue
        for h in before.get(id(ins), frozenset()):
            if h.prim == ins.ref.name and _shared_reads_nest(k, h, ins):
                continue
            if h.prim == ins.ref.name:
                if _same_array(facts, h, ins, ctx):
                    relocked.add(h.prim)
            else:
                edges.setdefault((h.prim, ins.ref.name), (h.site, ins))
    for (outer, inner), (site, nested) in sorted(edges.items()):
        if outer < inner and (inner, outer) in edges:
            other_site, other_nested = edges[(inner, outer)]
            if _start(other_nested) > _start(nested):       # report where the cycle closes, in source order
                outer, inner = inner, outer
                site, nested, other_site, other_nested = other_site, other_nested, site, nested
            ctx.sink.error("E0703", f"`{outer}` and `{inner}` are taken in both orders: a thread holding `{outer}` "
                           f"waits for `{inner}` here while another holding `{inner}` waits for `{outer}`",
                           nested.span, notes=[Note(f"`{outer}` is held from here", site.span),
                                               Note(f"`{outer}` is taken while `{inner}` is held here",
                                                    other_nested.span)],
                           help=f"take them in one order everywhere, e.g. always `{outer}` before `{inner}`")
    return relocked


def _shared_reads_nest(k, outer: Held, ins: Instr) -> bool:
    """A `read` inside a `read` of a counter rwlock: readers never wait for readers, and no
    writer can be queued between them (it waits for the word to be 0)."""
    return outer.mode == ins.attr("mode") == "read" and k.prim(ins.ref.name).impl == "counter"


def _start(ins: Instr) -> int:
    return ins.span.start if ins.span else 0


def _same_array(facts: Facts, outer: Held, ins: Instr, ctx: PassContext) -> bool:
    """Two instances of one mutex array, one taken while the other is held. True when they
    are the same instance."""
    a, b = outer.index, ins.ref.index
    name = ins.ref.name
    if outer.value == facts.value_key(b):
        if outer.mode is None:
            what, help = "", "a mutex is not re-entrant: take it once"
        else:
            inner = ins.attr("mode")
            what = (f" (`{inner}` inside `{outer.mode}`" +
                    (": a writer that arrives in between makes the inner read wait for it, and it waits for "
                     "the outer read)" if inner == outer.mode == "read" else ")"))
            help = ("take it once, in `write` mode if the section writes" if "write" in (inner, outer.mode) else
                    "take it once, or use the reader-preferring `counter`, which lets a reader in again")
        ctx.sink.error("E0703", f"`{name}` is taken again while this thread already holds it{what}: it waits for "
                       "itself", ins.span, notes=[Note("it was taken here", outer.site.span)], help=help)
        return True
    order = _order(facts, a, b)
    if order == "ascending":
        return False
    why = ("the order of the two indices depends on the data, so one thread can hold "
           f"`{name}[x]` and wait for `{name}[y]` while another holds `{name}[y]` and waits for `{name}[x]`"
           if order is None else f"when the two indices are equal the thread waits for the `{name}` it holds")
    ctx.sink.error("E0703", f"possible lock-order cycle on `{name}`: {why}", ins.span,
                   notes=[Note("the outer lock is taken here", outer.site.span)],
                   help="take the lower index first: `critical m[min(a, b)] { critical m[max(a, b)] { ... } }` "
                        "inside `if a != b`")
    return False


def _order(facts: Facts, a, b) -> str | None:
    """"ascending" when b > a always, "maybe equal" for min/max without an a != b guard, else None."""
    fa, fb = facts.uni.form(a), facts.uni.form(b)
    if fa is not None and fb is not None:
        diff = fb.add(fa, -1)
        if not diff.terms:
            return "ascending" if diff.const > 0 else None
    da, db = facts.def_of(a), facts.def_of(b)
    if da is not None and db is not None and da.op == "min" and db.op == "max" and set(da.args) == set(db.args):
        if _guarded_unequal(facts, db, *da.args):
            return "ascending"
        return "maybe equal"
    return None


def _guarded_unequal(facts: Facts, site: Instr, x, y) -> bool:
    label = facts.where[id(site)][0]
    for cond, polarity in facts._guards(label):
        d = facts.def_of(cond)
        if d is not None and set(d.args) == {x, y} and (d.op, polarity) in (("cmp.ne", True), ("cmp.eq", False)):
            return True
    return False


# ---- E0709 (shared mutexes) -----------------------------------------------------------------------

def _narrow_scope(facts: Facts, before, ctx: PassContext) -> None:
    k = facts.k
    if k.grid is not None and k.grid[0] * k.grid[1] * k.grid[2] == 1:
        return
    told = set()
    for _, _, ins in k.instructions():
        if ins.op not in ("st",) and ins.info.group != "atomic":
            continue
        array = k.array(ins.ref.name)
        if array is None or array.space != "global":
            continue
        for h in before.get(id(ins), frozenset()):
            prim = k.prim(h.prim)
            if prim.placement != "shared" or (h.prim, ins.ref.name) in told:
                continue
            form = facts.uni.form(ins.ref.index)
            if form is None or any(v.startswith("ctaid") for v, _ in form.terms):
                continue
            told.add((h.prim, ins.ref.name))
            ctx.sink.error("E0709", f"`{h.prim}` is in shared memory, so every block has its own: it does not keep "
                           f"the other blocks from writing `{ins.ref.name}` here at the same time", ins.span,
                           notes=[Note(f"`{h.prim}` is declared here", prim.span),
                                  Note("and held from here", h.site.span)],
                           help=f"declare `{h.prim}` `in global`, or index `{ins.ref.name}` by block (`bid`)")
