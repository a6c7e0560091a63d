"""`syncc bench`: the suites run from the command line, write a table, a CSV and plots into a
folder named by device and date, and fail cleanly where they cannot run. (The sections' own
trends are pinned beside them: test_bench_seed001.py, test_bench_seed003.py,
test_bench_wavefront.py; the GPU suite's numbers are measured, never asserted.)"""
import csv
import re
import time

import pytest

from helpers import no_gpu, syncc
from syncc.bench import SUITES
from syncc.bench.core import Table
from syncc.bench.report import render, results_folder


def test_table2_section_from_the_command_line(tmp_path):
    r = syncc("bench", "paper", "--only", "figure4", "--out", str(tmp_path))
    assert r.code == 0, r.err
    folder = tmp_path / f"fermi-sim-{time.strftime('%Y-%m-%d')}"
    assert f"results in {folder}" in r.out
    rows = list(csv.DictReader((folder / "table2.csv").open()))
    assert [row["scheme"] for row in rows] == ["atom_lock", "warp_barr", "shrd_lock", "tiny_lock", "warp_vote"]
    speeds = {row["scheme"]: float(row["speed"]) for row in rows}
    assert speeds["atom_lock"] == 1.0
    # seed 000 Table 2 within ±25%, the ranking the paper's (docs/bench.md)
    assert all(row["within 25%"] == "yes" for row in rows)
    assert "(the paper's)" in r.out
    assert sorted(speeds, key=speeds.get, reverse=True) == ["tiny_lock", "warp_barr", "warp_vote", "atom_lock",
                                                            "shrd_lock"]
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "plots skipped" in r.out
    else:
        assert (folder / "table2.png").read_bytes()[:4] == b"\x89PNG"


def test_an_unknown_section_is_an_error_not_a_traceback(tmp_path):
    r = syncc("bench", "paper", "--only", "figure5", "--out", str(tmp_path))
    assert r.code == 1
    assert "no section 'figure5' in suite 'paper'" in r.err and "Traceback" not in r.err


def test_an_unknown_suite_is_a_usage_error():
    r = syncc("bench", "speed")
    assert r.code == 2 and "'speed' is not one of" in r.err


@pytest.mark.skipif(no_gpu() is None, reason="this machine has a GPU")
def test_the_gpu_suite_without_a_gpu_says_so(tmp_path):
    r = syncc("bench", "gpu", "--out", str(tmp_path))
    assert r.code == 1
    assert "the gpu suite needs a GPU" in r.err and "Traceback" not in r.err


def test_every_section_is_a_module_with_run():
    import importlib
    for suite, sections in SUITES.items():
        for name in sections:
            assert callable(importlib.import_module(f"syncc.bench.{name}").run), (suite, name)


def test_results_folder_is_named_by_device_and_date(tmp_path):
    folder = results_folder(tmp_path, "NVIDIA H100 80GB HBM3")
    assert re.fullmatch(r"nvidia-h100-80gb-hbm3-\d{4}-\d\d-\d\d", folder.name)


def test_render_aligns_numbers_right_and_text_left():
    text = render(Table("t", "A title", ["name", "value"], [["a", 1.5], ["longer", 1234.0]], ["a note"]))
    lines = text.splitlines()
    assert lines[0] == "## A title"
    assert lines[3] == "a        1.50" and lines[4] == "longer  1,234"
    assert lines[-1] == "   a note"


@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
def test_gpu_suite_quick(tmp_path):
    """Every gpu section runs (few sizes and repeats) and checks what the kernels computed."""
    r = syncc("bench", "gpu", "--quick", "--out", str(tmp_path))
    assert r.code == 0, r.err + r.out
    for name in ("gpu_barrier", "gpu_counter", "gpu_mutex", "gpu_semaphore", "gpu_nw", "gpu_queue"):
        assert any(p.name == f"{name}.csv" for p in tmp_path.rglob("*.csv")), name


def test_the_paper_suite_runs_without_bounds_checks_when_asked(tmp_path):
    """--unsafe-no-bounds-checks reaches the sections' compilations (the simulator's cycle change
    with and without the checks is what docs/bench.md reports)."""
    r = syncc("bench", "paper", "--only", "figure4", "--out", str(tmp_path), "--unsafe-no-bounds-checks")
    assert r.code == 0, r.err
    assert "(the paper's)" in r.out


def test_the_bounds_cost_table_pairs_each_kernel_with_its_unchecked_twin():
    from pathlib import Path

    from syncc.bench.core import Context
    from syncc.bench.gpu_common import bounds_cost
    ctx = Context(root=Path("."), out=Path("."), bounds="both")
    ctx.pairs += [("p.sync -O2", "k", 132, 2.0e-6, 1.6e-6), ("p.sync -O2", "k", 1056, 3.0e-6, 3.0e-6)]
    table = bounds_cost(ctx)
    assert table.columns[-1] == "with / without"
    assert [row[:3] for row in table.rows] == [["p.sync -O2", "k", 132], ["p.sync -O2", "k", 1056]]
    assert [round(row[-1], 3) for row in table.rows] == [1.25, 1.0]
    assert "median 1.125, worst 1.250 over 2" in table.notes[0]
