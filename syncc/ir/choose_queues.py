"""The ptx cost model's choice for a queue the analyses can see through: mbarrier stages.

    prefer = queue_choices(k, sync, ctx, shapes)     # PrimDecl → "mbarrier"

A shared `@warp` queue declared without `using` is lowered first as the default `ring`. Where
the lowered kernel shows that, at every shape it is checked for, one warp of each block puts
into each instance and one warp takes from it, with `put` and `get` only, at constant indices,
in a block of whole warps, an `mbarrier` queue does the same work without a ticket or a
meeting of the warp (1.04-1.31x a hand-written mbarrier ring on an H100, where the ring's
parties make 0.35-0.39x: docs/targets.md), and lowering runs again with that choice. The
mbarrier lowering is then checked like any other (checks/queue_parties.py proves again what
was found here).
"""
from __future__ import annotations

from dataclasses import replace
from math import prod

from .checks.facts import Facts, declared_shape
from .checks.queue_parties import parties_per_instance
from .nodes import Imm, Kernel

_SIMPLE = {"queue.reserve", "queue.claim", "queue.publish", "queue.free"}   # put and get, nothing else


def queue_choices(k: Kernel, candidates: dict, ctx, shapes) -> dict:
    """{PrimDecl: "mbarrier"} for the `candidates` (IR name of a defaulted shared @warp ring
    queue → its declaration) that one warp per side serves, at every shape in `shapes` (the
    launches the host block makes, or the kernel's declared shape)."""
    if ctx.target.name != "ptx" or not candidates or k.block is None or prod(k.block) % 32:
        return {}
    shapes = shapes or [declared_shape(k)]         # as the hazard checks judge it (passes/hazards.py)
    return {decl: "mbarrier" for name, decl in candidates.items() if _one_warp_each_side(k, name, ctx, shapes)}


def _one_warp_each_side(k: Kernel, name: str, ctx, shapes) -> bool:
    sides = {f"{name}.space": [], f"{name}.items": []}
    if any(p.name == f"{name}.closed" for p in k.prims):
        return False
    for b, _, ins in k.instructions():
        if ins.ref is None or ins.ref.name not in sides:
            continue
        if ins.op not in _SIMPLE or not isinstance(ins.ref.index, Imm):
            return False
        if ins.op in ("queue.reserve", "queue.claim"):
            sides[ins.ref.name].append((b.label, ins))
    for shape in shapes:
        facts = Facts(replace(k, grid=shape.grid, block=shape.block), ctx.target, shape)
        for prim_name, sites in sides.items():
            reached = [(label, ins) for label, ins in sites if label in facts.cfg.reachable]
            per = parties_per_instance(facts, k.prim(prim_name), reached)
            if per is None or any(len(warps) > 1 for warps in per.values()):
                return False
    return True
