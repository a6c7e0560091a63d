"""Livelock prevention for independent thread scheduling (sm_70 and later).

Guarantee: on such targets every polling loop that structuring made has a
`__syncwarp` that all of its lanes reach once per round. Without it the
scheduler may keep running the lanes that spin and never the lane that holds
the lock and would release it (seed 003, section 3.2: the livelock of Listing
3.3 and its fix in Listing 3.6; Listing 4.7 does the same in the ticket lock).

The loop's lanes are the ones converged at its head (`activemask` there); each
round every one of them passes the latch, whether it ran the critical section
or only failed to acquire, and `warp.sync` on that mask makes the spinning
lanes wait for the working ones. Stack-based targets (Fermi) run a warp's
paths one after another anyway, so nothing is inserted there.
"""
from __future__ import annotations

from ...frontend.types import U32
from ..builder import KernelBuilder
from ..context import PassContext
from ..nodes import Instr, Kernel


def prevent_livelock(k: Kernel, ctx: PassContext) -> Kernel:
    if not ctx.target.its or not ctx.syncwarp:
        return k
    loops: dict[str, tuple[str, object]] = {}
    for _, _, ins in k.instructions():
        head, latch = ins.attr("loop"), ins.attr("latch")
        if head is not None and latch is not None and head not in loops:
            loops[head] = (latch, ins)
    if not loops:
        return k
    b = KernelBuilder.thaw(k)
    for head, (latch, poll) in loops.items():
        mask = b.reg(U32, "lanes")
        b.code[head].insert(0, Instr("activemask", (mask,), (), (), poll.span))
        b.code[latch].insert(0, Instr("warp.sync", (), (mask,), (), poll.span))
        ctx.remark(k.name, "syncwarp", f"__syncwarp closes each round of the polling loop on `{poll.ref.name}`: "
                   "the lanes still waiting let the lanes that got through run their body and release, so a "
                   "warp split cannot starve them (seed 003 Listing 3.6)", poll.span)
    return b.freeze()
