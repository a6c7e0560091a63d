"""A warp's state: registers, predicates, its SIMT stack (or, in ITS mode, per-lane addresses),
its scoreboard; and a block's (its warps, its barriers, where its shared memory is).

The SIMT stack follows docs/fermi.md literally:

    SSY t / PBK t        push (kind, active lanes, t)
    divergent BRA t      push (DIV, taken lanes, t); the fall-through lanes go on
    .S                   pop
    BRK / EXIT           drop the lanes; pop when none is left active

A pop drops exited lanes from the entry it takes and skips entries left empty.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import lanes as L

SSY, PBK, DIV = "SSY", "PBK", "DIV"
SLOTS = 64 + 9              # scoreboard slots: R0..R63, then P0..P7 and the carry flag (isa.CARRY)
_ROW_VIEWS = ("r", "s", "p")


class StackOverflow(Exception):
    pass


MAX_STACK = 4096


@dataclass
class BlockBarrier:
    """One named barrier of a block while warps wait at it."""
    expected: int                                  # threads (a multiple of 32)
    arrived: int = 0                               # threads so far
    waiting: list = field(default_factory=list)    # (warp, result register or None, predicate count)
    popc: int = 0
    all_true: bool = True
    any_true: bool = False
    stores_until: int = 0                          # weak memory: when the arrivals' stores reach L2


class ThreadBlock:
    """One thread block (CTA) resident on an SM: its warps, its shared-memory window from `base`,
    and its named barriers while warps wait at them (BlockBarrier, by barrier id)."""

    __slots__ = ("index", "linear", "sm", "base", "warps", "live", "barriers", "threads", "started", "finished")

    def __init__(self, index: tuple[int, int, int], linear: int, sm, base: int, threads: int):
        self.index, self.linear, self.sm, self.base, self.threads = index, linear, sm, base, threads
        self.warps: list[Warp] = []
        self.live = 0
        self.barriers: dict[int, BlockBarrier] = {}
        self.started = 0
        self.finished = None


class Warp:
    """One warp. `r` are the 64 register rows as uint32 (R63 is RZ and stays 0), `s` the same
    rows as int32, `p` the 9 predicate rows (P7 is pt, always true; row 8 is the carry flag,
    isa.CARRY)."""

    __slots__ = ("uid", "block", "index", "sm", "scheduler", "regs", "r", "s", "preds", "p", "present", "active",
                 "exited", "pc", "stack", "sb", "ready_at", "stores_done_at", "waiting", "local", "tid",
                 "issued", "last_issue", "age", "its", "stall", "stall_reason", "lane_ids")

    def __init__(self, uid: int, block: ThreadBlock, index: int, threads: int, tid_xyz: np.ndarray, local_words: int,
                 age: int):
        self.uid, self.block, self.index, self.age = uid, block, index, age
        self.sm = block.sm
        self.scheduler = 0
        preds = np.zeros((9, 32), dtype=np.bool_)
        preds[7] = True
        self.use_registers(np.zeros((64, 32), dtype=np.uint32), preds)
        self.present = L.first(threads)          # lanes that exist (the last warp of a block may be partial)
        self.active = self.present
        self.exited = 0
        self.pc = 0
        self.stack: list[tuple[str, int, int]] = []
        self.sb = [0] * SLOTS
        self.ready_at = 0
        self.stores_done_at = 0
        self.waiting: str | None = None          # "bar" while blocked at a barrier, "done" when finished
        self.local = np.zeros((max(1, local_words), 32), dtype=np.uint32) if local_words else None
        self.tid = tid_xyz                       # (3, 32) uint32: tid.x, tid.y, tid.z per lane
        self.lane_ids = np.arange(32, dtype=np.uint32)
        self.issued = 0
        self.last_issue = -1
        self.its = None                          # ItsState in ITS mode
        self.stall = 0
        self.stall_reason = "dependency"

    def use_registers(self, regs: np.ndarray, preds: np.ndarray) -> None:
        """Keep registers and predicates in these arrays (the compiled core's rows, or copies).
        The per-row views the instructions use (`r`, `s`, `p`) are made when first read: a warp
        on the compiled core changes arrays twice and is seldom read row by row."""
        self.regs, self.preds = regs, preds
        for name in _ROW_VIEWS:
            try:
                delattr(self, name)
            except AttributeError:
                pass

    def __getattr__(self, name: str):
        """Only for a slot not set: the row views after use_registers."""
        if name not in _ROW_VIEWS:
            raise AttributeError(name)
        regs, sview, preds = self.regs, self.regs.view(np.int32), self.preds
        self.r = [regs[i] for i in range(64)]
        self.s = [sview[i] for i in range(64)]
        self.p = [preds[i] for i in range(9)]
        return getattr(self, name)

    @property
    def done(self) -> bool:
        return self.waiting == "done"

    @property
    def name(self) -> str:
        b = self.block.index
        return f"block ({b[0]}, {b[1]}, {b[2]}) warp {self.index}"

    def lock_bits_held(self) -> int:
        """Lock bits this warp holds now (on its SM)."""
        return self.sm.shared.holder.held_by(self.uid)

    def lock_bits_taken(self) -> int:
        """Lock bits taken now on this warp's SM, by any warp."""
        shared = self.sm.shared
        return shared.lock_bits - shared.free.bit_count()

    # ---- the SIMT stack
    def push(self, kind: str, mask: int, pc: int) -> None:
        if len(self.stack) >= MAX_STACK:
            raise StackOverflow(self.overflow_message())
        self.stack.append((kind, mask, pc))

    def overflow_message(self) -> str:
        return f"the SIMT stack of {self.name} passed {MAX_STACK} entries"

    def pop(self) -> bool:
        """Resume the next path from the stack. False when nothing is left (the warp is done)."""
        stack, exited = self.stack, self.exited
        while stack:
            kind, mask, pc = stack.pop()
            mask &= ~exited
            if mask:
                self.active, self.pc = mask, pc
                return True
        self.active = 0
        return False

    def leave(self, lanes: int, until_break: bool) -> None:
        """Take `lanes` out of the active lanes and of the stack entries above the nearest break
        entry (BRK: the break entry keeps them) or of every entry (EXIT)."""
        self.active &= ~lanes
        stack = self.stack
        for i in range(len(stack) - 1, -1, -1):
            kind, mask, pc = stack[i]
            if until_break and kind == PBK:
                break
            stack[i] = (kind, mask & ~lanes, pc)

    def parked(self) -> list[tuple[str, int, int]]:
        """The stack entries that hold lanes, top first (for diagnosis)."""
        return [(k, m & ~self.exited, pc) for k, m, pc in reversed(self.stack) if m & ~self.exited]
