"""f64 exp, exp2, log and log2 on the simulated Fermi (core/mathlib.py's recipes, which compute with
i64 steps: register pairs, IADD.CC/IADD.X, 64-bit shifts, F2I.S64/I2F.F64.S64), on both engines.

The inputs are tests/core/test_mathlib.py's f64 accuracy harness (random values over each
function's whole range, values near 1, the special values): that test holds the recipe within 1
ulp of the correctly rounded value; this one holds the Fermi kernel to the recipe, bit for bit
(the host block evaluates the same recipe), so the Fermi results are within 1 ulp too. The two
engines must write the same words.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import syncc
from helpers import mathlib_inputs
from syncc.backends.sim import core
from syncc.backends.sim.machine import FermiConfig
from syncc.core import mathlib
from syncc.core.types import F64

pytestmark = pytest.mark.skipif(core.load()[0] is None, reason="numba is not installed: no compiled core")

NAMES = ("exp", "exp2", "log", "log2")
N = 512
SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 710.0, -746.0, 709.78, -745.1, 1024.0, -1074.0,
           -1075.0, 5e-324, 2.0 ** 1023, 2.2250738585072014e-308, 1e-310, 0.5, 2.0]


def inputs(name: str) -> np.ndarray:
    """test_mathlib's harness: its random values for the function (seed 3), then the special values."""
    xs = mathlib_inputs(name)
    out = np.full(N, 1.0)
    out[:len(xs)] = xs
    out[len(xs):len(xs) + len(SPECIAL)] = SPECIAL
    return out


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    path = tmp_path_factory.mktemp("mathlib") / "mathlib64.sync"
    path.write_text(f"const N = {N}\n"
                    "kernel fns(a: global f64[4][N], out: global f64[4][N]) launch grid(4) block(128) {\n"
                    + "".join(f"    out[{k}][gtid] = {name}(a[{k}][gtid])\n" for k, name in enumerate(NAMES))
                    + "}\n")
    return syncc.compile(str(path), target="fermi-sim")


@pytest.fixture(scope="module")
def runs(program):
    a = np.stack([inputs(name) for name in NAMES])
    out = {}
    for engine in ("reference", "compiled"):
        result = np.zeros((4, N))
        program.fns(a, result, sim_config=FermiConfig(engine=engine))
        out[engine] = result
    return a, out


def _bits(x: float) -> int:
    return 0x7FFFFFFFFFFFFFFF if math.isnan(x) else int(np.float64(x).view(np.uint64))


def test_fermi_computes_the_recipes_bits(runs):
    a, out = runs
    bad = []
    for k, name in enumerate(NAMES):
        for i in range(N):
            want = _bits(mathlib.evaluate(name, float(a[k][i]), F64))
            got = int(out["reference"][k][i:i + 1].view(np.uint64)[0])
            if got != want and not (math.isnan(out["reference"][k][i]) and want == 0x7FFFFFFFFFFFFFFF):
                bad.append(f"{name}({a[k][i]!r}) = {out['reference'][k][i]!r}, the recipe {float(np.uint64(want).view(np.float64))!r}")
    assert not bad, f"{len(bad)} wrong: " + "; ".join(bad[:8])


def test_both_engines_write_the_same_words(runs):
    _, out = runs
    np.testing.assert_array_equal(out["compiled"].view(np.uint64), out["reference"].view(np.uint64))


def test_the_kernel_uses_64_bit_integer_steps(program):
    """The recipes' i64 steps are register-pair code: a carry chain and a conversion of a pair."""
    sass = program.fermi_sass()
    assert "IADD.CC" in sass and "IADD.X" in sass and "F2I.S64.F64" in sass and "I2F.F64.S64" in sass
