"""The targets of `--target`, one entry each: the CLI's choices, the machine models checked for,
the driver's builds and the runs of the CLI and the API all come from this table. A new target is
one entry here and one package under syncc/backends/ (docs/architecture.md; tests/app/test_targets_table.py
adds one).

    ptx, sass, cuda, fermi-sass   `syncc build` writes them (`build`)
    gpu, fermi-sim                `syncc run` and the API run programs on them (`launch`)

Every target is checked for its machine model (syncc/ir/machine_model.py): ptx's (sm_70+, independent
thread scheduling) or Fermi's (stack-based reconvergence, lock bits); `--its` gives the Fermi
targets independent thread scheduling instead (`its_model`).

An entry's functions take the driver's Compilation for that target (`comp`: its `ir`, `sources`,
`vended`; this table does not import the driver, which reads it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from .core.prebuilt import dataclass
from .ir.machine_model import FERMI, FERMI_ITS, PTX, MachineModel

if TYPE_CHECKING:
    from .core.diagnostics import Diagnostic
    from .runtime.run import Launcher, RunOptions


@dataclass(frozen=True)
class BuildOptions:
    arch: str = "sm_90"        # ptx, sass: the GPU architecture
    its: bool = False          # fermi-sass: for independent thread scheduling
    command: str = ""          # how the output was made, for its header
    dump_after: str | None = None   # fermi-sass: print the code after this emitter step instead
    output: str | None = None       # the file written (`-o`), where a header names it
    verify_each: bool = False       # fermi-sass: verify the machine code after every emitter step


@dataclass(frozen=True)
class Backend:
    name: str
    model: MachineModel         # the machine model its programs are checked and compiled for
    summary: str
    # (comp, BuildOptions) → the text `syncc build` writes; raises BuildFailed
    build: Callable[..., str] | None = None
    # (comp, RunOptions) → the launcher that runs the program's kernels on it (`syncc run`, the API),
    # made at the program's first launch: a callable (kernel, args, grid, block, span)
    launch: Callable[..., Launcher] | None = None
    # (comp) → the diagnostics of what its launcher cannot run, found before the host block starts
    cannot_run: Callable[..., list[Diagnostic]] | None = None
    simulator: bool = False     # the simulator's options apply (FermiConfig, --trace, --stats); a launch
                                # returns the simulator's Outcome
    its_model: MachineModel | None = None   # `--its`: the model with independent thread scheduling

    def machine_model(self, its: bool = False) -> MachineModel:
        """The machine model the passes check for; `its` turns a model that has one into its ITS flavour."""
        return self.its_model if its and self.its_model is not None else self.model


class BuildFailed(Exception):
    """A back end could not produce its output: `diagnostics` to report, or none when a tool it
    needs is missing (ptxas): the message says which, a usage problem rather than the program's."""

    def __init__(self, message: str = "", diagnostics=()):
        super().__init__(message)
        self.diagnostics = list(diagnostics)


def _ptx(comp, options: BuildOptions) -> str:
    from .backends.ptx import build_ptx
    return build_ptx(comp.ir, options.arch).text


def _sass(comp, options: BuildOptions) -> str:
    from .backends.ptx.sass import build_sass
    from .backends.ptx.tools import ToolError
    try:
        return build_sass(comp.ir, options.arch, comp.sources)
    except ToolError as e:
        raise BuildFailed(str(e)) from None


def _cuda(comp, options: BuildOptions) -> str:
    from .backends.cuda import build_cuda
    return build_cuda(comp.ir, comp.vended, options.output, comp.context.supports)


def _fermi_sass(comp, options: BuildOptions) -> str:
    from .backends.fermi.emit import build_fermi_sass
    from .backends.fermi.printer import print_program
    from .core.diagnostics import DiagnosticsError
    dumped: list[str] = []
    try:
        program = build_fermi_sass(comp.ir, options.its, options.dump_after, lambda step, text: dumped.append(text),
                                   options.verify_each or None)
    except DiagnosticsError as e:
        raise BuildFailed(diagnostics=e.diagnostics) from None
    if options.dump_after is not None:
        return "\n".join(dumped)
    return print_program(program, comp.sources, options.command)


def _gpu_launcher(comp, options: RunOptions) -> Launcher:
    from .runtime.gpu import GpuLauncher
    from .runtime.launch_check import CheckedLauncher
    return CheckedLauncher(comp, GpuLauncher(comp.ir, options.timeout, line_info=options.line_info))


def _sim_launcher(comp, options: RunOptions) -> Launcher:
    """The program as Fermi SASS (for ITS when the simulator's config says so), on the simulator.
    Raises DiagnosticsError for what the emitter cannot take (`_fermi_cannot_run`)."""
    from .backends.fermi.emit import build_fermi_sass
    from .ir.faults import check_sites
    from .runtime.sim import SimLauncher
    from .runtime.launch_check import CheckedLauncher
    its = bool(options.config is not None and options.config.its)
    return CheckedLauncher(comp, SimLauncher(build_fermi_sass(comp.ir, its=its), options.config, options.observer,
                                             sites={k.name: check_sites(k) for k in comp.ir.kernels}, ir=comp.ir))


def _fermi_cannot_run(comp) -> list[Diagnostic]:
    from .backends.fermi.emit import check_module
    return check_module(comp.ir)


_ENTRIES = (
    Backend("ptx", PTX, "PTX for sm_70 and later (through LLVM's NVPTX back end)", build=_ptx),
    Backend("sass", PTX, "the SASS ptxas makes of that PTX (needs the CUDA tools)", build=_sass),
    Backend("cuda", PTX, "a CUDA C++ header: the kernels, or a library's primitives as types", build=_cuda),
    Backend("gpu", PTX, "run on a real GPU through cupy", launch=_gpu_launcher),
    Backend("fermi-sim", FERMI, "run on the built-in cycle-level Fermi simulator", launch=_sim_launcher,
            cannot_run=_fermi_cannot_run, simulator=True, its_model=FERMI_ITS),
    Backend("fermi-sass", FERMI, "Fermi SASS for the built-in simulator (`--its`: Volta-style)",
            build=_fermi_sass, its_model=FERMI_ITS),
)
# The table, read where it is used (never copied at import), so that an entry added to it is a target
BACKENDS: dict[str, Backend] = {b.name: b for b in _ENTRIES}


def build_targets() -> list[str]:
    """The targets `syncc build` writes."""
    return [b.name for b in BACKENDS.values() if b.build is not None]


def run_targets() -> list[str]:
    """The targets `syncc run` and the API run programs on."""
    return [b.name for b in BACKENDS.values() if b.launch is not None]


def machine_models() -> list[MachineModel]:
    """Every machine model a target is checked for, once each, in the table's order (`syncc check`)."""
    return list({b.model.name: b.model for b in BACKENDS.values()}.values())


def targets_of(model: MachineModel) -> list[str]:
    """The targets checked for `model`."""
    return [b.name for b in BACKENDS.values() if b.model == model]


def runner_of(target: str) -> str | None:
    """Where a program compiled for `target` runs: the first target that runs programs for its
    machine model (the target itself, if it runs them), or None when none does."""
    entry = BACKENDS[target]
    if entry.launch is not None:
        return entry.name
    return next((b.name for b in BACKENDS.values() if b.launch is not None and b.model == entry.model), None)
