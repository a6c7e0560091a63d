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


# ---- binary64: the same argument on register pairs ------------------------------------------------
#
# Division a / b, finite nonzero operands: a = A * 2^ea, b = B * 2^eb, A, B in [1, 2) (a subnormal
# scaled by 2^54 first), t = A / B in (1/2, 2), the result t * 2^E, E = ea - eb (clamped to
# [-1080, 1030]: beyond, the result is a zero or an infinity either way).
#   * y = two Newton steps from MUFU.RCP64H(B) (20 bits, then 40, then binary64's precision);
#     q0 = A * y; q1 = q0 + (A - B * q0) * y is within an ulp of t;
#   * the quantum w of the result, in t's units: ulp(q1), or, for a subnormal result, the
#     subnormals' spacing 2^(-1074 - E), when that is larger (then q1 is rounded to a multiple of it,
#     (q1 + 2^52 w) - 2^52 w); c, the candidate, is within w + ulp(q1) of t, so RN(t) is c, c + w or
#     c - w' (w' the spacing below c);
#   * the signs of r1 - B * w/2 and r1 + B * w'/2, r1 = A - B * c (one DFMA each), say whether t lies
#     above c + w/2 or below c - w'/2; each is exact where it is near zero, and its rounding keeps the
#     sign elsewhere. A quotient exactly at a midpoint (possible only below the normal range) goes to
#     the candidate that is an even multiple of w;
#   * the result is the chosen q times 2^E, as two exact DMULs by powers of two (or an infinity).
# Square root of a positive finite x = X * 2^(2k), X in [1, 4): y = two Newton steps from
# MUFU.RSQ64H(X); q1 = q0 + (X - q0^2) * y / 2, q0 = X * y; the signs of X - (q1 + w/2)^2 and
# X - (q1 - w'/2)^2 (three DFMAs each, exact near zero) pick q1, its successor or its predecessor;
# the result, always normal, is q times 2^k.

ONE64_HI, TWO54_HI, HALF64_HI = 0x3FF00000, 0x43500000, 0x3FE00000   # high words of 1.0, 2^54, 0.5
EXP64 = 0x7FF00000


class _Pairs:
    """Register pairs for a routine: unguarded temporaries, their words, choices between them."""

    def __init__(self, c: _Code):
        self.c, self.sel = c, c.sel

    def d(self, name: str, *ops) -> Use:
        """A D instruction (or F2F into a pair) into a fresh pair."""
        sel = self.sel
        return Use(sel.result(sel.emit(name, Use(sel.temp("d")), *ops, guard=None)))

    def pair(self, lo, hi) -> Use:
        """A fresh pair from two words (registers, RZ)."""
        sel = self.sel
        t = sel.temp("d")
        sel.pair_from(t, lo, hi, guard=None)
        return Use(t)

    def lo(self, x):
        return x if isinstance(x, SassReg) else Use(x.v, half=0)

    def hi(self, x):
        return x if isinstance(x, SassReg) else Use(x.v, half=1)

    def power(self, hi_word) -> Use:
        """The pair of a power of two (or any value whose low word is zero) from its high word."""
        return self.pair(SassReg(RZ), hi_word)

    def const_hi(self, hi: int) -> Use:
        return self.power(self.c.reg(hi))

    def choose(self, x, y, p) -> Use:
        """p ? x : y, a word at a time."""
        sel = self.sel
        t = sel.temp("d")
        sel.emit("SEL", Use(t, half=0), self.lo(x), self.lo(y), p, guard=None)
        sel.emit("SEL", Use(t, half=1), self.hi(x), self.hi(y), p, guard=None)
        sel.mark_pair_definition(sel.out[-2:], t)
        return Use(t)

    def negated(self, x) -> Use:
        return self.pair(self.lo(x), self.c.r("LOP32I.XOR", self.hi(x), SassImm(0x80000000)))

    def ulp(self, x, power_below: bool = False) -> Use:
        """ulp(x) for a positive normal x (its exponent less 52), or with power_below the spacing just
        below x (half that when x is a power of two)."""
        c = self.c
        hi = c.r("IADD32I", c.r("LOP32I.AND", self.hi(x), SassImm(EXP64)), SassImm(-(52 << 20)))
        if power_below:
            mantissa = c.r("LOP.OR", c.r("LOP32I.AND", self.hi(x), SassImm(0xFFFFF)), self.lo(x))
            power = c.p("ISETP.EQ.AND", mantissa, SassReg(RZ))
            hi = c.sel_(c.r("IADD32I", hi, SassImm(-(1 << 20))), hi, power)
        return self.power(hi)

    def half(self, w) -> Use:
        """w / 2 for a power of two w (its high word less one exponent step)."""
        return self.power(self.c.r("IADD32I", self.hi(w), SassImm(-(1 << 20))))


def _scaled64(c: _Code, p: _Pairs, x) -> tuple[Use, Use]:
    """A positive finite nonzero binary64's significand in [1, 2), and its biased exponent (a
    subnormal's below 1: scaled by 2^54 first, exactly)."""
    mag_hi = c.r("LOP32I.AND", p.hi(x), SassImm(0x7FFFFFFF))
    sub = c.p("ISETP.LT.U32.AND", mag_hi, c.k(0x00100000))
    scale = p.power(c.sel_(c.reg(TWO54_HI), c.reg(ONE64_HI), sub))
    normal = p.d("DMUL", p.pair(p.lo(x), mag_hi), scale)
    exp = c.r("IADD", c.r("SHR.U32", p.hi(normal), SassImm(20)), _neg(c.sel_(c.reg(54), SassReg(RZ), sub)))
    sig = p.pair(p.lo(normal), c.r("LOP32I.OR", c.r("LOP32I.AND", p.hi(normal), SassImm(0xFFFFF)),
                                   SassImm(ONE64_HI)))
    return sig, exp


def _special64(c: _Code, p: _Pairs, x):
    """True where the pair is a zero, an infinity or a NaN."""
    mag_hi = c.r("LOP32I.AND", p.hi(x), SassImm(0x7FFFFFFF))
    top = c.p("ISETP.GE.U32.AND", mag_hi, c.k(EXP64))
    return c.p("ISETP.EQ.OR", c.r("LOP.OR", mag_hi, p.lo(x)), SassReg(RZ), top)       # zero, or top


def _odd_multiple(c: _Code, p: _Pairs, x, w):
    """x / w is odd (x a multiple of the power of two w): x * (1/2w) is not an integer."""
    inverse_half = p.power(c.r("IADD", c.reg(2045 << 20), _neg(c.r("LOP32I.AND", p.hi(w), SassImm(EXP64)))))
    h = p.d("DMUL", x, inverse_half)
    return c.p("DSETP.NEU.AND", h, p.d("F2F.F64.F64.FLOOR", h), Pred(PT))


def divide_f64(sel, dest: Use, a, b) -> None:
    """dest = a / b, correctly rounded (a, b and dest register pairs holding binary64 values)."""
    c = _Code(sel)
    p = _Pairs(c)
    if isinstance(a, SassReg) or isinstance(b, SassReg):       # +0.0 as RZ: a pair of zero words
        a, b = (p.pair(SassReg(RZ), SassReg(RZ)) if isinstance(x, SassReg) else x for x in (a, b))
    sign = c.r("LOP32I.AND", c.r("LOP.XOR", p.hi(a), p.hi(b)), SassImm(0x80000000))
    # a zero, infinity or NaN operand: a * (1/b exactly for b in {0, inf, NaN}, else +-1)
    b_special = _special64(c, p, b)
    unit = p.power(c.r("LOP32I.OR", c.r("LOP32I.AND", p.hi(b), SassImm(0x80000000)), SassImm(ONE64_HI)))
    special = p.d("DMUL", a, p.choose(p.power(c.r("MUFU.RCP64H", p.hi(b))), unit, b_special))
    either = c.p("PSETP.OR.AND", _special64(c, p, a), b_special)
    # finite nonzero operands: t = A / B in (1/2, 2), the result t * 2^E
    sig_a, exp_a = _scaled64(c, p, a)
    sig_b, exp_b = _scaled64(c, p, b)
    shift = c.r("IADD", exp_a, _neg(exp_b))
    shift = c.r("IMNMX", c.r("IMNMX", shift, c.k(-1080), Pred(PT, neg=True)), c.k(1030), Pred(PT))
    one = p.const_hi(ONE64_HI)
    y = p.power(c.r("MUFU.RCP64H", p.hi(sig_b)))
    for _ in range(2):
        y = p.d("DFMA", y, p.d("DFMA", _neg(sig_b), y, one), y)
    q0 = p.d("DMUL", sig_a, y)
    q1 = p.d("DFMA", p.d("DFMA", _neg(sig_b), q0, sig_a), y, q0)
    # the quantum: ulp(q1), or the subnormals' spacing 2^(-1074 - E) in t's units when larger
    spacing_exp = c.r("IMNMX", c.r("IADD", c.reg(-51), _neg(shift)), c.k(1), Pred(PT, neg=True))
    spacing = p.power(c.r("SHL", spacing_exp, SassImm(20)))
    ulp_q1 = p.ulp(q1)
    w0 = p.d("DMNMX", ulp_q1, spacing, Pred(PT, neg=True))
    big = p.power(c.r("IADD32I", p.hi(w0), SassImm(52 << 20)))                        # 2^52 * w0
    coarse = c.p("DSETP.GT.AND", w0, ulp_q1)
    cand = p.choose(p.d("DADD", p.d("DADD", q1, big), _neg(big)), q1, coarse)
    w = p.d("DMNMX", p.ulp(cand), spacing, Pred(PT, neg=True))
    w_below = p.d("DMNMX", p.ulp(cand, power_below=True), spacing, Pred(PT, neg=True))
    r1 = p.d("DFMA", _neg(sig_b), cand, sig_a)
    above = p.d("DFMA", _neg(sig_b), p.half(w), r1)                                 # sign(t - (c + w/2))
    below = p.d("DFMA", sig_b, p.half(w_below), r1)                                # sign(t - (c - w'/2))
    odd = _odd_multiple(c, p, cand, w)
    zero = SassReg(RZ)                                                             # +0.0 as a pair
    up = c.p("DSETP.GT.OR", above, zero, c.p("DSETP.EQ.AND", above, zero, odd))
    down = c.p("DSETP.LT.OR", below, zero, c.p("DSETP.EQ.AND", below, zero, odd))
    q = p.d("DADD", cand, p.choose(w, p.choose(p.negated(w_below), zero, down), up))
    # q * 2^E: two exact steps (2^(E/2) and the rest), an infinity past the top
    first = c.r("SHR", shift, SassImm(1))
    second = c.r("IADD", shift, _neg(first))
    scaled = p.d("DMUL", p.d("DMUL", q, p.power(c.r("SHL", c.r("IADD32I", first, SassImm(1023)), SassImm(20)))),
                 p.power(c.r("SHL", c.r("IADD32I", second, SassImm(1023)), SassImm(20))))
    finite = p.pair(p.lo(scaled), c.r("LOP.OR", p.hi(scaled), sign))
    _choose_into(sel, dest, special, finite, either)


def sqrt_f64(sel, dest: Use, x) -> None:
    """dest = sqrt(x), correctly rounded (x and dest register pairs holding binary64 values)."""
    c = _Code(sel)
    p = _Pairs(c)
    if isinstance(x, SassReg):
        x = p.pair(SassReg(RZ), SassReg(RZ))
    zero = SassReg(RZ)                                                             # +0.0 as a pair
    # +-0, +inf and NaN: x + x; below zero: NaN
    special = p.choose(p.pair(c.reg(0xFFFFFFFF), c.reg(0x7FFFFFFF)), p.d("DADD", x, x),
                       c.p("DSETP.LT.AND", x, zero))
    finite = c.p("ISETP.LT.U32.AND", p.hi(x), c.k(EXP64), c.p("DSETP.GT.AND", x, zero))
    # positive finite x = X * 2^(2k), X in [1, 4)
    sig, exp = _scaled64(c, p, x)
    unbiased = c.r("IADD32I", exp, SassImm(-1023))
    odd = c.r("LOP32I.AND", unbiased, SassImm(1))
    k = c.r("SHR", c.r("IADD", unbiased, _neg(odd)), SassImm(1))
    big = p.pair(p.lo(sig), c.r("IADD", p.hi(sig), c.r("SHL", odd, SassImm(20))))    # X
    one, half = p.const_hi(ONE64_HI), p.const_hi(HALF64_HI)
    y = p.power(c.r("MUFU.RSQ64H", p.hi(big)))
    for _ in range(2):
        y = p.d("DFMA", p.d("DMUL", y, half), p.d("DFMA", _neg(big), p.d("DMUL", y, y), one), y)
    q0 = p.d("DMUL", big, y)
    q1 = p.d("DFMA", p.d("DFMA", _neg(q0), q0, big), p.d("DMUL", y, half), q0)
    w, w_below = p.ulp(q1), p.ulp(q1, power_below=True)
    hw, hwb = p.half(w), p.half(w_below)
    r1 = p.d("DFMA", _neg(q1), q1, big)                                             # X - q1^2
    above = p.d("DFMA", _neg(hw), hw, p.d("DFMA", _neg(q1), w, r1))               # X - (q1 + w/2)^2
    below = p.d("DFMA", _neg(hwb), hwb, p.d("DFMA", q1, w_below, r1))             # X - (q1 - w'/2)^2
    up = c.p("DSETP.GT.AND", above, zero)
    down = c.p("DSETP.LT.AND", below, zero)
    q = p.d("DADD", q1, p.choose(w, p.choose(p.negated(w_below), zero, down), up))
    root = p.pair(p.lo(q), c.r("IADD", p.hi(q), c.r("SHL", k, SassImm(20))))
    _choose_into(sel, dest, root, special, finite)


def _choose_into(sel, dest: Use, x: Use, y: Use, p) -> None:
    """dest = p ? x : y, a word at a time (guarded as the IR instruction is)."""
    sel.emit("SEL", Use(dest.v, half=0), Use(x.v, half=0), Use(y.v, half=0), p)
    sel.emit("SEL", Use(dest.v, half=1), Use(x.v, half=1), Use(y.v, half=1), p)
    sel.mark_pair_definition(sel.out[-2:], dest.v)
