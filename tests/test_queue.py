"""Queues (docs/language.md, "Queues"): what the checker says of a declaration, what lowering makes
of a `put` and a `get` (the `locked` parts: two semaphores, two mutexes), values through a queue
on the simulator, checked by the program's own host block against what went in, and the single
attempts `tryput` and `tryget`."""
from __future__ import annotations

import json

import pytest

from helpers import ROOT, syncc

BAD = """kernel k(o: global i32[32]) launch grid(1) block(32) {
    queue q(0): i32 in shared @thread
    queue r(4) in shared @thread
    queue s(4): i32 in shared @warp
    queue t(4): i32 in shared @thread using ring
    q = 3
    o[0] = t[0]
}
"""


def test_declaration_errors(tmp_path):
    path = tmp_path / "bad.sync"
    path.write_text(BAD)
    r = syncc("check", str(path), "--error-format=json")
    got = sorted((rec["line"], rec["code"]) for rec in map(json.loads, r.err.splitlines()) if rec.get("code"))
    assert got == [(2, "E0306"), (3, "E0406"), (4, "E0401"), (5, "E0408"), (6, "E0411"), (7, "E0210")], r.err


def test_a_put_and_a_get_are_the_parts_operations():
    r = syncc("explain", "examples/queue.sync", "--target", "ptx")
    assert r.code == 0, r.err
    assert "queue `q` (global @thread, capacity 64): locked" in r.out
    for part in ("`q.space` (semaphore", "`q.items` (semaphore", "`q.tail` (mutex", "`q.head` (mutex"):
        assert part in r.out


SMALL = """const CAP = 4
kernel k(got: global i32[256], last: global i32[64], bad: global i32[1]) launch grid(2) block(64) {
    queue q(CAP): i32 in global @thread
    for i in 0 .. 4 {
        if bid == 0 {
            put q = tid * 4 + i
        } else {
            let v = get q
            atomic_add(got[v], 1)
        }
    }
}
host {
    let got = zeros(i32, 256)
    let last = zeros(i32, 64)
    let bad = zeros(i32, 1)
    launch k(got, last, bad)
    check got == full(i32, 256, 1), "a value was lost or taken twice"
}
"""


@pytest.mark.parametrize("flags", [(), ("--its",), ("--policy", "random:3"), ("--its", "--policy", "gto")],
                         ids=" ".join)
def test_every_value_comes_out_once_on_the_simulator(tmp_path, flags):
    path = tmp_path / "small.sync"
    path.write_text(SMALL)
    r = syncc("run", str(path), *flags)
    assert r.code == 0, r.err


def test_the_check_fails_when_a_value_is_missing(tmp_path):
    """The host block's check is not vacuous: one producer short, and the analysis says so first."""
    path = tmp_path / "short.sync"
    path.write_text(SMALL.replace("if bid == 0 {", "if bid == 0 && tid > 0 {"))
    r = syncc("check", str(path))
    assert r.code == 1 and "E0705" in r.err


def test_a_library_vends_put_and_get(tmp_path):
    r = syncc("build", "stdlib/queue.sync", "--target", "cuda")
    assert r.code == 0, r.err
    for text in ("struct stream", "struct local", "void put(int32_t value)", "int32_t get()"):
        assert text in r.out


@pytest.mark.parametrize("flags", [(), ("--its",)], ids=" ".join)
def test_tryput_finds_it_full_and_tryget_finds_it_empty(flags):
    r = syncc("run", "tests/sim/queue_try.sync", *flags)
    assert r.code == 0, r.err


def test_tryput_takes_a_whole_expression_and_tryget_binds_its_value(tmp_path):
    path = tmp_path / "forms.sync"
    path.write_text("""kernel k(o: global i32[64], m: global i32[1]) launch grid(1) block(64) {
    queue q(4): i32 in shared @thread
    mutex x in shared @thread
    let sent = tryput q = tid * 2 + 1
    tryget v = q { o[tid] = v } else { o[tid] = 0 }
    if tryput x = 1 { m[0] = 1 }
    v = 3
}
""")
    r = syncc("check", str(path), "--error-format=json")
    got = sorted((rec["line"], rec["code"]) for rec in map(json.loads, r.err.splitlines()) if rec.get("code"))
    # `tryput` on a mutex is the wrong kind; `v` is not in scope after the tryget
    assert got == [(6, "E0404"), (7, "E0101")], r.err
