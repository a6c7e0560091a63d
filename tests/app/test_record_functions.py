"""Records as function parameters and results (`fn f(e: Entry) -> Entry`), scalarized when the
call is inlined, and `let e: Entry = ...` / `var e: Entry = ...`: end to end on the simulator and in
the host block, built for ptx, CUDA and Fermi SASS; what stays refused says so (E0214, E0201,
E0204, E0215)."""
from __future__ import annotations

import pytest

from helpers import no_gpu, syncc


def write(tmp_path, text, name="p.sync"):
    p = tmp_path / name
    p.write_text(text)
    return p


PROGRAM = """
struct Entry { key: u32, value: f32, next: i32 }
fn bump(e: Entry, by: f32) -> Entry {
    var out: Entry = e
    out.value += by
    return out
}
fn key_of(e: Entry) -> u32 { return e.key * 2 }
fn fresh(k: u32) -> Entry { return Entry(key = k, value = 0.5, next = -1) }
fn pick(a: Entry, b: Entry, first: bool) -> Entry {
    if first { return a }
    return b
}
kernel k(t: global Entry[64], keys: global u32[64]) launch grid(1) block(64) {
    let e: Entry = bump(t[tid], 1.0)
    t[tid] = e
    keys[tid] = key_of(fresh(u32(tid))) + key_of(t[tid])
    let f = fresh(3)
    var g: Entry = pick(f, e, tid % 2 == 0)
    g = bump(g, 0.25)
    barrier                          // every thread's t[tid] is in before two of them are overwritten
    if tid == 0 { t[63].next = f.next + bump(f, 2.0).next }
    if tid == 1 { t[62] = g }
}
host {
    let t = zeros(Entry, 64)
    for i in 0 .. 64 { t[i].key = u32(i) }
    let ks = zeros(u32, 64)
    launch k(t, ks)
    check t[5].value == 1.0 && ks[5] == 20 && t[63].next == -2
    check t[62].key == 1 && t[62].value == 1.25, "pick's second record, bumped"
    let h: Entry = bump(fresh(7), 0.25)
    check h.value == 0.75 && key_of(h) == 14 && pick(h, fresh(1), false).key == 1
    print h
}
"""


def test_record_functions_run_on_the_simulator(tmp_path):
    r = syncc("run", str(write(tmp_path, PROGRAM)), "--target", "fermi-sim")
    assert r.code == 0, r.err + r.out
    assert "Entry(key = 7, value = 0.75, next = -1)" in r.out


def test_a_wrong_result_is_seen(tmp_path):
    """The program's checks can fail: `pick` returning its first record is caught."""
    r = syncc("run", str(write(tmp_path, PROGRAM.replace("return b", "return a"))), "--target", "fermi-sim")
    assert r.code != 0


@pytest.mark.parametrize("target", ["ptx", "cuda", "fermi-sass"])
def test_record_functions_build(tmp_path, target):
    r = syncc("build", str(write(tmp_path, PROGRAM)), "--target", target)
    assert r.code == 0, r.err


def test_a_record_parameter_is_scalarized(tmp_path):
    """After inlining, the IR holds one register per field and no call."""
    r = syncc("build", str(write(tmp_path, PROGRAM)), "--dump-after", "lower")
    assert r.code == 0, r.err
    assert "%e.key: u32" in r.out and "%out.value: f32" in r.out


@pytest.mark.parametrize("text, code, words", [
    ("struct E { a: i32 }\nkernel k(e: E) launch grid(1) block(32) { }", "E0214", "kernel parameter"),
    ("struct E { a: i32 }\nconst C: E = 1\nhost { print C }", "E0214", "constant"),
    ("struct E { a: i32 }\nstruct F { a: i32 }\nfn f(e: E) -> i32 { return e.a }\n"
     "host { let x = F(a = 1)\n    print f(x) }", "E0201", "expected E, found F"),
    ("struct E { a: i32 }\nfn f(e: E) -> i32 { return e.a }\nhost { print f(3) }", "E0201", "expected E"),
    ("struct E { a: i32 }\nfn f() -> E { return 3 }\nhost { print f().a }", "E0201", "in `return`"),
    ("struct E { a: i32 }\nhost { let x: E = 5\n    print x }", "E0201", "expected E"),
    ("host { let x: Nope = 5\n    print x }", "E0215", "Nope"),
    ("struct E { a: i32 }\nfn f(e: E) { e.a = 1 }\nhost { f(E(a = 1)) }", "E0204", "parameter"),
    ("struct E { a: i32 }\nfn f(e: E) -> i32 { return e.a }\nhost { let x = E(a = 1)\n    print f(x) + x }",
     "E0214", "not a value"),
])
def test_record_functions_misused(tmp_path, text, code, words):
    r = syncc("check", str(write(tmp_path, text)))
    assert r.code != 0 and code in r.err and words in r.err, r.err


@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
def test_record_functions_on_the_gpu(tmp_path):
    r = syncc("run", str(write(tmp_path, PROGRAM)), "--target", "gpu", "--timeout", "60")
    assert r.code == 0, r.err + r.out
