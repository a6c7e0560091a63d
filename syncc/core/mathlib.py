"""exp, exp2, log and log2 of f32, each written once as a sequence of IEEE operations.

Each function is a recipe over an `Arith`: lowering's builds IR (ir/lower/expr.py), so the GPU and
the simulator run these very operations; `Exact` here computes them on Python floats rounded to
f32 after every step, which is what the host block runs. So a program gets the same bits from
`exp(x)` in a kernel and in its host block, on every target, which a host block's `check` relies
on. No step branches (special cases are selects), and no step depends on the target's
approximate instructions.

Accuracy, against the correctly rounded value (float64's function rounded to f32), 80,000
arguments each across the domain, subnormals included (2026-11-28): every one within 1 ulp, 93-98%
exact; tests/core/test_mathlib.py holds a smaller sweep to it.

The methods: argument reduction by Cody and Waite (ln 2 split in two, the reduction in fmas), a
polynomial by Horner's rule in fmas, and the scaling by 2^j in two exact steps, so a result
that underflows is rounded once.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Protocol

from . import floats
from .types import F32, I32

_LOG2E = floats.to_type(Fraction("1.442695040888963407359924681001892137"), F32)     # 1 / ln 2
_LN2_HI = 0.693145751953125          # ln 2 to 16 bits: j * _LN2_HI is exact for |j| < 2^8
_LN2_LO = floats.to_type(Fraction("0.6931471805599453094172321214581765680755") - Fraction(_LN2_HI), F32)
_ROUND = 12582912.0                  # 1.5 * 2^23: (t + _ROUND) - _ROUND is t rounded to an integer
# e^r on |r| <= ln2 / 2: Taylor's coefficients 1/n!, n = 0 .. 7, rounded to f32
_EXP = [floats.to_type(Fraction(1, math.factorial(n)), F32) for n in range(8)]
# 2 atanh(s) = 2s + s R(s^2), |s| <= 0.1716: R's coefficients 2 / (2k + 1), k = 1 .. 6
_ATANH = [floats.to_type(Fraction(2, 2 * k + 1), F32) for k in range(7)]
_SQRT2 = floats.to_type(Fraction(math.sqrt(2)), F32)
_LOG2E_LO = floats.to_type(Fraction("1.442695040888963407359924681001892137") - Fraction(_LOG2E), F32)


class Arith(Protocol):
    """What a recipe computes with: f32 values, i32 values, bools."""

    def const(self, v: float): ...
    def iconst(self, v: int): ...
    def add(self, a, b): ...
    def sub(self, a, b): ...
    def mul(self, a, b): ...
    def div(self, a, b): ...
    def fma(self, a, b, c): ...
    def min(self, a, b): ...
    def max(self, a, b): ...
    def lt(self, a, b): ...
    def eq(self, a, b): ...
    def isnan(self, a): ...
    def select(self, c, a, b): ...
    def to_int(self, a): ...               # f32 → i32 (the value is integral here)
    def from_int(self, i): ...             # i32 → f32 (exact here: |i| < 2^24)
    def bits(self, a): ...                 # f32 → its i32 bit pattern
    def from_bits(self, i): ...            # i32 → the f32 of those bits
    def iadd(self, a, b): ...
    def isub(self, a, b): ...
    def ishr(self, a, k: int): ...         # arithmetic shift right by a constant
    def ishl(self, a, k: int): ...
    def iand(self, a, b): ...
    def ior(self, a, b): ...


def _pow2(A: Arith, k):
    """2^k for an i32 k in -126 .. 127, from its bits."""
    return A.from_bits(A.ishl(A.iadd(k, A.iconst(127)), 23))


def _scale(A: Arith, p, j):
    """p * 2^j for j in -150 .. 128: two exact powers of two, so an underflow rounds once."""
    half = A.ishr(j, 1)
    return A.mul(A.mul(p, _pow2(A, half)), _pow2(A, A.isub(j, half)))


def _exp_poly(A: Arith, r):
    acc = A.const(_EXP[-1])
    for c in reversed(_EXP[:-1]):
        acc = A.fma(acc, r, A.const(c))
    return acc


def exp(A: Arith, x):
    """e^x: j = round(x / ln 2), r = x - j ln 2, e^x = e^r 2^j."""
    t = A.max(A.min(x, A.const(89.0)), A.const(-104.0))       # past these: inf and 0 by the scaling
    j = A.sub(A.add(A.mul(t, A.const(_LOG2E)), A.const(_ROUND)), A.const(_ROUND))
    r = A.fma(j, A.const(-_LN2_HI), t)
    r = A.fma(j, A.const(-_LN2_LO), r)
    out = _scale(A, _exp_poly(A, r), A.to_int(j))
    return A.select(A.isnan(x), x, out)


def exp2(A: Arith, x):
    """2^x: j = round(x), 2^x = e^((x - j) ln 2) 2^j (x - j is exact)."""
    t = A.max(A.min(x, A.const(129.0)), A.const(-151.0))
    j = A.sub(A.add(t, A.const(_ROUND)), A.const(_ROUND))
    f = A.sub(t, j)
    r = A.fma(f, A.const(_LN2_HI), A.mul(f, A.const(_LN2_LO)))
    out = _scale(A, _exp_poly(A, r), A.to_int(j))
    return A.select(A.isnan(x), x, out)


def _log_parts(A: Arith, x):
    """(e, f, c) with x = (1 + f) 2^e, 1 + f in [sqrt(1/2), sqrt(2)), log(1 + f) = f - c: with
    s = f / (2 + f), log(1 + f) = 2 atanh(s) = f - (f^2/2 - s (f^2/2 + R)), R = s^2 (2/3 + 2 s^2/5 + ...),
    so the large part, f, is exact and only the small correction c is rounded."""
    tiny = A.lt(x, A.const(1.1754943508222875e-38))             # a subnormal: scale it up first
    y = A.select(tiny, A.mul(x, A.const(8388608.0)), x)         # * 2^23, exact
    b = A.bits(y)
    e = A.isub(A.ishr(b, 23), A.select(tiny, A.iconst(150), A.iconst(127)))
    m = A.from_bits(A.ior(A.iand(b, A.iconst(0x007FFFFF)), A.iconst(0x3F800000)))    # in [1, 2)
    big = A.lt(A.const(_SQRT2), m)
    m = A.select(big, A.mul(m, A.const(0.5)), m)
    e = A.select(big, A.iadd(e, A.iconst(1)), e)
    f = A.sub(m, A.const(1.0))                                   # exact (Sterbenz)
    s = A.div(f, A.add(f, A.const(2.0)))
    z = A.mul(s, s)
    acc = A.const(_ATANH[-1])
    for c in reversed(_ATANH[1:-1]):
        acc = A.fma(acc, z, A.const(c))
    r = A.mul(acc, z)
    half_f2 = A.mul(A.mul(f, f), A.const(0.5))
    return e, f, half_f2, s, r


def _log_specials(A: Arith, x, out):
    """log of 0 is -inf, of a negative number or NaN NaN, of inf inf."""
    out = A.select(A.eq(x, A.const(math.inf)), x, out)
    out = A.select(A.eq(x, A.const(0.0)), A.const(-math.inf), out)
    return A.select(A.lt(x, A.const(0.0)), A.const(math.nan), A.select(A.isnan(x), x, out))


def log(A: Arith, x):
    """e ln 2 + f - c, the ln 2 split in two (Cody and Waite), added smallest first."""
    e, f, h, s, r = _log_parts(A, x)
    fe = A.from_int(e)
    inner = A.fma(fe, A.const(_LN2_LO), A.mul(s, A.add(h, r)))
    out = A.fma(fe, A.const(_LN2_HI), A.sub(f, A.sub(h, inner)))
    return _log_specials(A, x, out)


def log2(A: Arith, x):
    """e + (f - c) / ln 2, the 1 / ln 2 split in two."""
    e, f, h, s, r = _log_parts(A, x)
    lm = A.sub(f, A.sub(h, A.mul(s, A.add(h, r))))
    out = A.fma(lm, A.const(_LOG2E), A.fma(lm, A.const(_LOG2E_LO), A.from_int(e)))
    return _log_specials(A, x, out)


RECIPES = {"exp": exp, "exp2": exp2, "log": log, "log2": log2}


class Exact:
    """The recipes on Python values: an f32 as a float already rounded to f32, an i32 as an int."""

    def const(self, v):
        return floats.to_type(v, F32)

    def iconst(self, v):
        return v

    def add(self, a, b):
        return floats.to_type(a + b, F32)

    def sub(self, a, b):
        return floats.to_type(a - b, F32)

    def mul(self, a, b):
        return floats.to_type(a * b, F32)

    def div(self, a, b):
        if b == 0:
            return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1.0, b)
        return floats.to_type(a / b, F32)

    def fma(self, a, b, c):
        return floats.fma(a, b, c, F32)

    def min(self, a, b):
        return floats.fmin(a, b)

    def max(self, a, b):
        return floats.fmax(a, b)

    def lt(self, a, b):
        return a < b

    def eq(self, a, b):
        return a == b

    def isnan(self, a):
        return math.isnan(a)

    def select(self, c, a, b):
        return a if c else b

    def to_int(self, a):
        return floats.to_int(a, I32)

    def from_int(self, i):
        return floats.to_type(i, F32)

    def bits(self, a):
        return I32.wrap(floats.f32_bits(a))

    def from_bits(self, i):
        return floats.f32_from_bits(i & 0xFFFFFFFF)

    def iadd(self, a, b):
        return I32.wrap(a + b)

    def isub(self, a, b):
        return I32.wrap(a - b)

    def ishr(self, a, k):
        return a >> k

    def ishl(self, a, k):
        return I32.wrap(a << k)

    def iand(self, a, b):
        return a & b

    def ior(self, a, b):
        return I32.wrap(a | b)


def evaluate(name: str, x: float) -> float:
    """The recipe `name` on an f32 value, as the host block computes it."""
    return RECIPES[name](Exact(), floats.to_type(x, F32))
