"""`ring`, every target's default queue: a ring of `capacity` slots, each with a sequence word,
and two ticket counters, `q.ends[2i]` (tail) and `q.ends[2i + 1]` (head) (seed 001's ticket
idea applied to slots; docs/design/queues.md). Its sides `q.space` and `q.items` are `RingSide`s
(ring_side.py), whose operations are the queue's own (ops.py, queue.*), each judged as the
semaphore operation it performs:

    put q[i] = v:   t = queue.reserve @q.space[i]      (judged as: wait q.space[i])
                    q.data[iC + t % C] = v
                    queue.publish @q.items[i], t       (post q.items[i])
    get q[i]:       t = queue.claim @q.items[i]        (wait q.items[i])
                    v = q.data[iC + t % C]
                    queue.free @q.space[i], t          (post q.space[i])

    tryput q[i] = v / tryget v = q[i] { }:  the same, with one attempt (queue.tryreserve /
                    queue.tryclaim: a flag and a ticket) instead of the wait, and the rest only
                    where it took a slot (the statement's result, or its branch)

Where the target has 64-bit loads and stores (ptx: wide_slots) a @thread ring of 32-bit values
keeps each slot's value and sequence word in one word, q.slots[iC + t % C] = (value << 32) | seq,
so the value travels with the sequence word instead of in a second access:

    put q[i] = v:   t = queue.reserve @q.space[i];  queue.give @q.items[i], t, v

A range put, `put q[i] = src[lo .. hi]` (@thread only), takes its hi - lo tickets with one atomic,
`queue.reservemany`, then waits for each ticket's slot (`queue.reserveat`), stores and publishes
it, in ticket order (Ring.put_range).
    get q[i]:       t, v = queue.take @q.items[i];  queue.free @q.space[i], t

and tryget and `for v in q` use queue.trytake and queue.nexttake, which return the value too.
At `@warp` and `@block` a party puts and gets as one (ring_party.py). Only a ring closes: `close`
counts down its latch `q.closed`, and `for v in q` takes values until every writer has closed it
and it is drained.
"""
from __future__ import annotations

from ....core.types import BOOL, I32, U64
from ...nodes import Array, Prim, Ref, imm
from ..entry import default, entry
from . import ring_party as party
from . import pool
from .base import QueueImplementation, add_data, ring_slot
from .ring_side import RingSide


class Ring(QueueImplementation):
    about = entry("queue", "ring", "shared global", "thread warp block",
                  "a ring of `capacity` slots with a sequence word each: a put or get takes a ticket with one "
                  "atomic and waits for its slot alone; `delay`: ns a waiter sleeps, after a poll that found "
                  "its slot not ready, for each step (a put or get of an earlier round) the slot has still to go "
                  "through, at most 8 (0: poll again at once)", "docs/design/queues.md (the sequence-numbered ring)",
                  (("delay", 0),), closable=True, ranges=True)
    sides = RingSide
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

    @classmethod
    def wide(cls, granularity, elem, target):
        return granularity == "thread" and target.wide_slots and elem.bits == 32 and elem.kind != "record"

    @classmethod
    def declare(cls, sync, parts, instances, params):
        b = sync.b
        if parts.wide:
            # (value << 32) | sequence word: a get's poll brings its value, a put's publication stores
            # it, each one memory access (1.18-1.40x a sequence ring with separate words on an H100)
            b.add_array(Array(parts.part("slots"), parts.placement, U64, (instances * parts.capacity,), "state", 0))
        else:
            add_data(sync, parts, instances)
        b.add_array(Array(parts.part("ends"), parts.placement, I32, (instances * 2,), "state", 0))
        if not parts.wide:
            b.add_array(Array(parts.part("seq"), parts.placement, I32, (instances * parts.capacity,), "state", 0))
        if parts.pool:      # a work pool's items put and not yet done (pool.py)
            b.add_array(Array(parts.part("pending"), parts.placement, I32, (instances,), "state", 0))
        for role, count in (("space", parts.capacity), ("items", 0)):
            b.prims.append(Prim(parts.part(role), "semaphore", parts.dims, parts.placement, parts.granularity, "ring",
                                (("capacity", parts.capacity), ("delay", params.get("delay", 0))), None, count, (),
                                parts.span))
        return (f"ring — {parts.capacity} slots with a sequence word each and a ticket counter per side "
                f"(`{parts.part('space')}`, `{parts.part('items')}`)"
                + (", each slot's value and sequence word in one 64-bit word, read and written together"
                   if parts.wide else "")
                + (f", sleeping {params['delay']} ns per step its slot has to go through between polls"
                   if params.get("delay") else "")
                + (f"; a work pool, counting its items not yet done in `{parts.part('pending')}`"
                   if parts.pool else ""))

    @classmethod
    def put(cls, sync, parts, index, value, span):
        if parts.granularity != "thread":
            party.put(sync, parts, index, value, span)
            return
        ticket = sync.b.op("queue.reserve", I32, Ref(parts.part("space"), index), hint="ticket", span=span)
        if parts.pool:
            pool.count_item(sync, parts, index, +1, span)
        _publish(sync, parts, index, ticket, value, span)

    @classmethod
    def put_range(cls, sync, parts, index, source, lo, hi, span):
        """`put q[i] = src[lo .. hi]`: k = hi - lo tail tickets with one atomic, then each slot in
        ticket order, as a put fills its one (module docstring):

                    (where k != 0: ld src[first], ld src[hi - 1], the range's two ends read first,
                     so that their bounds checks stop a range outside src, or k < 0 (first = -1),
                     before a ticket is taken; a vended operation, which has no checks, takes
                     max(k, 0) instead)
                    %t0 = queue.reservemany @q.space[i], %k
            for j in 0 .. k:
                    %t = add %t0, %j
                    queue.reserveat @q.space[i], %t        (judged as: wait q.space[i])
                    (the value src[lo + j]); queue.publish @q.items[i], %t

        The loop is a counted loop of k rounds, each a put's wait and publication, so the analyses
        count k puts where they can count the loop (analysis/space.py, ranges.py)."""
        b = sync.b
        ctx = sync.cx.ctx
        k = b.op("sub", I32, hi, lo, hint="count", span=span)
        frozen = b.reg(I32, "count")            # the bound, evaluated once
        if ctx.bounds_checks and not ctx.vending:
            b.assign(frozen, k, span)
            _probe_ends(b, parts, source, lo, hi, frozen, span)
        else:       # no run-time checks (a vended operation, --unsafe-no-bounds-checks): k < 0 puts nothing
            b.assign(frozen, b.op("max", I32, k, imm(0), hint="count", span=span), span)
        space = Ref(parts.part("space"), index)
        start = b.op("queue.reservemany", I32, space, frozen, hint="tickets", span=span)
        j = b.reg(I32, "j")
        b.assign(j, imm(0), span)
        head, body, latch, done = (b.new_block(h) for h in ("putrange", "putslot", "nextslot", "endputrange"))
        b.jump(head, span)
        b.at(head)
        b.branch(b.op("cmp.lt", BOOL, j, frozen, span=span), body, done, span)
        b.at(body)
        ticket = b.op("add", I32, start, j, hint="ticket", span=span)
        b.emit("queue.reserveat", (), (space, ticket), span)
        value = b.op("ld", parts.elem, Ref(source, b.op("add", I32, lo, j, hint="at", span=span)), hint="value",
                     span=span)
        if parts.pool:
            pool.count_item(sync, parts, index, +1, span)
        _publish(sync, parts, index, ticket, value, span)
        b.jump(latch, span)
        b.at(latch)
        b.emit("add", (j,), (j, imm(1)), span)
        b.jump(head, span)
        b.at(done)

    @classmethod
    def inner_put(cls, sync, parts, index, value, span):
        pool.inner_put(sync, parts, index, value, span, _publish)

    @classmethod
    def get(cls, sync, parts, index, span):
        b = sync.b
        if parts.granularity != "thread":
            return party.get(sync, parts, index, span)
        if parts.wide:
            ticket, got = b.reg(I32, "ticket"), b.reg(parts.elem, "got")
            b.emit("queue.take", (ticket, got), (Ref(parts.part("items"), index),), span)
            b.emit("queue.free", (), (Ref(parts.part("space"), index), ticket), span)
        else:
            ticket = b.op("queue.claim", I32, Ref(parts.part("items"), index), hint="ticket", span=span)
            got = _consume(sync, parts, index, ticket, span)
        if parts.pool:          # a work pool's item taken by a `get` is done once taken
            pool.count_item(sync, parts, index, -1, span)
        return got

    @classmethod
    def tryput(cls, sync, parts, index, value, dest, span):
        """One attempt: true (and the value stored) where the ticket's slot was free."""
        b = sync.b
        if parts.granularity != "thread":
            return sync.cx.exprs.emit_value(dest, "mov", BOOL, party.tryput(sync, parts, index, value, span), span=span)
        ok, ticket = b.reg(BOOL, "took"), b.reg(I32, "ticket")
        b.emit("queue.tryreserve", (ok, ticket), (Ref(parts.part("space"), index),), span)
        def publish():
            if parts.pool:
                pool.count_item(sync, parts, index, +1, span)
            _publish(sync, parts, index, ticket, value, span)
        sync.only_where(ok, publish, span, "tryput")
        return sync.cx.exprs.emit_value(dest, "mov", BOOL, ok, span=span)

    @classmethod
    def tryget(cls, sync, parts, index, got, span):
        """One attempt: where the head's slot was full, its value into `got` (else it stays 0)."""
        b = sync.b
        if parts.granularity != "thread":
            return party.tryget(sync, parts, index, got, span)
        b.assign(got, imm(0, parts.elem), span)
        if parts.wide:
            ok, ticket, value = b.reg(BOOL, "took"), b.reg(I32, "ticket"), b.reg(parts.elem, "value")
            b.emit("queue.trytake", (ok, ticket, value), (Ref(parts.part("items"), index),), span)

            def take():
                b.assign(got, value, span)
                b.emit("queue.free", (), (Ref(parts.part("space"), index), ticket), span)
                if parts.pool:
                    pool.count_item(sync, parts, index, -1, span)
            sync.only_where(ok, take, span, "tryget")
            return ok
        ok, ticket = b.reg(BOOL, "took"), b.reg(I32, "ticket")
        b.emit("queue.tryclaim", (ok, ticket), (Ref(parts.part("items"), index),), span)

        def claim():
            b.assign(got, _consume(sync, parts, index, ticket, span), span)
            if parts.pool:
                pool.count_item(sync, parts, index, -1, span)
        sync.only_where(ok, claim, span, "tryget")
        return ok

    @classmethod
    def close(cls, sync, parts, index, span):
        """`close q[i]`: one of the queue's writers is done (a count-down of its latch q.closed)."""
        if parts.granularity != "thread":
            party.close(sync, parts, Ref(closed_latch(sync, parts), index), span)
            return
        sync.b.emit("latch.arrive", (), (Ref(closed_latch(sync, parts), index),), span, queue="close")

    @classmethod
    def for_each(cls, sync, parts, index, var, body, span):
        """`for v in q[i] { body }`: take values until the queue is closed and drained.

            head:   %more, %t = queue.next @q.items[i]    (judged as: wait q.items[i])
                    br %more, take, none
            take:   v = q.data[iC + t % C]; queue.free @q.space[i], %t;  jmp joined
            none:   v = 0;  jmp joined
            joined: br %more, body, closed
            body:   ...;  jmp head
            closed: latch.wait @q.closed[i]               (open already: the loop ends only then)

        The two paths meet right after the free, so structuring runs the take inside the polling
        loop: a lane that got its value frees its slot before its warp reconverges (Fermi), where a
        lane of the same warp may be polling for that slot's next round. The wait on the latch costs
        one look: it is there so that the analyses see that the loop ends only once every writer
        has closed the queue (E0705 when they cannot all). A work pool's loop is pool.py's."""
        b = sync.b
        if parts.pool:
            pool.for_each(sync, parts, index, var, body, span, closed_latch(sync, parts), _consume)
            return
        closed = closed_latch(sync, parts)
        head = b.new_block("foreach")
        take, none = (b.new_block(h) for h in ("take", "none")) if parts.granularity == "thread" else (None, None)
        joined, each, ended, done = (b.new_block(h) for h in ("joined", "each", "closed", "endforeach"))
        b.jump(head, span)
        b.at(head)
        if parts.granularity != "thread":        # the leader's ticket, told to the party
            more = party.next_value(sync, parts, index, var, span)
            b.jump(joined, span)
        else:
            more, ticket = b.reg(BOOL, "more"), b.reg(I32, "ticket")
            if parts.wide:
                value = b.reg(parts.elem, "value")
                b.emit("queue.nexttake", (more, ticket, value), (Ref(parts.part("items"), index),), span)
            else:
                b.emit("queue.next", (more, ticket), (Ref(parts.part("items"), index),), span)
            b.branch(more, take, none, span)
            b.at(take)
            if parts.wide:
                b.assign(var, value, span)
                b.emit("queue.free", (), (Ref(parts.part("space"), index), ticket), span)
            else:
                b.assign(var, _consume(sync, parts, index, ticket, span), span)
            b.jump(joined, span)
            b.at(none)
            b.assign(var, imm(0, parts.elem), span)
            b.jump(joined, span)
        b.at(joined)
        b.branch(more, each, ended, span)
        b.at(each)
        sync.cx.loops.append((done, head))
        sync.cx.stmts.block(body)
        sync.cx.loops.pop()
        if b.open:
            b.jump(head, span)
        b.at(ended)
        if parts.granularity != "thread":
            party.end_of_loop(sync, parts, Ref(closed, index), span)
        else:
            b.emit("latch.wait", (), (Ref(closed, index),), span, queue="for")
        b.jump(done, span)
        b.at(done)


def closed_latch(sync, parts) -> str:
    """The queue's latch q.closed, of `writers` count-downs, declared at its first use (a queue
    nobody closes has none)."""
    b, name = sync.b, parts.part("closed")
    if not any(p.name == name for p in b.prims):
        choice = sync.default_implementation("latch", parts.placement, parts.granularity)
        b.prims.append(Prim(name, "latch", parts.dims, parts.placement, parts.granularity, choice.impl, choice.params,
                            None, parts.writers, (), parts.span))
    return name


def _probe_ends(b, parts, source: str, lo, hi, k, span) -> None:
    """Where k != 0, read src[first] and src[hi - 1] (first = lo, or -1 where k < 0): the bounds
    checks of the two reads (passes/bounds.py) stop a range outside `source`, or a negative count,
    with an index's fault before the range put takes a ticket."""
    probe, joined = b.new_block("putrange.ends"), b.new_block("putrange.checked")
    b.branch(b.op("cmp.ne", BOOL, k, imm(0), hint="some", span=span), probe, joined, span)
    b.at(probe)
    negative = b.op("cmp.lt", BOOL, k, imm(0), hint="negative", span=span)
    first = b.op("select", I32, negative, imm(-1), lo, hint="first", span=span)
    b.op("ld", parts.elem, Ref(source, first), hint="first", span=span)
    b.op("ld", parts.elem, Ref(source, b.op("sub", I32, hi, imm(1), hint="last", span=span)), hint="last", span=span)
    b.jump(joined, span)
    b.at(joined)


def _publish(sync, parts, index, ticket, value, span) -> None:
    """A @thread put, once its ticket's slot is free: the value, then the slot published."""
    b = sync.b
    if parts.wide:          # the value goes with the sequence word, in one store
        b.emit("queue.give", (), (Ref(parts.part("items"), index), ticket, value), span)
        return
    b.emit("st", (), (Ref(parts.part("data"), ring_slot(b, parts, index, ticket, span)), value), span)
    b.emit("queue.publish", (), (Ref(parts.part("items"), index), ticket), span)


def _consume(sync, parts, index, ticket, span):
    """A @thread get, once its ticket's slot is full: the value read, then the slot freed."""
    b = sync.b
    got = b.op("ld", parts.elem, Ref(parts.part("data"), ring_slot(b, parts, index, ticket, span)),
               hint="got", span=span)
    b.emit("queue.free", (), (Ref(parts.part("space"), index), ticket), span)
    return got
