"""Lowering of `mbarrier` queues (ptx): one producer warp and one consumer warp per block stream
items of 32 values through `capacity` stages in shared memory, each stage with a `full` and an
`empty` mbarrier (docs/design/queues.md; CUTLASS's pipeline, without the TMA transactions).

Only one warp puts and one gets (checks/queue_parties.py proves it, E0725), so a party's ticket
is the count of its own operations so far: every lane keeps it in a register (`q.puts.i`,
`q.gets.i` for instance i, whose index is a constant), and no ticket is taken or told. Every lane
waits and arrives itself, so the warp never meets:

    declaration:    q.bars[2s] (full) and q.bars[2s + 1] (empty) of every stage s get
                    mbar.init with 32 arrivals, by the block's threads in turn; a block barrier
    put q[i] = v:   t = q.puts.i; q.puts.i = t + 1
                    queue.await @q.space[i], t      (judged as: wait q.space[i])
                    q.data[(iC + t % C) 32 + lane] = v
                    queue.publish @q.items[i], t    (post q.items[i]: mbar.arrive on `full`)
    get q[i]:       the same with q.gets.i, queue.await @q.items[i], a load and queue.free

A library's vended operations (PassContext.vending) are each one call of a C++ member function,
so there nothing is kept in registers or set up at the kernel's start: each lane counts in a
shared word of its own, `q.counts[(2i + side) 32 + lane]`, and the type's init() runs mbar.init.

The ordering is the mbarriers': an arrive releases the lane's store, a completed wait acquires
what all 32 lanes released, at cta scope. Fermi has no mbarrier: there each barrier is two
shared words that the expansion counts down and moves on with atomics (impls/queue.py), so the
simulator runs the same protocol.
"""
from __future__ import annotations

from ..core.types import BOOL, I32, U64
from .lower_queue_party import affine
from .nodes import Array, Imm, Prim, Ref, imm

LANES = 32          # the arrivals that complete a phase: a warp's lanes
MBARRIER_INIT = "mbarrier"   # a state array's first value: each word an mbarrier of LANES arrivals (vended)


def declare(sync, parts, count: int) -> str:
    """The queue's two sides, the stages' barriers, initialized before any thread can use them,
    and each instance's counts of puts and gets, in registers; what `syncc explain` says of it.
    Where the target has no mbarrier (Fermi), a barrier is two words: the arrivals still missing,
    and (phase << 16 | arrivals per phase)."""
    b, target = sync.b, sync.cx.ctx.target
    for role, permits in (("space", parts.capacity), ("items", 0)):
        b.prims.append(Prim(parts.part(role), "semaphore", parts.dims, parts.placement, parts.granularity,
                            "mbarrier", (("capacity", parts.capacity),), None, permits, (), parts.span))
    n = count * parts.capacity * 2
    bars = parts.part("bars")
    native = target.mbarrier
    if sync.cx.ctx.vending:         # the C++ type's init() sets the barriers up; each lane's counts are state
        # (where two words stand in for each barrier, both start at LANES: inline_ptx.mbar_init)
        b.add_array(Array(bars, "shared", U64, (n,), "state", MBARRIER_INIT) if native
                    else Array(bars, "shared", I32, (2 * n,), "state", LANES))
        b.add_array(Array(parts.part("counts"), "shared", I32, (count * 2 * LANES,), "state", 0))
        return (f"mbarrier — {parts.capacity} stages of {LANES} values, each with a `full` and an `empty` mbarrier "
                f"(`{bars}`, set up by the type's init()); each lane counts its warp's puts and gets in a shared "
                "word of its own (`counts`)")
    b.add_array(Array(bars, "shared", U64 if native else I32, (n if native else 2 * n,), "state", None))
    span = parts.span
    tid, ntid = sync.cx.builtin("tid"), sync.cx.builtin("ntid")
    each = b.reg(I32, "bar")
    b.assign(each, tid, span)
    head, body, done = b.new_block("bars"), b.new_block("bars.init"), b.new_block("bars.done")
    b.jump(head, span)
    b.at(head)
    b.branch(b.op("cmp.lt", BOOL, each, imm(n), hint="more", span=span), body, done, span)
    b.at(body)
    if native:
        b.emit("mbar.init", (), (Ref(bars, each), imm(LANES)), span)
    else:
        word = b.op("mul", I32, each, imm(2), hint="word", span=span)
        b.emit("st", (), (Ref(bars, word), imm(LANES)), span)
        b.emit("st", (), (Ref(bars, b.op("add", I32, word, imm(1), hint="word", span=span)), imm(LANES)), span)
    b.emit("add", (each,), (each, ntid), span)
    b.jump(head, span)
    b.at(done)
    b.emit("bar.sync", (), (imm(0),), span)
    for i in range(count):
        for side in ("puts", "gets"):
            b.assign(counter(sync, parts, side, imm(i)), imm(0), span)
    return (f"mbarrier — {parts.capacity} stages of {LANES} values, each with a `full` and an `empty` mbarrier "
            f"(`{bars}`); each lane counts its warp's puts and gets itself, and the arrives release and the waits "
            "acquire, at cta scope, so no fence is needed"
            + ("" if native else f" ({target.name} has no mbarrier: two shared words stand in for each, counted "
                                 "down with atomics)"))


def counter(sync, parts, side: str, index):
    """The register that counts this thread's puts or gets on instance `index` (a constant:
    the checker's E0418 asks for one)."""
    if not isinstance(index, Imm):
        raise AssertionError(f"an mbarrier queue's index reached lowering unfolded: {index}")
    name = f"{parts.name}.{side}.{index.value}"
    regs = sync.queue_counters
    if name not in regs:
        regs[name] = sync.b.reg(I32, name.replace(".", "_"))
    return regs[name]


def next_ticket(sync, parts, side: int, index, span):
    """This operation's ticket (side 0: a put, 1: a get): the lane's count so far, in a register,
    which moves on by one."""
    b = sync.b
    if sync.cx.ctx.vending:         # word (2i + side) 32 + lane of `counts`: this lane's alone
        lane = sync.cx.builtin("lane")
        pair = affine(b, index, 2, side, span)
        at = Ref(parts.part("counts"), b.op("add", I32, b.op("mul", I32, pair, imm(LANES), hint="count", span=span),
                                            lane, hint="count", span=span))
        ticket = b.op("ld", I32, at, hint="ticket", span=span)
        b.emit("st", (), (at, b.op("add", I32, ticket, imm(1), hint="next", span=span)), span)
        return ticket
    count = counter(sync, parts, ("puts", "gets")[side], index)
    ticket = b.op("mov", I32, count, hint="ticket", span=span)
    b.emit("add", (count,), (count, imm(1)), span)
    return ticket
