"""Who runs a primitive's operations, instance by instance: the parties of a queue's side (a warp
at @warp, a thread at @thread), for the queue choices of lowering (impls/queue/choose.py) and the
check that a counted queue has one party a side (checks/queue_parties.py)."""
from __future__ import annotations

from .facts import Facts


def parties_per_instance(facts: Facts, prim, sites) -> dict | None:
    """instance (with its block, for a shared queue) → the parties that run `sites`: warps of the
    block at @warp, threads at @thread (of the block, or as (block, thread) for a global queue);
    None when unknown."""
    t = facts.threads
    if prim.placement == "global" and not t.every_block:
        return None         # a party in a block the analysis does not follow could put too
    column = "warp" if prim.granularity == "warp" else "tid"
    out: dict = {}
    for label, ins in sites:
        inst = facts.instances(label)
        if inst is None:
            return None
        col = facts.value(ins.ref.index, label)
        if col is None or col[1]:
            return None
        for n, row in enumerate(inst.thread):
            block, party = t.columns["block"][row], int(t.columns[column][row])
            key = (block, col[0][n]) if prim.placement == "shared" else col[0][n]
            out.setdefault(key, set()).add(party if prim.placement == "shared" else (block, party))
    return out
