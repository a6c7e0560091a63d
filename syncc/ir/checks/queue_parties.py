"""The parties of a queue whose sides count their own operations (`mbarrier`: ir/impls/queue/mbarrier.py;
`spsc` and `tinylock`: ir/impls/queue/counted.py): one producer and one consumer for each instance
(of each block, for a shared queue), a warp at @warp and a thread at @thread.

    E0725  such a queue put into (or taken from) by more than one party, or by parties the
           analysis cannot tell apart

Each side counts its puts (gets) to know the slot and the round to wait for; a second producer
would count from 0 too, and both would fill slot 0 of round 0, so values are lost or a round
completes with the wrong values and the stream hangs. Unlike the other checks, where the
analysis cannot tell who puts this is an error, not a note: the queue is only right when the
parties are known.
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ..context import PassContext
from ..impls.registry import implementation
from ..analysis.facts import Facts
from ..analysis.parties import parties_per_instance

CODES = ("E0725",)      # what it reports (tests/ir/test_hazard_checks.py)


def check_queue_parties(facts: Facts, ctx: PassContext) -> None:
    k = facts.k
    for prim in k.prims:
        if prim.kind != "semaphore" or not implementation(prim).one_party_per_side:
            continue
        sites = [(b.label, ins) for b, _, ins in k.instructions()
                 if ins.op == "queue.await" and ins.ref.name == prim.name and b.label in facts.cfg.reachable]
        if not sites:
            continue
        queue, side = prim.name.rsplit(".", 1)
        what = "put into" if side == "space" else "take from"
        who = "warp" if prim.granularity == "warp" else "thread"
        where = " of a block" if prim.placement == "shared" else ""
        parties = parties_per_instance(facts, prim, sites)
        notes = [Note(f"`{queue}` is declared here", prim.span)]
        if parties is None:
            ctx.sink.error("E0725", f"which {who}s {what} the `{prim.impl}` queue `{queue}` cannot be told from the "
                           "program (it depends on data, or on more blocks than the analysis follows): it needs one "
                           f"producer {who} and one consumer {who} per instance{where}, known from the program",
                           sites[0][1].span, notes=notes,
                           help=f"choose the {who}s by `{'warp' if who == 'warp' else 'tid'}` and constants, or use "
                                "the default `ring`")
            continue
        shared = next((sorted(found) for _, found in sorted(parties.items(), key=str) if len(found) > 1), None)
        if shared is not None:
            ctx.sink.error("E0725", f"{len(shared)} {who}s{where} {what} the `{prim.impl}` queue `{queue}` ({who}s "
                           f"{shared[0]} and {shared[1]}): each {who} counts its own operations to find its slot, so "
                           "two of them would use the same slot in the same round", sites[0][1].span, notes=notes,
                           help=f"let one {who} put and one other {who} get, or use the default `ring`, which "
                                "takes a ticket per operation")
