"""Lowering of `spsc` and `tinylock` queues: one producer thread and one consumer thread for each
instance (of each block, for a shared queue), so neither side takes a ticket. The `put` and
`get` below serve `mbarrier` queues too, whose lanes count in registers and whose slots hold a
warp's 32 values (lower_queue_mbarrier.py).

Only one thread puts into an instance and one gets from it (checks/queue_parties.py proves it,
E0725), so a side's ticket is the count of its own operations so far, which it keeps in a word
of its own, `q.count[2i]` (puts) or `q.count[2i + 1]` (gets), in its block's shared memory:
read and written by that thread alone, with no atomic. The rest is the side's implementation (impls/queue.py):

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

from ..core.types import I32
from . import lower_queue_mbarrier as mbarrier
from .lower_queue_party import affine, member_slot
from .nodes import Array, Prim, Ref, imm


def declare(sync, parts, count: int) -> str:
    """The queue's two sides and the words each side counts in; what `syncc explain` says of it."""
    b, target = sync.b, sync.cx.ctx.target
    for role, permits in (("space", parts.capacity), ("items", 0)):
        b.prims.append(Prim(parts.part(role), "semaphore", parts.dims, parts.placement, parts.granularity,
                            parts.impl, (("capacity", parts.capacity),), None, permits, (), parts.span))
    # in shared memory whatever the queue's placement: only the side's own thread reads and writes it,
    # so the copy of that thread's block is the one used, a shared load away
    b.add_array(Array(parts.part("count"), "shared", I32, (count * 2,), "state", 0))
    slots = count * parts.capacity
    if parts.impl == "tinylock" and target.lock_bits is not None:
        b.add_array(Array(parts.part("full"), "shared", I32, (slots,), "state", "locked"))
        b.add_array(Array(parts.part("empty"), "shared", I32, (slots,), "state", 0))
        return (f"tinylock — {parts.capacity} slots with two lock bits each, `full` (held at first) and `empty`, "
                "passed back and forth by one producer and one consumer thread, so the same bits serve every round")
    b.add_array(Array(parts.part("seq"), parts.placement, I32, (slots,), "state", 0))
    stand_in = f"tinylock as spsc ({target.name} has no lock bits)" if parts.impl == "tinylock" else "spsc"
    return (f"{stand_in} — {parts.capacity} slots with a sequence word each; one producer and one consumer thread "
            "count their own puts and gets, with no atomic")


def put(sync, parts, index, value, span) -> None:
    b = sync.b
    ticket = _next(sync, parts, 0, index, span)
    b.emit("queue.await", (), (Ref(parts.part("space"), index), ticket), span)
    b.emit("st", (), (member_slot(sync, parts, index, ticket, span), value), span)
    b.emit("queue.publish", (), (Ref(parts.part("items"), index), ticket), span)


def get(sync, parts, index, span):
    b = sync.b
    ticket = _next(sync, parts, 1, index, span)
    b.emit("queue.await", (), (Ref(parts.part("items"), index), ticket), span)
    got = b.op("ld", parts.elem, member_slot(sync, parts, index, ticket, span), hint="got", span=span)
    b.emit("queue.free", (), (Ref(parts.part("space"), index), ticket), span)
    return got


def _next(sync, parts, side: int, index, span):
    """This operation's ticket (side 0: a put, 1: a get): the side's count so far, which moves on
    by one (an `mbarrier` queue's lanes keep theirs in registers: lower_queue_mbarrier.py)."""
    if parts.impl == "mbarrier":
        return mbarrier.next_ticket(sync, parts, side, index, span)
    b = sync.b
    at = Ref(parts.part("count"), affine(b, index, 2, side, span))
    ticket = b.op("ld", I32, at, hint="ticket", span=span)
    b.emit("st", (), (at, b.op("add", I32, ticket, imm(1), hint="next", span=span)), span)
    return ticket
