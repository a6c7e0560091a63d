"""i64 and u64 kernels on the simulated Fermi against numpy's int64/uint64 arithmetic (two's
complement, wrapping), on both engines, at random values and at the edges: 0, +-1, the ends of
both ranges, values whose low words carry or borrow, powers of two and their neighbours. The
kernel is compiled syncc source (the emitter's selection: carries, IMUL.HI/IMAD products, shifts
across the pair, the comparisons' three ISETPs), launched through the Python API."""
from __future__ import annotations

import numpy as np
import pytest

import syncc
from syncc.backends.sim import core
from syncc.backends.sim.machine import FermiConfig

pytestmark = pytest.mark.skipif(core.load()[0] is None, reason="numba is not installed: no compiled core")

N = 1024
SIGNED = ["x + y", "x - y", "x * y", "-x", "x & ~y", "x | y", "x ^ y", "x << s", "x >> s", "min(x, y)", "max(x, y)",
          "abs(x)", "select(x < y, 1, 0) + select(x <= y, 2, 0) + select(x == y, 4, 0) + select(x > y, 8, 0)",
          "x / y", "x % y"]
UNSIGNED = ["p + q", "p - q", "p * q", "p >> s", "p / q", "p % q", "min(p, q)", "max(p, q)",
            "select(p < q, 1, 0) + select(p >= q, 2, 0) + select(p != q, 4, 0)"]
EDGES = [0, 1, -1, 2, -2, (1 << 63) - 1, -(1 << 63), -(1 << 63) + 1, (1 << 32) - 1, 1 << 32, -(1 << 32),
         (1 << 31) - 1, 1 << 31, -(1 << 31), 0x00000000FFFFFFFF, 0x7FFFFFFF00000000, 0x5555555555555555,
         -0x5555555555555556, (1 << 53) + 1, 3]


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _wrap(v: int, signed: bool) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if signed and v >> 63 else v


def numpy_signed(x: np.ndarray, y: np.ndarray, s: np.ndarray) -> list[np.ndarray]:
    with np.errstate(over="ignore"):
        sh = s.astype(np.int64)
        return [x + y, x - y, x * y, -x, x & ~y, x | y, x ^ y, x << sh, x >> sh, np.minimum(x, y), np.maximum(x, y),
                np.abs(x), (x < y) * 1 + (x <= y) * 2 + (x == y) * 4 + (x > y) * 8,
                np.array([_wrap(_trunc_div(int(a), int(b)), True) for a, b in zip(x, y)], np.int64),
                np.array([_wrap(int(a) - _trunc_div(int(a), int(b)) * int(b), True) for a, b in zip(x, y)], np.int64)]


def numpy_unsigned(p: np.ndarray, q: np.ndarray, s: np.ndarray) -> list[np.ndarray]:
    with np.errstate(over="ignore"):
        return [p + q, p - q, p * q, p >> s.astype(np.uint64), p // q, p % q, np.minimum(p, q), np.maximum(p, q),
                ((p < q) * 1 + (p >= q) * 2 + (p != q) * 4).astype(np.uint64)]


def operands() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    x = rng.integers(-(1 << 63), (1 << 63) - 1, N, dtype=np.int64, endpoint=True)
    y = rng.integers(-(1 << 40), 1 << 40, N, dtype=np.int64)
    k = len(EDGES)
    e = np.array(EDGES, dtype=np.int64)
    x[:k * k], y[:k * k] = np.repeat(e, k), np.tile(e, k)
    y[k * k:k * k + 100] = rng.integers(-(1 << 63), (1 << 63) - 1, 100, dtype=np.int64)
    y[y == 0] = 5
    s = rng.integers(0, 64, N, dtype=np.int32)
    s[:64] = np.arange(64)
    return x, y, s


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    path = tmp_path_factory.mktemp("numpy64") / "numpy64.sync"
    path.write_text(
        f"const N = {N}\n"
        f"kernel ops(a: global i64[N], b: global i64[N], sh: global i32[N], out: global i64[{len(SIGNED)}][N],\n"
        f"           uout: global u64[{len(UNSIGNED)}][N]) launch grid({N // 128}) block(128) {{\n"
        "    let x = a[gtid]\n    let y = b[gtid]\n    let s = sh[gtid]\n    let p = u64(x)\n    let q = u64(y)\n"
        + "".join(f"    out[{k}][gtid] = {e}\n" for k, e in enumerate(SIGNED))
        + "".join(f"    uout[{k}][gtid] = {e}\n" for k, e in enumerate(UNSIGNED)) + "}\n")
    return syncc.compile(str(path), target="fermi-sim")


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_fermi_agrees_with_numpy(program, engine):
    x, y, s = operands()
    out = np.zeros((len(SIGNED), N), np.int64)
    uout = np.zeros((len(UNSIGNED), N), np.uint64)
    program.ops(x, y, s, out, uout, sim_config=FermiConfig(engine=engine))
    p, q = x.view(np.uint64), y.view(np.uint64)
    bad = []
    for k, want in enumerate(numpy_signed(x, y, s)):
        for i in np.flatnonzero(out[k] != want)[:3]:
            bad.append(f"{SIGNED[k]} at x={x[i]}, y={y[i]}, s={s[i]}: {out[k][i]}, numpy {want[i]}")
    for k, want in enumerate(numpy_unsigned(p, q, s)):
        for i in np.flatnonzero(uout[k] != want)[:3]:
            bad.append(f"{UNSIGNED[k]} at p={p[i]}, q={q[i]}, s={s[i]}: {uout[k][i]}, numpy {want[i]}")
    assert not bad, f"{len(bad)} wrong: " + "; ".join(bad[:10])
