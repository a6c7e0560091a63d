"""Livelock prevention for independent thread scheduling (sm_70 and later).

Guarantee: on such targets every polling loop that structuring made, and whose
round holds no other wait, has a `__syncwarp` that all of its lanes reach once
per round. Without it the scheduler may keep running the lanes that spin and
never the lane that holds the lock and would release it (seed 003, section 3.2:
the livelock of Listing 3.3 and its fix in Listing 3.6; Listing 4.7 does the
same in the ticket lock).

The loop's lanes are the ones converged at its head (`activemask` there); each
round every one of them passes the latch, whether it ran the critical section
or only failed to acquire, and `warp.sync` on that mask makes the spinning
lanes wait for the working ones.

A loop whose body holds another wait (a nested critical section's polling
loop, any other loop, a barrier or a warp meeting) gets none: there the
`__syncwarp` would make the lanes that failed wait for lanes blocked on
something else, an edge the lock order does not see. With ticket locks that is
a deadlock on an H100: a lane queued for account 9 waits at the `__syncwarp` for
its warp-mate, which holds account 3 and waits for 9 behind it
(bench/experiments/README.md: nested critical sections hang with the
`__syncwarp` in both loops and finish with it in the inner loop only, where the
outer round holds the inner wait). Stack-based targets (Fermi) run a warp's
paths one after another anyway, so nothing is inserted there.
"""
from __future__ import annotations

from ...core.types import U32
from ..builder import KernelBuilder
from ..analysis.cfg import CFG
from ..context import PassContext
from ..nodes import Instr, Kernel
from .fences import ordering_key

# what makes a round wait for something besides its own poll
_WAITING_GROUPS = ("barrier",)
_WAITING_OPS = ("warp.sync",)


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
    cfg = CFG(k)
    b = KernelBuilder.thaw(k)
    for head, (latch, poll) in loops.items():
        key = ordering_key("syncwarp", k.name, poll.span, poll.ref.name)
        if key in ctx.omit:                  # a witness run: this __syncwarp left out
            continue
        if _round_holds_a_wait(cfg, head, latch):
            ctx.remark(k.name, "syncwarp", f"no __syncwarp in the polling loop on `{poll.ref.name}`: its round holds "
                       "another wait, and lanes meeting at its end would wait for lanes blocked on that", poll.span)
            continue
        mask = b.reg(U32, "lanes")
        b.code[head].insert(0, Instr("activemask", (mask,), (), (), poll.span))
        b.code[latch].insert(0, Instr("warp.sync", (), (mask,), (), poll.span))
        ctx.remark(k.name, "syncwarp", f"__syncwarp closes each round of the polling loop on `{poll.ref.name}`: "
                   "the lanes still waiting let the lanes that got through run their body and release, so a "
                   "warp split cannot starve them (seed 003 Listing 3.6)", poll.span, key)
    return b.freeze()


def _round_holds_a_wait(cfg: CFG, head: str, latch: str) -> bool:
    """Does one round of the loop (the blocks from its head to its latch) contain another loop
    or an operation that waits for other threads?"""
    body, todo = set(), [head]
    while todo:
        x = todo.pop()
        if x in body:
            continue
        body.add(x)
        if x != latch:
            todo.extend(cfg.succs[x])
    for x in body:
        if x != latch and head in cfg.succs[x]:
            return True                       # a second way back to the head: not one round
        if any(s in body and s != head and cfg.dominates(s, x) for s in cfg.succs[x]):
            return True                       # a back edge inside the round: another loop
        for ins in cfg.blocks[x].instrs:
            if ins.info.group in _WAITING_GROUPS or ins.op in _WAITING_OPS or ins.info.blocking:
                return True
    return False
