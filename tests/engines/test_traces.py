"""Observers see the same run on both engines: a Chrome trace (`--trace`), every hook call with
what an observer reads of the warp then, the fence witness's excerpts and figure 4's clock.

The compiled core logs its events and the bridge replays them (core/replay.py); these tests run
every example and every .sass listing with observers on both engines and compare what they saw.
"""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
from click.testing import CliRunner
from engine_runs import on_both_engines

from syncc.backends.sim import core
from syncc.backends.sim.machine import FermiConfig
from syncc.backends.sim.simulator import Simulator
from syncc.backends.sim.trace import Observers, TraceRecorder
from syncc.cli import cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.sync"))
LISTINGS = sorted((ROOT / "examples" / "sass").glob("*.sass"))

pytestmark = pytest.mark.skipif(core.load()[0] is None, reason="numba is not installed: no compiled core")


def cli_run(args: list[str]):
    """`syncc run ARGS`, for same_observations() to record its launches (on the compiled core:
    test_engines.py shows that both engines launch the same)."""
    return lambda: CliRunner().invoke(cli, ["run", *args], catch_exceptions=False)


class HookLog:
    """Every hook call, with what an observer reads of the warp at that moment."""
    wants_issues = True

    def __init__(self):
        self.calls: list[tuple] = []

    def _warp(self, w) -> tuple:
        return (w.uid, w.pc, w.active, w.issued)

    def issued(self, w, d, now):
        self.calls.append(("issued", now, self._warp(w), d.ins.addr, w.lock_bits_held(), w.lock_bits_taken()))

    def diverged(self, w, now, pc):
        self.calls.append(("diverged", now, self._warp(w), pc))

    def barrier_wait(self, w, now, bar_id):
        self.calls.append(("barrier_wait", now, self._warp(w), bar_id))

    def barrier_released(self, w, at, bar_id):
        self.calls.append(("barrier_released", at, self._warp(w), bar_id))

    def warp_finished(self, w, now):
        self.calls.append(("warp_finished", now, self._warp(w), w.name, w.sm.index, w.block.started,
                           w.lock_bits_held(), w.lock_bits_taken()))

    def block_started(self, block, now):
        self.calls.append(("block_started", now, block.index, block.sm.index))

    def block_finished(self, block, now):
        self.calls.append(("block_finished", now, block.index, block.sm.index))


def observed(kernel, config, grid, block, gmem, params, engine: str) -> tuple[str, dict]:
    trace, log = TraceRecorder(), HookLog()
    sim = Simulator(kernel, config.with_(engine=engine), grid, block, copy.deepcopy(gmem), params,
                    observer=Observers([trace, log]))
    o = sim.run()
    return sim.engine, {"status": o.status, "cycles": o.cycles, "calls": log.calls, "trace": trace.json()}


def same_observations(run, what: str) -> int:
    """Run every launch `run()` makes again on both engines with the observers and compare what
    they saw; the number the compiled core ran."""
    return on_both_engines(run, what, observed)


@pytest.mark.slow
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_is_observed_the_same_on_both_engines(path):
    assert same_observations(cli_run([str(path), "--max-cycles", "3000000"]), path.name) > 0


@pytest.mark.parametrize("policy", ["lrr", "adversarial:5"])
@pytest.mark.parametrize("path", LISTINGS, ids=lambda p: p.name)
def test_every_listing_is_observed_the_same_on_both_engines(path, policy):
    args = [str(path), "--policy", policy, "--max-cycles", "300000"]
    same_observations(cli_run(args), " ".join(args))


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


def test_the_fence_witness_finds_the_same_witnesses_on_both_engines(monkeypatch):
    from syncc.witness import find_witnesses, format_witnesses
    stress = str(ROOT / "tests" / "gpu" / "channel_stress.sync")
    small = {k: (v, f"{k}={v}") for k, v in {"BLOCKS": 4, "THREADS": 64, "ROUNDS": 1}.items()}
    compiled = format_witnesses(find_witnesses(stress, small, runs=2))
    monkeypatch.setattr(core, "load", lambda: (None, "this test: the reference engine"))
    reference = format_witnesses(find_witnesses(stress, small, runs=2))
    assert "without it: run" in reference and "cycle " in reference       # a witness, with its excerpt
    assert compiled == reference


def test_figure4s_clock_reads_the_same_phases_on_both_engines():
    from syncc.bench import figure4
    chain = ROOT / "examples" / "chain.sync"
    assert figure4.measure(chain, FermiConfig(engine="compiled")) == figure4.measure(chain, FermiConfig(engine="reference"))
