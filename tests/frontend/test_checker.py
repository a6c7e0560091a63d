"""Checker regressions: each program gets exactly the listed diagnostic codes (no cascades)."""
import pytest

from syncc.driver import check_file
from syncc.frontend.dump import dump

K = "kernel k(a: global i32[64]) launch grid(1) block(64) {\n"
F = "kernel k(a: global i32[64], x: global f32[64]) launch grid(1) block(64) {\n"

CASES = {
    # zero-argument built-ins once crashed the checker
    "zero-argument built-ins": (K + "syncwarp()\nlet c = clock()\nlet m = activemask()\n}", []),
    # a block barrier is the block's own threads meeting: in shared
    "block barrier in shared": (K + "barrier b in shared @block using bar\nsync b\n}", []),
    "grid barrier in shared": (K + "barrier b in shared @grid\n}", ["E0402"]),
    "named barrier needs bar": (K + "barrier b(64) in shared @warp using syncwarp\n}", ["E0409"]),
    "bar at warp needs a count": (K + "barrier b in shared @warp using bar\n}", ["E0409"]),
    "a rejected count still names the barrier": (K + "barrier p(48) in shared @warp\narrive p\n}", ["E0405"]),
    "semaphore count by keyword": (K + "semaphore s(count=2) in global @thread\n}", []),
    "semaphore unknown keyword": (K + "semaphore s(size=2) in global @thread\n}", ["E0406", "E0406"]),
    "host arrays have the element limit too": ("host { let a = zeros(i32, [2, 1 << 30]) }", ["E0306"]),
    "unknown string escape": ('host { print "a\\q" }', ["E0003"]),
    "0x without digits": ("const N = 0x", ["E0003"]),
    # shadowing built-ins
    "locals may shadow built-in functions": (K + "let sum = 1\nlet min = 2\na[0] = sum + min\n}", []),
    "top-level names may not": ("const min = 3\nconst X = min + 1", ["E0105"]),
    "built-in values may never be shadowed": (K + "let lane = 1\na[0] = lane\n}", ["E0105"]),
    # cascades
    "assigning a primitive array element": (K + "mutex m[2] in global @thread\nm[0] = 1\n}", ["E0411"]),
    "host function in a kernel": (K + "let z = zeros(i32, 4)\n}", ["E0505"]),
    "GPU function in host": ("host { let c = clock() + 1 }", ["E0506"]),
    "a failing launch shape is reported once": (
        "const Z = 1 / 0\nkernel k() launch grid(1) block(Z) { }\nhost {\nlaunch k()\nlaunch k()\n}", ["E0302"]),
    "const from a GPU value": ("const N = tid", ["E0301"]),
    # recursion and GPU use on the call graph
    "mutual recursion": ("fn f(x: i32) -> i32 { return g(x) }\nfn g(x: i32) -> i32 { return f(x) }", ["E0507"]),
    "GPU use spreads through calls": (
        "fn f() -> i32 { return lane }\nfn g() -> i32 { return f() }\nhost { let y = g() }", ["E0506"]),
    "a cycle of constants": ("const A = B\nconst B = C\nconst C = A", ["E0303"]),
    # shifts and division by constants
    "shift wider than the type": (K + "a[0] = a[1] << 32\n}", ["E0307"]),
    "64-bit shift is fine": (K + "let x = i64(a[1]) << 32\n}", []),
    "division by a constant zero": (K + "a[0] = a[1] / 0\n}", ["E0302"]),
    "launch may not change a declared block": (
        "kernel k() launch grid(1) block(32) { }\nhost { launch k() grid(4) block(64) }", ["E0603"]),
    "launch may change the grid": ("kernel k() launch grid(1) block(32) { }\nhost { launch k() grid(4) }", []),
    # reader-writer locks
    "read and write sections": (K + "rwlock rw[2] in global @thread\nread rw[0] { a[0] = a[1] }\n"
                                "write rw[1] { a[1] += 1 }\n}", []),
    "read and write stay names elsewhere": (K + "var read = 1\nlet write = read + 1\nread = write\n"
                                            "a[read] = write\n}", []),
    "a name after read is a section": (K + "let read = 1\nread a\n}", ["E0002"]),
    "write on a mutex": (K + "mutex m in global @thread\nwrite m { a[0] = 1 }\n}", ["E0404"]),
    "critical on an rwlock": (K + "rwlock rw in global @thread\ncritical rw { a[0] = 1 }\n}", ["E0404"]),
    "lock on an rwlock": (K + "rwlock rw in global @thread\nlock rw\n}", ["E0404"]),
    "rwlock at grid": (K + "rwlock rw in global @grid\n}", ["E0401"]),
    "shared rwlock at block": (K + "rwlock rw in shared @block\n}", ["E0402"]),
    "rwlock takes no argument": (K + "rwlock rw(2) in global @thread\n}", ["E0406"]),
    "unknown rwlock implementation": (K + "rwlock rw in global @thread using mcs\n}", ["E0408"]),
    "break out of a read section": (K + "rwlock rw in global @thread\nfor i in 0 .. 4 {\n"
                                    "read rw { if a[i] == 0 { break } }\n}\n}", ["E0508"]),
    "read section outside a kernel": ("host {\nread rw { }\n}", ["E0504"]),
    # latches
    "latch statements": (K + "latch l(64) in shared @thread\ncount_down l\nwait l\n"
                         "latch m[2](2) in global @warp\nsync m[1]\n}", []),
    "latch needs its count": (K + "latch l in global @thread\n}", ["E0406"]),
    "latch of zero": (K + "latch l(0) in global @thread\n}", ["E0306"]),
    "latch count is constant": (K + "latch l(a[0]) in global @thread\n}", ["E0301"]),
    "shared latch beyond its block's threads": (K + "latch l(65) in shared @thread\n}", ["E0416"]),
    "shared latch beyond its block's warps": (K + "latch l(3) in shared @warp\n}", ["E0416"]),
    "global latch counts across blocks": (K + "latch l(65) in global @thread\n}", []),
    "shared latch at block": (K + "latch l(1) in shared @block\n}", ["E0402"]),
    "count_down on a semaphore": (K + "semaphore s(1) in global @thread\ncount_down s\n}", ["E0404"]),
    "wait on a mutex names both kinds": (K + "mutex m in global @thread\nwait m\n}", ["E0404"]),
    "post on a latch": (K + "latch l(1) in global @thread\npost l\n}", ["E0404"]),
    "arrive on a latch": (K + "latch l(1) in global @thread\narrive l\n}", ["E0404"]),
    # trywait
    "trywait and trywait for": (K + "semaphore s(1) in global @thread\nlet n: u64 = 5\n"
                                "if trywait s for n { post s }\nlet t = trywait s\n"
                                "let u = trywait s for (a[0] + 1)\n}", []),
    "trywait for zero": (K + "semaphore s(1) in global @thread\nlet t = trywait s for 0\n}", ["E0306"]),
    "trywait for a bool": (K + "semaphore s(1) in global @thread\nlet t = trywait s for true\n}", ["E0201"]),
    "trywait on a latch": (K + "latch l(1) in global @thread\nlet t = trywait l\n}", ["E0404"]),
    "trywait for takes one operand": (K + "semaphore s(1) in global @thread\nlet t = trywait s for 2 + 1\n}",
                                      ["E0201"]),
    # floats
    "float arithmetic and built-ins": (F + "let y = x[tid] * 2 + 0.5\nx[tid] = fma(y, sqrt(abs(y)), -1) / 3.0\n"
                                       "var z: f64 = 1e300\nz *= 2\nz /= f64(y)\nlet n = i32(z) + i32(isnan(y))\n"
                                       "x[0] = min(y, 1, 2.5) + select(n > 0, 1.0, floor(y))\n}", []),
    "float atomics": (F + "let o = atomic_add(x[0], 1.5)\nlet m = atomic_max(x[1], o)\n"
                      "let c = atomic_cas(x[2], 0.0, m)\nlet e = atomic_exch(x[3], 2)\n}", []),
    "remainder of floats": (F + "x[0] = x[1] % 2.0\n}", ["E0201"]),
    "bitwise ops of floats": (F + "x[0] = x[1] & x[2]\n}", ["E0201"]),
    "shift of a float": (F + "x[0] = x[1] << 1\n}", ["E0201"]),
    "bitwise atomic on a float": (F + "let o = atomic_or(x[0], 1.0)\n}", ["E0201"]),
    "a float constant meets no integer": (K + "a[0] = 0.5\n}", ["E0201"]),
    "floats and integers do not mix": (F + "x[0] = x[1] * i32(tid)\n}", ["E0201"]),
    "f32 and f64 do not mix": (F + "let d: f64 = 2.0\nx[0] = x[1] * d\n}", ["E0201"]),
    "a constant past f32's range": (F + "x[0] = 1e39\n}", ["E0305"]),
    "a typed float constant": ("const H: f32 = 1.0 / 3.0\nconst D = H * 3\n" + F + "x[0] = D\n}", []),
    "sqrt needs a float": (F + "x[0] = f32(sqrt(a[0]))\n}", ["E0201"]),
    "exp and log of f32": (F + "x[0] = exp(x[1]) + log2(2) + exp2(0.5) * log(x[2])\n}", []),
    "exp of f64": (F + "let d: f64 = 1.0\nx[0] = f32(exp(d) + log2(d))\n}", []),
    "exp of an integer": (F + "x[0] = exp(a[0])\n}", ["E0201"]),
    "%= on a float": (F + "x[0] %= 2.0\n}", ["E0201"]),
    "float division by a constant zero folds to nothing": ("const Z = 1.0 / 0.0", ["E0302"]),
    "host floats": ("host {\nlet r = random(f32, 4, seed=1, low=-1.5, high=2)\nlet s = sum(r) * 2.0\n"
                    "check allclose(r, r, rtol=1e-6) && allclose(s, 1, atol=100)\nprint s, r[0] / 3\n}", []),
    "allclose of two shapes": ("host {\nlet a = zeros(f32, 4)\nlet b = zeros(f32, 5)\n"
                               "check allclose(a, b)\n}", ["E0201"]),
    "random's bounds are integers for an integer array": ("host { let r = random(i32, 4, low=0.5) }", ["E0201"]),
    # sizes known when the host block runs
    "a host array sized at run time": ("host {\nlet n = popc(7) + 1\nvar a = zeros(i32, [n, 2])\n"
                                      "a = full(i32, [3, 2], 1)\ncheck a == zeros(i32, [4, 2]) || a[0][1] == 1\n"
                                      "print allclose(random(f32, n), zeros(f32, 4), atol=1)\n}", []),
    "a run-time size must be an integer": ("host {\nlet n = f32(popc(7))\nlet a = zeros(i32, n)\n}", ["E0201"]),
    "a run-time rank still counts": ("host {\nlet n = popc(7)\nvar a = zeros(i32, n)\na = zeros(i32, [2, 2])\n}",
                                     ["E0201"]),
    "a kernel array sized by a parameter": ("kernel k(n: u32, x: global f32[n][4], m: i64, y: global i32[m]) "
                                            "launch grid(1) block(32) { }", []),
    "a size parameter must be an integer": ("kernel k(n: f32, x: global f32[n]) launch grid(1) block(32) { }",
                                            ["E0101"]),
    # scoped atomics (issue 39): a scope suffix on an atomic built-in, the words of `fence`
    "atomics take a scope": (K + "let o = atomic_cas.cta(a[0], 0, 1) + atomic_add.gpu(a[1], 1)\n"
                             "atomic_exch.sys(a[2], o)\natomic_and.cta(a[3], 1)\n}", []),
    "a scoped atomic checks its arguments": (K + "atomic_add.cta(a[0])\n}", ["E0205"]),
    "a float scoped atomic": (F + "atomic_add.cta(x[0], 1.5)\natomic_xor.sys(x[1], 1)\n}", ["E0201"]),
    "an unknown atomic scope": (K + "atomic_add.block(a[0], 1)\n}", ["E0429"]),
    "no scope on load_cg": (K + "a[1] = load_cg.cta(a[0])\n}", ["E0430"]),
    "no scope on other built-ins or functions": ("fn f(x: i32) -> i32 { return x }\n" + K +
                                                 "a[0] = min.cta(1, 2) + f.gpu(1)\n}", ["E0430", "E0430"]),
    "a scoped atomic is GPU-only": (K + "atomic_add(a[0], 1)\n}\nhost {\nlet c = zeros(i32, 64)\n"
                                    "let x = atomic_add.cta(c[0], 1)\nlaunch k(c)\n}", ["E0506"]),
    "a local's field is still not a call": (K + "let v = 1\na[0] = v.cta(1)\n}", ["E0208"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_exact_codes(name, tmp_path):
    source, codes = CASES[name]
    path = tmp_path / "t.sync"
    path.write_text(source + "\n")
    diagnostics = check_file(str(path)).diagnostics
    assert [d.code for d in diagnostics] == codes, "\n".join(f"{d.code}: {d.message}" for d in diagnostics)


def test_messages_name_the_chain(tmp_path):
    path = tmp_path / "t.sync"
    path.write_text("fn f(x: i32) -> i32 { return g(x) }\nfn g(x: i32) -> i32 { return f(x) }\n")
    (d,) = check_file(str(path)).diagnostics
    assert "f → g → f" in d.message and (d.span.line, d.span.col) == (2, 30)


def test_unknown_escape_points_at_the_escape(tmp_path):
    path = tmp_path / "t.sync"
    path.write_text('host { print "ab\\q" }\n')
    (d,) = check_file(str(path)).diagnostics
    assert (d.span.col, d.span.end_col) == (17, 19) and "`\\q`" in d.message


def test_define_that_matches_nothing_names_the_file_and_a_near_miss(tmp_path):
    path = tmp_path / "t.sync"
    path.write_text("const THREADS = 32\n")
    (d,) = check_file(str(path), {"THREAD": (64, "THREAD=64")}).diagnostics
    assert (d.code, d.file, d.help) == ("W0101", str(path), "did you mean `THREADS`?")


def test_parentheses_belong_to_the_span(tmp_path):
    path = tmp_path / "t.sync"
    path.write_text("const A = (1 + 2) * 3\n")
    text = dump(check_file(str(path)).module.program)
    assert 'value: Binary op="*" @1:11-1:22' in text and 'left: Binary op="+" @1:11-1:18' in text


def test_dump_escapes_control_characters(tmp_path):
    path = tmp_path / "t.sync"
    path.write_text('host { print "a\\nb" }\n')
    text = dump(check_file(str(path)).module.program)
    assert 'StrLit value="a\\nb"' in text and len(text.splitlines()) == 5
