"""The simulator's memories: global memory with named allocations, each SM's shared memory and
lock unit, and who wrote what last (so a deadlock can be explained).

Addresses are byte addresses; every access is one aligned 32-bit word. An
access outside what was allocated raises MemoryFault, which the simulator turns
into a run-time error at the instruction's source line.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GLOBAL_BASE = 0x10000      # the first global allocation (address 0 stays invalid)
ALIGN = 256                # allocations start at multiples of this, with a gap between them


class MemoryFault(Exception):
    """An access to an address that holds nothing, or a misaligned one."""

    def __init__(self, space: str, addr: int, lane: int, why: str):
        super().__init__(f"{space} address 0x{addr:x} (lane {lane}): {why}")
        self.space, self.addr, self.lane, self.why = space, addr, lane, why


@dataclass
class Allocation:
    name: str
    base: int               # byte address
    words: int
    dims: tuple[int, ...]

    @property
    def end(self) -> int:
        """The word index just past the allocation (at least one word is always placed)."""
        return (self.base - GLOBAL_BASE) // 4 + max(1, self.words)

    def index_name(self, word: int) -> str:
        """`out[3][4]` for a word index within the allocation."""
        rest, subs = word, []
        for d in reversed(self.dims or (self.words,)):
            subs.append(rest % d)
            rest //= d
        return self.name + "".join(f"[{i}]" for i in reversed(subs))


class GlobalMemory:
    """One flat array of words from GLOBAL_BASE; `valid` marks the allocated ones."""

    def __init__(self) -> None:
        self.words = np.zeros(0, dtype=np.uint32)
        self.valid = np.zeros(0, dtype=np.bool_)
        self.allocations: list[Allocation] = []
        self._writer: dict[int, tuple] = {}
        self._unread = None                         # writers_later's function, until `writer` is read

    @property
    def writer(self) -> dict[int, tuple]:
        """word index → (warp uid, lane, pc) of its last store or atomic."""
        if self._unread is not None:
            read, self._unread = self._unread, None
            self._writer.update(read())
        return self._writer

    def writers_later(self, read) -> None:
        """Add the writers `read()` returns when `writer` is next read. A launch that finished on
        the compiled core leaves them so: most launches' are never read (a diagnosis names them),
        and building the dict was a sixth of a short launch's Python work."""
        if self._unread is not None:                # the earlier ones first: the later win
            self._writer.update(self._unread())
        self._unread = read

    def allocate(self, name: str, values: np.ndarray, dims: tuple[int, ...] = ()) -> int:
        """Place `values` (any 32-bit dtype) and return their address."""
        n = max(1, len(values))
        top = self.allocations[-1].end if self.allocations else None     # not len(words): that is capacity
        start = 0 if top is None else -(-(top + ALIGN // 4) // (ALIGN // 4)) * (ALIGN // 4)
        end = start + n
        if end > len(self.words):
            grow = max(end, 2 * len(self.words))
            self.words = np.concatenate([self.words, np.zeros(grow - len(self.words), dtype=np.uint32)])
            self.valid = np.concatenate([self.valid, np.zeros(grow - len(self.valid), dtype=np.bool_)])
        self.words[start:start + len(values)] = np.asarray(values).view(np.uint32) if len(values) else 0
        self.valid[start:end] = True
        base = GLOBAL_BASE + 4 * start
        self.allocations.append(Allocation(name, base, len(values), tuple(dims)))
        return base

    def read_back(self, base: int, n: int) -> np.ndarray:
        start = (base - GLOBAL_BASE) // 4
        return self.words[start:start + n].copy()

    def index(self, addrs: np.ndarray, lanes: list[int]) -> np.ndarray:
        """Word indices for byte addresses (one per active lane, lane numbers for errors)."""
        idx = (addrs.astype(np.int64) - GLOBAL_BASE) >> 2
        if ((addrs & 3) != 0).any() or (idx < 0).any() or (idx >= len(self.words)).any() or not self.valid[
                np.clip(idx, 0, max(0, len(self.words) - 1))].all():
            self.raise_fault(addrs, idx, lanes)
        return idx

    def raise_fault(self, addrs, idx, lanes) -> None:
        """Raise the MemoryFault of the first lane whose byte address is misaligned or outside every
        allocation (addrs, their word indices idx, and the lanes, in the same order)."""
        for a, i, lane in zip(addrs.tolist(), idx.tolist(), lanes):
            if a & 3:
                raise MemoryFault("global", a, lane, "not aligned to 4 bytes")
            if i < 0 or i >= len(self.words) or not self.valid[i]:
                raise MemoryFault("global", a, lane, "outside every allocation" + self._near(a))
        raise AssertionError("no fault found")

    def _near(self, addr: int) -> str:
        for a in self.allocations:
            if a.base - 64 <= addr < a.base + 4 * a.words + 64:
                return f" (near `{a.name}`, which is 0x{a.base:x}..0x{a.base + 4 * a.words - 1:x})"
        return ""

    def name_of(self, addr: int) -> str:
        for a in self.allocations:
            if a.base <= addr < a.base + 4 * a.words:
                return a.index_name((addr - a.base) // 4)
        return f"global 0x{addr:x}"


class LockHolders(dict):
    """bit → (warp uid, lane, pc, word index) of the lane holding that lock bit, with how many
    each warp holds (observers ask at every instruction: counting the table each time made a
    traced run of a lock-heavy kernel spend 40% of its time there). Change it with `[]`, `pop`
    and `del` only."""

    __slots__ = ("_held",)

    def __init__(self, items=()):
        super().__init__()
        self._held: dict[int, int] = {}
        for bit, h in dict(items).items():
            self[bit] = h

    def __setitem__(self, bit: int, h: tuple) -> None:
        if bit in self:
            self._drop(self[bit][0])
        super().__setitem__(bit, h)
        self._held[h[0]] = self._held.get(h[0], 0) + 1

    def __delitem__(self, bit: int) -> None:
        self._drop(self[bit][0])
        super().__delitem__(bit)

    def pop(self, bit: int, *default):
        if bit not in self:
            return super().pop(bit, *default)
        h = super().pop(bit)
        self._drop(h[0])
        return h

    def _drop(self, uid: int) -> None:
        n = self._held[uid] - 1
        if n:
            self._held[uid] = n
        else:
            del self._held[uid]

    def held_by(self, uid: int) -> int:
        """How many lock bits warp `uid` holds."""
        return self._held.get(uid, 0)


class SharedMemory:
    """One SM's shared memory (48 KB of words) and its lock unit.

    Each resident block owns a window [base, base + size). A lock bit is chosen by
    bits 2.. of the *SM* address (base + address), so blocks on one SM share the
    unit and words `lock_bits` words apart share a bit."""

    def __init__(self, size_bytes: int, lock_bits: int):
        self.words = np.zeros(size_bytes // 4, dtype=np.uint32)
        self.lock_bits = lock_bits
        self.free = (1 << lock_bits) - 1                    # bit i is 1 while lock bit i is free
        self.holder = LockHolders()                         # bit → (warp uid, lane, pc, word index)
        self.writer: dict[int, tuple] = {}                  # word index → (warp uid, lane, pc)
        self.windows: list[tuple[int, int]] = []            # (base, size) of resident blocks

    def place(self, size: int) -> int | None:
        """A window of `size` bytes (first fit, 128-byte aligned), or None."""
        size = -(-size // 128) * 128
        start = 0
        for base, used in sorted(self.windows):
            if base - start >= size:
                break
            start = max(start, base + used)
        if start + size > len(self.words) * 4:
            return None
        self.windows.append((start, size))
        return start

    def release(self, base: int) -> None:
        self.windows = [w for w in self.windows if w[0] != base]
