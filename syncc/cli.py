"""The `syncc` command line.

    syncc check FILE...                       parse and check for every machine model; report every problem
    syncc build FILE --target ptx -o out.ptx  compile (today: --emit ast, --emit ir, --dump-after PASS)
    syncc run FILE --target fermi-sim         run the host block
    syncc explain FILE                        what the compiler chose, inserted, and why
    syncc opt FILE.ir -p PASS                 run passes on IR text (pass tests)

Exit status: 0 ok, 1 the program has errors, 2 usage (or a tool a target needs is missing),
3 the program deadlocked or livelocked when run, 101 an internal compiler error.
Only what `check` needs is imported on the way to checking: no llvmlite, no cupy.
"""
from __future__ import annotations

import atexit
import gc
import os
import re
import sys
import threading
import traceback
from typing import Callable

import click

from .backend_table import BACKENDS, build_targets, run_targets
from .core.version import VERSION

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_DEADLOCK, EXIT_INTERNAL = 0, 1, 2, 3, 101


# ---- shared options -------------------------------------------------------------

def _pass_names() -> list[str]:
    """`lower`, then every pass (ir/pipeline.py): read when a command needs them, so that the
    command line imports no pass on the way to `check`."""
    from .ir.pipeline import PASS_NAMES
    return PASS_NAMES


class _Names(click.Choice):
    """A choice among names read when a value is checked or help is shown, not when the command
    line is imported: the passes' names (which import the passes), the targets (backend_table.py:
    an entry added to the table is a target of every command)."""

    def __init__(self, names: Callable[[], list[str]]):
        self.names = names
        self.case_sensitive = True

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(self.names())


def _models_help() -> str:
    """Each machine model's targets: "ptx, sass, cuda and gpu are ptx (sm_70+, ...); ..."."""
    from .backend_table import machine_models, targets_of
    from .driver import and_list
    return "; ".join(f"{and_list(targets_of(m))} {'are' if len(targets_of(m)) > 1 else 'is'} {m.name}"
                     + (f" ({m.brief})" if m.brief else "") for m in machine_models())


# What an option's help may name, read from its table when help is shown
_HELP_NAMES = {
    "passes": lambda: ", ".join(_pass_names()),             # `lower` and the passes
    "passes_only": lambda: ", ".join(_pass_names()[1:]),    # the passes
    "models": _models_help,                                 # the targets of each machine model
}


class _LiveHelp(click.Option):
    """An option whose help names what a table holds (`{passes}`, `{passes_only}`, `{models}`),
    filled in when help is shown, not when the command line is imported."""

    def get_help_record(self, ctx):
        self.help = self.help.format_map({k: v() for k, v in _HELP_NAMES.items() if "{" + k + "}" in self.help})
        return super().get_help_record(ctx)


def _define(ctx, param, values) -> dict:
    from .driver import parse_define
    out = {}
    for text in values:
        try:
            name, value = parse_define(text)
        except ValueError as e:
            raise click.BadParameter(str(e), ctx=ctx, param=param) from None
        out[name] = (value, text.strip())
    return out


def _common(f: Callable) -> Callable:
    f = click.option("--debug", is_flag=True, help="Show the traceback of an internal error.")(f)
    f = click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto",
                     show_default=True, help="Colour diagnostics (never when NO_COLOR is set).")(f)
    f = click.option("--error-format", type=click.Choice(["human", "json"]), default="human",
                     show_default=True, help="human text, or one JSON object per diagnostic per line.")(f)
    f = click.option("-D", "defines", multiple=True, metavar="NAME=VALUE", callback=_define,
                     help="Override a `const` (repeatable).")(f)
    return f




def _stdlib(f: Callable) -> Callable:
    return click.option("--stdlib", "stdlib", multiple=True, type=click.Path(file_okay=False), metavar="DIR",
                        help="Look for `import std.X` modules in DIR (repeatable, searched in order) instead of "
                             "the stdlib shipped with syncc.")(f)


def _opt_level(f: Callable) -> Callable:
    return click.option("-O", "opt", type=click.IntRange(0, 2), default=2, show_default=True, metavar="LEVEL",
                        help="-O0 keeps every lock as written; -O2 (default) also elides locks and combines warps.")(f)


def _verify_each(f: Callable) -> Callable:
    return click.option("--verify-each", is_flag=True,
                        help="Verify the IR after every pass (by default: after lowering and at the end), and "
                             "for fermi-sass the machine code after every emitter step (by default: at the end).")(f)


def _unsafe_no_fences(f: Callable) -> Callable:
    return click.option("--unsafe-no-fences", "no_fences", is_flag=True, hidden=True,
                        help="Compile without any memory ordering (only to show the GPU stress tests can fail).")(f)


def _unsafe_no_bounds_checks(f: Callable) -> Callable:
    return click.option("--unsafe-no-bounds-checks", "no_bounds_checks", is_flag=True,
                        help="Leave out the run-time index checks (docs/language.md, \"Arrays\"): a wrong index then "
                             "reads or writes next to its array. Only to measure what the checks cost.")(f)


def _target_option(f: Callable) -> Callable:
    return click.option("--target", type=_Names(lambda: list(BACKENDS)), default="ptx", show_default=True,
                        cls=_LiveHelp, help="The machine to check for: {models}.")(f)


def _targets_option(f: Callable) -> Callable:
    """`check`'s --target: every machine model unless one is named."""
    return click.option("--target", type=_Names(lambda: list(BACKENDS)), default=None, cls=_LiveHelp,
                        help="Check for one machine only: {models}. [default: every machine model, each finding "
                             "marked with the machine it is for]")(f)


def _model(target: str) -> tuple[str, ...]:
    """The machine model (ir/machine_model.py) a --target names, as a diagnostic's `targets`."""
    return (BACKENDS[target].model.name,)


class Reporter:
    """Prints a compilation's diagnostics to stderr in the chosen format."""

    def __init__(self, error_format: str, color: str, targets: tuple[str, ...] = (), checked_for: str = ""):
        from .core.diagnostics import use_color
        self.json = error_format == "json"
        self.color = use_color(sys.stderr, color)
        self.count_errors = 0
        self.count_warnings = 0
        self.targets = targets            # the machine models a diagnostic that does not say is for
        self.checked_for = checked_for    # " for ptx and fermi": what the summary says was checked

    def report(self, comp, targets: tuple[str, ...] | None = None) -> None:
        from dataclasses import replace
        from .core.diagnostics import Renderer
        renderer = Renderer(comp.sources, color=self.color)
        targets = self.targets if targets is None else targets
        for d in comp.diagnostics:
            if not d.targets and targets:
                d = replace(d, targets=targets)
            if d.is_error:
                self.count_errors += 1
            else:
                self.count_warnings += 1
            click.echo(renderer.to_json(d) if self.json else renderer.render(d) + "\n", err=True,
                       color=self.color)   # (click strips escapes off a terminal unless told)

    def finish(self, files: int) -> int:
        if not self.json:
            parts = []
            if self.count_errors:
                parts.append(f"{self.count_errors} error{'s' if self.count_errors != 1 else ''}")
            if self.count_warnings:
                parts.append(f"{self.count_warnings} warning{'s' if self.count_warnings != 1 else ''}")
            what = ", ".join(parts) if parts else "no problems"
            click.echo(f"syncc: {files} file{'s' if files != 1 else ''} checked{self.checked_for}: {what}", err=True)
        return EXIT_ERRORS if self.count_errors else EXIT_OK


# ---- commands -----------------------------------------------------------------------

@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(VERSION, "--version", prog_name="syncc", message="%(prog)s %(version)s")
def cli() -> None:
    """syncc: a compiler from a small lock DSL to PTX and to a Fermi simulator.

    Programs declare channels, mutexes, semaphores and barriers with a
    granularity (@thread, @warp, @block, @grid); syncc makes them free of SIMT
    deadlock and livelock and explains what it did. See docs/language.md.
    """


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@_targets_option
@_opt_level
@_verify_each
@_unsafe_no_bounds_checks
@_stdlib
@_common
def check(files, target, opt, verify_each, no_bounds_checks, stdlib, defines, error_format, color, debug) -> int:
    """Check FILES through every safety pass, for every machine model of the targets (ptx: sm_70+,
    independent thread scheduling; fermi: stack-based reconvergence) or for the one --target
    names; print every problem found, each once, with the model(s) it is for. A .sass file is assembled
    (docs/fermi.md, "The .sass format")."""
    from .backend_table import machine_models
    from .driver import and_list, check_for_targets, compile_file
    every = tuple(model.name for model in machine_models())
    reporter = Reporter(error_format, color, every if target is None else _model(target))
    if target is None:      # the summary says which machine models the files were checked for
        sync = any(not path.endswith(".sass") for path in files)
        reporter.checked_for = f" for {and_list(every)}" if sync else " for fermi"
    for path in files:
        if path.endswith(".sass"):
            from .backends.fermi.sass_file import assemble_file
            reporter.report(assemble_file(path), ("fermi",))
        elif target is None:
            reporter.report(check_for_targets(path, defines, opt, verify_each=verify_each, stdlib=stdlib,
                                              bounds_checks=not no_bounds_checks))
        else:
            reporter.report(compile_file(path, defines, target, opt, verify_each=verify_each, stdlib=stdlib,
                                         bounds_checks=not no_bounds_checks))
    return reporter.finish(len(files))


_ARCH = re.compile(r"^sm_(\d{2,3})a?$")


def _arch(ctx, param, value: str) -> str:
    m = _ARCH.match(value)
    if not m or int(m.group(1)) < 70:
        raise click.BadParameter("expected sm_70 or later, e.g. sm_80 or sm_90", ctx=ctx, param=param)
    return value


def _emitter_steps() -> tuple[str, ...]:
    from .backends.fermi.emit import STEP_NAMES     # imported only when asked: check needs no emitter
    return STEP_NAMES


def _dump_point(ctx, param, value: str | None) -> str | None:
    """An IR pass or a step of the SASS emitter; which target takes which is checked in `build`."""
    if value is None or value in _pass_names() or value in _emitter_steps():
        return value
    raise click.BadParameter(f"`{value}` is not an IR pass ({', '.join(_pass_names())}) nor, with --target "
                             f"fermi-sass, a step of the SASS emitter ({', '.join(_emitter_steps())})",
                             ctx=ctx, param=param)


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--target", type=_Names(build_targets), default="ptx",
              show_default=True, help="What to produce.")
@click.option("--emit", type=click.Choice(["ast", "ir"]), default=None,
              help="Stop early and print an intermediate form instead.")
@click.option("--dump-after", default=None, metavar="PASS", callback=_dump_point, cls=_LiveHelp,
              help="Print the IR after PASS and stop (implies --emit ir). Passes: {passes}. "
                   "With --target fermi-sass PASS may also be a step of the SASS emitter (docs/fermi.md, "
                   "\"From IR to SASS\"; a wrong name lists them): the code after it is printed.")
@click.option("-o", "output", type=click.Path(dir_okay=False, allow_dash=True), default="-",
              help="Where to write the result (default: stdout).")
@click.option("--arch", default="sm_90", show_default=True, callback=_arch, help="GPU architecture for ptx/sass.")
@click.option("--its", is_flag=True, help="fermi-sass: for independent thread scheduling (BSSY / BSYNC, "
                                          "WARPSYNC) instead of Fermi's SSY / .S.")
@_opt_level
@_verify_each
@_unsafe_no_fences
@_unsafe_no_bounds_checks
@_stdlib
@_common
def build(file, target, emit, dump_after, output, arch, its, opt, verify_each, no_fences, no_bounds_checks, stdlib,
          defines, error_format, color, debug) -> int:
    """Compile FILE for a target (or stop early: --emit ast, --emit ir, --dump-after PASS)."""
    from .driver import check_file, compile_file
    emitter_step = dump_after if dump_after is not None and dump_after not in _pass_names() else None
    if emitter_step is not None and target != "fermi-sass":
        raise click.BadParameter(f"`{emitter_step}` is a step of the SASS emitter: use it with --target fermi-sass",
                                 param_hint="'--dump-after'")
    reporter = Reporter(error_format, color, _model(target))
    if emit == "ast":
        comp = check_file(file, defines, stdlib)
        reporter.report(comp)
        if comp.ok:
            from .frontend.dump import dump
            _write(output, dump(comp.module.program))
            return EXIT_OK
        return reporter.finish(1)
    from .backend_table import BuildFailed, BuildOptions
    from .ir.printer import print_module
    dumped: list[str] = []
    comp = compile_file(file, defines, target, opt, None if emitter_step else dump_after,
                        lambda name, module: dumped.append(f"; the IR after {name}\n" + print_module(module)),
                        verify_each=verify_each, fences=not no_fences, its=its, stdlib=stdlib,
                        bounds_checks=not no_bounds_checks)
    if comp.ok and target in ("ptx", "sass", "cuda") and dump_after is None and emit != "ir":
        from .driver import undeclared_configurations
        comp.sink.extend(undeclared_configurations(comp))
    reporter.report(comp)
    if not comp.ok:
        return reporter.finish(1)
    if dump_after is not None and emitter_step is None:
        _write(output, "".join(dumped))
        return EXIT_OK
    if emit == "ir":
        _write(output, print_module(comp.ir))
        return EXIT_OK
    command = f"syncc {file} --target {target}" + (" --its" if its else "")
    try:
        text = comp.build(BuildOptions(arch, its, command, emitter_step, None if output == "-" else output,
                                       verify_each))
    except BuildFailed as e:
        if not e.diagnostics:                   # a tool the target needs is missing
            click.echo(f"syncc: {e}", err=True)
            return EXIT_USAGE
        comp.sink.extend(e.diagnostics)
        reporter.report(comp)
        return reporter.finish(1)
    _write(output, text)
    return EXIT_OK


def _sim_options(f: Callable) -> Callable:
    """The simulator's options (ignored by --target gpu)."""
    from .backends.sim.machine import FermiConfig
    default = FermiConfig()
    f = click.option("--stats", is_flag=True, help="fermi-sim: after each launch, print its cycles, the cost of "
                                                   "each source line and the stall breakdown.")(f)
    f = click.option("--trace", type=click.Path(dir_okay=False), default=None, metavar="FILE.json",
                     help="fermi-sim: write a Chrome trace of the run (open it in ui.perfetto.dev).")(f)
    f = click.option("--max-cycles", type=click.IntRange(min=1), default=default.max_cycles, show_default=True,
                     help="fermi-sim: stop a kernel that has not finished after this many cycles (exit 3).")(f)
    f = click.option("--lock-bits", type=click.IntRange(min=1), default=default.lock_bits, show_default=True,
                     help="fermi-sim: lock bits per SM (a power of two; a word's bit is its address bits 2 and up).")(f)
    f = click.option("--policy", default=default.policy, show_default=True, metavar="POLICY",
                     help="fermi-sim: warp scheduling: lrr, gto, adversarial (youngest first), "
                          "adversarial:SEED (seeded ranks and preemptions), hunt:SEED (the same, preempting "
                          "at synchronization instructions) or random:SEED.")(f)
    f = click.option("--memory", default=default.memory, show_default=True, metavar="MODEL",
                     help="fermi-sim: global memory between warps: weak (store queues and a non-coherent "
                          "L1, as on the hardware; seeded by the policy's seed), weak:SEED, or sc "
                          "(sequentially consistent).")(f)
    f = click.option("--unsafe-no-syncwarp", "no_syncwarp", is_flag=True, hidden=True,
                     help="Compile without prevent_livelock's __syncwarp (to show the livelock it prevents).")(f)
    f = click.option("--unsafe-skip-hazard-checks", "no_hazards", is_flag=True, hidden=True,
                     help="Compile without the hazard analyses (only for the oracle: to run what they reject).")(f)
    f = click.option("--engine", type=click.Choice(("compiled", "reference")), default=default.engine,
                     show_default=True,
                     help="fermi-sim: how to simulate (not what): the compiled core, or the Python reference "
                          "engine. Both give the same cycles (and the same --trace and --stats); a launch the core "
                          "cannot run (an instruction it does not know) runs on the reference, and --stats says so.")(f)
    f = click.option("--its", is_flag=True, help="fermi-sim: independent thread scheduling (Volta-style "
                                                 "convergence barriers) instead of Fermi's SIMT stack.")(f)
    return f


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--target", type=_Names(run_targets), default="fermi-sim", show_default=True,
              help="Run on the built-in Fermi simulator or on a real GPU through cupy.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              metavar="SECONDS", help="gpu: a kernel still running after this long is reported as a probable "
                                      "deadlock or livelock (exit status 3).")
@click.option("--line-info", is_flag=True, help="gpu: build the PTX with source lines, so that compute-sanitizer "
                                                "reports .sync lines (the code is the same; building is slower).")
@_sim_options
@_opt_level
@_verify_each
@_unsafe_no_fences
@_unsafe_no_bounds_checks
@_stdlib
@_common
def run(file, target, timeout, line_info, its, engine, no_hazards, no_syncwarp, memory, policy, lock_bits, max_cycles,
        trace, stats, opt, verify_each, no_fences, no_bounds_checks, stdlib, defines, error_format, color, debug) -> int:
    """Check FILE, then run its host block on a target (a .sass file: its kernels, on the simulator)."""
    from .backends.sim.machine import FermiConfig
    config = FermiConfig(policy=policy, its=its, memory=memory, lock_bits=lock_bits, max_cycles=max_cycles,
                         engine=engine)
    problem = config.check()
    if problem:
        raise click.BadParameter(problem)
    if file.endswith(".sass"):
        return _run_sass(file, config, trace, stats, error_format, color)
    from .driver import compile_file
    reporter = Reporter(error_format, color, _model(target))
    comp = compile_file(file, defines, target, opt, verify_each=verify_each, fences=not no_fences,
                        its=its, syncwarp=not no_syncwarp, hazards=not no_hazards, stdlib=stdlib,
                        bounds_checks=not no_bounds_checks)
    reporter.report(comp)
    if not comp.ok:
        return reporter.finish(1)
    from .runtime.run import run_program
    before = len(comp.sink.items)
    observer, progress, recorder = _sim_observer(target, trace)
    outcome = run_program(comp, timeout=timeout, write=click.echo, config=config, observer=observer,
                          line_info=line_info)
    _sim_after(outcome.runs, progress, recorder, trace, stats, comp.sources)
    if outcome.unavailable:
        click.echo(f"syncc: cannot run on the GPU: {outcome.unavailable}", err=True)
        return EXIT_USAGE
    new = Reporter(error_format, color, _model(target))
    new.report(_Since(comp, before))
    if outcome.deadlock:
        sys.stdout.flush()
        sys.stderr.flush()
        if outcome.device_held:
            os._exit(EXIT_DEADLOCK)      # the device is still running the kernel: do not wait for it at exit
        return EXIT_DEADLOCK
    if outcome.device_held:              # a kernel stalled at a failed check: do not wait for it at exit
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_ERRORS)
    return EXIT_OK if outcome.ok else EXIT_ERRORS


def _sim_observer(target: str, trace: str | None):
    if not BACKENDS[target].simulator:
        return None, None, None
    from .backends.sim.trace import Observers, Progress, TraceRecorder
    recorder = TraceRecorder() if trace else None
    progress = Progress(sys.stderr) if sys.stderr.isatty() else None
    return Observers([recorder, progress]), progress, recorder


def _sim_after(runs, progress, recorder, trace, stats, sources) -> None:
    if progress is not None:
        progress.done()
    if recorder is not None:
        recorder.write(trace)
    if stats:
        from .backends.sim.stats import format_stats
        for kernel, result, grid, block in runs:
            click.echo(format_stats(kernel, result, sources, grid, block), nl=False)


def _run_sass(file, config, trace, stats, error_format, color) -> int:
    """`syncc run FILE.sass`: assemble it and run each kernel with what its header gives."""
    from .backends.fermi.sass_file import assemble_file
    from .driver import Compilation
    from .runtime.args import LaunchError
    from .runtime.sim import SimLauncher, SimStopped, diagnostics, run_sass
    found = assemble_file(file)
    comp = Compilation(sources=found.sources)     # what the run adds is reported with what assembling found
    comp.sink.extend(found.diagnostics)
    reporter = Reporter(error_format, color, ("fermi",))
    program = found.program
    if program is None:
        reporter.report(comp)
        return reporter.finish(1)
    observer, progress, recorder = _sim_observer("fermi-sim", trace)
    keep = any(k.shared_array(n) for k in program.kernels for n in k.prints)
    launcher = SimLauncher(program, config, observer, keep_shared=keep)
    status = EXIT_OK
    try:
        run_sass(program, launcher, click.echo)
    except SimStopped as e:
        comp.sink.add(diagnostics(e, comp.sources, program.source))
        status = EXIT_DEADLOCK if e.stuck else EXIT_ERRORS
    except LaunchError as e:
        comp.sink.error("E0903", e.message, e.span)
        status = EXIT_ERRORS
    _sim_after(launcher.runs, progress, recorder, trace, stats, comp.sources)
    reporter.report(comp)
    return status


class _Since:
    """The diagnostics a compilation gained after the first `before` (for reporting twice)."""

    def __init__(self, comp, before: int):
        self.sources = comp.sources
        self.diagnostics = comp.sink.items[before:]


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@_target_option
@_opt_level
@_verify_each
@click.option("--witness", is_flag=True,
              help="fermi-sim: for each ordering the compiler inserted (a fence, or with --its a __syncwarp), run "
                   "the program without it under seeded adversarial schedules and weak memory, and show the first "
                   "run that goes wrong.")
@click.option("--its", is_flag=True, help="With --witness: the simulator's independent thread scheduling.")
@click.option("--runs", type=click.IntRange(min=1), default=20, show_default=True,
              help="With --witness: seeds to try per ordering.")
@_unsafe_no_bounds_checks
@_stdlib
@_common
def explain(file, target, opt, verify_each, witness, its, runs, no_bounds_checks, stdlib, defines, error_format, color,
            debug) -> int:
    """Say what the compiler chose and inserted for FILE, and why."""
    from .driver import compile_file
    from .explain import explain_text
    if witness or its:
        given = click.get_current_context().get_parameter_source("target") != click.core.ParameterSource.DEFAULT
        if given and target != "fermi-sim":
            raise click.BadParameter("--witness runs the program on the simulator: use --target fermi-sim "
                                     "(or leave --target out)", param_hint="--target")
        if its and not witness:
            raise click.BadParameter("--its goes with --witness", param_hint="--its")
        target = "fermi-sim"
    reporter = Reporter(error_format, color, _model(target))
    comp = compile_file(file, defines, target, opt, verify_each=verify_each, its=its, stdlib=stdlib,
                        bounds_checks=not no_bounds_checks)
    reporter.report(comp)
    if comp.context is not None:
        click.echo(explain_text(comp, target + (" --its" if its else "")), nl=False)
    if not comp.ok:
        return EXIT_ERRORS
    if witness:
        from .witness import find_witnesses, format_witnesses
        click.echo(format_witnesses(find_witnesses(file, defines, its, runs, opt, stdlib, comp=comp)), nl=False)
    return EXIT_OK


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("-p", "--pass", "passes", multiple=True, required=True, type=_Names(lambda: _pass_names()[1:]),
              metavar="PASS", cls=_LiveHelp, help="A pass to run (repeatable, in order): {passes_only}.")
@click.option("--remarks", is_flag=True, help="Also print the passes' remarks, as `; remark` lines.")
@_target_option
@_opt_level
@_common
def opt(file, passes, remarks, target, opt, defines, error_format, color, debug) -> int:
    """Run passes on IR text (what `build --emit ir` prints) and print the result: for pass tests."""
    from .driver import opt_file
    from .ir.printer import print_module
    reporter = Reporter(error_format, color, _model(target))
    comp = opt_file(file, list(passes), target, opt)
    reporter.report(comp)
    if comp.ir is None:
        return reporter.finish(1)
    text = print_module(comp.ir)
    if remarks:
        text += "".join(f"; remark {r.topic}: {r.message}\n" for r in comp.context.remarks)
    click.echo(text, nl=False)
    return EXIT_OK


@cli.command()
@click.argument("suite", type=click.Choice(["paper", "gpu"]))
@click.option("--out", type=click.Path(file_okay=False), default="results", show_default=True,
              help="Where the results folder (named by device and date) is made.")
@click.option("--only", multiple=True, metavar="SECTION",
              help="Run only this section of the suite (repeatable); see docs/bench.md.")
@click.option("--quick", is_flag=True, help="Fewer sizes and repetitions: a smoke run, not a measurement.")
@click.option("--full", is_flag=True, hidden=True,
              help="Every size: the default since the compiled core (accepted, so older scripts still run).")
@click.option("--bounds-cost", is_flag=True,
              help="gpu: time each syncc kernel that has run-time bounds checks also without them, in the same "
                   "run, and print the bounds_cost table of the pairs.")
@_unsafe_no_bounds_checks
@click.option("--debug", is_flag=True, help="Show the traceback of an internal error.")
def bench(suite, out, only, quick, full, bounds_cost, no_bounds_checks, debug) -> int:
    """Run a benchmark SUITE: `paper` (the seed papers on the Fermi simulator) or `gpu`
    (generated code beside hand-written baselines on a GPU). Prints tables and writes CSVs and
    PNG plots under OUT/<device>-<date>."""
    from pathlib import Path
    from .bench.core import BenchError
    from .bench.run import run_suite
    try:
        run_suite(suite, Path(out), quick=quick, only=list(only), write=click.echo,
                  bounds="both" if bounds_cost else "off" if no_bounds_checks else "on")
    except BenchError as e:
        click.echo(f"syncc bench: error: {e}", err=True)
        return EXIT_ERRORS
    return EXIT_OK


def _write(output: str, text: str) -> None:
    if output == "-":
        click.echo(text, nl=False)
        return
    try:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:            # the user's path, not a bug: a usage error (exit 2)
        raise _CannotWrite(f"syncc: cannot write `{output}`: {e.strerror or e}") from None


class _CannotWrite(click.ClickException):
    exit_code = EXIT_USAGE

    def show(self, file=None) -> None:
        click.echo(self.message, err=True)


# ---- entry point ----------------------------------------------------------------------

# The commands that only compile: their work is bounded, and the process ends right after it.
COMPILE_ONLY = ("check", "build")


def main(argv: list[str] | None = None) -> None:
    """The `syncc` process: run the command, then end without tearing the interpreter down."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] and args[0] in COMPILE_ONLY:
        # The cyclic collector would only rescan the heap of modules being imported, again and
        # again as it grows (about 8 ms of a 150 ms `syncc build`); a compile's trees are acyclic.
        gc.disable()
    end_process(run_cli(args))


def end_process(code: int) -> None:
    """Exit with `code` after Python's exit handlers and a flush of the standard streams, but
    without the interpreter's teardown: freeing every module, a last collection and LLVM's static
    destructors took about 30 ms of a 150 ms `syncc build`, for memory the system takes back anyway.
    A thread still running (none of syncc's commands leaves one) gets the ordinary exit, which waits for it."""
    if threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        code = code or 120          # what the interpreter exits with when it cannot flush stdout
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)


def run_cli(argv: list[str] | None = None) -> int:
    """Run the CLI and turn every outcome into an exit status (never a traceback, unless --debug)."""
    args = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in args
    try:
        result = cli.main(args=args, prog_name="syncc", standalone_mode=False)
        return result if isinstance(result, int) else EXIT_OK
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.ClickException as e:
        e.show()
        return EXIT_USAGE if isinstance(e, click.UsageError) else e.exit_code
    except click.exceptions.Abort:
        click.echo("syncc: interrupted", err=True)
        return 130
    except KeyboardInterrupt:
        click.echo("syncc: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as e:  # noqa: BLE001 - the last line of defence
        return internal_error(e, args, debug)


def internal_error(e: BaseException, args: list[str], debug: bool) -> int:
    frame = traceback.extract_tb(e.__traceback__)[-1] if e.__traceback__ else None
    where = f" at {os.path.basename(frame.filename)}:{frame.lineno}" if frame else ""
    click.echo(f"syncc: internal compiler error: {type(e).__name__}: {e}{where}", err=True)
    click.echo(f"  while running: syncc {' '.join(args)}", err=True)
    click.echo("  this is a bug in syncc; please report it with the input file.", err=True)
    if debug:
        traceback.print_exception(type(e), e, e.__traceback__, file=sys.stderr)
    else:
        click.echo("  run with --debug for the traceback.", err=True)
    return EXIT_INTERNAL


if __name__ == "__main__":
    main()
