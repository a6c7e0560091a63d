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

from operator import attrgetter

from ...core.diagnostics import Note
from ..cfg import post_order
from ..context import PassContext
from ..nodes import Instr
from .facts import Facts
from .waitfor import reported_waits

BUDGET_EVENTS = 25_000      # operation instances simulated per kernel and launch shape

# op → (event kind, does it wait?)
_EVENTS = {"sem.wait": ("sem", True), "sem.post": ("sem", False), "latch.arrive": ("latch", False),
           "latch.wait": ("latch", True), "chan.put": ("chan", False), "chan.signal": ("chan", False),
           "chan.get": ("chan", True), "chan.await": ("chan", True), "bar.sync": ("block", True),
           "prim.sync": ("barrier", True), "prim.arrive": ("barrier", False), "prim.wait": ("barrier", True)}
_PARTY = {"thread": None, "warp": "gwarp", "block": "block"}
_order = attrgetter("order")


class Event:
    """One synchronizing operation of one thread (one instance of an instruction)."""
    __slots__ = ("order", "kind", "waits", "resource", "party", "site")

    def __init__(self, order: tuple, kind: str, waits: bool, resource: tuple, party, site: Instr):
        self.order = order            # where it comes in its thread's program order
        self.kind = kind              # sem | latch | chan | block | grid | phase | named | converge
        self.waits = waits
        self.resource = resource      # what it acts on
        self.party = party            # (party id, site, rounds) for a @warp/@block party's operation
        self.site = site


def check_schedule(facts: Facts, ctx: PassContext) -> None:
    k = facts.k
    if ctx.sink.error_count or not any(ins.op in _EVENTS for _, _, ins in k.instructions()):
        return        # (another check has explained what is wrong with this kernel)
    events = _events(facts, ctx)
    if events is None:
        return
    stuck = _run_once(facts, events)
    if stuck:
        _report(facts, stuck, events, ctx)


# ---- the events of each thread ---------------------------------------------------------------------

def _events(facts: Facts, ctx: PassContext) -> dict[int, list[Event]] | None:
    k, t = facts.k, facts.threads
    if not t.every_block:
        return None
    sites = [(b.label, i, ins) for b in k.blocks if b.label in facts.cfg.reachable
             for i, ins in enumerate(b.instrs) if _kind(k, ins) is not None]
    sizes = [facts.instances(label) for label, _, _ in sites]
    if any(inst is None for inst in sizes) or sum(inst.size for inst in sizes) > BUDGET_EVENTS:
        facts.undecided(ctx, "whether the threads' waits can all end in some order: too many operations to "
                        "follow one by one", k.span)
        return None
    positions = _positions(facts)
    per_thread: dict[int, list[Event]] = {}
    expected: dict[tuple, int] = {}         # a warp's convergence after a wait → how many lanes it waits for
    members: dict[tuple, int] = {}          # a @warp party's operation → how many lanes take part
    total = 0
    for b in k.blocks:
        if b.label not in facts.cfg.reachable:
            continue
        for i, ins in enumerate(b.instrs):
            kind = _kind(k, ins)
            if kind is None:
                continue
            waits = _EVENTS[ins.op][1] and not (kind == "named" and ins.op == "prim.arrive")
            inst = facts.instances(b.label)
            if inst is None or not inst.counted or waits and not inst.exact:
                facts.undecided(ctx, "whether the threads' waits can all end in some order: a wait here runs "
                                "under a condition or in a loop that depends on data", ins.span)
                return None
            key = _instance_keys(facts, ins, b.label, inst, kind)
            if key is None:
                facts.undecided(ctx, "whether the threads' waits can all end in some order: the element this "
                                "operation uses depends on data", ins.span)
                return None
            prim = k.prim(ins.ref.name) if ins.ref is not None else None
            party = _PARTY.get(prim.granularity) if prim is not None and kind in ("sem", "latch") else None
            loops = inst.loops
            # on a stack-based GPU the lanes that got through a @thread wait's polling loop wait where
            # it ends for the warp's other lanes (after the release structuring put in its body)
            converge = None
            if ctx.target.stack_based and waits and kind in ("sem", "latch", "chan") and party is None:
                converge = _convergence_point(facts, b.label, i, ins, positions)
            total += inst.size * (2 if converge is not None else 1)
            if total > BUDGET_EVENTS:
                facts.undecided(ctx, "whether the threads' waits can all end in some order: too many operations "
                                "to follow one by one", k.span)
                return None
            # per instance: the rounds of the loops around (outermost first), as an order prefix
            counters = [inst.iters[_var(facts, head)] for head in loops]
            heads = [positions[head] for head in loops]
            rounds = list(zip(*counters)) if counters else [()] * inst.size
            here = (positions[b.label], i)
            gwarp, party_of = t.columns["gwarp"], t.columns[party] if party is not None else None
            site = here            # (not id(ins): the same program lowered for another target has the same keys)
            orders: dict[tuple, tuple] = {}     # rounds → (order, convergence's order): threads share them
            for n, row in enumerate(inst.thread):
                r = rounds[n]
                order = orders.get(r)
                if order is None:
                    prefix = tuple(x for pair in zip(heads, r) for x in pair)
                    order = orders[r] = (prefix + here, None if converge is None else prefix + converge)
                who = None if party_of is None else (party_of[row], site, r)
                if who is not None and party == "gwarp":
                    members[who] = members.get(who, 0) + 1
                evs = per_thread.get(row)
                if evs is None:
                    evs = per_thread[row] = []
                evs.append(Event(order[0], kind, waits, key[n], who, ins))
                if converge is not None:
                    group = ("converge", gwarp[row], site, r)
                    evs.append(Event(order[1], "converge", True, group, None, ins))
                    expected[group] = expected.get(group, 0) + 1
    for evs in per_thread.values():
        evs.sort(key=_order)
    facts.memo["converge"] = expected
    facts.memo["members"] = members
    return per_thread


def _convergence_point(facts: Facts, label: str, i: int, ins: Instr, positions) -> tuple:
    """Where a wait's polling loop ends, as an order key after the release structuring runs in its
    body (wait_regions.release_point), or right after the wait when its body is empty."""
    from ..wait_regions import UNPAIRED, release_point
    end = release_point(facts.k, facts.cfg, label, i, ins)
    if end in (None, UNPAIRED) or facts.space.loops_around(end[0]) != facts.space.loops_around(label):
        return positions[label], i + 0.5
    end_label, j = end
    return (positions[end_label], (j if j >= 0 else -1) + 0.5)


def _var(facts: Facts, head: str) -> str:
    return facts.space.counted[head].var


def _kind(k, ins: Instr) -> str | None:
    if ins.op not in _EVENTS:
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
    return _EVENTS[ins.op][0]


def _instance_keys(facts: Facts, ins: Instr, label: str, inst, kind: str) -> list | None:
    """The resource each instance acts on; None when an index depends on data."""
    t = facts.threads
    blocks = [t.columns["block"][r] for r in inst.thread]
    if kind == "block":
        return [("block", b) for b in blocks]
    if kind == "grid":
        return [("grid", ins.ref.name)] * inst.size
    if kind == "phase":
        return [("phase", ins.ref.name, ins.ref.index)] * inst.size
    col = facts.value(ins.ref.index, label)
    if col is None or col[1]:
        return None
    name = ins.ref.name
    prim = facts.k.prim(name)
    if kind == "named" or prim.placement == "shared":
        return [(kind, name, b, v) for b, v in zip(blocks, col[0])]
    return [(kind, name, v) for v in col[0]]


def _positions(facts: Facts) -> dict[str, int]:
    """A topological order of the blocks in which a loop's body comes before the code after the
    loop: depth-first over the graph without its back edges, each loop's exits made to follow
    its latches."""
    cfg = facts.cfg
    succs = {x: [s for s in cfg.succs[x] if not cfg.dominates(s, x)] for x in cfg.labels}
    for lp in facts.loops:
        latches = [x for x in lp.blocks if lp.head in cfg.succs[x]]
        for _, out in lp.exits:
            for latch in latches:
                if out not in succs[latch]:
                    succs[latch].append(out)
    return {label: n for n, label in enumerate(reversed(post_order(cfg.entry, succs)))}


# ---- running them ----------------------------------------------------------------------------------

_RUNS: dict[tuple, dict[int, int]] = {}   # recent runs: everything `_run` reads → where each stuck thread is


def _run_once(facts: Facts, events: dict[int, list[Event]]) -> dict[int, Event]:
    """`_run`, or its answer for the same events: `syncc check` with no target checks a program
    for ptx and for fermi, and a launch's events are usually the same for both."""
    prims = tuple((p.name, p.kind, p.count) for p in facts.k.prims)
    key = (facts.threads.n, tuple(facts.threads.columns["block"]), prims,
           frozenset(facts.memo["members"].items()), frozenset(facts.memo["converge"].items()),
           tuple([(row, tuple([(e.order, e.kind, e.waits, e.resource, e.party) for e in evs]))
                  for row, evs in events.items()]))
    at = _RUNS.get(key)
    if at is None:
        stuck = _run(facts, events)
        at = {row: events[row].index(e) for row, e in stuck.items()}
        if len(_RUNS) >= 8:
            _RUNS.clear()
        _RUNS[key] = at
    return {row: events[row][i] for row, i in at.items()}


def _run(facts: Facts, events: dict[int, list[Event]]) -> dict[int, Event]:
    """Every thread as far as it can go; the threads left waiting, at the event each waits on.
    Event-driven: a thread blocked on a resource is woken when the resource changes."""
    t = facts.threads
    state = _State(facts)
    pos = dict.fromkeys(events, 0)
    blocks = t.columns["block"]
    size = {("block", b): 0 for b in blocks}
    for b in blocks:
        size[("block", b)] += 1
    size[("grid",)] = t.n
    gone = dict.fromkeys(size, 0)                # threads of a block (the grid) finished or at its barrier
    at_barrier: dict[tuple, list[int]] = {g: [] for g in size}
    for row in range(t.n):                       # threads with no event are finished from the start
        if row not in events:
            gone[("block", blocks[row])] += 1
            gone[("grid",)] += 1
    sleeping: dict[tuple, list[int]] = {}
    todo = list(events)

    def groups(row, kind):
        return [("block", blocks[row])] if kind == "block" else [("grid",)] if kind == "grid" else \
            [("block", blocks[row]), ("grid",)]

    def leave(row, kind):
        """A thread finished (kind None) or reached a block/grid barrier: release a full group."""
        for g in groups(row, kind):
            gone[g] += 1
            if kind is not None:
                at_barrier[g].append(row)
            if gone[g] == size[g] and at_barrier[g]:
                released, at_barrier[g] = at_barrier[g], []
                gone[g] -= len(released)
                for r in released:
                    pos[r] += 1
                    todo.append(r)

    while todo:
        row = todo.pop()
        evs = events[row]
        while pos[row] < len(evs):
            e = evs[pos[row]]
            if e.kind in ("block", "grid"):
                leave(row, e.kind)
                break
            went, woke, sleep_on = state.step(e, row)
            for r in woke:
                todo.extend(sleeping.pop(r, ()))
            if not went:
                sleeping.setdefault(sleep_on, []).append(row)
                break
            pos[row] += 1
        else:
            leave(row, None)
    return {row: evs[pos[row]] for row, evs in events.items() if pos[row] < len(evs)}


class _State:
    """The resources: semaphores' permits, latches' outstanding count-downs, channel slots put,
    named barriers' phases, grid barriers' split phases, warps converging after a wait, and the
    party operations done."""

    def __init__(self, facts: Facts):
        self.facts = facts
        self.start = {("sem", p.name): p.count or 0 for p in facts.k.prims if p.kind == "semaphore"}
        self.start.update({("latch", p.name): p.count or 0 for p in facts.k.prims if p.kind == "latch"})
        self.level: dict[tuple, int] = {}
        self.full: set[tuple] = set()
        self.parties: set[tuple] = set()
        self.arrivals: dict[tuple, int] = {}          # a named barrier or a convergence → arrivals so far
        self.waiting: dict[tuple, list] = {}          # a named barrier → (row, event) waiting in its phase
        self.passed: set[tuple] = set()               # (row, event) a named barrier let go
        self.converged: set[tuple] = set()            # (row, event) arrived where a wait's loop ends
        self.met: set[tuple] = set()                  # (row, party operation) arrived at it
        self.rounds: dict[tuple, int] = {}            # a grid barrier's split phase → rounds ended
        self.joined: dict[tuple, int] = {}            # (row, split phase) → the round it last arrived for

    def _avail(self, r: tuple) -> int:
        if r not in self.level:
            self.level[r] = self.start.get((r[0], r[1]), 0)
        return self.level[r]

    def step(self, e: Event, row: int) -> tuple[bool, tuple, tuple]:
        """Try the thread's next event: (did it get past, the resources that changed, what to sleep
        on if not). A @warp party's operation waits for every lane of the party to arrive (the
        compiler's __syncwarp before it), then acts once for all."""
        if e.party is not None and e.party in self.parties:
            return True, (), ()
        size = self.facts.memo["members"].get(e.party) if e.party is not None else None
        if size is not None:
            me = (row, e.party)
            if me not in self.met:
                self.met.add(me)
                self.arrivals[e.party] = self.arrivals.get(e.party, 0) + 1
            if self.arrivals[e.party] < size:
                return False, (), ("party", e.party)
        went, woke = self._act(e, row)
        if went and e.party is not None:
            self.parties.add(e.party)
            woke = woke + (("party", e.party),)
        return went, woke, e.resource

    def _act(self, e: Event, row: int) -> tuple[bool, tuple]:
        r = e.resource
        if e.kind == "sem":
            if not e.waits:
                self.level[r] = self._avail(r) + 1
                return True, (r,)
            if self._avail(r) > 0:
                self.level[r] -= 1
                return True, ()
            return False, ()
        if e.kind == "latch":
            if not e.waits:
                self.level[r] = self._avail(r) - 1
                return True, (r,) if self.level[r] <= 0 else ()
            return self._avail(r) <= 0, ()
        if e.kind == "chan":
            if not e.waits:
                self.full.add(r)
                return True, (r,)
            return r in self.full, ()
        if e.kind == "phase":
            # every thread of the grid arrives once a round; a wait ends when the round it arrived for has
            if not e.waits:
                self.joined[(row, r)] = self.rounds.get(r, 0)
                self.arrivals[r] = self.arrivals.get(r, 0) + 1
                if self.arrivals[r] < self.facts.threads.n:
                    return True, ()
                self.arrivals[r], self.rounds[r] = 0, self.rounds.get(r, 0) + 1
                return True, (r,)
            return self.rounds.get(r, 0) > self.joined.get((row, r), -1), ()
        if e.kind == "converge":
            me = (row, e.order, r)
            if me not in self.converged:
                self.converged.add(me)
                self.arrivals[r] = self.arrivals.get(r, 0) + 1
            full = self.arrivals[r] >= self.facts.memo["converge"][r]
            return full, (r,) if full else ()
        # a named barrier: a phase fills when its count of threads has arrived (arrive or sync);
        # the ones that sync wait for their phase to fill
        me = (row, id(e))
        if me in self.passed:
            self.passed.discard(me)
            return True, ()
        waiting = self.waiting.setdefault(r, [])
        if me in waiting:
            return False, ()
        self.arrivals[r] = self.arrivals.get(r, 0) + 1
        if e.waits:
            waiting.append(me)
        if self.arrivals[r] >= self.facts.k.prim(r[1]).count:
            self.passed.update(waiting)
            self.passed.discard(me)
            self.waiting[r], self.arrivals[r] = [], 0
            return True, (r,)
        return not e.waits, ()


# ---- what to say ---------------------------------------------------------------------------------------

def _report(facts: Facts, stuck: dict[int, Event], events, ctx: PassContext) -> None:
    reported = reported_waits(facts)
    t = facts.threads
    # a lane held where a wait's loop ends explains a stack-based deadlock best: report it first
    row, e = min(stuck.items(), key=lambda x: (x[1].kind != "converge",
                                               x[1].site.span.start if x[1].site.span else 0, x[0]))
    if id(e.site) in reported or e.site.span is None:
        return
    reported.add(id(e.site))
    if e.kind == "converge":
        _report_convergence(facts, row, e, stuck, events, ctx)
        return
    providers = _providers(e, events, stuck)
    what = _describe(facts, e)
    if providers:
        other_row, other = providers[0]
        ctx.sink.error("E0720", f"{what} can wait forever: with every thread going as far as it can, "
                       f"{t.describe(row)} waits here while {t.describe(other_row)}, which would {_verb(e)} later, "
                       f"waits at line {_line(other)} for something only a waiting thread provides", e.site.span,
                       notes=[Note(f"{t.describe(other_row)} waits here", other.site.span)],
                       help="let each provider reach its post, put or arrival before it waits for what the waiters "
                            "would give it")
    else:
        ctx.sink.error("E0705", f"{what} can wait forever: with every thread going as far as it can, "
                       f"{t.describe(row)} is left waiting here and every thread that could {_verb(e)} has finished",
                       e.site.span, help="post, put or count down once for every wait, from threads that do not "
                                         "wait for it first")


def _report_convergence(facts: Facts, row: int, e: Event, stuck, events, ctx: PassContext) -> None:
    """A lane through the wait waits where its polling loop ends for warp-mates still waiting,
    whose providers wait in turn (on a stack-based GPU)."""
    t = facts.threads
    mates = [(r, at) for r, at in stuck.items() if at.site is e.site and at.kind != "converge"
             and t.columns["gwarp"][r] == t.columns["gwarp"][row]]
    name = e.site.ref.name
    if not mates:
        return
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


def _line(e: Event):
    return e.site.span.line if e.site.span else "?"


def _describe(facts: Facts, e: Event) -> str:
    if e.kind in ("block", "grid"):
        return "this barrier"
    name = e.site.ref.name if e.site.ref is not None else "?"
    return {"sem": f"this wait on `{name}`", "latch": f"this wait on the latch `{name}`",
            "chan": f"this wait on `{name}`", "named": f"the named barrier `{name}`",
            "phase": f"this `wait {name}`",
            "converge": f"this wait on `{name}` (its warp's lanes meet where its polling loop ends)"}.get(
        e.kind, "this wait")


def _verb(e: Event) -> str:
    return {"sem": "post it", "latch": "count it down", "chan": "put the slot", "block": "arrive",
            "grid": "arrive", "phase": "arrive", "named": "arrive",
            "converge": "let its warp reconverge"}.get(e.kind, "end it")


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
