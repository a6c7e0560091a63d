"""`syncc run`: the host block, with kernels on a target, and what went wrong as diagnostics.

    outcome = run_program(comp, "gpu", timeout=10.0, write=print)

Run-time problems are reported like compile errors, located in the program:

    E0901  a `check` failed
    E0902  the host block did something that cannot be done (divide by zero, index out of range)
    E0903  a launch that cannot be made (arguments, a grid barrier that does not fit the GPU)
    E0904  a kernel that did not finish in time: probably deadlocked or livelocked (exit status 3)
    E0905–E0910  on the simulator: a SIMT, alias, barrier or plain deadlock, a livelock, or the cycle
           budget spent, explained (exit status 3)
    E0911, E0912  on the simulator: an invalid memory access, an instruction that cannot run
    E0913  an index outside its array: a run-time bounds check stopped the kernel (both targets)

The GPU is set up only when the first kernel is launched, so a host block that
launches nothing runs anywhere.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

from ..core.diagnostics import DiagnosticSink, Note
from ..core.source import SourceMap
from .host import CheckFailed, HostError, HostRunner


class Compilation(Protocol):
    """What a run needs of a compilation (driver.Compilation is one): the checked module for the
    host block, the IR of its kernels, and where to report."""
    module: object
    ir: object
    sink: DiagnosticSink
    sources: SourceMap


@dataclass
class RunOutcome:
    ok: bool
    deadlock: bool = False
    unavailable: str | None = None      # the target could not be used at all
    device_held: bool = False           # a failed check stalled a kernel on the GPU for good (exit at once)
    runs: list = field(default_factory=list)   # fermi-sim: (kernel, simulator outcome, grid, block) per launch


def run_program(comp: Compilation, target: str, timeout: float = 10.0,
                write: Callable[[str], None] = print, config=None, observer=None,
                line_info: bool = False) -> RunOutcome:
    """Run the host block with kernels on `target` ("gpu" or "fermi-sim"; `config` and `observer`
    are the simulator's FermiConfig and trace/progress hooks; `line_info`: the GPU's PTX carries
    source lines, for compute-sanitizer)."""
    if target == "fermi-sim":                   # what the emitter cannot take, before anything runs
        from ..backends.fermi.emit import check_module
        problems = check_module(comp.ir)
        if problems:
            comp.sink.extend(problems)
            return RunOutcome(False)
    launcher = _LazyLauncher(comp, target, timeout, config, observer, line_info)
    outcome = _run(comp, launcher, write)
    outcome.runs = getattr(launcher.launcher, "runs", [])
    return outcome


def _run(comp: Compilation, launcher, write) -> RunOutcome:
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
        return RunOutcome(False, deadlock=True)
    except SimStopped as e:
        comp.sink.add(diagnostics(e, comp.sources))
        return RunOutcome(False, deadlock=e.stuck)
    except IndexOutOfBounds as e:
        message, span = located(e, comp.sources)
        comp.sink.error("E0913", message, span,
                        notes=[Note(f"kernel `{e.kernel}` stopped here, before the access: its run-time bounds "
                                    "check failed")],
                        help="guard the index (`if k >= 0 && k < N { ... }`), or bring it into range (`k % N`, "
                             "`min(k, N - 1)`)")
        return RunOutcome(False, device_held=getattr(launcher, "target", None) == "gpu")
    return RunOutcome(True)


class _LazyLauncher:
    def __init__(self, comp: Compilation, target: str, timeout: float, config=None, observer=None,
                 line_info: bool = False):
        self.comp, self.target, self.timeout = comp, target, timeout
        self.config, self.observer, self.line_info = config, observer, line_info
        self.launcher = None

    def __call__(self, name, args, grid, block, span):
        if self.launcher is None:
            if self.target == "fermi-sim":
                from ..backends.fermi.emit import build_fermi_sass
                from ..ir.faults import check_sites
                from .sim import SimLauncher
                its = bool(self.config is not None and self.config.its)
                self.launcher = SimLauncher(build_fermi_sass(self.comp.ir, its=its), self.config, self.observer,
                                            sites={k.name: check_sites(k) for k in self.comp.ir.kernels},
                                            ir=self.comp.ir)
            else:
                from .gpu import GpuLauncher
                self.launcher = GpuLauncher(self.comp.ir, self.timeout, line_info=self.line_info)
        self.launcher(name, args, grid, block, span)
