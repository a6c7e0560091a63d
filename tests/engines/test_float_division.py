"""f32 division and square root on Fermi: correctly rounded, on both engines, word for word.

A kernel syncc compiles (`q = a / b`, `s = sqrt(a)`: backends/fermi/emit/float_rounding.py's
sequences) runs on operands chosen to reach every path: random bit patterns, values of every
magnitude, quotients in the subnormal range, dividends built to put the quotient next to a
midpoint of the normal or the subnormal grid, squares of midpoints, and every pair of special
values. Each word must be numpy's (IEEE float32 division and square root are correctly rounded),
a NaN as 0x7fffffff; the compiled core must write the reference engine's words in the same
cycles. MUFU.RCP and MUFU.RSQ, which the sequences start from, are checked against their
definition (docs/fermi.md, "MUFU") with exact rational arithmetic.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import syncc
from simkit import assert_engines_agree, simulate
from syncc.backends.sim import core
from syncc.backends.sim.machine import FermiConfig
from syncc.core import floats

pytestmark = pytest.mark.skipif(core.load()[0] is None, reason="numba is not installed: no compiled core")

N = 1 << 15
NAN = 0x7FFFFFFF
SPECIAL = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 1, 0x80000001, 0x007FFFFF,
                    0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x40000000, 0x3F7FFFFF,
                    0x3FFFFFFF, 0x40800000, 0x407FFFFF, 0x3F000000], dtype=np.uint32)


def operands(seed: int = 11) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    part = N // 8
    a = rng.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32)       # any bit pattern
    b = rng.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32)
    with np.errstate(all="ignore"):
        # values of every magnitude, subnormals among them
        for arr in (a, b):
            arr[part:2 * part] = (rng.standard_normal(part) * 2.0 ** rng.integers(-150, 128, part)) \
                .astype(np.float32).view(np.uint32)
        # quotients below the normal range: small dividends over divisors near 1
        a[2 * part:3 * part] = rng.integers(0, 0x01800000, part, dtype=np.uint64).astype(np.uint32)
        b[2 * part:3 * part] = rng.integers(0x3E000000, 0x42000000, part, dtype=np.uint64).astype(np.uint32)
        # quotients next to a midpoint: a = RN(m * b), m an odd multiple of half an ulp (normal
        # quotients), or of 2^-150 and its multiples (subnormal ones, where a second rounding
        # would go wrong)
        for section, low, high in ((3, -60, 60), (4, -174, -120)):
            rows = slice(section * part, (section + 1) * part)
            divisor = rng.uniform(1, 2, part) * 2.0 ** rng.integers(-30, 30, part)
            mid = (2 * rng.integers(1 << 22, 1 << 23, part) + 1) * 2.0 ** rng.integers(low, high, part)
            a[rows] = (mid * divisor).astype(np.float32).view(np.uint32)
            b[rows] = divisor.astype(np.float32).view(np.uint32)
        # square roots next to a midpoint: x = RN(m^2), and subnormal x
        m = (2 * rng.integers(1 << 23, 1 << 24, part) + 1) * 2.0 ** (rng.integers(-75, 64, part) - 24)
        a[5 * part:6 * part] = (m * m).astype(np.float32).view(np.uint32)
        a[6 * part:7 * part] = rng.integers(1, 0x00800000, part, dtype=np.uint64).astype(np.uint32)
    k = len(SPECIAL)
    a[7 * part:7 * part + k * k], b[7 * part:7 * part + k * k] = np.repeat(SPECIAL, k), np.tile(SPECIAL, k)
    # significands at the ends of a binade (where an approximate reciprocal is furthest off), of
    # random exponents; dividends likewise, or random
    edge = slice(7 * part + k * k, N)
    count = N - (7 * part + k * k)
    ends = rng.integers(0, 64, count) + rng.choice([0, (1 << 23) - 64], count)
    b[edge] = ((rng.integers(1, 255, count) << 23) + ends + (rng.integers(0, 2, count) << 31)).astype(np.uint32)
    a[edge][::2] = ((rng.integers(1, 255, count) << 23) + ends[::-1])[::2].astype(np.uint32)
    return a, b


def words(x: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(x), np.uint32(NAN), x.view(np.uint32))


def _kernel_sass() -> str:
    source = (f"const N = {N}\n"
              "kernel k(a: global f32[N], b: global f32[N], q: global f32[N], s: global f32[N])\n"
              f"    launch grid({N // 128}) block(128)\n"
              "{\n    q[gtid] = a[gtid] / b[gtid]\n    s[gtid] = sqrt(a[gtid])\n}\n")
    return source


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    path = tmp_path_factory.mktemp("fdiv") / "fdiv.sync"
    path.write_text(_kernel_sass())
    sass = syncc.compile(str(path), target="fermi-sim").fermi_sass()
    a, b = operands()
    out = {}
    for engine in ("reference", "compiled"):
        arrays = {"a": a.view(np.float32).copy(), "b": b.view(np.float32).copy(),
                  "q": np.zeros(N, np.float32), "s": np.zeros(N, np.float32)}
        run = simulate(sass, FermiConfig(engine=engine), arrays=arrays)
        assert run.status == "finished" and run.outcome.stats.engine == engine
        out[engine] = run
    return (a, b), out


def _wrong(name, a, b, got, want) -> list[str]:
    bad = np.nonzero(got != want)[0]
    return [f"{name}({a[i]:#010x}, {b[i]:#010x}) = {got[i]:#010x}, want {want[i]:#010x}" for i in bad[:10]] \
        + ([f"... {len(bad)} in all"] if len(bad) > 10 else [])


def test_division_and_square_root_are_correctly_rounded(runs):
    (a, b), out = runs
    with np.errstate(all="ignore"):
        quotient = words(a.view(np.float32) / b.view(np.float32))
        root = words(np.sqrt(a.view(np.float32)))
    got = out["reference"].arrays
    bad = _wrong("div", a, b, got["q"].view(np.uint32), quotient) \
        + _wrong("sqrt", a, a, got["s"].view(np.uint32), root)
    assert not bad, "; ".join(bad)


def test_the_compiled_core_writes_the_same_words_in_the_same_cycles(runs):
    _, out = runs
    assert_engines_agree(out["reference"], out["compiled"], ("q", "s"))


def test_the_operands_reach_the_hard_cases():
    """Subnormal quotients (rounded twice if done naively), and quotients within a hundredth of an
    ulp of a midpoint (where the refined approximation alone rounds the wrong way), are there."""
    a, b = operands()
    with np.errstate(all="ignore"):
        x, y = a.view(np.float32).astype(np.float64), b.view(np.float32).astype(np.float64)
        q = np.abs(x / y)
    subnormal = (q > 0) & (q < 2.0 ** -126)
    assert subnormal.sum() > N // 8
    normal = (q >= 2.0 ** -126) & (q < 2.0 ** 127)
    ulp = 2.0 ** (np.floor(np.log2(np.where(normal, q, 1.0))) - 23)
    with np.errstate(all="ignore"):
        frac = np.abs((q / ulp) % 1.0 - 0.5)
    assert (normal & (frac < 0.01)).sum() > 300


# ---- MUFU, the approximations the sequences refine

def _mufu_sass(n: int) -> str:
    return "\n".join([
        ".kernel mufu", f".launch grid({n // 128}) block(128)", f".param x: global u32[{n}]",
        f".param out: global u32[2][{n}]",
        "S2R R0, SR_Tid_X;", "S2R R1, SR_CTAid_X;", "IMAD R0, R1, c [0x0] [0x8], R0;",
        "ISCADD R2, R0, c [0x0] [0x20], 0x2;", "LD R3, [R2];", "ISCADD R9, R0, c [0x0] [0x24], 0x2;",
        "MUFU.RCP R4, R3;", "ST [R9], R4;", "MUFU.RSQ R4, R3;", f"ST [R9+{hex(4 * n)}], R4;", "EXIT;"]) + "\n"


def _rcp_oracle(w: int) -> int:
    sign, mag = w & 0x80000000, w & 0x7FFFFFFF
    if mag > 0x7F800000:
        return NAN
    if mag < 0x00800000:
        return sign | 0x7F800000
    if mag == 0x7F800000:
        return sign
    exact = 1 / Fraction(floats.f32_from_bits(mag))
    if exact < Fraction(2) ** -126:
        return sign
    return sign | _truncated(exact)


def _truncated(v: Fraction) -> int:
    """The binary32 word of v (positive, normal), rounded toward zero."""
    e = 0
    while v >= 2:
        v, e = v / 2, e + 1
    while v < 1:
        v, e = v * 2, e - 1
    return ((e + 127) << 23) | (int(v * (1 << 23)) - (1 << 23))


def test_mufu_gives_its_definition_on_both_engines():
    rng = np.random.default_rng(5)
    n = 4096
    x = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    x[:len(SPECIAL)] = SPECIAL
    got = {}
    for engine in ("reference", "compiled"):
        run = simulate(_mufu_sass(n), FermiConfig(engine=engine),
                       arrays={"x": x.copy(), "out": np.zeros((2, n), np.uint32)})
        assert run.status == "finished" and run.outcome.stats.engine == engine
        got[engine] = run.arrays["out"]
    np.testing.assert_array_equal(got["compiled"], got["reference"])
    rcp, rsq = got["reference"]
    bad = [f"RCP({w:#010x}) = {int(r):#010x}, want {_rcp_oracle(int(w)):#010x}"
           for w, r in zip(x, rcp) if int(r) != _rcp_oracle(int(w))]
    for w, r in zip(x.tolist(), rsq.tolist()):
        sign, mag = w >> 31, w & 0x7FFFFFFF
        if mag > 0x7F800000 or (sign and mag >= 0x00800000):
            ok = r == NAN
        elif mag < 0x00800000:
            ok = r == (w & 0x80000000) | 0x7F800000
        elif mag == 0x7F800000:
            ok = r == 0
        else:           # below 1/sqrt(x) by less than an ulp: r^2 x <= 1 < (r + ulp)^2 x
            value, ulp = Fraction(floats.f32_from_bits(r)), Fraction(2) ** ((r >> 23) - 150)
            ok = value * value * Fraction(floats.f32_from_bits(w)) <= 1 < \
                (value + ulp) ** 2 * Fraction(floats.f32_from_bits(w))
        if not ok:
            bad.append(f"RSQ({w:#010x}) = {r:#010x}")
    assert not bad, f"{len(bad)} wrong: " + "; ".join(bad[:10])
