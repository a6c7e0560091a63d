"""Running the launch's synchronization in the abstract: a schedule that gets stuck.

    E0705  a wait that, in a schedule where every thread goes as far as it can, is left waiting
           with nobody able to end it (every thread that could has finished)
    E0720  waits that, in such a schedule, are left waiting for each other

Where every wait of a kernel is decided by thread and block indices, constants and counted
loops (no condition on data decides who waits, or how often), each thread's synchronization
is a known sequence of events: semaphore waits and posts, latch count-downs and waits, channel
puts and gets, block, named and grid barriers. Running those sequences together, each thread as
far as it can, either finishes or gets stuck; stuck is a real deadlock (that very order can
happen on the GPU). The model is kinder than the machine: it ignores mutexes and hand-written
spins, lets a @block party act as soon as one member arrives (its barriers are modelled), and counts posts that
depend on data as if they all ran, so it never reports a deadlock the machine could not reach.
What it cannot decide (waits under conditions on data, loops it cannot count, launches too
large to enumerate) `syncc explain` lists.
"""
from __future__ import annotations

from bisect import bisect_right
from collections import deque
from itertools import chain, count, repeat
from operator import add, mul

from ...core.diagnostics import Note
from ..context import PassContext
from ..nodes import Imm, Instr
from ..analysis.facts import Facts
from ..analysis.permits import amounts, weigh
from ..analysis.space import gather
from .retries import Retry, retries
from .waitfor import reported_waits, retry_what, wait_what

CODES = ("E0701", "E0705", "E0720")      # what it reports (tests/ir/test_hazard_checks.py)

BUDGET_EVENTS = 25_000      # operation instances simulated per kernel and launch shape
BUDGET_SLOTS = 1 << 16      # the most slots of one semaphore, latch or channel numbered in advance

# op → (event kind, does it wait?)
_EVENTS = {"sem.wait": ("sem", True), "sem.post": ("sem", False), "latch.arrive": ("latch", False),
           "latch.wait": ("latch", True), "chan.put": ("chan", False), "chan.signal": ("chan", False),
           "chan.get": ("chan", True), "chan.await": ("chan", True), "bar.sync": ("block", True),
           "prim.sync": ("barrier", True), "prim.arrive": ("barrier", False), "prim.wait": ("barrier", True)}
_PARTY = {"thread": None, "warp": "gwarp", "block": "block"}

# What the run does with an event, as one small int: its kind and whether it waits. The block
# and grid barriers come last, so that one comparison tells them apart.
(SEM_POST, SEM_WAIT, LATCH_ARRIVE, LATCH_WAIT, CHAN_PUT, CHAN_GET, PHASE_ARRIVE, PHASE_WAIT, NAMED_ARRIVE,
 NAMED_SYNC, CONVERGE, BLOCK, GRID) = range(13)
_CODE = {("sem", False): SEM_POST, ("sem", True): SEM_WAIT, ("latch", False): LATCH_ARRIVE,
         ("latch", True): LATCH_WAIT, ("chan", False): CHAN_PUT, ("chan", True): CHAN_GET,
         ("phase", False): PHASE_ARRIVE, ("phase", True): PHASE_WAIT, ("named", False): NAMED_ARRIVE,
         ("named", True): NAMED_SYNC, ("converge", True): CONVERGE, ("block", True): BLOCK, ("grid", True): GRID}
_KIND = {code: kind for kind, code in _CODE.items()}       # code → (kind, waits)
_MONOTONE = (CHAN_PUT, CHAN_GET, LATCH_ARRIVE, LATCH_WAIT)   # what they wait for, once there, stays


class Event:
    """One synchronizing operation of one thread (one instance of an instruction), as the report
    reads it; the run reads the same event as a tuple (Launch)."""
    __slots__ = ("order", "kind", "waits", "resource", "party", "site")

    def __init__(self, order: tuple, kind: str, waits: bool, resource: tuple, party, site: Instr):
        self.order = order            # where it comes in its thread's program order
        self.kind = kind              # sem | latch | chan | block | grid | phase | named | converge
        self.waits = waits
        self.resource = resource      # what it acts on
        self.party = party            # (party id, site, rounds) for a @warp/@block party's operation
        self.site = site


class _Site:
    """One operation (or the point where a wait's polling loop ends): what its instances share."""
    __slots__ = ("ins", "code", "here", "heads", "rounds", "orders", "permits")

    def __init__(self, ins: Instr, code: int, here: tuple, heads: list, rounds: list, permits=1):
        self.ins, self.code, self.here = ins, code, here
        self.heads = heads            # the loops around it (their positions), outermost first
        self.rounds = rounds          # per instance: the rounds of those loops
        self.orders = None            # per instance: its order key, when the threads' events are sorted
        self.permits = permits        # a semaphore's wait or post: the permits of each (an int for all, or a list)

    def order(self, n: int) -> tuple:
        """Where instance n comes in its thread's program order: the rounds of the loops around it,
        outermost first, then the operation's place."""
        return tuple(x for pair in zip(self.heads, self.rounds[n]) for x in pair) + self.here


class Launch:
    """The launch's events, thread by thread. The run reads each event as a tuple
    (code, resource id, party id or None, site number, instance number): resources and parties
    are numbered once, so that the run compares ints and keeps its state in lists. The slots of
    a semaphore, latch or channel (and the blocks' barriers) are numbered in advance, slot by
    slot and block by block (`ranges`), so that an instance's id is arithmetic on its index; any
    other resource is numbered where it first appears (`named`)."""

    def __init__(self, n: int):
        self.rows: list[int] = []                  # the threads with events, in order of their first
        self.per_row: list[list] = [[] for _ in range(n)]       # row → its events, in program order
        self.size = 0                              # ids handed out
        self.ranges: list[tuple[int, tuple, int, int]] = []     # (first id, family, slots, blocks)
        self._firsts: list[int] = []
        self._range_of: dict[tuple, int | None] = {}       # family → its first id
        self.named: dict[tuple, int] = {}          # a resource, or ("party", party operation) → its id
        self._by_id: dict[int, tuple] | None = None
        self.sites: list[_Site] = []
        self.made_of: list[tuple] = []             # per site, all that its events are made from
        self.parties = False                       # is some event a @warp or @block party's operation?
        self.members: dict[int, int] = {}          # a @warp party's operation → how many lanes take part
        self.expected: dict[int, int] = {}         # a warp's convergence after a wait → how many lanes it waits for

    def intern(self, keys: list) -> list[int]:
        """The id of each key, numbering new ones in order of first appearance."""
        named = self.named
        fresh = [key for key in dict.fromkeys(keys) if key not in named]
        named.update(zip(fresh, count(self.size)))
        self.size += len(fresh)
        return list(map(named.__getitem__, keys))

    def slots(self, family: tuple, slots: int, blocks: int | None) -> int | None:
        """The first id of the family's range, numbered once: resource family + (block, slot), or
        family + (slot,) where blocks is None (one copy for the grid); None when there are too
        many slots to number."""
        if family not in self._range_of:
            total = slots * (blocks or 1)
            if total > BUDGET_SLOTS:
                self._range_of[family] = None
            else:
                self._range_of[family] = self.size
                self.ranges.append((self.size, family, slots, blocks))
                self._firsts.append(self.size)
                self.size += total
        return self._range_of[family]

    def resource(self, rid: int) -> tuple:
        """What id `rid` stands for."""
        at = bisect_right(self._firsts, rid) - 1
        if at >= 0:
            first, family, slots, blocks = self.ranges[at]
            if rid < first + slots * (blocks or 1):
                return family + (divmod(rid - first, slots) if blocks else (rid - first,))
        if self._by_id is None:
            self._by_id = {i: key for key, i in self.named.items()}
        return self._by_id[rid]

    def event(self, row: int, e: tuple) -> Event:
        code, rid, party, s, n = e
        site = self.sites[s]
        kind, waits = _KIND[code]
        return Event(site.order(n), kind, waits, self.resource(rid),
                     None if party is None else self.resource(party)[1], site.ins)

    def events(self, row: int) -> list[Event]:
        """The thread's events as the report reads them."""
        return [self.event(row, e) for e in self.per_row[row]]

    def monotone(self) -> bool:
        """Only channel slots put and waited for, and latches counted down and waited on: a wait
        that can end stays able to until its thread goes on (slots only fill, counts only fall),
        so every order in which the threads go ends with each of them at the same event."""
        return not self.parties and all(site.code in _MONOTONE for site in self.sites)


def check_schedule(facts: Facts, ctx: PassContext) -> None:
    k = facts.k
    if ctx.sink.error_count or not any(ins.judged_as in _EVENTS for _, _, ins in k.instructions()):
        return        # (another check has explained what is wrong with this kernel)
    launch = _events(facts, ctx)
    if launch is None:
        return
    stuck = _run_once(facts, launch)
    how = "with every thread going as far as it can"
    if not stuck and not launch.monotone():
        # a semaphore's permits (a queue's free slots) go to whoever asks first, so one order that
        # finishes does not show that every order does: threads that each take several before
        # giving any back can share them out and all wait. Taking turns, one event each, is the
        # order that shares them out (tests/hazards/queue_puts_interleaved.sync)
        stuck = _run_once(facts, launch, interleave=True)
        how = "with the threads taking turns, one operation each"
    if stuck:
        events = {row: launch.events(row) for row in stuck}
        _report(facts, {row: events[row][p] for row, p in stuck.items()}, events, ctx, how)


# ---- the events of each thread ---------------------------------------------------------------------

def _events(facts: Facts, ctx: PassContext) -> Launch | None:
    k, t = facts.k, facts.threads
    if not t.every_block:
        return None
    retried = _retried(facts)
    sites = [(b.label, i, ins, kind) for b in k.blocks if b.label in facts.cfg.reachable
             for i, ins in enumerate(b.instrs) if (kind := _kind(k, ins, retried)) is not None]
    # where a site's instances are counted: its block, or the block entering the retry loop it is in
    counted_at = {id(ins): retried[id(ins)].entry if id(ins) in retried else label for label, _, ins, _ in sites}
    sizes = [facts.instances(counted_at[id(ins)]) for _, _, ins, _ in sites]
    if any(inst is None for inst in sizes) or sum(inst.size for inst in sizes) > BUDGET_EVENTS:
        facts.undecided(ctx, "whether the threads' waits can all end in some order: too many operations to "
                        "follow one by one", k.span)
        return None
    positions = facts.positions
    launch = Launch(t.n)
    per_row, intern = launch.per_row, launch.intern
    gwarp = t.columns["gwarp"]
    total = 0
    for label, i, ins, kind in sites:
        retry = retried.get(id(ins))
        attempt = retry is not None and ins is retry.attempt
        waits = attempt or _EVENTS[ins.judged_as][1] and not (kind == "named" and ins.op == "prim.arrive")
        at = counted_at[id(ins)]
        inst = facts.instances(at)
        if inst is None or not inst.counted or waits and not inst.exact or waits and retry and not attempt:
            facts.undecided(ctx, "whether the threads' waits can all end in some order: a wait here runs "
                            "under a condition or in a loop that depends on data", ins.span)
            return None
        rids = _resource_ids(facts, launch, ins, at, inst, kind)
        # a semaphore's wait needs its k permits at least, and a post gives its k at most (the
        # model stays kinder than the machine); a k the analyses cannot bound is not followed
        permits = amounts(facts, at, ins, upper=not waits) if kind == "sem" else 1
        if permits is None:
            facts.undecided(ctx, "whether the threads' waits can all end in some order: how many permits this "
                            "operation gives depends on data", ins.span)
            return None
        if rids is None:
            facts.undecided(ctx, "whether the threads' waits can all end in some order: the element this "
                            "operation uses depends on data", ins.span)
            return None
        prim = k.prim(ins.ref.name) if ins.ref is not None else None
        party = _PARTY.get(prim.granularity) if prim is not None and kind in ("sem", "latch") else None
        # on a stack-based GPU the lanes that got through a @thread wait's polling loop wait where
        # it ends for the warp's other lanes (after the release structuring put in its body)
        converge = None
        if ctx.target.stack_based and attempt and party is None:    # (the retrying lanes meet where the loop
            # ends; a party's leader retries for it, and the party meets at each attempt)
            converge = min(positions[out] for _, out in retry.loop.exits), -0.5
        elif ctx.target.stack_based and waits and kind in ("sem", "latch", "chan") and party is None:
            converge = _convergence_point(facts, label, i, ins, positions)
        total += inst.size * (2 if converge is not None else 1)
        if total > BUDGET_EVENTS:
            facts.undecided(ctx, "whether the threads' waits can all end in some order: too many operations "
                            "to follow one by one", k.span)
            return None
        # per instance: the rounds of the loops around (outermost first), as an order prefix
        loops = inst.loops
        counters = [inst.iters[_var(facts, head)] for head in loops]
        heads = [positions[head] for head in loops]
        rounds = list(zip(*counters)) if counters else [()] * inst.size
        here = (positions[label], i)   # (not id(ins): the same program lowered for another target has the same keys)
        code, s = _CODE[kind, waits], len(launch.sites)
        launch.sites.append(_Site(ins, code, here, heads, rounds, permits))
        made_of = [code, here, converge, tuple(heads), tuple(rounds) if heads else None, tuple(inst.thread),
                   tuple(rids), permits if isinstance(permits, int) else tuple(permits)]
        if converge is None:
            whos = repeat(None)
            if party is not None:
                launch.parties = True
                party_of = t.columns[party]
                whos = intern([("party", (party_of[row], here, r)) for row, r in zip(inst.thread, rounds)])
                if party == "gwarp":
                    for who in whos:
                        launch.members[who] = launch.members.get(who, 0) + 1
                made_of.append(tuple(whos))
            launch.made_of.append(tuple(made_of))
            for row, e in zip(inst.thread, zip(repeat(code), rids, whos, repeat(s), count())):
                per_row[row].append(e)
            continue
        # (a @thread wait: no party) its event, then the warp's convergence where its loop ends
        launch.sites.append(_Site(ins, CONVERGE, converge, heads, rounds))
        groups = intern([("converge", gwarp[row], here, r) for row, r in zip(inst.thread, rounds)])
        launch.made_of.append(tuple(made_of))
        for n, (row, rid, group) in enumerate(zip(inst.thread, rids, groups)):
            per_row[row] += ((code, rid, None, s, n), (CONVERGE, group, None, s + 1, n))
            launch.expected[group] = launch.expected.get(group, 0) + 1
    launch.rows = list(dict.fromkeys(chain.from_iterable(inst.thread for inst in sizes)))
    heres = [site.here for site in launch.sites]
    if any(site.heads for site in launch.sites) or any(a >= b for a, b in zip(heres, heres[1:])):
        # appended site by site; in program order only when no loop or convergence interleaves them
        for site in launch.sites:
            site.orders = list(map(site.order, range(len(site.rounds))))
        sites = launch.sites
        for row in launch.rows:
            per_row[row].sort(key=lambda e: sites[e[3]].orders[e[4]])
    return launch


def _convergence_point(facts: Facts, label: str, i: int, ins: Instr, positions) -> tuple:
    """Where a wait's polling loop ends, as an order key after the release structuring runs in its
    body (wait_regions.release_point), or right after the wait when its body is empty."""
    from ..analysis.wait_regions import UNPAIRED, release_point
    end = release_point(facts.k, facts.cfg, label, i, ins)
    if end in (None, UNPAIRED) or facts.space.loops_around(end[0]) != facts.space.loops_around(label):
        return positions[label], i + 0.5
    end_label, j = end
    return (positions[end_label], (j if j >= 0 else -1) + 0.5)


def _var(facts: Facts, head: str) -> str:
    return facts.space.counted[head].var


def _retried(facts: Facts) -> dict[int, Retry]:
    """The attempts of loops that retry until they succeed (retries.py), each a wait on its
    semaphore, and the operations of those loops that run only after the success, at most once
    each time the loop runs: id(instruction) → its loop."""
    out = {}
    for r in retries(facts):
        if r.attempt.judged_as in ("sem.trywait", "sem.tryfor"):
            out[id(r.attempt)] = r
            for label in r.after:
                out.update((id(ins), r) for ins in facts.cfg.blocks[label].instrs)
    return out


def _kind(k, ins: Instr, retried: dict) -> str | None:
    if id(ins) in retried and ins is retried[id(ins)].attempt:
        return "sem"
    if ins.judged_as not in _EVENTS:
        return None
    if ins.op == "bar.sync":
        return "block" if len(ins.args) == 1 else None
    prim = k.prim(ins.ref.name) if ins.ref is not None else None
    if prim is None:
        return None
    if ins.op.startswith("prim."):
        if prim.kind != "barrier":
            return None
        if prim.granularity == "grid":
            return "grid" if ins.op == "prim.sync" else "phase"     # a split phase: arrive, then wait
        if prim.granularity == "block":
            return "block"
        return "named" if prim.count is not None else None
    if prim.granularity not in ("thread", "warp", "block") or ins.attr("party") is not None:
        return None
    return _EVENTS[ins.judged_as][0]


def _resource_ids(facts: Facts, launch: Launch, ins: Instr, label: str, inst, kind: str) -> list[int] | None:
    """The id of the resource each instance acts on; None when an index depends on data."""
    t = facts.threads
    blocks = gather(t.columns["block"], inst.thread) if t.shape.blocks > 1 else [0] * inst.size
    if kind == "block":
        first = launch.slots(("block",), t.shape.blocks, None)
        if first is None:
            return launch.intern([("block", b) for b in blocks])
        return list(map(first.__add__, blocks))
    if kind == "grid":
        return launch.intern([("grid", ins.ref.name)]) * inst.size
    if kind == "phase":
        return launch.intern([("phase", ins.ref.name, ins.ref.index)]) * inst.size
    col = facts.value(ins.ref.index, label)
    if col is None or col[1]:
        return None
    name, values = ins.ref.name, col[0]
    prim = facts.k.prim(name)
    per_block = kind == "named" or prim.placement == "shared"
    n = prim.instances
    first = None if kind == "named" else launch.slots((kind, name), n, t.shape.blocks if per_block else None)
    if first is None:       # a named barrier, or too many slots to number in advance: each on its own
        return launch.intern(list(zip(repeat(kind), repeat(name), blocks, values) if per_block else
                                  zip(repeat(kind), repeat(name), values)))
    if not values or 0 <= min(values) and max(values) < n:
        if per_block and t.shape.blocks > 1:        # first + block * n + slot
            return list(map(add, map(mul, blocks, repeat(n)), map(first.__add__, values)))
        return list(map(first.__add__, values))
    ids = []
    for b, v in zip(blocks, values):
        if 0 <= v < n:
            ids.append(first + (b * n if per_block else 0) + v)
        else:               # a slot outside the array: numbered on its own
            ids += launch.intern([(kind, name, b, v) if per_block else (kind, name, v)])
    return ids


# ---- running them ----------------------------------------------------------------------------------

_RUNS: dict[tuple, dict[int, int]] = {}   # recent runs: everything `_run` reads → where each stuck thread is


def _run_once(facts: Facts, launch: Launch, interleave: bool = False) -> dict[int, int]:
    """`_run`, or its answer for the same events: `syncc check` with no target checks a program
    for ptx and for fermi, and a launch's events are usually the same for both."""
    prims = tuple((p.name, p.kind, p.count) for p in facts.k.prims)
    # each thread's events follow from what the sites are made of (flat tuples of ints: cheap to hash)
    key = (facts.threads.n, tuple(facts.threads.columns["block"]), prims, tuple(launch.ranges),
           tuple(launch.named.items()), frozenset(launch.members.items()), frozenset(launch.expected.items()),
           tuple(launch.made_of), interleave)
    at = _RUNS.get(key)
    if at is None:
        at = _run(facts, launch, interleave)
        if len(_RUNS) >= 8:
            _RUNS.clear()
        _RUNS[key] = at
    return at


def _run(facts: Facts, launch: Launch, interleave: bool = False) -> dict[int, int]:
    """Every thread as far as it can go (or, `interleave`, the threads taking turns, one event
    each); the threads left waiting, at the position of the event each waits on. Event-driven: a
    thread blocked on a resource is woken when the resource changes. Semaphores, latches and
    channels are acted on here (the most frequent); the rest in _State.act."""
    t = facts.threads
    events, members, sites = launch.per_row, launch.members, launch.sites
    state = _State(facts, launch)
    level, full, arrivals, parties = state.level, state.full, state.arrivals, state.parties
    met: set[tuple] = set()                      # (row, party operation) arrived at it
    pos = [0] * t.n
    blocks = t.columns["block"]
    grid = max(blocks) + 1                       # the grid's group, after the blocks'
    size = [0] * (grid + 1)
    gone = [0] * (grid + 1)                      # threads of a block (the grid) finished or at its barrier
    at_barrier: list[list[int]] = [[] for _ in size]
    # a thread that finishes matters to the others only where some wait at a block or grid barrier
    barriers = any(site.code >= BLOCK for site in launch.sites)
    if barriers:
        for b in blocks:
            size[b] += 1
        size[grid] = t.n
        for row in range(t.n):                   # threads with no event are finished from the start
            if not events[row]:
                gone[blocks[row]] += 1
                gone[grid] += 1
    sleeping: list[list[int] | None] = [None] * launch.size   # resource or party → threads woken by it
    todo = deque(launch.rows)
    take = todo.popleft if interleave else todo.pop       # turns in row order, or the last in first
    if launch.monotone():
        # the order is free: threads in row order (popped from the end), as the sites list them,
        # which puts a producer that comes first in the program before its consumers
        todo.reverse()
    finished = 0

    def leave(row, code):
        """A thread finished (code None) or reached a block/grid barrier: release a full group."""
        for g in (blocks[row],) if code == BLOCK else (grid,) if code == GRID else (blocks[row], grid):
            gone[g] += 1
            if code is not None:
                at_barrier[g].append(row)
            if gone[g] == size[g] and at_barrier[g]:
                released, at_barrier[g] = at_barrier[g], []
                gone[g] -= len(released)
                for r in released:
                    pos[r] += 1
                    todo.append(r)

    while todo:
        row = take()
        evs = events[row]
        p, end = pos[row], len(evs)
        while p < end:
            code, r, party, s, n = evs[p]
            if code >= BLOCK:
                pos[row] = p
                leave(row, code)
                break
            if party is not None:
                # a @warp or @block party's operation: it waits for every lane of a @warp party to
                # arrive (the compiler's __syncwarp before it), then acts once for all
                if party in parties:
                    p += 1
                    continue
                lanes = members.get(party)
                if lanes is not None:
                    if (row, party) not in met:
                        met.add((row, party))
                        arrivals[party] = arrivals.get(party, 0) + 1
                    if arrivals[party] < lanes:
                        pos[row] = p
                        if sleeping[party] is None:
                            sleeping[party] = [row]
                        else:
                            sleeping[party].append(row)
                        break
            changed = False                      # did the resource change (wake its sleepers)?
            if code == CHAN_GET:
                went = full[r]
            elif code == CHAN_PUT:
                full[r] = went = changed = True
            elif code == SEM_WAIT:          # all of its k permits at once, or none
                k = weigh(sites[s].permits, n)
                went = level[r] >= k
                if went:
                    level[r] -= k
            elif code == SEM_POST:
                level[r] += weigh(sites[s].permits, n)
                went = changed = True
            elif code == LATCH_WAIT:
                went = level[r] <= 0
            elif code == LATCH_ARRIVE:
                level[r] -= 1
                went, changed = True, level[r] <= 0
            else:
                went, changed = state.act(code, r, row, p)
            if changed and sleeping[r] is not None:
                todo.extend(sleeping[r])
                sleeping[r] = None
            if not went:
                if sleeping[r] is None:
                    sleeping[r] = [row]
                else:
                    sleeping[r].append(row)
                pos[row] = p
                break
            if party is not None:
                parties.add(party)
                if sleeping[party] is not None:
                    todo.extend(sleeping[party])
                    sleeping[party] = None
            p += 1
            if interleave and p < end:          # its turn is over: to the back of the line
                pos[row] = p
                todo.append(row)
                break
        else:
            pos[row] = p
            finished += 1
            if barriers:
                leave(row, None)
    if finished == len(launch.rows):
        return {}
    return {row: pos[row] for row in launch.rows if pos[row] < len(events[row])}


class _State:
    """The resources: semaphores' permits and latches' outstanding count-downs (`level`), channel
    slots put (`full`), named barriers' phases, grid barriers' split phases, warps converging
    after a wait, and the party operations done."""

    def __init__(self, facts: Facts, launch: Launch):
        self.facts, self.launch = facts, launch
        self.level = [0] * launch.size
        self.full = [False] * launch.size
        start = {("sem", p.name): p.count or 0 for p in facts.k.prims if p.kind == "semaphore"}
        start.update({("latch", p.name): p.count or 0 for p in facts.k.prims if p.kind == "latch"})
        for first, family, slots, blocks in launch.ranges:
            if start.get(family):
                total = slots * (blocks or 1)
                self.level[first:first + total] = [start[family]] * total
        for r, rid in launch.named.items():
            self.level[rid] = start.get(r[:2], 0)
        self.parties: set[int] = set()
        self.arrivals: dict[int, int] = {}            # a named barrier, convergence or party → arrivals so far
        self.waiting: dict[int, list] = {}            # a named barrier → (row, position) waiting in its phase
        self.passed: set[tuple] = set()               # (row, position) a named barrier let go
        self.converged: set[tuple] = set()            # (row, position) arrived where a wait's loop ends
        self.rounds: dict[int, int] = {}              # a grid barrier's split phase → rounds ended
        self.joined: dict[tuple, int] = {}            # (row, split phase) → the round it last arrived for

    def act(self, code: int, r: int, row: int, p: int) -> tuple[bool, bool]:
        """A split phase's arrive or wait, a convergence, or a named barrier, by the thread at its
        event p: (did it get past, did the resource change)."""
        if code == PHASE_ARRIVE or code == PHASE_WAIT:
            # every thread of the grid arrives once a round; a wait ends when the round it arrived for has
            if code == PHASE_ARRIVE:
                self.joined[(row, r)] = self.rounds.get(r, 0)
                self.arrivals[r] = self.arrivals.get(r, 0) + 1
                if self.arrivals[r] < self.facts.threads.n:
                    return True, False
                self.arrivals[r], self.rounds[r] = 0, self.rounds.get(r, 0) + 1
                return True, True
            return self.rounds.get(r, 0) > self.joined.get((row, r), -1), False
        me = (row, p)
        if code == CONVERGE:
            if me not in self.converged:
                self.converged.add(me)
                self.arrivals[r] = self.arrivals.get(r, 0) + 1
            full = self.arrivals[r] >= self.launch.expected[r]
            return full, full
        # a named barrier: a phase fills when its count of threads has arrived (arrive or sync);
        # the ones that sync wait for their phase to fill
        if me in self.passed:
            self.passed.discard(me)
            return True, False
        waiting = self.waiting.setdefault(r, [])
        if me in waiting:
            return False, False
        self.arrivals[r] = self.arrivals.get(r, 0) + 1
        if code == NAMED_SYNC:
            waiting.append(me)
        if self.arrivals[r] >= self.facts.k.prim(self.launch.resource(r)[1]).count:
            self.passed.update(waiting)
            self.passed.discard(me)
            self.waiting[r], self.arrivals[r] = [], 0
            return True, True
        return code != NAMED_SYNC, False


# ---- what to say ---------------------------------------------------------------------------------------

def _report(facts: Facts, stuck: dict[int, Event], events, ctx: PassContext, how: str) -> None:
    """Report the stuck run (`how`: the order in which the threads went)."""
    reported = reported_waits(facts)
    t = facts.threads
    # Waits whose providers all wait at other waits (not where a loop ends) deadlock whatever the
    # GPU's reconvergence: report them as any target would. Otherwise a lane held where a wait's
    # loop ends explains a stack-based deadlock best, where a warp-mate of it still waits at that
    # wait; else the first wait left waiting.
    converging = any(at.kind == "converge" for at in stuck.values())

    def among_waits(x) -> bool:
        return converging and _among_waits(x[0], stuck, events)
    order = sorted(stuck.items(), key=lambda x: (not among_waits(x), x[1].kind != "converge",
                                                 x[1].site.span.start if x[1].site.span else 0, x[0]))
    if id(order[0][1].site) in reported:
        return
    for row, e in order:
        if e.site.span is None:
            continue
        if e.kind != "converge":
            break
        if _report_convergence(facts, row, e, stuck, events, ctx):
            reported.add(id(e.site))
            return
    else:
        return
    if id(e.site) in reported:
        return
    reported.add(id(e.site))
    found = _providers(e, events, stuck)
    party = _party_of(facts, e)
    others = [(r, at) for r, at in found if not _same_party(facts, party, r, row)]
    what = _describe(facts, e)
    if others:
        other_row, other = others[0]
        ctx.sink.error("E0720", f"{what} can wait forever: {how}, "
                       f"{_who(facts, party, row)} waits here while {_who(facts, party, other_row)}, which would "
                       f"{_verb(e)} later, waits at line {_line(other)} for something only a waiting "
                       f"{'party' if party else 'thread'} provides", e.site.span,
                       notes=[Note(f"{_who(facts, party, other_row)} waits here", other.site.span)],
                       help="let each provider reach its post, put or arrival before it waits for what the waiters "
                            "would give it")
    elif found and e.kind == "sem" and not _one_permit(e.site):
        # k permits at once, and only its own later posts left: the permits it lacks are held by
        # threads that have finished (its own posts give back no more than it takes)
        ctx.sink.error("E0705", f"{what} can wait forever: {how}, {_who(facts, party, row)} is left waiting here "
                       f"for all the permits it takes at once, and every other thread that could post `{e.site.ref.name}` "
                       "has finished, keeping the permits it lacks", e.site.span,
                       help="give back every permit taken (a `post` for each `wait`, on every path), or give the "
                            "semaphore more initial permits")
    elif found:
        mine = next((x for x in events[row][events[row].index(e):] if not x.waits and x.resource == e.resource),
                    None)
        later = f" (line {_line(mine)})" if mine is not None else ""
        ctx.sink.error("E0720", f"{what} can wait forever: {how}, {_who(facts, party, row)} waits here for "
                       f"{_needed(facts, e)} that only it would provide, later{later}: it waits for itself",
                       e.site.span, notes=[Note("it would provide it here", mine.site.span)] if mine else (),
                       help="provide before waiting (a `get` before the next `put`, a post before the next wait), "
                            "or give the primitive more room or permits")
    else:
        ctx.sink.error("E0705", f"{what} can wait forever: {how}, "
                       f"{t.describe(row)} is left waiting here and every thread that could {_verb(e)} has finished",
                       e.site.span, help="post, put or count down once for every wait, from threads that do not "
                                         "wait for it first")


def _one_permit(ins: Instr) -> bool:
    """A wait for one permit (no `(k)`)?"""
    k = ins.permits
    return isinstance(k, Imm) and k.value == 1


def _party_of(facts: Facts, e: Event) -> str | None:
    """The column that names the party acting in `e` ("gwarp", "block"), None for a thread."""
    prim = facts.k.prim(e.site.ref.name) if e.site.ref is not None else None
    return _PARTY.get(prim.granularity) if prim is not None and e.kind in ("sem", "latch") else None


def _same_party(facts: Facts, party: str | None, a: int, b: int) -> bool:
    return a == b or party is not None and facts.threads.columns[party][a] == facts.threads.columns[party][b]


def _who(facts: Facts, party: str | None, row: int) -> str:
    """The thread, or the @warp or @block party it belongs to."""
    t = facts.threads
    if party == "block":
        return f"block {t.columns['block'][row]}"
    if party == "gwarp":
        warp = t.columns["warp"][row]
        return f"warp {warp}" if t.shape.blocks == 1 else f"warp {warp} of block {t.columns['block'][row]}"
    return t.describe(row)


def _needed(facts: Facts, e: Event) -> str:
    """What a wait waits for, in words."""
    name = e.site.ref.name if e.site.ref is not None else "?"
    queue, _, role = name.rpartition(".")
    if role == "space":
        return f"room in `{queue}`"
    if role == "items":
        return f"a value in `{queue}`"
    return {"sem": f"a permit of `{name}`", "latch": f"a count-down of the latch `{name}`",
            "chan": f"the slot of `{name}`"}.get(e.kind, f"`{name}`")


def _report_convergence(facts: Facts, row: int, e: Event, stuck, events, ctx: PassContext) -> bool:
    """A lane through the wait waits where its polling loop ends for warp-mates still waiting,
    whose providers wait in turn (on a stack-based GPU). False, and nothing reported, where no
    warp-mate waits at that wait itself."""
    t = facts.threads
    mates = [(r, at) for r, at in stuck.items() if at.site is e.site and at.kind != "converge"
             and t.columns["gwarp"][r] == t.columns["gwarp"][row]]
    name = e.site.ref.name
    if not mates:
        return False
    mate, at = mates[0]
    providers = [(r, x) for r, x in _providers(at, events, stuck) if r != mate]
    then = (f", which only {t.describe(providers[0][0])} would provide later, and it waits at line "
            f"{_line(providers[0][1])}" if providers else ", which no thread still running provides")
    ctx.sink.error("E0701", f"potential SIMT deadlock: {t.describe(row)} gets through this wait on `{name}` and "
                   f"waits where its polling loop ends for the rest of its warp, but {t.describe(mate)} of that warp "
                   f"still waits for `{name}`{then}", e.site.span,
                   notes=[Note(f"{t.describe(providers[0][0])} waits here", providers[0][1].site.span)]
                   if providers else (),
                   help="make the release the waiters need inside the waiting path (a post in the same block after "
                        "the wait, or `acquire`/`when`), so that it runs before the warp reconverges")
    return True


def _line(e: Event):
    return e.site.span.line if e.site.span else "?"


def _describe(facts: Facts, e: Event) -> str:
    if e.kind in ("block", "grid"):
        return "this barrier"
    name = e.site.ref.name if e.site.ref is not None else "?"
    return {"sem": wait_what(e.site) if e.site.judged_as == "sem.wait" else retry_what(e.site), "latch": f"this wait on the latch `{name}`",
            "chan": f"this wait on `{name}`", "named": f"the named barrier `{name}`",
            "phase": f"this `wait {name}`",
            "converge": f"this wait on `{name}` (its warp's lanes meet where its polling loop ends)"}.get(
        e.kind, "this wait")


def _verb(e: Event) -> str:
    role = e.site.ref.name.rpartition(".")[2] if e.kind == "sem" and e.site.ref is not None else None
    if role in ("space", "items"):        # a queue's free slots, its values
        return "take a value out" if role == "space" else "put a value in"
    return {"sem": "post it", "latch": "count it down", "chan": "put the slot", "block": "arrive",
            "grid": "arrive", "phase": "arrive", "named": "arrive",
            "converge": "let its warp reconverge"}.get(e.kind, "end it")


def _among_waits(row: int, stuck, events, budget: int = 64) -> bool:
    """Does the thread wait in a knot of waits that holds without any lane held where a loop
    ends: its providers wait, theirs too, and so on, none of them at a convergence? (Followed
    for `budget` threads at most; past it, no.)"""
    seen, todo = {row}, [row]
    while todo:
        found = _providers(stuck[todo.pop()], events, stuck)
        if not found:
            return False
        for r, at in found:
            if at.kind == "converge":
                return False
            if r not in seen:
                if len(seen) >= budget:
                    return False
                seen.add(r)
                todo.append(r)
    return True


def _providers(e: Event, events, stuck) -> list[tuple[int, Event]]:
    """Stuck threads whose later events would provide what `e` waits for."""
    out = []
    for row, at in stuck.items():
        evs = events[row]
        start = evs.index(at)
        if any(not x.waits and x.resource == e.resource for x in evs[start:]) or \
                e.kind in ("block", "grid", "phase", "named", "converge") and at is not e:
            out.append((row, at))
    return out
