"""The sides of a `ring` queue, `q.space` and `q.items`: semaphores no program can name, whose
operations are the queue's own (ops.py, queue.*): a put or a get takes a ticket with one atomic
and waits for its slot alone, at the slot's sequence word:

    put:  t = tail++ (one atomic); wait until seq[t % cap] == 2 (t / cap);
          data[t % cap] = v; seq[t % cap] = 2 (t / cap) + 1, with release
    get:  t = head++; wait until seq[t % cap] == 2 (t / cap) + 1 (acquire);
          v = data[t % cap]; seq[t % cap] = 2 (t / cap) + 2, with release

The ticket names the slot and the round, so no lock is held anywhere: the put of ticket t waits
only for the get of ticket t - cap to have read its slot. A single attempt (`tryput`, `tryget`)
reads the counter, and takes the ticket with a compare-and-swap only when that slot is ready, so
a failed one leaves nothing behind. At most 2^31 puts per queue per launch (the tickets are
32-bit).
"""
from __future__ import annotations

from ....core.types import BOOL, I32, U32, U64
from ...nodes import Prim, imm
from ..base import Emitter
from ..entry import entry
from ..protocol import Acquirable
from .base import expanded_affine as _affine

MAX_STEPS = 8       # a ring waiter's backoff: at most this many steps' `delay`


class RingSide(Acquirable):
    """One side of a `ring` queue: `q.space` (the producers' side: its enter takes a tail ticket,
    its post frees a slot) or `q.items` (the consumers' side: a head ticket, and a publication).
    Not a semaphore a program can name: only lowering declares one (`queue ... using ring`). Its
    steps are the acquire protocol's (protocol.py): enter takes the ticket, an attempt looks at
    the ticket's slot once."""
    about = entry("semaphore", "ring", "shared global", "thread warp block",
                  "one side of a `ring` queue (internal)", "docs/design/queues.md")

    @classmethod
    def operations(cls):
        return {"queue.enter": cls.do_enter, "queue.poll": cls.do_poll, "queue.reserve": cls.do_wait,
                "queue.claim": cls.do_wait, "queue.publish": cls.do_post, "queue.free": cls.do_post,
                "queue.tryreserve": cls.do_try, "queue.tryclaim": cls.do_try,
                "queue.next": cls.do_next, "queue.pollnext": cls.do_pollnext, "queue.push": cls.do_push,
                # a wide slot's (value and sequence word in one 64-bit word): the value comes with the look
                "queue.take": cls.do_wait, "queue.polltake": cls.do_poll, "queue.trytake": cls.do_try,
                "queue.nexttake": cls.do_next, "queue.pollnexttake": cls.do_pollnext, "queue.give": cls.do_post,
                # a range put's (ring.py): k tickets at once, then a wait for each ticket's slot
                "queue.reservemany": cls.do_reserve_many, "queue.reserveat": cls.do_wait_at}

    # ---- where things are
    @staticmethod
    def layout(prim: Prim) -> tuple[str, int, int]:
        """(the queue's name, its capacity, 0 for the producers' side or 1 for the consumers')."""
        queue, side = prim.name.rsplit(".", 1)
        return queue, dict(prim.params)["capacity"], ("space", "items").index(side)

    @classmethod
    def counter(cls, em: Emitter, prim: Prim, index):
        """The side's ticket counter: `q.ends[2i]` (tail) or `q.ends[2i + 1]` (head)."""
        queue, _, side = cls.layout(prim)
        return f"{queue}.ends", _affine(em, index, 2, side)

    @classmethod
    def slot(cls, em: Emitter, prim: Prim, index, ticket):
        """(the slot's position in `q.data` and `q.seq`, the ticket's round)."""
        _, cap, _ = cls.layout(prim)
        at = em.op("add", I32, _affine(em, index, cap, 0), em.op("rem", I32, ticket, imm(cap), hint="slot"),
                   hint="slot")
        return at, em.op("div", I32, ticket, imm(cap), hint="round")

    @classmethod
    def ready(cls, em: Emitter, prim: Prim, round_):
        """The sequence word that says the slot is ready for this side in `round_`: empty (2r) for
        a put, full (2r + 1) for a get."""
        _, _, side = cls.layout(prim)
        return em.op("add", I32, em.op("mul", I32, round_, imm(2), hint="seq"), imm(side), hint="seq")

    # ---- the IR's operations
    @classmethod
    def enter(cls, em, prim, ins):
        array, at = cls.counter(em, prim, ins.ref.index)
        return em.atom("add", array, at, imm(1), hint="ticket")

    @staticmethod
    def wide(em: Emitter, queue: str) -> bool:
        """Does each slot hold its value and sequence word in one 64-bit word, `q.slots` (lowering
        chose it: the target's wide_slots, a @thread ring of 32-bit values)?"""
        return any(a.name == f"{queue}.slots" for a in em.b.arrays)

    @classmethod
    def attempt(cls, em, prim, ins, ticket, value=None, backoff=True):
        """One look at the ticket's slot: ready for this side? Where the slot is wide, the look
        brings the value too, into `value` (a get's). `backoff`: sleep after a look that failed,
        where the side has a `delay` (a waiter's, not a work pool's put, which looks once)."""
        queue, _, _ = cls.layout(prim)
        at, round_ = cls.slot(em, prim, ins.ref.index, ticket)
        if cls.wide(em, queue):
            slots = f"{queue}.slots"
            word = em.ld(slots, at, hint="slot", **em.poll_cache(slots), **em.order(ins))
            seen = em.op("cvt", I32, word, hint="seq")          # the low half
            if value is not None:
                high = em.op("shr", U64, word, imm(32, U64), hint="value")
                if value.type.is_float:            # the value's bits: to a word of its width, then its type
                    high = em.as_word(em.op("cvt", U32, high, hint="value"), value.type, hint="value")
                em.b.emit("mov" if high.type == value.type else "cvt", (value,), (high,))
        else:
            seq = f"{queue}.seq"
            seen = em.ld(seq, at, hint="seq", **em.poll_cache(seq), **em.order(ins))
        want = cls.ready(em, prim, round_)
        ok = em.op("cmp.eq", BOOL, seen, want, hint="ready")
        delay = dict(prim.params).get("delay", 0)
        if delay and backoff:
            em.between_polls(lambda: cls.back_off(em, delay, want, seen), unless=ok)
        return ok

    @staticmethod
    def back_off(em, delay: int, want, seen) -> None:
        """Sleep `delay` ns for each step the slot has still to go through before this ticket's
        turn (a step is a put or a get of an earlier round), at most MAX_STEPS: a waiter next in
        line looks again soon, one rounds behind sleeps longer and leaves L2 to those ahead
        (proportional backoff, as the ticket mutex's)."""
        steps = em.op("min", I32, em.op("max", I32, em.op("sub", I32, want, seen, hint="steps"), imm(1), hint="steps"),
                      imm(MAX_STEPS), hint="steps")
        em.b.emit("nanosleep", (), (em.op("mul", I32, steps, imm(delay), hint="sleep"),))

    @classmethod
    def do_wait(cls, em, prim, ins):
        """A blocking reserve, claim or take (one not structured into the program's loop): the
        ticket, then its slot's polls (a take's last one brought the value)."""
        ticket = ins.dests[0]
        value = ins.dests[1] if len(ins.dests) > 1 else None
        em.b.assign(ticket, cls.enter(em, prim, ins))
        em.spin(lambda: cls.attempt(em, prim, ins, ticket, value), hint="slot")

    @classmethod
    def do_reserve_many(cls, em, prim, ins):
        """queue.reservemany @q.space[i], %k: k tail tickets with one atomic; the first of them."""
        array, at = cls.counter(em, prim, ins.ref.index)
        em.b.assign(ins.dests[0], em.atom("add", array, at, ins.args[1], hint="ticket"))

    @classmethod
    def do_wait_at(cls, em, prim, ins):
        """queue.reserveat @q.space[i], %t (one not structured into the program's loop): the polls
        of the slot of ticket %t, taken before by queue.reservemany."""
        em.spin(lambda: cls.attempt(em, prim, ins, ins.args[1]), hint="slot")

    @classmethod
    def do_poll(cls, em, prim, ins):
        """queue.poll: ready; queue.polltake also the value."""
        value = ins.dests[1] if len(ins.dests) > 1 else None
        em.b.assign(ins.dests[0], cls.attempt(em, prim, ins, ins.args[1], value))

    @classmethod
    def attempt_next(cls, em, prim, ins, ticket, more, value=None):
        """One look for `for v in q`: ready when the ticket's slot is full (`more` true) or, where
        the queue is closed, when the ticket lies past the last put (`more` false: no value will
        come). Every writer closes after its puts, so once the latch reads closed (acquire) the
        tail counts every put there will be, and a ticket below it is a value on its way: its
        slot reads full at a later look."""
        full = cls.attempt(em, prim, ins, ticket, value)
        em.b.assign(more, full)
        ready = em.b.reg(BOOL, "ready")

        def at_the_end():
            queue, _, _ = cls.layout(prim)
            closed = em.prims[f"{queue}.closed"]
            tail, at = f"{queue}.ends", _affine(em, ins.ref.index, 2, 0)
            pending = f"{queue}.pending"

            def past_the_last():
                em.acquire_before_dependent_reads("cta" if closed.placement == "shared" else "gpu")
                if any(a.name == pending for a in em.b.arrays):
                    # a work pool (pool.py): closed, and no item left that is not done
                    left = em.ld(pending, _affine(em, ins.ref.index, 1, 0), hint="pending", order="acquire",
                                 **em.poll_cache(pending))
                    em.b.emit("cmp.eq", (ready,), (left, imm(0)))
                    return
                puts = em.ld(tail, at, hint="puts", **em.poll_cache(tail))
                em.b.emit("cmp.ge", (ready,), (ticket, puts))
            em.either(em.expansion_of(closed).is_open(em, closed, ins), past_the_last,
                      lambda: em.b.assign(ready, imm(False, BOOL)), hint="closed")
        em.either(full, lambda: em.b.assign(ready, imm(True, BOOL)), at_the_end, hint="full")
        return ready

    @classmethod
    def do_pollnext(cls, em, prim, ins):
        """queue.pollnext: (ready, more); queue.pollnexttake also the value."""
        value = ins.dests[2] if len(ins.dests) > 2 else None
        em.b.assign(ins.dests[0], cls.attempt_next(em, prim, ins, ins.args[1], ins.dests[1], value))

    @classmethod
    def do_next(cls, em, prim, ins):
        """queue.next: (more, ticket); queue.nexttake also the value."""
        more, ticket = ins.dests[:2]
        value = ins.dests[2] if len(ins.dests) > 2 else None
        em.b.assign(ticket, cls.enter(em, prim, ins))
        em.spin(lambda: cls.attempt_next(em, prim, ins, ticket, more, value), hint="next")

    @classmethod
    def do_push(cls, em, prim, ins):
        """queue.push, a work pool's inner put (pool.py): a tail ticket, and one look at its slot,
        no wait; the flag says whether the slot was free (acquire where it was)."""
        ok, ticket = ins.dests[:2]
        em.b.assign(ticket, cls.enter(em, prim, ins))
        em.b.assign(ok, cls.attempt(em, prim, ins, ticket, backoff=False))
        em.when(ok, lambda: em.fence_if_needed(ins), hint="free")

    @classmethod
    def do_post(cls, em, prim, ins):
        """publish (on `q.items`) or free (on `q.space`) the slot of ticket `ins.args[1]`: its
        sequence word becomes what the other side waits for, with release."""
        queue, _, side = cls.layout(prim)
        at, round_ = cls.slot(em, prim, ins.ref.index, ins.args[1])
        seq = em.op("add", I32, em.op("mul", I32, round_, imm(2), hint="seq"), imm(1 if side else 2), hint="seq")
        if not cls.wide(em, queue):
            em.st(f"{queue}.seq", at, seq, **em.order(ins))
            return
        # (value << 32) | seq, one store: a give's value (queue.give's third operand), a free's 0
        word = em.op("cvt", U64, em.op("cvt", U32, seq, hint="seq"), hint="slot")     # zero-extended
        if ins.op == "queue.give":
            value = ins.args[2]
            value = em.as_word(value, U32, hint="value") if value.type.is_float else value
            high = em.op("shl", U64, em.op("cvt", U64, value, hint="value"), imm(32, U64), hint="value")
            word = em.op("or", U64, high, word, hint="slot")
        em.st(f"{queue}.slots", at, word, **em.order(ins))

    @classmethod
    def do_try(cls, em, prim, ins):
        """One attempt: the counter's ticket, and where its slot is ready, that ticket taken with a
        compare-and-swap (a lost race fails and leaves the counter alone)."""
        ok, ticket = ins.dests[:2]
        value = ins.dests[2] if len(ins.dests) > 2 else None     # queue.trytake: the value too
        array, at = cls.counter(em, prim, ins.ref.index)
        em.b.assign(ticket, em.ld(array, at, hint="ticket", **em.poll_cache(array)))

        def take(got):
            old = em.atom("cas", array, at, ticket, em.op("add", I32, ticket, imm(1), hint="next"))
            em.b.emit("cmp.eq", (got,), (old, ticket))
        em.b.assign(ok, em.attempt_if(cls.attempt(em, prim, ins, ticket, value), take, hint="free"))
        em.when(ok, lambda: em.fence_if_needed(ins), hint="took")
