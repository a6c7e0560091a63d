"""One program on one target: what `syncc check` says, and what the simulator does with it.

    result = judge(program, "ptx", Settings())
    result["verdict"]      # accepted-ok, accepted-hang, rejected-ok, ...

The check is `syncc check --target ptx` (or `fermi-sim`): the driver's compile_file, which is
what the command line and syncc.compile run. A program it accepts is compiled as usual; one it
rejects for a hazard (E07xx) is compiled again with the hazard analyses skipped
(`hazards=False`, the CLI's hidden --unsafe-skip-hazard-checks; the code is the same, the
analyses only report). Either is then run on the Fermi simulator under each scheduling policy:
with independent thread scheduling (`its=True`) for the ptx verdict, on Fermi's SIMT stack
for the fermi verdict.

The run goes through syncc.runtime.run.run_program rather than Program.run because it
returns each launch's cycle count and takes the simulator's configuration per run, so one
compilation serves every policy.
"""
from __future__ import annotations

import re
import time
import traceback
from dataclasses import dataclass, field

HAZARD = re.compile(r"^E07\d\d$")
HANG_CODES = {"E0904", "E0905", "E0906", "E0907", "E0908", "E0909", "E0910"}
WRONG_CODES = {"E0901"}                 # a `check` failed
FAULT_CODES = {"E0911"}                 # the simulator stopped an access outside every allocation
STOP_CODES = {"E0913"}                  # a run-time bounds check stopped the kernel before the access

# what the runner reports per target (README.md explains each)
VERDICTS = ("accepted-ok", "accepted-hang", "accepted-wrong", "accepted-fault", "accepted-stopped", "rejected-ok",
            "rejected-bad", "changed-result", "run-error", "rejected-unrunnable", "rejected-not-run", "frontend-error",
            "compile-error", "internal-error", "timeout")
# accepted-fault: an accepted program touched memory outside its arrays (the promise covers that);
# accepted-stopped: the run-time bounds check stopped it first, as docs/diagnostics.md E0726 says
SOUNDNESS = ("accepted-hang", "accepted-wrong", "accepted-fault")
FALSE_POSITIVE = ("rejected-ok",)

# the oracle's two targets: (syncc check --target, the simulator's ITS mode)
TARGETS = {"ptx": ("ptx", True), "fermi": ("fermi-sim", False)}


@dataclass
class Settings:
    policies: tuple[str, ...] = ("lrr", "gto", "random:1", "random:2")
    max_cycles: int = 20_000_000        # per launch, for the first policy and to confirm a hang
    min_cycles: int = 4_000_000         # the least budget a later policy gets
    margin: int = 50                    # later policies get margin × the cycles the first one needed
    opt: int = 2
    run_rejected: bool = True           # False: judge only what the check accepts (the fast test)


@dataclass
class Program:
    """A program of a batch: a generated one, a mutant, or a seed the mutants come from."""
    name: str
    path: str
    kind: str                                   # generated | mutant | seed
    defines: dict = field(default_factory=dict)  # -D NAME=VALUE, as {name: value}
    origin: str = ""                            # the seed file of a mutant
    mutation: str = ""                          # what the mutator changed
    # a mutant whose change alters what the program computes (an index, a loop bound, the grid):
    # its seed's checks no longer describe it, so a failed check says nothing about syncc
    changes_result: bool = False

    def define_args(self) -> list[str]:
        return [f"-D {k}={_define_text(v)}" for k, v in self.defines.items()]


def _define_text(v) -> str:
    return "true" if v is True else "false" if v is False else str(v)


def driver_defines(program: Program) -> dict:
    from syncc.driver import parse_define
    out = {}
    for k, v in program.defines.items():
        name, value = parse_define(f"{k}={_define_text(v)}")
        out[name] = (value, f"{k}={_define_text(v)}")
    return out


def frontend_errors(program: Program) -> list[dict]:
    """The parse and type-check errors of a program (empty when the front end accepts it)."""
    from syncc.driver import check_file
    comp = check_file(program.path, driver_defines(program))
    return [_diag(d) for d in comp.diagnostics if d.is_error]


def _diag(d) -> dict:
    line = getattr(getattr(d, "span", None), "line", None)
    return {"code": d.code, "message": d.message, "line": line}


def judge(program: Program, target: str, settings: Settings) -> dict:
    """The verdict of one program on one target, with what it is based on."""
    started = time.monotonic()
    result = {"program": program.name, "target": target}
    try:
        result.update(_judge(program, target, settings))
    except Exception:                                       # noqa: BLE001 - a syncc crash is a finding
        result.update(verdict="internal-error", traceback=traceback.format_exc())
    result["seconds"] = round(time.monotonic() - started, 2)
    return result


def check_only(program: Program, target: str, settings: Settings) -> dict:
    """What `syncc check` says of a program for one target: {"check": {"accepted": ..., "codes": ...}}."""
    from syncc.driver import compile_file
    check_target, _ = TARGETS[target]
    checked = compile_file(program.path, driver_defines(program), check_target, settings.opt)
    errors = [_diag(d) for d in checked.diagnostics if d.is_error]
    codes = sorted({e["code"] for e in errors})
    warnings = sorted({d.code for d in checked.diagnostics if not d.is_error})
    return {"check": {"accepted": not errors, "codes": codes, "errors": errors[:6], "warnings": warnings}}


def _judge(program: Program, target: str, settings: Settings) -> dict:
    from syncc.driver import compile_file
    _, its = TARGETS[target]
    defines = driver_defines(program)
    out = check_only(program, target, settings)
    errors, codes = out["check"]["errors"], out["check"]["codes"]
    if errors and not all(HAZARD.match(c) for c in codes):
        return dict(out, verdict="compile-error")
    accepted = not errors
    if not accepted and not settings.run_rejected:
        return dict(out, verdict="rejected-not-run")
    comp = compile_file(program.path, defines, "fermi-sim", settings.opt, its=its, hazards=accepted)
    if accepted and not comp.ok:
        # the Fermi ITS model stands in for ptx, and its own analyses may disagree: note it, run anyway
        out["sim_model_codes"] = sorted({d.code for d in comp.diagnostics if d.is_error})
        comp = compile_file(program.path, defines, "fermi-sim", settings.opt, its=its, hazards=False)
    if not comp.ok:
        out["unrunnable"] = [_diag(d) for d in comp.diagnostics if d.is_error][:6]
        return dict(out, verdict="rejected-unrunnable" if not accepted else "compile-error")
    runs = _run_policies(comp, its, settings)
    out["runs"] = runs
    out["verdict"] = classify(accepted, runs, program.changes_result)
    return out


def _run_policies(comp, its: bool, settings: Settings) -> list[dict]:
    """Each policy in turn; stops at the first hang. The first policy gets the full budget; a later
    one max(min_cycles, margin × the most cycles a launch took under the first), which is still far
    above what the program needs, and a hang found under that smaller budget is run again with the
    full one before it counts. For ptx, a program with a launch of more blocks than the simulated
    Fermi holds at once is run on a simulator with the H100's residency (ptx_residency)."""
    runs: list[dict] = []
    budget = settings.max_cycles
    wide = False
    for policy in settings.policies:
        run = run_once(comp, its, policy, budget, wide)
        if its and not wide and run.get("past_residency"):
            wide = True
            run = run_once(comp, its, policy, budget, wide)
        if run["status"] == "hang" and run["budget_spent"] and budget < settings.max_cycles:
            run = run_once(comp, its, policy, settings.max_cycles, wide)
        runs.append(run)
        if run["status"] == "hang":
            break
        if run["status"] == "ok" and len(runs) == 1 and run["cycles"]:
            budget = min(settings.max_cycles, max(settings.min_cycles, settings.margin * max(run["cycles"])))
    return runs


def ptx_residency(config):
    """The simulator with the ptx machine's residency: its SMs and the blocks and threads each
    holds (syncc/ir/machine_model.py PTX: an H100's 132 SMs of 32 blocks, 2,048 threads), with an
    H100's registers and shared memory per SM. The simulator with independent thread scheduling
    stands in for sm_70+ but is otherwise a Fermi of 15 SMs holding 8 blocks each: a launch of
    more blocks than that, which the ptx check rightly takes for co-resident, would wait there for
    blocks the simulated Fermi cannot start yet. Programs of a few blocks (every batch before the
    shapes batch) never reach it, so their runs are what they were."""
    from syncc.ir.machine_model import PTX
    return config.with_(sms=PTX.sms, max_blocks_per_sm=PTX.max_blocks_per_sm, max_threads_per_sm=PTX.max_threads_per_sm,
                        max_warps_per_sm=PTX.max_threads_per_sm // 32, registers_per_sm=65536,
                        shared_bytes_per_sm=228 * 1024)


def past_residency(config, launches) -> bool:
    """Did a launch have more blocks than the simulator holds at once (its limits on blocks, warps,
    threads, registers and shared memory per SM, as Simulator._fits applies them)?"""
    for kernel, _, grid, block in launches:
        threads = block[0] * block[1] * block[2]
        warps = -(-threads // 32)
        per_sm = min(config.max_blocks_per_sm, config.max_warps_per_sm // warps, config.max_threads_per_sm // threads,
                     config.registers_per_sm // (max(1, kernel.registers) * 32 * warps))
        if kernel.shared_bytes:
            per_sm = min(per_sm, config.shared_bytes_per_sm // (-(-kernel.shared_bytes // 128) * 128))
        if grid[0] * grid[1] * grid[2] > config.sms * max(1, per_sm):
            return True
    return False


def run_once(comp, its: bool, policy: str, max_cycles: int, wide: bool = False) -> dict:
    """One run of the host block on the simulator: ok, hang, wrong (a failed check), fault (an
    access outside every allocation), stopped (by a run-time bounds check) or error. `wide`: on a
    simulator with the ptx machine's residency (ptx_residency)."""
    from syncc.backends.sim.machine import FermiConfig
    from syncc.runtime.run import run_program
    printed: list[str] = []
    before = len(comp.sink.items)
    config = FermiConfig(policy=policy, its=its, max_cycles=max_cycles)
    if wide:
        config = ptx_residency(config)
    started = time.monotonic()
    outcome = run_program(comp, write=lambda s: printed.append(str(s)[:2000]), config=config)
    problems = [d for d in comp.sink.items[before:] if d.is_error]
    codes = [d.code for d in problems]
    run = {"policy": policy, "max_cycles": max_cycles, "cycles": [o.cycles for _, o, *_ in outcome.runs],
           "seconds": round(time.monotonic() - started, 2)}
    # a run stopped at its budget: a hang only because the budget is far above the program's need
    # (the simulator says E0910 for a spent budget; the cycles also tell it apart from a proved hang)
    run["budget_spent"] = bool(run["cycles"]) and max(run["cycles"]) >= max_cycles
    if wide:
        run["machine"] = "ptx residency"
    elif its and past_residency(config, outcome.runs):
        run["past_residency"] = True
    if outcome.ok:
        run["status"] = "ok"
    elif outcome.deadlock or HANG_CODES & set(codes):
        run["status"] = "hang"
    elif WRONG_CODES & set(codes):
        run["status"] = "wrong"
    elif FAULT_CODES & set(codes):
        run["status"] = "fault"
    elif STOP_CODES & set(codes):
        run["status"] = "stopped"
    else:
        run["status"] = "error"
    if not outcome.ok:
        run["code"] = codes[0] if codes else None
        run["line"] = getattr(problems[0].span, "line", None) if problems else None
        run["message"] = problems[0].message[:600] if problems else (outcome.unavailable or "failed")
        run["printed"] = printed[-4:]
    return run


def classify(accepted: bool, runs: list[dict], changes_result: bool = False) -> str:
    """The verdict from the check and the runs: a hang under any schedule outranks a failed check,
    which outranks an access outside the arrays (stopped by the simulator, `fault`, or first by a
    run-time bounds check, `stopped`), which outranks any other run-time error. A failed check of a
    mutant that changed what the program computes is `changed-result`, which judges nothing; an
    access outside its arrays is judged whatever the mutation (the promise covers memory)."""
    statuses = {r["status"] for r in runs}
    if "wrong" in statuses and "hang" not in statuses and changes_result:
        return "changed-result"
    if "hang" in statuses or "wrong" in statuses:
        if accepted:
            return "accepted-hang" if "hang" in statuses else "accepted-wrong"
        return "rejected-bad"
    if "fault" in statuses or "stopped" in statuses:
        if accepted:
            return "accepted-fault" if "fault" in statuses else "accepted-stopped"
        return "rejected-bad"
    if "error" in statuses:
        return "run-error"
    return "accepted-ok" if accepted else "rejected-ok"
