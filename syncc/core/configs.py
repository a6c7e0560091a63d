"""The launch configurations a kernel declares it supports, and the few the analyses check for them.

    grid(1 .. 65536)                  # a kernel header: any grid of 1 to 65535 blocks
    kernel k(n: i32 in 1 .. 1 << 20, rounds: i32 in [1, 2, 4], ...)

    supported = Supported(grid=(ValueSet.between(1, 65536), ONE, ONE), params=((0, ValueSet.between(1, 1 << 20)),))
    supported.refusal((70000, 1, 1), {0: 5})    # "grid(70000) is not in 1 .. 65536"
    supported.covering(constants, threads)      # [(grid, ((position, value), ...)), ...]

A declared range is half-open, as in a `for` loop: `1 .. 65536` holds 1 to 65535.

Nothing checks every configuration of a large range one by one. `covering` picks the ones the
hazard analyses run for (docs/targets.md, "Configurations a kernel declares"): every value of a
dimension of at most EXHAUSTIVE values; else its ends and their neighbours, every constant of the
kernel and its neighbours, powers of two and their neighbours, and a few points spread between
(so the whole range is sampled, not only its landmarks); and for a size parameter, the launch's
thread count at each grid picked and its neighbours (where `gtid < n` turns over). The premise is
that what the analyses find changes only where a quantity they compare crosses one of those
points; the oracle tests it (tests/oracle: a configuration drawn at random from the declared
range finds nothing the covering set did not).
"""
from __future__ import annotations

from itertools import product

from .prebuilt import dataclass

EXHAUSTIVE = 16          # a dimension of at most this many values is checked value by value
SPREAD = 4               # points spread over a large range, besides its landmarks
MAX_CONFIGURATIONS = 512  # the most configurations `covering` returns; past it, None


@dataclass(frozen=True)
class ValueSet:
    """The values one declared quantity may take: the half-open range lo .. hi, or a list."""
    lo: int
    hi: int                                    # not included
    listed: tuple[int, ...] | None = None      # `[64, 128, 256]`: these values only

    @staticmethod
    def between(lo: int, hi: int) -> "ValueSet":
        return ValueSet(lo, hi)

    @staticmethod
    def of(values) -> "ValueSet":
        vs = tuple(sorted(set(values)))
        return ValueSet(vs[0], vs[-1] + 1, vs)

    def __contains__(self, v: int) -> bool:
        return v in self.listed if self.listed is not None else self.lo <= v < self.hi

    @property
    def size(self) -> int:
        return len(self.listed) if self.listed is not None else self.hi - self.lo

    def text(self) -> str:
        if self.listed is not None:
            return "[" + ", ".join(map(str, self.listed)) + "]"
        return f"{self.lo} .. {self.hi}"

    def picks(self, landmarks=()) -> tuple[int, ...]:
        """The values the analyses run for (the module docstring)."""
        if self.listed is not None:
            return self.listed
        lo, hi = self.lo, self.hi - 1
        if hi - lo + 1 <= EXHAUSTIVE:
            return tuple(range(lo, hi + 1))
        points = {lo, lo + 1, hi - 1, hi}
        for c in landmarks:
            points |= {c - 1, c, c + 1}
        p = 1
        while p <= hi:
            points.add(p)
            p <<= 1
        span = hi - lo
        points |= {lo + span * i // (SPREAD + 1) for i in range(1, SPREAD + 1)}
        return tuple(sorted(v for v in points if lo <= v <= hi))


ONE = ValueSet(1, 2)


@dataclass(frozen=True)
class Supported:
    """What a kernel's header declares it supports: its grid (each dimension a ValueSet; None where
    the header gives no grid, or a constant one) and ranges of its integer scalar parameters."""
    grid: tuple[ValueSet, ValueSet, ValueSet] | None
    params: tuple[tuple[int, ValueSet], ...] = ()       # (position of the parameter, its values)

    def refusal(self, grid: tuple[int, int, int], args: dict[int, int], names=None) -> str | None:
        """Why a launch with this grid and these scalar arguments is outside, or None."""
        if self.grid is not None:
            for axis, (v, allowed) in enumerate(zip(grid, self.grid)):
                if v not in allowed:
                    shown = "grid(" + ", ".join(map(str, _trim(grid))) + ")"
                    where = "" if axis == 0 and len(_trim(grid)) == 1 else f" (its {'xyz'[axis]} is {v})"
                    return f"{shown}{where} is not in the declared {'xyz'[axis]} range {allowed.text()}"
        for position, allowed in self.params:
            v = args.get(position)
            if v is not None and v not in allowed:
                name = names[position] if names else f"argument {position + 1}"
                return f"`{name}` = {v} is not in its declared range {allowed.text()}"
        return None

    def covering(self, landmarks=(), threads_per_block: int | None = None):
        """The configurations the analyses run for: [(grid, ((position, value), ...)), ...], or
        None where they would be more than MAX_CONFIGURATIONS. Each dimension's picks are taken
        with every other dimension at its ends; a size parameter also at the launch's thread count
        (and its neighbours) for each grid picked."""
        landmarks = tuple(landmarks)
        dims = list(self.grid) if self.grid is not None else []
        ngrid = len(dims)
        dims += [vs for _, vs in self.params]
        if not dims:
            return [(None, ())]
        picks = [vs.picks(landmarks) for vs in dims]
        ends = [tuple(sorted({p[0], p[-1]})) for p in picks]
        chosen: set[tuple[int, ...]] = set(product(*ends))
        for d, own in enumerate(picks):
            others = [ends[e] if e != d else own for e in range(len(dims))]
            chosen |= set(product(*others))
        if ngrid and threads_per_block:
            for c in [c for c in chosen if all(v == e[0] for v, e in zip(c[ngrid:], ends[ngrid:]))]:
                threads = c[0] * c[1] * c[2] * threads_per_block
                for d in range(ngrid, len(dims)):
                    for v in (threads - 1, threads, threads + 1):
                        if v in dims[d]:
                            chosen.add(c[:d] + (v,) + c[d + 1:])
        if len(chosen) > MAX_CONFIGURATIONS:
            return None
        positions = [position for position, _ in self.params]
        return [(tuple(c[:ngrid]) if ngrid else None, tuple(zip(positions, c[ngrid:]))) for c in sorted(chosen)]

    @property
    def count(self) -> int:
        n = 1
        for vs in (self.grid or ()):
            n *= vs.size
        for _, vs in self.params:
            n *= vs.size
        return n


def _trim(t):
    t = tuple(t)
    while len(t) > 1 and t[-1] == 1:
        t = t[:-1]
    return t
