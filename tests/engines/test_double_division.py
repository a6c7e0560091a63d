"""f64 division and square root on Fermi: correctly rounded, on both engines, bit for bit.

A kernel syncc compiles (`q = a / b`, `s = sqrt(a)`: backends/fermi/emit/float_rounding.py's
binary64 sequences, from MUFU.RCP64H / RSQ64H and DFMA) runs on operands chosen to reach every
path: random bit patterns, values of every magnitude, quotients below the normal range (where
rounding twice goes wrong), dividends built to put the quotient next to a midpoint of the normal
or the subnormal grid, or exactly on one of the subnormal grid (ties to even), squares of
midpoints, subnormal square roots' operands, quotients past the top, and every pair of special
values. Each result must be numpy's (IEEE binary64 division and square root are correctly
rounded), a NaN as 0x7fffffff_ffffffff; the compiled core must write the reference engine's
words in the same cycles. MUFU.RCP64H and RSQ64H are checked against their definition.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import syncc
from syncc.backends.sim import core
from syncc.backends.sim.execute import mufu64h
from syncc.backends.sim.machine import FermiConfig

pytestmark = pytest.mark.skipif(core.load()[0] is None, reason="numba is not installed: no compiled core")

N = 1 << 13
NAN64 = np.uint64(0x7FFFFFFFFFFFFFFF)
SPECIAL = np.array([0, 1 << 63, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000000001,
                    1, (1 << 63) | 1, 0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF,
                    0xFFEFFFFFFFFFFFFF, 0x3FF0000000000000, 0xBFF0000000000000, 0x4000000000000000,
                    0x3FEFFFFFFFFFFFFF, 0x3FFFFFFFFFFFFFFF, 0x4010000000000000, 0x400FFFFFFFFFFFFF,
                    0x3FE0000000000000, 0x0008000000000000], dtype=np.uint64)


def _rn(x: Fraction) -> float:
    """x rounded to binary64 (Python's int / int division rounds correctly, subnormals too)."""
    return x.numerator / x.denominator


def operands(seed: int = 64) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    part = N // 8
    a = rng.integers(0, 1 << 63, N, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, N, dtype=np.uint64)
    b = rng.integers(0, 1 << 63, N, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, N, dtype=np.uint64)
    with np.errstate(all="ignore"):
        for arr in (a, b):                       # values of every magnitude, subnormals among them
            arr[part:2 * part] = (rng.standard_normal(part) * 2.0 ** rng.integers(-1100, 1024, part)).view(np.uint64)
        # quotients below the normal range: small dividends over divisors near 1, and quotients
        # past the top
        a[2 * part:3 * part] = rng.integers(0, 0x0030000000000000, part, dtype=np.uint64)
        b[2 * part:3 * part] = rng.integers(0x3FC0000000000000, 0x4040000000000000, part, dtype=np.uint64)
        a[2 * part:2 * part + 64] = rng.integers(0x7FD0000000000000, 0x7FF0000000000000, 64, dtype=np.uint64)
    # normal quotients within 2^-12 of an ulp of a midpoint: for an odd 53-bit divisor D and a small
    # odd r, X = r / D mod 2^54 makes A = (X D - r) / 2^54 an integer, and A / D = X / 2^54 - r / (2^54 D):
    # a midpoint of the binary64 grid (X odd, 54 bits), missed by less than r / 2^53 of an ulp
    rows = range(3 * part, 4 * part)
    for i in rows:
        while True:
            d = int(rng.integers(1 << 51, 1 << 52)) * 2 + 1
            r = int(rng.integers(-(1 << 39), 1 << 39)) * 2 + 1
            x = r * pow(d, -1, 1 << 54) % (1 << 54)
            if x >> 53:
                break
        shift = int(rng.integers(-400, 400))
        a[i] = np.float64(_rn(Fraction((x * d - r) >> 54) * Fraction(2) ** shift)).view(np.uint64)
        b[i] = np.float64(_rn(Fraction(d) * Fraction(2) ** (shift + int(rng.integers(-60, 60))))).view(np.uint64)
    # subnormal quotients next to a midpoint of the subnormal grid: a = RN(m * b), m an odd multiple
    # of half the spacing there (a second rounding would go wrong)
    for i in range(4 * part, 5 * part):
        divisor = Fraction(float(rng.uniform(1, 2))) * Fraction(2) ** int(rng.integers(-30, 30))
        mid = (2 * int(rng.integers(1 << 52, 1 << 53)) + 1) * Fraction(2) ** int(rng.integers(-1130, -1080))
        a[i] = np.float64(_rn(mid * divisor)).view(np.uint64)
        b[i] = np.float64(float(divisor)).view(np.uint64)
    for i in range(4 * part, 4 * part + part // 4):       # exact subnormal ties: a = (2j + 1) 2^-1075 * b
        divisor = 2 ** int(rng.integers(0, 8))
        j = int(rng.integers(0, 1 << 20))
        a[i] = np.float64(_rn((2 * j + 1) * Fraction(2) ** -1075 * divisor)).view(np.uint64)
        b[i] = np.float64(float(divisor)).view(np.uint64)
    # square roots next to a midpoint: x = RN(m^2), m a 54-bit odd multiple; and subnormal x
    for i in range(5 * part, 6 * part):
        m = (2 * int(rng.integers(1 << 52, 1 << 53)) + 1) * Fraction(2) ** (int(rng.integers(-560, 500)) - 53)
        a[i] = np.float64(_rn(m * m)).view(np.uint64)
    a[6 * part:7 * part] = rng.integers(1, 0x0010000000000000, part, dtype=np.uint64)
    k = len(SPECIAL)
    a[7 * part:7 * part + k * k], b[7 * part:7 * part + k * k] = np.repeat(SPECIAL, k), np.tile(SPECIAL, k)
    # significands at the ends of a binade (where an approximate reciprocal is furthest off)
    edge = slice(7 * part + k * k, N)
    count = N - (7 * part + k * k)
    ends = rng.integers(0, 64, count, dtype=np.uint64) + rng.choice([0, (1 << 52) - 64], count).astype(np.uint64)
    b[edge] = (rng.integers(1, 2047, count, dtype=np.uint64) << np.uint64(52)) + ends \
        + (rng.integers(0, 2, count, dtype=np.uint64) << np.uint64(63))
    return a, b


def bits(x: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(x), NAN64, x.view(np.uint64))


SOURCE = (f"const N = {N}\n"
          "kernel k(a: global f64[N], b: global f64[N], q: global f64[N], s: global f64[N])\n"
          f"    launch grid({N // 128}) block(128)\n"
          "{\n    q[gtid] = a[gtid] / b[gtid]\n    s[gtid] = sqrt(a[gtid])\n}\n")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    path = tmp_path_factory.mktemp("ddiv") / "ddiv.sync"
    path.write_text(SOURCE)
    prog = syncc.compile(str(path), target="fermi-sim")
    a, b = operands()
    out = {}
    for engine in ("reference", "compiled"):
        arrays = {"a": a.view(np.float64).copy(), "b": b.view(np.float64).copy(),
                  "q": np.zeros(N, np.float64), "s": np.zeros(N, np.float64)}
        outcome = prog.k(*arrays.values(), target="fermi-sim", sim_config=FermiConfig(engine=engine))
        assert outcome.stats.engine == engine
        out[engine] = (arrays, outcome)
    return (a, b), out


def _wrong(name, a, b, got, want) -> list[str]:
    bad = np.nonzero(got != want)[0]
    return [f"{name}({a[i]:#018x}, {b[i]:#018x}) = {got[i]:#018x}, want {want[i]:#018x}" for i in bad[:10]] \
        + ([f"... {len(bad)} in all"] if len(bad) > 10 else [])


def test_division_and_square_root_are_correctly_rounded(runs):
    (a, b), out = runs
    with np.errstate(all="ignore"):
        quotient = bits(a.view(np.float64) / b.view(np.float64))
        root = bits(np.sqrt(a.view(np.float64)))
    got = out["reference"][0]
    bad = _wrong("div", a, b, got["q"].view(np.uint64), quotient) \
        + _wrong("sqrt", a, a, got["s"].view(np.uint64), root)
    assert not bad, "; ".join(bad)


def test_the_compiled_core_writes_the_same_words_in_the_same_cycles(runs):
    _, out = runs
    (ref, r), (comp, c) = out["reference"], out["compiled"]
    for name in ("q", "s"):
        np.testing.assert_array_equal(comp[name].view(np.uint64), ref[name].view(np.uint64))
    assert (r.cycles, r.warp_instructions, r.stats.stalls) == (c.cycles, c.warp_instructions, c.stats.stalls)


def test_the_operands_reach_the_hard_cases():
    """Subnormal quotients, exact subnormal ties, and quotients within a hundredth of an ulp of a
    midpoint, are there."""
    a, b = operands()
    x, y = a.view(np.float64), b.view(np.float64)
    with np.errstate(all="ignore"):
        q = x / y
    subnormal = (np.abs(q) < 2.0 ** -1022) & (q != 0)
    assert subnormal.sum() > 500
    near = 0
    ties = 0
    for i in range(3 * N // 8, 5 * N // 8):
        exact = Fraction(float(x[i])) / Fraction(float(y[i]))
        grid = Fraction(2) ** (max(math.frexp(float(q[i]))[1] - 53, -1074))
        offset = (exact / grid) % 1
        near += abs(offset - Fraction(1, 2)) < Fraction(1, 100)
        ties += offset == Fraction(1, 2)
    assert near > N // 16 and ties > N // 64


def test_mufu_64h_gives_its_definition():
    """MUFU.RCP64H / RSQ64H: the high word of binary64's 1/v and 1/sqrt(v), v from the high word."""
    rng = np.random.default_rng(5)
    words = np.concatenate([rng.integers(0, 1 << 32, 4000, dtype=np.uint64).astype(np.uint32),
                            np.array([0, 0x80000000, 0x7FF00000, 0xFFF00000, 0x7FF80000, 0x000FFFFF, 0x3FF00000,
                                      0x80000001], dtype=np.uint32)])
    for fn in ("RCP64H", "RSQ64H"):
        got = mufu64h(fn, words)
        for w, g in zip(words.tolist(), got.tolist()):
            sign, mag = w >> 31, w & 0x7FFFFFFF
            v = float(np.array([mag << 32], dtype=np.uint64).view(np.float64)[0])
            if mag > 0x7FF00000:
                want = 0x7FFFFFFF
            elif mag < 0x00100000:
                want = (sign << 31) | 0x7FF00000
            elif fn == "RSQ64H" and sign:
                want = 0x7FFFFFFF
            elif math.isinf(v):
                want = sign << 31
            else:
                r = _rn(1 / Fraction(v)) if fn == "RCP64H" else 1 / math.sqrt(v)
                want = (sign << 31) | (int(np.array([r]).view(np.uint64)[0]) >> 32)
            assert g == want, (fn, hex(w), hex(g), hex(want))
