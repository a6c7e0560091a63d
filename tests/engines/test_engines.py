"""The compiled core and the reference engine are the same machine: every launch of every example,
every .sass listing and every hazard-corpus program (run past its check, so that it deadlocks,
livelocks or faults) is run on both, and everything a run reports must be equal: status, cycles,
instruction counts, per-instruction statistics and stall breakdown, block placement, memory
afterwards (and who wrote each word), shared memory of every block, the fault or the diagnosis.
"""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
from click.testing import CliRunner

import syncc.runtime.sim as runtime_sim
from syncc.backends.sim import core
from syncc.backends.sim.simulator import Simulator
from syncc.cli import cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.sync"))
LISTINGS = sorted((ROOT / "examples" / "sass").glob("*.sass"))
HAZARDS = sorted((ROOT / "tests" / "hazards").glob("*.sync"))

pytestmark = pytest.mark.skipif(core.load()[0] is None, reason="numba is not installed: no compiled core")


def launches(monkeypatch, args: list[str]) -> list[tuple]:
    """Every launch `syncc run ARGS` makes (on the reference engine), as it was before it ran."""
    recorded = []

    class Recording(Simulator):
        def __init__(self, kernel, config, grid, block, gmem, params, observer=None, keep_shared=False):
            recorded.append((kernel, config, grid, block, copy.deepcopy(gmem), list(params)))
            super().__init__(kernel, config, grid, block, gmem, params, observer, keep_shared)

    monkeypatch.setattr(runtime_sim, "Simulator", Recording)
    CliRunner().invoke(cli, ["run", *args, "--engine", "reference"], catch_exceptions=False)
    return recorded


def report(kernel, config, grid, block, gmem, params, engine: str) -> tuple[str | None, dict]:
    gmem = copy.deepcopy(gmem)
    sim = Simulator(kernel, config.with_(engine=engine), grid, block, gmem, params, keep_shared=True)
    o = sim.run()
    d, f, s = o.diagnosis, o.fault, o.stats
    return getattr(sim, "engine", None), {
        "status": o.status, "cycles": o.cycles, "warp_instructions": o.warp_instructions,
        "thread_instructions": o.thread_instructions,
        "issues": s.issues, "lanes": s.lanes, "warp_cycles": s.cycles, "stalls": s.stalls, "blocks": s.blocks,
        "memory": gmem.words.tolist(), "writers": gmem.writer,
        "shared": {k: v.tolist() for k, v in (o.shared_after or {}).items()},
        "fault": f and (f.kind, f.message, f.pc, f.lanes, f.warp and f.warp.name),
        "diagnosis": d and (d.kind, d.cycle, [(x.kind, x.message, x.pc, x.lanes) for x in d.findings], d.picture),
    }


def same_machine(monkeypatch, args: list[str]) -> int:
    """Run every launch of `syncc run ARGS` on both engines; the number the compiled core ran."""
    compiled = 0
    for launch in launches(monkeypatch, args):
        ran_on, fast = report(*launch, "compiled")
        _, slow = report(*launch, "reference")
        for key in slow:
            assert fast[key] == slow[key], f"{' '.join(args)}: `{launch[0].name}` differs in {key}"
        compiled += ran_on == "compiled"
    return compiled


@pytest.mark.slow
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_runs_the_same_on_both_engines(monkeypatch, path):
    assert same_machine(monkeypatch, [str(path), "--max-cycles", "3000000"]) > 0


@pytest.mark.parametrize("policy", ["lrr", "gto", "adversarial"])
@pytest.mark.parametrize("memory", ["weak", "sc"])
@pytest.mark.parametrize("path", LISTINGS, ids=lambda p: p.name)
def test_every_listing_runs_the_same_on_both_engines(monkeypatch, path, policy, memory):
    same_machine(monkeypatch, [str(path), "--policy", policy, "--memory", memory, "--max-cycles", "300000"])


@pytest.mark.parametrize("path", HAZARDS, ids=lambda p: p.name)
def test_every_hazard_program_goes_wrong_the_same_way_on_both_engines(monkeypatch, path):
    same_machine(monkeypatch, [str(path), "--unsafe-skip-hazard-checks", "--max-cycles", "300000"])
