"""Write out the rounds of small counted loops, where the back end would leave them as loops (-O2).

Guarantee: afterwards, on a target whose model asks for it (`unroll_counted_loops`: PTX, where
LLVM runs SROA and instcombine only and ptxas seldom unrolls), no innermost loop is left that
counts a constant number of rounds, at most MAX_ROUNDS (unroll.py's `loop_counter`), whose round
holds only arithmetic, loads, stores and bounds checks, and whose rounds add up to at most
MAX_INSTRUCTIONS operations. Each round becomes a copy of the body with the counter's value in
it, so a round's loads no longer wait for the round before: `for k in 0 .. 15 { buf[..] = x[..] }`
puts fifteen loads in flight, where the loop had one. The program's meaning is the same (every
copy runs in order, each with its round's counter), and the analyses, which ran before, judged
the loop as written. Other loops, and the Fermi targets (whose listings follow the seed papers'
loops, and whose cycle counts the paper benches report), are left as they are.
"""
from __future__ import annotations

from ..analysis.cfg import CFG
from ..context import PassContext
from ..nodes import Kernel
from .unroll import loop_counter, loops, unroll_loop

MAX_ROUNDS = 32
MAX_INSTRUCTIONS = 800
_PLAIN = {"arith", "special", "memory", "check"}     # what a round may hold


def unroll_counted_loops(k: Kernel, ctx: PassContext) -> Kernel:
    if not ctx.target.unroll_counted_loops:
        return k
    tried: set[tuple] = set()
    while True:
        cfg = CFG(k)
        heads = {h for h, _ in loops(cfg)}
        found = None
        for head, body in loops(cfg):
            if (head, len(body)) in tried or any(h in body and h != head for h in heads):
                continue                     # (tried already, or not innermost)
            tried.add((head, len(body)))
            size = sum(len(cfg.blocks[x].instrs) + 1 for x in body)
            if not all(ins.info.group in _PLAIN for x in body for ins in cfg.blocks[x].instrs):
                continue
            counter = loop_counter(k, cfg, head, body, MAX_ROUNDS)
            if counter is not None and counter.rounds * size <= MAX_INSTRUCTIONS:
                found = head, body, counter
                break
        if found is None:
            return k
        head, body, counter = found
        ctx.remark(k.name, "unroll", f"wrote out the {counter.rounds} rounds of a counted loop (their loads can be in "
                   "flight together)", cfg.blocks[head].term.span)
        k = unroll_loop(k, cfg, head, body, counter)
