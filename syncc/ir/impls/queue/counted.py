"""Queues whose sides count their own tickets (CountedQueue), and two of them, `spsc` and
`tinylock`: one producer thread and one consumer thread for each instance (of each block, for a
shared queue), so neither side takes a ticket. CountedQueue's `put` and `get` serve `mbarrier`
queues too, whose lanes count in registers and whose slots hold a warp's 32 values (mbarrier.py).

Only one thread puts into an instance and one gets from it (checks/queue_parties.py proves it,
E0725), so a side's ticket is the count of its own operations so far, which it keeps in a word
of its own, `q.count[2i]` (puts) or `q.count[2i + 1]` (gets), in its block's shared memory:
read and written by that thread alone, with no atomic. The rest is the side's implementation
(SpscSide, TinyLockSide):

    put q[i] = v:   t = q.count[2i]; q.count[2i] = t + 1
                    queue.await @q.space[i], t      (judged as: wait q.space[i])
                    q.data[iC + t % C] = v
                    queue.publish @q.items[i], t    (post q.items[i])
    get q[i]:       the same with q.count[2i + 1], queue.await @q.items[i], a load and queue.free

    spsc       a sequence word per slot, as the ring's, polled and published with acquire and
               release: a put of ticket t waits for 2 (t / C), a get for 2 (t / C) + 1
    tinylock   (Fermi) two lock bits per slot, passed back and forth: `full`, held at first, which
               a put releases and a get takes, and `empty`, free at first, which a put takes and a
               get releases (seed 000's channel with the token restored, so the same 2C bits serve
               every round); on ptx, which has no lock bits, `spsc` stands in
"""
from __future__ import annotations

from math import prod

from ....core.types import BOOL, I32
from ...nodes import Array, Prim, Ref, imm
from ..entry import Expansion, entry
from .base import QueueImplementation, add_data, affine, member_slot
from .ring_side import RingSide

TINYLOCK_SHARE = 8          # the cost model gives a tinylock queue up to 1/8 of an SM's lock bits


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


class SpscSide(RingSide):
    """One side of an `spsc` queue: the ring's sequence words, waited on
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
    """One side of a `tinylock` queue: a put takes the slot's `empty`
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


class CountedQueue(QueueImplementation):
    """A queue whose sides count their own tickets: one party a side (checks/queue_parties.py,
    E0725), `put` and `get` only (E0418). Its sides are CountedSides."""

    @classmethod
    def declare(cls, sync, parts, instances, params):
        """The queue's two sides and the words each side counts in; what `syncc explain` says of it."""
        add_data(sync, parts, instances)
        cls.declare_sides(sync, parts)
        # in shared memory whatever the queue's placement: only the side's own thread reads and writes it,
        # so the copy of that thread's block is the one used, a shared load away
        sync.b.add_array(Array(parts.part("count"), "shared", I32, (instances * 2,), "state", 0))
        return cls.declare_slots(sync, parts, instances)

    @classmethod
    def declare_slots(cls, sync, parts, instances: int) -> str:
        """What tells each side its slot is ready: a sequence word per slot (the ring's); what
        `syncc explain` says of the queue."""
        sync.b.add_array(Array(parts.part("seq"), parts.placement, I32, (instances * parts.capacity,), "state", 0))
        name = parts.impl if cls.stand_in is None else \
            f"{parts.impl} as {cls.stand_in} ({sync.cx.ctx.target.name} has no lock bits)"
        return (f"{name} — {parts.capacity} slots with a sequence word each; one producer and one consumer thread "
                "count their own puts and gets, with no atomic")

    @staticmethod
    def declare_sides(sync, parts) -> None:
        for role, permits in (("space", parts.capacity), ("items", 0)):
            sync.b.prims.append(Prim(parts.part(role), "semaphore", parts.dims, parts.placement, parts.granularity,
                                     parts.impl, (("capacity", parts.capacity),), None, permits, (), parts.span))

    @classmethod
    def put(cls, sync, parts, index, value, span):
        b = sync.b
        ticket = cls.next_ticket(sync, parts, 0, index, span)
        b.emit("queue.await", (), (Ref(parts.part("space"), index), ticket), span)
        b.emit("st", (), (member_slot(sync, parts, index, ticket, span), value), span)
        b.emit("queue.publish", (), (Ref(parts.part("items"), index), ticket), span)

    @classmethod
    def get(cls, sync, parts, index, span):
        b = sync.b
        ticket = cls.next_ticket(sync, parts, 1, index, span)
        b.emit("queue.await", (), (Ref(parts.part("items"), index), ticket), span)
        got = b.op("ld", parts.elem, member_slot(sync, parts, index, ticket, span), hint="got", span=span)
        b.emit("queue.free", (), (Ref(parts.part("space"), index), ticket), span)
        return got

    @classmethod
    def next_ticket(cls, sync, parts, side: int, index, span):
        """This operation's ticket (side 0: a put, 1: a get): the side's count so far, which moves
        on by one."""
        b = sync.b
        at = Ref(parts.part("count"), affine(b, index, 2, side, span))
        ticket = b.op("ld", I32, at, hint="ticket", span=span)
        b.emit("st", (), (at, b.op("add", I32, ticket, imm(1), hint="next", span=span)), span)
        return ticket


class Spsc(CountedQueue):
    about = entry("queue", "spsc", "shared global", "thread",
                  "one producer thread and one consumer thread per instance, each counting its own puts or gets "
                  "(no atomic): a sequence word per slot, polled with acquire and published with release",
                  "docs/design/queues.md (1:1 without tickets)", counted=True, vendable=True)
    sides = SpscSide
    choice_rank = 2
    chosen_because = ("one thread puts into each instance and one takes from it, with `put` and `get` only, so "
                      "each side counts its own tickets, with no atomic (1.57x a hand-written sequence ring between "
                      "two blocks on an H100, 0.74-0.90x the ring's cycles per value on fermi-sim)")

    @classmethod
    def fits_one_party_a_side(cls, k, parts, target):
        return parts.granularity == "thread"


class TinyLockQueue(CountedQueue):
    about = entry("queue", "tinylock", "shared", "thread",
                  "one producer thread and one consumer thread per instance; two Fermi lock bits per slot, "
                  "`full` and `empty`, passed back and forth, so the same bits serve every round (on ptx, spsc)",
                  "seed 000 Listings 6 and 15 (channels), with the token restored", lock_bits=True, counted=True)
    sides = TinyLockSide
    stand_in = "spsc"
    choice_rank = 1
    chosen_because = ("one thread puts into each instance and one takes from it, with `put` and `get` only, so "
                      "lock bits passed back and forth, with no ticket (0.66-0.75x the ring's cycles per value on "
                      "fermi-sim)")

    @classmethod
    def fits_one_party_a_side(cls, k, parts, target):
        bits = 2 * parts.capacity * prod(parts.dims)
        return parts.granularity == "thread" and target.lock_bits is not None \
            and bits * TINYLOCK_SHARE <= target.lock_bits

    @classmethod
    def declare_slots(cls, sync, parts, instances):
        """Two lock bits per slot; where the target has none, spsc's sequence words."""
        if sync.cx.ctx.target.lock_bits is None:
            return super().declare_slots(sync, parts, instances)
        b = sync.b
        slots = instances * parts.capacity
        b.add_array(Array(parts.part("full"), "shared", I32, (slots,), "state", "locked"))
        b.add_array(Array(parts.part("empty"), "shared", I32, (slots,), "state", 0))
        return (f"tinylock — {parts.capacity} slots with two lock bits each, `full` (held at first) and `empty`, "
                "passed back and forth by one producer and one consumer thread, so the same bits serve every round")
