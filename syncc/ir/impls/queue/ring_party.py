"""Lowering of `@warp` and `@block` `ring` queues: a warp or a block puts and gets as one party.

A party's `put q = v` adds one value per member (lane, or thread of the block) as a single item,
so a slot of the queue holds `members` values (32 for a warp, the block's threads for a block)
and the capacity counts items. A `get` gives each member the value its counterpart stored: lane
l of the consumer warp gets what lane l of the producer warp put. Only `ring` queues have parties
(ring.py); their leader takes the ticket and the other members follow, as a @warp or @block
semaphore's leader acquires for its party (ir/lower/sync.py):

    put q[i] = v:   leader: t = queue.reserve @q.space[i]; queue.turn[w] = t
                    the party meets (warp.sync or bar.sync)
                    every member: t = queue.turn[w]; q.data[(iC + t % C) M + m] = v
                    the party meets
                    leader: queue.publish @q.items[i], t
    get q[i]:       the same with queue.claim, a load, and queue.free

where M is `members`, m the member's index and w the party's word in the shared array
`queue.turn` (one per warp of the block; a block uses the first). A try, or a `for` loop's next
ticket, stores -1 there when it took nothing, so every member learns the leader's answer from the
same word. The meetings order the members' stores before the leader's release and the leader's
acquire before the members' loads (docs/ptx.md, "Who acts for a warp"). Each operation meets
twice, and the word is written only before the first meeting and read only between them, so one
word serves every queue and operation of its party.
"""
from __future__ import annotations

from math import prod

from ....core.types import BOOL, I32
from ...nodes import Array, Ref, imm
from .base import member_slot

TURN = "queue.turn"


def put(sync, parts, index, value, span) -> None:
    b = sync.b
    mask, lead, turn = _party(sync, parts, span)
    sync.only_where(lead, lambda: b.emit("st", (), (turn, b.op(
        "queue.reserve", I32, Ref(parts.part("space"), index), hint="ticket", span=span)), span), span, "reserve")
    sync.party_sync(parts.granularity, mask, span)
    ticket = _read_turn(sync, parts, turn, span)
    b.emit("st", (), (member_slot(sync, parts, index, ticket, span), value), span)
    sync.party_sync(parts.granularity, mask, span)
    sync.only_where(lead, lambda: b.emit("queue.publish", (), (Ref(parts.part("items"), index), ticket), span),
                    span, "publish")


def get(sync, parts, index, span):
    b = sync.b
    mask, lead, turn = _party(sync, parts, span)
    sync.only_where(lead, lambda: b.emit("st", (), (turn, b.op(
        "queue.claim", I32, Ref(parts.part("items"), index), hint="ticket", span=span)), span), span, "claim")
    sync.party_sync(parts.granularity, mask, span)
    ticket = _read_turn(sync, parts, turn, span)
    got = b.op("ld", parts.elem, member_slot(sync, parts, index, ticket, span), hint="got", span=span)
    sync.party_sync(parts.granularity, mask, span)
    sync.only_where(lead, lambda: b.emit("queue.free", (), (Ref(parts.part("space"), index), ticket), span),
                    span, "free")
    return got


def tryput(sync, parts, index, value, span):
    """One attempt by the leader; every member stores its value where it took a slot. The bool
    register that says so, the same in every member."""
    b = sync.b
    mask, lead, ok, ticket = _leader_takes(sync, parts, index, "queue.tryreserve", "space", span)
    sync.only_where(ok, lambda: b.emit("st", (), (member_slot(sync, parts, index, ticket, span), value), span),
                    span, "tryput")
    _release_if(sync, parts, (mask, lead), ok, "queue.publish", "items", index, ticket, span)
    return ok


def tryget(sync, parts, index, got, span):
    """One attempt by the leader; where it took an item, every member's value into `got` (else
    0). The bool register that says which, the same in every member."""
    b = sync.b
    b.assign(got, imm(0, parts.elem), span)
    mask, lead, ok, ticket = _leader_takes(sync, parts, index, "queue.tryclaim", "items", span)
    sync.only_where(ok, lambda: b.emit("ld", (got,), (member_slot(sync, parts, index, ticket, span),), span),
                    span, "tryget")
    _release_if(sync, parts, (mask, lead), ok, "queue.free", "space", index, ticket, span)
    return ok


def next_value(sync, parts, index, var, span):
    """The head of a party's `for v in q` loop: the leader's next ticket (queue.next, which also
    says whether the queue is closed and drained), every member's value into `var`, the slot
    freed. The bool register `more`, the same in every member."""
    b = sync.b
    mask, lead, more, ticket = _leader_takes(sync, parts, index, "queue.next", "items", span)
    b.assign(var, imm(0, parts.elem), span)
    sync.only_where(more, lambda: b.emit("ld", (var,), (member_slot(sync, parts, index, ticket, span),), span),
                    span, "take")
    _release_if(sync, parts, (mask, lead), more, "queue.free", "space", index, ticket, span)
    return more


def end_of_loop(sync, parts, closed: Ref, span) -> None:
    """After a party's `for` loop: the leader waits on the close latch (open by then)."""
    sync.acquire_as_party(sync.b.prim(closed.name), closed, "latch.wait", span, queue="for")


def close(sync, parts, closed: Ref, span) -> None:
    """`close q` by a party: its members meet (their puts are done), and the leader counts down."""
    sync.release_as_party(sync.b.prim(closed.name), closed, "latch.arrive", span, queue="close")


# ---- the party's steps

def _party(sync, parts, span):
    """(mask, is-leader, the party's word in `queue.turn`)."""
    mask, lead = sync.leader(parts.granularity, span)
    at = sync.cx.builtin("warp") if parts.granularity == "warp" else imm(0)
    return mask, lead, Ref(_turn_array(sync), at)


def _leader_takes(sync, parts, index, op: str, side: str, span):
    """The leader's single attempt `op` (a flag and a ticket) told to the party through its word,
    as the ticket or -1: (mask, is-leader, flag, ticket), the last two the same in every member."""
    b = sync.b
    mask, lead, turn = _party(sync, parts, span)

    def attempt():
        took, ticket = b.reg(BOOL, "took"), b.reg(I32, "ticket")
        b.emit(op, (took, ticket), (Ref(parts.part(side), index),), span)
        b.emit("st", (), (turn, b.op("select", I32, took, ticket, imm(-1), hint="told", span=span)), span)
    sync.only_where(lead, attempt, span, "attempt")
    sync.party_sync(parts.granularity, mask, span)
    ticket = _read_turn(sync, parts, turn, span)
    return mask, lead, b.op("cmp.ge", BOOL, ticket, imm(0), hint="took", span=span), ticket


def _release_if(sync, parts, party, took, op: str, side: str, index, ticket, span) -> None:
    """The party meets, and where it took a slot its leader publishes or frees it."""
    b = sync.b
    mask, lead = party
    sync.party_sync(parts.granularity, mask, span)
    sync.only_where(took, lambda: sync.only_where(lead, lambda: b.emit(
        op, (), (Ref(parts.part(side), index), ticket), span), span, "release"), span, "took")


def _read_turn(sync, parts, turn: Ref, span):
    return sync.b.op("ld", I32, turn, hint="ticket", span=span, uniform=parts.granularity)


def _turn_array(sync) -> str:
    """The shared words through which leaders tell their parties a ticket: one per warp."""
    b = sync.b
    if not any(a.name == TURN for a in b.arrays):
        warps = -(-prod(b.block) // 32) if b.block is not None else 32
        b.add_array(Array(TURN, "shared", I32, (warps,), "data"))
    return TURN
