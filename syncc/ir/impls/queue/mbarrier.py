"""`mbarrier` queues (ptx): one producer warp and one consumer warp per block stream
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
shared words that the expansion counts down and moves on with atomics (MbarrierSide), so the
simulator runs the same protocol.
"""
from __future__ import annotations

from math import prod

from ....core.types import BOOL, I32, U64
from ...nodes import Array, Imm, Prim, Ref, imm
from ..base import Emitter
from ..entry import entry
from .base import add_data, affine, expanded_affine as _affine
from .counted import CountedQueue, CountedSide

LANES = 32          # the arrivals that complete a phase: a warp's lanes
MBARRIER_INIT = "mbarrier"   # a state array's first value: each word an mbarrier of LANES arrivals (vended)


class MbarrierSide(CountedSide):
    """One side of an `mbarrier` queue: `q.space` waits on a stage's
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


def _bars(prim: Prim) -> str:
    return f"{prim.name.rsplit('.', 1)[0]}.bars"


class Mbarrier(CountedQueue):
    about = entry("queue", "mbarrier", "shared", "warp",
                  "stages of 32 values with a `full` and an `empty` mbarrier each: one producer warp and one "
                  "consumer warp per block, every lane waiting on the stage's phase and arriving after its store "
                  "or load, no ticket to take and no meeting of the warp (before sm_80 and on Fermi, two shared "
                  "words stand in for each barrier)", "docs/design/queues.md (mbarrier stages; CUTLASS's pipeline "
                  "without TMA)", counted=True,
                  constant_index=True, whole_warps=True, vendable=True)
    sides = MbarrierSide
    choice_rank = 0
    chosen_because = ("one warp of each block puts into it and one takes from it, with `put` and `get` only, so "
                      "mbarrier stages, with no ticket and no meeting of the warp (1.04-1.31x a hand-written "
                      "mbarrier ring on an H100, where a ring's parties make 0.33-0.39x)")

    @classmethod
    def fits_one_party_a_side(cls, k, parts, target):
        whole = k.block is not None and prod(k.block) % 32 == 0
        return parts.granularity == "warp" and bool(target.mbarrier) and whole

    @classmethod
    def declare(cls, sync, parts, count: int, params) -> str:
        """The queue's two sides, the stages' barriers, initialized before any thread can use them,
        and each instance's counts of puts and gets, in registers; what `syncc explain` says of it.
        Where the target has no mbarrier (Fermi), a barrier is two words: the arrivals still missing,
        and (phase << 16 | arrivals per phase)."""
        b, target = sync.b, sync.cx.ctx.target
        add_data(sync, parts, count)
        cls.declare_sides(sync, parts)
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
                b.assign(cls.counter(sync, parts, side, imm(i)), imm(0), span)
        return (f"mbarrier — {parts.capacity} stages of {LANES} values, each with a `full` and an `empty` mbarrier "
                f"(`{bars}`); each lane counts its warp's puts and gets itself, and the arrives release and the waits "
                "acquire, at cta scope, so no fence is needed"
                + ("" if native else f" ({target.name} has no mbarrier: two shared words stand in for each, counted "
                                     "down with atomics)"))


    @staticmethod
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


    @classmethod
    def next_ticket(cls, sync, parts, side: int, index, span):
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
        count = cls.counter(sync, parts, ("puts", "gets")[side], index)
        ticket = b.op("mov", I32, count, hint="ticket", span=span)
        b.emit("add", (count,), (count, imm(1)), span)
        return ticket
