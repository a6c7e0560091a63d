"""Scan implementations: what a scan's `tile` (scan.tile) and `exclusive`/`inclusive` (scan.add) become.

A scan is a running sum over the grid, in tile order. `tile s` takes the block's tile from a
counter (`s.ticket`, 0 before each launch), so a block's predecessors took theirs earlier and are
running or done whatever order the GPU starts blocks in (frontend/check_scan.py says why every
wait below then ends). `exclusive s(v)` is the block's, in three steps:

  1. the block adds its threads' values in shared memory: each warp scans its lanes' values
     (five steps, the warp meeting between them), its last lane writes the warp's total, the
     block meets, and warp 0 scans the warps' totals;
  2. warp 0 finds the sum of every earlier tile (below), publishes the block's running total,
     and writes the earlier tiles' sum to shared memory;
  3. the block meets again and each thread adds: earlier tiles, earlier warps, earlier lanes.

On PTX, for values of at most 32 bits, each tile's status is one 64-bit word in `s.status` (one
per block of the launch, 0 before each launch): its value in the low half, and in the high half 0
while the tile has published nothing, AGGREGATE once it has its own sum there, TOTAL once it has
the running total up to and including itself. A word is stored at once and loaded at once, so a
reader never sees a status with another value's half. Elsewhere (Fermi, and 64-bit values) the
status is a word of its own, and the two values, each written once, lie apart in `s.aggregate`
and `s.total`.

    lookback   (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back",
               2016) a block publishes its AGGREGATE as soon as step 1 has it, sleeps `delay` ns
               (its first look would mostly find the tiles just before it still adding; polling
               them takes L2 bandwidth from the tiles' loads), then warp 0 reads the words of the
               32 tiles before it at once, one a lane, polling until none is empty; it adds the
               values from the nearest tile back to the first that has a TOTAL, and moves 32
               tiles back when none has. A tile waits only for its predecessors to add their own
               values, not for their look-back.
    chained    each block waits for the TOTAL of the tile just before it (one lane polls): the
               tiles finish one after the other. The classic chained scan, simpler and, on a
               GPU with many blocks in flight, slower: the baseline the look-back is measured
               against.

A scan orders its own values and nothing else, as CUB's does: a packed word is stored and loaded
at once, strong (relaxed) at gpu scope, so a reader that sees a status sees its value; where the
value lies apart, the status is stored with release and read before the value with an acquire. What a block wrote to memory before its scan is not promised to later tiles: pass data
between blocks with a channel.
"""
from __future__ import annotations

from ...core.types import BOOL, I32, U32, U64
from ..nodes import Imm, Prim, Ref, imm
from .base import Emitter
from .entry import Expansion, default, entry

AGGREGATE, TOTAL = 1, 2          # a status word's high half
MAX_THREADS = 1024               # a block's most threads: the size of the shared scratch when the block is not fixed


class Scan(Expansion):
    """What both implementations share: the tile counter, the block's sum and the final adds."""
    defaults = ()

    @classmethod
    def operations(cls):
        return {"scan.tile": cls.do_tile, "scan.add": cls.do_add}

    @classmethod
    def meets_at_block_barrier(cls, prim):
        return True

    # ---- state
    @staticmethod
    def tile_box(em: Emitter, prim: Prim) -> str:
        return em.state(prim, "tile", 1, None, space="shared")

    # ---- tile
    @classmethod
    def do_tile(cls, em, prim, ins):
        """Thread 0 takes the next tile; the block meets; every thread reads it."""
        counter = em.state(prim, "ticket", 1, 0)
        box = cls.tile_box(em, prim)
        _, leader = em.party("block")
        em.when(leader, lambda: em.st(box, imm(0), em.atom("add", counter, imm(0), imm(1), hint="tile")),
                hint="leader")
        em.meet("block", None)
        em.b.emit("ld", ins.dests, (Ref(box, imm(0)),), within="blocks")   # (for ranges.py: below the blocks)

    # ---- add
    @classmethod
    def do_add(cls, em, prim, ins):
        b, t = em.b, prim.elem
        value = ins.args[1]
        tid, lane, warp = em.builtin("tid"), em.builtin("lane"), em.builtin("warp")
        threads = em.block_threads or MAX_THREADS
        vals = em.state(prim, "vals", threads, None, elem=t, space="shared")
        warps = em.state(prim, "warps", 32, None, elem=t, space="shared")
        base = em.state(prim, "base", 1, None, elem=t, space="shared")
        zero = imm(0, t)

        # 1. each warp scans its lanes' values; the last lane keeps the warp's total
        mask = b.warp_lanes(em.builtin)
        mine = cls.warp_scan(em, vals, tid, lane, value, mask)
        before_lane = cls.lane_before(em, vals, tid, lane, t)
        ntid = em.builtin("ntid")
        last = b.op("or", BOOL, b.op("cmp.eq", BOOL, lane, imm(31), hint="last"),
                    b.op("cmp.eq", BOOL, tid, b.op("sub", I32, ntid, imm(1)), hint="end"), hint="last")
        em.when(last, lambda: em.st(warps, warp, mine), hint="warp_total")
        em.meet("block", None)

        # 2. warp 0: the warps' running totals, the block's total, the earlier tiles' sum
        def first_warp():
            nwarps = b.op("shr", I32, b.op("add", I32, ntid, imm(31)), imm(5), hint="warps")
            lanes = b.warp_lanes(em.builtin)
            own = b.reg(t, "own")
            b.assign(own, zero)
            em.when(b.op("cmp.lt", BOOL, lane, nwarps), lambda: b.emit("ld", (own,), (Ref(warps, lane),)),
                    hint="a_warp")
            running = cls.warp_scan(em, vals, tid, lane, own, lanes)
            em.when(b.op("cmp.lt", BOOL, lane, nwarps), lambda: em.st(warps, lane, running), hint="a_warp")
            b.emit("warp.sync", (), (lanes,))
            total = em.ld(warps, b.op("sub", I32, nwarps, imm(1)), hint="total")
            tile = em.ld(cls.tile_box(em, prim), imm(0), hint="tile")
            earlier = b.reg(t, "earlier")
            b.assign(earlier, zero)
            # the lanes warp 0 has: 32, or the whole block when it is smaller than a warp
            width = imm(32) if em.block_threads and em.block_threads >= 32 else b.op("min", I32, ntid, imm(32),
                                                                                     hint="width")
            cls.look_back(em, prim, tile, total, earlier, lane, vals, tid, lanes, width)
            em.when(b.op("cmp.eq", BOOL, lane, imm(0)), lambda: em.st(base, imm(0), earlier), hint="leader")
        em.when(b.op("cmp.eq", BOOL, warp, imm(0)), first_warp, hint="warp0")
        em.meet("block", None)

        # 3. every thread: earlier tiles, earlier warps of this tile, earlier lanes of this warp
        before_warp = b.reg(t, "before_warp")
        b.assign(before_warp, zero)
        em.when(b.op("cmp.gt", BOOL, warp, imm(0)),
                lambda: b.emit("ld", (before_warp,), (Ref(warps, b.op("sub", I32, warp, imm(1))),)), hint="later")
        head = b.op("add", t, em.ld(base, imm(0), hint="base"), before_warp, hint="head")
        own = mine if ins.attr("side") == "inclusive" else before_lane
        b.emit("add", ins.dests, (head, own))

    @staticmethod
    def warp_scan(em, vals: str, tid, lane, value, mask):
        """The running sum of the warp's lanes' values, up to and including each lane's own (Hillis
        and Steele over the warp's part of `vals`: at step d each lane adds the lane d below it)."""
        b = em.b
        x = b.reg(value.type, "running")
        b.assign(x, value)
        em.st(vals, tid, x)
        d = 1
        while d < 32:
            b.emit("warp.sync", (), (mask,))
            below = b.reg(value.type, "below")
            b.assign(below, imm(0, value.type))
            em.when(b.op("cmp.ge", BOOL, lane, imm(d)),
                    lambda: b.emit("ld", (below,), (Ref(vals, b.op("sub", I32, tid, imm(d))),)), hint="below")
            b.emit("warp.sync", (), (mask,))
            b.emit("add", (x,), (below, x))
            em.st(vals, tid, x)
            d *= 2
        b.emit("warp.sync", (), (mask,))
        return x

    @staticmethod
    def lane_before(em, vals: str, tid, lane, t):
        """The running sum of the lanes below this one (read from the scan just done)."""
        b = em.b
        before = b.reg(t, "before_lane")
        b.assign(before, imm(0, t))
        em.when(b.op("cmp.gt", BOOL, lane, imm(0)),
                lambda: b.emit("ld", (before,), (Ref(vals, b.op("sub", I32, tid, imm(1))),)), hint="lanes_below")
        return before

    # ---- status words
    @staticmethod
    def packed(em, prim) -> bool:
        """A tile's status and a value of at most 32 bits in one 64-bit word, where the target loads
        and stores 64 bits at once (wide_slots); else (Fermi, 64-bit values) a status word and two
        write-once value words."""
        return em.target.wide_slots and prim.elem.bits <= 32

    @classmethod
    def publish(cls, em, prim, tile, status: int, value):
        """One lane stores the tile's status: packed, a strong (relaxed) 64-bit store whose load
        brings the value with it; apart, after the value it announces, with release."""
        if cls.packed(em, prim):
            low = em.op("cvt", U64, em.as_word(value, U32, hint="bits"), hint="low")
            word = em.op("or", U64, low, imm(status << 32, U64), hint="word")
            em.st(em.state(prim, "status", 1, 0, elem=U64, per="block"), tile, word, order="relaxed", scope="gpu")
            return
        role = "aggregate" if status == AGGREGATE else "total"
        em.st(em.state(prim, role, 1, None, elem=prim.elem, per="block"), tile, value)
        em.st(em.state(prim, "status", 1, 0, per="block"), tile, imm(status), order="release", scope="gpu")

    @classmethod
    def poll(cls, em, prim, index, status, word):
        """Load tile `index`'s status into `status` (an i32), and, packed, its word into `word`."""
        if cls.packed(em, prim):
            array = em.state(prim, "status", 1, 0, elem=U64, per="block")
            em.b.assign(word, em.ld(array, index, hint="word", **em.poll_cache(array)))
            em.b.assign(status, em.op("cvt", I32, em.op("shr", U64, word, imm(32, U64)), hint="status"))
            return
        array = em.state(prim, "status", 1, 0, per="block")
        em.b.assign(status, em.ld(array, index, hint="status", **em.poll_cache(array)))

    @classmethod
    def value(cls, em, prim, index, status, word):
        """The value tile `index` published with `status` (after the acquire that follows the poll)."""
        t = prim.elem
        if cls.packed(em, prim):
            return em.as_word(em.op("cvt", U32, word, hint="low"), t, hint="value")
        out = em.b.reg(t, "value")
        em.either(em.op("cmp.eq", BOOL, status, imm(TOTAL)),
                  lambda: em.b.assign(out, em.ld(em.state(prim, "total", 1, None, elem=t, per="block"), index)),
                  lambda: em.b.assign(out, em.ld(em.state(prim, "aggregate", 1, None, elem=t, per="block"), index)),
                  hint="which")
        return out

    @classmethod
    def look_back(cls, em, prim, tile, total, earlier, lane, vals, tid, lanes, width):
        """Warp 0, every lane (`width` of them): publish the tile's status and set `earlier` (0 before) to the sum of
        the tiles before it (lane 0's is the one used)."""
        raise NotImplementedError


class LookBack(Scan):
    about = entry("scan", "lookback", "global", "block",
                  "decoupled look-back: a tile publishes its sum at once, and one warp reads the 32 tiles "
                  "before it at a time, back to the nearest with a running total",
                  "Merrill & Garland 2016 (single-pass scan with decoupled look-back)", params=(("delay", 0),))
    defaults = (
        *default("ptx", "global @block", "a tile waits only for its predecessors to add their own values, not for "
                                         "their look-back; a first look after 300 ns, when the tiles just before "
                                         "have mostly published (measured best of 0, 200, 300 and 500 on an H200, "
                                         "2026-11-28)", params=(("delay", 300),)),
        *default("fermi", "global @block", "a tile waits only for its predecessors to add their own values, not for "
                                           "their look-back"),
    )

    @classmethod
    def look_back(cls, em, prim, tile, total, earlier, lane, vals, tid, lanes, width):
        b, t = em.b, prim.elem
        is_first = b.op("cmp.eq", BOOL, tile, imm(0), hint="first")
        leader = b.op("cmp.eq", BOOL, lane, imm(0), hint="leader")

        def first():
            em.when(leader, lambda: cls.publish(em, prim, tile, TOTAL, total), hint="leader")

        def later():
            em.when(leader, lambda: cls.publish(em, prim, tile, AGGREGATE, total), hint="leader")
            top = b.reg(I32, "window")
            b.assign(top, b.op("sub", I32, tile, imm(1)))
            status, word = b.reg(I32, "status"), b.reg(U64, "seen")
            b.assign(word, imm(0, U64))       # (polled only for tiles in the grid)
            head = b.new_block("lookback", after=b.current)
            done = b.new_block("lookback.done", after=head)
            b.jump(head)
            b.at(head)
            index = b.op("sub", I32, top, lane, hint="tile")
            in_grid = b.op("cmp.ge", BOOL, index, imm(0), hint="in_grid")

            delay = dict(prim.params).get("delay", 0)
            if delay:             # let the tiles just before this one publish before the first look
                b.emit("nanosleep", (), (imm(delay),))

            def attempt():        # tiles before the first count as a running total of 0
                em.either(in_grid, lambda: cls.poll(em, prim, index, status, word),
                          lambda: b.assign(status, imm(TOTAL)), hint="in_grid")
                return b.op("vote.all", BOOL, b.op("cmp.ne", BOOL, status, imm(0)), lanes, hint="all_ready")
            em.spin(attempt, hint="poll")
            if not cls.packed(em, prim):        # the values apart from the statuses: read after the acquire
                b.emit("fence", (), (), order="acq_rel", scope="gpu")
            totals = b.op("ballot", U32, b.op("cmp.eq", BOOL, status, imm(TOTAL), hint="has_total"), lanes,
                          hint="totals")
            # the nearest tile with a running total: lane k, the lowest set bit (32 when none is:
            # every lane adds)
            lowest = b.op("and", U32, totals, b.op("sub", U32, imm(0, U32), totals), hint="lowest")
            k = b.op("popc", I32, b.op("sub", U32, lowest, imm(1, U32)), hint="nearest")
            adds = b.reg(t, "adds")
            b.assign(adds, imm(0, t))
            em.when(b.op("and", BOOL, in_grid, b.op("cmp.le", BOOL, lane, k)),
                    lambda: b.assign(adds, cls.value(em, prim, index, status, word)), hint="adds")
            cls.warp_scan(em, vals, tid, lane, adds, lanes)
            last = imm(31) if isinstance(width, Imm) else b.op("sub", I32, width, imm(1), hint="last")
            b.emit("add", (earlier,), (em.ld(vals, last, hint="window_sum"), earlier))
            b.emit("sub", (top,), (top, width))
            b.branch(b.op("cmp.ne", BOOL, totals, imm(0, U32), hint="found"), done, head)
            b.at(done)
            em.when(leader, lambda: cls.publish(em, prim, tile, TOTAL, b.op("add", t, earlier, total)),
                    hint="leader")
        em.either(is_first, first, later, hint="tile0")


class Chained(Scan):
    about = entry("scan", "chained", "global", "block",
                  "each tile waits for the running total of the tile before it: one lane polls",
                  "the chained scan (Yan, Long and Zhang 2013, StreamScan)")

    @classmethod
    def look_back(cls, em, prim, tile, total, earlier, lane, vals, tid, lanes, width):
        b, t = em.b, prim.elem
        leader = b.op("cmp.eq", BOOL, lane, imm(0), hint="leader")

        def lead():
            def wait():
                status, word = b.reg(I32, "status"), b.reg(U64, "seen")
                prev = b.op("sub", I32, tile, imm(1), hint="prev")

                def attempt():
                    cls.poll(em, prim, prev, status, word)
                    return b.op("cmp.eq", BOOL, status, imm(TOTAL), hint="has_total")
                em.spin(attempt, hint="poll")
                if not cls.packed(em, prim):
                    b.emit("fence", (), (), order="acq_rel", scope="gpu")
                b.assign(earlier, cls.value(em, prim, prev, status, word))
            em.when(b.op("cmp.gt", BOOL, tile, imm(0), hint="later"), wait, hint="later")
            cls.publish(em, prim, tile, TOTAL, b.op("add", t, earlier, total))
        em.when(leader, lead, hint="leader")


IMPLEMENTATIONS = (LookBack, Chained)   # the catalogue's order
