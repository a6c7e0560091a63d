"""Correctly rounded f32 division and square root on Fermi, which has neither instruction.

Guarantee: `divide_f32` and `sqrt_f32` emit straight-line SASS (no branch: selection keeps an IR
instruction within its block) whose result is IEEE 754's, rounded to nearest even, for every
pair of words: subnormal operands and results, zeros, infinities and NaN (written as 0x7fffffff,
as every float instruction writes it). The approximation comes from MUFU (RCP, RSQ: within one
ulp, subnormals flushed; docs/fermi.md, "MUFU"), refined by Newton-Raphson steps in FFMA; then an
exact test picks the rounded result among the three neighbours of the refined value, and integer
code places it in the result's exponent (and, for a subnormal quotient, rounds it once more,
from the exact remainder's sign). The argument, step by step, is in docs/fermi.md, "Division and
square root".

Division a / b, finite nonzero operands: a = A * 2^ea, b = B * 2^eb with A, B in [1, 2) (a
subnormal is first scaled by 2^24, exactly). t = A / B lies in (1/2, 2).
  * y = Newton(RCP(B)); q0 = A * y; q1 = q0 + (A - B * q0) * y is within one ulp of t;
  * r = A - B * q1 (one FFMA) is exact there, so sign(r - B * u/2) says exactly whether t is above
    the midpoint q1 + u/2 (u = ulp(q1)), and sign(r + B * d/2) whether it is below q1 - d/2 (d the
    spacing below q1): q = RN(t) is q1, its successor or its predecessor (bit patterns +-1);
  * a normal result is q with eb - ea added to its exponent; one past the top is infinity; a
    subnormal one is q's 24-bit significand M shifted right by s, rounded from the bits shifted
    out and, at exactly half, from the sign of the exact remainder A - B * q (zero: to even).
Square root of a positive finite x: x = X * 2^(2k), X in [1, 4); q1 = X * RSQ(X) refined once
(q + (X - q * q) / (2 sqrt X)) is within one ulp of sqrt(X); whether sqrt(X) is above or below
the midpoints q1 +- 2^-24 is a comparison of 64-bit integers (X * 2^48 against (2M +- 1)^2, M
q1's significand), exact; the result is normal: q with k added to its exponent.
"""
from __future__ import annotations

from ..isa import PT, RZ, Pred, SassImm, SassReg
from .mcode import Use

ONE, HALF, TWO24 = 0x3F800000, 0x3F000000, 0x4B800000        # 1.0, 0.5, 2^24 as words
INF, NAN = 0x7F800000, 0x7FFFFFFF


class _Code:
    """Unguarded temporaries of one routine (pure: selection shares and moves them freely)."""

    def __init__(self, sel):
        self.sel = sel

    def r(self, name: str, *ops) -> Use:
        sel = self.sel
        return Use(sel.result(sel.emit(name, Use(sel.temp()), *ops, guard=None)))

    def p(self, name: str, a, b, c=Pred(PT)) -> Use:
        """A predicate: `name` (ISETP/FSETP/PSETP.cmp.bool) of a and b, combined with c."""
        sel = self.sel
        return Use(sel.result(sel.emit(name, Use(sel.temp("p")), Pred(PT), a, b, c, guard=None)))

    def k(self, v: int):
        """A constant as an operand: RZ, a 20-bit immediate, or a register (MOV32I)."""
        v &= 0xFFFFFFFF
        if v == 0:
            return SassReg(RZ)
        signed = v - (1 << 32) if v >> 31 else v
        if -(1 << 19) <= signed < (1 << 19):
            return SassImm(signed)
        return self.r("MOV32I", SassImm(v))

    def reg(self, v: int) -> Use | SassReg:
        """A constant in a register."""
        o = self.k(v)
        return self.r("MOV", o) if isinstance(o, SassImm) else o

    def sel_(self, x, y, p) -> Use:
        """p ? x : y (SEL's first source is a register)."""
        return self.r("SEL", self.r("MOV", x) if isinstance(x, SassImm) else x, y, p)


def _neg(u: Use) -> Use:
    return Use(u.v, neg=not u.neg)


def _scaled(c: _Code, mag: Use) -> tuple[Use, Use]:
    """A positive finite nonzero value's significand as a float in [1, 2), and its biased exponent
    (a subnormal's below 1: scaled by 2^24 first, exactly)."""
    sub = c.p("ISETP.LT.U32.AND", mag, c.k(0x00800000))
    normal = c.r("FMUL", mag, c.sel_(c.reg(TWO24), c.reg(ONE), sub))
    exp = c.r("IADD", c.r("SHR.U32", normal, SassImm(23)), _neg(c.sel_(c.reg(24), SassReg(RZ), sub)))
    sig = c.r("LOP32I.OR", c.r("LOP32I.AND", normal, SassImm(0x7FFFFF)), SassImm(ONE))
    return sig, exp


def _special(c: _Code, mag: Use) -> Use:
    """True where the word is a zero, an infinity or a NaN."""
    return c.p("ISETP.GE.U32.AND", c.r("IADD32I", mag, SassImm(-1)), c.k(0x7F7FFFFF))


def divide_f32(sel, dest: Use, a, b) -> None:
    """dest = a / b, correctly rounded (a and b registers holding binary32 words)."""
    c = _Code(sel)
    amag, bmag = c.r("LOP32I.AND", a, SassImm(0x7FFFFFFF)), c.r("LOP32I.AND", b, SassImm(0x7FFFFFFF))
    sign = c.r("LOP32I.AND", c.r("LOP.XOR", a, b), SassImm(0x80000000))
    # a zero, infinity or NaN operand: a * (1/b exactly for b in {0, inf, NaN}, else +-1)
    b_special = _special(c, bmag)
    unit = c.r("LOP32I.OR", c.r("LOP32I.AND", b, SassImm(0x80000000)), SassImm(ONE))
    special = c.r("FMUL", a, c.sel_(c.r("MUFU.RCP", b), unit, b_special))
    either = c.p("PSETP.OR.AND", _special(c, amag), b_special)     # the one predicate live to the end
    # finite nonzero operands: t = A / B in (1/2, 2)
    sig_a, exp_a = _scaled(c, amag)
    sig_b, exp_b = _scaled(c, bmag)
    y0 = c.r("MUFU.RCP", sig_b)
    y = c.r("FFMA", y0, c.r("FFMA", _neg(sig_b), y0, c.reg(ONE)), y0)
    q0 = c.r("FMUL", sig_a, y)
    q1 = c.r("FFMA", c.r("FFMA", _neg(sig_b), q0, sig_a), y, q0)
    r1 = c.r("FFMA", _neg(sig_b), q1, sig_a)                          # exact
    half_up = c.r("IADD32I", c.r("LOP32I.AND", q1, SassImm(0x7F800000)), SassImm(-(24 << 23)))
    power_of_two = c.p("ISETP.EQ.AND", c.r("LOP32I.AND", q1, SassImm(0x7FFFFF)), SassReg(RZ))
    half_down = c.sel_(c.r("IADD32I", half_up, SassImm(-(1 << 23))), half_up, power_of_two)
    up = c.p("FSETP.GT.AND", c.r("FFMA", _neg(sig_b), half_up, r1), SassReg(RZ))
    down = c.p("FSETP.LT.AND", c.r("FFMA", sig_b, half_down, r1), SassReg(RZ))
    q = c.r("IADD", q1, c.sel_(c.k(1), c.sel_(c.k(-1), SassReg(RZ), down), up))
    rem = c.r("FFMA", _neg(sig_b), q, sig_a)                          # exact: sign(t - q)
    shift = c.r("IADD", exp_a, _neg(exp_b))
    exp = c.r("IADD", c.r("SHR.U32", q, SassImm(23)), shift)          # the result's biased exponent
    normal = c.r("IADD", q, c.r("SHL", shift, SassImm(23)))
    # a subnormal result: M >> s, s = 1 - exp, rounded once from the bits shifted out
    s = c.r("IMNMX", c.r("IADD32I", c.r("IADD", SassReg(RZ), _neg(exp)), SassImm(1)), c.k(31), Pred(PT))
    m = c.r("LOP32I.OR", c.r("LOP32I.AND", q, SassImm(0x7FFFFF)), SassImm(0x800000))
    kept = c.r("SHR.U32", m, s)
    bit = c.r("SHL", c.reg(1), s)
    half = c.r("SHR.U32", bit, SassImm(1))
    out = c.r("LOP.AND", m, c.r("IADD32I", bit, SassImm(-1)))
    odd = c.p("ISETP.NE.AND", c.r("LOP32I.AND", kept, SassImm(1)), SassReg(RZ))
    exact_odd = c.p("FSETP.EQ.AND", rem, SassReg(RZ), odd)
    tie_up = c.p("FSETP.GT.OR", rem, SassReg(RZ), exact_odd)
    at_half = c.p("ISETP.EQ.AND", out, half, tie_up)
    round_up = c.p("ISETP.GT.U32.OR", out, half, at_half)
    subnormal = c.r("IADD", kept, c.sel_(c.k(1), SassReg(RZ), round_up))
    word = c.sel_(subnormal, normal, c.p("ISETP.LT.AND", exp, c.k(1)))
    word = c.sel_(c.k(INF), word, c.p("ISETP.GT.AND", exp, c.k(254)))
    finite = c.r("LOP.OR", word, sign)
    sel.emit("SEL", dest, special, finite, either)


def sqrt_f32(sel, dest: Use, x) -> None:
    """dest = sqrt(x), correctly rounded (x a register holding a binary32 word)."""
    c = _Code(sel)
    # +-0, +inf and NaN: x + x (a NaN as 0x7fffffff); below zero: NaN
    special = c.sel_(c.k(NAN), c.r("FADD", x, x), c.p("ISETP.GT.U32.AND", x, c.k(0x80000000)))
    # positive finite x = X * 2^(2k), X in [1, 4)
    sig, exp = _scaled(c, x)
    unbiased = c.r("IADD32I", exp, SassImm(-127))
    odd = c.r("LOP32I.AND", unbiased, SassImm(1))
    k = c.r("SHR", c.r("IADD", unbiased, _neg(odd)), SassImm(1))
    big = c.r("IADD", sig, c.r("SHL", odd, SassImm(23)))              # X: the exponent + 1 for odd
    y = c.r("MUFU.RSQ", big)
    q0 = c.r("FMUL", big, y)
    q1 = c.r("FFMA", c.r("FFMA", _neg(q0), q0, big), c.r("FMUL", y, c.reg(HALF)), q0)
    # X * 2^48 = N * 2^(25 + odd), N = X's 24-bit significand, against (2M +- 1)^2, q1 = M * 2^-23
    n = c.r("LOP32I.OR", c.r("LOP32I.AND", big, SassImm(0x7FFFFF)), SassImm(0x800000))
    hi = c.r("SHR.U32", n, c.r("IADD", _neg(odd), c.k(7)))
    lo = c.r("SHL", n, c.r("IADD32I", odd, SassImm(25)))
    twice = c.r("SHL", c.r("IADD32I", q1, SassImm(-0x3F000000)), SassImm(1))   # 2M

    def above(value_hi, value_lo, side: int) -> Use:
        """value > (2M + side)^2, as unsigned 64-bit integers."""
        odd_m = c.r("IADD32I", twice, SassImm(side))
        sq_hi = c.r("IMUL.U32.U32.HI", odd_m, odd_m)
        sq_lo = c.r("IMUL.U32.U32", odd_m, odd_m)
        low_gt = c.p("ISETP.GT.U32.AND", value_lo, sq_lo)
        same_hi_low_gt = c.p("ISETP.EQ.AND", value_hi, sq_hi, low_gt)
        return c.p("ISETP.GT.U32.OR", value_hi, sq_hi, same_hi_low_gt)

    def below(value_hi, value_lo, side: int) -> Use:
        """value < (2M + side)^2, as unsigned 64-bit integers."""
        odd_m = c.r("IADD32I", twice, SassImm(side))
        sq_hi = c.r("IMUL.U32.U32.HI", odd_m, odd_m)
        sq_lo = c.r("IMUL.U32.U32", odd_m, odd_m)
        low_lt = c.p("ISETP.LT.U32.AND", value_lo, sq_lo)
        same_hi_low_lt = c.p("ISETP.EQ.AND", value_hi, sq_hi, low_lt)
        return c.p("ISETP.LT.U32.OR", value_hi, sq_hi, same_hi_low_lt)

    up, down = above(hi, lo, 1), below(hi, lo, -1)
    q = c.r("IADD", q1, c.sel_(c.k(1), c.sel_(c.k(-1), SassReg(RZ), down), up))
    finite = c.r("IADD", q, c.r("SHL", k, SassImm(23)))
    sel.emit("SEL", dest, special, finite, c.p("ISETP.GE.U32.AND", c.r("IADD32I", x, SassImm(-1)), c.k(0x7F7FFFFF)))
