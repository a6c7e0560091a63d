"""Barrier implementations: what sync and arrive become.

    bar        @block: bar.sync 0 (the whole block). @warp with a thread count: a named barrier,
               bar.sync id, count / bar.arrive id, count, one id per instance (seed 000 L12)
    syncwarp   @warp without a count: __syncwarp of all 32 lanes
    atomic     @grid, sense reversal: each block's thread 0 reads the sense, counts itself in; the
               last block resets the count and flips the sense, the others wait for the flip
    xf         @grid, Xiao and Feng: thread 0 of each block raises its arrival flag to the round's
               goal; block 0 waits for every flag, then raises every block's release flag; each
               block waits for its own (seed 001 §5.1: no contended atomic)
    flip       @grid, one counter whose top bit flips each round (the scheme of cooperative
               groups' grid.sync): thread 0 of each block adds 1, block 0 adds 2^31 - (blocks - 1), so
               the round's arrivals sum to 2^31; each block waits for the top bit of the counter to
               differ from the one its own add returned. One atomic per block and one polled word:
               no reset (the low bits are back at zero after every round), no separate sense word,
               no round kept anywhere (a vended barrier knows its round on every call). Past 1024
               blocks the blocks first meet in groups of 16, each on a word of its own, and the
               group's last arriver arrives for the group: one word taking over a thousand atomics
               a round is slower than two levels on an H200, and no faster on an H100
    hierarchical  @grid: blocks meet in groups of 8 first, then each group's last arriver meets
               the other groups: a sense-reversing barrier with one contended counter per group
Every grid barrier begins and ends with bar.sync 0, so the block's threads arrive together and
leave together.

Each class at the end is one registry entry (registry.py): `about`, its catalogue entry;
`defaults`, where a target picks it without `using` and why.
"""
from __future__ import annotations

from ...core.types import BOOL, I32, U32
from ..nodes import Imm, Instr, Prim, imm
from .base import Emitter
from .entry import Expansion, default, entry

GROUP = 8
# flip: one level up to FLAT blocks, then groups of FLIP_GROUP. On an H100 one level is as fast as two
# at 1056 blocks and faster below (1.67 against 2.10 µs at 528); on an H200 two levels take 2.1 µs
# at 1056 blocks where one takes 3.2 (2026-11-22).
FLAT, FLIP_GROUP = 1024, 16
TOP_BIT = 0x80000000        # flip: the bit of the counter that changes once a round


def _thread0(em: Emitter, work) -> None:
    em.when(em.eq(em.builtin("tid"), imm(0)), work, hint="thread0")


# Each grid barrier is two halves that thread 0 of each block runs: `arrive` counts the block in
# and returns what its `wait` needs to know the round by (the sense, or the counter's top bit,
# it saw); `wait` waits for that round to end. `sync` runs both at once; the split phase keeps
# the value in a register (Emitter.carried) from the `arrive` to the `wait`.

def _sense_arrive(em: Emitter, prim: Prim, ins: Instr):
    count = em.state(prim, "count", prim.instances, 0, space="global")
    sense = em.state(prim, "sense", prim.instances, 0, space="global")
    i = ins.ref.index
    was = em.ld(sense, i, hint="sense", cache="cg")
    arrived = em.atom("add", count, i, imm(1), order="acq_rel", scope="gpu", hint="arrived")

    def release():
        em.st(count, i, imm(0))
        em.atom("exch", sense, i, em.op("xor", I32, was, imm(1), hint="flip"), order="release", scope="gpu")
    em.when(em.eq(arrived, em.op("sub", I32, em.builtin("nbid"), imm(1), hint="others")), release, hint="last")
    return was


def _sense_wait(em: Emitter, prim: Prim, ins: Instr, was) -> None:
    """Until the sense differs from the one seen on arriving (at once for the block that flipped it)."""
    sense = em.state(prim, "sense", prim.instances, 0, space="global")
    em.spin(lambda: em.op("cmp.ne", BOOL, em.ld(sense, ins.ref.index, hint="now", cache="cg", order="acquire",
                                                 scope="gpu"), was), hint="flip")


def _xf_slots(em: Emitter, prim: Prim, ins: Instr):
    arrived = em.state(prim, "arrive", prim.instances, 0, space="global", per="block")
    released = em.state(prim, "release", prim.instances, 0, space="global", per="block")
    here = em.op("add", I32, em.op("mul", I32, ins.ref.index, em.builtin("nbid"), hint="row"), em.builtin("bid"),
                 hint="mine")
    return arrived, released, here


def _xf_master(em: Emitter, prim: Prim, ins: Instr, goal) -> None:
    """Block 0's threads gather every block's arrival at `goal`, meet, then release every block."""
    arrived, released, _ = _xf_slots(em, prim, ins)
    tid, nbid, ntid = (em.builtin(n) for n in ("tid", "nbid", "ntid"))

    def each_block(work):          # block 0's threads visit the blocks tid, tid + ntid, ...
        j = em.b.reg(I32, "block")
        em.b.assign(j, tid)
        head = em.b.new_block("blocks", after=em.b.current)
        body = em.b.new_block("blocks.each", after=head)
        done = em.b.new_block("blocks.done", after=body)
        em.b.jump(head)
        em.b.at(head)
        em.b.branch(em.op("cmp.lt", BOOL, j, nbid), body, done)
        em.b.at(body)
        work(em.op("add", I32, em.op("mul", I32, ins.ref.index, nbid, hint="row"), j, hint="slot"))
        em.b.emit("add", (j,), (j, ntid))
        em.b.jump(head)
        em.b.at(done)

    def master():
        each_block(lambda s: em.spin(lambda: em.eq(em.ld(arrived, s, hint="in", cache="cg", order="acquire",
                                                            scope="gpu"), goal), hint="gather"))
        em.b.emit("bar.sync", (), (imm(0),))
        each_block(lambda s: em.st(released, s, goal, order="release", scope="gpu"))
    em.when(em.eq(em.builtin("bid"), imm(0)), master, hint="master")


def _xf_released(em: Emitter, prim: Prim, ins: Instr, goal) -> None:
    _, released, here = _xf_slots(em, prim, ins)
    _thread0(em, lambda: em.spin(lambda: em.eq(em.ld(released, here, hint="out", cache="cg", order="acquire",
                                                      scope="gpu"), goal), hint="released"))


def _xiao_feng(em: Emitter, prim: Prim, ins: Instr) -> None:
    arrived, released, here = _xf_slots(em, prim, ins)
    # The round's goal is one past the block's last release, read from memory rather than kept in
    # a register, so a barrier vended as a function (syncc/frontend/vending.py) knows its round on every call.
    # Only the master writes `release`, and not before this block's thread 0 arrives, which comes
    # after thread 0 read it; the master's own threads read it before they gather.
    goal = em.op("add", I32, em.ld(released, here, hint="last", cache="cg"), imm(1), hint="goal")
    _thread0(em, lambda: em.st(arrived, here, goal, order="release", scope="gpu"))
    _xf_master(em, prim, ins, goal)
    _xf_released(em, prim, ins, goal)


def _xf_arrive(em: Emitter, prim: Prim, ins: Instr) -> None:
    arrived, released, here = _xf_slots(em, prim, ins)
    _thread0(em, lambda: em.st(arrived, here, em.op("add", I32, em.ld(released, here, hint="last", cache="cg"),
                                                    imm(1), hint="goal"), order="release", scope="gpu"))


def _xf_wait(em: Emitter, prim: Prim, ins: Instr) -> None:
    """The goal is what the block's thread 0 wrote on arriving: only it writes its slot, and the block
    barrier first makes that store visible to the block's other threads (the master's gather them)."""
    arrived, _, here = _xf_slots(em, prim, ins)
    em.b.emit("bar.sync", (), (imm(0),))
    goal = em.ld(arrived, here, hint="goal", cache="cg")
    _xf_master(em, prim, ins, goal)
    _xf_released(em, prim, ins, goal)


def _flip_arrive(em: Emitter, prim: Prim, ins: Instr, known=None):
    """Add this block's share; the top bit of the counter before the round's end, as a register
    (`known`, where the caller keeps the round itself: then the flat path's add is one nobody
    waits for, and the grouped path reads nothing first)."""
    count = em.state(prim, "count", prim.instances, 0, elem=U32, space="global")
    group = em.state(prim, "group", prim.instances, 0, elem=U32, space="global", per="block")
    i = ins.ref.index
    bid, nbid = em.builtin("bid"), em.builtin("nbid")
    top_bit = imm(TOP_BIT, U32)
    seen = known if known is not None else em.b.reg(U32, "round")

    def u32(v, hint):
        return em.op("cvt", U32, v, hint=hint)

    def share(n, hint):
        """What the one of n arrivals adds: 2^31 - (n - 1) for the first, 1 for the others."""
        return em.op("sub", U32, top_bit, em.op("sub", U32, u32(n, hint), imm(1, U32), hint=hint), hint=hint)

    def flat():
        add = em.b.op("select", U32, em.eq(bid, imm(0)), share(nbid, "blocks"), imm(1, U32), hint="add")
        old = em.atom("add", count, i, add, order="release", scope="gpu", hint="arrived")
        if known is None:
            em.b.assign(seen, em.op("and", U32, old, top_bit, hint="round"))

    def grouped():
        # Past FLAT blocks the arrivals queue at one word; groups of FLIP_GROUP meet on words of their
        # own first (FLIP_GROUP words apart), and the group's last arriver arrives for the group.
        if known is None:
            em.b.assign(seen, em.op("and", U32, em.ld(count, i, hint="before", cache="cg"), top_bit, hint="round"))
        g = em.op("div", I32, bid, imm(FLIP_GROUP), hint="g")
        first = em.op("mul", I32, g, imm(FLIP_GROUP), hint="first")
        size = em.op("min", I32, imm(FLIP_GROUP), em.op("sub", I32, nbid, first, hint="rest"), hint="size")
        groups = em.op("div", I32, em.op("add", I32, nbid, imm(FLIP_GROUP - 1), hint="n"), imm(FLIP_GROUP),
                       hint="groups")
        add = em.b.op("select", U32, em.eq(bid, first), share(size, "mates"), imm(1, U32), hint="add")
        slot = em.op("add", I32, em.op("mul", I32, i, nbid, hint="row"), first, hint="slot")
        old = em.atom("add", group, slot, add, order="release", scope="gpu", hint="in_group")
        flipped = em.op("and", U32, em.op("xor", U32, em.op("add", U32, old, add, hint="after"), old, hint="change"),
                        top_bit, hint="completed")

        def arrive_for_group():
            gadd = em.b.op("select", U32, em.eq(g, imm(0)), share(groups, "groups"), imm(1, U32), hint="gadd")
            em.atom("add", count, i, gadd, order="release", scope="gpu", hint="arrived")
        em.when(em.op("cmp.ne", BOOL, flipped, imm(0, U32)), arrive_for_group, hint="group_last")

    em.either(em.op("cmp.gt", BOOL, nbid, imm(FLAT)), grouped, flat, hint="many")
    return seen


def _flip_wait(em: Emitter, prim: Prim, ins: Instr, seen) -> None:
    """Until the counter's top bit differs from the one seen on arriving."""
    count = em.state(prim, "count", prim.instances, 0, elem=U32, space="global")
    top_bit = imm(TOP_BIT, U32)
    em.spin(lambda: em.op("cmp.ne", BOOL, em.op("and", U32, em.ld(count, ins.ref.index, hint="now", cache="cg",
                                                                    order="acquire", scope="gpu"), top_bit,
                                                 hint="top"), seen), hint="flip")


def _hierarchical_arrive(em: Emitter, prim: Prim, ins: Instr):
    local = em.state(prim, "group", prim.instances, 0, space="global", per="block")
    count = em.state(prim, "count", prim.instances, 0, space="global")
    sense = em.state(prim, "sense", prim.instances, 0, space="global")
    i = ins.ref.index
    bid, nbid = em.builtin("bid"), em.builtin("nbid")
    was = em.ld(sense, i, hint="sense", cache="cg")
    group = em.op("div", I32, bid, imm(GROUP), hint="group")
    first = em.op("mul", I32, group, imm(GROUP), hint="first")
    size = em.op("min", I32, imm(GROUP), em.op("sub", I32, nbid, first, hint="rest"), hint="size")
    groups = em.op("div", I32, em.op("add", I32, nbid, imm(GROUP - 1), hint="n"), imm(GROUP), hint="groups")
    slot = em.op("add", I32, em.op("mul", I32, i, nbid, hint="row"), group, hint="slot")
    here = em.atom("add", local, slot, imm(1), order="acq_rel", scope="gpu", hint="here")

    def group_done():
        em.st(local, slot, imm(0))
        total = em.atom("add", count, i, imm(1), order="acq_rel", scope="gpu", hint="groups_in")

        def release():
            em.st(count, i, imm(0))
            em.atom("exch", sense, i, em.op("xor", I32, was, imm(1), hint="flip"), order="release", scope="gpu")
        em.when(em.eq(total, em.op("sub", I32, groups, imm(1), hint="others")), release, hint="last")
    em.when(em.eq(here, em.op("sub", I32, size, imm(1), hint="mates")), group_done, hint="group_last")
    return was


# ---- the registry entries ---------------------------------------------------------------------------

class Bar(Expansion):
    about = entry("barrier", "bar", "shared", "warp block",
                  "hardware barriers: bar.sync 0 for a block, named bar.sync/bar.arrive with a count",
                  "seed 000 Listing 12", warp_count=True)
    defaults = (
        *default("ptx fermi", "shared @block", "the hardware block barrier, bar.sync 0"),
        *default("ptx fermi", "shared @warp", "a named barrier (bar.sync/bar.arrive with a thread count)",
                 named=True),
    )

    @classmethod
    def operations(cls):
        return {"prim.sync": cls.sync, "prim.arrive": cls.arrive}

    @classmethod
    def named_barriers(cls, prim):
        return prim.instances if prim.granularity == "warp" else 0

    @classmethod
    def meets_at_block_barrier(cls, prim):
        return prim.granularity == "block"      # shared, but no state to initialize

    @classmethod
    def orders_memory(cls, prim, target):
        return True         # bar.sync orders the block's (or the named group's) accesses

    @classmethod
    def sync(cls, em: Emitter, prim: Prim, ins: Instr) -> None:
        if prim.granularity == "block":
            em.b.emit("bar.sync", (), (imm(0),))
        else:
            em.b.emit("bar.sync", (), (cls.named(em, prim, ins), imm(prim.count)))

    @classmethod
    def arrive(cls, em: Emitter, prim: Prim, ins: Instr) -> None:   # named barriers only (E0413)
        em.b.emit("bar.arrive", (), (cls.named(em, prim, ins), imm(prim.count)))

    @staticmethod
    def named(em: Emitter, prim: Prim, ins: Instr):
        """The instance's named-barrier id (expand_primitives allocated the ids)."""
        bars = prim.attr("bars")
        index = ins.ref.index
        return imm(bars[0] + index.value) if isinstance(index, Imm) else \
            em.op("add", I32, index, imm(bars[0]), hint="bar")


class SyncWarp(Expansion):
    about = entry("barrier", "syncwarp", "shared", "warp",
                  "__syncwarp: the lanes of one warp meet", "seed 003 Listing 3.6", warp_count=False)
    defaults = default("ptx fermi", "shared @warp", "the lanes of one warp meet: __syncwarp", named=False)
    meets_lanes_only = True

    @classmethod
    def operations(cls):
        return {"prim.sync": cls.sync}

    @classmethod
    def meets_at_block_barrier(cls, prim):
        return False

    @classmethod
    def orders_memory(cls, prim, target):
        return True         # __syncwarp orders the lanes' accesses

    @staticmethod
    def sync(em: Emitter, prim: Prim, ins: Instr) -> None:
        em.b.emit("warp.sync", (), (imm(0xFFFFFFFF, U32),))


class GridBarrier(Expansion):
    """A grid barrier: `sync` is the block meeting, its thread 0 arriving and waiting for the
    other blocks (`arrive_half`, `wait_half`), and the block meeting again. The split phase:
    `arrive` is the block meeting and thread 0 arriving; `wait` is thread 0 waiting, then the
    block meeting. What thread 0's wait needs from its arrival (`carries`: the type of the round
    it saw) stays in a register between the two."""
    defaults = ()
    carries = I32

    @classmethod
    def operations(cls):
        return {"prim.sync": cls.sync, "prim.arrive": cls.arrive, "prim.wait": cls.wait}

    @classmethod
    def sync(cls, em: Emitter, prim: Prim, ins: Instr) -> None:
        em.b.emit("bar.sync", (), (imm(0),))
        _thread0(em, lambda: cls.wait_half(em, prim, ins, cls.arrive_half(em, prim, ins)))
        em.b.emit("bar.sync", (), (imm(0),))

    @classmethod
    def arrive(cls, em: Emitter, prim: Prim, ins: Instr) -> None:
        em.b.emit("bar.sync", (), (imm(0),))
        seen = em.carried(prim, ins, cls.carries)
        _thread0(em, lambda: em.b.assign(seen, cls.arrive_half(em, prim, ins)))

    @classmethod
    def wait(cls, em: Emitter, prim: Prim, ins: Instr) -> None:
        seen = em.carried(prim, ins, cls.carries)
        _thread0(em, lambda: cls.wait_half(em, prim, ins, seen))
        em.b.emit("bar.sync", (), (imm(0),))


class Atomic(GridBarrier):
    about = entry("barrier", "atomic", "global", "grid",
                  "sense-reversing barrier on one atomic counter", "seed 001 section 5.1")
    arrive_half, wait_half = staticmethod(_sense_arrive), staticmethod(_sense_wait)


class XiaoFeng(GridBarrier):
    about = entry("barrier", "xf", "global", "grid",
                  "Xiao-Feng barrier: one flag per block, a master block gathers and releases",
                  "seed 001 section 5.1")
    defaults = default("fermi", "global @grid", "seed 001: the Xiao-Feng barrier is the fastest grid barrier on "
                                                "both GPUs it measured (Table 5); one flag per block, no contended "
                                                "atomic")

    # block 0's threads all gather and release, so xf keeps its round in memory, not in thread 0
    @classmethod
    def sync(cls, em: Emitter, prim: Prim, ins: Instr) -> None:
        em.b.emit("bar.sync", (), (imm(0),))
        _xiao_feng(em, prim, ins)
        em.b.emit("bar.sync", (), (imm(0),))

    @classmethod
    def arrive(cls, em: Emitter, prim: Prim, ins: Instr) -> None:
        em.b.emit("bar.sync", (), (imm(0),))
        _xf_arrive(em, prim, ins)

    @classmethod
    def wait(cls, em: Emitter, prim: Prim, ins: Instr) -> None:
        _xf_wait(em, prim, ins)
        em.b.emit("bar.sync", (), (imm(0),))


class Flip(GridBarrier):
    about = entry("barrier", "flip", "global", "grid",
                  "one counter whose top bit flips each round: one atomic per block, nothing reset",
                  "cooperative groups' grid.sync; syncc")
    defaults = default("ptx", "global @grid", "one atomic per block on one counter, as cooperative groups' "
                                              "grid.sync: 1.02 µs at 132 blocks, 2.24 at 1056 and 3.40 at 2112 on "
                                              "an H100, against grid.sync's 1.14, 2.37 and 4.47 in the same run, "
                                              "where xf takes 2.67, 6.61 and 11.5 (`syncc bench gpu`, 2026-11-25)")
    arrive_half, wait_half, carries = staticmethod(_flip_arrive), staticmethod(_flip_wait), U32

    # The split phase knows its round without asking: the counter is 0 at every launch and its top
    # bit flips once a round, so thread 0 keeps the bit in the carried register and flips it after
    # each wait. Its arrival is then an add whose result nobody waits for (ptxas makes it a RED),
    # and the block's work after `arrive` does not wait for the atomic's round trip. (`sync` alone
    # keeps reading the round from the counter, as a vended barrier must: it has no register
    # across calls.)
    @classmethod
    def sync(cls, em: Emitter, prim: Prim, ins: Instr) -> None:
        if prim.name in em.split_phases:      # the kernel also splits it: one round register for both
            cls.arrive(em, prim, ins)
            cls.wait(em, prim, ins)
        else:
            super().sync(em, prim, ins)

    @classmethod
    def arrive(cls, em: Emitter, prim: Prim, ins: Instr) -> None:
        em.b.emit("bar.sync", (), (imm(0),))
        seen = em.carried(prim, ins, cls.carries)
        _thread0(em, lambda: _flip_arrive(em, prim, ins, known=seen))

    @classmethod
    def wait(cls, em: Emitter, prim: Prim, ins: Instr) -> None:
        seen = em.carried(prim, ins, cls.carries)

        def wait_then_turn():
            _flip_wait(em, prim, ins, seen)
            em.b.emit("xor", (seen,), (seen, imm(TOP_BIT, U32)))
        _thread0(em, wait_then_turn)
        em.b.emit("bar.sync", (), (imm(0),))


class Hierarchical(GridBarrier):
    about = entry("barrier", "hierarchical", "global", "grid",
                  "blocks meet in groups of 8 first, then one block per group meets the other groups", "syncc")
    arrive_half, wait_half = staticmethod(_hierarchical_arrive), staticmethod(_sense_wait)


IMPLEMENTATIONS = (Bar, SyncWarp, Atomic, XiaoFeng, Flip, Hierarchical)   # the catalogue's order
