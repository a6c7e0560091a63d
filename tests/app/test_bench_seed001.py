"""`syncc bench paper --only seed001 --quick`: seed 001's Figures 1–3 on the simulator, with the
tables' structure and the trends that follow from how the primitives work (not from timing)."""
from __future__ import annotations

import pytest

from syncc.bench import seed001
from syncc.bench.core import Context, Plot, Table
from syncc.bench.report import write_csv
from syncc.bench.run import repository


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("seed001")
    ctx = Context(root=repository(), out=out, quick=True, log=lambda line: None)
    got = seed001.run(ctx)
    for r in got:
        if isinstance(r, Table):
            write_csv(r, out)
    return out, {r.name: r for r in got}


def column(table: Table, name: str, **where) -> list:
    i = table.columns.index(name)
    keep = [table.columns.index(k) for k in where]
    return [row[i] for row in table.rows if all(row[j] == v for j, v in zip(keep, where.values()))]


def test_three_figures_each_a_table_a_plot_and_a_csv(results):
    out, got = results
    figure3 = {f"seed001_figure3_{k}" for k in seed001.COUNTS}       # one panel per initial value
    assert set(got) == {"seed001_barrier", "seed001_mutex", "seed001_semaphore",
                        "seed001_figure1", "seed001_figure2"} | figure3
    for name in ("seed001_barrier", "seed001_mutex", "seed001_semaphore"):
        assert isinstance(got[name], Table) and (out / f"{name}.csv").exists()
        assert got[name].notes, "the comparison with the paper"
    sizes = seed001.QUICK
    assert column(got["seed001_barrier"], "blocks") == sizes
    assert column(got["seed001_mutex"], "blocks") == sizes
    assert column(got["seed001_semaphore"], "count") == [k for k in seed001.COUNTS for _ in sizes]
    plots = {n: got[n] for n in {"seed001_figure1", "seed001_figure2"} | figure3}
    assert all(isinstance(p, Plot) for p in plots.values())
    assert list(plots["seed001_figure1"].series) == seed001.BARRIERS
    assert len(plots["seed001_figure2"].series) == len(seed001.MUTEXES)
    assert all(list(plots[n].series) == seed001.SEMAPHORES for n in figure3)
    for p in plots.values():
        assert all([x for x, _ in points] == sizes and all(y > 0 for _, y in points)
                   for points in p.series.values())


def rising(values) -> bool:
    return all(a < b for a, b in zip(values, values[1:]))


def test_a_mutex_serializes_its_blocks(results):
    """Every lock/unlock pair runs alone: more blocks, the same pairs each, more total cycles."""
    table = results[1]["seed001_mutex"]
    for m in seed001.MUTEXES:
        assert rising(column(table, f"{m} cycles")), m


def test_a_semaphore_of_one_serializes_like_a_mutex(results):
    table = results[1]["seed001_semaphore"]
    for s in seed001.SEMAPHORES:
        assert rising(column(table, f"{s} cycles", count=1)), s


def test_a_semaphore_nobody_waits_on_lets_the_blocks_run_together(results):
    """Count 120 > every block count here: a sleeping wait is one fetch-and-add, so the pairs per
    cycle grow with the blocks; the spin semaphore's compare-and-swap retries on one word do not
    keep up (the paper's main semaphore result)."""
    table = results[1]["seed001_semaphore"]
    sleeping = column(table, "sleeping per Mcycle", count=120)
    assert rising(sleeping) and sleeping[-1] > 3 * sleeping[0]
    assert column(table, "sleeping / spin", count=120)[-1] > 1


def test_a_grid_barrier_waits_for_its_last_block(results):
    table = results[1]["seed001_barrier"]
    for b in seed001.BARRIERS:
        per_barrier = column(table, f"{b} cycles/barrier")
        assert per_barrier[-1] > per_barrier[0], b
