"""The cost model's choice for a queue the analyses can see through: a queue whose sides count
their own tickets, where one party puts into each instance and one takes from it.

    prefer = queue_choices(k, candidates, ctx, shapes)     # PrimDecl → implementation

A queue declared without `using` is lowered first as the default `ring`. Where the lowered
kernel shows that, at every shape it is checked for, one party puts into each instance (of
each block, for a shared queue) and one party takes from it, with `put` and `get` only,
lowering runs again with:

    shared @warp, ptx      `mbarrier`: no ticket and no meeting of the warp (1.04-1.31x a
                           hand-written mbarrier ring on an H100, where the ring's parties make
                           0.33-0.39x), in a block of whole warps, at constant indices
    shared @thread, Fermi  `tinylock`: two lock bits per slot passed back and forth (0.66-0.75x
                           the ring's cycles per value on fermi-sim), where its 2 x capacity bits
                           per instance take at most an eighth of an SM's; else `spsc`
    @thread otherwise      `spsc`: no atomic (1.57x the hand-written sequence ring between two
                           blocks on an H100; 0.74-0.90x the ring's cycles on fermi-sim)

Each queue implementation with a `choice_rank` says where it fits (`fits_one_party_a_side`) and
why it is chosen (`chosen_because`); the lowest rank that fits wins. The new lowering is checked
like any other (checks/queue_parties.py proves again what was found here). The choice must hold
for every launch, and a launch may take any grid (only the block is fixed): so only shared queues are chosen for, and only where which threads reach each `put` and
`get`, and the instance each names, depend on no block index, grid size, kernel argument or
memory, so that every block of any grid runs them as the blocks the analysis followed did.
"""
from __future__ import annotations

from dataclasses import replace

from ...analysis.facts import Facts, declared_shape
from ...analysis.parties import parties_per_instance
from ...nodes import Imm, Kernel, Reg
from . import IMPLEMENTATIONS

# put and get, nothing else (a wide ring slot's get and put: take and give)
_SIMPLE = {"queue.reserve", "queue.claim", "queue.publish", "queue.free", "queue.take", "queue.give"}

# the queues the cost model may choose, cheapest first
CHOOSABLE = tuple(sorted((q for q in IMPLEMENTATIONS if q.choice_rank is not None), key=lambda q: q.choice_rank))


def queue_choices(k: Kernel, candidates: dict, ctx, shapes) -> dict:
    """{PrimDecl: implementation class} for the `candidates` (IR name of a defaulted queue → its
    declaration and its parts) that one party a side serves, at every shape in `shapes` (the
    launches the host block makes, or the kernel's declared shape)."""
    shapes = shapes or [declared_shape(k)]         # as the hazard checks judge it (passes/hazards.py)
    out = {}
    for name, (decl, parts) in candidates.items():
        impl = _cheapest_for(k, parts, ctx.target) if parts.placement == "shared" else None
        if impl is not None and _one_party_each_side(k, name, ctx, shapes, constant=impl.about.constant_index):
            out[decl] = impl
    return out


def _cheapest_for(k: Kernel, parts, target):
    """The cheapest queue that counts its own tickets this target can use for the shared queue
    `parts`, or None."""
    return next((q for q in CHOOSABLE if q.fits_one_party_a_side(k, parts, target)), None)


def _one_party_each_side(k: Kernel, name: str, ctx, shapes, constant: bool) -> bool:
    sides = {f"{name}.space": [], f"{name}.items": []}
    if any(p.name == f"{name}.closed" for p in k.prims):
        return False
    for b, _, ins in k.instructions():
        if ins.ref is None or ins.ref.name not in sides:
            continue
        if ins.op not in _SIMPLE or constant and not isinstance(ins.ref.index, Imm):
            return False
        if ins.op in ("queue.reserve", "queue.claim", "queue.take"):
            sides[ins.ref.name].append((b.label, ins))
    for shape in shapes:
        facts = Facts(replace(k, grid=shape.grid, block=shape.block), ctx.target, shape)
        for prim_name, sites in sides.items():
            reached = [(label, ins) for label, ins in sites if label in facts.cfg.reachable]
            if not _same_in_every_block(facts, k, reached):
                return False
            per = parties_per_instance(facts, k.prim(prim_name), reached)
            if per is None or any(len(parties) > 1 for parties in per.values()):
                return False
    return True


_GRID = {"ctaid.x", "ctaid.y", "ctaid.z", "nctaid.x", "nctaid.y", "nctaid.z"}
_FOLLOWED = 256             # sources followed per value; more, and the site is not judged


def _same_in_every_block(facts: Facts, k: Kernel, sites) -> bool:
    """Do the conditions under which each site runs, and its index, come from thread indices and
    constants alone (no block index or grid size, kernel argument, or value read from memory)?"""
    params = {p.name for p in k.params if isinstance(p, Reg)}
    for label, ins in sites:
        for v in [ins.ref.index] + [cond for cond, _, _ in facts.guards(label)]:
            if not isinstance(v, Reg):
                continue
            if v.name in params:
                return False
            found = facts.sources(v, limit=_FOLLOWED, through_shared=True)
            if len(found) >= _FOLLOWED or not all(_from_threads(src, params) for src in found):
                return False
    return True


def _from_threads(src, params: set[str]) -> bool:
    """Is `src` arithmetic, or a thread index, reading no kernel argument?"""
    if src.op == "sreg":
        return src.attr("reg") not in _GRID
    if src.info.group != "arith" and src.op != "mov":
        return False            # a load, an atomic, a vote: a value that memory or other threads decide
    return not any(isinstance(a, Reg) and a.name in params for a in src.args)
