"""Waits that other threads can never end: one analysis over every blocking operation.

    E0705  a semaphore waited on more often than its permits and every post that can run allow;
           a latch counted down fewer times than its count; a semaphore or latch whose every post
           or count-down comes after a wait that can never end (so none ever comes)
    E0720  a wait for other threads (a block, named or grid barrier, a channel `get`/`await`/
           `when`, a semaphore's or latch's wait) reached while holding a lock or a semaphore's
           permit that one of those threads takes before it can arrive, put, post or count down;
           and a ring of channel waits, each thread waiting for a slot the next puts only after
           its own wait
    E0721  a named barrier whose threads per phase, counted over the launch, differ from its count
    E0704 / E0707  a barrier (a warp meeting) inside a `when` body: each thread runs the body inside
           its polling loop when its inputs come, so the ones served first meet without the others

Every blocking operation waits for something other threads provide: a barrier for its other
parties to arrive, a `get` for its slot's `put`, a semaphore's `wait` for a permit, a latch's for
its count-downs, a lock for its holder's release (lock order: locks.py). What a thread holds
when it blocks is the held(...) dataflow of locks.py (mutexes, rwlocks, semaphores taken as
locks). Who provides, and with which index, is evaluated over the launch's threads and loop
rounds (space.py), once per launch shape; where an index or a condition depends on data, the
check assumes the worst for the hold (two threads may take the same element) and says so, and
stays silent for a count (it cannot know how many posts run).
"""
from __future__ import annotations

from dataclasses import dataclass

from ...diagnostics import Note
from ..context import PassContext
from ..nodes import Instr
from ..ops import LOCKS
from .facts import Facts
from .locks import _can_run_out, held, lock_like
from .space import gather

_HOLDABLE = ("mutex", "rwlock", "semaphore")


@dataclass(frozen=True)
class Blocking:
    """A blocking operation and what ends it."""
    site: Instr
    label: str
    kind: str                  # barrier | named | grid | channel | semaphore | latch
    what: str                  # how the message names it
    providers: tuple           # ((label, instr), ...): the operations that end it
    verb: str                  # what a provider does: arrives, puts the slot, posts, counts down


def check_waits_for(facts: Facts, ctx: PassContext) -> None:
    blocking = _blocking(facts)
    sections = _section_waits(facts)
    if not blocking and not sections:
        return
    before, _ = held(facts, kinds=_HOLDABLE)
    reported: set = set()
    for w in blocking:
        if _hold_cycle(facts, w, before, ctx):
            reported.add(id(w.site))
    _never_provided(facts, blocking + sections, reported, ctx)
    _counts(facts, blocking, reported, ctx)
    _channel_rings(facts, reported, ctx)
    _named_barrier_counts(facts, ctx)
    _collective_in_when(facts, ctx)


# ---- the blocking operations -------------------------------------------------------------------

def _blocking(facts: Facts) -> list[Blocking]:
    k, out = facts.k, []
    by_op: dict[str, list] = {}
    for b, _, ins in k.instructions():
        if b.label in facts.cfg.reachable:
            by_op.setdefault(ins.op, []).append((b.label, ins))

    def sites(ops, name=None):
        return tuple((lbl, i) for op in ops for lbl, i in by_op.get(op, ())
                     if name is None or i.ref is not None and i.ref.name == name)

    block_barriers = sites(["bar.sync"])
    block_barriers = tuple((lbl, i) for lbl, i in block_barriers if len(i.args) == 1)
    for label, ins in block_barriers:
        if ins.attr("party") is None:
            out.append(Blocking(ins, label, "barrier", "this block barrier", block_barriers, "arrives at it"))
    for label, ins in by_op.get("prim.sync", ()):
        prim = k.prim(ins.ref.name)
        if prim.kind != "barrier":
            continue
        ends = sites(["prim.sync", "prim.arrive"], prim.name)
        if prim.granularity == "grid":
            out.append(Blocking(ins, label, "grid", f"the grid barrier `{prim.name}`", ends, "arrives at it"))
        elif prim.granularity == "warp" and prim.count is not None:
            out.append(Blocking(ins, label, "named", f"the named barrier `{prim.name}`", ends, "arrives at it"))
        elif prim.granularity == "block":
            out.append(Blocking(ins, label, "barrier", f"the block barrier `{prim.name}`", ends, "arrives at it"))
    for op in ("chan.get", "chan.await"):
        for label, ins in by_op.get(op, ()):
            ends = sites(["chan.put", "chan.signal"], ins.ref.name)
            what = f"this `{'get' if op == 'chan.get' else 'await'}` on `{ins.ref.name}`"
            out.append(Blocking(ins, label, "channel", what, ends, "puts the slot"))
    for label, ins in by_op.get("sem.wait", ()):
        if id(ins) not in lock_like(facts):
            ends = sites(["sem.post"], ins.ref.name)
            out.append(Blocking(ins, label, "semaphore", f"this wait on `{ins.ref.name}`", ends, "posts it"))
    for label, ins in by_op.get("latch.wait", ()):
        ends = sites(["latch.arrive"], ins.ref.name)
        out.append(Blocking(ins, label, "latch", f"this wait on the latch `{ins.ref.name}`", ends, "counts it down"))
    return out


def _section_waits(facts: Facts) -> list[Blocking]:
    """Semaphore waits taken as locks (`acquire s { }`): their permits come from the initial count
    and the posts of the sections before them."""
    out = []
    for b, _, ins in facts.k.instructions():
        if ins.op == "sem.wait" and id(ins) in lock_like(facts) and b.label in facts.cfg.reachable:
            ends = tuple((x.label, i) for x, _, i in facts.k.instructions()
                         if i.op == "sem.post" and i.ref.name == ins.ref.name)
            out.append(Blocking(ins, b.label, "semaphore", f"this `acquire` of `{ins.ref.name}`", ends, "posts it"))
    return out


# ---- E0720: a hold that the providers need ------------------------------------------------------

def _acquisitions(facts: Facts) -> dict[str, list[tuple[str, Instr]]]:
    if "acquisitions" not in facts.memo:
        found: dict[str, list] = {}
        for b, _, ins in facts.k.instructions():
            if ins.op in LOCKS or ins.op == "mutex.trylock" or ins.op == "sem.wait" and id(ins) in lock_like(facts):
                found.setdefault(ins.ref.name, []).append((b.label, ins))
        facts.memo["acquisitions"] = found
    return facts.memo["acquisitions"]


_PARTY_COLUMN = {"thread": None, "warp": "gwarp", "block": "block"}


def _hold_cycle(facts: Facts, w: Blocking, before, ctx: PassContext) -> bool:
    """Report (and return True) when `w` is reached holding something a provider of `w` must take
    before it provides."""
    k = facts.k
    for h in sorted(before.get(id(w.site), frozenset()), key=lambda h: h.site.span.start if h.site.span else 0):
        prim = k.prim(h.prim)
        if prim.granularity == "thread" and w.kind in ("barrier", "named", "grid"):
            continue        # a collective inside a @thread section: barriers.py (E0704/E0707)
        if prim.kind == "semaphore" and not _can_run_out(facts, prim.name):
            continue
        for a_label, acq in _acquisitions(facts).get(h.prim, ()):
            for p_label, provider in w.providers:
                if not facts.reaches(facts.where[id(acq)], facts.where[id(provider)]):
                    continue
                clash = _clash(facts, w, h, prim, (a_label, acq), (p_label, provider))
                if clash is None:
                    continue
                _report_hold(facts, w, h, prim, acq, provider, clash, ctx)
                return True
    return False


def _clash(facts: Facts, w: Blocking, h, prim, acquisition, provision):
    """Can a thread waiting at `w` while holding `h` and a thread that takes the same element at
    `acquisition` (before its `provision`, which `w` waits for) be two different parties that
    `w` brings together? A description of such a pair ("" when it depends on data), or None."""
    t = facts.threads
    a_label, acq = acquisition
    p_label, provider = provision
    waiting = facts.instances(w.label)
    taking = facts.instances(a_label)
    if waiting is None or taking is None:
        return ""
    held_at = facts.value(h.index, w.label)
    taken_at = facts.value(acq.ref.index, a_label)
    party = _PARTY_COLUMN[prim.granularity]
    blocks = t.columns["block"]

    def element(col, rows):
        if col is None or col[1]:
            return None
        keys = col[0]
        if prim.placement == "shared":
            keys = [(b << 32) + v for b, v in zip(gather(blocks, rows), keys)]
        return keys

    held_keys, taken_keys = element(held_at, waiting.thread), element(taken_at, taking.thread)
    exact = held_keys is not None and taken_keys is not None
    meet = _meeting(facts, w, provision)
    takers: dict = {}          # meeting point → element taken → party → a row of that party
    for n, row in enumerate(taking.thread):
        parties = takers.setdefault(meet(row, taker=True), {}).setdefault(
            None if taken_keys is None else taken_keys[n], {})
        if len(parties) < 2:
            parties.setdefault(row if party is None else t.columns[party][row], row)
    for n, row in enumerate(waiting.thread):
        mine = row if party is None else t.columns[party][row]
        for m in meet(row, taker=False):
            by_element = takers.get(m)
            if not by_element:
                continue
            pools = [by_element.get(held_keys[n], {})] if exact else by_element.values()
            for parties in pools:
                other = next((r for q, r in parties.items() if q != mine), None)
                if other is not None:
                    return f"{t.describe(row)} and {t.describe(other)}" if exact else ""
    return None


def _meeting(facts: Facts, w: Blocking, provision):
    """meet(row, taker): for a taker, the meeting point it provides; for the waiter, the meeting
    points that would end its wait (a list). Threads meet at a block barrier with their block,
    at a grid barrier with everyone, at a channel slot with its producer, at a semaphore or latch
    with its posters (by block for a shared one)."""
    t = facts.threads
    blocks = t.columns["block"]
    p_label, provider = provision
    if w.kind in ("barrier", "named"):
        return lambda row, taker: blocks[row] if taker else [blocks[row]]
    if w.kind == "grid":
        return lambda row, taker: 0 if taker else [0]
    prim = facts.k.prim(w.site.ref.name)
    if w.kind in ("semaphore", "latch") or prim is None:
        if prim is not None and prim.placement == "shared":
            return lambda row, taker: blocks[row] if taker else [blocks[row]]
        return lambda row, taker: 0 if taker else [0]
    # a channel: the taker must be the producer of the slot the waiter waits for
    waits = _slots(facts, prim, w.label, w.site)
    puts = _slots(facts, prim, p_label, provider)
    if waits is None or puts is None:
        return lambda row, taker: 0 if taker else [0]
    producer_rows: dict[int, list[int]] = {}
    for row, key in puts:
        producer_rows.setdefault(key, []).append(row)
    wanted: dict[int, list[int]] = {}
    for row, key in waits:
        wanted.setdefault(row, []).extend(producer_rows.get(key, ()))
    return lambda row, taker: row if taker else wanted.get(row, [])


def _slots(facts: Facts, prim, label: str, ins: Instr):
    inst = facts.instances(label)
    col = facts.value(ins.ref.index, label)
    if inst is None or col is None or col[1]:
        return None
    keys = col[0]
    if prim.placement == "shared":
        keys = [(b << 32) + v for b, v in zip(gather(facts.threads.columns["block"], inst.thread), keys)]
    return list(zip(inst.thread, keys))


def _report_hold(facts: Facts, w: Blocking, h, prim, acq: Instr, provider: Instr, clash: str, ctx) -> None:
    kind = "permit of the semaphore" if prim.kind == "semaphore" else prim.kind
    pair = f" ({clash})" if clash else " (which element each takes depends on data, so they may be the same)"
    who = {"barrier": "another thread of the block", "named": "another thread of the block",
           "grid": "a thread of another block" if prim.granularity == "block" else "another thread of the grid",
           "channel": "the thread that puts the slot it waits for", "semaphore": "a thread that posts it",
           "latch": "a thread that counts it down"}[w.kind]
    ctx.sink.error("E0720", f"{w.what} is reached holding the {kind} `{prim.name}`, and {who} takes `{prim.name}` "
                   f"before it {w.verb}{pair}: each waits for the other", w.site.span,
                   notes=[Note(f"`{prim.name}` is held from here", h.site.span),
                          Note(f"the other thread takes `{prim.name}` here", acq.span),
                          Note(f"before it {w.verb.split()[0]} here", provider.span)],
                   help=f"release `{prim.name}` before waiting (end the section first), or let the other thread "
                        f"provide without taking `{prim.name}`")


# ---- E0705: nothing can ever provide ------------------------------------------------------------

def _never_provided(facts: Facts, blocking: list[Blocking], reported: set, ctx: PassContext) -> None:
    """Semaphores and latches that no thread can ever post or count down: their counts start
    too low, and every post (count-down) comes after a wait that can never end. A fixed point:
    a primitive is *live* when it starts with a permit (a latch: never), or some post of it is
    reachable from the kernel's start through waits on live primitives only."""
    k = facts.k
    kinds = ("semaphore", "latch")
    waits = [w for w in blocking if w.kind in kinds]
    if not waits:
        return
    gate = {}          # block label → the (kind) waits in it that could hold a thread up
    for b, _, ins in k.instructions():
        if ins.op in ("sem.wait", "latch.wait") and ins.attr("party") is None:
            gate.setdefault(b.label, []).append(ins)
    live = {p.name for p in k.prims if p.kind == "semaphore" and (p.count or 0) > 0}
    providers = {w.site.ref.name: w.providers for w in waits}
    changed = True
    while changed:
        changed = False
        for name, provs in providers.items():
            if name in live:
                continue
            if any(_reachable_through(facts, label, ins, gate, live) for label, ins in provs):
                live.add(name)        # (a latch counted down too few times: _counts says how many)
                changed = True
    for w in waits:
        name = w.site.ref.name
        if name in live or id(w.site) in reported:
            continue
        prim = k.prim(name)
        reported.add(id(w.site))
        blockers = sorted({i.ref.name for lbl, ins in w.providers for i in _first_blockers(facts, lbl, ins, gate, live)})
        if len(blockers) > 1 and name in blockers:
            blockers.remove(name)
        if not w.providers:
            why = "nothing in this kernel posts it" if prim.kind == "semaphore" else "nothing counts it down"
        elif blockers:
            why = (f"every {'post' if prim.kind == 'semaphore' else 'count-down'} of it comes after a wait on "
                   + ", ".join(f"`{b}`" for b in blockers) + ", which can never end either")
        else:
            why = "it is counted down fewer times than its count"
        start = (f"`{name}` starts with {prim.count or 0} permits and " if prim.kind == "semaphore" else
                 f"the latch `{name}` opens after {prim.count} count-downs, and ")
        ctx.sink.error("E0705", f"{w.what} never ends: {start}{why}", w.site.span,
                       notes=[Note(f"`{name}` is declared here", prim.span)],
                       help="post (count down) before anyone waits for it, from a thread that does not wait first, "
                            "or give it an initial count")


def _reachable_through(facts: Facts, label: str, ins: Instr, gate, live) -> bool:
    """Can a thread reach `ins` from the kernel's start passing only waits on live primitives?"""
    return _path_avoiding(facts, label, ins, gate, live)


def _first_blockers(facts: Facts, label: str, ins: Instr, gate, live) -> list[Instr]:
    """The waits on primitives not live that lie on some path to `ins` (for the message)."""
    index = facts.where[id(ins)][1]
    out = []
    for x, found in gate.items():
        for w in found:
            if w.ref.name in live or w is ins:
                continue
            at = facts.where[id(w)]
            if x == label and at[1] < index or facts.reaches(at, (label, index)):
                out.append(w)
    return out


def _path_avoiding(facts: Facts, label: str, ins: Instr, gate, live) -> bool:
    """Is there a path from the entry to `ins` through no wait on a dead primitive?"""
    cfg = facts.cfg
    index = facts.where[id(ins)][1]

    def dead(code):
        return any(i.op in ("sem.wait", "latch.wait") and i.attr("party") is None and i.ref.name not in live
                   for i in code)

    def blocked(x, upto=None):
        code = cfg.blocks[x].instrs if upto is None else cfg.blocks[x].instrs[:upto]
        if dead(code):
            return True
        # a @warp/@block party's leader waits for everyone: the lanes that skip its branch meet it after
        return upto is None and facts.is_party_branch(x) and dead(cfg.blocks[cfg.blocks[x].term.if_true].instrs)

    seen, todo = set(), [cfg.entry]
    while todo:
        x = todo.pop()
        if x in seen:
            continue
        seen.add(x)
        if x == label:
            if not blocked(x, index):
                return True
            continue
        if blocked(x):
            continue
        todo.extend(cfg.succs[x])
    return False


# ---- E0705: counts ---------------------------------------------------------------------------------

def _counts(facts: Facts, blocking: list[Blocking], reported: set, ctx: PassContext) -> None:
    """A semaphore whose waits outnumber its permits plus every post that can run; a latch
    counted down fewer times than its count while someone waits for it."""
    t = facts.threads
    if not t.every_block:
        facts.undecided(ctx, f"whether semaphores and latches are posted enough: the launch has {t.shape.blocks} "
                        "blocks, more than the analyses enumerate", facts.k.span)
        return
    by_prim: dict[str, list[Blocking]] = {}
    for w in blocking:
        if w.kind in ("semaphore", "latch") and id(w.site) not in reported:
            by_prim.setdefault(w.site.ref.name, []).append(w)
    for name, waits in by_prim.items():
        prim = facts.k.prim(name)
        posts = _per_instance(facts, prim, waits[0].providers, upper=True)
        if posts is None:
            facts.undecided(ctx, f"how many times `{name}` is {'posted' if prim.kind == 'semaphore' else 'counted down'}"
                            ": an index or a loop around it depends on data", prim.span)
            continue
        if prim.kind == "latch":
            waiting = _per_instance(facts, prim, [(w.label, w.site) for w in waits], upper=False)
            if waiting is None:
                continue
            bad = [key for key in waiting if waiting[key] and posts.get(key, 0) < prim.count]
            if not bad:
                continue
            key = bad[0]
            got = posts.get(key, 0)
            w = waits[0]
            reported.add(id(w.site))
            ctx.sink.error("E0705", f"{w.what} never ends: the latch opens after {prim.count} count-downs, and "
                           f"{_instance(facts, prim, key)} is counted down {got} time{'s' if got != 1 else ''} at most",
                           w.site.span, notes=[Note(f"`{name}` is declared here", prim.span)] +
                           [Note("counted down here", ins.span) for _, ins in w.providers[:1]],
                           help=f"count it down {prim.count} times (once per party), or declare it with the "
                                "count of the parties that count down")
            continue
        waiting = _per_instance(facts, prim, [(w.label, w.site) for w in waits], upper=False)
        if waiting is None:
            continue
        for key, n in waiting.items():
            supply = (prim.count or 0) + posts.get(key, 0)
            if n > supply:
                w = waits[0]
                reported.add(id(w.site))
                ctx.sink.error("E0705", f"{w.what} can never end for every waiter: {_instance(facts, prim, key)} is "
                               f"waited on {n} times, but it starts with {prim.count or 0} permit"
                               f"{'s' if prim.count != 1 else ''} and is posted {posts.get(key, 0)} time"
                               f"{'s' if posts.get(key, 0) != 1 else ''} at most, so {n - supply} "
                               f"wait{'s' if n - supply != 1 else ''} never end", w.site.span,
                               notes=[Note(f"`{name}` is declared here", prim.span)],
                               help="post once for every wait that is not given back (a producer posts, a "
                                    "consumer waits), or give the semaphore more initial permits")
                break


def _per_instance(facts: Facts, prim, sites, upper: bool) -> dict | None:
    """instance key → how many times the parties run `sites` (largest count when upper, else the
    smallest possible); None when it cannot be counted."""
    t = facts.threads
    per: dict = {}
    party = _PARTY_COLUMN[prim.granularity]
    for label, ins in sites:
        inst = facts.instances(label)
        if inst is None or not inst.counted or not upper and not inst.exact:
            return None
        col = facts.value(ins.ref.index, label)
        if col is None or col[1]:
            return None
        seen = set()
        for n, row in enumerate(inst.thread):
            who = row if party is None else t.columns[party][row]
            rounds = tuple(v[n] for v in inst.iters.values())
            if (who, rounds) in seen:
                continue
            seen.add((who, rounds))
            key = col[0][n] if prim.placement == "global" else (t.columns["block"][row], col[0][n])
            per[key] = per.get(key, 0) + 1
    return per


def _instance(facts: Facts, prim, key) -> str:
    if isinstance(key, tuple) and facts.shape.blocks == 1:
        key = key[1]
    if isinstance(key, tuple):
        block, index = key
        return f"`{prim.name}{'' if prim.instances == 1 else f'[{index}]'}` of block {block}"
    return f"`{prim.name}{'' if prim.instances == 1 else f'[{key}]'}`"


# ---- E0720: rings of channel waits --------------------------------------------------------------

def _channel_rings(facts: Facts, reported: set, ctx: PassContext) -> None:
    """Thread t waits for a slot that thread u puts, before t's own put; u waits, before its put,
    for a slot ... that t puts: a ring in which nobody puts first."""
    k = facts.k
    for prim in k.prims:
        if prim.kind != "channel":
            continue
        waits = [(b.label, i) for b, _, i in k.instructions() if i.op in ("chan.get", "chan.await")
                 and i.ref.name == prim.name]
        puts = [(b.label, i) for b, _, i in k.instructions() if i.op in ("chan.put", "chan.signal")
                and i.ref.name == prim.name]
        if not waits or not puts:
            continue
        producer: dict[int, int] = {}
        for label, ins in puts:
            found = _slots(facts, prim, label, ins)
            if found is None or not facts.instances(label).exact:
                producer = None
                break
            for row, key in found:
                producer.setdefault(key, row)
        if producer is None:
            continue
        edges: dict[int, tuple[int, Instr]] = {}      # t → (u, the wait): t's puts wait for u's
        for label, ins in waits:
            gates = [p for pl, p in puts if _must_precede(facts, (label, ins), (pl, p))]
            if not gates:
                continue
            found = _slots(facts, prim, label, ins)
            if found is None:
                continue
            for row, key in found:
                u = producer.get(key)
                if u is not None and u != row:
                    edges.setdefault(row, (u, ins))
        ring = _find_ring(edges)
        if ring is None:
            continue
        site = edges[ring[0]][1]
        if id(site) in reported:
            continue
        reported.add(id(site))
        t = facts.threads
        shown = " → ".join(t.describe(r) for r in ring[:6]) + (" → ..." if len(ring) > 6 else "") \
            + f" → {t.describe(ring[0])}"
        ctx.sink.error("E0720", f"a ring of waits on `{prim.name}`: each of {shown} waits here for a slot the next "
                       "one puts only after its own wait, so nobody puts first", site.span,
                       notes=[Note(f"`{prim.name}` is declared here", prim.span)],
                       help="let one thread of the ring put before it waits (a boundary, like the wavefront's "
                            "first row), or wait for slots in one direction only")


def _must_precede(facts: Facts, wait, put) -> bool:
    """Does every path to the put pass the wait first (the wait's block dominates the put's)?"""
    (wl, w), (pl, p) = wait, put
    if wl == pl:
        return facts.where[id(w)][1] < facts.where[id(p)][1]
    return facts.cfg.dominates(wl, pl)


def _find_ring(edges: dict[int, tuple[int, Instr]]) -> list[int] | None:
    state: dict[int, int] = {}
    for start in edges:
        path, x = [], start
        while x in edges and x not in state:
            state[x] = start
            path.append(x)
            x = edges[x][0]
        if x in state and state[x] == start and x in path:
            return path[path.index(x):]
    return None


# ---- E0721: named barrier counts ----------------------------------------------------------------

def _named_barrier_counts(facts: Facts, ctx: PassContext) -> None:
    k, t = facts.k, facts.threads
    for prim in k.prims:
        if prim.kind != "barrier" or prim.granularity != "warp" or prim.count is None:
            continue
        sites = [(b.label, i) for b, _, i in k.instructions()
                 if i.op in ("prim.sync", "prim.arrive") and i.ref.name == prim.name and b.label in facts.cfg.reachable]
        arrivals: dict[tuple, dict[int, int]] = {}     # (block, element) → thread row → arrivals
        exact = True
        for label, ins in sites:
            inst = facts.instances(label)
            col = facts.value(ins.ref.index, label)
            if inst is None or col is None or col[1] or not inst.exact or not inst.counted:
                exact = False
                facts.undecided(ctx, f"how many threads reach the named barrier `{prim.name}` in each phase: a "
                                "condition, index or loop around it depends on data", ins.span)
                break
            for row, element in zip(inst.thread, col[0]):
                per = arrivals.setdefault((t.columns["block"][row], element), {})
                per[row] = per.get(row, 0) + 1
        if not exact or not arrivals:
            continue
        for (block, element), per in sorted(arrivals.items()):
            rounds = set(per.values())
            threads = len(per)
            total = sum(per.values())
            if len(rounds) == 1:
                bad = threads != prim.count
                got = f"{threads} threads arrive"
            else:
                bad = total % prim.count != 0
                got = f"{total} arrivals in all"
            if not bad:
                continue
            label, ins = sites[0]
            where = f" in block {block}" if facts.shape.blocks > 1 else ""
            name = prim.name + ("" if prim.instances == 1 else f"[{element}]")
            fewer = threads < prim.count if len(rounds) == 1 else total < prim.count
            ctx.sink.error("E0721", f"the named barrier `{name}` counts {prim.count} threads, but {got}{where}: "
                           + ("the ones that arrive wait for threads that never come" if fewer else
                              "the first to arrive make up a phase and pass, and the rest wait for arrivals "
                              "that never come (or pass with the wrong partners)"),
                           ins.span, notes=[Note(f"`{prim.name}` is declared with {prim.count} threads here",
                                                 prim.span)],
                           help=f"declare it with the number of threads that `sync` or `arrive` on it "
                                f"({threads if len(rounds) == 1 else total}), or make that many arrive")
            break


# ---- E0704 / E0707: a meeting inside a `when` body ------------------------------------------------

def _collective_in_when(facts: Facts, ctx: PassContext) -> None:
    """A `when` body runs inside its polling loop, lane by lane as the inputs come (structure.py):
    a barrier or warp meeting there is reached by the threads served so far, while the others
    still poll for values that may come only from threads held at the meeting."""
    from ..passes.structure import is_collective
    k = facts.k
    ends = {}
    for b, i, ins in k.instructions():
        if ins.op == "region.end":
            ends[ins.attr("region")] = (b.label, i)
    told = set()
    for b, i, ins in k.instructions():
        region = ins.attr("region")
        if ins.op != "chan.get" or region is None or region in told or region not in ends:
            continue
        prim = k.prim(ins.ref.name)
        if prim is None or prim.granularity != "thread":
            continue
        told.add(region)
        end = ends[region]
        for label in _between(facts, (b.label, i), end):
            for j, meet in enumerate(facts.cfg.blocks[label].instrs):
                if not is_collective(k, meet) or meet.attr("party") == "sync" and meet.op == "warp.sync" \
                        or (label, j) <= (b.label, i) and label == b.label or label == end[0] and j >= end[1]:
                    continue
                warp = meet.op == "warp.sync" or meet.ref is not None and k.prim(meet.ref.name) is not None \
                    and k.prim(meet.ref.name).granularity == "warp" and k.prim(meet.ref.name).count is None
                code = "E0707" if warp else "E0704"
                what = "this warp meeting" if warp else "this barrier"
                ctx.sink.error(code, f"{what} is inside the body of a `when` on `{prim.name}`, which each thread "
                               "runs inside its polling loop as soon as its inputs come: the threads served first "
                               "meet here without the ones still polling, whose inputs may come only after it",
                               meet.span, notes=[Note("the `when` is here", ins.span)],
                               help="move it after the `when` (or before it), so that every thread reaches it "
                                    "whatever the order its inputs come in")
                break
            else:
                continue
            break


def _between(facts: Facts, start: tuple[str, int], end: tuple[str, int]) -> list[str]:
    """The blocks on paths from `start` to `end` (both included)."""
    seen, todo = [], [start[0]]
    while todo:
        x = todo.pop()
        if x in seen:
            continue
        seen.append(x)
        if x != end[0]:
            todo.extend(facts.cfg.succs[x])
    return seen
