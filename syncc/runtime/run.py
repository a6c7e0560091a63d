"""`syncc run`: the host block, with kernels on a target, and what went wrong as diagnostics.

    comp = driver.compile_file(path, target="gpu")
    outcome = run_program(comp, timeout=10.0, write=print)

The program runs where it was compiled for: its target (comp.target, an entry of
backend_table.py) makes the launcher, and says beforehand what that launcher cannot run.
Run-time problems are reported like compile errors, located in the program:

    E0901  a `check` failed
    E0902  the host block did something that cannot be done (divide by zero, index out of range)
    E0903  a launch that cannot be made (arguments, a grid barrier that does not fit the GPU)
    E0904  a kernel that did not finish in time: probably deadlocked or livelocked (exit status 3)
    E0905–E0910  on the simulator: a SIMT, alias, barrier or plain deadlock, a livelock, or the cycle
           budget spent, explained (exit status 3)
    E0911, E0912  on the simulator: an invalid memory access, an instruction that cannot run
    E0913  an index outside its array: a run-time bounds check stopped the kernel (both targets)
    E0425  a work pool's inner put found its queue full: the kernel stopped there (both targets)

The launcher is made only when the first kernel is launched (the GPU is set up then), so a host
block that launches nothing runs anywhere.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from ..core.diagnostics import DiagnosticsError, DiagnosticSink, Note
from ..core.source import SourceMap, Span
from .host import CheckFailed, HostError, HostRunner


class Launcher(Protocol):
    """Runs one launch of a kernel (runtime/gpu.py's GpuLauncher, runtime/sim.py's SimLauncher). It
    may keep `runs` (what each launch did, for --stats) and say `leaves_kernels_running` (a kernel
    that did not finish, or stopped at a failed check, stays on the device: the process must end
    without waiting for it)."""

    def __call__(self, name: str, args: list, grid, block, span: Span | None) -> Any: ...


class Runnable(Protocol):
    """What a run reads of a compilation (driver.Compilation is one): the checked module for the
    host block, the IR of its kernels, where to report, and the target it was compiled for (an
    entry of backend_table.py: its `launch` makes the launcher, its `cannot_run` says beforehand
    what that cannot run)."""
    module: object
    ir: object
    sink: DiagnosticSink
    sources: SourceMap
    target: object


@dataclass(frozen=True)
class RunOptions:
    """What a target's launcher is told, from the command line or the API."""
    timeout: float = 10.0       # gpu: a kernel still running after this long is a probable deadlock
    config: object = None       # the simulator's FermiConfig (None: the default one)
    observer: object = None     # the simulator's trace and progress hooks
    line_info: bool = False     # gpu: the PTX carries source lines, for compute-sanitizer


@dataclass
class RunOutcome:
    ok: bool
    deadlock: bool = False
    unavailable: str | None = None      # the target could not be used at all
    device_held: bool = False           # a kernel that did not finish stays on the device (exit at once)
    runs: list = field(default_factory=list)   # the launcher's `runs`: on the simulator, (kernel, outcome, grid, block)


def run_program(comp: Runnable, *, timeout: float = 10.0, write: Callable[[str], None] = print, config=None,
                observer=None, line_info: bool = False) -> RunOutcome:
    """Run the host block with kernels on comp.target (the options: RunOptions)."""
    target = comp.target
    if target.launch is None:
        raise ValueError(f"`{target.name}` does not run programs")
    problems = target.cannot_run(comp) if target.cannot_run is not None else []
    if problems:                                # what the launcher cannot take, before anything runs
        comp.sink.extend(problems)
        return RunOutcome(False)
    launcher = _LazyLauncher(comp, RunOptions(timeout, config, observer, line_info))
    outcome = _run(comp, launcher, write)
    outcome.runs = getattr(launcher.launcher, "runs", [])
    return outcome


def _run(comp: Runnable, launcher: "_LazyLauncher", write) -> RunOutcome:
    from .args import LaunchError
    from .faults import IndexOutOfBounds, located
    from .gpu import GpuUnavailable, ProbableDeadlock
    from .sim import SimStopped, diagnostics
    runner = HostRunner(comp.module, launcher, write)
    try:
        runner.run()
    except GpuUnavailable as e:
        return RunOutcome(False, unavailable=str(e))
    except CheckFailed as e:
        comp.sink.error("E0901", f"check failed: {e.message}", e.span)
        return RunOutcome(False)
    except DiagnosticsError as e:               # the launcher's compile refused a kernel (made at the first launch)
        comp.sink.extend(e.diagnostics)
        return RunOutcome(False)
    except HostError as e:
        comp.sink.error("E0902", e.message, e.span)
        return RunOutcome(False)
    except LaunchError as e:
        comp.sink.error("E0903", e.message, e.span)
        return RunOutcome(False)
    except ProbableDeadlock as e:
        comp.sink.error("E0904", e.message, e.span, notes=[Note(f"it can wait on {w}") for w in e.waits],
                        help="run it on the Fermi simulator (`--target fermi-sim`) to see who waits for whom, "
                             "or raise `--timeout` if it is only slow")
        return RunOutcome(False, deadlock=True, device_held=launcher.leaves_kernels_running)
    except SimStopped as e:
        comp.sink.add(diagnostics(e, comp.sources))
        return RunOutcome(False, deadlock=e.stuck, device_held=launcher.leaves_kernels_running)
    except IndexOutOfBounds as e:
        message, span = located(e, comp.sources)
        if e.code == "E0425":
            comp.sink.error("E0425", message, span,
                            notes=[Note(f"kernel `{e.kernel}` stopped here: the slot this put needs still holds a "
                                        "value no worker has taken")],
                            help="declare the queue with room for the most items waiting in it at once")
        elif e.check is not None and e.check.permits:
            comp.sink.error("E0913", message, span,
                            notes=[Note(f"kernel `{e.kernel}` stopped here, before the wait or post: its run-time "
                                        "check of the number of permits failed")],
                            help="take or give at least one permit (`max(k, 1)`), or leave out the wait or post "
                                 "where k is 0")
        else:
            comp.sink.error("E0913", message, span,
                            notes=[Note(f"kernel `{e.kernel}` stopped here, before the access: its run-time bounds "
                                        "check failed")],
                            help="guard the index (`if k >= 0 && k < N { ... }`), or bring it into range (`k % N`, "
                                 "`min(k, N - 1)`)")
        return RunOutcome(False, device_held=launcher.leaves_kernels_running)
    return RunOutcome(True)


class _LazyLauncher:
    """The target's launcher, made at the first launch."""

    def __init__(self, comp: Runnable, options: RunOptions):
        self.comp, self.options = comp, options
        self.launcher = None

    @property
    def leaves_kernels_running(self) -> bool:
        return bool(getattr(self.launcher, "leaves_kernels_running", False))

    def __call__(self, name, args, grid, block, span):
        if self.launcher is None:
            self.launcher = self.comp.target.launch(self.comp, self.options)
        self.launcher(name, args, grid, block, span)
