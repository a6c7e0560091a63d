"""A `ring` queue as a work pool (docs/language.md, "Work pools"; frontend/pools.py): `for v in
q` loops whose bodies put into `q` themselves, ending once the queue is closed by its writers,
empty, and no worker holds an item (termination detection, as Cederman and Tsigas's task queues).

The pool counts its items put and not yet done in `q.pending[i]`:

    put q[i] = v (a seed, outside the loops):
                    t = queue.reserve @q.space[i]
                    atom.add @q.pending[i], 1                 before the value is published
                    (the value); queue.publish @q.items[i], t
    put q[i] = v inside a `for v in q[i]` body (an inner put):
                    %free, t = queue.push @q.space[i]        a tail ticket and one look at its slot
                    bounds.check (not %free) len=1 queue=q    a slot still full stops the kernel (E0425)
                    atom.add @q.pending[i], 1;  (the value); queue.publish @q.items[i], t
    for v in q[i] { body }:
        head:   br %holding, look, enter
        enter:  %t = queue.enter @q.items[i];  %holding = true
        look:   %ready, %more = queue.pollnext @q.items[i], %t    one look (judged as a poll)
                %took = and %ready, %more;  br %took, take, tail
        take:   v = (the value); queue.free @q.space[i], %t;  %holding = false
                body                                           (`continue`: to tail, `break`: to leave)
        tail:   br %took, done1, again
        done1:  atom.add @q.pending[i], -1 order=release          (where atomics carry no order: a fence, then a relaxed one)
        again:  br %leaving, endpool, round
        round:  br (%ready and not %more), ended, head          the loop's one edge back
        leave:  %leaving = true;  jmp tail                       (a `break`: its item is done at the tail)
        ended:  latch.wait @q.closed[i] queue=for;  jmp endpool    (open already)
    a `get` (or `tryget`) that takes an item: atom.add @q.pending[i], -1 (done once taken)

Where the slot of a ticket is not full, `queue.pollnext` answers ready and no more once the queue
is closed and `q.pending[i]` reads 0 (acquire: ring_side.py). A child is counted before its parent
is done (the same thread's two atomics on one word, in order), and a seed before its writer's
`close` (release), so the count reaches 0 only when no item is left and none can come.

An inner put never waits for room: every worker may be inside a body, each putting into a full
queue, and none would take a value. It takes its ticket, looks once at the slot, and where the
value put `capacity` tickets earlier is still there, the kernel stops with the fault record of a
failed bounds check, which the runtime reports as E0425 (ir/faults.py).

The loop takes one look per round and runs the body in the same round, so on a machine with
stack-based reconvergence (Fermi) the lanes of a warp that hold a value run their bodies while
their neighbours poll, instead of waiting at the end of a polling loop for neighbours whose values
only those bodies would put. A `break` leaves through the tail too, so that every path from the
look meets at the tail in the same round: with an edge from the body straight out of the loop,
the lanes that found their slot not ready would wait for the others at the loop's end, holding
tickets whose items those others then wait for (a SIMT deadlock of
tests/hazards/clean/pool_seeds_break_continue.sync, once a poll of one lane read early).
"""
from __future__ import annotations

from ....core.types import BOOL, I32
from ...nodes import Ref, imm


def count_item(sync, parts, index, delta: int, span) -> None:
    """q.pending[i] += delta: an item put (before its value is published) or done (with release,
    after everything the body wrote)."""
    scope = "cta" if parts.placement == "shared" else "gpu"
    ctx = sync.cx.ctx
    order = "relaxed"
    if delta < 0 and ctx.fences:      # the release: on the atomic where the target's carry one, else a fence
        if ctx.target.ordered_atomics and ctx.minimize_fences:
            order = "release"
        else:
            sync.b.emit("fence", (), (), span, order="acq_rel", scope=scope)
    sync.b.op("atom.add", I32, Ref(parts.part("pending"), index), imm(delta), hint="pending", span=span,
              order=order, scope=scope)


def inner_put(sync, parts, index, value, span, publish) -> None:
    """A put inside the body of a `for` loop over its own queue: never waits; a slot still full
    stops the kernel (E0425)."""
    b = sync.b
    free, ticket = b.reg(BOOL, "free"), b.reg(I32, "ticket")
    b.emit("queue.push", (free, ticket), (Ref(parts.part("space"), index),), span)
    full = b.op("select", I32, free, imm(0), imm(1), hint="full", span=span)
    b.emit("bounds.check", (), (full,), span, array=parts.part("space"), len=1, site=sync.new_fault_site(),
           queue=parts.name.split(".")[0], capacity=parts.capacity)
    count_item(sync, parts, index, +1, span)
    publish(sync, parts, index, ticket, value, span)


def for_each(sync, parts, index, var, body, span, closed: str, consume) -> None:
    """`for v in q[i] { body }` on a work pool: one look per round, the body in the same round, and
    one edge back to the head (a machine that reconverges at the ends of loops would otherwise
    run the look as a loop of its own, with the lanes that hold values waiting at its end)."""
    b = sync.b
    items = Ref(parts.part("items"), index)
    holding, ticket, leaving = b.reg(BOOL, "holding"), b.reg(I32, "ticket"), b.reg(BOOL, "leaving")
    b.assign(holding, imm(False, BOOL), span)
    b.assign(ticket, imm(0), span)
    b.assign(leaving, imm(False, BOOL), span)
    head, enter, look, take, tail, done1, again, round_, leave, ended, done = (
        b.new_block(h) for h in ("pool", "pool.enter", "pool.look", "pool.take", "pool.tail", "pool.done",
                                 "pool.again", "pool.round", "pool.leave", "pool.closed", "endpool"))
    b.jump(head, span)
    b.at(head)
    b.branch(holding, look, enter, span)
    b.at(enter)
    b.emit("queue.enter", (ticket,), (items,), span)
    b.assign(holding, imm(True, BOOL), span)
    b.jump(look, span)
    b.at(look)
    ready, more = b.reg(BOOL, "ready"), b.reg(BOOL, "more")
    value = None
    if parts.wide:
        value = b.reg(parts.elem, "value")
        b.emit("queue.pollnexttake", (ready, more, value), (items, ticket), span)
    else:
        b.emit("queue.pollnext", (ready, more), (items, ticket), span)
    took = b.op("and", BOOL, ready, more, hint="took", span=span)
    b.branch(took, take, tail, span)
    b.at(take)
    if parts.wide:
        b.assign(var, value, span)
        b.emit("queue.free", (), (Ref(parts.part("space"), index), ticket), span)
    else:
        b.assign(var, consume(sync, parts, index, ticket, span), span)
    b.assign(holding, imm(False, BOOL), span)
    sync.cx.loops.append((leave, tail))
    sync.cx.stmts.block(body)
    sync.cx.loops.pop()
    if b.open:
        b.jump(tail, span)
    end = body.span.last_char()
    b.at(tail)                      # every lane, each round: the item's end where it took one
    b.branch(took, done1, again, span)
    b.at(done1)
    count_item(sync, parts, index, -1, end)
    b.jump(again, span)
    b.at(again)
    b.branch(leaving, done, round_, span)
    b.at(round_)
    over = b.op("and", BOOL, ready, b.op("not", BOOL, more, hint="over", span=span), hint="over", span=span)
    b.branch(over, ended, head, span)
    b.at(leave)
    b.assign(leaving, imm(True, BOOL), span)
    b.jump(tail, span)
    b.at(ended)
    b.emit("latch.wait", (), (Ref(closed, index),), span, queue="for")
    b.jump(done, span)
    b.at(done)
