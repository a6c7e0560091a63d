"""Checks on mutexes and reader-writer locks: the order they are taken in, and their pairing.

    E0701  (stack-based targets) an element of a @thread mutex array taken while the thread
           holds another element of the same array, where two lanes of a warp can take elements
           of it, and the nest is not one structuring takes all-or-nothing (ir/analysis/lock_nests.py: a
           lane that has finished would wait, still holding its outer element, where its warp
           reconverges after the inner polling loop, for lanes that may spin on that very
           element: what the simulator reports as E0905), or is, but in no proven order (lanes
           could give their elements back and take them again forever)
    E0703  lock-order cycle: two locks taken in both orders, or one lock taken again (for an
           rwlock in either mode: a `write` inside a `read` of the same lock waits for itself;
           a `read` inside a `read` too, except with the reader-preferring `counter`, where no
           waiting writer can stand between the two)
    E0715  unlock of a mutex no path has locked, or a mutex still held when the kernel ends
    E0717  trylock on an implementation where a waiter cannot give up (ticket, MCS)

Semaphores used as locks (`acquire s`, or `wait s` ... `post s` in one thread) take part in the
lock order when their permits can run out: a count smaller than the parties that take them.
Two elements of one array are in order when order.py proves the inner index the larger.
What is held where is held.py's dataflow.
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ..impls.registry import implementations
from ..context import PassContext
from ..impls.registry import implementation
from ..analysis.lock_nests import can_give_up, nest_of
from ..nodes import Instr
from ..ops import LOCKS
from ..analysis.facts import Facts
from .held import LOCKABLE, Held, can_run_out, held, lock_like, step
from ...core.prebuilt import dataclass
from .order import order_of
from .retries import retries

CODES = ("E0701", "E0703", "E0715", "E0717")      # what it reports (tests/ir/test_hazard_checks.py)


def check_locks(facts: Facts, ctx: PassContext) -> None:
    k = facts.k
    if not any(p.kind in LOCKABLE + ("semaphore",) for p in k.prims):
        return
    before, at_entry = held(facts, kinds=LOCKABLE + ("semaphore",))
    locks_only = {i: frozenset(h for h in hs if facts.k.prim(h.prim).kind in LOCKABLE) for i, hs in before.items()}
    _trylock_support(facts, ctx)
    relocked = _lock_order(facts, before, ctx)
    _nested_in_one_warp(facts, locks_only, ctx)
    _pairing(facts, locks_only, {b: frozenset(h for h in hs if facts.k.prim(h.prim).kind in LOCKABLE)
                                 for b, hs in at_entry.items()}, relocked, ctx)


# ---- E0701 -------------------------------------------------------------------------------------

def _nested_in_one_warp(facts: Facts, before, ctx: PassContext) -> None:
    """Nested elements of one @thread mutex array, on a GPU whose warps reconverge on a stack.
    Nested polling loops deadlock there: a lane that got every level leaves the inner loop and
    waits where its warp reconverges, holding its outer element, for the lanes still polling, and
    one of them may poll for that element (seed 000 §4.4.1, for two locks). Structuring takes a
    nest all-or-nothing in one loop instead (ir/analysis/lock_nests.py, passes/structure.py) where the
    implementation can give a lock back; that is safe when every thread takes the array's
    elements in one order (checks/order.py), and livelocks otherwise. Nothing to report where no
    two lanes of one warp take elements of the array: no warp-mate can poll for a held one."""
    if not ctx.target.stack_based:
        return
    k = facts.k
    for b, i, ins in k.instructions():
        if ins.op != "mutex.lock":
            continue
        prim = k.prim(ins.ref.name)
        if prim.granularity != "thread":
            continue
        held = [h for h in before.get(id(ins), frozenset()) if h.prim == prim.name]
        if not held or _one_lane_per_warp(facts, prim.name):
            continue
        name = prim.name
        # the innermost (last taken in the source) of those held: a set's order would depend on
        # the interpreter's hash seed, and the note with it
        outer = max(held, key=lambda h: h.site.span.start if h.site.span else -1)
        notes = [Note(f"the element of `{name}` this thread holds is taken here", outer.site.span)]
        stuck = (f"a lane that gets both waits, still holding its first, where its warp reconverges after this "
                 f"lock's polling loop, and another lane of the warp can be polling for that very element")
        if not _levels_of_a_nest(facts, b.label, i, held):
            ctx.sink.error(
                "E0701", f"potential SIMT deadlock: an element of `{name}` is taken while this thread holds "
                f"another; {stuck}", ins.span, notes=notes,
                help=f"take the nested elements one right after the other, with nothing between the locks but "
                     f"arithmetic and loads, and the outer section's work after the inner one (`critical "
                     f"{name}[min(a, b)] {{ critical {name}[max(a, b)] {{ ... }}; ... }}`): syncc then takes them "
                     "all-or-nothing in one polling loop; or make the mutex @warp")
        elif not can_give_up(k, name):
            able = ", ".join(sorted(m.name for m in implementations("mutex").values()
                                    if m.abandonable and prim.placement in m.placements))
            ctx.sink.error(
                "E0701", f"potential SIMT deadlock: an element of `{name}` is taken while this thread holds "
                f"another, and syncc cannot take the nest all-or-nothing, because a {prim.impl} lock queues every "
                f"thread that tries it (a lane cannot give its place back); {stuck}", ins.span,
                notes=notes + [Note(f"`{name}` is implemented as {prim.impl}", prim.span)],
                help=f"declare it `using` an implementation a thread can give up on ({able}): syncc then takes "
                     "the nest all-or-nothing in one polling loop")
        elif any(h.value == facts.value_key(ins.ref.index) for h in held):
            what = f"`{name}`" if prim.instances == 1 else f"the element of `{name}` this thread holds"
            ctx.sink.error(
                "E0701", f"potential livelock: {what} is taken again; on a stack-based GPU syncc takes nested "
                f"locks of one @thread array all-or-nothing (a lane that cannot take every one gives back what it "
                f"took and tries again), and a lane that holds it can never take it a second time", ins.span,
                notes=notes, help="take it once")
        elif not _one_order(facts, before, name):
            ctx.sink.error(
                "E0701", f"potential livelock: an element of `{name}` is taken while this thread holds another, "
                f"and syncc cannot prove that every thread takes the elements of `{name}` in one order; on a "
                "stack-based GPU it takes the nest all-or-nothing (a lane that cannot take every element gives "
                "back what it took and tries again), so lanes that each hold an element another one needs can "
                "give them back and take them again forever", ins.span, notes=notes,
                help=f"take the elements in one order everywhere: `critical {name}[min(a, b)] {{ critical "
                     f"{name}[max(a, b)] {{ ... }} }}` inside `if a != b`")


def _levels_of_a_nest(facts: Facts, label: str, index: int, held) -> bool:
    """Is the lock at `index` of block `label` a level of a nest that structuring takes
    all-or-nothing (lock_nests.py), and are the elements the thread holds there exactly the
    nest's levels before it?"""
    nest = nest_of(facts.k, facts.cfg, label, index)
    if nest is None:
        return False
    block = facts.cfg.blocks[label]
    outer = {facts.value_key(block.instrs[j].ref.index) for j in nest.locks if j < index}
    return {h.value for h in held} == outer


def _one_lane_per_warp(facts: Facts, name: str) -> bool:
    """Do the lanes that take elements of the @thread mutex array `name` (with `lock`, `critical`
    or `trylock`) belong to different warps, over the whole launch (analysis/space.py's instances, every
    block enumerated)?"""
    memo = facts.memo.setdefault("one_lane_per_warp", {})
    if name not in memo:
        rows: set[int] | None = set()
        for b, _, ins in facts.k.instructions():
            if ins.op in ("mutex.lock", "mutex.trylock") and ins.ref.name == name:
                inst = facts.instances(b.label)
                if inst is None:
                    rows = None
                    break
                rows.update(inst.thread)
        if rows is None or not facts.threads.every_block:
            memo[name] = False
        else:
            warps = facts.threads.columns["gwarp"]
            memo[name] = len({warps[r] for r in rows}) == len(rows)
    return memo[name]


def _one_order(facts: Facts, before, name: str) -> bool:
    """Is every nesting of two elements of `name` proven to go one way (the inner index always the
    larger everywhere, or always the smaller), as E0703 asks?"""
    memo = facts.memo.setdefault("one_order", {})
    if name not in memo:
        ways = {_direction(facts, h, ins) for _, _, ins in facts.k.instructions()
                if ins.op == "mutex.lock" and ins.ref.name == name
                for h in before.get(id(ins), frozenset()) if h.prim == name}
        memo[name] = ways in ({"up"}, {"down"})
    return memo[name]


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
    """(A mutex taken twice was reported as E0703; its pairing would only repeat that.) Where every
    thread's locks are replayed (replay_mutexes), their pairing is judged element by element."""
    k = facts.k
    replay = replay_mutexes(facts)
    replayed = replay.names if replay is not None else frozenset()
    for b, _, ins in k.instructions():
        # a structured section's unlock (region=N) is paired by construction
        if ins.op == "mutex.unlock" and ins.attr("region") is None and b.label in facts.cfg.reachable \
                and ins.ref.name not in relocked:
            state = before.get(id(ins), frozenset())
            if ins.ref.name in replayed and id(ins) not in replay.unpaired:
                continue
            if ins.ref.name in replayed or not any(h.prim == ins.ref.name for h in state):
                ctx.sink.error("E0715", f"`unlock` of `{ins.ref.name}`, which no path to here has locked",
                               ins.span, help="lock it first on every path, or write `critical m { ... }`")
    mutexes = {p.name for p in k.prims if p.kind in LOCKABLE}
    reported = set()
    for b in k.blocks:
        if b.term.targets or b.label not in facts.cfg.reachable:
            continue
        state = at_entry[b.label]
        for ins in b.instrs:
            state = step(facts, state, ins, mutexes)
        for h in sorted(state, key=lambda h: h.site.span.start if h.site.span else 0):
            if id(h.site) in reported or h.prim in relocked or h.prim in replayed and id(h.site) not in replay.left:
                continue
            reported.add(id(h.site))
            ctx.sink.error("E0715", f"`{h.prim}` may still be held when the kernel ends: some path from this "
                           "`lock` reaches the end without an `unlock`", h.site.span,
                           notes=[Note("the kernel ends here", b.term.span)] if b.term.span else (),
                           help="unlock on every path, or write `critical m { ... }`, which always releases")


# ---- E0703 -------------------------------------------------------------------------------------

def _acquires(facts: Facts, ins: Instr) -> bool:
    """Does the instruction take a lock, or a semaphore's permit as a lock does? A `trylock` that a
    loop retries until it succeeds (retries.py) takes it as `lock` does: it can wait for ever."""
    return ins.op in LOCKS or ins.judged_as == "sem.wait" and id(ins) in lock_like(facts) or \
        ins.op == "mutex.trylock" and any(r.attempt is ins for r in retries(facts))


def _lock_order(facts: Facts, before, ctx: PassContext) -> set[str]:
    """Report cycles; return the mutexes some thread takes while holding the same instance."""
    k = facts.k
    replay = replay_mutexes(facts)
    relocked: set[str] = set()
    edges: dict[tuple[str, str], tuple[Instr, Instr]] = {}   # (outer, inner) primitive names → sites
    nested: dict[str, list] = {}        # an array → (outer, inner, direction) of its nested elements
    once = {id(r.attempt) for r in retries(facts) if r.once}
    for _, _, ins in k.instructions():
        if not _acquires(facts, ins):
            continue
        for h in before.get(id(ins), frozenset()):
            if not can_run_out(facts, h.prim) or not can_run_out(facts, ins.ref.name):
                continue
            if h.site is ins and id(ins) in once:
                continue        # (held from its own success, which ends the loop: no attempt follows it)
            if h.prim == ins.ref.name and _shared_reads_nest(k, h, ins):
                continue
            if h.prim == ins.ref.name and replay is not None and h.prim in replay.names:
                # every thread's locks in order: what it really holds, by index (replay_mutexes)
                if replay.relocks.get(id(ins)) is h.site and _relocked(facts, h, ins, ctx, exact=True):
                    relocked.add(h.prim)
                ways = replay.nests.get((id(h.site), id(ins)))
                if ways:
                    nested.setdefault(h.prim, []).append((h, ins, next(iter(ways)) if len(ways) == 1 else None))
            elif h.prim == ins.ref.name:
                if _relocked(facts, h, ins, ctx):
                    relocked.add(h.prim)
                else:
                    nested.setdefault(h.prim, []).append((h, ins, _direction(facts, h, ins)))
            else:
                edges.setdefault((h.prim, ins.ref.name), (h.site, ins))
    for pairs in nested.values():
        _array_order(facts, pairs, ctx)
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


def _shared_reads_nest(k, outer: Held, ins: Instr) -> bool:
    """A `read` inside a `read` of an rwlock whose readers may nest (the counter lock: readers
    never wait for readers, and no writer can be queued between them)."""
    return outer.mode == ins.attr("mode") == "read" and implementation(k.prim(ins.ref.name)).nested_reads


def _start(ins: Instr) -> int:
    return ins.span.start if ins.span else 0


def _relocked(facts: Facts, outer: Held, ins: Instr, ctx: PassContext, exact: bool = False) -> bool:
    """The same instance taken again by the thread that holds it: report, and say True. (`exact`:
    the replay saw it happen, whatever the indices' forms.)"""
    name = ins.ref.name
    if not exact and outer.value != facts.value_key(ins.ref.index):
        return False
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


@dataclass(frozen=True)
class Replay:
    """Every thread's mutex operations run in its own order, with their indices (replay_mutexes)."""
    names: frozenset[str]              # the mutexes replayed
    relocks: dict                      # id(lock) → the lock of the same instance the thread holds
    nests: dict                        # (id(outer lock), id(inner lock)) of one array → {"up", "down"}
    unpaired: frozenset[int]           # id(unlock) of unlocks of an instance not held
    left: dict                         # id(lock) → the lock, of instances held when the thread ends


def replay_mutexes(facts: Facts) -> Replay | None:
    """Run each thread's `lock`s and `unlock`s in its program order (the rounds of counted loops
    around them, Facts.order_keys) with the element each takes, where every one is known: who runs
    it (no condition on data), every loop around it counted, its index. Then what a thread holds is
    known element by element, also across the rounds of a loop (`for i in 0 .. 4 { lock m[i] }`,
    whose round i holds m[0 .. i-1]: below, not the same instance). None where it does not apply
    (an unknown, a `trylock`); the dataflow of held.py then judges alone."""
    if "replay" in facts.memo:
        return facts.memo["replay"]
    k = facts.k
    names = frozenset(p.name for p in k.prims if p.kind == "mutex")
    per_row: dict[int, list] = {}
    result = None
    for b, _, ins in k.instructions():
        if ins.ref is None or ins.ref.name not in names or b.label not in facts.cfg.reachable:
            continue
        if ins.op not in ("mutex.lock", "mutex.unlock"):
            break                                  # (a trylock: taken or not, as the data goes)
        found, inst, col = facts.order_keys(b.label, ins), facts.instances(b.label), facts.value(ins.ref.index, b.label)
        if found is None or not inst.exact or col is None or col[1]:
            break
        for row, key, value in zip(*found, col[0]):
            per_row.setdefault(row, []).append((key, value, ins))
    else:
        relocks, nests, unpaired, left = {}, {}, set(), {}
        for events in per_row.values():
            events.sort(key=lambda e: e[0])
            holding: dict[tuple, Instr] = {}
            for _, value, ins in events:
                at = (ins.ref.name, value)
                if ins.op == "mutex.unlock":
                    if holding.pop(at, None) is None:
                        unpaired.add(id(ins))
                    continue
                if at in holding:
                    relocks.setdefault(id(ins), holding[at])
                    continue
                for (name, other), outer in holding.items():
                    if name == at[0]:
                        nests.setdefault((id(outer), id(ins)), set()).add("up" if value > other else "down")
                holding[at] = ins
            left.update((id(ins), ins) for ins in holding.values())
        result = Replay(names, relocks, nests, frozenset(unpaired), left)
    facts.memo["replay"] = result
    return result


def _direction(facts: Facts, outer: Held, ins: Instr) -> str | None:
    """"up" when the inner index is always the larger, "down" when always the smaller, "maybe
    equal" for a min/max pair that may be equal, else None."""
    label = facts.where[id(ins)][0]
    up = order_of(facts, outer.index, ins.ref.index, label)
    if up == "ascending":
        return "up"
    if order_of(facts, ins.ref.index, outer.index, label) == "ascending":
        return "down"
    return up


def _array_order(facts: Facts, pairs: list, ctx: PassContext) -> None:
    """Elements of one array held two at a time: no cycle when every nesting goes one way (all up,
    or all down); report the nestings that break the way the others go."""
    ways = {d for _, _, d in pairs}
    if ways in ({"up"}, {"down"}):
        return
    first = "up" if "up" in ways else "down" if "down" in ways else None
    for outer, ins, direction in pairs:
        if first is not None and direction == first:
            continue
        name = ins.ref.name
        if direction == "maybe equal":
            why = f"when the two indices are equal the thread waits for the `{name}` it holds"
        elif direction in ("up", "down"):
            other = next(o for o, _, d in pairs if d == first)
            why = (f"elsewhere the elements are taken the other way round (the {'lower' if first == 'up' else 'higher'}"
                   f" index first, from line {other.site.span.line if other.site.span else '?'}), so one thread can "
                   f"hold `{name}[x]` and wait for `{name}[y]` while another holds `{name}[y]` and waits for `{name}[x]`")
        else:
            why = ("the order of the two indices depends on the data, so one thread can hold "
                   f"`{name}[x]` and wait for `{name}[y]` while another holds `{name}[y]` and waits for `{name}[x]`")
        ctx.sink.error("E0703", f"possible lock-order cycle on `{name}`: {why}", ins.span,
                       notes=[Note("the outer lock is taken here", outer.site.span)],
                       help="take the lower index first everywhere: `critical m[min(a, b)] { critical m[max(a, b)] "
                            "{ ... } }` inside `if a != b`, or `if a < b { ... }` with the smaller one outside")
