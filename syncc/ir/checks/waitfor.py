"""Waits that other threads can never end: one analysis over every blocking operation.

    E0720  a wait for other threads (a block, named or grid barrier, a channel `get`/`await`/
           `when`, a semaphore's or latch's wait) reached while holding a lock or a semaphore's
           permit that one of those threads takes before it can arrive, put, post or count down;
           and a ring of channel waits, each thread waiting for a slot the next puts only after
           its own wait

Every blocking operation waits for something other threads provide: a barrier for its other
parties to arrive, a `get` for its slot's `put`, a semaphore's `wait` for a permit, a latch's for
its count-downs, a lock for its holder's release (lock order: locks.py). What a thread holds
when it blocks is the held(...) dataflow of locks.py (mutexes, rwlocks, semaphores taken as
locks). Who provides, and with which index, is evaluated over the launch's threads and loop
rounds (analysis/space.py), once per launch shape; where an index or a condition depends on data, the
check assumes the worst for the hold (two threads may take the same element) and says so, and
stays silent for a count (it cannot know how many posts run).
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ...core.prebuilt import dataclass
from ..context import PassContext
from ..nodes import Instr
from ..ops import LOCKS
from .channels import slot_keys
from ..analysis.facts import Facts, reported_waits
from .held import can_run_out, held, lock_like
from .retries import retries
from ..analysis.space import gather

CODES = ("E0720",)      # what it reports (tests/ir/test_hazard_checks.py)

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
    blocking = blocking_operations(facts)
    if not blocking:
        return
    before, _ = held(facts, kinds=_HOLDABLE)
    reported = reported_waits(facts)
    for w in blocking:
        if _hold_cycle(facts, w, before, ctx):
            reported.add(id(w.site))
    _channel_rings(facts, reported, ctx)


# ---- the blocking operations -------------------------------------------------------------------

def blocking_operations(facts: Facts) -> list[Blocking]:
    """Every operation that waits for other threads, except taking a lock (locks.py); a loop
    retrying `trywait` (a queue's `tryput` or `tryget`) until it succeeds is its semaphore's wait
    (retries.py), counted once each time the loop runs: its label is the block that enters it."""
    k, out = facts.k, []
    by_op: dict[str, list] = {}
    for b, _, ins in k.instructions():
        if b.label in facts.cfg.reachable:
            by_op.setdefault(ins.judged_as, []).append((b.label, ins))

    def sites(ops, name=None):
        return tuple((lbl, i) for op in ops for lbl, i in by_op.get(op, ())
                     if name is None or i.ref is not None and i.ref.name == name)

    block_barriers = sites(["bar.sync"])
    block_barriers = tuple((lbl, i) for lbl, i in block_barriers if len(i.args) == 1)
    for label, ins in block_barriers:
        if ins.attr("party") is None:
            out.append(Blocking(ins, label, "barrier", "this block barrier", block_barriers, "arrives at it"))
    for label, ins in [*by_op.get("prim.sync", ()), *by_op.get("prim.wait", ())]:   # (wait: a grid barrier's)
        prim = k.prim(ins.ref.name)
        if prim.kind != "barrier":
            continue
        ends = sites(["prim.sync", "prim.arrive"], prim.name)
        if prim.granularity == "grid":
            what = f"`wait {prim.name}`" if ins.op == "prim.wait" else f"the grid barrier `{prim.name}`"
            out.append(Blocking(ins, label, "grid", what, ends, "arrives at it"))
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
            out.append(Blocking(ins, label, "semaphore", wait_what(ins), ends, "posts it"))
    for label, ins in by_op.get("latch.wait", ()):
        ends = sites(["latch.arrive"], ins.ref.name)
        what = (f"this `for` loop over `{ins.ref.name.rsplit('.', 1)[0]}`" if ins.attr("queue") == "for" else
                f"this wait on the latch `{ins.ref.name}`")
        out.append(Blocking(ins, label, "latch", what, ends, "counts it down"))
    for r in retries(facts):
        if r.attempt.judged_as in ("sem.trywait", "sem.tryfor"):
            name = r.attempt.ref.name
            out.append(Blocking(r.attempt, r.entry, "semaphore", retry_what(r.attempt), sites(["sem.post"], name),
                                "posts it"))
    return out


def _statement(ins: Instr) -> str | None:
    """The queue statement a wait or attempt on a queue's semaphore stands for: a wait for room is a
    `put`, for a value a `get` (or a `for` loop's), an attempt `tryput` or `tryget`; None for a
    primitive of the program's own. (A `locked` queue's semaphore operations say `queue=`.)"""
    if ins.attr("queue") is not None:
        return ins.attr("queue")
    if not ins.op.startswith("queue."):
        return None
    if ins.op in ("queue.next", "queue.nexttake"):
        return "for"
    word = "put" if ins.ref.name.endswith(".space") else "get"
    return "try" + word if ins.judged_as == "sem.trywait" else word


def wait_what(ins: Instr) -> str:
    """How a message names a semaphore wait: a queue's, by the statement it stands for."""
    word = _statement(ins)
    if word == "for":
        return f"this `for` loop over `{ins.ref.name.rsplit('.', 1)[0]}`"
    if word is not None:
        return f"this `{word}` on `{ins.ref.name.rsplit('.', 1)[0]}`"
    return f"this wait on `{ins.ref.name}`"


def retry_what(attempt: Instr) -> str:
    """How a message names a loop retrying `attempt` until it succeeds."""
    word = _statement(attempt)
    if word is not None:
        return f"this loop of `{word}` attempts on `{attempt.ref.name.rsplit('.', 1)[0]}`"
    return f"this loop of attempts on `{attempt.ref.name}`"


def section_waits(facts: Facts) -> list[Blocking]:
    """Semaphore waits taken as locks (`acquire s { }`): their permits come from the initial count
    and the posts of the sections before them."""
    out = []
    for b, _, ins in facts.k.instructions():
        if ins.judged_as == "sem.wait" and id(ins) in lock_like(facts) and b.label in facts.cfg.reachable:
            ends = tuple((x.label, i) for x, _, i in facts.k.instructions()
                         if i.judged_as == "sem.post" and i.ref.name == ins.ref.name)
            out.append(Blocking(ins, b.label, "semaphore", f"this `acquire` of `{ins.ref.name}`", ends, "posts it"))
    return out


# ---- E0720: a hold that the providers need ------------------------------------------------------

def _acquisitions(facts: Facts) -> dict[str, list[tuple[str, Instr]]]:
    if "acquisitions" not in facts.memo:
        found: dict[str, list] = {}
        for b, _, ins in facts.k.instructions():
            if ins.op in LOCKS or ins.op == "mutex.trylock" or ins.judged_as == "sem.wait" and id(ins) in lock_like(facts):
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
        if prim.kind == "semaphore" and not can_run_out(facts, prim.name):
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
    """(row, slot key) of each instance of a channel operation (channels.slot_keys); None where
    a slot depends on data or on a parameter."""
    found = slot_keys(facts, prim, label, ins.ref.index)
    if found is None or found[2]:
        return None
    inst, keys, _ = found
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
        producer: dict[int, int] = {}        # slot → its first producer
        for label, ins in puts:
            found = slot_keys(facts, prim, label, ins.ref.index)
            if found is None or found[2] or not found[0].exact:
                producer = None
                break
            inst, keys, _ = found      # (built from the last instance back, so that the first stays)
            producer = {**dict(zip(reversed(keys), reversed(inst.thread))), **producer}
        if producer is None:
            continue
        edges: dict[int, tuple[int, Instr]] = {}      # t → (u, the wait): t's puts wait for u's
        for label, ins in waits:
            gates = [p for pl, p in puts if _must_precede(facts, (label, ins), (pl, p))]
            if not gates:
                continue
            found = slot_keys(facts, prim, label, ins.ref.index)
            if found is None or found[2]:
                continue
            inst, keys, _ = found
            for row, u in zip(inst.thread, map(producer.get, keys)):
                if u is not None and u != row and row not in edges:
                    edges[row] = (u, ins)
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
