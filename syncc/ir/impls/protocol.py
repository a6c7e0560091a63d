"""What mutex and semaphore implementations share: the acquire protocol.

An implementation defines three steps, and the IR's operations are built from them:

    enter(em, prim, ins)            once, before waiting: a token (a ticket, a delay, a queue
                                    node; 0 where none is needed)
    attempt(em, prim, ins, token)   one try: a bool register, true once held
    release(em, prim, ins)          give it back

    x.enter / x.poll   what structuring leaves: enter once, attempt in its polling loop
    lock / wait        a blocking acquire (a party leader's): enter, then attempt until it holds
    trylock / trywait  `once`: a single attempt that leaves nothing behind, fenced on success
    trywait ... for n  `try_for`: up to n of those, pausing between them as the waits do
    trywait ... for t us  `try_within`: those until one succeeds or t has passed (the GPU's timer)
    unlock / post      release

`WithBackoff` makes an implementation sleep a growing delay after each failed attempt
(seed 001 Algorithms 2 and 4): the token is the delay.
"""
from __future__ import annotations

from ...core.types import BOOL, I32, U32
from ..nodes import Instr, Prim, imm
from .base import Emitter
from .entry import Expansion


class Acquirable(Expansion):
    @classmethod
    def enter(cls, em: Emitter, prim: Prim, ins: Instr):
        return imm(0)

    @classmethod
    def attempt(cls, em: Emitter, prim: Prim, ins: Instr, token):
        raise NotImplementedError

    @classmethod
    def release(cls, em: Emitter, prim: Prim, ins: Instr) -> None:
        raise NotImplementedError

    @classmethod
    def once(cls, em: Emitter, prim: Prim, ins: Instr):
        """A single attempt that takes nothing it could not give back (for trylock/trywait)."""
        return cls.attempt(em, prim, ins, cls.enter(em, prim, ins))

    # ---- the IR's operations, from the steps above
    @classmethod
    def do_enter(cls, em, prim, ins):
        em.b.assign(ins.dests[0], cls.enter(em, prim, ins))

    @classmethod
    def do_poll(cls, em, prim, ins):
        em.b.assign(ins.dests[0], cls.attempt(em, prim, ins, ins.args[1]))

    @classmethod
    def do_pause(cls, em, prim, ins):
        cls.pause(em, prim, ins.args[1])

    @classmethod
    def pause(cls, em, prim, token) -> None:
        """Between two failed rounds of a polling loop that gave back what it took (nothing here)."""

    @classmethod
    def acquire(cls, em, prim, ins, hint: str) -> None:
        token = em.b.reg(I32, "token")
        em.b.assign(token, cls.enter(em, prim, ins))
        em.spin(lambda: cls.attempt(em, prim, ins, token), hint=hint)

    @classmethod
    def try_once(cls, em, prim, ins, hint: str) -> None:
        ok = cls.once(em, prim, ins)
        em.when(ok, lambda: em.fence_if_needed(ins), hint=hint)
        em.b.assign(ins.dests[0], ok)

    @classmethod
    def try_for(cls, em, prim, ins, hint: str) -> None:
        """Up to `ins.args[1]` single attempts (`once`: a failed one leaves nothing behind, so
        giving up after the last is safe), pausing between them; fenced on success. The count
        is read once; a count of 0 or less makes no attempt."""
        left = em.b.reg(I32, "left")
        em.b.assign(left, ins.args[1])
        ok = em.b.reg(BOOL, "ok")
        em.b.assign(ok, imm(False, BOOL))
        pause = cls.pauses(em, prim)

        def attempt():
            def one():
                em.b.assign(ok, cls.once(em, prim, ins))
                em.b.emit("sub", (left,), (left, imm(1)))
            em.when(em.op("cmp.gt", BOOL, left, imm(0)), one, hint="attempt")
            return em.op("or", BOOL, ok, em.op("cmp.le", BOOL, left, imm(0)), hint="over")
        em.spin(attempt, on_fail=pause, hint="tries")
        em.when(ok, lambda: em.fence_if_needed(ins), hint=hint)
        em.b.assign(ins.dests[0], ok)

    @classmethod
    def try_within(cls, em, prim, ins, hint: str) -> None:
        """Single attempts until one succeeds or `ins.args[1]` nanoseconds have passed since the
        first (a u32; at least one attempt), pausing between them; fenced on success. Time is the
        GPU's nanosecond timer, read as its low 32 bits (`sreg globaltimer_lo`): the elapsed time
        is a wrapping difference, right for any bound up to 4.29 s."""
        bound = em.b.reg(U32, "bound")
        em.b.assign(bound, ins.args[1])
        start = em.b.op("sreg", U32, hint="start", reg="globaltimer_lo")
        ok = em.b.reg(BOOL, "ok")
        pause = cls.pauses(em, prim)

        def attempt():
            em.b.assign(ok, cls.once(em, prim, ins))
            now = em.b.op("sreg", U32, hint="now", reg="globaltimer_lo")
            spent = em.op("sub", U32, now, start, hint="spent")
            return em.op("or", BOOL, ok, em.op("cmp.ge", BOOL, spent, bound, hint="over"), hint="done")
        em.spin(attempt, on_fail=pause, hint="tries")
        em.when(ok, lambda: em.fence_if_needed(ins), hint=hint)
        em.b.assign(ins.dests[0], ok)

    @classmethod
    def pauses(cls, em, prim):
        """What to do between two attempts of `try_for` (None: try again at once)."""
        return None


BACKOFF_PARAMS = (("min_delay", 32), ("max_delay", 1024))   # the parameters of a WithBackoff implementation


class WithBackoff:
    """Mixed in before an Acquirable: the token is the current delay, min_delay at first and
    doubling after each failure up to max_delay. A single try (`once`) does not sleep."""

    @classmethod
    def enter(cls, em, prim, ins):
        return imm(dict(prim.params).get("min_delay", 32))

    @classmethod
    def attempt(cls, em, prim, ins, token):
        ok = super().attempt(em, prim, ins, token)
        em.between_polls(lambda: cls.back_off(em, prim, token), unless=ok)
        return ok

    @classmethod
    def pause(cls, em, prim, token) -> None:
        cls.back_off(em, prim, token)

    @staticmethod
    def back_off(em, prim, delay) -> None:
        em.b.emit("nanosleep", (), (delay,))
        em.b.emit("shl", (delay,), (delay, imm(1)))
        em.b.emit("min", (delay,), (delay, imm(dict(prim.params).get("max_delay", 1024))))

    @classmethod
    def pauses(cls, em, prim):
        delay = em.b.reg(I32, "delay")
        em.b.assign(delay, cls.enter(em, prim, None))
        return lambda: cls.back_off(em, prim, delay)

    @classmethod
    def once(cls, em, prim, ins):
        return super().attempt(em, prim, ins, None)     # the plain attempt: a failed try just fails
