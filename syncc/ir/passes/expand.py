"""Expansion of primitives into the operations of their implementations.

Guarantee: afterwards no primitive operation (nor `region.end`) is left. Each became its
implementation's atomics, loads and stores on state arrays (`m.word`,
`s.count`, `c.data`, ...), lock-bit operations, barriers and spin loops
(syncc/ir/impls/), with the orderings the fence pass chose placed on the
atomics and loads that carry them. Named barriers get their ids here: one per
named-barrier instance and one per warp group of a `namedbar` channel, after
id 0 when the kernel also uses the block barrier; more than the 16 a block has
is E0716.

State in global memory is initialized by the runtime before a launch (an
array's `init`); state in shared memory by the next pass.
"""
from __future__ import annotations

from ..builder import KernelBuilder
from ..context import PassContext
from ..impls.base import Emitter
from ..impls.registry import expansion
from ..nodes import Imm, Kernel, Prim
from ..specials import Specials


def expand_primitives(k: Kernel, ctx: PassContext) -> Kernel:
    b = KernelBuilder.thaw(k)
    b.prims = _allocate_barriers(k, ctx)
    prims = {p.name: p for p in b.prims}
    specials = Specials(b, b.order[0], k.block)
    em = Emitter(b, ctx, prims, specials.get, lambda p: expansion(p, ctx.target))
    em.block_threads = k.threads_per_block
    em.split_phases = {ins.ref.name for _, _, ins in k.instructions() if ins.op in ("prim.arrive", "prim.wait")}

    for label in list(b.order):
        instrs, term = b.code[label], b.terms[label]
        b.code[label], b.terms[label] = [], None
        b.at(label)
        for ins in instrs:
            if ins.op == "region.end":      # a `when` body's end: only structuring needed it
                continue
            if ins.info.group == "prim":
                b.span_now = ins.span
                prim = prims[ins.ref.name]
                expansion(prim, ctx.target).expand(em, prim, ins)
                b.span_now = None
            else:
                b.code[b.current].append(ins)
        b.terms[b.current] = term
        b.current = None
    return b.freeze()


def _uses_block_barrier(k: Kernel, target) -> bool:
    """Will the expanded kernel use barrier 0 (the block barrier)?"""
    if any(ins.op == "bar.sync" and ins.args[0] == Imm(0, ins.args[0].type) for _, _, ins in k.instructions()):
        return True
    return any(expansion(p, target).meets_at_block_barrier(p) for p in k.prims)


def _allocate_barriers(k: Kernel, ctx: PassContext) -> list[Prim]:
    limit = ctx.target.named_barriers
    next_id = 1 if _uses_block_barrier(k, ctx.target) else 0
    out = []
    for p in k.prims:
        n = expansion(p, ctx.target).named_barriers(p)
        if n == 0:
            out.append(p)
            continue
        ids = tuple(range(next_id, next_id + n))
        next_id += n
        if next_id > limit:
            ctx.sink.error("E0716", f"`{p.name}` needs named barriers {ids[0]} to {ids[-1]}, but a block has "
                           f"{limit} ({'barrier 0 is the block barrier; ' if ids[0] > 0 else ''}"
                           f"a `namedbar` channel takes one per warp of slots)", p.span,
                           help="use fewer warps of slots, or `using flag` for this channel")
        out.append(p.with_attrs(bars=ids))
        ctx.remark(k.name, "barrier", f"`{p.name}` uses named barrier{'s' if n > 1 else ''} "
                   f"{ids[0]}{f' to {ids[-1]}' if n > 1 else ''}", p.span)
    return out

