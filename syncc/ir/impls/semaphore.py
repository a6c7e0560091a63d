"""Semaphore implementations: what enter, poll, wait, trywait (once, or up to n times) and post become.

    spin      count starts at N; wait: read count, and if positive cas it one lower; post: count++
              (seed 001 Algorithm 4). With k permits (`wait s(k)`): if count >= k, cas it k lower,
              all k in one step; post adds k

    backoff   as spin, sleeping a growing delay after each failure (seed 001 Algorithm 4)
    sleeping  (one permit at a time: its tickets are a permit each) fetch-and-add: enter does C++; with the old value below N the waiter holds a permit
              at once, else it takes a ticket T++ and waits for turn > its ticket; post does C--
              and, if someone waits (old C > N), turn++. At most two atomics per operation
              (seed 001 Algorithm 5). `trywait` takes no ticket: it cas-es `holders` up only while
              below N (`once`), so a thread that gives up leaves no ticket behind for a post to serve

Each class is one registry entry (registry.py): `about`, its catalogue entry; `defaults`, where
a target picks it without `using` and why.
"""
from __future__ import annotations

from ...core.types import BOOL, I32
from ..nodes import Imm, Instr, Prim, Ref, imm
from .base import Emitter
from .entry import default, entry
from .protocol import BACKOFF_PARAMS, Acquirable, WithBackoff


class Spin(Acquirable):
    about = entry("semaphore", "spin", "global shared", "thread warp block",
                  "spin on a lock-protected counter", "seed 001 Algorithm 4", abandonable=True,
                  permits=True)
    defaults = default("ptx fermi", "shared @thread, shared @warp",
                       "shared-memory counters are cheap to spin on within a block")

    @staticmethod
    def count(em, prim):
        return em.state(prim, "count", prim.instances, prim.count or 0)

    @classmethod
    def attempt(cls, em: Emitter, prim: Prim, ins: Instr, token):
        """All or nothing: where the count has k permits (`ins.permits`, 1 unless `wait s(k)`), one
        cas takes all k; a waiter never holds part of them."""
        count = cls.count(em, prim)
        k = ins.permits
        seen = em.ld(count, ins.ref.index, hint="permits", **em.poll_cache(count))

        def take(ok):
            less = em.op("sub", I32, seen, k, hint="less")
            old = em.atom("cas", count, ins.ref.index, seen, less, **em.order(ins))
            em.b.emit("cmp.eq", (ok,), (old, seen))
        enough = em.op("cmp.gt", BOOL, seen, imm(0)) if _one(k) else em.op("cmp.ge", BOOL, seen, k)
        return em.attempt_if(enough, take, hint="permit")

    @classmethod
    def release(cls, em, prim, ins):
        em.atom("add", cls.count(em, prim), ins.ref.index, ins.permits, **em.order(ins))

    # ---- the IR's operations (protocol.py)
    @classmethod
    def operations(cls):
        return {"sem.enter": cls.do_enter, "sem.poll": cls.do_poll, "sem.wait": cls.do_wait,
                "sem.trywait": cls.do_trywait, "sem.tryfor": cls.do_tryfor, "sem.post": cls.do_post}

    @classmethod
    def do_wait(cls, em, prim, ins):
        cls.acquire(em, prim, ins, "wait")

    @classmethod
    def do_trywait(cls, em, prim, ins):
        cls.try_once(em, prim, ins, "permitted")

    @classmethod
    def do_tryfor(cls, em, prim, ins):
        if ins.attr("unit") == "ns":
            cls.try_within(em, prim, ins, "permitted")
        else:
            cls.try_for(em, prim, ins, "permitted")

    @classmethod
    def do_post(cls, em, prim, ins):
        cls.release(em, prim, ins)


class Backoff(WithBackoff, Spin):
    """The spin semaphore with a growing delay after each failure (seed 001 Algorithm 4)."""
    about = entry("semaphore", "backoff", "global shared", "thread warp block",
                  "spin semaphore with backoff in wait", "seed 001 Algorithm 4", BACKOFF_PARAMS, abandonable=True,
                  permits=True)
    defaults = ()


class Sleeping(Spin):
    """Seed 001 Algorithm 5. `holders` counts who is inside or waiting; over capacity a waiter takes
    a ticket (0, 1, 2, ...) and waits until `turn`, the posts that let a waiter in, passes it."""
    about = entry("semaphore", "sleeping", "global", "thread warp block",
                  "fetch-and-add count plus tickets: at most two atomics per operation", "seed 001 Algorithm 5")
    defaults = (
        *default("ptx fermi", "global @thread", "seed 001: the sleeping (fetch-and-add) semaphore is the fastest "
                                                "in almost all cases, with at most two atomics per operation"),
        *default("ptx fermi", "global @warp", "as for @thread: at most two atomics per operation"),
        *default("ptx fermi", "global @block", "seed 001 Table 5: best semaphore for blocks"),
    )

    @classmethod
    def expand(cls, em, prim, ins) -> None:
        # one permit a ticket: the front end refuses `(k)` on it (E0421), and a default takes
        # another implementation where a program uses `(k)` (registry.PERMITS). Taking k tickets at
        # once would serve waiters in order, not once k permits are there, which the analyses
        # assume (docs/diagnostics.md, E0421; tests/hazards/clean/permits_small_passes_large.sync)
        if not _one(ins.permits):
            raise AssertionError(f"{ins.op} of {ins.permits} permits reached the sleeping semaphore")
        super().expand(em, prim, ins)

    @staticmethod
    def arrays(em, prim):
        return (em.state(prim, "holders", prim.instances, 0), em.state(prim, "tickets", prim.instances, 0),
                em.state(prim, "turn", prim.instances, 0))

    @classmethod
    def enter(cls, em, prim, ins):
        holders, tickets, _ = cls.arrays(em, prim)
        old = em.atom("add", holders, ins.ref.index, imm(1), hint="arrived")
        ticket = em.b.reg(I32, "ticket")
        em.either(em.op("cmp.lt", BOOL, old, imm(prim.count or 0), hint="room"),
                  lambda: em.b.assign(ticket, imm(-1)),          # under capacity: a permit at once
                  lambda: em.b.emit("atom.add", (ticket,), (Ref(tickets, ins.ref.index), imm(1)),
                                    order="relaxed", scope=_scope(prim)), hint="capacity")
        return ticket

    @classmethod
    def attempt(cls, em, prim, ins, token):
        _, _, turn = cls.arrays(em, prim)
        ok = em.b.reg(BOOL, "ok")

        def queued():
            now = em.ld(turn, ins.ref.index, hint="turn", **em.poll_cache(turn), **em.order(ins))
            em.b.emit("cmp.gt", (ok,), (now, token))
        em.either(em.op("cmp.lt", BOOL, token, imm(0)), lambda: em.b.assign(ok, imm(True, BOOL)), queued,
                  hint="permit")
        return ok

    @classmethod
    def once(cls, em, prim, ins):
        """trywait: take a permit only if one is free, without a ticket (a cas, not an add)."""
        holders, _, _ = cls.arrays(em, prim)
        seen = em.ld(holders, ins.ref.index, hint="holders", **em.poll_cache(holders))

        def take(ok):
            old = em.atom("cas", holders, ins.ref.index, seen, em.op("add", I32, seen, imm(1), hint="more"),
                          **em.order(ins))
            em.b.emit("cmp.eq", (ok,), (old, seen))
        return em.attempt_if(em.op("cmp.lt", BOOL, seen, imm(prim.count or 0)), take, hint="room")

    @classmethod
    def release(cls, em, prim, ins):
        holders, _, turn = cls.arrays(em, prim)
        old = em.atom("sub", holders, ins.ref.index, imm(1), **em.order(ins))
        em.when(em.op("cmp.gt", BOOL, old, imm(prim.count or 0)),
                lambda: em.atom("add", turn, ins.ref.index, imm(1), **em.order(ins)), hint="waiters")


def _one(k) -> bool:
    """Is the number of permits the constant 1?"""
    return isinstance(k, Imm) and k.value == 1


def _scope(prim: Prim) -> str:
    return "cta" if prim.placement == "shared" else "gpu"


IMPLEMENTATIONS = (Spin, Backoff, Sleeping)   # the catalogue's order
