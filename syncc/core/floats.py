"""IEEE binary32 and binary64 values as the GPU computes them, without numpy.

A value of an f32 or f64 is held as a Python float (binary64, which holds every binary32 value
exactly). `to_type(x, t)` rounds an exact value (an int, a Fraction, or a float) to t, to nearest
with ties to even, as PTX's `.rn` modes and the CUDA C++ conversions do; IEEE's basic operations
on binary32 are then a binary64 operation rounded to binary32 (binary64 carries more than twice
binary32's precision plus two bits, so the double rounding is innocuous for + - * / and sqrt).
`to_int` is PTX's `cvt.rzi` to an integer type: toward zero, saturating, NaN to 0.
"""
from __future__ import annotations

import math
import struct
from fractions import Fraction

from .types import F32, F64, ScalarType

_F32_OVERFLOW = Fraction(2) ** 128 - Fraction(2) ** 103      # from here on, rounding gives infinity
_F64_OVERFLOW = Fraction(2) ** 1024 - Fraction(2) ** 970


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f32_from_bits(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def f64_bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def f64_from_bits(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits & 0xFFFFFFFFFFFFFFFF))[0]


def bits(x: float, t: ScalarType) -> int:
    """The bit pattern of a value of t, as an unsigned integer of t's width."""
    return f32_bits(x) if t == F32 else f64_bits(x)


def from_bits(b: int, t: ScalarType) -> float:
    return f32_from_bits(b) if t == F32 else f64_from_bits(b)


def _round_f32_double(x: float) -> float:
    """A binary64 value rounded to binary32 (to nearest, ties to even; infinity past the range)."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def to_type(value, t: ScalarType) -> float:
    """`value` (int, Fraction or float) rounded to the nearest value of the float type t."""
    if isinstance(value, float):
        return value if t == F64 else _round_f32_double(value)
    q = Fraction(value)
    limit = _F64_OVERFLOW if t == F64 else _F32_OVERFLOW
    if abs(q) >= limit:
        return math.inf if q > 0 else -math.inf
    x = float(q)                   # correctly rounded to binary64
    if t == F64:
        return x
    near = _round_f32_double(x)
    if Fraction(near) == q:
        return near
    # x may sit exactly halfway between two binary32 values only because it was rounded once:
    # settle it against the exact value, between the two binary32 values around q
    lo, hi = (near, _next_f32(near, True)) if Fraction(near) < q else (_next_f32(near, False), near)
    if not math.isfinite(hi):
        return lo
    if not math.isfinite(lo):
        return hi
    d_lo, d_hi = q - Fraction(lo), Fraction(hi) - q
    if d_lo != d_hi:
        return lo if d_lo < d_hi else hi
    return lo if f32_bits(lo) & 1 == 0 else hi


def _next_f32(x: float, up: bool) -> float:
    """The binary32 value next to x, above it or below."""
    if x == 0:
        return f32_from_bits(1) if up else -f32_from_bits(1)
    b = f32_bits(x)
    return f32_from_bits(b + 1 if (x > 0) == up else b - 1)


def to_int(x, t: ScalarType) -> int:
    """A float (or an exact Fraction) converted to the integer type t: toward zero, clamped to t's
    range, NaN to 0."""
    if isinstance(x, Fraction):
        lo, hi = t.range
        return max(lo, min(hi, int(x)))
    if math.isnan(x):
        return 0
    lo, hi = t.range
    if math.isinf(x):
        return hi if x > 0 else lo
    return max(lo, min(hi, int(x)))


def fma(a: float, b: float, c: float, t: ScalarType) -> float:
    """a * b + c with one rounding, as the GPU's fma does."""
    if not all(map(math.isfinite, (a, b, c))):
        return to_type(a * b + c, t)       # infinities and NaN: no rounding to speak of
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return to_type(a * b + c, t)       # the sign of a zero as IEEE gives it
    return to_type(exact, t)


def fmin(a: float, b: float) -> float:
    """IEEE minNum, as PTX's min.f32: a NaN operand gives the other; -0 is below +0."""
    return _pick(a, b, -1)


def fmax(a: float, b: float) -> float:
    """IEEE maxNum, as PTX's max.f32: a NaN operand gives the other; +0 is above -0."""
    return _pick(a, b, 1)


def _pick(a: float, b: float, side: int) -> float:
    """The smaller (side -1) or the larger (side 1) of a and b, minNum/maxNum's way."""
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    if a == b == 0:
        return a if math.copysign(1, a) == side else b
    return a if (a < b if side < 0 else a > b) or a == b else b


def text(x: float) -> str:
    """The shortest text that reads back as x (`1.5`, `1e-05`, `+inf`, `-inf`, `+nan`), for the IR's text
    form (a sign on the specials keeps them apart from names)."""
    if math.isnan(x):
        return "+nan"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return repr(x)
