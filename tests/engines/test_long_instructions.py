"""The 64-bit integer instructions on both engines, word for word against Python's integers.

One kernel runs, on pairs of 64-bit operands read with LD.64 and results written with ST.64:
IADD.CC / IADD.X (an add with carry), IADD.CC with -R and IADD.X with ~R (a subtract with
borrow, where -0 carries), a negation from RZ, a three-word add chained through IADD.X.CC,
I2F.F64 and I2F.F32 of .S64 and .U64 pairs (rounded once, to nearest even), F2I.S64 and .U64 of
an F64 pair and of an F32 word (toward zero, saturating, NaN to 0), and ATOM.ADD.64 and
ATOM.EXCH.64 on a pair of words in global memory. The operands are edge values (0, +-1, the
ends of both ranges, carries out of every word, values next to powers of two, ties of both
float formats) paired with each other, and random bit patterns. The oracle is Python's
integers and core/floats.py's exact rounding; the two engines must also agree with each other
on every word and every cycle.
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
from syncc.core.types import F32, F64, I64, U64

pytestmark = pytest.mark.skipif(core.load()[0] is None, reason="numba is not installed: no compiled core")

N = 1536
M64 = (1 << 64) - 1
RESULTS = ("ADD", "SUB", "NEG", "ADD3", "I2F.F64.S64", "I2F.F64.U64", "I2F.F32.S64", "I2F.F32.U64",
           "F2I.S64.F64", "F2I.U64.F64", "F2I.S64.F32", "F2I.U64.F32", "ATOM.ADD.64", "ATOM.EXCH.64")


def _kernel() -> str:
    """out[k][i] = RESULTS[k] of (a[i], b[i]), each a pair of words (a one-word result: its low word)."""
    row = 8 * N
    lines = [
        ".kernel lops", f".launch grid({N // 128}) block(128)",
        f".param a: global u32[{2 * N}]", f".param b: global u32[{2 * N}]",
        f".param out: global u32[{len(RESULTS)}][{2 * N}]", f".param acc: global u32[{2 * N}]",
        "S2R R0, SR_Tid_X;", "S2R R1, SR_CTAid_X;", "IMAD R0, R1, c [0x0] [0x8], R0;",
        "ISCADD R2, R0, c [0x0] [0x20], 0x3;", "LD.64 R4, [R2];",
        "ISCADD R2, R0, c [0x0] [0x24], 0x3;", "LD.E.CG.64 R6, [R2];",
        "ISCADD R10, R0, c [0x0] [0x28], 0x3;", "ISCADD R14, R0, c [0x0] [0x2c], 0x3;",
    ]
    ops = ["IADD.CC R12, R4, R6;\nIADD.X R13, R5, R7;",
           "IADD.CC R12, R4, -R6;\nIADD.X R13, R5, ~R7;",
           "IADD.CC R12, RZ, -R4;\nIADD.X R13, RZ, ~R5;",
           # a 96-bit add (a.lo, a.hi, b.lo) + (b.hi, b.lo, a.hi): its middle and high words
           "IADD.CC RZ, R4, R7;\nIADD.X.CC R12, R5, R6;\nIADD.X R13, R6, R5;",
           "I2F.F64.S64 R12, R4;", "I2F.F64.U64 R12, R4;",
           "I2F.F32.S64 R12, R4;\nMOV R13, RZ;", "I2F.F32.U64 R12, R4;\nMOV R13, RZ;",
           "F2I.S64.F64.TRUNC R12, R4;", "F2I.U64.F64.TRUNC R12, R4;",
           "F2I.S64.F32.TRUNC R12, R4;", "F2I.U64.F32.TRUNC R12, R4;",
           "ATOM.E.ADD.64 R12, [R14], R6;", "ATOM.EXCH.64 R12, [R14], R4;"]
    for k, op in enumerate(ops):
        lines += op.split("\n")
        lines.append(f"ST.64 [R10+{hex(k * row)}], R12;")
    lines.append("EXIT;")
    return "\n".join(lines) + "\n"


def _signed(x: int) -> int:
    return x - (1 << 64) if x >> 63 else x


def _f64(x) -> int:
    v = floats.to_type(x, F64)
    return floats.f64_bits(v)


def _f32(x) -> int:
    return floats.f32_bits(floats.to_type(x, F32))


def _to_int(x: float, t) -> int:
    return floats.to_int(x, t) & M64


def oracle(a: int, b: int, acc: int) -> list[int]:
    """The results for operands a, b; acc is the word ATOM.ADD.64 starts from (b)."""
    lo, hi = a & 0xFFFFFFFF, a >> 32
    blo, bhi = b & 0xFFFFFFFF, b >> 32
    three = (lo | hi << 32 | blo << 64) + (bhi | blo << 32 | hi << 64)
    x = floats.f64_from_bits(a)
    y = floats.f32_from_bits(lo)
    return [
        (a + b) & M64, (a - b) & M64, -a & M64, (three >> 32) & M64,
        _f64(_signed(a)), _f64(a), _f32(_signed(a)), _f32(a),
        _to_int(x, I64), _to_int(x, U64), _to_int(y, I64), _to_int(y, U64),
        acc, (acc + b) & M64,                    # what each atomic read: acc, then acc + b
    ]


def operands(seed: int = 64) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    edges = [0, 1, M64, 2, M64 - 1, 1 << 63, (1 << 63) - 1, (1 << 63) + 1, 0xFFFFFFFF, 1 << 32,
             (1 << 32) + 1, 0xFFFFFFFF00000000, 0x00000000FFFFFFFF, 0x8000000080000000, 0x7FFFFFFF80000000,
             (1 << 53) + 1, (1 << 24) + 1, (1 << 54) + 2, (1 << 25) + 1, (1 << 64) - (1 << 11),
             (1 << 63) + (1 << 10), 0x43E0000000000000, 0xC3E0000000000000, 0x43F0000000000000,
             0x7FF8000000000000, 0xFFF0000000000000, 0x5F000000, 0xDF000000, 0x5F800000, 0x4F000000,
             0xBF800000, 0x3FE0000000000000]
    k = len(edges)
    a = rng.integers(0, 1 << 63, N, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, N, dtype=np.uint64)
    b = rng.integers(0, 1 << 63, N, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, N, dtype=np.uint64)
    e = np.array(edges, dtype=np.uint64)
    a[:k * k], b[:k * k] = np.repeat(e, k), np.tile(e, k)
    # floats of every size as bit patterns: binary64 values around the integer ranges' ends
    n = 256
    at = slice(k * k, k * k + n)
    a[at] = (rng.standard_normal(n) * 2.0 ** rng.integers(-4, 66, n)).view(np.uint64)
    return a, b


@pytest.fixture(scope="module")
def runs():
    a, b = operands()
    out = {}
    for engine in ("reference", "compiled"):
        arrays = {"a": a.view(np.uint32).copy(), "b": b.view(np.uint32).copy(),
                  "out": np.zeros((len(RESULTS), 2 * N), dtype=np.uint32), "acc": b.view(np.uint32).copy()}
        run = simulate(_kernel(), FermiConfig(engine=engine), arrays=arrays)
        assert run.status == "finished" and run.outcome.stats.engine == engine, run.outcome
        out[engine] = run
    return (a, b), out


def test_every_long_instruction_gives_the_oracles_bits(runs):
    (a, b), out = runs
    got = out["reference"].arrays["out"].view(np.uint64)
    acc = out["reference"].arrays["acc"].view(np.uint64)
    bad = []
    for i in range(N):
        x, y = int(a[i]), int(b[i])
        for k, w in enumerate(oracle(x, y, y)):
            if int(got[k][i]) != w:
                bad.append(f"{RESULTS[k]}({x:#018x}, {y:#018x}) = {int(got[k][i]):#018x}, want {w:#018x}")
        if int(acc[i]) != x:                     # after ADD.64 of b, EXCH.64 of a
            bad.append(f"acc({x:#018x}, {y:#018x}) = {int(acc[i]):#018x}")
    assert not bad, f"{len(bad)} wrong: " + "; ".join(bad[:10])


def test_the_compiled_core_writes_the_same_words(runs):
    _, out = runs
    assert_engines_agree(out["reference"], out["compiled"], ("out", "acc"))


def test_the_edges_carry_and_round():
    """The operands reach the cases the instructions exist for: carries out of the low word, -0's
    borrow, integers that binary32 and binary64 round (ties among them), and floats past the ranges."""
    a, b = operands()
    pairs = [(int(x), int(y)) for x, y in zip(a, b)]
    assert sum(((x & 0xFFFFFFFF) + (y & 0xFFFFFFFF)) >> 32 for x, y in pairs) > 100
    assert any(y & 0xFFFFFFFF == 0 for _, y in pairs)
    assert sum(float(x) != x for x, _ in pairs) > 100
    assert any(x == (1 << 53) + 1 for x, _ in pairs) and any(x == (1 << 24) + 1 for x, _ in pairs)
    big = [floats.f64_from_bits(x) for x, _ in pairs]
    assert any(v >= 2.0 ** 64 for v in big) and any(v <= -2.0 ** 63 for v in big) and any(math.isnan(v) for v in big)


def test_the_long_program_runs_the_same_on_both_engines():
    """tests/sim/long_ops.sync, launch by launch: its i64/u64 kernels (carry chains, the division
    loop, shifts, a shared-memory reduction with LDS.64/STS.64, ATOM.ADD/EXCH/CAS.64 and CAS loops,
    clock()) report the same run on both engines."""
    path = ROOT / "tests" / "sim" / "long_ops.sync"
    assert same_machine(cli_run([str(path)]), path.name) == 4


def test_the_wide_slots_program_runs_the_same_on_both_engines():
    """tests/sim/wide_slots.sync, launch by launch: 64-bit channel and queue slots (a tinylock slot's
    LDSLK/LDS and STS/STSUL pairs among them) and shared 64-bit atomics report the same run on both
    engines."""
    path = ROOT / "tests" / "sim" / "wide_slots.sync"
    assert same_machine(cli_run([str(path)]), path.name) == 21
