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
    E0719  a @warp or @block mutex, rwlock or semaphore array indexed by a value that differs
           within the party: the leader takes its own element for everyone
    E0722  an MCS mutex held twice at once by one thread (mcs2: three times): each holding
           needs a queue node of its own, and the thread has one (two)

Semaphores used as locks (`acquire s`, or `wait s` ... `post s` in one thread) take part in the
lock order when their permits can run out: a count smaller than the parties that take them.
The inner index of two elements of one array is proven larger from linear forms, from
`min`/`max` pairs under `a != b`, and from the branch conditions that guard the inner lock
(`if a < b { lock m[a]; lock m[b] }`), through `let`s and copies (values.py).

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


def lock_like(facts: Facts) -> set[int]:
    """The semaphore waits that take a permit the same thread gives back later (`acquire s { }`,
    or a `wait s` some `post s` of the same instance follows): a hold, as a lock's. A wait with
    no post after it is a consumer's, which holds nothing."""
    if "lock_like" not in facts.memo:
        found = set()
        posts = [(facts.where[id(i)], i) for _, _, i in facts.k.instructions() if i.op == "sem.post"]
        for _, _, ins in facts.k.instructions():
            if ins.op not in ("sem.wait", "sem.trywait", "sem.tryfor"):
                continue
            key = facts.value_key(ins.ref.index)
            here = facts.where[id(ins)]
            if ins.attr("region") is not None or any(
                    p.ref.name == ins.ref.name and facts.value_key(p.ref.index) == key and facts.reaches(here, at)
                    and _same_threads(facts, here[0], at[0]) for at, p in posts):
                found.add(id(ins))
        facts.memo["lock_like"] = found
    return facts.memo["lock_like"]


def _same_threads(facts: Facts, a: str, b: str) -> bool:
    """Can one thread run both blocks? (True when either is unknown.)"""
    ia, ib = facts.instances(a), facts.instances(b)
    if ia is None or ib is None:
        return True
    return not set(ia.thread).isdisjoint(ib.thread)


def _step(facts: Facts, state: frozenset, ins: Instr, mutexes) -> frozenset:
    ref = ins.ref
    if ref is None or ref.name not in mutexes:
        return state
    if ins.op == "sem.wait" and id(ins) not in lock_like(facts):
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
    _party_index(facts, ctx)
    if not any(p.kind in LOCKABLE or _lock_like(facts, p) for p in k.prims):
        return
    before, at_entry = held(facts, kinds=LOCKABLE + ("semaphore",))
    locks_only = {i: frozenset(h for h in hs if facts.k.prim(h.prim).kind in LOCKABLE) for i, hs in before.items()}
    _trylock_support(facts, ctx)
    relocked = _lock_order(facts, before, ctx)
    _queue_nodes(facts, locks_only, ctx)
    _nested_in_one_warp(facts, locks_only, ctx)
    _pairing(facts, locks_only, {b: frozenset(h for h in hs if facts.k.prim(h.prim).kind in LOCKABLE)
                                 for b, hs in at_entry.items()}, relocked, ctx)
    _narrow_scope(facts, locks_only, ctx)


def _lock_like(facts: Facts, prim) -> bool:
    return prim.kind == "semaphore"


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

def _acquires(facts: Facts, ins: Instr) -> bool:
    """Does the instruction take a lock, or a semaphore's permit as a lock does?"""
    return ins.op in LOCKS or ins.op == "sem.wait" and id(ins) in lock_like(facts)


def _lock_order(facts: Facts, before, ctx: PassContext) -> set[str]:
    """Report cycles; return the mutexes some thread takes while holding the same instance."""
    k = facts.k
    relocked: set[str] = set()
    edges: dict[tuple[str, str], tuple[Instr, Instr]] = {}   # (outer, inner) primitive names → sites
    for _, _, ins in k.instructions():
        if not _acquires(facts, ins):
            continue
        for h in before.get(id(ins), frozenset()):
            if not _can_run_out(facts, h.prim) or not _can_run_out(facts, ins.ref.name):
                continue
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
            kinds = {k.prim(outer).kind, k.prim(inner).kind}
            what = "taken" if kinds <= set(LOCKABLE) else "acquired"
            ctx.sink.error("E0703", f"`{outer}` and `{inner}` are {what} in both orders: a thread holding `{outer}` "
                           f"waits for `{inner}` here while another holding `{inner}` waits for `{outer}`"
                           + _permits(k, outer, inner), nested.span,
                           notes=[Note(f"`{outer}` is held from here", site.span),
                                  Note(f"`{outer}` is {what} while `{inner}` is held here", other_nested.span)],
                           help=f"take them in one order everywhere, e.g. always `{outer}` before `{inner}`")
    return relocked


def _permits(k, *names) -> str:
    sems = [n for n in names if k.prim(n).kind == "semaphore"]
    if not sems:
        return ""
    return " (" + ", ".join(f"`{n}` has {k.prim(n).count} permit{'s' if k.prim(n).count != 1 else ''}"
                            for n in sems) + ", and more threads than that can hold it)"


def _can_run_out(facts: Facts, name: str) -> bool:
    """Can every permit of a semaphore be held at once, so that the next taker waits? Always for a
    mutex or rwlock; for a semaphore when its count is smaller than the parties that take it."""
    prim = facts.k.prim(name)
    if prim.kind != "semaphore":
        return True
    memo = facts.memo.setdefault("runs_out", {})
    if name not in memo:
        parties: set = set()
        column = {"thread": None, "warp": "gwarp", "block": "block"}[prim.granularity]
        known = True
        for b, _, ins in facts.k.instructions():
            if ins.op == "sem.wait" and ins.ref.name == name and id(ins) in lock_like(facts):
                inst = facts.instances(b.label)
                if inst is None:
                    known = False
                    break
                rows = inst.thread if column is None else [facts.threads.columns[column][r] for r in inst.thread]
                parties.update(rows)
        memo[name] = not known or not facts.threads.every_block or len(parties) > (prim.count or 0)
    return memo[name]


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
    order = order_of(facts, a, b, facts.where[id(ins)][0])
    if order == "ascending":
        return False
    why = ("the order of the two indices depends on the data, so one thread can hold "
           f"`{name}[x]` and wait for `{name}[y]` while another holds `{name}[y]` and waits for `{name}[x]`"
           if order is None else f"when the two indices are equal the thread waits for the `{name}` it holds")
    ctx.sink.error("E0703", f"possible lock-order cycle on `{name}`: {why}", ins.span,
                   notes=[Note("the outer lock is taken here", outer.site.span)],
                   help="take the lower index first: `critical m[min(a, b)] { critical m[max(a, b)] { ... } }` "
                        "inside `if a != b`, or `if a < b { ... }` with the smaller one outside")
    return False


_STRICT = {("cmp.lt", True): "<", ("cmp.ge", False): "<", ("cmp.gt", True): ">", ("cmp.le", False): ">",
           ("cmp.ne", True): "!=", ("cmp.eq", False): "!="}


def order_of(facts: Facts, a, b, label: str) -> str | None:
    """"ascending" when b > a wherever `label` runs, "maybe equal" for a min/max pair that may be
    equal, else None (not proven). From linear forms, min/max pairs, and the conditions of the
    branches guarding `label`, through copies and `let`s (value keys)."""
    fa, fb = facts.uni.form(a), facts.uni.form(b)
    if fa is not None and fb is not None:
        diff = fb.add(fa, -1)
        if not diff.terms:
            return "ascending" if diff.const > 0 else None
    ka, kb = facts.value_key(a), facts.value_key(b)
    (base_a, ca), (base_b, cb) = _offset(ka), _offset(kb)
    if base_a == base_b:
        return "ascending" if cb > ca else None
    facts_here = _relations(facts, label)
    if (ka, kb, "<") in facts_here:
        return "ascending"
    enumerated = _enumerated_order(facts, a, b, label)
    if enumerated is not None:
        return enumerated
    if ka[0] == "min" and kb[0] == "max" and set(ka[2]) == set(kb[2]) and len(ka[2]) == 2:
        x, y = ka[2]
        if {(x, y, "!="), (y, x, "!="), (x, y, "<"), (y, x, "<")} & facts_here:
            return "ascending"
        return "maybe equal"
    return None


def _offset(key) -> tuple:
    """(base, constant) with key = base + constant, peeling additions of immediates (`i + 1`)."""
    const = 0
    while isinstance(key, tuple) and key and key[0] in ("add", "sub") and len(key) == 3:
        x, y = key[2]
        if y[0] == "imm":
            const += y[1] if key[0] == "add" else -y[1]
            key = x
        elif x[0] == "imm" and key[0] == "add":
            const += x[1]
            key = y
        else:
            break
    return key, const


def _enumerated_order(facts: Facts, a, b, label: str) -> str | None:
    """Evaluate both indices in every instance of the inner lock: "ascending" when b > a in all of
    them, "maybe equal" when b >= a with some equal; None when unknown or some b < a."""
    va, vb = facts.value(a, label), facts.value(b, label)
    if va is None or vb is None or va[1] != vb[1] or not va[0]:
        return None
    if all(y > x for x, y in zip(va[0], vb[0])):
        return "ascending"
    if all(y >= x for x, y in zip(va[0], vb[0])):
        return "maybe equal"
    return None


def _relations(facts: Facts, label: str) -> set[tuple]:
    """(value key, value key, "<" or "!=") for every strict relation the guards of `label` assert."""
    memo = facts.memo.setdefault("relations", {})
    if label not in memo:
        out = set()
        for cond, polarity in facts._guards(label):
            d = facts.def_of(cond)
            while d is not None and d.op == "mov" and facts.def_of(d.args[0]) is not None:
                d = facts.def_of(d.args[0])
            if d is None or len(d.args) != 2:
                continue
            rel = _STRICT.get((d.op, polarity))
            if rel is None:
                continue
            x, y = (facts.value_key(v) for v in d.args)
            if rel == ">":
                x, y, rel = y, x, "<"
            out.add((x, y, rel))
            if rel == "<":
                out.add((x, y, "!="))
            out.add((y, x, "!=") if rel == "!=" else (y, x, "!="))
        memo[label] = out
    return memo[label]


# ---- E0722 -------------------------------------------------------------------------------------

_QUEUE_NODES = {"mcs": 1, "mcs2": 2}


def _queue_nodes(facts: Facts, before, ctx: PassContext) -> None:
    """An MCS lock queues each waiter on a node of its own; mcs has one per thread, mcs2 two. A
    thread that takes an element while holding as many elements of the same array as it has
    nodes would queue the new one on a node still in use."""
    told = set()
    for _, _, ins in facts.k.instructions():
        if ins.op != "mutex.lock":
            continue
        prim = facts.k.prim(ins.ref.name)
        nodes = _QUEUE_NODES.get(prim.impl)
        if nodes is None:
            continue
        holding = {h.value: h for h in before.get(id(ins), frozenset()) if h.prim == prim.name}
        if len(holding) < nodes or ins.span in told:
            continue
        told.add(ins.span)
        first = min(holding.values(), key=lambda h: _start(h.site))
        ctx.sink.error("E0722", f"`{prim.name}` is an `{prim.impl}` lock, with {nodes} queue node"
                       f"{'s' if nodes > 1 else ''} per thread, and this thread already holds "
                       f"{len(holding)} of its elements: it would queue here on a node still in use, and the "
                       "holder and the waiter would both wait on that node", ins.span,
                       notes=[Note(f"an element of `{prim.name}` this thread holds is taken here", first.site.span)],
                       help="use `mcs2` (two nodes per thread, for two nested elements) or another implementation "
                            "(`ticket`, `ttas`)" if nodes == 1 else
                            "nest at most two elements, or use another implementation (`ticket`, `ttas`)")


# ---- E0719 -------------------------------------------------------------------------------------

_PARTY = {"warp": ("gwarp", "warp", "lanes of a warp", "warp"), "block": ("block", "block", "threads of a block", "bid")}


def _party_index(facts: Facts, ctx: PassContext) -> None:
    """A @warp (@block) mutex, rwlock or semaphore is taken by one leader for the whole party: the
    element it takes is the leader's. An index that differs within the party makes the other
    threads work under an element they do not hold (updates are lost)."""
    from ..uniformity import BLOCK, WARP
    k, told = facts.k, set()
    for b, _, ins in k.instructions():
        if ins.op not in ("mutex.lock", "mutex.trylock", "rw.lock", "sem.wait", "sem.trywait", "sem.tryfor") \
                or ins.span in told or b.label not in facts.cfg.reachable:
            continue
        prim = k.prim(ins.ref.name)
        if prim is None or prim.granularity not in _PARTY or prim.instances == 1:
            continue
        column, unit, who, uniform_name = _PARTY[prim.granularity]
        level = facts.uni.level(ins.ref.index)
        if level <= (WARP if prim.granularity == "warp" else BLOCK):
            continue
        differs = _differs_within(facts, b.label, ins.ref.index, column)
        if differs is False:
            continue
        told.add(ins.span)
        example = (f"is not the same for all of them ({differs})" if isinstance(differs, str) else
                   "may differ between them (it comes from data each thread loads)")
        ctx.sink.error("E0719", f"`{prim.name}` is @{prim.granularity}: one leader takes an element for all the "
                       f"{who}, but this index {example}; the others would work under an element they do "
                       "not hold", ins.span,
                       notes=[Note(f"`{prim.name}` is declared @{prim.granularity} here", prim.span)],
                       help=f"index it by something the whole {unit} agrees on (`{uniform_name}`, or a value "
                            f"read after a barrier), or declare it @thread so each thread takes its own element")


def _differs_within(facts: Facts, label: str, index, column: str):
    """False when the index is the same throughout each party; a description of two members that
    differ; True when it may differ (unknown)."""
    col = facts.value(index, label)
    inst = facts.instances(label)
    if col is None or inst is None or col[1]:
        return True
    first: dict[int, tuple[int, int]] = {}
    parties = facts.threads.columns[column]
    for row, v in zip(inst.thread, col[0]):
        p = parties[row]
        seen = first.setdefault(p, (row, v))
        if seen[1] != v:
            t = facts.threads
            return f"{t.describe(seen[0])} has {seen[1]}, {t.describe(row)} has {v}"
    return False


# ---- E0709 (shared mutexes) -----------------------------------------------------------------------

def _narrow_scope(facts: Facts, before, ctx: PassContext) -> None:
    """A shared mutex is one per block: it keeps out only its own block's threads. Data in global
    memory that threads of two blocks may touch at the same index under it is not protected."""
    k = facts.k
    if facts.shape.blocks == 1:
        return
    told = set()
    for b, _, ins in k.instructions():
        if ins.op not in ("st",) and ins.info.group != "atomic":
            continue
        array = k.array(ins.ref.name)
        if array is None or array.space != "global":
            continue
        for h in before.get(id(ins), frozenset()):
            prim = k.prim(h.prim)
            if prim.placement != "shared" or (h.prim, ins.ref.name) in told:
                continue
            clash = _blocks_share(facts, b.label, ins.ref.index)
            if clash is False:
                continue
            told.add((h.prim, ins.ref.name))
            why = (f" ({clash})" if isinstance(clash, str) else
                   " (the index depends on data, so nothing keeps two blocks apart)")
            ctx.sink.error("E0709", f"`{h.prim}` is in shared memory, so every block has its own: it does not keep "
                           f"the other blocks from writing `{ins.ref.name}` here at the same time{why}", ins.span,
                           notes=[Note(f"`{h.prim}` is declared here", prim.span),
                                  Note("and held from here", h.site.span)],
                           help=f"declare `{h.prim}` `in global`, or index `{ins.ref.name}` so that each block has "
                                "elements of its own (`bid * n + ...`)")


def _blocks_share(facts: Facts, label: str, index):
    """Can threads of two different blocks reach this access with the same index? False when
    not; a description of two that do; True when unknown."""
    col = facts.value(index, label)
    inst = facts.instances(label)
    if col is None or inst is None:
        return True
    values, symbolic = col
    blocks = facts.threads.columns["block"]
    owner: dict[int, int] = {}
    for row, v in zip(inst.thread, values):
        other = owner.setdefault(v, row)
        if blocks[other] != blocks[row]:
            t = facts.threads
            return f"{t.describe(other)} and {t.describe(row)} both write element {v}" + (" + ..." if symbolic else "")
    return False
