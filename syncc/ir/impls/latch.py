"""Latch implementations: what count_down (latch.arrive) and wait (latch.wait, latch.poll) become.

    counter   `count` starts at the latch's count of parties. A party counts down with one
              atomic decrement (ordered release); a waiter polls the count, past L1 in global
              memory, until it is 0 or less (ordered acquire). Single use, like C++20 std::latch:
              nothing resets it within a launch.

The class is the latch's one registry entry (registry.py): `about`, its catalogue entry;
`defaults`, where a target picks it without `using` and why.
"""
from __future__ import annotations

from ...core.types import BOOL
from ..nodes import Instr, Prim, imm
from .base import Emitter
from .entry import Expansion, default, entry


class Counter(Expansion):
    about = entry("latch", "counter", "global shared", "thread warp block",
                  "an atomic decrement to count down; waiters poll (past L1 in global memory) until zero",
                  "C++20 std::latch; syncc")
    defaults = default("ptx fermi", "global @thread, global @warp, global @block, shared @thread, shared @warp",
                       "the only latch: one atomic decrement per party, waiters poll")

    @staticmethod
    def count(em: Emitter, prim: Prim) -> str:
        return em.state(prim, "count", prim.instances, prim.count or 0)

    @classmethod
    def is_open(cls, em: Emitter, prim: Prim, ins: Instr):
        count = cls.count(em, prim)
        left = em.ld(count, ins.ref.index, hint="left", **em.poll_cache(count), **em.order(ins))
        return em.op("cmp.le", BOOL, left, imm(0), hint="open")

    @classmethod
    def operations(cls):
        return {"latch.arrive": cls.do_arrive, "latch.wait": cls.do_wait, "latch.poll": cls.do_poll}

    @classmethod
    def do_arrive(cls, em, prim, ins):
        em.atom("sub", cls.count(em, prim), ins.ref.index, imm(1), **em.order(ins))

    @classmethod
    def do_wait(cls, em, prim, ins):          # a party leader's blocking wait
        em.spin(lambda: cls.is_open(em, prim, ins), hint="latch")

    @classmethod
    def do_poll(cls, em, prim, ins):          # one look, in a loop structuring made
        em.b.assign(ins.dests[0], cls.is_open(em, prim, ins))


IMPLEMENTATIONS = (Counter,)
