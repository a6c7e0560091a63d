"""`syncc bench paper --only seed003 --quick`: seed 003's Counter and Hash Table on fermi-sim.

The section checks every launch's result against numpy before it counts its cycles; here the
tables' shape, and the trends that follow from the benchmarks themselves (not from timing):
fewer counters or buckets means less contention and fewer cycles for every lock, and the
elided atomic beats every lock."""
from __future__ import annotations

import pytest

from helpers import ROOT
from syncc.bench import seed003
from syncc.bench.core import Context, Plot

pytestmark = pytest.mark.slow      # the quick section: about 10 s of simulation

LOCKS = ["tas", "ttas", "ticket", "mcs", "mcs2", "backoff"]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    ctx = Context(ROOT, tmp_path_factory.mktemp("seed003"), quick=True, log=lambda s: None)
    return {r.name + ("/plot" if isinstance(r, Plot) else ""): r for r in seed003.run(ctx)}


def test_the_tables_and_plots_are_there(results):
    assert {"seed003_counter", "seed003_counter_blocks", "seed003_hashtable", "seed003_counter/plot",
            "seed003_counter_blocks/plot", "seed003_hashtable/plot"} == set(results)
    counter = results["seed003_counter"]
    assert counter.columns == ["counters", "lock", "cycles", "ops/kcycle", "vs tas"]
    assert {(r[0], r[1]) for r in counter.rows} == {(c, lock) for c in (1, 16) for lock in LOCKS + ["atomic (elided)"]}
    table = results["seed003_hashtable"]
    assert {(r[0], r[1]) for r in table.rows} == {(nb, v) for nb in (64, 1) for v in seed003.HASH_VARIANTS}
    assert all(r[2] > 0 for r in counter.rows + table.rows)
    assert any("seed 003" in n for n in counter.notes) and any("seed 003" in n for n in table.notes)


def test_less_contention_is_faster_for_every_lock(results):
    counter = {(r[0], r[1]): r[2] for r in results["seed003_counter"].rows}
    for lock in LOCKS:
        assert counter[(16, lock)] < counter[(1, lock)], lock
    table = {(r[0], r[1]): r[2] for r in results["seed003_hashtable"].rows}
    for name in seed003.HASH_VARIANTS:
        assert table[(64, name)] < table[(1, name)], name


def test_the_elided_atomic_is_the_floor(results):
    counter = {(r[0], r[1]): r[2] for r in results["seed003_counter"].rows}
    for c in (1, 16):
        assert all(counter[(c, "atomic (elided)")] < counter[(c, lock)] for lock in LOCKS)


def test_one_counter_serializes_all_the_work(results):
    """With one counter every update waits for the one before: many cycles per update,
    whatever the lock (a hand-off costs at least one global round trip)."""
    per_op = {r[2]: r[4] for r in results["seed003_counter_blocks"].rows if r[0] == 1}
    assert all(1000 / v > 300 for lock, v in per_op.items() if lock in LOCKS)
