"""Observers see the same run on both engines: a Chrome trace (`--trace`), every hook call with
what an observer reads of the warp then, the fence witness's excerpts and figure 4's clock.

The compiled core logs its events and the bridge replays them (core/replay.py); these tests run
every .sass listing with observers on both engines and compare what they saw. Every example is
observed the same way by test_engines.py's test_every_example_runs_the_same_on_both_engines: its
reference run, watched, serves both that comparison and this one (engine_runs.py, `observe`).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from engine_runs import observed, on_both_engines

from syncc.backends.sim import core
from syncc.backends.sim.machine import FermiConfig
from syncc.cli import cli

ROOT = Path(__file__).resolve().parents[2]
LISTINGS = sorted((ROOT / "examples" / "sass").glob("*.sass"))

pytestmark = pytest.mark.skipif(core.load()[0] is None, reason="numba is not installed: no compiled core")


def cli_run(args: list[str]):
    """`syncc run ARGS`, for same_observations() to record its launches (on the compiled core:
    test_engines.py shows that both engines launch the same)."""
    return lambda: CliRunner().invoke(cli, ["run", *args], catch_exceptions=False)


def same_observations(run, what: str) -> int:
    """Run every launch `run()` makes again on both engines with the observers and compare what
    they saw; the number the compiled core ran."""
    return on_both_engines(run, what, observed)


@pytest.mark.parametrize("policy", ["lrr", "adversarial:5"])
@pytest.mark.parametrize("path", LISTINGS, ids=lambda p: p.name)
def test_every_listing_is_observed_the_same_on_both_engines(path, policy):
    args = [str(path), "--policy", policy, "--max-cycles", "300000"]
    assert same_observations(cli_run(args), " ".join(args)) > 0      # ITS listings too


def test_a_trace_file_is_the_same_from_either_engine(tmp_path):
    out = {}
    for engine in ("compiled", "reference"):
        path = tmp_path / f"{engine}.json"
        r = CliRunner().invoke(cli, ["run", str(ROOT / "examples" / "wavefront.sync"), "--engine", engine,
                                     "--trace", str(path)])
        assert r.exit_code == 0, r.output
        out[engine] = path.read_text()
    for span in ("waits for a lock bit", "holds lock bits", "lock bits taken", "barrier 0"):
        assert f'"{span}"' in out["reference"]
    assert out["compiled"] == out["reference"]


def test_an_its_trace_file_is_the_same_from_either_engine(tmp_path):
    """Independent thread scheduling: each split's wait at a block barrier and its release."""
    out = {}
    for engine in ("compiled", "reference"):
        path = tmp_path / f"{engine}.json"
        r = CliRunner().invoke(cli, ["run", str(ROOT / "examples" / "barrier.sync"), "--its", "--engine", engine,
                                     "--trace", str(path)])
        assert r.exit_code == 0, r.output
        out[engine] = path.read_text()
    assert '"barrier 0"' in out["reference"]
    assert out["compiled"] == out["reference"]


def test_the_fence_witness_finds_the_same_witnesses_on_both_engines(monkeypatch):
    from syncc.witness import find_witnesses, format_witnesses
    stress = str(ROOT / "tests" / "gpu" / "channel_stress.sync")
    small = {k: (v, f"{k}={v}") for k, v in {"BLOCKS": 4, "THREADS": 64, "ROUNDS": 1}.items()}
    compiled = format_witnesses(find_witnesses(stress, small, runs=2))
    monkeypatch.setattr(core, "load", lambda: (None, "this test: the reference engine"))
    reference = format_witnesses(find_witnesses(stress, small, runs=2))
    assert compiled == reference
    if "does not run correctly" in reference:
        # a finding of the simulator's loads performed early (docs/fermi.md, "loads"; 2026-11-29): the
        # global flag channels' get loads the value before its acquire, so the complete program fails
        # and there is nothing to witness until the compiler's fences change
        pytest.xfail("channel_stress.sync fails with the compiler's fences: a flag channel's get loads early")
    assert "without it: run" in reference and "cycle " in reference       # a witness, with its excerpt


def test_figure4s_clock_reads_the_same_phases_on_both_engines():
    from syncc.bench import figure4
    chain = ROOT / "examples" / "chain.sync"
    assert figure4.measure(chain, FermiConfig(engine="compiled")) == figure4.measure(chain, FermiConfig(engine="reference"))
