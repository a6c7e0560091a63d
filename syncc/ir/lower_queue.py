"""Lowering of queues: a declaration becomes its parts, each `put` and `get` their operations.

Every queue `q` of capacity C has, per instance i, two counting semaphores, and every operation
is built on them, so every hazard check judges a queue's waits as those semaphores' (the model of
docs/design/queues.md):

    q.space[i]   C permits at first: the queue's free slots
    q.items[i]   0 permits at first: the values stored
    q.data       the slots, C per instance

`locked` (impls/queue.py) adds a mutex each over the tail and the head (q.tail, q.head) and
their positions, q.ends (2 per instance); the semaphores and mutexes are the target's defaults:

    put q[i] = v:   wait q.space[i]
                    critical q.tail[i] { t = q.ends[2i]; q.data[iC + t] = v; q.ends[2i] = (t + 1) % C }
                    post q.items[i]
    get q[i]:       wait q.items[i]
                    critical q.head[i] { h = q.ends[2i + 1]; v = q.data[iC + h]; q.ends[2i + 1] = (h + 1) % C }
                    post q.space[i]

`ring` adds a sequence word per slot (q.seq) and two ticket counters (q.ends); the semaphores'
operations are the queue's own, which carry the ticket (ops.py, queue.*):

    put q[i] = v:   t = queue.reserve @q.space[i]      (judged as: wait q.space[i])
                    q.data[iC + t % C] = v
                    queue.publish @q.items[i], t       (post q.items[i])
    get q[i]:       t = queue.claim @q.items[i]        (wait q.items[i])
                    v = q.data[iC + t % C]
                    queue.free @q.space[i], t          (post q.space[i])

    tryput q[i] = v / tryget v = q[i] { }:  the same, with one attempt (`trywait`, or
                    queue.tryreserve / queue.tryclaim: a flag and a ticket) instead of the wait,
                    and the rest only where it took a permit (the statement's result, or its branch)

Where the target has 64-bit loads and stores (ptx: wide_slots) a @thread ring of 32-bit values
keeps each slot's value and sequence word in one word, q.slots[iC + t % C] = (value << 32) | seq,
so the value travels with the sequence word instead of in a second access:

    put q[i] = v:   t = queue.reserve @q.space[i];  queue.give @q.items[i], t, v
    get q[i]:       t, v = queue.take @q.items[i];  queue.free @q.space[i], t

and tryget and `for v in q` use queue.trytake and queue.nexttake, which return the value too.

At `@warp` and `@block` a party puts and gets as one (lower_queue_party.py); `mbarrier`, `spsc`
and `tinylock` queues count their own tickets (lower_queue_counted.py, lower_queue_mbarrier.py).

So a `get` that no `put` can serve is a semaphore wait that no post can end (E0705), a `put`
made while holding a lock the consumer needs is a hold across a wait (E0720), and so on.
"""
from __future__ import annotations

from math import prod

from ..core.prebuilt import dataclass
from ..core.types import BOOL, I32, U64, ScalarType
from . import lower_queue_counted as counted
from . import lower_queue_mbarrier as mbarrier
from . import lower_queue_party as party
from .choose_queues import WHY
from .impls.registry import default_implementation
from .lower_queue_party import affine, party_members, ring_slot
from .nodes import Array, Imm, Prim, Ref, imm


COUNTED = {"mbarrier", "spsc", "tinylock"}     # each side counts its own tickets (lower_queue_counted.py)


@dataclass(frozen=True)
class QueueParts:
    name: str               # the queue's name in the IR (its parts are `name.space`, ...)
    capacity: int
    elem: ScalarType
    dims: tuple[int, ...]
    impl: str               # locked | ring | mbarrier | spsc | tinylock
    placement: str
    writers: int            # the `close`s that close it
    span: object
    granularity: str = "thread"     # who puts and gets: a thread, or a warp or block as one party
    members: int = 1                # values per slot: one per member of the party (lower_queue_party.py)
    wide: bool = False              # a @thread ring whose slot is one 64-bit word: value and sequence word

    def part(self, role: str) -> str:
        return f"{self.name}.{role}"


def declare_queue(sync, d, info, name: str) -> QueueParts:
    """The parts of the queue `d` (a PrimDecl the checker judged), added to the kernel."""
    b, target = sync.b, sync.cx.ctx.target
    n = prod(info.dims)
    if info.impl is not None:
        impl, params, why = info.impl.name, dict(info.impl_params), "chosen with `using`"
    elif d in sync.preferred:            # choose_queues.py: what the analyses of a first lowering showed
        impl, params, why = sync.preferred[d], {}, f"the {target.name} cost model: {WHY[sync.preferred[d]]}"
    else:
        choice = default_implementation(target, "queue", info.placement, info.granularity)
        impl, params, why = choice.impl, dict(choice.params), f"the {target.name} default: {choice.reason}"
    wide = impl == "ring" and info.granularity == "thread" and target.wide_slots and info.elem.bits == 32
    parts = QueueParts(name, info.count, info.elem, info.dims, impl, info.placement, info.writers, d.span,
                       info.granularity, party_members(b, info.granularity), wide)
    if info.impl is None and impl == "ring" and not info.top_level:
        sync.queue_candidates[name] = (d, parts)    # one party each side would make it count its own tickets
    if wide:
        # (value << 32) | sequence word: a get's poll brings its value, a put's publication stores
        # it, each one memory access (1.18-1.40x a sequence ring with separate words on an H100)
        b.add_array(Array(parts.part("slots"), info.placement, U64, (n * info.count,), "state", 0))
    else:
        b.add_array(Array(parts.part("data"), info.placement, info.elem, (n * info.count * parts.members,), "state",
                          None))
    if impl == "mbarrier":
        how = mbarrier.declare(sync, parts, n)
    elif impl in ("spsc", "tinylock"):
        how = counted.declare(sync, parts, n)
    elif impl == "ring":
        b.add_array(Array(parts.part("ends"), info.placement, I32, (n * 2,), "state", 0))
        if not wide:
            b.add_array(Array(parts.part("seq"), info.placement, I32, (n * info.count,), "state", 0))
        for role, count in (("space", info.count), ("items", 0)):
            b.prims.append(Prim(parts.part(role), "semaphore", info.dims, info.placement, info.granularity, "ring",
                                (("capacity", info.count), ("delay", params.get("delay", 0))), None, count, (),
                                d.span))
        how = (f"ring — {info.count} slots with a sequence word each and a ticket counter per side "
               f"(`{parts.part('space')}`, `{parts.part('items')}`)"
               + (", each slot's value and sequence word in one 64-bit word, read and written together"
                  if wide else "")
               + (f", sleeping {params['delay']} ns per step its slot has to go through between polls"
                  if params.get("delay") else ""))
    else:
        b.add_array(Array(parts.part("ends"), info.placement, I32, (n * 2,), "state", 0))
        chosen = []
        for role, kind, count in (("space", "semaphore", info.count), ("items", "semaphore", 0),
                                  ("tail", "mutex", None), ("head", "mutex", None)):
            choice = default_implementation(target, kind, info.placement, "thread", instances=n)
            b.prims.append(Prim(parts.part(role), kind, info.dims, info.placement, "thread", choice.impl,
                                choice.params, None, count, (), d.span))
            chosen.append(f"`{parts.part(role)}` ({kind}, {choice.impl})")
        how = f"locked — a ring guarded by the target's default primitives: {', '.join(chosen)}"
    sync.cx.ctx.remark(b.name, "implementation",
                       f"queue `{d.name.text}` ({info.placement} @{info.granularity}, capacity {info.count}): {how}; {why}",
                       d.span)
    return parts


def lower_put(sync, parts: QueueParts, index, value, span) -> None:
    b = sync.b
    special = _lowering_of(parts)
    if special is not None:
        special.put(sync, parts, index, value, span)
        return
    if parts.impl == "ring":
        ticket = b.op("queue.reserve", I32, Ref(parts.part("space"), index), hint="ticket", span=span)
        _publish(sync, parts, index, ticket, value, span)
        return
    b.emit("sem.wait", (), (Ref(parts.part("space"), index),), span, queue="put")
    _take_slot(sync, parts, index, "tail", span, lambda slot: b.emit("st", (), (Ref(parts.part("data"), slot), value), span))
    b.emit("sem.post", (), (Ref(parts.part("items"), index),), span)


def lower_get(sync, parts: QueueParts, index, dest, span):
    b = sync.b
    special = _lowering_of(parts)
    if special is not None:
        return sync.cx.exprs.emit_value(dest, "mov", parts.elem, special.get(sync, parts, index, span), span=span)
    if parts.impl == "ring" and parts.wide:
        ticket, got = b.reg(I32, "ticket"), b.reg(parts.elem, "got")
        b.emit("queue.take", (ticket, got), (Ref(parts.part("items"), index),), span)
        b.emit("queue.free", (), (Ref(parts.part("space"), index), ticket), span)
        return sync.cx.exprs.emit_value(dest, "mov", parts.elem, got, span=span)
    if parts.impl == "ring":
        ticket = b.op("queue.claim", I32, Ref(parts.part("items"), index), hint="ticket", span=span)
        got = _consume(sync, parts, index, ticket, span)
        return sync.cx.exprs.emit_value(dest, "mov", parts.elem, got, span=span)
    b.emit("sem.wait", (), (Ref(parts.part("items"), index),), span, queue="get")
    # assigned before the section too: combine_warps may run the section for each lane of a warp
    # in a loop, and the value must be defined on every path out of it
    got = b.reg(parts.elem, "got")
    b.assign(got, imm(0, parts.elem), span)
    _take_slot(sync, parts, index, "head", span,
               lambda slot: b.emit("ld", (got,), (Ref(parts.part("data"), slot),), span))
    b.emit("sem.post", (), (Ref(parts.part("space"), index),), span)
    return sync.cx.exprs.emit_value(dest, "mov", parts.elem, got, span=span)


def _lowering_of(parts: QueueParts):
    """The module that lowers `parts`' puts and gets where this one does not: a queue that counts
    its own tickets, or a @warp or @block party's ring; None for a @thread ring or `locked`."""
    if parts.impl in COUNTED:
        return counted
    return party if parts.granularity != "thread" else None


def lower_tryput(sync, parts: QueueParts, index, value, dest, span):
    """One attempt: true (and the value stored) where `q.space` had a permit."""
    b = sync.b
    if parts.granularity != "thread":
        return sync.cx.exprs.emit_value(dest, "mov", BOOL, party.tryput(sync, parts, index, value, span), span=span)
    if parts.impl == "ring":
        ok, ticket = b.reg(BOOL, "took"), b.reg(I32, "ticket")
        b.emit("queue.tryreserve", (ok, ticket), (Ref(parts.part("space"), index),), span)
        sync.only_where(ok, lambda: _publish(sync, parts, index, ticket, value, span), span, "tryput")
        return sync.cx.exprs.emit_value(dest, "mov", BOOL, ok, span=span)
    ok = sync.cx.exprs.emit_value(dest, "sem.trywait", BOOL, Ref(parts.part("space"), index), span=span, queue="put")

    def store():
        _take_slot(sync, parts, index, "tail", span, lambda slot: b.emit("st", (), (Ref(parts.part("data"), slot), value), span))
        b.emit("sem.post", (), (Ref(parts.part("items"), index),), span)
    sync.only_where(ok, store, span, "tryput")
    return ok


def lower_tryget(sync, parts: QueueParts, index, got, span):
    """One attempt: where `q.items` had a permit, the head's value into `got` (else it stays 0);
    the bool register that says which."""
    b = sync.b
    if parts.granularity != "thread":
        return party.tryget(sync, parts, index, got, span)
    b.assign(got, imm(0, parts.elem), span)
    if parts.impl == "ring" and parts.wide:
        ok, ticket, value = b.reg(BOOL, "took"), b.reg(I32, "ticket"), b.reg(parts.elem, "value")
        b.emit("queue.trytake", (ok, ticket, value), (Ref(parts.part("items"), index),), span)

        def take():
            b.assign(got, value, span)
            b.emit("queue.free", (), (Ref(parts.part("space"), index), ticket), span)
        sync.only_where(ok, take, span, "tryget")
        return ok
    if parts.impl == "ring":
        ok, ticket = b.reg(BOOL, "took"), b.reg(I32, "ticket")
        b.emit("queue.tryclaim", (ok, ticket), (Ref(parts.part("items"), index),), span)
        sync.only_where(ok, lambda: b.assign(got, _consume(sync, parts, index, ticket, span), span), span, "tryget")
        return ok
    ok = b.op("sem.trywait", BOOL, Ref(parts.part("items"), index), hint="took", span=span, queue="get")

    def take():
        _take_slot(sync, parts, index, "head", span, lambda slot: b.emit("ld", (got,), (Ref(parts.part("data"), slot),), span))
        b.emit("sem.post", (), (Ref(parts.part("space"), index),), span)
    sync.only_where(ok, take, span, "tryget")
    return ok


def lower_close(sync, parts: QueueParts, index, span) -> None:
    """`close q[i]`: one of the queue's writers is done (a count-down of its latch q.closed)."""
    if parts.granularity != "thread":
        party.close(sync, parts, Ref(closed_latch(sync, parts), index), span)
        return
    sync.b.emit("latch.arrive", (), (Ref(closed_latch(sync, parts), index),), span, queue="close")


def lower_for_each(sync, parts: QueueParts, index, var, body, span) -> None:
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
    has closed the queue (E0705 when they cannot all)."""
    b = sync.b
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


def closed_latch(sync, parts: QueueParts) -> str:
    """The queue's latch q.closed, of `writers` count-downs, declared at its first use (a queue
    nobody closes has none). Only a `ring` queue closes (the checker's E0418)."""
    if parts.impl != "ring":
        raise AssertionError(f"`close` on a {parts.impl} queue reached lowering")
    b, name = sync.b, parts.part("closed")
    if not any(p.name == name for p in b.prims):
        choice = default_implementation(sync.cx.ctx.target, "latch", parts.placement, parts.granularity)
        b.prims.append(Prim(name, "latch", parts.dims, parts.placement, parts.granularity, choice.impl, choice.params,
                            None, parts.writers, (), parts.span))
    return name


def _publish(sync, parts: QueueParts, index, ticket, value, span) -> None:
    """A ring queue's put, once its ticket's slot is free: the value, then the slot published."""
    b = sync.b
    if parts.wide:          # the value goes with the sequence word, in one store
        b.emit("queue.give", (), (Ref(parts.part("items"), index), ticket, value), span)
        return
    b.emit("st", (), (Ref(parts.part("data"), ring_slot(b, parts, index, ticket, span)), value), span)
    b.emit("queue.publish", (), (Ref(parts.part("items"), index), ticket), span)


def _consume(sync, parts: QueueParts, index, ticket, span):
    """A ring queue's get, once its ticket's slot is full: the value read, then the slot freed."""
    b = sync.b
    got = b.op("ld", parts.elem, Ref(parts.part("data"), ring_slot(b, parts, index, ticket, span)),
               hint="got", span=span)
    b.emit("queue.free", (), (Ref(parts.part("space"), index), ticket), span)
    return got


def _take_slot(sync, parts: QueueParts, index, end: str, span, use) -> None:
    """Under the `end` mutex: the slot that end points at, `use(slot)`, and the end moved on."""
    b = sync.b
    lock = Ref(parts.part(end), index)
    region = sync.new_region()
    b.emit("mutex.lock", (), (lock,), span, region=region)
    at = affine(b, index, 2, 0 if end == "tail" else 1, span)
    now = b.op("ld", I32, Ref(parts.part("ends"), at), hint=end, span=span)
    use(b.op("add", I32, affine(b, index, parts.capacity, 0, span), now, hint="slot", span=span))
    following = b.op("add", I32, now, imm(1), hint="next", span=span)
    wrapped = b.op("rem", I32, following, imm(parts.capacity), hint="next", span=span)
    b.emit("st", (), (Ref(parts.part("ends"), at), wrapped), span)
    b.emit("mutex.unlock", (), (lock,), span, region=region)
