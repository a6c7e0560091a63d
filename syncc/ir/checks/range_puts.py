"""Range puts on a machine with stack-based reconvergence: lanes of one warp filling slots of one
queue in an order that is not the tickets'.

    E0701  (stack-based targets) a range put (`put q = src[lo .. hi]`) that two lanes of one warp
           can make into the same queue at once, or whose lanes the analysis cannot tell

A range put takes its hi - lo tickets with one atomic and then fills its slots one after another,
each in a polling loop that ends at the slot's publication (ir/impls/queue/ring.py). Two lanes of
one warp that run it together take two blocks of contiguous tickets, and on a stack-based GPU
(Fermi) fill them in lockstep, one slot each per round, reconverging after every round. Where the
queue is full, the second lane's first slot waits for a get of a ticket that the first lane
publishes only in a later round, which it cannot start while its warp-mate still waits: the warp
hangs, whatever the consumers do. (Single puts take a ticket per round, in the order the lanes
fill them, so they cannot.) The counting analyses see a range put as k puts and miss this, so it
is refused here: a range put is made by one lane of each warp on such a machine, as a block's
thread 0 appends its block's part of a frontier. With independent thread scheduling each lane
goes on by itself and nothing is reported.
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ..context import PassContext
from ..analysis.facts import Facts

CODES = ("E0701",)      # what it reports (tests/ir/test_hazard_checks.py)


def check_range_puts(facts: Facts, ctx: PassContext) -> None:
    if not ctx.target.stack_based:
        return
    k, t = facts.k, facts.threads
    for b, _, ins in k.instructions():
        if ins.op != "queue.reservemany" or b.label not in facts.cfg.reachable:
            continue
        queue = ins.ref.name.rsplit(".", 1)[0]
        inst = facts.instances(b.label)
        col = facts.value(ins.ref.index, b.label) if inst is not None else None
        pair = None
        if inst is not None:
            seen: dict = {}
            for n, row in enumerate(inst.thread):
                key = (t.columns["gwarp"][row], col[0][n] if col is not None and not col[1] else None)
                other = seen.setdefault(key, row)
                if t.columns["tid"][other] != t.columns["tid"][row]:
                    pair = (other, row)
                    break
            if pair is None:
                continue
            who = f"{t.describe(pair[0])} and {t.describe(pair[1])}, lanes of one warp,"
        else:
            who = "lanes of one warp (the analysis cannot tell which threads run it)"
        ctx.sink.error("E0701", f"potential SIMT deadlock: {who} can make this range put into `{queue}` together: "
                       "each takes its block of tickets at once and then fills one slot per round with its warp, so "
                       "where the queue is full a lane's slot can wait for a value that a warp-mate publishes only "
                       "in a later round, after the warp reconverges", ins.span,
                       notes=[Note(f"`{queue}` is declared here", k.prim(ins.ref.name).span)],
                       help="let one lane of each warp make the range put (`if lane == 0`, or a block's thread 0 "
                            "after gathering the block's values), or put the values one at a time")
