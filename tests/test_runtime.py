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
