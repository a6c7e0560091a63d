"""The float instructions on both engines, word for word against an independent oracle.

One kernel runs every float instruction (FADD, FADD with a negated source, FMUL, FFMA, FMNMX both
ways, FSETP with each of its 16 tests, F2I, I2F, F2F, ATOM and RED .ADD.F32) on triples of words: random
bit patterns (NaNs, infinities, subnormals of both signs among them), random values of every
magnitude, the special values, and products whose exact value is a binary32 tie that a small
addend breaks (where a*b+c computed in binary64 and then rounded to binary32 rounds twice, and
wrongly). The oracle is core/floats.py (exact rational arithmetic, rounded once), not numpy, and
the two engines must also agree with each other on everything a run reports (test_engines's
comparison).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from simkit import assert_engines_agree, simulate
from test_engines import ROOT, cli_run, same_machine
from syncc.backends.sim import core
from syncc.backends.sim.machine import FermiConfig
from syncc.core import floats
from syncc.core.types import F32, I32, U32

pytestmark = pytest.mark.skipif(core.load()[0] is None, reason="numba is not installed: no compiled core")

N = 4096
FCMP = ("F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU", "T")
RESULTS = ("FADD", "FSUB", "FMUL", "FFMA", "FFMA-", "MIN", "MAX", "FSETP", "F2I.S32", "F2I.U32", "I2F.S32",
           "I2F.U32", "FLOOR", "CEIL", "TRUNC", "ATOM.old")
NAN = 0x7FFFFFFF


def _kernel() -> str:
    """out[k][i] = RESULTS[k] of (a[i], b[i], c[i]); FSETP's row is a mask, bit t for test FCMP[t]."""
    row = 4 * N
    lines = [
        ".kernel fops", f".launch grid({N // 128}) block(128)",
        f".param a: global u32[{N}]", f".param b: global u32[{N}]", f".param c: global u32[{N}]",
        f".param out: global u32[{len(RESULTS)}][{N}]", f".param acc: global u32[2][{N}]",
        "S2R R0, SR_Tid_X;", "S2R R1, SR_CTAid_X;", "IMAD R0, R1, c [0x0] [0x8], R0;",
        "ISCADD R2, R0, c [0x0] [0x20], 0x2;", "LD R3, [R2];",
        "ISCADD R2, R0, c [0x0] [0x24], 0x2;", "LD R4, [R2];",
        "ISCADD R2, R0, c [0x0] [0x28], 0x2;", "LD R5, [R2];",
        "ISCADD R9, R0, c [0x0] [0x2c], 0x2;", "ISCADD R10, R0, c [0x0] [0x30], 0x2;",
    ]
    ops = ["FADD R6, R3, R4;", "FADD R6, R3, -R4;", "FMUL R6, R3, R4;", "FFMA R6, R3, R4, R5;",
           "FFMA R6, -R3, R4, -R5;", "FMNMX R6, R3, R4, pt;", "FMNMX R6, R3, R4, !pt;", None,
           "F2I.S32.F32.TRUNC R6, R3;", "F2I.U32.F32.TRUNC R6, R3;", "I2F.F32.S32 R6, R3;", "I2F.F32.U32 R6, R3;",
           "F2F.F32.F32.FLOOR R6, R3;", "F2F.F32.F32.CEIL R6, R3;", "F2F.F32.F32.TRUNC R6, R3;",
           f"ATOM.E.ADD.F32.FTZ.RN R6, [R10], R4;\nRED.E.ADD.F32.FTZ.RN [R10+{hex(4 * N)}], R4;"]
    for k, op in enumerate(ops):
        if op is None:
            lines.append("MOV R6, RZ;")
            for t, test in enumerate(FCMP):
                lines += [f"FSETP.{test}.AND P0, pt, R3, R4, pt;", f"@P0 LOP32I.OR R6, R6, {hex(1 << t)};"]
        else:
            lines.append(op)
        lines.append(f"ST [R9+{hex(k * row)}], R6;")
    lines.append("EXIT;")
    return "\n".join(lines) + "\n"


def _f(w: int) -> float:
    return floats.f32_from_bits(w)


def _word(x: float) -> int:
    return NAN if math.isnan(x) else floats.f32_bits(x)


def _rounded(fn, x: float) -> int:
    """floor/ceil/trunc as IEEE's roundToIntegral: a zero result keeps the operand's sign."""
    if not math.isfinite(x):
        return _word(x)
    r = float(fn(x))
    return _word(math.copysign(0.0, x) if r == 0 else r)


def _test(t: int, x: float, y: float) -> bool:
    if math.isnan(x) or math.isnan(y):
        return bool(t & 8)
    return bool((x < y and t & 1) or (x == y and t & 2) or (x > y and t & 4))


def oracle(a: int, b: int, c: int) -> list[int]:
    x, y, z = _f(a), _f(b), _f(c)
    r32 = lambda v: _word(floats.to_type(v, F32))          # noqa: E731  (binary64 + - *, rounded once more)
    return [
        r32(x + y), r32(x - y), r32(x * y), _word(floats.fma(x, y, z, F32)), _word(floats.fma(-x, y, -z, F32)),
        _word(floats.fmin(x, y)), _word(floats.fmax(x, y)),
        sum(1 << t for t in range(16) if _test(t, x, y)),
        floats.to_int(x, I32) & 0xFFFFFFFF, floats.to_int(x, U32),
        _word(floats.to_type(a - (1 << 32) if a >> 31 else a, F32)), _word(floats.to_type(a, F32)),
        _rounded(math.floor, x), _rounded(math.ceil, x), _rounded(math.trunc, x), c,
    ]


def _ftz(w: int) -> int:
    return w & 0x80000000 if w & 0x7F800000 == 0 else w


def atomic_oracle(b: int, c: int) -> int:
    """c after ATOM.ADD.F32.FTZ.RN of b: subnormal operands and result flushed to zero."""
    return _ftz(_word(floats.to_type(_f(_ftz(c)) + _f(_ftz(b)), F32)))


def operands(seed: int = 38) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    special = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 1, 0x80000001, 0x007FFFFF,
                        0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x3F000000, 0xBF000000,
                        0x4F000000, 0xCF000000, 0x4F800000, 0x3FC00000, 0xBFC00000], dtype=np.uint32)
    quarter = N // 4
    a = rng.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32)          # any bit pattern
    b = rng.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32)
    c = rng.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32)
    # values of every size, so that sums and products are neither all NaN nor all huge
    for arr in (a, b, c):
        arr[quarter:2 * quarter] = (rng.standard_normal(quarter) * 2.0 ** rng.integers(-30, 30, quarter)) \
            .astype(np.float32).view(np.uint32)
    # every pair of special values, and the specials against ordinary values
    k = len(special)
    a[:k * k], b[:k * k] = np.repeat(special, k), np.tile(special, k)
    c[:k * k] = special[np.arange(k * k) % k]
    # ties: m = 2^12 + 1 + 2j below 2^12.5 makes m^2 an odd 25-bit number, a binary32 midpoint (scaled
    # by 2^2e), broken by c = +-2^(2e - 40), less than half an ulp of binary64 there: binary64 would
    # round the sum to the midpoint, and then binary32 to even
    ties = slice(2 * quarter, 3 * quarter)
    m = rng.integers(0, 700, quarter) * 2 + (1 << 12) + 1
    e = rng.integers(-40, 40, quarter)
    sign = rng.choice([-1.0, 1.0], quarter)
    a[ties] = (m * 2.0 ** e * sign).astype(np.float32).view(np.uint32)
    b[ties] = (m * 2.0 ** e).astype(np.float32).view(np.uint32)
    c[ties] = (rng.choice([-1.0, 1.0], quarter) * 2.0 ** (2 * e - 40) * sign).astype(np.float32).view(np.uint32)
    # cancellation: c = -round(a * b), so a * b + c is the product's rounding error, exactly
    cancel = slice(3 * quarter, N)
    with np.errstate(all="ignore"):
            c[cancel] = (-(a[cancel].view(np.float32).astype(np.float64) * b[cancel].view(np.float32))) \
            .astype(np.float32).view(np.uint32)
    return a, b, c


@pytest.fixture(scope="module")
def runs():
    a, b, c = operands()
    out = {}
    for engine in ("reference", "compiled"):
        arrays = {"a": a.copy(), "b": b.copy(), "c": c.copy(),
                  "out": np.zeros((len(RESULTS), N), dtype=np.uint32), "acc": np.stack([c, c])}
        run = simulate(_kernel(), FermiConfig(engine=engine), arrays=arrays)
        assert run.status == "finished" and run.outcome.stats.engine == engine
        out[engine] = run
    return (a, b, c), out


def test_every_float_instruction_gives_the_oracles_word(runs):
    (a, b, c), out = runs
    got = out["reference"].arrays["out"]
    bad = []
    for i in range(N):
        want = oracle(int(a[i]), int(b[i]), int(c[i]))
        for k, w in enumerate(want):
            if int(got[k][i]) != w:
                bad.append(f"{RESULTS[k]}({a[i]:#010x}, {b[i]:#010x}, {c[i]:#010x}) = {int(got[k][i]):#010x}, "
                           f"want {w:#010x}")
        for row in out["reference"].arrays["acc"]:
            if int(row[i]) != atomic_oracle(int(b[i]), int(c[i])):
                bad.append(f"ADD.F32({c[i]:#010x}, {b[i]:#010x}) = {int(row[i]):#010x}")
    assert not bad, f"{len(bad)} wrong: " + "; ".join(bad[:10])


def test_the_compiled_core_writes_the_same_words(runs):
    _, out = runs
    assert_engines_agree(out["reference"], out["compiled"], ("out", "acc"))


def test_the_ties_are_there():
    """The tie cases do what they are for: binary64 then binary32 gets some of them wrong."""
    a, b, c = operands()
    ties = slice(N // 2, 3 * N // 4)
    x, y, z = (v[ties].view(np.float32).astype(np.float64) for v in (a, b, c))
    twice = (x * y + z).astype(np.float32).view(np.uint32)
    once = np.array([floats.f32_bits(floats.fma(float(p), float(q), float(r), F32)) for p, q, r in zip(x, y, z)],
                    dtype=np.uint32)
    assert (twice != once).sum() > 100


def test_the_float_program_runs_the_same_on_both_engines():
    """tests/sim/float_ops.sync, launch by launch: its float kernels (the CAS loops and the lock-bit
    loops of float atomics among them) report the same run on both engines."""
    path = ROOT / "tests" / "sim" / "float_ops.sync"
    assert same_machine(cli_run([str(path)]), path.name) == 2
