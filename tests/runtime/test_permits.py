"""Several permits at once (`wait s(k)`, `post s(k)`, `trywait s(k)`, `acquire s(k)`), end to end on
the simulator, on both engines: HeteroSync's readers and writer (the writer takes every permit, so
it is alone), k from a value, the bounded tries, and a k below 1 stopping the kernel at its check."""
from __future__ import annotations

import re

import pytest

from helpers import ROOT, syncc

CLEAN = ROOT / "tests" / "hazards" / "clean"
ENGINES = ["compiled", "reference"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", ["permits_readers_writer", "permits_by_thread", "permits_small_passes_large"])
def test_the_corpus_neighbours_run_and_check_their_counts(name, engine):
    for extra in ([], ["--its"]):
        r = syncc("run", str(CLEAN / f"{name}.sync"), "--target", "fermi-sim", "--engine", engine, *extra)
        assert r.code == 0, r.err


def test_both_engines_take_the_same_cycles():
    """The engines are one machine: the readers and writer take the same cycles on both."""
    cycles = []
    for engine in ENGINES:
        r = syncc("run", str(CLEAN / "permits_readers_writer.sync"), "--target", "fermi-sim", "--engine", engine,
                  "--stats")
        assert r.code == 0, r.err
        cycles.append(re.search(r"([\d,]+) cycles", r.out + r.err).group(1))
    assert cycles[0] == cycles[1]


TRIES = """\
kernel k(out: global i32[4]) launch grid(1) block(32) {
    semaphore s(3) in IMPL @thread using spin
    if tid == 0 {
        if trywait s(4) { out[0] = 1 }              // more than there are: fails, takes none
        if trywait s(3) for 4 {                     // all three
            if trywait s { out[1] = 1 }             // none left
            post s(3)
        }
        if trywait s(2) for 100 us {
            out[2] = 1
            post s(2)
        }
        wait s(3)                                   // all three again: every post came back
        out[3] = 1
        post s(3)
    }
}
host {
    let out = zeros(i32, 4)
    launch k(out)
    check out[0] == 0 && out[1] == 0 && out[2] == 1 && out[3] == 1, "a try took the wrong permits"
}
"""


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("placement", ["global", "shared"])
def test_tries_of_several_permits_take_all_or_none(tmp_path, placement, engine):
    path = tmp_path / "tries.sync"
    path.write_text(TRIES.replace("IMPL", placement))
    r = syncc("run", str(path), "--target", "fermi-sim", "--engine", engine)
    assert r.code == 0, r.err


FROM_DATA = """\
kernel k(out: global i32[1], ks: global i32[64]) launch grid(1) block(64) {
    semaphore s(2) in global @thread using spin
    acquire s(ks[tid]) {
        atomic_add(out[0], 1)
    }
}
host {
    var out = zeros(i32, 1)
    var ks = zeros(i32, 64)
    for i in 0 .. 64 { ks[i] = i % 2 + 1 }
    ks[37] = BAD
    launch k(out, ks)
    check out[0] == 64
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_number_of_permits_below_one_stops_the_kernel_at_its_check(tmp_path, engine):
    path = tmp_path / "prog.sync"
    path.write_text(FROM_DATA.replace("BAD", "0"))
    r = syncc("run", str(path), "--target", "fermi-sim", "--engine", engine)
    assert r.code == 1, r.err
    assert re.search(r"prog\.sync:3:5: error\[E0913\]: a wait or post of `s` takes 0 permits, fewer than one "
                     r".*in thread 37 of block 0", r.err), r.err
    path.write_text(FROM_DATA.replace("BAD", "2"))
    assert syncc("run", str(path), "--target", "fermi-sim", "--engine", engine).code == 0


def test_a_number_of_permits_the_ranges_prove_gets_no_check():
    r = syncc("explain", str(CLEAN / "permits_by_thread.sync"))
    assert r.code == 0, r.err
    assert "number of permits" not in r.out


def test_a_semaphore_used_with_permits_defaults_to_one_that_takes_several():
    r = syncc("explain", str(CLEAN / "permits_by_thread.sync"))
    assert re.search(r"semaphore `pool` \(global @thread\): backoff — .*takes one at a time", r.out), r.out


LIBRARY = "semaphore pool(4) in global @thread using IMPL\n"


def test_a_spin_semaphore_vends_its_operations_of_several_permits(tmp_path):
    path = tmp_path / "lib.sync"
    path.write_text(LIBRARY.replace("IMPL", "spin"))
    r = syncc("build", str(path), "--target", "cuda")
    assert r.code == 0, r.err
    for signature in ("void acquire_many(int32_t permits, Body&& body)", "void wait_many(int32_t permits)",
                      "void post_many(int32_t permits)", "bool try_acquire_many(int32_t permits)"):
        assert signature in r.out, signature
    wait = r.out[r.out.index("void wait_many"):r.out.index("void post_many")]
    # all k in one cas, once k are there (k copied from the argument first)
    assert "r_permits = r_syncc_permits;" in wait and ">= r_permits;" in wait and "cas.b32" in wait


def test_a_sleeping_semaphore_vends_none(tmp_path):
    path = tmp_path / "lib.sync"
    path.write_text(LIBRARY.replace("IMPL", "sleeping"))
    r = syncc("build", str(path), "--target", "cuda")
    assert r.code == 0, r.err
    assert "_many" not in r.out and "void wait()" in r.out


def test_ptx_takes_k_permits_in_one_cas():
    r = syncc("build", str(CLEAN / "permits_readers_writer.sync"), "--target", "ptx")
    assert r.code == 0, r.err
    # the writer's test: at least READERS (4) permits there (LLVM writes `>= 4` as `< 4` negated)
    assert re.search(r"setp\.(ge|lt)\.s32\s+%p\d+, %r\d+, 4;", r.out), r.out
    assert "cas.b32" in r.out


@pytest.mark.parametrize("kernel", ["rw_spin", "rw_backoff"])
def test_the_bench_program_keeps_writers_alone(kernel):
    """bench/programs/rw_semaphore.sync (HeteroSync's semaphore benchmark) on the simulator, at a
    small grid: writers alone, never more permits held than there are, every section run."""
    import numpy as np

    import syncc as api
    prog = api.compile(str(ROOT / "bench" / "programs" / "rw_semaphore.sync"), defines={"ITERS": 2},
                       target="fermi-sim")
    now = np.zeros(5, np.int32)
    getattr(prog, kernel)[(3, 1, 1), (128, 1, 1)](now)
    assert now[0] == 0 and now[1] == 8 and now[4] == 0, now       # a writer held all 8, nobody more
    assert now[2] == 3 * 2 and now[3] == 3 * 3 * 2, now


VAR_K = """\
kernel k(out: global i32[2]) launch grid(1) block(32) {
    semaphore s(3) in shared @thread using spin
    if tid == 0 {
        var n = 2
        acquire s(n) {
            n = 3                       // the post gives back the 2 taken, not 3
            out[0] = 1
        }
        if trywait s(3) {               // the three are back, and no fourth: s(4) would fail
            if !(trywait s) { out[1] = 1 }
            post s(3)
        }
    }
}
host {
    let out = zeros(i32, 2)
    launch k(out)
    check out[0] == 1 && out[1] == 1, "acquire s(n) gave back another number than it took"
}
"""


def test_acquire_gives_back_the_k_it_took_when_its_body_assigns_k(tmp_path):
    path = tmp_path / "var_k.sync"
    path.write_text(VAR_K)
    r = syncc("run", str(path), "--target", "fermi-sim")
    assert r.code == 0, r.err
