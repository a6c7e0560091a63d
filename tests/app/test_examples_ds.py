"""The data-structure examples (seed 002, seed 003): counter, hashtable, sortedlist, histogram.

Each runs end to end on fermi-sim at small -D sizes, and its host check is shown to bite: the
same program with one lock removed (or a plain increment for an atomic) must fail its check,
because on the simulator the lanes of a warp really do race. The GPU tests (marker `gpu`) run
each at the seed's sizes."""
from __future__ import annotations

import pytest

from helpers import ROOT, no_gpu, syncc
from syncc.driver import check_file

SMALL = {
    "counter.sync": ["-D", "BLOCKS=2", "-D", "PER_THREAD=1"],
    "hashtable.sync": ["-D", "BLOCKS=2", "-D", "BUCKETS=16"],
    "sortedlist.sync": [],
    "histogram.sync": [],
}


def run(path, *args):
    r = syncc("run", str(path), "--target", "fermi-sim", *args)
    return r.code, r.out + r.err


def broken(tmp_path, name: str, kernel: str, old: str, new: str):
    """examples/NAME with `old` replaced by `new` once, in `kernel` only."""
    text = (ROOT / "examples" / name).read_text()
    start = text.index(f"kernel {kernel}(")
    at = text.index(old, start)
    end = text.find("\nkernel ", start + 1)
    assert end == -1 or at < end, f"{old!r} is not in {kernel}"
    path = tmp_path / name
    path.write_text(text[:at] + new + text[at + len(old):])
    return path


@pytest.mark.parametrize("name", sorted(SMALL))
def test_example_verifies_itself_at_small_sizes(name):
    code, out = run(f"examples/{name}", *SMALL[name])
    assert code == 0, out


def test_counter_counts_with_many_counters():
    code, out = run("examples/counter.sync", "-D", "COUNTERS=8", "-D", "BLOCKS=2", "-D", "PER_THREAD=1")
    assert code == 0, out
    assert "counts: [" in out and "counts: [128]" not in out          # spread over 8 counters


def test_counter_has_a_kernel_per_global_thread_mutex():
    module = check_file(str(ROOT / "examples/counter.sync")).module
    impls = {}
    for name, k in module.kernels.items():
        (prim,) = k.prims
        assert (prim.kind, prim.placement, prim.granularity) == ("mutex", "global", "thread")
        impls[name] = prim.impl.name
    assert impls == {"counter": "ticket", "count_tas": "tas", "count_ttas": "ttas", "count_ticket": "ticket",
                     "count_mcs": "mcs", "count_mcs2": "mcs2", "count_backoff": "backoff"}


@pytest.mark.parametrize("impl", ["tas", "ticket", "mcs"])
def test_counter_without_its_lock_fails_its_check(tmp_path, impl):
    path = broken(tmp_path, "counter.sync", f"count_{impl}", "critical locks[c] {", "if true {")
    code, out = run(path, *SMALL["counter.sync"])
    assert code == 1 and "check failed" in out and f'"{impl}"' in out, out


def test_hashtable_has_six_locks_and_a_lock_free_insert():
    module = check_file(str(ROOT / "examples/hashtable.sync")).module
    impls = {name: [p.impl.name for p in k.prims] for name, k in module.kernels.items()}
    assert impls == {"insert": ["ttas"], "insert_tas": ["tas"], "insert_ticket": ["ticket"], "insert_mcs": ["mcs"],
                     "insert_mcs2": ["mcs2"], "insert_backoff": ["backoff"], "insert_lockfree": []}


@pytest.mark.parametrize("kernel", ["insert", "insert_mcs"])
def test_hashtable_without_its_bucket_lock_loses_entries(tmp_path, kernel):
    path = broken(tmp_path, "hashtable.sync", kernel, "critical bucket[b] {", "if true {")
    code, out = run(path, *SMALL["hashtable.sync"])
    assert code == 1 and "check failed" in out, out


def test_hashtable_lock_free_insert_needs_its_cas(tmp_path):
    """A plain store of the head instead of the CAS: racing lanes overwrite each other's entries."""
    path = broken(tmp_path, "hashtable.sync", "insert_lockfree", "let seen = atomic_cas(heads[b], head, i)",
                  "let seen = head\n            heads[b] = i")
    code, out = run(path, *SMALL["hashtable.sync"])
    assert code == 1 and "check failed" in out and "variant 6" in out, out


def test_sortedlist_with_one_sublist():
    code, out = run("examples/sortedlist.sync", "-D", "ENTRIES=1", "-D", "SHIFT=8")
    assert code == 0 and "in 1 sublists: exact" in out, out


@pytest.mark.parametrize("kernel, lock", [("insert_coarse", "critical list {"),
                                          ("insert_entry", "critical entry[e] {")])
def test_sortedlist_without_its_lock_breaks_the_list(tmp_path, kernel, lock):
    path = broken(tmp_path, "sortedlist.sync", kernel, lock, "if true {")
    code, out = run(path)
    assert code == 1 and "check failed" in out, out


@pytest.mark.parametrize("kernel, old, new", [
    ("hist_global", "atomic_add(bins[i32(data[i] % BINS)], 1)", "bins[i32(data[i] % BINS)] += 1"),
    ("hist_private", "atomic_add(local[i32(data[i] % BINS)], 1)", "local[i32(data[i] % BINS)] += 1"),
])
def test_histogram_without_atomics_loses_counts(tmp_path, kernel, old, new):
    path = broken(tmp_path, "histogram.sync", kernel, old, new)
    code, out = run(path)
    assert code == 1 and f"{kernel}: the histogram differs" in out, out


def test_histogram_privatized_sends_fewer_atomics_to_global_memory():
    """The point of privatization: a block sends at most one atomic per bin to global memory,
    where the global kernel sends one per element (counted as executed, per thread)."""
    import numpy as np
    import syncc as api
    prog = api.compile(str(ROOT / "examples/histogram.sync"), target="fermi-sim")
    data = np.random.default_rng(2).integers(0, 1_000_000, 4 * 128 * 4, dtype=np.uint32)
    want = np.bincount(data % 64, minlength=64).astype(np.int32)
    global_atomics = {}
    for name in ("hist_global", "hist_private"):
        bins = np.zeros(64, np.int32)
        outcome = getattr(prog, name)(data, bins)
        assert (bins == want).all(), name
        # (the kernel that ran: emitted for its launch shape, without the bounds checks it proves)
        kernel = prog.launcher("fermi-sim", 10.0).runs[-1][0]
        global_atomics[name] = sum(n for ins, n in zip(kernel.instrs, outcome.stats.lanes)
                                   if ins.op in ("ATOM", "RED"))
    assert global_atomics["hist_global"] == len(data)
    assert 0 < global_atomics["hist_private"] <= 4 * 64


# ---- on a GPU, at the seeds' sizes -------------------------------------------------------------

LARGE = {
    # seed 003 §5.2.1: one counter; 30 blocks of 256 threads, 4 items each
    "counter.sync": ["-D", "BLOCKS=30", "-D", "THREADS=256", "-D", "PER_THREAD=4"],
    # seed 003 §5.2.2: 30 × 256 threads; levels 256, 64, 16, 4 buckets
    "hashtable.sync": ["-D", "BLOCKS=30", "-D", "THREADS=256", "-D", "BUCKETS=256"],
    # seed 003 §5.3: 30 × 128 threads, 64 entry points of 64 keys
    "sortedlist.sync": ["-D", "BLOCKS=30", "-D", "THREADS=128", "-D", "ENTRIES=64", "-D", "SHIFT=6"],
    # seed 002: 132 × 256 threads, 8 elements each, 256 bins
    "histogram.sync": ["-D", "BLOCKS=132", "-D", "THREADS=256", "-D", "PER_THREAD=8", "-D", "BINS=256"],
}


@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
@pytest.mark.parametrize("name", sorted(LARGE))
def test_example_on_the_gpu_at_the_seeds_sizes(name):
    r = syncc("run", f"examples/{name}", "--target", "gpu", "--timeout", "60", *LARGE[name])
    assert r.code == 0, r.out + r.err
