"""Lane masks: which of a warp's 32 lanes take part in something.

A mask is a Python int with one *byte* per lane: lane i is set when bit 8·i is
1. That is exactly what numpy's bool arrays hold, so a predicate register (a
bool array of 32) becomes a mask with one `int.from_bytes(p.tobytes())` and a
mask becomes a `where=` array with a cached `frombuffer`, while the SIMT stack,
the schedulers and the diagnostics work on plain ints (and, or, popcount).
"""
from __future__ import annotations

import numpy as np

WARP = 32
LANE = tuple(1 << (8 * i) for i in range(WARP))
FULL = sum(LANE)
NONE = 0

_ARRAYS: dict[int, np.ndarray] = {}


def of_array(a: np.ndarray) -> int:
    """The mask of a bool array of 32."""
    return int.from_bytes(a.tobytes(), "little")


def to_array(mask: int) -> np.ndarray:
    """A read-only bool array of 32 for `mask` (cached: masks repeat)."""
    a = _ARRAYS.get(mask)
    if a is None:
        a = np.frombuffer(mask.to_bytes(WARP, "little"), dtype=np.bool_)
        if len(_ARRAYS) < 65536:
            _ARRAYS[mask] = a
    return a


def first(n: int) -> int:
    """The mask of lanes 0..n-1."""
    return sum(LANE[:n])


def count(mask: int) -> int:
    return mask.bit_count()


_LANES: dict[int, list[int]] = {}


def lanes(mask: int) -> list[int]:
    """The set lanes, lowest first (cached: masks repeat; do not modify the list)."""
    out = _LANES.get(mask)
    if out is None:
        out = []
        i, m = 0, mask
        while m:
            if m & 0xFF:
                out.append(i)
            m >>= 8
            i += 1
        if len(_LANES) < 65536:
            _LANES[mask] = out
    return out


def from_lanes(ls) -> int:
    m = 0
    for i in ls:
        m |= LANE[i]
    return m


def lowest(mask: int) -> int:
    """The lowest set lane (mask must not be empty)."""
    return ((mask & -mask).bit_length() - 1) // 8


def compact(mask: int) -> int:
    """The conventional 32-bit form (bit i = lane i), for people: 0xffffffff."""
    out = 0
    for i in lanes(mask):
        out |= 1 << i
    return out


_EXPANDED: dict[int, int] = {}


def expand(bits: int) -> int:
    """From the conventional 32-bit form (cached: masks repeat, and the compiled core's event log
    hands every issued instruction's mask over in this form)."""
    out = _EXPANDED.get(bits)
    if out is None:
        out = from_lanes(i for i in range(WARP) if bits >> i & 1)
        if len(_EXPANDED) < 65536:
            _EXPANDED[bits] = out
    return out


def describe(mask: int) -> str:
    """`lanes 0-3, 7` for people."""
    ls = lanes(mask)
    if not ls:
        return "no lanes"
    runs, start, prev = [], ls[0], ls[0]
    for i in ls[1:] + [None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        runs.append(f"{start}" if start == prev else f"{start}-{prev}")
        if i is not None:
            start = prev = i
    return ("lane " if len(ls) == 1 else "lanes ") + ", ".join(runs)
