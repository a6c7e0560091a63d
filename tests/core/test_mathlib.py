"""exp, exp2, log and log2 of f32 and f64 (core/mathlib.py): within 1 ulp of the correctly rounded
value (for f32 numpy's float64 function rounded to f32 is the reference, for f64 Python's decimal
at 40 digits), exact at the special values, and the same recipe as IR: lowering emits the
operations the host block runs."""
import decimal
import math
from fractions import Fraction

import numpy as np
import pytest

from helpers import mathlib_inputs
from syncc.core import mathlib
from syncc.core.types import F64

RNG = np.random.default_rng(7)
DOMAINS = {
    "exp": np.concatenate([RNG.uniform(-104, 89, 1500), RNG.uniform(-1, 1, 500)]),
    "exp2": np.concatenate([RNG.uniform(-151, 129, 1500), RNG.uniform(-1, 1, 500)]),
    "log": np.concatenate([np.abs(RNG.integers(1, 0x7F800000, 1500).astype(np.uint32).view(np.float32)),
                           1 + RNG.uniform(-0.3, 0.42, 500)]),
}
DOMAINS["log2"] = DOMAINS["log"]
REFERENCE = {"exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2}


def _ordered(v: np.ndarray) -> np.ndarray:
    """f32 values as integers in their order, so a difference counts the f32 values between."""
    b = np.asarray(v, np.float32).view(np.int32).astype(np.int64)
    return np.where(b < 0, -(b & 0x7FFFFFFF), b)


@pytest.mark.parametrize("name", list(REFERENCE))
def test_within_one_ulp_of_the_correctly_rounded_value(name):
    xs = DOMAINS[name].astype(np.float32)
    got = np.array([mathlib.evaluate(name, float(x)) for x in xs], np.float32)
    with np.errstate(over="ignore", divide="ignore"):
        want = REFERENCE[name](xs.astype(np.float64)).astype(np.float32)
    error = np.abs(_ordered(got) - _ordered(want))
    assert error.max() <= 1, (name, xs[error.argmax()], got[error.argmax()], want[error.argmax()])


def _decimal_reference(name: str, x: float) -> float:
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        d = decimal.Decimal(x)
        if name in ("exp", "exp2"):
            v = (d * decimal.Decimal(2).ln() if name == "exp2" else d).exp()
        else:
            v = d.ln() / (decimal.Decimal(2).ln() if name == "log2" else 1)
        try:
            return float(Fraction(v))
        except OverflowError:
            return math.inf


@pytest.mark.parametrize("name", list(REFERENCE))
def test_f64_within_one_ulp_of_the_correctly_rounded_value(name):
    xs = mathlib_inputs(name)
    got = np.array([mathlib.evaluate(name, float(x), F64) for x in xs])
    want = np.array([_decimal_reference(name, float(x)) for x in xs])
    b = lambda v: np.where(v.view(np.int64) < 0, -(v.view(np.int64) & 0x7FFFFFFFFFFFFFFF), v.view(np.int64))
    error = np.abs(b(got).astype(object) - b(want).astype(object))
    assert max(error) <= 1, (name, xs[np.argmax(error)])


@pytest.mark.parametrize("name, x, want", [
    ("exp", 0.0, 1.0), ("exp", -0.0, 1.0), ("exp", math.inf, math.inf), ("exp", -math.inf, 0.0),
    ("exp", 89.0, math.inf), ("exp", -104.0, 0.0), ("exp", 1.0, float(np.float32(math.e))),
    ("exp2", 10.0, 1024.0), ("exp2", -149.0, 2.0 ** -149), ("exp2", 128.0, math.inf), ("exp2", -0.5, float(np.float32(2 ** -0.5))),
    ("log", 1.0, 0.0), ("log", 0.0, -math.inf), ("log", -0.0, -math.inf), ("log", -1.0, math.nan),
    ("log", math.inf, math.inf), ("log", 2.0 ** -149, float(np.float32(-149 * math.log(2)))),
    ("log2", 1024.0, 10.0), ("log2", 2.0 ** -149, -149.0), ("log2", 0.5, -1.0), ("log2", -math.inf, math.nan),
])
def test_special_values(name, x, want):
    got = mathlib.evaluate(name, x)
    assert got == want or (math.isnan(got) and math.isnan(want)), (name, x, got)


@pytest.mark.parametrize("name, x, want", [
    ("exp", 0.0, 1.0), ("exp", 710.0, math.inf), ("exp", -746.0, 0.0), ("exp", 1.0, math.e),
    ("exp2", -1074.0, 5e-324), ("exp2", 1024.0, math.inf), ("log", 5e-324, -744.4400719213812),
    ("log2", 5e-324, -1074.0), ("log2", 2.0 ** 1023, 1023.0), ("log", -0.0, -math.inf),
])
def test_f64_special_values(name, x, want):
    got = mathlib.evaluate(name, x, F64)
    assert got == want or (math.isnan(got) and math.isnan(want)), (name, x, got)


@pytest.mark.parametrize("name", list(REFERENCE))
def test_nan_stays_nan(name):
    assert math.isnan(mathlib.evaluate(name, math.nan))


def test_lowering_emits_the_recipe(tmp_path):
    """A kernel's `exp` is the recipe's operations: fmas and selects, no approximate instruction
    (ex2.approx would give other bits than the host block's)."""
    from syncc.backends.ptx import build_ptx
    from syncc.driver import compile_file
    src = tmp_path / "e.sync"
    src.write_text("kernel k(a: global f32[32]) launch grid(1) block(32) {\n"
                   "    a[tid] = exp(a[tid]) + log(a[tid]) + exp2(a[tid]) + log2(a[tid])\n}\n")
    comp = compile_file(str(src), target="ptx", opt=0)
    text = build_ptx(comp.ir, "sm_90").text
    assert "fma.rn.f32" in text and "ex2" not in text and "lg2" not in text
