"""An `mbarrier` queue's parties (ir/lower_queue_mbarrier.py): one producer warp and one consumer
warp for each instance in each block.

    E0725  an `mbarrier` queue put into (or taken from) by more than one warp of a block, or by
           warps the analysis cannot tell apart

Each lane counts its warp's puts (gets) to know the stage and the phase to wait for; a second
producer warp would count from 0 too, and both would fill stage 0 of round 0, so values are
lost or a phase completes with the wrong arrivals and the stream hangs. Unlike the other
checks, where the analysis cannot tell who puts this is an error, not a note: the queue is only
right when the parties are known.
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ..context import PassContext
from ..impls.registry import implementation
from .facts import Facts


def check_queue_parties(facts: Facts, ctx: PassContext) -> None:
    k = facts.k
    for prim in k.prims:
        if prim.kind != "semaphore" or not implementation(prim).one_warp_per_side:
            continue
        sites = [(b.label, ins) for b, _, ins in k.instructions()
                 if ins.op == "queue.await" and ins.ref.name == prim.name and b.label in facts.cfg.reachable]
        if not sites:
            continue
        queue, side = prim.name.rsplit(".", 1)
        what = "put into" if side == "space" else "take from"
        parties = warps_per_instance(facts, prim, sites)
        if parties is None:
            ctx.sink.error("E0725", f"which warps {what} the `mbarrier` queue `{queue}` depends on "
                           "data: it needs one producer warp and one consumer warp per block, known from the program",
                           sites[0][1].span, notes=[Note(f"`{queue}` is declared here", prim.span)],
                           help="choose the warps by `warp` and constants, or use the default `ring`")
            continue
        for key, warps in sorted(parties.items(), key=str):
            if len(warps) > 1:
                w = sorted(warps)
                ctx.sink.error("E0725", f"{len(w)} warps of a block {what} the `mbarrier` queue `{queue}` (warps "
                               f"{w[0]} and {w[1]}): each warp counts its own operations to find "
                               "its stage, so two of them would use the same stage in the same round", sites[0][1].span,
                               notes=[Note(f"`{queue}` is declared here", prim.span)],
                               help="let one warp put and one other warp get, or use the default `ring`, which "
                                    "takes a ticket per operation")
                break


def warps_per_instance(facts: Facts, prim, sites) -> dict | None:
    """(block, instance index) → the warps of that block that run `sites`; None when unknown."""
    t = facts.threads
    out: dict = {}
    for label, ins in sites:
        inst = facts.instances(label)
        if inst is None:
            return None
        col = facts.value(ins.ref.index, label)
        if col is None or col[1]:
            return None
        for n, row in enumerate(inst.thread):
            key = (t.columns["block"][row], col[0][n])
            out.setdefault(key, set()).add(int(t.columns["warp"][row]))
    return out

