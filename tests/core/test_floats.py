"""core/floats.py rounds exact values to f32 and f64 as IEEE's round-to-nearest-even does,
settling the ties that a first rounding to binary64 would get wrong; numpy is the reference."""
import math
import random
from fractions import Fraction

import numpy as np
import pytest

from syncc.core import floats
from syncc.core.types import F32, F64, I32, I64, U32
from syncc.ir.fold import fold


def _nearest_f32(q: Fraction) -> float:
    """The reference: the binary32 nearest q, by comparing q with its two neighbours exactly."""
    near = np.float32(float(q))
    best = None
    for c in (np.nextafter(near, np.float32(-np.inf)), near, np.nextafter(near, np.float32(np.inf))):
        if not np.isfinite(c):
            continue
        d = abs(q - Fraction(float(c)))
        key = (d, int(np.array(c).view(np.uint32)) & 1)
        if best is None or key < best[0]:
            best = (key, float(c))
    return best[1]


def test_rounding_to_f32_settles_ties_against_the_exact_value():
    rng = random.Random(5)
    cases = []
    for _ in range(4000):
        f = np.float32(rng.uniform(-1e6, 1e6))
        g = np.nextafter(f, np.float32(np.inf))
        mid = (Fraction(float(f)) + Fraction(float(g))) / 2
        cases += [mid, mid + Fraction(1, 2 ** 200), mid - Fraction(1, 2 ** 200)]
        cases.append(Fraction(rng.randrange(-2 ** 80, 2 ** 80), rng.randrange(1, 2 ** 60)))
    for q in cases:
        assert floats.to_type(q, F32) == _nearest_f32(q), q


def test_integers_round_once_to_f32():
    """2^24 + 1 is a tie (goes to even, down); 2^60 + 2^36 + 1 is just above a tie, which a first
    rounding to binary64 (dropping the +1) would turn into one."""
    assert floats.to_type(2 ** 24 + 1, F32) == 2 ** 24
    assert floats.to_type(2 ** 24 + 3, F32) == 2 ** 24 + 4
    assert floats.to_type(2 ** 60 + 2 ** 36 + 1, F32) == 2 ** 60 + 2 ** 37


@pytest.mark.parametrize("value, t, want", [
    (Fraction(1, 3), F64, 1 / 3), (2 ** 1024, F64, math.inf), (-(2 ** 128), F32, -math.inf),
    (Fraction(1, 2 ** 160), F32, 0.0), (1e-45, F32, float(np.float32(1e-45))), (3.4028235e38, F32, 3.4028234663852886e38),
])
def test_to_type(value, t, want):
    assert floats.to_type(value, t) == want


@pytest.mark.parametrize("x, t, want", [
    (-2.7, I32, -2), (2.7, I32, 2), (-1.5, U32, 0), (1e20, I32, 2 ** 31 - 1), (-1e20, I64, -2 ** 63),
    (math.nan, I32, 0), (math.inf, U32, 2 ** 32 - 1), (-math.inf, I32, -2 ** 31), (Fraction(-7, 2), I32, -3),
])
def test_to_int_truncates_and_saturates(x, t, want):
    assert floats.to_int(x, t) == want


def test_fma_rounds_once():
    a, b, c = 0.1, 10.0, -1.0
    assert floats.fma(a, b, c, F64) == float(Fraction(0.1) * 10 - 1)
    assert floats.fma(a, b, c, F64) != a * b + c
    x = floats.to_type(Fraction(1, 3), F32)
    assert floats.fma(x, 3.0, -1.0, F32) == floats.to_type(Fraction(x) * 3 - 1, F32)


def test_min_and_max_lose_a_nan_and_order_zeros():
    assert floats.fmin(math.nan, 1.0) == 1.0 and floats.fmax(2.0, math.nan) == 2.0
    assert math.copysign(1, floats.fmin(0.0, -0.0)) < 0 and math.copysign(1, floats.fmax(-0.0, 0.0)) > 0


def test_text_reads_back():
    for v in (0.1, -0.0, 5e-324, 1e300, floats.to_type(Fraction(1, 3), F32)):
        assert float(floats.text(v)) == v
    assert floats.text(math.inf) == "+inf" and floats.text(-math.inf) == "-inf" and floats.text(math.nan) == "+nan"


@pytest.mark.parametrize("op, x, want", [
    ("floor", -0.0, -0.0), ("floor", 0.5, 0.0), ("floor", -0.5, -1.0), ("ceil", -0.5, -0.0), ("ceil", -0.0, -0.0),
    ("ceil", 0.25, 1.0), ("trunc", -0.75, -0.0), ("trunc", 0.75, 0.0), ("trunc", -2.5, -2.0)])
def test_rounding_to_an_integral_value_keeps_the_sign_of_a_zero(op, x, want):
    """IEEE roundToIntegral (and the GPU's cvt.rmi/rpi/rzi, Fermi's F2F): a zero result has the
    operand's sign, which Python's math.floor (an int) loses; the host block and folding share this."""
    got = fold(op, F32, [x])
    assert got == want and math.copysign(1, got) == math.copysign(1, want)
