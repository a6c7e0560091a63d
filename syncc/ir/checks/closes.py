"""A queue's closes (docs/language.md "Queues"): counted over the launch, as counts.py counts
a latch's count-downs.

    E0705  a `for` loop over a queue closed fewer times than its `writers`: it never ends
    E0724  a queue closed more times than its `writers`, which a `for` loop takes from: the loop
           may end while writers still put; a `put` that can follow the same thread's `close`

The closes are the latch `q.closed` of impls/queue/ring.py (`latch.arrive queue=close`), and a `for`
loop's end waits on it (`latch.wait queue=for`).
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ..context import PassContext
from .counts import instance_name, per_instance
from ..analysis.facts import Facts
from .waitfor import reported_waits

CODES = ("E0705", "E0724")      # what it reports (tests/ir/test_hazard_checks.py)


def check_closes(facts: Facts, ctx: PassContext) -> None:
    """A queue that `for v in q` loops take from closes at its `writers`-th `close` (its latch
    `q.closed`, impls/queue/ring.py). Fewer closes than that, and the loops never end (E0705); more,
    and the queue closes while writers that have not closed yet may still put, so a loop can end
    with their values in it, or before they are put (E0724). The loops' own trip counts depend
    on data, so `_counts` cannot count their waits; the closes it can."""
    k, reported = facts.k, reported_waits(facts)
    loops: dict[str, list] = {}
    closes: dict[str, list] = {}
    puts: dict[str, list] = {}
    for b, _, ins in k.instructions():
        if b.label not in facts.cfg.reachable:
            continue
        if ins.op in ("latch.wait", "latch.arrive"):
            table = {"for": loops, "close": closes}.get(ins.attr("queue"))
            if table is not None:
                table.setdefault(ins.ref.name, []).append((b.label, ins))
        elif ins.op in ("queue.reserve", "queue.tryreserve", "queue.reservemany"):   # (only a `ring` queue closes)
            puts.setdefault(ins.ref.name.rsplit(".", 1)[0] + ".closed", []).append((b.label, ins))
    _put_after_close(facts, closes, puts, ctx)
    for name, waits in loops.items():
        label, wait = waits[0]
        if id(wait) in reported:
            continue
        prim = k.prim(name)
        queue = name.rsplit(".", 1)[0]
        most = per_instance(facts, prim, closes.get(name, []), upper=True)
        least = per_instance(facts, prim, closes.get(name, []), upper=False)
        if most is None:
            facts.undecided(ctx, f"how many times `{queue}` is closed: an index or a loop around a `close` "
                            "depends on data", wait.span)
            continue
        keys = sorted(set(most) | set(least or {}) | _keys_waited(facts, prim, waits), key=str)
        short = [key for key in keys if most.get(key, 0) < prim.count]
        if short:
            got = most.get(short[0], 0)
            reported.add(id(wait))
            ctx.sink.error("E0705", f"this `for` loop over `{queue}` never ends: the queue closes after "
                           f"{prim.count} `close`{'s' if prim.count != 1 else ''} (its `writers`), and "
                           f"{instance_name(facts, prim, short[0]).replace('.closed', '')} is closed {got} "
                           f"time{'s' if got != 1 else ''} at most", wait.span,
                           notes=[Note(f"`{queue}` is declared here", prim.span)] +
                                 [Note("closed here", ins.span) for _, ins in closes.get(name, [])[:1]],
                           help="close the queue once in each thread that puts into it, and declare it with "
                                "that many writers: `queue q(8, writers = N)`")
            continue
        over = [key for key in keys if least is not None and least.get(key, 0) > prim.count]
        if over:
            got = least[over[0]]
            reported.add(id(wait))
            ctx.sink.error("E0724", f"`{queue}` is closed {got} times in all but declared with `writers = "
                           f"{prim.count}`: it closes at the {_nth(prim.count)} `close`, while the writers that "
                           "close later may still put, so a `for` loop over it can end before their values are "
                           "taken", closes[name][0][1].span,
                           notes=[Note(f"`{queue}` is declared here", prim.span),
                                  Note("this loop can end too early", wait.span)],
                           help=f"declare it with `writers = {got}`, one for each `close`")


def _put_after_close(facts: Facts, closes: dict, puts: dict, ctx: PassContext) -> None:
    """A `put` that a thread can reach after its own `close` of the queue: by then the queue may
    be closed and drained, and a `for` loop over it ended (E0724). Where both lie in counted
    loops, a thread's rounds decide it (`if i == LAST { close q }` after the round's put)."""
    for name, sites in closes.items():
        for label, close in sites:
            here = facts.where[id(close)]
            late = [ins for lbl, ins in puts.get(name, []) if facts.reaches(here, facts.where[id(ins)])
                    and not _all_before(facts, (lbl, ins), (label, close))]
            if late:
                queue = name.rsplit(".", 1)[0]
                ctx.sink.error("E0724", f"a `put` into `{queue}` can follow this thread's `close` of it: once every "
                               "writer has closed it, a `for` loop over it may have ended and the value is never "
                               "taken", late[0].span, notes=[Note("closed here", close.span)],
                               help="close the queue after the thread's last `put`")
                return


def _all_before(facts: Facts, first, then) -> bool:
    """Does every thread run every instance of `first` before any instance of `then`, by the
    rounds of the counted loops around them (Facts.order_keys)? False where it cannot tell."""
    a, b = facts.order_keys(*first), facts.order_keys(*then)
    if a is None or b is None or not facts.instances(then[0]).exact:
        return False
    last: dict[int, tuple] = {}
    for row, key in zip(*a):
        if key > last.get(row, ()):
            last[row] = key
    return all(key > last.get(row, ()) for row, key in zip(*b))


def _keys_waited(facts: Facts, prim, waits) -> set:
    """The instances of `prim` the waits name, where their indices are known (else none)."""
    out = set()
    for label, ins in waits:
        inst, col = facts.instances(label), facts.value(ins.ref.index, label)
        if inst is None or col is None or col[1]:
            continue
        for n, row in enumerate(inst.thread):
            out.add(col[0][n] if prim.placement == "global" else (facts.threads.columns["block"][row], col[0][n]))
    return out


def _nth(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
