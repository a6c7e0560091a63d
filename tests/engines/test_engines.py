"""The compiled core and the reference engine are the same machine: every launch of every example,
every .sass listing and every hazard-corpus program (run past its check, so that it deadlocks,
livelocks or faults; and compiled for ITS), and every property-test program under seeded
schedules (and one with ITS), is run on both,
and everything a run reports must be equal: status, cycles,
instruction counts, per-instruction statistics and stall breakdown, block placement, memory
afterwards (and who wrote each word), shared memory of every block, the fault or the diagnosis.
An example's runs are also watched, on both engines, by the observers of test_traces.py.
"""
from __future__ import annotations

import copy
import functools
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from engine_runs import against_the_reference_run
from property_runs import policies

import syncc
from syncc.backends.sim import core
from syncc.backends.sim.machine import FermiConfig
from syncc.backends.sim.simulator import Simulator
from syncc.cli import cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.sync"))
LISTINGS = sorted((ROOT / "examples" / "sass").glob("*.sass"))
HAZARDS = sorted((ROOT / "tests" / "hazards").glob("*.sync"))
PROPERTIES = sorted((ROOT / "tests" / "properties").glob("*.sync"))

pytestmark = pytest.mark.skipif(core.load()[0] is None, reason="numba is not installed: no compiled core")


def cli_run(args: list[str]):
    """`syncc run ARGS` on the reference engine, for same_machine()."""
    return lambda: CliRunner().invoke(cli, ["run", *args, "--engine", "reference"], catch_exceptions=False)


def report(kernel, config, grid, block, gmem, params, engine: str) -> tuple[str | None, dict]:
    gmem = copy.deepcopy(gmem)
    sim = Simulator(kernel, config.with_(engine=engine), grid, block, gmem, params, keep_shared=True)
    o = sim.run()
    return getattr(sim, "engine", None), reported(sim, o, gmem)


def reported(sim, o, gmem) -> dict:
    """Everything a run reports, from its simulator, its outcome and its global memory."""
    d, f, s = o.diagnosis, o.fault, o.stats
    return {
        "status": o.status, "cycles": o.cycles, "warp_instructions": o.warp_instructions,
        "thread_instructions": o.thread_instructions,
        "issues": s.issues, "lanes": s.lanes, "warp_cycles": s.cycles, "stalls": s.stalls, "blocks": s.blocks,
        "memory": gmem.words.tolist(), "writers": gmem.writer,
        "shared": {k: v.tolist() for k, v in (o.shared_after or {}).items()},
        "fault": f and (f.kind, f.message, f.pc, f.lanes, f.warp and f.warp.name),
        "diagnosis": d and (d.kind, d.cycle, [(x.kind, x.message, x.pc, x.lanes) for x in d.findings], d.picture),
    }


def same_machine(run, what: str) -> int:
    """Run every launch `run()` makes (on the reference engine) again on the compiled core and
    compare everything it reports with the reference's own run of it (the one `run()` made: a
    second reference run of the same launch from the same memory reports the same); the number
    the compiled core ran."""
    return against_the_reference_run(run, what, report, reported)


@pytest.mark.slow
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_runs_the_same_on_both_engines(path):
    """And observers see the same run on both (test_traces.py's comparison: a Chrome trace and
    every hook call), from the same reference run, watched."""
    args = [str(path), "--max-cycles", "3000000"]
    assert against_the_reference_run(cli_run(args), path.name, report, reported, observe=True) > 0


@pytest.mark.parametrize("policy", ["lrr", "gto", "adversarial", "random:3", "adversarial:5"])
@pytest.mark.parametrize("memory", ["weak", "sc"])
@pytest.mark.parametrize("path", LISTINGS, ids=lambda p: p.name)
def test_every_listing_runs_the_same_on_both_engines(path, policy, memory):
    args = [str(path), "--policy", policy, "--memory", memory, "--max-cycles", "300000"]
    assert same_machine(cli_run(args), " ".join(args)) > 0      # ITS listings too (its_*.sass)


@pytest.mark.parametrize("policy", ["lrr", "adversarial:2"])
@pytest.mark.parametrize("path", HAZARDS, ids=lambda p: p.name)
def test_every_hazard_program_goes_wrong_the_same_way_on_both_engines(path, policy):
    args = [str(path), "--unsafe-skip-hazard-checks", "--policy", policy, "--max-cycles", "300000"]
    same_machine(cli_run(args), path.name)


# ITS (independent thread scheduling): splits, convergence barriers, WARPSYNC, YIELD and
# NANOSLEEP, a block barrier that a split reaches, and the state written back for a diagnosis.
# The ITS listings above run both engines under every policy; here the hazard corpus compiled
# for ITS (deadlocks, livelocks and faults of syncc's own ITS code, diagnosed from the state the
# core writes back) and every property program under a seeded schedule. ITS is the ptx target's
# machine model (the simulator runs ptx programs with --its), so the hazard programs are those
# checked for ptx: all but the ones whose first line says `--target fermi-sim`.
HAZARDS_FOR_PTX = [p for p in HAZARDS if "--target fermi-sim" not in p.read_text().split("\n", 1)[0]]
# lock_stripes_loop_both_orders.sync needs 17 convergence barriers under --its: the emitter refuses it
# (E0801, tests/backends/test_fermi_emit.py), so there is nothing to run on either engine
ITS_REFUSED = {"lock_stripes_loop_both_orders.sync"}


@pytest.mark.parametrize("path", [p for p in HAZARDS_FOR_PTX if p.name not in ITS_REFUSED], ids=lambda p: p.name)
def test_every_hazard_program_goes_wrong_the_same_way_on_both_engines_with_its(path):
    args = [str(path), "--its", "--unsafe-skip-hazard-checks", "--max-cycles", "300000"]
    same_machine(cli_run(args), f"{path.name} --its")


@pytest.mark.parametrize("path", PROPERTIES, ids=lambda p: p.name)
def test_every_property_program_runs_the_same_with_its(path):
    config = FermiConfig(sms=4, engine="reference", its=True)
    prog = syncc.compile(str(path), target="fermi-sim", sim_config=config)
    kernels = prog._fermi_program().kernels
    for k, name in enumerate(prog.kernels):
        params = next(x for x in kernels if x.name == name).params
        policy = policies(1, first=211 * k)[0]
        arrays = [np.zeros(p.dims, np.int32) for p in params if p.kind == "array"]
        run = functools.partial(getattr(prog, name), *arrays, sim_config=config.with_(policy=policy))
        assert same_machine(run, f"{path.name} {name} --its {policy}") > 0


@pytest.mark.parametrize("path", PROPERTIES, ids=lambda p: p.name)
def test_every_property_program_runs_the_same_under_seeded_schedules(path):
    """Every kernel of tests/properties under four of the property tests' own schedules (two
    adversarial:SEED, two random:SEED; the seeds spread over the range those tests use)."""
    prog = syncc.compile(str(path), target="fermi-sim", sim_config=FermiConfig(sms=4, engine="reference"))
    kernels = prog._fermi_program().kernels
    for k, name in enumerate(prog.kernels):
        params = next(x for x in kernels if x.name == name).params
        for policy in policies(2, first=137 * k) + policies(2, first=400 + 61 * k):
            arrays = [np.zeros(p.dims, np.int32) for p in params if p.kind == "array"]
            config = FermiConfig(sms=4, engine="reference", policy=policy)
            run = functools.partial(getattr(prog, name), *arrays, sim_config=config)
            assert same_machine(run, f"{path.name} {name} {policy}") > 0


# Loads performed early (weakmem.py): the litmus shapes (polls, fenced and unfenced readers, a
# reader that hoists its load of x above its polls of y), the unfenced stress programs, whose
# readers read stale values at L2, and the buggy programs bench/hunt.py hunts, under seeded
# schedules and memories, hunt:SEED's preemptions at synchronization points among them.
WEAK_PROGRAMS = [
    ["bench/litmus/litmus.sync", "-D", "N=32", "--unsafe-no-bounds-checks", "--unsafe-no-fences",
     "--unsafe-skip-hazard-checks"],     # (as bench/litmus.py runs it: the shapes are the fences it writes)
    ["tests/gpu/channel_stress.sync", "-D", "BLOCKS=4", "-D", "THREADS=64", "-D", "ROUNDS=1", "--unsafe-no-fences"],
    ["tests/gpu/mutex_stress.sync", "-D", "BLOCKS=4", "-D", "THREADS=32", "-D", "ITER=1", "--unsafe-no-fences"],
    ["tests/sim/buggy/ticket_no_release_fence.sync", "--unsafe-skip-hazard-checks"],
    ["tests/sim/buggy/lock_no_acquire_fence.sync", "--unsafe-skip-hazard-checks"],
]


@pytest.mark.parametrize("policy", ["adversarial:1", "adversarial:2", "hunt:3"])
@pytest.mark.parametrize("program", WEAK_PROGRAMS, ids=lambda p: Path(p[0]).name)
def test_loads_performed_early_are_the_same_on_both_engines(program, policy):
    args = [str(ROOT / program[0]), *program[1:], "--policy", policy, "--max-cycles", "3000000"]
    assert same_machine(cli_run(args), " ".join(args)) > 0
