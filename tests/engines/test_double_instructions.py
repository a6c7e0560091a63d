"""The binary64 instructions on both engines, word for word against an independent oracle.

One kernel runs every binary64 instruction on register pairs (DADD, DADD with a negated source,
DMUL, DFMA, DFMA with negated sources, DMNMX both ways, DSETP with each of its 16 tests, F2I and
I2F with .F64, F2F between the formats and to integral values, ATOM.CAS.64 that succeeds and one
that compares other bits) on triples of binary64 values read with LD.64 and written with ST.64 (and
a round trip through shared memory with STS.64/LDS.64):
random bit patterns (NaNs, infinities, subnormals of both signs among them), random values of
every magnitude, every pair of special values, products whose exact value a small addend moves
off a binary64 tie, and cancellations (c = -RN(a * b): DFMA gives the product's rounding error).
The oracle is Python's own binary64 arithmetic and exact rationals (core/floats.py), not numpy;
the two engines must also agree with each other on every word and every cycle.
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

N = 2048
FCMP = ("F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU", "T")
RESULTS = ("DADD", "DSUB", "DMUL", "DFMA", "DFMA-", "MIN", "MAX", "DSETP", "F2I.S32", "F2I.U32", "I2F.S32",
           "I2F.U32", "FLOOR", "CEIL", "TRUNC", "F2F.F32", "F2F.F64.F32", "SHARED", "CAS.64", "CAS.64 again")
NAN64 = 0x7FFFFFFFFFFFFFFF
NAN32 = 0x7FFFFFFF


def _kernel() -> str:
    """out[k][i] = RESULTS[k] of (a[i], b[i], c[i]), each a pair of words (a one-word result: its low word)."""
    row = 8 * N
    lines = [
        ".kernel dops", f".launch grid({N // 128}) block(128)",
        f".param a: global u32[{2 * N}]", f".param b: global u32[{2 * N}]", f".param c: global u32[{2 * N}]",
        f".param out: global u32[{len(RESULTS)}][{2 * N}]", f".param acc: global u32[{2 * N}]",
        ".shared buf: u32[256] at 0x0",
        "S2R R0, SR_Tid_X;", "S2R R1, SR_CTAid_X;", "IMAD R0, R1, c [0x0] [0x8], R0;",
        "ISCADD R2, R0, c [0x0] [0x20], 0x3;", "LD.64 R4, [R2];",
        "ISCADD R2, R0, c [0x0] [0x24], 0x3;", "LD.E.CG.64 R6, [R2];",
        "ISCADD R2, R0, c [0x0] [0x28], 0x3;", "LD.64 R8, [R2];",
        "ISCADD R10, R0, c [0x0] [0x2c], 0x3;", "S2R R11, SR_Tid_X;", "SHL R11, R11, 0x3;",
        "ISCADD R14, R0, c [0x0] [0x30], 0x3;",
    ]
    ops = ["DADD R12, R4, R6;", "DADD R12, R4, -R6;", "DMUL R12, R4, R6;", "DFMA R12, R4, R6, R8;",
           "DFMA R12, -R4, R6, -R8;", "DMNMX R12, R4, R6, pt;", "DMNMX R12, R4, R6, !pt;", None,
           "F2I.S32.F64.TRUNC R12, R4;\nMOV R13, RZ;", "F2I.U32.F64.TRUNC R12, R4;\nMOV R13, RZ;",
           "I2F.F64.S32 R12, R4;", "I2F.F64.U32 R12, R4;",
           "F2F.F64.F64.FLOOR R12, R4;", "F2F.F64.F64.CEIL R12, R4;", "F2F.F64.F64.TRUNC R12, R4;",
           "F2F.F32.F64 R12, R4;\nMOV R13, RZ;", "F2F.F64.F32 R12, R4;",
           "STS.64 [R11], R4;\nLDS.64 R12, [R11];",
           "ATOM.E.CAS.64 R12, [R14], R8, R4;", "ATOM.CAS.64 R12, [R14], R6, R8;"]
    for k, op in enumerate(ops):
        if op is None:
            lines += ["MOV R12, RZ;", "MOV R13, RZ;"]
            for t, test in enumerate(FCMP):
                lines += [f"DSETP.{test}.AND P0, pt, R4, R6, pt;", f"@P0 LOP32I.OR R12, R12, {hex(1 << t)};"]
        else:
            lines.append(op)
        lines.append(f"ST.64 [R10+{hex(k * row)}], R12;")
    lines.append("EXIT;")
    return "\n".join(lines) + "\n"


def _d(bits: int) -> float:
    return floats.f64_from_bits(bits)


def _bits(x: float) -> int:
    return NAN64 if math.isnan(x) else floats.f64_bits(x)


def _word(x: float) -> int:
    return NAN32 if math.isnan(x) else floats.f32_bits(x)


def _fma(x: float, y: float, z: float) -> float:
    if math.isfinite(x) and math.isfinite(y) and math.isinf(z):
        return z                                  # a finite product never cancels an infinity
    return floats.fma(x, y, z, floats.F64)


def _rounded(fn, x: float) -> int:
    if not math.isfinite(x):
        return _bits(x)
    r = float(fn(x))
    return _bits(math.copysign(0.0, x) if r == 0 else r)


def _test(t: int, x: float, y: float) -> bool:
    if math.isnan(x) or math.isnan(y):
        return bool(t & 8)
    return bool((x < y and t & 1) or (x == y and t & 2) or (x > y and t & 4))


def oracle(a: int, b: int, c: int) -> list[int]:
    x, y, z = _d(a), _d(b), _d(c)
    low = a & 0xFFFFFFFF
    return [
        _bits(x + y), _bits(x - y), _bits(x * y), _bits(_fma(x, y, z)), _bits(_fma(-x, y, -z)),
        _bits(floats.fmin(x, y)), _bits(floats.fmax(x, y)),
        sum(1 << t for t in range(16) if _test(t, x, y)),
        floats.to_int(x, I32) & 0xFFFFFFFF, floats.to_int(x, U32),
        _bits(float(low - (1 << 32) if low >> 31 else low)), _bits(float(low)),
        _rounded(math.floor, x), _rounded(math.ceil, x), _rounded(math.trunc, x),
        _word(floats.to_type(x, F32)),
        _bits(floats.f32_from_bits(low)), a, c, a,
    ]


def cas_oracle(a: int, b: int, c: int) -> int:
    """acc after ATOM.CAS.64 of (c -> a) on c, then of (b -> c): the bits compared, NaNs too."""
    return c if a == b else a


def operands(seed: int = 64) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    special = np.array([0, 1 << 63, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
                        0xFFF8000000000001, 1, (1 << 63) | 1, 0x000FFFFFFFFFFFFF, 0x0010000000000000,
                        0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x3FF0000000000000, 0xBFF0000000000000,
                        0x3FE0000000000000, 0x41E0000000000000, 0xC1E0000000000000, 0x41F0000000000000,
                        0x3FF8000000000000, 0xBFF8000000000000, 0x47EFFFFFE0000000, 0x36A0000000000000],
                       dtype=np.uint64)
    quarter = N // 4
    a, b, c = (rng.integers(0, 1 << 63, N, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, N, dtype=np.uint64)
               for _ in range(3))
    for arr in (a, b, c):                      # values of every size
        arr[quarter:2 * quarter] = (rng.standard_normal(quarter) * 2.0 ** rng.integers(-1060, 1000, quarter)) \
            .view(np.uint64)
    k = len(special)
    a[:k * k], b[:k * k] = np.repeat(special, k), np.tile(special, k)
    c[:k * k] = special[np.arange(k * k) % k]
    # ties: m = 2^27 - 1 - 2j above 2^26.5 makes m^2 an odd 54-bit number, a binary64 midpoint (scaled
    # by 2^2e), broken by c = +-2^(2e - 80), far below half an ulp
    ties = slice(2 * quarter, 3 * quarter)
    m = (1 << 27) - 1 - rng.integers(0, 1 << 20, quarter) * 2
    e = rng.integers(-400, 400, quarter)
    sign = rng.choice([-1.0, 1.0], quarter)
    a[ties] = (m * 2.0 ** e * sign).view(np.uint64)
    b[ties] = (m * 2.0 ** e).view(np.uint64)
    c[ties] = (rng.choice([-1.0, 1.0], quarter) * 2.0 ** (2 * e - 80) * sign).view(np.uint64)
    cancel = slice(3 * quarter, N)             # c = -RN(a * b)
    with np.errstate(all="ignore"):
        c[cancel] = (-(a[cancel].view(np.float64) * b[cancel].view(np.float64))).view(np.uint64)
    return a, b, c


def _words(x: np.ndarray) -> np.ndarray:
    return x.view(np.uint32).copy()


@pytest.fixture(scope="module")
def runs():
    a, b, c = operands()
    out = {}
    for engine in ("reference", "compiled"):
        arrays = {"a": _words(a), "b": _words(b), "c": _words(c),
                  "out": np.zeros((len(RESULTS), 2 * N), dtype=np.uint32), "acc": _words(c)}
        run = simulate(_kernel(), FermiConfig(engine=engine), arrays=arrays)
        assert run.status == "finished" and run.outcome.stats.engine == engine, run.outcome
        out[engine] = run
    return (a, b, c), out


def test_every_double_instruction_gives_the_oracles_bits(runs):
    (a, b, c), out = runs
    got = out["reference"].arrays["out"].view(np.uint64)
    bad = []
    for i in range(N):
        want = oracle(int(a[i]), int(b[i]), int(c[i]))
        for k, w in enumerate(want):
            if int(got[k][i]) != w:
                bad.append(f"{RESULTS[k]}({a[i]:#018x}, {b[i]:#018x}, {c[i]:#018x}) = {int(got[k][i]):#018x}, "
                           f"want {w:#018x}")
        acc = int(out["reference"].arrays["acc"].view(np.uint64)[i])
        if acc != cas_oracle(int(a[i]), int(b[i]), int(c[i])):
            bad.append(f"CAS.64 word ({a[i]:#018x}, {b[i]:#018x}, {c[i]:#018x}) = {acc:#018x}")
    assert not bad, f"{len(bad)} wrong: " + "; ".join(bad[:10])


def test_the_compiled_core_writes_the_same_words(runs):
    _, out = runs
    assert_engines_agree(out["reference"], out["compiled"], ("out", "acc"))


def test_the_ties_and_cancellations_are_there():
    """The tie cases need the single rounding: a * b rounded, then + c, gets many wrong."""
    a, b, c = operands()
    ties = slice(N // 2, 3 * N // 4)
    x, y, z = (v[ties].view(np.float64) for v in (a, b, c))
    twice = (x * y + z).view(np.uint64)
    once = np.array([_bits(_fma(float(p), float(q), float(r))) for p, q, r in zip(x, y, z)], dtype=np.uint64)
    assert (twice != once).sum() > 100


def test_the_double_program_runs_the_same_on_both_engines():
    """tests/sim/double_ops.sync, launch by launch: its f64 kernels (register pairs, LD.64/ST.64,
    a shared-memory reduction with LDS.64/STS.64, ATOM.CAS.64 loops) report the same run on both engines."""
    path = ROOT / "tests" / "sim" / "double_ops.sync"
    assert same_machine(cli_run([str(path)]), path.name) == 4
