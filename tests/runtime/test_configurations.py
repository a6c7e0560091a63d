"""The configurations a kernel declares it supports (core/configs.py): the analyses cover them at
compile time, a launch outside them is refused (E0607) by the runtime and, for code launched by
other hands, by the kernel itself (passes/guard.py) and the CUDA header's `NAME_supports`."""
from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

import syncc
from syncc.core.configs import ONE, Supported, ValueSet
from syncc.core.diagnostics import DiagnosticSink
from syncc.ir.analysis.space import Shape
from syncc.ir.passes.hazards import run_checks
from helpers import no_gpu, syncc as syncc_cli

FILL = """kernel fill(n: i32 in 1 .. 5000, x: global i32[n]) launch grid(1 .. 40) block(128) {
    if gtid < n { x[gtid] = gtid * 2 }
}
"""


def test_a_range_picks_its_ends_landmarks_powers_of_two_and_points_between():
    picks = ValueSet.between(1, 1000).picks({100, 7})
    assert {1, 2, 998, 999} <= set(picks) and {99, 100, 101, 6, 7, 8} <= set(picks)
    assert {256, 512} <= set(picks) and all(1 <= v < 1000 for v in picks)
    assert len([v for v in picks if 300 < v < 990 and v not in (512,)]) >= 2      # spread between
    assert ValueSet.between(3, 10).picks() == tuple(range(3, 10))                  # small: every value
    assert ValueSet.of([256, 64, 128]).picks() == (64, 128, 256)


def test_covering_takes_every_pick_of_a_dimension_with_the_others_at_their_ends():
    s = Supported((ValueSet.between(1, 100), ONE, ONE), ((0, ValueSet.between(1, 4097)),))
    configs = s.covering({32}, 32)
    grids = {g[0] for g, _ in configs}
    sizes = {dict(a)[0] for _, a in configs}
    assert set(ValueSet.between(1, 100).picks({32})) <= grids
    assert set(ValueSet.between(1, 4097).picks({32})) <= sizes
    # where `gtid < n` turns over: n at the launch's thread count and beside it, for a grid picked
    assert ((50, 1, 1), ((0, 50 * 32 - 1),)) in configs or 50 not in grids
    assert ((2, 1, 1), ((0, 63),)) in configs and ((2, 1, 1), ((0, 65),)) in configs


def test_refusal_says_which_dimension_is_outside():
    s = Supported((ValueSet.between(2, 80), ONE, ONE), ((0, ValueSet.of([1, 2, 4])),))
    assert s.refusal((4, 1, 1), {0: 2}) is None
    assert "grid(100) is not in the declared x range 2 .. 80" in s.refusal((100, 1, 1), {0: 2})
    assert "`k` = 3 is not in its declared range [1, 2, 4]" in s.refusal((4, 1, 1), {0: 3}, ["k"])
    assert "its y is 2" in s.refusal((4, 2, 1), {0: 1})


def test_the_python_api_refuses_a_launch_outside_and_runs_one_inside(tmp_path):
    path = tmp_path / "fill.sync"
    path.write_text(FILL)
    prog = syncc.compile(str(path), target="fermi-sim")
    x = np.zeros(300, np.int32)
    prog.fill[(3, 1, 1), (128, 1, 1)](300, x)
    assert (x == 2 * np.arange(300)).all()
    with pytest.raises(syncc.CompileError, match=r"E0607.*grid\(41\) is not in the declared x range 1 \.\. 40"):
        prog.fill[(41, 1, 1), (128, 1, 1)](300, x)
    with pytest.raises(syncc.CompileError, match=r"E0607.*`n` = 6000 is not in its declared range 1 \.\. 5000"):
        prog.fill[(3, 1, 1), (128, 1, 1)](6000, np.zeros(6000, np.int32))


def test_the_built_kernel_refuses_a_launch_outside_by_itself(tmp_path):
    path = tmp_path / "fill.sync"
    path.write_text(FILL)
    r = syncc_cli("build", str(path), "--target", "ptx")
    assert r.code == 0, r.err
    entry = r.out[r.out.index(".entry fill"):]
    assert "%nctaid.x" in entry[:1500]                         # the guard reads the grid first
    r = syncc_cli("build", str(path), "--target", "cuda")
    assert r.code == 0, r.err
    assert "inline bool fill_supports(dim3 grid, int32_t n)" in r.out
    assert "((int64_t)grid.x >= 1 && (int64_t)grid.x < 40)" in r.out and "(int64_t)n < 5000" in r.out
    r = syncc_cli("explain", str(path))
    assert "declared configurations" in r.out and "a launch outside returns" in r.out


@pytest.mark.parametrize("target", ["fermi-sim", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_the_guard_turns_away_a_launch_outside(tmp_path, target):
    """Past the runtime's own refusal (which a raw launch of built code does not have): the kernel
    returns at its start and writes nothing; a grid inside runs."""
    if target == "gpu" and no_gpu() is not None:
        pytest.skip(no_gpu())
    path = tmp_path / "fill.sync"
    path.write_text(FILL)
    checked = syncc.compile(str(path), target=target).launcher(target, 10.0)
    x = np.zeros(300, np.int32)
    checked.launcher("fill", [300, x], (41, 1, 1), (128, 1, 1))      # the target's own launcher, unchecked
    assert not x.any()
    checked.launcher("fill", [300, x], (3, 1, 1), (128, 1, 1))
    assert (x == 2 * np.arange(300)).all()


# Kernels whose hazards sit in part of a declared range: what any configuration drawn from the range
# finds, the covering configurations found too (the premise docs/targets.md states, tested).
PREMISE = [
    """kernel k(n: i32 in 1 .. 3000, x: global i32[n]) launch grid(1 .. 30) block(64) {
    x[gtid] = 1
}""",
    """kernel k(m: i32 in 0 .. 200, x: global i32[64]) launch grid(1 .. 9) block(32) {
    semaphore s(3) in global @block
    if bid < m { wait s }
    x[tid] = 1
}""",
    """kernel k(r: i32 in 1 .. 100, x: global i32[4096]) launch grid(1 .. 50) block(32) {
    channel c[600]: i32 in global @thread
    if gtid < r * 4 { put c[gtid] = 1 }
    if gtid < 500 { x[gtid] = get c[gtid] }
}""",
]


@pytest.mark.parametrize("text", PREMISE, ids=["bounds", "permits", "slots"])
def test_what_a_random_configuration_finds_the_covering_ones_found(tmp_path, text):
    path = tmp_path / "k.sync"
    path.write_text(text + "\n")
    found = {d.code for d in syncc_diagnostics(path)}
    comp = syncc.compile(str(path), target="fermi-sim", hazards=False)._comp("fermi-sim")
    k = next(k for k in comp.ir.kernels if k.name == "k")
    supports = comp.context.supports["k"]
    rng = random.Random(7)
    for _ in range(25):
        grid = (rng.choice(supports.grid[0].picks()) if rng.random() < 0.3 else
                rng.randrange(supports.grid[0].lo, supports.grid[0].hi), 1, 1)
        (position, values), = supports.params
        value = rng.randrange(values.lo, values.hi)
        sink = DiagnosticSink()
        run_checks(k, Shape(grid, k.block, ((position, value),)), replace(comp.context, sink=sink))
        codes = {d.code for d in sink.items if d.is_error}
        assert codes <= found, (grid, value, codes, found)


def syncc_diagnostics(path):
    try:
        syncc.compile(str(path), target="fermi-sim")
    except syncc.CompileError as e:
        return [d for d in e.diagnostics if d.is_error]
    return []


def test_a_guarded_kernel_with_shared_state_to_initialize_compiles_and_runs(tmp_path):
    """The guard goes after lowering's entry block, which other passes extend (shared state's
    first values are set there)."""
    path = tmp_path / "count.sync"
    path.write_text("""kernel count(hits: global i32[4]) launch grid(1 .. 5) block(64) {
    mutex m in shared @thread
    critical m { hits[bid] += 1 }
}
host {
    let hits = zeros(i32, 4)
    launch count(hits) grid(4)
    check hits[3] == 64
}
""")
    for target in ("ptx", "fermi-sim"):
        assert syncc_cli("check", str(path), "--target", target).code == 0
    r = syncc_cli("run", str(path), "--target", "fermi-sim")
    assert r.code == 0, r.err
