"""The `syncc` command line.

    syncc check FILE...                       parse and check; report every problem
    syncc build FILE --target ptx -o out.ptx  compile (today: --emit ast, --emit ir, --dump-after PASS)
    syncc run FILE --target fermi-sim         run the host block
    syncc explain FILE                        what the compiler chose, inserted, and why
    syncc opt FILE.ir -p PASS                 run passes on IR text (pass tests)

Exit status: 0 ok, 1 the program has errors, 2 usage (or a part not built yet),
3 the program deadlocked or livelocked when run, 101 an internal compiler error.
Only what `check` needs is imported on the way to checking: no llvmlite, no cupy.
"""
from __future__ import annotations

import os
import re
import sys
import traceback
from typing import Callable

import click

from . import __version__
from .ir.pipeline import PASS_NAMES

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_DEADLOCK, EXIT_INTERNAL = 0, 1, 2, 3, 101


class NotBuiltYet(click.ClickException):
    """A command or target whose part of the compiler has not landed yet (exit 2)."""

    exit_code = 2

    def __init__(self, what: str, part: str, works_today: str):
        super().__init__(f"{what} needs {part}, which is not built yet; {works_today}")

    def show(self, file=None) -> None:
        click.echo(f"syncc: {self.message}", err=True)


# ---- shared options -------------------------------------------------------------

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


_MACHINES = ["ptx", "sass", "cuda", "gpu", "fermi-sass", "fermi-sim"]


def _opt_level(f: Callable) -> Callable:
    return click.option("-O", "opt", type=click.IntRange(0, 2), default=2, show_default=True, metavar="LEVEL",
                        help="-O0 keeps every lock as written; -O2 (default) also elides locks and combines warps.")(f)


def _verify_each(f: Callable) -> Callable:
    return click.option("--verify-each", is_flag=True,
                        help="Verify the IR after every pass (by default: after lowering and at the end).")(f)


def _unsafe_no_fences(f: Callable) -> Callable:
    return click.option("--unsafe-no-fences", "no_fences", is_flag=True, hidden=True,
                        help="Compile without any memory ordering (only to show the GPU stress tests can fail).")(f)


def _machine(f: Callable) -> Callable:
    return click.option("--target", type=click.Choice(_MACHINES), default="ptx", show_default=True,
                        help="The machine to check for: ptx, sass, cuda and gpu are sm_70+ (independent thread "
                             "scheduling); fermi-sass and fermi-sim are Fermi (stack-based, lock bits).")(f)


class Reporter:
    """Prints a compilation's diagnostics to stderr in the chosen format."""

    def __init__(self, error_format: str, color: str):
        from .diagnostics import use_color
        self.json = error_format == "json"
        self.color = use_color(sys.stderr, color)
        self.count_errors = 0
        self.count_warnings = 0

    def report(self, comp) -> None:
        from .diagnostics import Renderer
        renderer = Renderer(comp.sources, color=self.color)
        for d in comp.diagnostics:
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
            click.echo(f"syncc: {files} file{'s' if files != 1 else ''} checked: {what}", err=True)
        return EXIT_ERRORS if self.count_errors else EXIT_OK


# ---- commands -----------------------------------------------------------------------

@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="syncc", message="%(prog)s %(version)s")
def cli() -> None:
    """syncc: a compiler from a small lock DSL to PTX and to a Fermi simulator.

    Programs declare channels, mutexes, semaphores and barriers with a
    granularity (@thread, @warp, @block, @grid); syncc makes them free of SIMT
    deadlock and livelock and explains what it did. See docs/language.md.
    """


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@_machine
@_opt_level
@_verify_each
@_common
def check(files, target, opt, verify_each, defines, error_format, color, debug) -> int:
    """Check FILES for a target, through every safety pass; print every problem found."""
    from .driver import compile_file
    reporter = Reporter(error_format, color)
    for path in files:
        reporter.report(compile_file(path, defines, target, opt, verify_each=verify_each))
    return reporter.finish(len(files))


_ARCH = re.compile(r"^sm_(\d{2,3})a?$")


def _arch(ctx, param, value: str) -> str:
    m = _ARCH.match(value)
    if not m or int(m.group(1)) < 70:
        raise click.BadParameter("expected sm_70 or later, e.g. sm_80 or sm_90", ctx=ctx, param=param)
    return value


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--target", type=click.Choice(["ptx", "sass", "fermi-sass", "cuda"]), default="ptx",
              show_default=True, help="What to produce.")
@click.option("--emit", type=click.Choice(["ast", "ir"]), default=None,
              help="Stop early and print an intermediate form instead.")
@click.option("--dump-after", type=click.Choice(PASS_NAMES), default=None, metavar="PASS",
              help="Print the IR after PASS and stop (implies --emit ir). Passes: " + ", ".join(PASS_NAMES) + ".")
@click.option("-o", "output", type=click.Path(dir_okay=False, allow_dash=True), default="-",
              help="Where to write the result (default: stdout).")
@click.option("--arch", default="sm_90", show_default=True, callback=_arch, help="GPU architecture for ptx/sass.")
@_opt_level
@_verify_each
@_unsafe_no_fences
@_common
def build(file, target, emit, dump_after, output, arch, opt, verify_each, no_fences, defines, error_format, color,
          debug) -> int:
    """Compile FILE for a target (today: --emit ast or --emit ir)."""
    from .driver import check_file
    reporter = Reporter(error_format, color)
    comp = check_file(file, defines)
    if not comp.ok or emit == "ast":
        reporter.report(comp)
        if comp.ok:
            from .frontend.dump import dump
            _write(output, dump(comp.module.program))
            return EXIT_OK
        return reporter.finish(1)
    from .ir.printer import print_module
    from .targets import FOR_OUTPUT
    dumped: list[str] = []
    comp.lower(FOR_OUTPUT[target], opt, dump_after,
               lambda name, module: dumped.append(f"; the IR after {name}\n" + print_module(module)),
               verify_each=verify_each, fences=not no_fences)
    reporter.report(comp)
    if not comp.ok:
        return reporter.finish(1)
    if dump_after is not None:
        _write(output, "".join(dumped))
        return EXIT_OK
    if emit == "ir":
        _write(output, print_module(comp.ir))
        return EXIT_OK
    if target == "ptx":
        from .backends.ptx import build_ptx
        _write(output, build_ptx(comp.ir, arch).text)
        return EXIT_OK
    if target == "sass":
        from .backends.ptx.sass import build_sass
        from .backends.ptx.tools import ToolError
        try:
            _write(output, build_sass(comp.ir, arch, comp.sources))
        except ToolError as e:
            click.echo(f"syncc: {e}", err=True)
            return EXIT_USAGE
        return EXIT_OK
    if target == "cuda":
        from .backends.cuda import build_cuda
        _write(output, build_cuda(comp.ir))
        return EXIT_OK
    raise NotBuiltYet("`--target fermi-sass`", "the Fermi SASS emitter (issue 5)",
                      "`--target ptx`, `sass` and `cuda` work today")


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--target", type=click.Choice(["fermi-sim", "gpu"]), default="fermi-sim", show_default=True,
              help="Run on the built-in Fermi simulator or on a real GPU through cupy.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              metavar="SECONDS", help="A kernel still running after this long is reported as a probable "
                                      "deadlock or livelock (exit status 3).")
@_opt_level
@_verify_each
@_unsafe_no_fences
@_common
def run(file, target, timeout, opt, verify_each, no_fences, defines, error_format, color, debug) -> int:
    """Check FILE, then run its host block on a target."""
    from .driver import compile_file
    reporter = Reporter(error_format, color)
    comp = compile_file(file, defines, target, opt, verify_each=verify_each, fences=not no_fences)
    reporter.report(comp)
    if not comp.ok:
        return reporter.finish(1)
    if target == "fermi-sim":
        raise NotBuiltYet("`syncc run --target fermi-sim`", "the Fermi simulator (issue 5)",
                          f"`syncc run {file} --target gpu` works on a machine with a GPU")
    from .runtime.run import run_program
    before = len(comp.sink.items)
    outcome = run_program(comp, target, timeout, write=click.echo)
    if outcome.unavailable:
        click.echo(f"syncc: cannot run on the GPU: {outcome.unavailable}", err=True)
        return EXIT_USAGE
    new = Reporter(error_format, color)
    new.report(_Since(comp, before))
    if outcome.deadlock:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_DEADLOCK)      # the GPU is still running the kernel: do not wait for it at exit
    return EXIT_OK if outcome.ok else EXIT_ERRORS


class _Since:
    """The diagnostics a compilation gained after the first `before` (for reporting twice)."""

    def __init__(self, comp, before: int):
        self.sources = comp.sources
        self.diagnostics = comp.sink.items[before:]


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@_machine
@_opt_level
@_verify_each
@_common
def explain(file, target, opt, verify_each, defines, error_format, color, debug) -> int:
    """Say what the compiler chose and inserted for FILE, and why."""
    from .driver import compile_file
    from .explain import explain_text
    reporter = Reporter(error_format, color)
    comp = compile_file(file, defines, target, opt, verify_each=verify_each)
    reporter.report(comp)
    if comp.context is not None:
        click.echo(explain_text(comp, target), nl=False)
    return EXIT_ERRORS if not comp.ok else EXIT_OK


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("-p", "--pass", "passes", multiple=True, required=True, type=click.Choice(PASS_NAMES[1:]),
              metavar="PASS", help="A pass to run (repeatable, in order): " + ", ".join(PASS_NAMES[1:]) + ".")
@click.option("--remarks", is_flag=True, help="Also print the passes' remarks, as `; remark` lines.")
@_machine
@_opt_level
@_common
def opt(file, passes, remarks, target, opt, defines, error_format, color, debug) -> int:
    """Run passes on IR text (what `build --emit ir` prints) and print the result: for pass tests."""
    from .driver import opt_file
    from .ir.printer import print_module
    reporter = Reporter(error_format, color)
    comp = opt_file(file, list(passes), target, opt)
    reporter.report(comp)
    if comp.ir is None:
        return reporter.finish(1)
    text = print_module(comp.ir)
    if remarks:
        text += "".join(f"; remark {r.topic}: {r.message}\n" for r in comp.context.remarks)
    click.echo(text, nl=False)
    return EXIT_OK


def _write(output: str, text: str) -> None:
    if output == "-":
        click.echo(text, nl=False)
    else:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)


# ---- entry point ----------------------------------------------------------------------

def main(argv: list[str] | None = None) -> None:
    sys.exit(run_cli(argv))


def run_cli(argv: list[str] | None = None) -> int:
    """Run the CLI and turn every outcome into an exit status (never a traceback, unless --debug)."""
    args = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in args or bool(os.environ.get("SYNCC_DEBUG"))
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
        click.echo("  run with --debug (or SYNCC_DEBUG=1) for the traceback.", err=True)
    return EXIT_INTERNAL


if __name__ == "__main__":
    main()
