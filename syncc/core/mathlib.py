"""exp, exp2, log and log2 of f32 and f64, each written once as a sequence of IEEE operations.

Each function is a recipe over an `Arith`: lowering's builds IR (ir/lower/expr.py), so the GPU and
the simulator run these very operations; `Exact` here computes them on Python floats rounded to
the type after every step, which is what the host block runs. So a program gets the same bits
from `exp(x)` in a kernel and in its host block, on every target, which a host block's `check`
relies on. No step branches (special cases are selects), and no step depends on a target's
approximate instructions.

Accuracy, against the correctly rounded value, 80,000 f32 arguments each (float64's function
rounded) and 26,666 f64 arguments each (Python's decimal at 45 digits, rounded), across the
domain, subnormals included (2026-11-28): every one within 1 ulp; exact for 94% (exp, exp2), 98.5%
(log) and 93% (log2) of them; tests/core/test_mathlib.py holds smaller sweeps to it.

The methods: argument reduction by Cody and Waite (ln 2 split in two, the reduction in fmas), a
Taylor polynomial by Horner's rule in fmas, and the scaling by 2^j in two exact steps, so a result
that underflows is rounded once; for the logarithms, x = (1 + f) 2^e with 1 + f in [√½, √2) and
log(1 + f) = f - (f²/2 - s (f²/2 + R)), s = f / (2 + f), so only a small correction is rounded.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from . import floats
from .types import F32, F64, I32, I64, ScalarType

_LN2 = Fraction("0.69314718055994530941723212145817656807550013436025525412068")
_LOG2E = Fraction("1.44269504088896340735992468100189213742664595415298593413545")


def _split(value: Fraction, bits: int, t: ScalarType) -> tuple[float, float]:
    """value as hi + lo: hi with `bits` significant bits (so j * hi is exact for small j), lo the rest."""
    e = math.floor(math.log2(value))
    hi = Fraction(round(value * 2 ** (bits - 1 - e)), 2 ** (bits - 1 - e))
    return float(hi), floats.to_type(value - hi, t)


@dataclass(frozen=True)
class Format:
    """The constants of one float type's recipes."""
    t: ScalarType             # the float type
    it: ScalarType            # the integer type of its width
    mantissa: int             # fraction bits
    bias: int
    exp_terms: int            # e^r's Taylor terms, |r| <= ln 2 / 2
    atanh_terms: int          # R's terms, |s| <= 0.1716
    exp_limits: tuple[float, float]     # exp's argument clamped here: past it, 0 and inf by the scaling
    exp2_limits: tuple[float, float]

    def c(self, v) -> float:
        return floats.to_type(v, self.t)

    @property
    def round_magic(self) -> float:          # (t + m) - m is t rounded to an integer
        return 1.5 * 2.0 ** self.mantissa

    @property
    def ln2(self) -> tuple[float, float]:     # hi has 16 (f32) / 42 (f64) bits: j * hi is exact
        return _split(_LN2, 16 if self.t == F32 else 42, self.t)

    @property
    def log2e(self) -> tuple[float, float]:
        hi = self.c(_LOG2E)
        return hi, self.c(_LOG2E - Fraction(hi))

    @property
    def smallest_normal(self) -> float:
        return 2.0 ** (1 - self.bias)


FORMATS = {
    F32: Format(F32, I32, 23, 127, 8, 6, (-104.0, 89.0), (-151.0, 129.0)),
    F64: Format(F64, I64, 52, 1023, 14, 11, (-746.0, 710.0), (-1076.0, 1025.0)),
}


class Arith(Protocol):
    """What a recipe computes with: values of the format's float type `t` and integer type `it`, bools."""
    fmt: Format

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
    def to_int(self, a): ...               # float → integer (the value is integral here)
    def from_int(self, i): ...             # integer → float (exact here: a small exponent)
    def bits(self, a): ...                 # float → its bit pattern
    def from_bits(self, i): ...            # bit pattern → the float
    def iadd(self, a, b): ...
    def isub(self, a, b): ...
    def ishr(self, a, k: int): ...         # arithmetic shift right by a constant
    def ishl(self, a, k: int): ...
    def iand(self, a, b): ...
    def ior(self, a, b): ...


def _pow2(A: Arith, k):
    """2^k for k within the normal exponents, from its bits."""
    return A.from_bits(A.ishl(A.iadd(k, A.iconst(A.fmt.bias)), A.fmt.mantissa))


def _scale(A: Arith, p, j):
    """p * 2^j: two exact powers of two, so an underflow rounds once."""
    half = A.ishr(j, 1)
    return A.mul(A.mul(p, _pow2(A, half)), _pow2(A, A.isub(j, half)))


def _exp_poly(A: Arith, r):
    """e^r by Taylor's polynomial, coefficients 1/n! rounded to the type."""
    n = A.fmt.exp_terms
    acc = A.const(A.fmt.c(Fraction(1, math.factorial(n - 1))))
    for k in range(n - 2, -1, -1):
        acc = A.fma(acc, r, A.const(A.fmt.c(Fraction(1, math.factorial(k)))))
    return acc


def _round(A: Arith, t):
    magic = A.const(A.fmt.round_magic)
    return A.sub(A.add(t, magic), magic)


def exp(A: Arith, x):
    """e^x: j = round(x / ln 2), r = x - j ln 2, e^x = e^r 2^j."""
    lo, hi = A.fmt.exp_limits
    t = A.max(A.min(x, A.const(hi)), A.const(lo))
    j = _round(A, A.mul(t, A.const(A.fmt.log2e[0])))
    ln2_hi, ln2_lo = A.fmt.ln2
    r = A.fma(j, A.const(-ln2_hi), t)
    r = A.fma(j, A.const(-ln2_lo), r)
    out = _scale(A, _exp_poly(A, r), A.to_int(j))
    return A.select(A.isnan(x), x, out)


def exp2(A: Arith, x):
    """2^x: j = round(x), 2^x = e^((x - j) ln 2) 2^j (x - j is exact)."""
    lo, hi = A.fmt.exp2_limits
    t = A.max(A.min(x, A.const(hi)), A.const(lo))
    j = _round(A, t)
    f = A.sub(t, j)
    ln2_hi, ln2_lo = A.fmt.ln2
    r = A.fma(f, A.const(ln2_hi), A.mul(f, A.const(ln2_lo)))
    out = _scale(A, _exp_poly(A, r), A.to_int(j))
    return A.select(A.isnan(x), x, out)


def _log_parts(A: Arith, x):
    """(e, f, f²/2, s, R): x = (1 + f) 2^e, log(1 + f) = f - (f²/2 - s (f²/2 + R))."""
    fmt = A.fmt
    tiny = A.lt(x, A.const(fmt.smallest_normal))               # a subnormal: scale it up first
    y = A.select(tiny, A.mul(x, A.const(2.0 ** fmt.mantissa)), x)
    b = A.bits(y)
    e = A.isub(A.ishr(b, fmt.mantissa), A.select(tiny, A.iconst(fmt.bias + fmt.mantissa), A.iconst(fmt.bias)))
    one = fmt.bias << fmt.mantissa
    m = A.from_bits(A.ior(A.iand(b, A.iconst((1 << fmt.mantissa) - 1)), A.iconst(one)))   # in [1, 2)
    big = A.lt(A.const(fmt.c(Fraction(math.sqrt(2)))), m)
    m = A.select(big, A.mul(m, A.const(0.5)), m)
    e = A.select(big, A.iadd(e, A.iconst(1)), e)
    f = A.sub(m, A.const(1.0))                                   # exact (Sterbenz)
    s = A.div(f, A.add(f, A.const(2.0)))
    z = A.mul(s, s)
    n = fmt.atanh_terms                                          # R = z (2/3 + 2z/5 + ...)
    acc = A.const(fmt.c(Fraction(2, 2 * n + 1)))
    for k in range(n - 1, 0, -1):
        acc = A.fma(acc, z, A.const(fmt.c(Fraction(2, 2 * k + 1))))
    r = A.mul(acc, z)
    half_f2 = A.mul(A.mul(f, f), A.const(0.5))
    return e, f, half_f2, s, r


def _log_specials(A: Arith, x, out):
    """log of 0 is -inf, of a negative number or NaN NaN, of inf inf."""
    out = A.select(A.eq(x, A.const(math.inf)), x, out)
    out = A.select(A.eq(x, A.const(0.0)), A.const(-math.inf), out)
    return A.select(A.lt(x, A.const(0.0)), A.const(math.nan), A.select(A.isnan(x), x, out))


def log(A: Arith, x):
    """e ln 2 + f - c, ln 2 split in two, added smallest first."""
    e, f, h, s, r = _log_parts(A, x)
    fe = A.from_int(e)
    ln2_hi, ln2_lo = A.fmt.ln2
    inner = A.fma(fe, A.const(ln2_lo), A.mul(s, A.add(h, r)))
    out = A.fma(fe, A.const(ln2_hi), A.sub(f, A.sub(h, inner)))
    return _log_specials(A, x, out)


def log2(A: Arith, x):
    """e + (f - c) / ln 2, 1 / ln 2 split in two."""
    e, f, h, s, r = _log_parts(A, x)
    lm = A.sub(f, A.sub(h, A.mul(s, A.add(h, r))))
    hi, lo = A.fmt.log2e
    out = A.fma(lm, A.const(hi), A.fma(lm, A.const(lo), A.from_int(e)))
    return _log_specials(A, x, out)


RECIPES = {"exp": exp, "exp2": exp2, "log": log, "log2": log2}


class Exact:
    """The recipes on Python values: a float already rounded to the format's type, an integer an int."""

    def __init__(self, fmt: Format):
        self.fmt, self.t, self.it = fmt, fmt.t, fmt.it

    def const(self, v):
        return floats.to_type(v, self.t)

    def iconst(self, v):
        return v

    def add(self, a, b):
        return floats.to_type(a + b, self.t)

    def sub(self, a, b):
        return floats.to_type(a - b, self.t)

    def mul(self, a, b):
        return floats.to_type(a * b, self.t)

    def div(self, a, b):
        if b == 0:
            return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1.0, b)
        return floats.to_type(a / b, self.t)

    def fma(self, a, b, c):
        return floats.fma(a, b, c, self.t)

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
        return floats.to_int(a, self.it)

    def from_int(self, i):
        return floats.to_type(i, self.t)

    def bits(self, a):
        return self.it.wrap(floats.bits(a, self.t))

    def from_bits(self, i):
        return floats.from_bits(i, self.t)

    def iadd(self, a, b):
        return self.it.wrap(a + b)

    def isub(self, a, b):
        return self.it.wrap(a - b)

    def ishr(self, a, k):
        return a >> k

    def ishl(self, a, k):
        return self.it.wrap(a << k)

    def iand(self, a, b):
        return a & b

    def ior(self, a, b):
        return self.it.wrap(a | b)


def evaluate(name: str, x: float, t: ScalarType = F32) -> float:
    """The recipe `name` on a value of the float type t, as the host block computes it."""
    return RECIPES[name](Exact(FORMATS[t]), floats.to_type(x, t))
