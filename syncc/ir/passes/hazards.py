"""Static hazard analyses, on the lowered IR, before anything is restructured.

Guarantee: a program that passes has none of the hazards below that syncc can
see; each is a documented diagnostic (docs/diagnostics.md) pointing at the
operation, with notes at the other end of the problem and a fix.

    checks/waits.py     E0701 SIMT deadlock (stack-based), W0702 livelock (ITS)
    checks/locks.py     E0703 lock-order cycle, E0709 shared mutex across blocks,
                        E0715 unpaired lock/unlock, E0717 trylock that cannot give up
    checks/barriers.py  E0704 barrier under divergence, E0707 warp operation under
                        divergence, E0708 grid barrier beyond co-residency
    checks/channels.py  E0705 wait with no producer, E0706 slot with two producers
    checks/memory.py    E0709 fence too narrow, E0710 lock without fences,
                        E0711 fence after the release, W0712 last block without a fence

Lock bits (E0713, W0714) are checked where they are laid out, in allocate_lock_bits.
The IR is returned unchanged.
"""
from __future__ import annotations

from ..checks.barriers import check_collectives
from ..checks.channels import check_channels
from ..checks.facts import Facts
from ..checks.locks import check_locks
from ..checks.memory import check_memory_order
from ..checks.waits import check_waits
from ..context import PassContext
from ..nodes import Kernel

CHECKS = (check_collectives, check_locks, check_channels, check_waits, check_memory_order)


def check_hazards(k: Kernel, ctx: PassContext) -> Kernel:
    facts = Facts(k, ctx.target)
    for check in CHECKS:
        check(facts, ctx)
    return k
