"""The host block runs on the CPU with the language's integer semantics, and `syncc run`
reports run-time failures as located diagnostics (no GPU needed: nothing is launched)."""
from __future__ import annotations

import json

from helpers import syncc


def run(tmp_path, source: str, *args: str):
    path = tmp_path / "prog.sync"
    path.write_text(source)
    return syncc("run", str(path), "--target", "gpu", "--error-format", "json", *args)


def test_host_arithmetic_wraps_and_truncates(tmp_path):
    r = run(tmp_path, """host {
    let a: i32 = 2147483647
    let b = a + 1
    let c: u32 = 0
    let d = c - 1
    print b, d, -7 / 2, -7 % 2, 1 << 4
    let x = arange(i32, [2, 3])
    print sum(x), x[1][2], popc(255), min(3, 1, 2), select(true, 4, 5)
}
""")
    assert r.code == 0, r.err
    assert r.out.splitlines() == ["-2147483648 4294967295 -3 -1 16", "15 5 8 1 4"]


def test_host_floats_are_ieee_in_their_type(tmp_path):
    """f32 arithmetic rounds to f32 each step; an untyped constant is exact until it meets its type;
    conversions to integers go toward zero and saturate; division by zero is IEEE's; print gives the
    shortest text of the value in its type."""
    r = run(tmp_path, """host {
    let third = 1.0 / 3.0
    let t32 = f32(1) / 3.0
    let z = t32 * 0.0
    print third, t32, t32 * 3, f64(t32), 16777216 + f32(1)
    print i32(-2.7), u32(-1.5), i32(1e20), i64(f32(3e9)), i32(z / z), bool(z / z)
    print 1.0 / z, -1.0 / z, isnan(z / z), sqrt(f32(2)), fma(f32(0.1), 10.0, -1.0), f32(0.1) * 10.0 - 1.0
    print min(z / z, f32(1)), max(f32(-0.5), z), floor(-2.5), ceil(-2.5), trunc(-2.5), abs(-2.5)
    let r = random(f64, 3, seed=7, low=-2, high=2)
    print r, sum(r)
    print exp(1.0), log2(1024.0), log(f32(0)), exp2(-0.5)
}
""")
    assert r.code == 0, r.err
    import numpy as np
    draw = -2 + 4 * np.random.default_rng(7).random(3)
    assert r.out.splitlines() == [
        "0.3333333333333333 0.33333334 1.0 0.3333333432674408 1.6777216e+07",
        "-2 0 2147483647 3000000000 0 true",
        "inf -inf true 1.4142135 1.4901161e-08 0.0",
        "1.0 0.0 -3.0 -2.0 -2.0 2.5",
        np.array2string(draw, separator=" ") + " " + str(np.float64(draw.sum())),
        "2.718281828459045 10.0 -inf 0.7071067811865476"]


def test_random_is_the_documented_generator(tmp_path):
    import numpy as np
    r = run(tmp_path, 'host {\n    let r = random(i32, 5, seed=7, low=-3, high=4)\n    print r\n}\n')
    expected = np.random.default_rng(7).integers(-3, 4, size=5, dtype=np.int64)
    assert r.out.strip() == "[" + " ".join(str(v) for v in expected) + "]"


def test_failed_check_is_e0901(tmp_path):
    r = run(tmp_path, 'host {\n    let a = zeros(i32, 3)\n    check a[0] == 1, "a is not one"\n}\n')
    [d] = [json.loads(line) for line in r.err.splitlines() if line.startswith("{")]
    assert r.code == 1 and d["code"] == "E0901" and d["line"] == 3 and "a is not one" in d["message"]


def test_division_by_zero_at_run_time_is_e0902(tmp_path):
    r = run(tmp_path, "host {\n    var z = 0\n    print 10 / z\n}\n")
    [d] = [json.loads(line) for line in r.err.splitlines() if line.startswith("{")]
    assert r.code == 1 and d["code"] == "E0902" and d["line"] == 3


def test_functions_loops_and_arrays(tmp_path):
    r = run(tmp_path, """fn fib(n: i32) -> i32 {
    var a = 0
    var b = 1
    for k in 0 .. n {
        let t = a + b
        a = b
        b = t
    }
    return a
}
host {
    var fibs = zeros(i32, 10)
    for i in 0 .. 10 { fibs[i] = fib(i) }
    var n = 0
    while true {
        n += 1
        if n == 5 { break }
    }
    check fibs[9] == 34 && n == 5
    print fibs
}
""")
    assert r.code == 0, r.err
    assert r.out.strip() == "[ 0  1  1  2  3  5  8 13 21 34]"


def test_one_array_for_two_parameters_is_refused(tmp_path):
    """Each array parameter is an array of its own: the kernel's checks assume it (an elided lock
    is relaxed because nothing else touches its array), and the launch copies each argument, so
    `launch k(x, x)` would lose one parameter's writes (it printed 0 for 32 increments)."""
    src = ("kernel k(a: global i32[4], b: global i32[4]) launch grid(1) block(32) {\n"
           "    mutex m in global @thread\n    critical m { a[0] = a[0] + 1 }\n    b[1] = 2\n}\n"
           "host {\n    let x = zeros(i32, 4)\n    let y = zeros(i32, 4)\n    launch k(x, y)\n"
           "    print x[0], y[1]\n    launch k(x, x)\n}\n")
    path = tmp_path / "prog.sync"
    path.write_text(src)
    r = syncc("run", str(path), "--target", "fermi-sim", "--error-format", "json")
    [d] = [json.loads(line) for line in r.err.splitlines() if line.startswith("{")]
    assert r.code == 1 and d["code"] == "E0903" and d["line"] == 11 and "same memory" in d["message"]
    assert "32 2" in r.out


def test_overlapping_numpy_views_are_refused_by_the_python_api(tmp_path):
    import numpy as np
    import pytest

    import syncc as api
    from syncc.runtime.args import LaunchError
    path = tmp_path / "k.sync"
    path.write_text("kernel k(a: global i32[4], b: global i32[4]) launch grid(1) block(4) { a[tid] = b[tid] + 1 }\n")
    prog = api.compile(str(path), target="fermi-sim")
    base = np.zeros(6, np.int32)
    with pytest.raises(LaunchError, match="same memory"):
        prog.k(base[0:4], base[2:6])
    a, b = np.zeros(4, np.int32), np.arange(4, dtype=np.int32)
    prog.k(a, b)
    assert a.tolist() == [1, 2, 3, 4]


def test_float_arguments_are_checked_like_the_others():
    """An f32 array parameter takes float32 only; an f32 scalar takes a number (rounded by numpy,
    past f32's range an infinity), not a bool or a string."""
    from types import SimpleNamespace

    import numpy as np
    import pytest
    from syncc.core.types import F32
    from syncc.runtime.args import LaunchError, check_arguments
    array = SimpleNamespace(name="x", kind="array", elem=F32, dims=(4,))
    scalar = SimpleNamespace(name="k", kind="scalar", elem=F32, dims=())
    with pytest.raises(LaunchError, match="float32"):
        check_arguments("f", [array], [np.zeros(4, np.float64)], None)
    a, k = check_arguments("f", [array, scalar], [np.zeros(4, np.float32), 3], None)
    assert k.dtype == np.float32 and k == 3.0
    (k,) = check_arguments("f", [scalar], [1e39], None)
    assert np.isinf(k)
    for bad in (True, "1.5", None):
        with pytest.raises(LaunchError, match="give it a number"):
            check_arguments("f", [scalar], [bad], None)


def test_an_untyped_float_variable_is_f64_in_a_kernel_too(tmp_path):
    """`var acc = 1.0` is f64 (the checker's default for a float constant); lowering gave its
    register i32, and the IR verifier stopped the compiler (an internal error)."""
    path = tmp_path / "acc.sync"
    path.write_text("""kernel k(x: global f64[64]) launch grid(1) block(64) {
    var acc = 1.5
    for i in 0 .. 3 { acc = acc * x[tid] }
    x[tid] = acc
}
host {
    let x = full(f64, 64, 2.0)
    launch k(x)
    check x[5] == 12.0
}
""")
    r = syncc("run", str(path), "--target", "fermi-sim")
    assert r.code == 0, r.err
