"""The Fermi SASS emitter (syncc/backends/fermi/emit/) judged by what its code computes.

Each test compiles a small program for the simulator (`target="fermi-sim"`), runs it, and
compares the arrays it wrote with a reference computed here, in Python or numpy, from what the
program means: never from the simulator or the compiler. Covered: every integer operator on i32
and u32 over edge and random values, division and remainder by registers and by constants,
immediates in every operand position, spills of general registers and of predicates, bools in
predicates and in memory, scalar parameters, special registers, shared and global atomics,
nested divergent loops with break/continue and early return, where a split warp meets again (a
warp vote after it), random structured programs against an interpreter of their own (on Fermi
and with independent thread scheduling), every example, the GPU stress programs and a sample of
the implementation matrix, the `.loc` lines, and E0801.
"""
from __future__ import annotations

import random
import re
import sys

import numpy as np
import pytest

import syncc
from helpers import EXAMPLES, ROOT, syncc as cli
from syncc.backends.fermi.asm import assemble
from syncc.backends.sim.machine import FermiConfig
from syncc.backends.fermi.printer import print_program
from syncc.core.source import SourceFile

M32 = 0xFFFFFFFF
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1


def wrap(x: int, signed: bool = True) -> int:
    x &= M32
    return x - (1 << 32) if signed and x >> 31 else x


def tdiv(x: int, y: int) -> int:
    """C's division: the quotient truncated toward zero."""
    q = abs(x) // abs(y)
    return -q if (x < 0) != (y < 0) else q


def trem(x: int, y: int) -> int:
    return x - tdiv(x, y) * y


def build(tmp_path, source: str, name: str = "prog", its: bool = False, **options):
    path = tmp_path / f"{name}.sync"
    path.write_text(source)
    config = FermiConfig(its=True) if its else None
    return syncc.compile(str(path), target="fermi-sim", sim_config=config, **options)


def values(signed: bool, n: int, seed: int) -> np.ndarray:
    """Edge values first (0, ±1, the extremes, small numbers), then random 32-bit words."""
    edge = [0, -1, INT_MIN, INT_MAX, 1, 2, 3, -3, 7, -7, 31, -32, INT_MIN + 1, INT_MAX - 1, 100, -100]
    rng = np.random.default_rng(seed)
    words = [x & M32 for x in edge] + [int(x) for x in rng.integers(0, 1 << 32, n - len(edge), dtype=np.uint64)]
    return np.array(words, dtype=np.uint32).view(np.int32 if signed else np.uint32)


# ---- arithmetic -------------------------------------------------------------------------------

BINARY = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": tdiv, "%": trem, "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
}
COMPARE = {"==": int.__eq__, "!=": int.__ne__, "<": int.__lt__, "<=": int.__le__, ">": int.__gt__,
           ">=": int.__ge__}


@pytest.mark.parametrize("t", ["i32", "u32"])
def test_every_integer_operator_on_registers(t, tmp_path):
    signed = t == "i32"
    n = 64
    cases = [(f"a[tid] {op} b[tid]", f) for op, f in BINARY.items()]
    cases += [(f"{t}(a[tid] {op} b[tid])", lambda a, b, f=f: int(f(a, b))) for op, f in COMPARE.items()]
    cases += [
        ("a[tid] << (b[tid] & 31)", lambda a, b: a << (b & 31)),
        ("a[tid] >> (b[tid] & 31)", lambda a, b: a >> (b & 31)),       # arithmetic for i32: a is signed
        ("min(a[tid], b[tid])", min), ("max(a[tid], b[tid])", max),
        ("min(a[tid], b[tid], a[(tid + 1) % 64])", None), ("abs(a[tid])", lambda a, b: abs(a)),
        ("-a[tid]", lambda a, b: -a), ("~a[tid]", lambda a, b: ~a),
        (f"{t}(popc(a[tid]))", lambda a, b: bin(a & M32).count("1")),
        ("select(a[tid] < b[tid], a[tid] - b[tid], b[tid] - a[tid])", lambda a, b: a - b if a < b else b - a),
    ]
    body = "\n".join(f"    out[{k}][tid] = {expr}" for k, (expr, _) in enumerate(cases))
    prog = build(tmp_path, f"kernel k(a: global {t}[{n}], b: global {t}[{n}], out: global {t}[{len(cases)}][{n}])"
                           f" launch grid(1) block({n}) {{\n{body}\n}}\n")
    a, b = values(signed, n, 1), values(signed, n, 2)
    b[:16] = values(signed, 32, 3)[16:32]             # edge dividends by random divisors ...
    a[16:32] = values(signed, 16, 4)                   # ... and random dividends by edge divisors
    b[16:32] = values(signed, 16, 5)[::-1]
    if signed:
        a[40], b[40] = INT_MIN, -1                     # the quotient that overflows: wraps to INT_MIN
    b[b == 0] = 1                                      # no division by zero (undefined)
    out = np.zeros((len(cases), n), a.dtype)
    prog.k(a, b, out)
    for k, (expr, f) in enumerate(cases):
        want = []
        for i in range(n):
            x, y = int(a[i]), int(b[i])
            if f is None:
                want.append(min(x, y, int(a[(i + 1) % n])))
            else:
                want.append(wrap(f(x, y), signed))
        assert out[k].tolist() == want, f"{t}: {expr}"


def _lit(c: int) -> str:
    return f"({c})" if c < 0 else str(c)


@pytest.mark.parametrize("t", ["i32", "u32"])
def test_division_remainder_and_immediates_by_constants(t, tmp_path):
    """Division by a constant is shifts or a multiply-high; immediates go in either operand."""
    signed = t == "i32"
    divisors = [1, 2, 3, 4, 7, 8, 10, 16, 25, 641, 1000, 1024, 65536, 0x7FFFF, 123456789, INT_MAX]
    divisors += [-1, -2, -3, -8, -100, -1024, INT_MIN] if signed else [1 << 31, (1 << 31) + 1, 0xFFFFFFFE, M32]
    cases = []
    for c in divisors:
        cases += [(f"a[tid] / {_lit(c)}", lambda x, c=c: tdiv(x, c)), (f"a[tid] % {_lit(c)}", lambda x, c=c: trem(x, c))]
    immediates = [5, 0x7FFFF, 0x80000, 123456789] + ([-1, INT_MIN] if signed else [M32, 1 << 31])
    for c in immediates:
        lit = _lit(c)
        cases += [
            (f"a[tid] + {lit}", lambda x, c=c: x + c), (f"{lit} - a[tid]", lambda x, c=c: c - x),
            (f"{lit} * a[tid]", lambda x, c=c: c * x), (f"a[tid] & {lit}", lambda x, c=c: x & c),
            (f"{lit} ^ a[tid]", lambda x, c=c: c ^ x), (f"{t}({lit} < a[tid])", lambda x, c=c: int(c < x)),
            (f"{t}(a[tid] <= {lit})", lambda x, c=c: int(x <= c)), (f"max({lit}, a[tid])", lambda x, c=c: max(c, x)),
            (f"select(a[tid] > 3, {lit}, a[tid])", lambda x, c=c: c if x > 3 else x),
            (f"{lit} / select(a[tid] == 0, 1, a[tid])", lambda x, c=c: tdiv(c, x or 1)),
            (f"{lit} % select(a[tid] == 0, 1, a[tid])", lambda x, c=c: trem(c, x or 1)),
        ]
    for s in (1, 5, 31):
        cases += [(f"a[tid] << {s}", lambda x, s=s: x << s), (f"a[tid] >> {s}", lambda x, s=s: x >> s)]
    n = 64
    body = "\n".join(f"    out[{k}][tid] = {expr}" for k, (expr, _) in enumerate(cases))
    prog = build(tmp_path, f"kernel k(a: global {t}[{n}], out: global {t}[{len(cases)}][{n}]) launch grid(1) "
                           f"block({n}) {{\n{body}\n}}\n")
    a = values(signed, n, 6)
    a[20:30] = np.arange(-5, 5) * 641 if signed else np.arange(10) * 641
    out = np.zeros((len(cases), n), a.dtype)
    prog.k(a, out)
    for k, (expr, f) in enumerate(cases):
        assert out[k].tolist() == [wrap(f(int(x)), signed) for x in a], f"{t}: {expr}"


def test_bools_in_predicates_in_memory_and_as_parameters(tmp_path):
    """An `if` that assigns its own condition, nested predicated arms, bool arrays and a bool
    parameter, bool equality and select of bools."""
    prog = build(tmp_path, """
kernel k(a: global i32[64], f: global bool[64], out: global i32[4][64], flag: bool, n: u32) launch grid(1) block(64) {
    var c = a[tid] > 5
    var x = 0
    if c { c = a[tid] > 10; x = 1 } else { x = 2 }
    out[0][tid] = x + select(c, 100, 0)
    var y = a[tid]
    if y % 2 == 0 {
        if y % 3 == 0 { y = y / 3 } else { y = -y }
        if y < 0 && f[tid] { y = y * 5 }
    } else {
        y = y + i32(f[tid])
    }
    out[1][tid] = y
    var p = f[tid]
    var q = !p
    if flag { p = q; q = a[tid] < 0 } else { q = p && a[tid] > 3 }
    f[tid] = p != q
    let b1 = a[tid] > 3
    let b2 = a[tid] < 20
    out[2][tid] = i32(p) + 2 * i32(q) + 4 * i32(b1 == b2) + 8 * i32(select(b1, b2, p)) + 16 * i32(b1 || flag)
    var u = u32(a[tid])
    if u > n { u = u - n } else { u = n - u }
    out[3][tid] = i32(u)
}
""")
    rng = np.random.default_rng(7)
    for flag, n in [(False, 3), (True, 4000000000)]:
        a = rng.integers(-30, 30, 64).astype(np.int32)
        f = rng.integers(0, 2, 64).astype(bool)
        f0 = f.copy()
        out = np.zeros((4, 64), np.int32)
        prog.k(a, f, out, flag, n)
        want, want_f = np.zeros((4, 64), np.int64), f0.copy()
        for i in range(64):
            v, fv = int(a[i]), bool(f0[i])
            c = v > 5
            if c:
                c, x = v > 10, 1
            else:
                x = 2
            want[0][i] = x + (100 if c else 0)
            y = v
            if trem(y, 2) == 0:
                y = tdiv(y, 3) if trem(y, 3) == 0 else -y
                if y < 0 and fv:
                    y *= 5
            else:
                y += int(fv)
            want[1][i] = y
            p = fv
            q = not p
            if flag:
                p, q = q, v < 0
            else:
                q = p and v > 3
            want_f[i] = p != q
            b1, b2 = v > 3, v < 20
            want[2][i] = int(p) + 2 * int(q) + 4 * int(b1 == b2) + 8 * int(b2 if b1 else p) + 16 * int(b1 or flag)
            u = v & M32
            want[3][i] = wrap(u - n if u > n else n - u)
        assert out.tolist() == want.tolist() and f.tolist() == want_f.tolist(), (flag, n)


def test_scalar_parameters_in_every_operand_position(tmp_path):
    prog = build(tmp_path, """
kernel k(a: global i32[64], u: global u32[64], out: global i32[9][64], n: i32, m: u32, f: bool, big: i32) launch grid(1) block(64) {
    out[0][tid] = a[tid] - n
    out[1][tid] = n - a[tid]
    out[2][tid] = n * a[tid] + big
    out[3][tid] = a[tid] / n + n % 7 - big / 1000
    out[4][tid] = select(f, n, big)
    out[5][tid] = i32(n < a[tid]) + 2 * i32(a[tid] < n) + 4 * i32(f != (a[tid] > 0))
    out[6][tid] = i32(u[tid] / m) + i32(m / (u[tid] | 1))
    out[7][tid] = i32(m - u[tid]) ^ i32(u[tid] >> (m & 31))
    if n > 5 { out[8][tid] = min(n, a[tid]) } else { out[8][tid] = max(big, a[tid]) }
}
""")
    rng = np.random.default_rng(9)
    for n, m, f, big in [(7, 3, True, 123456789), (-13, 0xFFFFFFF0, False, INT_MIN), (INT_MAX, 1, True, INT_MAX)]:
        a = rng.integers(-1000, 1000, 64).astype(np.int32)
        a[a == 0] = 1
        u = rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
        out = np.zeros((9, 64), np.int32)
        prog.k(a, u, out, n, m, f, big)
        for i in range(64):
            x, w = int(a[i]), int(u[i])
            want = [x - n, n - x, n * x + big, tdiv(x, n) + trem(n, 7) - tdiv(big, 1000), n if f else big,
                    int(n < x) + 2 * int(x < n) + 4 * int(f != (x > 0)), w // m + m // (w | 1),
                    ((m - w) & M32) ^ (w >> (m & 31)), min(n, x) if n > 5 else max(big, x)]
            assert out[:, i].tolist() == [wrap(v) for v in want], (n, m, f, big, i)


def test_special_registers_of_a_three_dimensional_launch(tmp_path):
    prog = build(tmp_path, """
kernel k(out: global i32[9][240]) launch grid(2, 3) block(4, 5, 2) {
    let i = (bid.y * 2 + bid.x) * 40 + tid.z * 20 + tid.y * 4 + tid.x
    out[0][i] = tid
    out[1][i] = bid
    out[2][i] = ntid * 1000 + ntid.x * 100 + ntid.y * 10 + ntid.z
    out[3][i] = nbid * 1000 + nbid.x * 100 + nbid.y * 10 + nbid.z
    out[4][i] = lane
    out[5][i] = warp
    out[6][i] = nwarps
    out[7][i] = gtid
    out[8][i] = bid.z
}
""")
    out = np.full((9, 240), -1, np.int32)
    prog.k(out)
    want = np.zeros((9, 240), np.int64)
    for by in range(3):
        for bx in range(2):
            for z in range(2):
                for y in range(5):
                    for x in range(4):
                        t, b = x + 4 * y + 20 * z, bx + 2 * by
                        want[:, b * 40 + z * 20 + y * 4 + x] = [t, b, 40 * 1000 + 4 * 100 + 5 * 10 + 2,
                                                                 6 * 1000 + 2 * 100 + 3 * 10 + 1, t % 32, t // 32, 2,
                                                                 b * 40 + t, 0]
    assert out.tolist() == want.tolist()


# ---- registers --------------------------------------------------------------------------------

def test_more_values_live_than_registers_spill_to_local_memory(tmp_path):
    live = 70                                   # R0-R62 hold 63
    lines = [f"    let v{i} = a[(tid + {i}) % 64] * {i + 3} + {i}" for i in range(live)]
    lines += ["    var acc = 0"] + [f"    acc = (acc ^ v{live - 1 - i}) + v{i} * {i % 5 + 1}" for i in range(live)]
    prog = build(tmp_path, "kernel k(a: global i32[64], out: global i32[64]) launch grid(1) block(64) {\n"
                 + "\n".join(lines) + "\n    out[tid] = acc\n}\n")
    sass = prog.fermi_sass()
    assert re.search(r"\bSTL \[", sass) and re.search(r"\bLDL R\d+, \[", sass), "no spill code"
    assert int(re.search(r"\.local_bytes (0x[0-9a-f]+)", sass).group(1), 16) >= 4
    a = np.random.default_rng(3).integers(-50, 50, 64).astype(np.int32)
    out = np.zeros(64, np.int32)
    prog.k(a, out)
    for t in range(64):
        v = [wrap(int(a[(t + i) % 64]) * (i + 3) + i) for i in range(live)]
        acc = 0
        for i in range(live):
            acc = wrap((acc ^ v[live - 1 - i]) + v[i] * (i % 5 + 1))
        assert out[t] == acc, t


def test_more_predicates_live_than_p0_to_p6_spill_to_registers(tmp_path):
    n = 12
    lines = [f"    let p{i} = a[(tid + {i}) % 64] > {i * 3 - 20}" for i in range(n)]
    lines += ["    var cnt = 0"] + [f"    if p{i} {{ cnt += {1 << i} }}" for i in range(n)]
    lines += [f"    if p{i} && !p{(i + 5) % n} {{ cnt += {1 << (i + 12)} }}" for i in range(n)]
    prog = build(tmp_path, "kernel k(a: global i32[64], out: global i32[64]) launch grid(1) block(64) {\n"
                 + "\n".join(lines) + "\n    out[tid] = cnt\n}\n")
    sass = prog.fermi_sass()
    assert re.search(r"SEL R\d+, RZ, 0x1, !P\d;", sass), "no predicate was spilled to a register"
    assert re.search(r"ISETP\.NE\.AND P\d, pt, R\d+, RZ, pt;", sass), "no spilled predicate was reloaded"
    a = np.random.default_rng(4).integers(-50, 50, 64).astype(np.int32)
    out = np.zeros(64, np.int32)
    prog.k(a, out)
    for t in range(64):
        p = [int(a[(t + i) % 64]) > i * 3 - 20 for i in range(n)]
        want = sum(1 << i for i in range(n) if p[i]) + sum(1 << (i + 12) for i in range(n) if p[i] and not p[(i + 5) % n])
        assert out[t] == want, t


def test_spilled_values_updated_under_guards_in_a_divergent_loop(tmp_path):
    live = 66
    lines = [f"    var v{i} = a[(tid + {i}) % 64] + {i}" for i in range(live)]
    lines += ["    var n = 0", "    while n < a[tid] % 4 + 2 {", "        n += 1"]
    for i in range(live):
        lines.append(f"        if (v{i} + n) % {i % 3 + 2} == 0 {{ v{i} = v{i} * 3 + v{(i + 1) % live} }}")
    lines += ["        if v3 > 100000 { break }", "    }", "    var acc = n"]
    lines += [f"    acc = acc * 31 + v{i}" for i in range(live)]
    prog = build(tmp_path, "kernel k(a: global i32[64], out: global i32[64]) launch grid(1) block(64) {\n"
                 + "\n".join(lines) + "\n    out[tid] = acc\n}\n")
    assert "STL" in prog.fermi_sass()
    a = np.random.default_rng(5).integers(-50, 50, 64).astype(np.int32)
    out = np.zeros(64, np.int32)
    prog.k(a, out)
    for t in range(64):
        v = [wrap(int(a[(t + i) % 64]) + i) for i in range(live)]
        n = 0
        while n < trem(int(a[t]), 4) + 2:
            n += 1
            for i in range(live):
                if trem(wrap(v[i] + n), i % 3 + 2) == 0:
                    v[i] = wrap(v[i] * 3 + v[(i + 1) % live])
            if v[3] > 100000:
                break
        acc = n
        for i in range(live):
            acc = wrap(acc * 31 + v[i])
        assert out[t] == acc, t


# ---- control flow and reconvergence ------------------------------------------------------------

LOOPS = """
kernel loops(a: global i32[64], out: global i32[64]) launch grid(1) block(64) {
    var s = 0
    for i in 0 .. a[tid] % 13 {
        if i == 7 && tid % 3 == 0 { break }
        var j = 0
        while j < i + tid % 5 {
            j += 1
            if (i + j) % 4 == 1 { continue }
            if j * i > 40 + tid { break }
            s += i * j
        }
        if (s & 1) == 1 { continue }
        s += 3
    }
    out[tid] = s
}
kernel early(a: global i32[64], out: global i32[64]) launch grid(1) block(64) {
    out[tid] = -1
    if a[tid] % 4 == 0 { return }
    var x = a[tid]
    while true {
        if x > 1000 { out[tid] = x; return }
        if x % 7 == 3 { break }
        x = x * 2 + 1
    }
    for i in 0 .. 3 {
        if (x + i) % 5 == 0 { return }
        x += i
    }
    out[tid] = x + 10000
}
kernel arms(a: global i32[64], out: global i32[64]) launch grid(1) block(64) {
    var v = 0
    for i in 0 .. a[tid] % 40 {
        if i == tid {
            if i < 5 { continue }
        } else {
            if i > lane || i == 3 { continue }
        }
        v = i
    }
    out[tid] = v
}
"""


def _loops(a: int, t: int) -> int:
    s = 0
    for i in range(trem(a, 13)):
        if i == 7 and t % 3 == 0:
            break
        j = 0
        while j < i + t % 5:
            j += 1
            if (i + j) % 4 == 1:
                continue
            if j * i > 40 + t:
                break
            s += i * j
        if s & 1:
            continue
        s += 3
    return s


def _early(a: int) -> int:
    if trem(a, 4) == 0:
        return -1
    x = a
    while True:
        if x > 1000:
            return x
        if trem(x, 7) == 3:
            break
        x = wrap(x * 2 + 1)
    for i in range(3):
        if trem(x + i, 5) == 0:
            return -1
        x += i
    return wrap(x + 10000)


def _arms(a: int, t: int) -> int:
    v = 0
    for i in range(trem(a, 40)):
        if i == t:
            if i < 5:
                continue
        elif i > t % 32 or i == 3:
            continue
        v = i
    return v


@pytest.mark.parametrize("its", [False, True], ids=["fermi", "its"])
def test_nested_divergent_loops_break_continue_and_early_return(its, tmp_path):
    prog = build(tmp_path, LOOPS, its=its)
    a = np.random.default_rng(5).integers(-20, 200, 64).astype(np.int32)
    for name, ref in [("loops", lambda t: _loops(int(a[t]), t)), ("early", lambda t: _early(int(a[t]))),
                      ("arms", lambda t: _arms(int(a[t]), t))]:
        out = np.zeros(64, np.int32)
        getattr(prog, name)(a, out)
        assert out.tolist() == [ref(t) for t in range(64)], name


VOTES = """
kernel after_return(a: global i32[64], out: global u32[64]) launch grid(1) block(64) {
    var x = a[tid]
    if x > 10 {
        x = x * 2
        out[tid] = u32(x)
        out[tid] += u32(x * x)
        out[tid] += u32(x ^ 7)
        if x > 100 { return }
        out[tid] = 0
    }
    out[tid] = ballot(true)
}
kernel after_loop(a: global i32[64], out: global u32[64]) launch grid(1) block(64) {
    var i = 0
    while i < a[tid] % 8 {
        i += 1
        if i * a[tid] > 300 { break }
    }
    out[tid] = ballot(i % 2 == 0)
}
kernel at_start(a: global i32[64], out: global u32[64]) launch grid(1) block(64) {
    if a[tid] > 100 {
        out[tid] = u32(a[tid] * 3 + 1)
        out[tid] = out[tid] * 5 + u32(a[(tid + 1) % 64])
        out[tid] = out[tid] * 7 + u32(a[(tid + 2) % 64])
        out[tid] = out[tid] * 9 + u32(a[(tid + 3) % 64])
    }
    out[tid] = ballot(true) ^ out[tid]
}
"""


@pytest.mark.parametrize("its", [False, True], ids=["fermi", "its"])
def test_a_split_warp_meets_again_before_a_vote(its, tmp_path):
    """A ballot after a divergent `if` sees every lane that did not return, after a loop with a
    divergent exit every lane, and after an `if` in the first block every lane."""
    prog = build(tmp_path, VOTES, its=its)
    a = (np.arange(64, dtype=np.int32) * 37) % 211 - 20
    out = np.zeros(64, np.uint32)
    prog.after_return(a, out)
    alive = [t for t in range(64) if not (a[t] > 10 and 2 * a[t] > 100)]
    for t in alive:
        assert out[t] == sum(1 << (u % 32) for u in alive if u // 32 == t // 32), t
    out[:] = 0
    prog.after_loop(a, out)
    for w in range(2):
        even = 0
        for t in range(32 * w, 32 * w + 32):
            i = 0
            while i < trem(int(a[t]), 8):
                i += 1
                if i * int(a[t]) > 300:
                    break
            even |= (i % 2 == 0) << (t % 32)
        assert out[32 * w: 32 * w + 32].tolist() == [even] * 32
    out[:] = 0
    prog.at_start(a, out)
    for t in range(64):
        v = 0
        if a[t] > 100:
            v = wrap(int(a[t]) * 3 + 1, False)
            for k, m in ((1, 5), (2, 7), (3, 9)):
                v = wrap(v * m + int(a[(t + k) % 64]), False)
        assert out[t] == v ^ M32, t


ITS_SHAPES = """
kernel both_arms(a: global i32[64], out: global i32[64]) launch grid(1) block(64) {
    if tid > 3 {
        var w = 0
        while w < 2 && a[tid] > 0 { w += 1 }
        out[tid] = w
    } else {
        out[tid] = 13 / a[tid]
    }
}
kernel short_circuit(a: global i32[64], out: global i32[64]) launch grid(1) block(64) {
    var v = tid
    if a[tid] != 3 && tid > 20 {
    } else {
        v = (lane << (tid & 7)) + tid / select(a[tid] == 0, 1, a[tid])
    }
    out[tid] = v
}
kernel side_entry(a: global i32[64], out: global i32[64]) launch grid(1) block(64) {
    var v = 0
    for i in 0 .. 2 {
        if a[tid] > i {
            if a[tid] > 5 && lane == 9 {
                if tid != 3 { break }
            }
        } else {
            if tid > 30 { continue }
        }
        for j in 0 .. (tid & 3) { v += j }
        v += a[tid] / select(a[tid] == 0, 1, a[tid] % 5 + 7)
    }
    out[tid] = v
}
"""


@pytest.mark.parametrize("its", [False, True], ids=["fermi", "its"])
def test_regions_that_can_be_open_in_two_splits_at_once(its, tmp_path):
    """Regressions for independent thread scheduling: loops in both arms of an `if` (two convergence
    barriers, not one), a region nested in another with the same join, and a region entered from
    both sides of an `if` (a second BSSY would overwrite the first's lanes)."""
    prog = build(tmp_path, ITS_SHAPES, its=its)
    a = np.random.default_rng(241).integers(-50, 50, 64).astype(np.int32)
    a[a == 0] = 1
    out = np.zeros(64, np.int32)
    prog.both_arms(a, out)
    want = []
    for t in range(64):
        if t > 3:
            w = 0
            while w < 2 and a[t] > 0:
                w += 1
            want.append(w)
        else:
            want.append(tdiv(13, int(a[t])))
    assert out.tolist() == want
    prog.short_circuit(a, out)
    assert out.tolist() == [t if a[t] != 3 and t > 20 else wrap(((t % 32) << (t & 7)) + tdiv(t, int(a[t])))
                            for t in range(64)]
    prog.side_entry(a, out)
    want = []
    for t in range(64):
        x, v = int(a[t]), 0
        for i in range(2):
            if x > i:
                if x > 5 and t % 32 == 9 and t != 3:
                    break
            elif t > 30:
                continue
            v += sum(range(t & 3))
            v += tdiv(x, trem(x, 5) + 7)
        want.append(v)
    assert out.tolist() == want


# ---- random structured programs against an interpreter -------------------------------------

class _Return(Exception):
    pass


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Program:
    """A random kernel of if/else, for, while, break, continue and return over four variables, and
    an interpreter of the same tree: the reference."""
    VARS = 4
    OUTS = 4

    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.depth, self.loops, self.in_loop = 0, 0, False
        self.loop_vars: list[str] = []
        init = [("set", v, self.expr()) for v in range(self.VARS)]
        self.tree = init + self.stmts(self.r.randint(3, 6)) + [("out", o, ("v", o)) for o in range(self.OUTS)]

    # -- generation
    def atom(self):
        r = self.r
        choices = [("v", r.randrange(self.VARS))] * 4 + [("tid",), ("lane",), ("a",), ("k", r.randint(-40, 40))]
        return r.choice(choices + [("i", x) for x in self.loop_vars] * 2)

    def expr(self, d: int = 0):
        r = self.r
        if d > 2 or r.random() < 0.3:
            return self.atom()
        op = r.choice(["+", "-", "*", "&", "|", "^", "<<", ">>", "min", "max", "/k", "%k", "/r", "%r", "sel", "neg"])
        if op in ("/k", "%k"):
            return (op, self.expr(d + 1), r.choice([1, 2, 3, 7, 8, -1, -5, -8, 10, 1000]))
        if op == "neg":
            return (op, self.expr(d + 1))
        if op == "sel":
            return (op, self.cond(d + 1), self.expr(d + 1), self.expr(d + 1))
        return (op, self.expr(d + 1), self.expr(d + 1))

    def cond(self, d: int = 0):
        r = self.r
        if d < 2 and r.random() < 0.25:
            return (r.choice(["&&", "||"]), self.cond(d + 1), self.cond(d + 1))
        return (r.choice(["<", "<=", ">", ">=", "==", "!="]), self.expr(d + 1), self.expr(d + 1))

    def stmts(self, n: int) -> list:
        return [self.stmt() for _ in range(n)]

    def stmt(self):
        r = self.r
        kinds = ["set"] * 5 + ["out"] * 2 + (["if"] * 3 + ["for", "while"] if self.depth < 3 else [])
        kinds += ["break", "continue"] if self.in_loop else []
        kinds += ["return"] if r.random() < 0.15 else []
        kind = r.choice(kinds)
        if kind == "set":
            return ("set", r.randrange(self.VARS), self.expr())
        if kind == "out":
            return ("out", r.randrange(self.OUTS), self.expr())
        if kind in ("break", "continue", "return"):
            return ("jump", kind, self.cond())
        self.depth += 1
        saved = self.in_loop
        try:
            if kind == "if":
                return ("if", self.cond(), self.stmts(r.randint(1, 3)), self.stmts(r.randint(0, 2)))
            self.in_loop = True
            self.loops += 1
            if kind == "for":
                name = f"i{self.loops}"
                self.loop_vars.append(name)
                body = self.stmts(r.randint(1, 3))
                self.loop_vars.pop()
                end = r.choice([("k", r.randint(0, 5)), ("&", ("a",), ("k", 7)), ("&", ("tid",), ("k", 3))])
                return ("for", name, end, body)
            return ("while", f"w{self.loops}", r.randint(1, 4), self.cond(), self.stmts(r.randint(1, 3)))
        finally:
            self.in_loop = saved
            self.depth -= 1

    # -- the program text
    def text(self, n: int) -> str:
        lines = [f"kernel k(a: global i32[{n}], out: global i32[{self.OUTS}][{n}]) launch grid(1) block({n}) {{"]
        lines += [f"    var v{i} = 0" for i in range(self.VARS)] + self.render(self.tree, "    ") + ["}"]
        return "\n".join(lines) + "\n"

    def render(self, stmts, ind: str) -> list[str]:
        out = []
        for s in stmts:
            if s[0] == "set":
                out.append(f"{ind}v{s[1]} = {self.e(s[2])}")
            elif s[0] == "out":
                out.append(f"{ind}out[{s[1]}][tid] = {self.e(s[2])}")
            elif s[0] == "jump":
                out.append(f"{ind}if {self.c(s[2])} {{ {s[1]} }}")
            elif s[0] == "if":
                out += [f"{ind}if {self.c(s[1])} {{", *self.render(s[2], ind + "    ")]
                if s[3]:
                    out += [f"{ind}}} else {{", *self.render(s[3], ind + "    ")]
                out.append(f"{ind}}}")
            elif s[0] == "for":
                out += [f"{ind}for {s[1]} in 0 .. {self.e(s[2])} {{", *self.render(s[3], ind + "    "), f"{ind}}}"]
            else:
                out += [f"{ind}var {s[1]} = 0", f"{ind}while {s[1]} < {s[2]} && {self.c(s[3])} {{",
                        f"{ind}    {s[1]} += 1", *self.render(s[4], ind + "    "), f"{ind}}}"]
        return out

    def e(self, x) -> str:
        k = x[0]
        simple = {"v": lambda: f"v{x[1]}", "i": lambda: x[1], "tid": lambda: "tid", "lane": lambda: "lane",
                  "a": lambda: "a[tid]", "k": lambda: _lit(x[1])}
        if k in simple:
            return simple[k]()
        if k == "neg":
            return f"(-{self.e(x[1])})"
        if k in ("min", "max"):
            return f"{k}({self.e(x[1])}, {self.e(x[2])})"
        if k == "sel":
            return f"select({self.c(x[1])}, {self.e(x[2])}, {self.e(x[3])})"
        if k in ("<<", ">>"):
            return f"({self.e(x[1])} {k} ({self.e(x[2])} & 31))"
        if k in ("/k", "%k"):
            return f"({self.e(x[1])} {k[0]} {_lit(x[2])})"
        if k in ("/r", "%r"):
            d = self.e(x[2])
            return f"({self.e(x[1])} {k[0]} select({d} == 0, 1, {d}))"
        return f"({self.e(x[1])} {k} {self.e(x[2])})"

    def c(self, x) -> str:
        if x[0] in ("&&", "||"):
            return f"({self.c(x[1])} {x[0]} {self.c(x[2])})"
        return f"({self.e(x[1])} {x[0]} {self.e(x[2])})"

    # -- the reference
    def run(self, a: int, tid: int, out: list) -> None:
        env = {"v": [0] * self.VARS, "i": {}, "a": a, "tid": tid, "out": out}
        try:
            self.exec(self.tree, env)
        except _Return:
            pass

    def exec(self, stmts, env) -> None:
        for s in stmts:
            k = s[0]
            if k == "set":
                env["v"][s[1]] = self.val(s[2], env)
            elif k == "out":
                env["out"][s[1]] = self.val(s[2], env)
            elif k == "jump":
                if self.test(s[2], env):
                    raise {"break": _Break, "continue": _Continue, "return": _Return}[s[1]]()
            elif k == "if":
                self.exec(s[2] if self.test(s[1], env) else s[3], env)
            elif k == "for":
                end, i = self.val(s[2], env), 0
                while i < end:
                    env["i"][s[1]] = i
                    try:
                        self.exec(s[3], env)
                    except _Continue:
                        pass
                    except _Break:
                        break
                    i += 1
            else:
                w = 0
                while w < s[2] and self.test(s[3], env):
                    w += 1
                    try:
                        self.exec(s[4], env)
                    except _Continue:
                        pass
                    except _Break:
                        break

    def val(self, x, env) -> int:
        k = x[0]
        if k == "v":
            return env["v"][x[1]]
        if k == "i":
            return env["i"][x[1]]
        if k in ("tid", "a"):
            return env[k]
        if k == "lane":
            return env["tid"] % 32
        if k == "k":
            return x[1]
        if k == "neg":
            return wrap(-self.val(x[1], env))
        if k == "sel":
            return self.val(x[2], env) if self.test(x[1], env) else self.val(x[3], env)
        a = self.val(x[1], env)
        b = x[2] if k in ("/k", "%k") else self.val(x[2], env)
        if k in ("/r", "%r"):
            b = b or 1
        ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "&": lambda: a & b, "|": lambda: a | b,
               "^": lambda: a ^ b, "<<": lambda: a << (b & 31), ">>": lambda: a >> (b & 31), "min": lambda: min(a, b),
               "max": lambda: max(a, b), "/k": lambda: tdiv(a, b), "/r": lambda: tdiv(a, b),
               "%k": lambda: trem(a, b), "%r": lambda: trem(a, b)}
        return wrap(ops[k]())

    def test(self, x, env) -> bool:
        if x[0] == "&&":
            return self.test(x[1], env) and self.test(x[2], env)
        if x[0] == "||":
            return self.test(x[1], env) or self.test(x[2], env)
        a, b = self.val(x[1], env), self.val(x[2], env)
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[x[0]]


# Seeds whose programs are quick to compile and run. Programs like these found the overlapping
# regions of an if/else with `continue` in both arms; the ITS seeds 7, 8, 11 and 19 need more
# convergence barriers than a kernel has unless regions run one after the other share one, or
# deadlocked when two splits entered one region.
RANDOM = [(s, False) for s in (0, 3, 4, 5, 10, 12, 38, 82)] + [(s, True) for s in (3, 7, 8, 11, 19, 71)]


@pytest.mark.parametrize("seed, its", RANDOM, ids=[f"{'its' if its else 'fermi'}-{s}" for s, its in RANDOM])
def test_random_structured_program_against_an_interpreter(seed, its, tmp_path):
    p = Program(seed)
    n = 64
    try:
        prog = build(tmp_path, p.text(n), f"random{seed}", its=its)
    except syncc.CompileError as e:           # a constant subexpression out of range (E0305): not ours
        pytest.skip(f"the program does not compile: {e}")
    a = np.random.default_rng(seed).integers(-50, 50, n).astype(np.int32)
    out = np.full((p.OUTS, n), 12345, np.int32)
    prog.k(a, out)
    want = [[12345] * n for _ in range(p.OUTS)]
    for t in range(n):
        cells: dict[int, int] = {}
        p.run(int(a[t]), t, cells)
        for o, v in cells.items():
            want[o][t] = v
    assert out.tolist() == want, p.text(n)


# ---- memory and atomics ------------------------------------------------------------------------

def test_shared_atomics_are_lock_bit_loops_that_lose_nothing(tmp_path):
    prog = build(tmp_path, """
kernel k(a: global i32[64], olds: global i32[9][64], out: global i32[9]) launch grid(1) block(64) {
    shared w: i32[9]
    if tid < 9 { w[tid] = 5 }
    barrier
    olds[0][tid] = atomic_add(w[0], a[tid])
    olds[1][tid] = atomic_sub(w[1], a[tid])
    olds[2][tid] = atomic_min(w[2], a[tid])
    olds[3][tid] = atomic_max(w[3], a[tid])
    olds[4][tid] = atomic_and(w[4], a[tid] | 0x7ffffff0)
    olds[5][tid] = atomic_or(w[5], 1 << (tid % 31))
    olds[6][tid] = atomic_xor(w[6], a[tid])
    olds[7][tid] = atomic_exch(w[7], tid)
    olds[8][tid] = atomic_cas(w[8], tid + 4, tid + 5)
    barrier
    if tid < 9 { out[tid] = w[tid] }
}
""")
    a = np.random.default_rng(5).integers(-1000, 1000, 64).astype(np.int32)
    olds, out = np.zeros((9, 64), np.int32), np.zeros(9, np.int32)
    prog.k(a, olds, out)
    xs = [int(x) for x in a]
    final = [5 + sum(xs), 5 - sum(xs), min([5] + xs), max([5] + xs), 5, 5, 5]
    for x in xs:
        final[4] &= x | 0x7FFFFFF0
        final[6] ^= x
    for t in range(64):
        final[5] |= 1 << (t % 31)
    assert out[:7].tolist() == [wrap(v) for v in final]
    # every old value is the word just before that thread's update: each update applies once
    for row, step in ((0, lambda o, x: o + x), (1, lambda o, x: o - x)):
        assert sorted([5] + [wrap(step(int(olds[row][t]), xs[t])) for t in range(64)]) == \
            sorted(olds[row].tolist() + [int(out[row])])
    assert sorted(olds[7].tolist() + [int(out[7])]) == sorted([5] + list(range(64)))
    # the CAS chain 5 -> 6 (thread 1) -> 7 (thread 2) -> ...: a thread succeeds only after the one
    # before it, thread 1 always does, and the word counts the successes
    won = [t for t in range(64) if olds[8][t] == t + 4]
    assert won == list(range(1, len(won) + 1)) and out[8] == 5 + len(won)


def test_global_atomics_across_blocks(tmp_path):
    prog = build(tmp_path, """
kernel k(c: global i32[5], u: global u32[2], old: global i32[128]) launch grid(2) block(64) {
    atomic_add(c[0], 1)
    old[gtid] = atomic_add(c[1], gtid)
    atomic_min(c[2], -gtid)
    atomic_max(u[0], u32(gtid) * 0x2000000)
    if atomic_cas(c[3], 0, gtid + 1) == 0 { atomic_add(c[4], 1) }
    atomic_exch(u[1], 7)
    atomic_sub(c[0], 3)
}
""")
    c, u, old = np.zeros(5, np.int32), np.zeros(2, np.uint32), np.zeros(128, np.int32)
    prog.k(c, u, old)
    assert c[0] == 128 * (1 - 3) and c[1] == sum(range(128)) and c[2] == -127
    assert u[0] == max((g * 0x2000000) & M32 for g in range(128)) and u[1] == 7    # an unsigned maximum
    assert 1 <= c[3] <= 128 and c[4] == 1                           # one CAS wins
    # each old value is the sum just before that thread's add: the adds form one chain from 0
    assert sorted([0] + [int(o) + t for t, o in enumerate(old)]) == sorted(old.tolist() + [int(c[1])])


# ---- whole programs ----------------------------------------------------------------------------

# The examples as they are, except the two slowest on the simulator, shrunk (same code paths)
SHRINK = {"hashtable.sync": ("-D", "BLOCKS=4"), "barrier.sync": ("-D", "BLOCKS=4", "-D", "ROUNDS=6")}


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_every_example_verifies_itself_on_the_simulator(path):
    r = cli("run", str(path.relative_to(ROOT)), "--target", "fermi-sim", *SHRINK.get(path.name, ()))
    assert r.code == 0, r.out + r.err


def test_the_chain_example_with_independent_thread_scheduling():
    r = cli("run", "examples/chain.sync", "--target", "fermi-sim", "--its")
    assert r.code == 0, r.out + r.err


STRESS = ["mutex_stress.sync", "semaphore_stress.sync", "barrier_stress.sync", "channel_stress.sync"]


@pytest.mark.parametrize("name", STRESS)
def test_gpu_stress_programs_on_the_simulator(name):
    """tests/gpu/ (not deadlock.sync, which must not finish), shrunk to 2 blocks of 64 threads and
    2 rounds: their host blocks check mutual exclusion, the permit bound, barrier order and
    message passing, and fail the run otherwise."""
    defines = ["-D", "BLOCKS=2", "-D", "THREADS=64"]
    defines += ["-D", "ITER=2"] if name in ("mutex_stress.sync", "semaphore_stress.sync") else ["-D", "ROUNDS=2"]
    r = cli("run", f"tests/gpu/{name}", "--target", "fermi-sim", *defines)
    assert r.code == 0, r.out + r.err
    assert "violations: 0" in r.out or "most inside at once" in r.out, r.out


def _matrix_sample():
    sys.path.insert(0, str(ROOT / "tests"))
    from matrix_programs import programs
    seen, out = set(), []
    for name, source in programs():
        kind, impl, placement, gran, form = (name.split("-") + [""])[:5]
        if "namedbar" in name and form in ("get", "when"):
            continue       # warp 0 both puts and takes slot 0 through one named barrier: deadlocks anywhere
        key = (kind, impl, placement, gran)
        if key in seen and impl != "tinylock":
            continue
        seen.add(key)
        out.append((name, source))
    return out


MATRIX = _matrix_sample()


@pytest.mark.parametrize("name, source", MATRIX, ids=[name for name, _ in MATRIX])
def test_implementation_matrix_sample(name, source, tmp_path):
    """One program per implementation, placement and granularity (every form for tiny locks), launched
    with the Python API: what each form must leave in `out`."""
    prog = build(tmp_path, source, "matrix")
    out = np.zeros(256, np.int32)
    prog.k(out)
    grid = int(re.search(r"grid\((\d+)\)", source).group(1))
    block = int(re.search(r"block\((\d+)\)", source).group(1))
    kind, impl, placement, gran, form = (name.split("-") + [""])[:5]
    form = name.split(f"{gran}-", 1)[1] if f"{gran}-" in name else ""
    threads, parties = grid * block, {"thread": grid * block, "warp": grid * block // 32, "block": grid}.get(gran)
    if kind == "mutex":
        # a @warp or @block party runs the body with all its lanes at once, each lane on its own
        # element (matrix_programs._own_elements: one word from every lane would be E0731)
        counts = {"critical": (0, parties), "lock": (2, parties)}
        if form in counts and gran != "thread":
            assert (out[:threads] == 1).all(), out[:threads]
        elif form in counts:
            slot, want = counts[form]
            assert out[slot] == want, out[:4]
        elif form == "critical-rmw" and gran == "thread":
            assert out[1] == grid * sum(range(block))
        elif form == "trylock" and gran != "thread":
            assert 1 <= out[:threads].sum() // (threads // parties) <= parties
        elif form == "trylock":
            assert 1 <= out[3] <= parties
    elif kind == "semaphore":
        assert 1 <= out[0 if form == "acquire" else 1] <= threads     # two permits: increments may race
    elif kind == "scan":
        # tile t's thread i writes its running sum to out[t * 64 + i], in tile order: of tid % 5
        # before it (exclusive, i32), or of 0.5 up to it, converted toward zero (inclusive, f32)
        if form == "exclusive":
            values = [i % 5 for _ in range(grid) for i in range(block)]
            want = [sum(values[:k]) for k in range(threads)]
        else:
            want = [(k + 1) // 2 for k in range(threads)]
        assert out[:threads].tolist() == want
    elif kind == "channel":
        if gran != "thread":
            want = [5] * block if form == "get" else [t % 32 for t in range(block)]
        else:
            want = {"when": [7] * block, "get": [5] * block, "await": [0] * block, "read": list(range(block))}[form]
        assert out[:block].tolist() == want
    elif kind == "rwlock":
        # readers all get in (every lane counts); a writer party's lanes store one increment per party
        if form == "read":
            assert out[2] == threads
        elif form == "write":
            assert out[1] == parties
    elif kind == "latch":
        if form == "sync":      # every party counts down before anyone reads a neighbour's word
            assert out[64:128].tolist() == [(t + 1) % 64 for t in range(64)]
    elif kind == "queue" and form == "put-get" and impl in ("spsc", "tinylock"):
        # pair l: lane l of warp 1 (or thread l of block 1) takes what lane l of the other put
        assert out[32:40].tolist() == list(range(8))
    elif kind == "queue" and form == "put-get" and gran == "block":
        # block 1 takes the item block 0 put: thread t the value of thread t
        assert out[:64].tolist() == list(range(64))
    elif kind == "queue" and form == "put-get":
        # threads 32-63 of each block take what threads 0-31 of the block put into its queue (at
        # @warp: warp 1's lane l what warp 0's lane l put)
        taken = out[32:64].tolist()
        if gran == "warp":
            assert taken == list(range(32))
        else:
            assert sorted(taken) == list(range(32)) if grid == 1 else set(taken) <= set(range(32))
    elif kind == "queue":       # single attempts: what was taken was put, once
        taken = [v for v in out[64:128].tolist() if v]
        assert len(taken) == len(set(taken)) and len(taken) <= out[:64].sum()
    elif name.endswith("-named"):
        assert out[:128].tolist() == list(range(64)) * 2
    else:
        # every thread wrote 1 before the barrier, so after it every word is 1 + a neighbour's 1 or 2
        assert set(out[:threads].tolist()) <= {2, 3} and out[:threads].tolist().count(3) <= threads // 32


# ---- what the SASS says -------------------------------------------------------------------------

def test_loc_lines_quote_the_source_lines_they_name(tmp_path):
    source = LOOPS
    prog = build(tmp_path, source)
    sass = prog.fermi_sass()
    lines = source.splitlines()
    locs = re.findall(r"^\s*\.loc (\d+) (\d+)\s+// (.*)$", sass, re.M)
    assert len(locs) > 20
    for line, col, quoted in locs:
        text = lines[int(line) - 1]
        assert quoted.strip() == text.strip() and 1 <= int(col) <= len(text), (line, col, quoted)
    assert f'.source "{tmp_path / "prog.sync"}"' in sass
    # the loop's test points at the `for` line, the break at its `if`
    assert any(lines[int(ln) - 1].strip().startswith("if i == 7") for ln, _, _ in locs)


def test_emitted_kernels_assemble_back_to_themselves():
    """What `--target fermi-sass` prints for every example is valid .sass that reads back to the
    same kernels (what `syncc run FILE.sass` would run)."""
    for path in EXAMPLES:
        comp = syncc.compile(str(path), target="fermi-sim")
        program = comp._fermi_program()
        text = print_program(program)
        again = assemble(SourceFile(path.name + ".sass", text))
        assert [k.name for k in again.kernels] == [k.name for k in program.kernels]
        for k, k2 in zip(program.kernels, again.kernels):
            assert k2 == k, (path.name, k.name)


def test_64_bit_integers_compile_to_register_pairs_with_carries(tmp_path):
    """i64 and u64 live in register pairs: + is IADD.CC then IADD.X, a conversion from i32 the word and
    its sign (SHR 0x1f), to f64 I2F.F64.S64, division the loop (no E0801); clock() reads the high
    word, the low one and the high one again."""
    prog = build(tmp_path, "kernel k(a: global i32[64], d: global u64[64]) launch grid(1) block(64) {\n"
                           "    let x = a[tid] + 1\n    let big: i64 = i64(x) * 3 + clock()\n"
                           "    d[tid] = u64(big) / u64(x)\n    a[tid] = i32(f64(big))\n}\n")
    sass = prog.fermi_sass()
    for pattern in (r"IADD\.CC R(\d*[02468]), R\d*[02468], R\d*[02468];\n.*IADD\.X R\d*[13579], R\d*[13579], "
                    r"R\d*[13579];", r"SHR R\d*[13579], R\d+, 0x1f;", r"I2F\.F64\.S64 R\d*[02468], R\d*[02468];",
                    r"S2R R\d+, SR_ClockHi;\n.*S2R R\d+, SR_ClockLo;\n.*S2R R\d+, SR_ClockHi;",
                    r"ST\.64 \[R\d+\], R\d*[02468]"):
        assert re.search(pattern, sass), (pattern, sass)
    assert "E0801" not in sass


@pytest.mark.parametrize("expr, mufu", [("x / y", "MUFU.RCP64H"), ("sqrt(x)", "MUFU.RSQ64H"), ("x / 3.0", "MUFU.RCP64H")])
def test_f64_division_and_square_root_are_mufu_refined_in_one_block(tmp_path, expr, mufu):
    """f64 `/` and sqrt: float_rounding.py's sequence, a 20-bit MUFU ...64H seed refined by DFMA,
    with no branch (the kernel keeps its blocks), and no E0801."""
    prog = build(tmp_path, "kernel k(a: global f64[64], b: global f64[64]) launch grid(1) block(64) {\n"
                           f"    let x = a[tid]\n    let y = b[tid]\n    a[tid] = {expr}\n}}\n")
    sass = prog.fermi_sass()
    assert mufu in sass and sass.count("DFMA") >= 6
    assert "BRA" not in sass.split("// a[tid]", 1)[1]


def test_f64_arithmetic_compiles_to_register_pairs(tmp_path):
    """f64 lives in register pairs: a load is LD.64 into an even register, arithmetic DMUL/DADD on
    pairs, a conversion F2F/F2I .F64, a store ST.64; no E0801."""
    prog = build(tmp_path, "kernel k(a: global i32[64], d: global f64[64]) launch grid(1) block(64) {\n"
                           "    let x = a[tid] + 1\n    let h = f64(x) * 0.5 + d[tid]\n"
                           "    d[tid] = h\n    a[tid] = i32(h) + i32(f32(h))\n}\n")
    sass = prog.fermi_sass()
    for pattern in (r"LD(\.CG)?\.64 R(\d*[02468]), \[R\d+\]", r"I2F\.F64\.S32 R\d*[02468], R\d+",
                    r"DMUL R\d*[02468], R\d*[02468], R\d*[02468]", r"DADD R\d*[02468], R\d*[02468], R\d*[02468]",
                    r"ST\.64 \[R\d+\], R\d*[02468]", r"F2I\.S32\.F64\.TRUNC R\d+, R\d*[02468]",
                    r"F2F\.F32\.F64 R\d+, R\d*[02468]"):
        assert re.search(pattern, sass), (pattern, sass)


@pytest.mark.parametrize("t", ["f64", "i64"])
def test_a_shared_64_bit_atomic_holds_its_low_words_lock_bit(tmp_path, t):
    """A shared 64-bit word's atomic is seed 000's lock-bit loop around the pair: LDSLK takes the low
    word's bit (and loads it), LDS the high word; the new value's high word is stored with STS before
    STSUL stores the low one and frees the bit. The pair is 8-byte aligned (an even word)."""
    prog = build(tmp_path, f"kernel k(a: global i32[64]) launch grid(1) block(64) {{\n    shared s: {t}[1]\n"
                           f"    let x = {t}(a[tid]) + {t}(1)\n    let h = atomic_add(s[0], x)\n    a[tid] = i32(h)\n}}\n")
    sass = prog.fermi_sass()
    assert re.search(r"LDSLK (P\d), R\d*[02468], \[(0x0)?\];\n.*LDS R\d*[13579], \[0x4\];", sass), sass
    assert re.search(r"STS \[0x4\], R\d*[13579];\n.*STSUL \[(0x0)?\], R\d*[02468];", sass), sass


def test_f64_atomics_on_global_words_are_cas64_loops(tmp_path):
    """Fermi's one 64-bit atomic is ATOM.CAS.64: atomic_add of an f64 word reads it (LD.CG.64), adds
    with DADD, and CASes the pair in until the pair compared (both words) is the one read."""
    prog = build(tmp_path, "kernel k(a: global f64[64], s: global f64[1], o: global f64[64]) launch grid(1) "
                           "block(64) {\n    atomic_add(s[0], a[tid])\n    o[tid] = atomic_cas(s[0], 1.0, 2.0)\n}\n")
    sass = prog.fermi_sass()
    assert re.search(r"LD\.CG\.64 (R\d*[02468]), \[R\d+\];(?:.*\n)*?.*DADD (R\d*[02468]), \1, R\d*[02468];\n"
                     r".*ATOM\.CAS\.64 R\d*[02468], \[R\d+\], \1, \2;", sass), sass
    assert sass.count("ATOM.CAS.64") == 2 and "ATOM.ADD" not in sass and "RED" not in sass


@pytest.mark.parametrize("expr, mufu", [("x / y", "MUFU.RCP"), ("sqrt(x)", "MUFU.RSQ"), ("x / 3.0", "MUFU.RCP")])
def test_f32_division_and_square_root_are_mufu_refined_in_one_block(tmp_path, expr, mufu):
    """Fermi has no divide or square root: selection emits float_rounding.py's sequence, MUFU's
    approximation refined by FFMA, with no branch (the kernel keeps its blocks), and no E0801."""
    source = ("kernel k(a: global f32[64]) launch grid(1) block(64) {\n"
              f"    let x = a[tid] + 1.0\n    let y = x * 2.0\n    a[tid] = {expr}\n}}\n")
    sass = build(tmp_path, source).fermi_sass()
    plain = build(tmp_path, source.replace(expr, "x * y")).fermi_sass()
    ops = re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?P\d )?([A-Z0-9.]+)", sass)
    assert mufu in ops and ops.count("FFMA") >= 2
    assert sum(op.startswith("BRA") for op in ops) == sum(
        op.startswith("BRA") for op in re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?P\d )?([A-Z0-9.]+)", plain))


FLOAT_KERNEL = """kernel k(a: global f32[64], n: global i32[64], s: f32) launch grid(1) block(32) {
    let x = a[tid]
    let y = a[63 - tid]
    a[tid] = fma(x, y, x - y) + min(x, y) * s
    a[63 - tid] = select(x != y, floor(x), -abs(y)) + f32(n[tid]) + f32(u32(tid))
    n[tid] = i32(x) + i32(u32(y)) + i32(x < y) + i32(x >= 0.5)
}
"""


def test_f32_operations_select_fermis_float_instructions(tmp_path):
    """Each f32 operation is its Fermi instruction: `!=` the unordered FSETP.NEU, the others ordered;
    neg and abs are sign-bit operations; constants are MOV32I bit patterns; a scalar f32 parameter
    is read from the constant bank in place."""
    sass = build(tmp_path, FLOAT_KERNEL).fermi_sass()
    ops = re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?P\d )?([A-Z0-9.]+)", sass)
    for want in ("FFMA", "FADD", "FMUL", "FMNMX", "FSETP.NEU.AND", "FSETP.LT.AND", "FSETP.GE.AND",
                 "F2F.F32.F32.FLOOR", "LOP32I.AND", "LOP32I.XOR", "I2F.F32.S32", "I2F.F32.U32",
                 "F2I.S32.F32.TRUNC", "F2I.U32.F32.TRUNC"):
        assert want in ops, (want, sorted(set(ops)))
    assert "FADD" in ops and re.search(r"FADD R\d+, R\d+, -R\d+;", sass)          # x - y
    assert re.search(r"FMUL R\d+, R\d+, c \[0x0\] \[0x28\];", sass)              # * s, in place
    assert "MOV32I" in ops and "0x3f000000" in sass                                  # 0.5
    assert not any(op.startswith(("ISETP", "IMNMX", "IMUL", "SHL")) and "F" in op for op in ops)


def test_f32_kernels_assemble_back_to_themselves(tmp_path):
    """Printed f32 kernels (f32 parameters, float constants as words) read back field for field."""
    comp = build(tmp_path, FLOAT_KERNEL)
    program = comp._fermi_program()
    again = assemble(SourceFile("prog.sass", print_program(program)))
    assert again.kernels == program.kernels


def test_global_f32_min_and_max_are_a_compare_and_swap_loop_and_add_is_atom_add_f32(tmp_path):
    src = ("kernel k(w: global f32[4], x: global f32[64]) launch grid(1) block(64) {\n"
           "    atomic_add(w[0], x[tid])\n    x[tid] = atomic_min(w[1], x[tid])\n    atomic_max(w[2], x[tid])\n"
           "    atomic_sub(w[3], x[tid])\n}\n")
    sass = build(tmp_path, src).fermi_sass()
    assert re.search(r"RED\.ADD\.F32\.FTZ\.RN \[R\d+\], R\d+;", sass)
    assert len(re.findall(r"ATOM\.CAS R\d+, \[R\d+\+0x[48]\], R\d+, R\d+;", sass)) == 2
    assert re.search(r"LOP32I\.XOR (R\d+), R\d+, 0x80000000;\n(?:.*\n)*?.*RED\.ADD\.F32\.FTZ\.RN \[R\d+\+0xc\], \1;",
                     sass)
    assert "ATOM.MIN" not in sass and "ATOM.MAX" not in sass and "RED.MIN" not in sass


FLOAT_OPS = ROOT / "tests" / "sim" / "float_ops.sync"


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_float_ops_give_the_hosts_values_on_the_simulator(engine):
    """tests/sim/float_ops.sync (tests/gpu/float_ops.sync's f32 part) checks every result against
    the host's own computation, zeros by sign too, on each engine."""
    r = cli("run", str(FLOAT_OPS), "--target", "fermi-sim", "--engine", engine)
    assert r.code == 0, r.out + r.err
    assert "every value as the host computes it" in r.out


DOUBLE_OPS = ROOT / "tests" / "sim" / "double_ops.sync"
LONG_OPS = ROOT / "tests" / "sim" / "long_ops.sync"
WIDE_SLOTS = ROOT / "tests" / "sim" / "wide_slots.sync"


@pytest.mark.parametrize("engine, options", [("compiled", ()), ("reference", ()), ("compiled", ("--its",)),
                                             ("compiled", ("--policy", "adversarial:3", "--memory", "weak:5"))])
def test_wide_slots_give_the_hosts_values_on_the_simulator(engine, options):
    """tests/sim/wide_slots.sync: channels and queues of f64 and i64 in every Fermi implementation, and
    atomics on shared i64, u64 and f64 words, checked against the host on each engine, with ITS, and
    under a seeded adversarial schedule on weak memory."""
    r = cli("run", str(WIDE_SLOTS), "--target", "fermi-sim", "--engine", engine, *options)
    assert r.code == 0, r.out + r.err
    assert "every value as the host computes it" in r.out


@pytest.mark.parametrize("engine, options", [("compiled", ()), ("reference", ()), ("compiled", ("--its",)),
                                             ("compiled", ("--policy", "adversarial:3", "--memory", "weak:5"))])
def test_long_ops_give_the_hosts_values_on_the_simulator(engine, options):
    """tests/sim/long_ops.sync checks every i64 and u64 result (carries, division, shifts, comparisons,
    conversions, a shared-memory reduction, global 64-bit atomics, clock()) against the host's own
    computation on each engine, with ITS, and under a seeded adversarial schedule on weak memory."""
    r = cli("run", str(LONG_OPS), "--target", "fermi-sim", "--engine", engine, *options)
    assert r.code == 0, r.out + r.err
    assert "every value as the host computes it" in r.out


@pytest.mark.parametrize("engine, options", [("compiled", ()), ("reference", ()), ("compiled", ("--its",)),
                                             ("compiled", ("--policy", "adversarial:3", "--memory", "weak:5"))])
def test_double_ops_give_the_hosts_values_on_the_simulator(engine, options):
    """tests/sim/double_ops.sync checks every f64 result (and a saxpy, a shared-memory reduction
    and global f64 atomics) against the host's own computation, zeros by sign too, on each engine,
    with ITS, and under a seeded adversarial schedule on weak memory."""
    r = cli("run", str(DOUBLE_OPS), "--target", "fermi-sim", "--engine", engine, *options)
    assert r.code == 0, r.out + r.err
    assert "every value as the host computes it" in r.out


def _pressure_program(n: int) -> str:
    """n f64 values live at once (2n registers, more than 63): each built a word at a time (a
    negation, an absolute value, a choice), then all multiplied in pairs and summed."""
    value = "select(a[({t} + {i}) % N] > 0.0, -a[({t} + {i}) % N], abs(a[({t} + 2 * {i}) % N]) * {i}.5)"
    total = " + ".join(f"v{i} * v{n - 1 - i}" for i in range(n))
    kernel = "\n".join(f"    let v{i} = " + value.format(t="tid", i=i) for i in range(n))
    host = "\n".join(f"        let v{i} = " + value.format(t="t", i=i) for i in range(n))
    return (f"const N = 64\nkernel many(a: global f64[N], out: global f64[N]) launch grid(1) block(64) {{\n"
            f"{kernel}\n    out[tid] = {total}\n}}\n"
            f"host {{\n    let a = random(f64, N, seed=1, low=-10, high=10)\n    let out = zeros(f64, N)\n"
            f"    launch many(a, out)\n    var bad = 0\n    for t in 0 .. N {{\n{host}\n"
            f"        if out[t] != {total} {{ bad += 1 }}\n    }}\n    check bad == 0, \"spilled pairs\"\n"
            f"    print \"pairs ok\"\n}}\n")


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_register_pairs_spill_to_local_memory_and_keep_their_values(tmp_path, engine):
    """40 f64 values live at once do not fit in 63 registers: pairs spill to 8-byte slots (STL.64
    after a definition, LDL.64 before a use; a pair written a word at a time is reloaded first),
    and the kernel still computes the host's values."""
    path = tmp_path / "pressure.sync"
    path.write_text(_pressure_program(40))
    built = cli("build", str(path), "--target", "fermi-sass")
    assert built.code == 0, built.err
    assert re.search(r"STL\.64 \[0x[0-9a-f]*[08]\], R\d*[02468];", built.out)
    assert re.search(r"LDL\.64 R\d*[02468], \[0x[0-9a-f]*[08]\];", built.out)
    r = cli("run", str(path), "--engine", engine)
    assert r.code == 0 and "pairs ok" in r.out, r.out + r.err


def test_more_than_16_convergence_barriers_under_its_are_refused_with_e0801_at_a_branch():
    """ITS has 16 convergence barriers. A kernel whose reconvergence regions need 17 at once is
    refused at a branch of the one that finds them all taken (the run compiles when it first
    launches); without --its (one SIMT stack, no such limit) the same program compiles and runs.
    The program is a hazard program (its lock order is a cycle), hence the skipped checks."""
    path = ROOT / "tests" / "hazards" / "lock_stripes_loop_both_orders.sync"
    r = cli("run", str(path), "--its", "--unsafe-skip-hazard-checks")
    assert r.code == 1 and "internal" not in r.err, r.err
    assert f"{path.name}:13:13: error[E0801]: 17 reconvergence regions open at once" in r.err, r.err
    assert "16 convergence barriers" in r.err and "without `--its`" in r.err
    r = cli("run", str(path), "--unsafe-skip-hazard-checks", "--max-cycles", "20000")
    assert "E0801" not in r.err and "internal" not in r.err, r.err


def test_a_bool_slot_is_loaded_by_ldslk_into_a_data_register():
    """LDSLK's second operand is a data register; a bool slot is then tested into a predicate."""
    r = cli("build", "tests/hazards/clean/bool_channel_await.sync", "--target", "fermi-sass")
    assert r.code == 0, r.err
    text = r.out
    ldslk = [line for line in text.splitlines() if "LDSLK" in line]
    assert ldslk and all(re.search(r"LDSLK\s+\w+,\s*R", line) for line in ldslk), ldslk


@pytest.mark.parametrize("impl", ["lookback", "chained"])
def test_a_scan_at_blocks_given_at_launch(tmp_path, impl):
    """tests/sim/scan_blocks.sync: one compiled scan at blocks of 1 to 256 threads, below a warp
    included (warp 0 then looks back over as many tiles as the block has threads)."""
    path = tmp_path / "scan_blocks.sync"
    source = (ROOT / "tests" / "sim" / "scan_blocks.sync").read_text()
    path.write_text(source.replace("in global @block", f"in global @block using {impl}"))
    r = cli("run", str(path), "--target", "fermi-sim")
    assert r.code == 0, r.err
    assert r.out.split() == [w for b in (48, 1, 33, 100, 2, 31, 256) for w in (str(b), "ok")]
