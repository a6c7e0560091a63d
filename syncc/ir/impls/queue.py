"""Queue implementations. A queue never reaches expansion as itself: lowering (ir/lower_queue.py)
builds each `put` and `get` from operations on the queue's two counting semaphores, `q.space`
(its free slots, `capacity` at first) and `q.items` (its stored values, 0 at first), so the
hazard checks judge a queue's waits as those semaphores'.

    locked    a ring of `capacity` slots guarded by the target's default semaphores for `space`
              and `items`, and a mutex each for the tail and the head:
                  put:  wait space; critical tail { data[tail % cap] = v; tail += 1 }; post items
                  get:  wait items; critical head { v = data[head % cap]; head += 1 }; post space
              A get's acquire of `items` follows the release of every put before the one that
              posted it (the tail mutex orders the puts), so it sees the slot it reads written.

    ring      a ring of `capacity` slots, each with a sequence word, and two ticket counters
              (seed 001's ticket idea applied to slots; docs/design/queues.md):
                  put:  t = tail++ (one atomic); wait until seq[t % cap] == 2 (t / cap);
                        data[t % cap] = v; seq[t % cap] = 2 (t / cap) + 1, with release
                  get:  t = head++; wait until seq[t % cap] == 2 (t / cap) + 1 (acquire);
                        v = data[t % cap]; seq[t % cap] = 2 (t / cap) + 2, with release
              The ticket names the slot and the round, so no lock is held anywhere: the put of
              ticket t waits only for the get of ticket t - cap to have read its slot. A single
              attempt (`tryput`, `tryget`) reads the counter, and takes the ticket with a
              compare-and-swap only when that slot is ready, so a failed one leaves nothing behind.
              At most 2^31 puts per queue per launch (the tickets are 32-bit).
              Its parts, `q.space` and `q.items`, are semaphores implemented by `RingSide`: the
              operations on them are the queue's own (ops.py, queue.*), each judged as the
              semaphore operation it performs.

    mbarrier  (shared @warp) stages of 32 values with a `full` and an `empty` mbarrier each, one
              producer warp and one consumer warp per block counting their own tickets
              (ir/lower_queue_mbarrier.py; MbarrierSide)
    spsc      one producer and one consumer thread per instance, each counting its own tickets
              in a word only it touches: the ring's sequence words, no atomic (SpscSide)
    tinylock  (Fermi) as spsc, with a `full` and an `empty` lock bit per slot passed back and
              forth instead of a sequence word (TinyLockSide; spsc on ptx)
              (both: ir/lower_queue_counted.py). The sides of these three are CountedSides:
              one party a side (checks/queue_parties.py, E0725).
"""
from __future__ import annotations

from ...core.types import BOOL, I32, U32, U64
from ..nodes import Imm, Prim, Ref, imm
from .base import Emitter
from .entry import Expansion, default, entry
from .protocol import Acquirable

MAX_STEPS = 8       # a ring waiter's backoff: at most this many steps' `delay`


class QueueImplementation(Expansion):
    """A queue as `using` names it. It never reaches expansion itself: lowering (ir/lower_queue*.py)
    emits the queue.* operations on its two parts, which the part classes below expand."""
    defaults = ()

    @classmethod
    def operations(cls):
        return {}


class Locked(QueueImplementation):
    about = entry("queue", "locked", "shared global", "thread",
                  "a ring of `capacity` slots: counting semaphores for its free slots and its values, "
                  "a mutex each for the tail and the head", "seed 001 section 4 (semaphores); docs/design/queues.md")


class Ring(QueueImplementation):
    about = entry("queue", "ring", "shared global", "thread warp block",
                  "a ring of `capacity` slots with a sequence word each: a put or get takes a ticket with one "
                  "atomic and waits for its slot alone; `delay`: ns a waiter sleeps, after a poll that found "
                  "its slot not ready, for each step (a put or get of an earlier round) the slot has still to go "
                  "through, at most 8 (0: poll again at once)", "docs/design/queues.md (the sequence-numbered ring)",
                  (("delay", 0),))
    defaults = (
        *default("ptx", "global @thread", "one atomic and one polled word per operation and no lock to wait for; "
                 "a waiter sleeps 128 ns for each step its slot has still to go through, so that many blocks "
                 "polling one ring leave L2 to the operations they wait for (0.99-1.75x the hand-written "
                 "sequence ring at 132-1056 blocks on an H100, bench/experiments/queue_delay)", (("delay", 128),)),
        *default("ptx", "global @warp, global @block",
                 "one atomic and one polled word per group of values, taken by the party's leader; the "
                 "leader sleeps between polls as a @thread queue's waiters do", (("delay", 128),)),
        *default("ptx", "shared @thread, shared @warp",
                 "one atomic and one polled word per operation and no lock to wait for"),
        *default("fermi", "shared @thread, global @thread, shared @warp, global @warp, global @block",
                 "one atomic and one polled word per operation and no lock to wait for"),
    )


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
                "queue.next": cls.do_next, "queue.pollnext": cls.do_pollnext,
                # a wide slot's (value and sequence word in one 64-bit word): the value comes with the look
                "queue.take": cls.do_wait, "queue.polltake": cls.do_poll, "queue.trytake": cls.do_try,
                "queue.nexttake": cls.do_next, "queue.pollnexttake": cls.do_pollnext, "queue.give": cls.do_post}

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
    def attempt(cls, em, prim, ins, ticket, value=None):
        """One look at the ticket's slot: ready for this side? Where the slot is wide, the look
        brings the value too, into `value` (a get's)."""
        queue, _, _ = cls.layout(prim)
        at, round_ = cls.slot(em, prim, ins.ref.index, ticket)
        if cls.wide(em, queue):
            slots = f"{queue}.slots"
            word = em.ld(slots, at, hint="slot", **em.poll_cache(slots), **em.order(ins))
            seen = em.op("cvt", I32, word, hint="seq")          # the low half
            if value is not None:
                em.b.emit("cvt", (value,), (em.op("shr", U64, word, imm(32, U64), hint="value"),))
        else:
            seq = f"{queue}.seq"
            seen = em.ld(seq, at, hint="seq", **em.poll_cache(seq), **em.order(ins))
        want = cls.ready(em, prim, round_)
        ok = em.op("cmp.eq", BOOL, seen, want, hint="ready")
        delay = dict(prim.params).get("delay", 0)
        if delay:
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

            def past_the_last():
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
            high = em.op("shl", U64, em.op("cvt", U64, ins.args[2], hint="value"), imm(32, U64), hint="value")
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


class Mbarrier(QueueImplementation):
    about = entry("queue", "mbarrier", "shared", "warp",
                  "stages of 32 values with a `full` and an `empty` mbarrier each: one producer warp and one "
                  "consumer warp per block, every lane waiting on the stage's phase and arriving after its store "
                  "or load, no ticket to take and no meeting of the warp (before sm_80 and on Fermi, two shared "
                  "words stand in for each barrier)", "docs/design/queues.md (mbarrier stages; CUTLASS's pipeline "
                  "without TMA)", counted=True)


class CountedSide(Expansion):
    """A side of a queue whose parties count their own tickets (lowering passes the ticket to
    `queue.await`, `queue.publish` and `queue.free`): one party per side and instance
    (checks/queue_parties.py), and its own synchronization orders memory, so no fence is added."""
    one_party_per_side = True

    @classmethod
    def operations(cls):
        return {"queue.await": cls.do_await, "queue.publish": cls.do_release, "queue.free": cls.do_release}

    @classmethod
    def orders_memory(cls, prim, target) -> bool:
        return True


class MbarrierSide(CountedSide):
    """One side of an `mbarrier` queue (ir/lower_queue_mbarrier.py): `q.space` waits on a stage's
    `empty` barrier, `q.items` on its `full` one, each for the phase of the ticket's round, which
    every lane counts itself. A publish arrives on the stage's `full` barrier, a free on its
    `empty` one: 32 arrivals (the warp's lanes) complete a phase. mbarrier.arrive releases and the
    wait acquires, at cta scope, so no fence is needed around them."""
    about = entry("semaphore", "mbarrier", "shared", "warp",
                  "one side of an `mbarrier` queue (internal)", "docs/design/queues.md")

    @staticmethod
    def barrier(em: Emitter, prim: Prim, index, ticket, full: bool):
        """The number of the stage's `full` (even) or `empty` (odd) barrier in `q.bars`, and the
        ticket's round."""
        cap = dict(prim.params)["capacity"]
        stage = em.op("add", I32, _affine(em, index, cap, 0), em.op("rem", I32, ticket, imm(cap), hint="stage"),
                      hint="stage")
        at = em.op("add", I32, em.op("mul", I32, stage, imm(2), hint="bar"), imm(0 if full else 1), hint="bar")
        return at, em.op("div", I32, ticket, imm(cap), hint="round")

    @classmethod
    def do_await(cls, em, prim, ins):
        """A put waits for the stage's `empty` phase of the round before (round 0 passes at once:
        parity 1 is the phase before a fresh barrier's first), a get for its `full` phase."""
        producer = prim.name.endswith(".space")
        at, round_ = cls.barrier(em, prim, ins.ref.index, ins.args[1], full=not producer)
        parity = em.op("and", I32, round_, imm(1), hint="parity")
        if producer:
            parity = em.op("xor", I32, parity, imm(1), hint="parity")
        bars = _bars(prim)
        if em.target.mbarrier:
            em.spin(lambda: em.op("mbar.test", BOOL, Ref(bars, at), parity, hint="done"), hint="stage")
            return

        def phase_done():           # the phase count is the high half of the second word
            word = em.ld(bars, em.op("add", I32, em.op("mul", I32, at, imm(2)), imm(1), hint="word"), hint="phase",
                         **em.poll_cache(bars), order="acquire")
            phase = em.op("and", I32, em.op("shr", I32, word, imm(16), hint="phase"), imm(1), hint="phase")
            return em.op("cmp.ne", BOOL, phase, parity, hint="done")
        em.spin(phase_done, hint="stage")

    @classmethod
    def do_release(cls, em, prim, ins):
        """publish (on `q.items`): the stage is full; free (on `q.space`): the stage is empty. Without
        mbarriers, the last of the 32 arrivals restores the count and moves the phase on: no
        arrival of the next phase can come before the other side has seen this one end."""
        at, _ = cls.barrier(em, prim, ins.ref.index, ins.args[1], full=prim.name.endswith(".items"))
        bars = _bars(prim)
        if em.target.mbarrier:
            em.b.emit("mbar.arrive", (), (Ref(bars, at),))
            return
        word = em.op("mul", I32, at, imm(2), hint="word")
        missing = em.atom("add", bars, word, imm(-1), hint="missing", order="acq_rel")

        def last():
            per = em.ld(bars, em.op("add", I32, word, imm(1), hint="word"), hint="per")
            em.st(bars, word, em.op("and", I32, per, imm(0xFFFF), hint="per"))
            em.atom("add", bars, em.op("add", I32, word, imm(1), hint="word"), imm(1 << 16), hint="phase",
                    order="release")
        em.when(em.op("cmp.eq", BOOL, missing, imm(1), hint="last"), last, hint="last")


class Spsc(QueueImplementation):
    about = entry("queue", "spsc", "shared global", "thread",
                  "one producer thread and one consumer thread per instance, each counting its own puts or gets "
                  "(no atomic): a sequence word per slot, polled with acquire and published with release",
                  "docs/design/queues.md (1:1 without tickets)", counted=True)


class TinyLockQueue(QueueImplementation):
    about = entry("queue", "tinylock", "shared", "thread",
                  "one producer thread and one consumer thread per instance; two Fermi lock bits per slot, "
                  "`full` and `empty`, passed back and forth, so the same bits serve every round (on ptx, spsc)",
                  "seed 000 Listings 6 and 15 (channels), with the token restored", lock_bits=True, counted=True)
    stand_in = "spsc"


class SpscSide(RingSide):
    """One side of an `spsc` queue (ir/lower_queue_counted.py): the ring's sequence words, waited on
    for the slot of a ticket the side counted itself, so no ticket is taken."""
    about = entry("semaphore", "spsc", "shared global", "thread", "one side of an `spsc` queue (internal)",
                  "docs/design/queues.md")
    one_party_per_side = True

    @classmethod
    def operations(cls):
        return {"queue.await": cls.do_await, "queue.publish": cls.do_post, "queue.free": cls.do_post}

    @classmethod
    def do_await(cls, em, prim, ins):
        em.spin(lambda: cls.attempt(em, prim, ins, ins.args[1]), hint="slot")


class TinyLockSide(CountedSide):
    """One side of a `tinylock` queue (ir/lower_queue_counted.py): a put takes the slot's `empty`
    bit (free at first) and, after its store, releases its `full` bit (held at first); a get takes
    the `full` bit and, after its load, releases the `empty` one. A bit is released by the other
    side than took it, so each passes back and forth round after round. Lock bits order shared
    memory on Fermi, so no fence is needed; on ptx, `spsc` stands in."""
    about = entry("semaphore", "tinylock", "shared", "thread", "one side of a `tinylock` queue (internal)",
                  "seed 000", lock_bits=True)
    stand_in = "spsc"

    @staticmethod
    def bits(prim: Prim) -> str:
        """The side's bits: `q.space`'s are `q.empty` (a put takes one, a get releases it),
        `q.items`'s are `q.full` (a get takes one, a put releases it)."""
        queue, side = prim.name.rsplit(".", 1)
        return f"{queue}.{'empty' if side == 'space' else 'full'}"

    @classmethod
    def do_await(cls, em, prim, ins):
        at, _ = RingSide.slot(em, prim, ins.ref.index, ins.args[1])

        def take():
            ok = em.b.reg(BOOL, "got")
            em.b.emit("lockbit.try", (ok, em.b.reg(I32, "word")), (Ref(cls.bits(prim), at),))
            return ok
        em.spin(take, hint="token")

    @classmethod
    def do_release(cls, em, prim, ins):
        """publish (on `q.items`) releases the slot's `full` bit, free (on `q.space`) its `empty` one."""
        at, _ = RingSide.slot(em, prim, ins.ref.index, ins.args[1])
        em.b.emit("lockbit.release", (), (Ref(cls.bits(prim), at), imm(0)))


def _bars(prim: Prim) -> str:
    return f"{prim.name.rsplit('.', 1)[0]}.bars"


def _affine(em: Emitter, index, scale: int, offset: int):
    """index * scale + offset, folded where the index is a constant."""
    if isinstance(index, Imm):
        return imm(index.value * scale + offset)
    return em.op("add", I32, em.op("mul", I32, index, imm(scale), hint="at"), imm(offset), hint="at")


IMPLEMENTATIONS = (Locked, Ring, Mbarrier, Spsc, TinyLockQueue)
PARTS = (RingSide, MbarrierSide, SpscSide, TinyLockSide)         # implementations of a queue's parts, which `using` cannot name
