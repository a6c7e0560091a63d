"""Mutex implementations: what enter, poll, lock, trylock and unlock become.

    tas       word: cas(word, 0, 1) == 0 to acquire, exch(word, 0) to release   (seed 003 L4.2, 4.3)
    ttas      as tas, but first poll the word with an L1-bypassing load       (seed 003 L4.4)
    backoff   as tas, sleeping a growing delay after each failure               (seed 001 Alg. 2)
    ticket    enter takes next++; poll waits for serving == ticket; unlock serving++  (seed 003 L4.7);
              with delay=D a waiter sleeps D ns per waiter ahead between polls (proportional backoff)
    mcs/mcs2  each waiter spins on its own queue node (one per thread, or two)  (seed 003 §4.2)
    tinylock  a Fermi lock bit: LDSLK to try, STSUL to release (seed 000 L4); on targets without
              lock bits, a shared-memory word handled like tas

Every implementation defines `enter` (once, before a polling loop: the token is a ticket, a delay
or a queue node), `attempt` (one try, a bool) and `release`; protocol.py builds lock, trylock and
unlock from them. Each class is one registry entry (registry.py): `about`, its catalogue entry;
`defaults`, where a target picks it without `using` and why.
"""
from __future__ import annotations

from ...core.types import BOOL, I32
from ..nodes import Instr, Prim, Ref, imm
from .base import Emitter
from .entry import default, entry
from .protocol import BACKOFF_PARAMS, Acquirable, WithBackoff

NONE = -1   # an empty MCS queue link


class Tas(Acquirable):
    about = entry("mutex", "tas", "global shared", "thread warp block",
                  "test-and-set: spin on atomic compare-and-swap", "seed 003 Listing 4.2; seed 001 Algorithm 1",
                  abandonable=True)
    defaults = ()
    for_trylock = {"ptx": 1, "fermi": 2}

    @classmethod
    def word(cls, em: Emitter, prim: Prim) -> str:
        return em.state(prim, "word", prim.instances, 0)

    @classmethod
    def attempt(cls, em: Emitter, prim: Prim, ins: Instr, token):
        old = em.atom("cas", cls.word(em, prim), ins.ref.index, imm(0), imm(1), **em.order(ins))
        return em.eq(old, imm(0))

    @classmethod
    def release(cls, em: Emitter, prim: Prim, ins: Instr) -> None:
        em.atom("exch", cls.word(em, prim), ins.ref.index, imm(0), **em.order(ins))

    # ---- the IR's operations (protocol.py)
    @classmethod
    def operations(cls):
        return {"mutex.enter": cls.do_enter, "mutex.poll": cls.do_poll, "mutex.pause": cls.do_pause,
                "mutex.lock": cls.do_lock,
                "mutex.trylock": cls.do_trylock, "mutex.unlock": cls.do_unlock}

    @classmethod
    def do_lock(cls, em, prim, ins):
        cls.acquire(em, prim, ins, "lock")

    @classmethod
    def do_trylock(cls, em, prim, ins):
        cls.try_once(em, prim, ins, "locked")

    @classmethod
    def do_unlock(cls, em, prim, ins):
        cls.release(em, prim, ins)


class Ttas(Tas):
    about = entry("mutex", "ttas", "global", "thread warp block",
                  "test-and-test-and-set: poll with L1-bypassing loads, then CAS", "seed 003 Listing 4.4",
                  abandonable=True)
    for_trylock = {"ptx": 0, "fermi": 3}

    @classmethod
    def attempt(cls, em, prim, ins, token):
        word = cls.word(em, prim)
        seen = em.ld(word, ins.ref.index, hint="seen", **em.poll_cache(word))

        def try_cas(ok):
            old = em.atom("cas", word, ins.ref.index, imm(0), imm(1), **em.order(ins))
            em.b.emit("cmp.eq", (ok,), (old, imm(0)))
        return em.attempt_if(em.eq(seen, imm(0)), try_cas, hint="free")


class Backoff(WithBackoff, Tas):
    """Test-and-set with a growing delay after each failure (seed 001 Algorithm 2)."""
    about = entry("mutex", "backoff", "global shared", "thread warp block",
                  "spin lock with growing delay between attempts", "seed 001 Algorithm 2", BACKOFF_PARAMS,
                  abandonable=True)
    for_trylock = {"ptx": 2, "fermi": 1}
    defaults = (
        *default("fermi", "global @thread", "seed 001 Table 5: on Fermi the spin lock with backoff overtakes "
                                            "fetch-and-add beyond a few blocks"),
        *default("fermi", "global @warp", "seed 001 Table 5, per warp"),
        *default("fermi", "global @block", "seed 001 Table 5: best mutex for blocks on Fermi at scale"),
    )


class Ticket(Tas):
    """Fair: enter takes next++, and the holder is the ticket equal to serving."""
    about = entry("mutex", "ticket", "global shared", "thread warp block",
                  "fetch-and-add ticket lock: fair, first come first served; `delay`: ns a waiter sleeps per "
                  "waiter ahead of it between polls (proportional backoff; 0 polls without sleeping)",
                  "seed 001 Algorithm 3; seed 003 Listing 4.7; Mellor-Crummey & Scott 1991 (proportional backoff)",
                  (("delay", 0),))
    defaults = (
        *default("ptx", "global @thread", "measured on H100 (docs/references.md): ticket 0.93 M ops/s vs TAS 0.02 M "
                                          "under full contention; fair; seed 003 finds it scales best"),
        *default("ptx", "global @warp", "one ticket per warp; fair between warps"),
        *default("ptx", "global @block", "one ticket per block; fair between blocks; a waiter sleeps 100 ns "
                                         "per block ahead of it but the next between polls, which holds 1.06-1.09 M "
                                         "hand-overs/s from 132 to 1056 blocks on an H100 where polling without "
                                         "sleeping falls from 1.11 to 0.90 M (`syncc bench gpu`, 2026-11-25)",
                 params=(("delay", 100),)),
        *default("ptx", "shared @thread", "fair, and one atomic per acquisition"),
        *default("ptx", "shared @warp", "fair between the warps of a block"),
    )

    @staticmethod
    def arrays(em, prim):
        return em.state(prim, "next", prim.instances, 0), em.state(prim, "serving", prim.instances, 0)

    @classmethod
    def enter(cls, em, prim, ins):
        nxt, _ = cls.arrays(em, prim)
        return em.atom("add", nxt, ins.ref.index, imm(1), hint="ticket")

    @classmethod
    def attempt(cls, em, prim, ins, token):
        _, serving = cls.arrays(em, prim)
        now = em.ld(serving, ins.ref.index, hint="serving", **em.poll_cache(serving), **em.order(ins))
        ok = em.eq(now, token)
        delay = dict(prim.params).get("delay", 0)
        if delay and token is not None:
            # proportional backoff: sleep about one hand-over per waiter ahead but the next, so the
            # waiters far back poll less and the word's line is free for the holder's release,
            # while the next in line polls on (its sleep would add to every hand-over: +7% on an
            # H100 at 132-1056 blocks, bench/experiments/mutex_handover)
            # on the way back to the next poll, so the poll that sees its turn leaves at once (a
            # sleep between the poll and its test: 15-20% of the hand-overs, the same study)
            def back_off():
                behind = em.op("sub", I32, em.op("sub", I32, token, now, hint="ahead"), imm(1), hint="behind")
                em.when(em.op("cmp.gt", BOOL, behind, imm(0), hint="far"),
                        lambda: em.b.emit("nanosleep", (), (em.op("mul", I32, behind, imm(delay), hint="pause"),)),
                        hint="backoff")
            em.between_polls(back_off)
        return ok

    @classmethod
    def release(cls, em, prim, ins):
        _, serving = cls.arrays(em, prim)
        em.atom("add", serving, ins.ref.index, imm(1), **em.order(ins))


class Mcs(Tas):
    """Queue nodes per thread (two for mcs2, for lock coupling); the holder's node is kept in `head`."""
    about = entry("mutex", "mcs", "global", "thread",
                  "MCS queue lock: each waiter spins on its own node", "seed 003 Listing 4.10")
    nodes_per_thread = 1

    @classmethod
    def arrays(cls, em, prim):
        n = cls.nodes_per_thread
        return (em.state(prim, "tail", prim.instances, NONE), em.state(prim, "head", prim.instances, NONE),
                em.state(prim, "link", n, NONE, space="global", per="thread"),
                em.state(prim, "waiting", n, 0, space="global", per="thread"),
                em.state(prim, "busy", n, 0, space="global", per="thread"))

    @classmethod
    def node(cls, em, prim):
        gtid = em.builtin("gtid")
        if cls.nodes_per_thread == 1:
            return gtid
        busy = cls.arrays(em, prim)[4]
        first = em.op("mul", I32, gtid, imm(2), hint="node")
        return em.op("add", I32, first, em.ld(busy, first, hint="taken"), hint="node")  # second node if busy

    @classmethod
    def enter(cls, em, prim, ins):
        tail, _, link, waiting, busy = cls.arrays(em, prim)
        me = cls.node(em, prim)
        em.st(busy, me, imm(1))
        em.st(link, me, imm(NONE))
        em.st(waiting, me, imm(1))
        prev = em.atom("exch", tail, ins.ref.index, me, order="acq_rel", hint="prev")
        em.either(em.eq(prev, imm(NONE)), lambda: em.st(waiting, me, imm(0)),
                  lambda: em.st(link, prev, me, order="release", scope="gpu"), hint="queue")
        return me

    @classmethod
    def attempt(cls, em, prim, ins, token):
        _, head, _, waiting, _ = cls.arrays(em, prim)
        ok = em.eq(em.ld(waiting, token, hint="waiting", cache="cg", **em.order(ins)), imm(0))
        em.when(ok, lambda: em.st(head, ins.ref.index, token), hint="own")
        return ok

    @classmethod
    def release(cls, em, prim, ins):
        tail, head, link, waiting, busy = cls.arrays(em, prim)
        me = em.ld(head, ins.ref.index, hint="me")
        # acquire: the successor initialized its node before linking it
        succ = em.ld(link, me, hint="succ", cache="cg", order="acquire", scope="gpu")

        def hand_over():
            em.st(waiting, succ, imm(0), **em.order(ins))

        def maybe_last():
            old = em.atom("cas", tail, ins.ref.index, me, imm(NONE), order="release", hint="tail")

            def wait_for_successor():   # it swapped itself into the tail but has not linked yet
                def linked():
                    em.ordered(lambda extra: em.b.emit("ld", (succ,), (Ref(link, me),), cache="cg", **extra),
                               link, {"order": "acquire", "scope": "gpu"})
                    return em.op("cmp.ne", BOOL, succ, imm(NONE))
                em.spin(linked, hint="link")
                hand_over()
            em.when(em.op("cmp.ne", BOOL, old, me), wait_for_successor, hint="successor")
        em.either(em.eq(succ, imm(NONE)), maybe_last, hand_over, hint="handoff")
        em.st(busy, me, imm(0))


class Mcs2(Mcs):
    about = entry("mutex", "mcs2", "global", "thread",
                  "MCS with two queue nodes per thread, for lock coupling", "seed 003 section 4.2.2")
    nodes_per_thread = 2


class TinyLock(Tas):
    """Lock bits (Fermi): LDSLK takes the bit and says whether it was free; STSUL frees it."""
    about = entry("mutex", "tinylock", "shared", "thread warp",
                  "Fermi lock bits (LDSLK/STSUL), no mutex word; a warp shares one bit at @warp",
                  "seed 000 Listings 4 and 9", abandonable=True, lock_bits=True)
    stand_in = "tas"        # a shared word, where there are no lock bits
    for_trylock = {"fermi": 0}
    defaults = (
        *default("fermi", "shared @thread", "seed 000: lock bits need no mutex word and one load and one store "
                                            "per acquisition; 4.0x the atomic spin lock"),
        *default("fermi", "shared @warp", "seed 000 Listing 9: one lock bit shared by the warp"),
    )

    @classmethod
    def meets_at_block_barrier(cls, prim):
        return prim.granularity in ("block", "grid")    # a lock bit starts free: nothing to initialize

    @classmethod
    def word(cls, em, prim):
        return em.state(prim, "word", prim.instances, None, space="shared")

    @classmethod
    def attempt(cls, em, prim, ins, token):
        ok = em.b.reg(BOOL, "ok")
        em.b.emit("lockbit.try", (ok, em.b.reg(I32, "word")), (Ref(cls.word(em, prim), ins.ref.index),))
        return ok

    @classmethod
    def release(cls, em, prim, ins):
        em.b.emit("lockbit.release", (), (Ref(cls.word(em, prim), ins.ref.index), imm(0)))


IMPLEMENTATIONS = (Tas, Ttas, Ticket, Mcs, Mcs2, Backoff, TinyLock)   # the catalogue's order
