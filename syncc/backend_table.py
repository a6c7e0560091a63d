"""The targets of `--target`, one entry each: the CLI's choices, the driver's machine model and
the API's targets all come from this table. A new target is one entry here and one package
under syncc/backends/ (docs/architecture.md).

    ptx, sass, cuda, fermi-sass   `syncc build` writes them (`build`)
    gpu, fermi-sim                `syncc run` runs programs on them (`runs`)

Every target is checked for its machine model (syncc/ir/machine_model.py): ptx's (sm_70+, independent
thread scheduling) or Fermi's (stack-based reconvergence, lock bits); `--its` gives the Fermi
targets independent thread scheduling instead.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol

from .core.prebuilt import dataclass

if TYPE_CHECKING:
    from .core.source import SourceMap
    from .ir.nodes import Module
    from .ir.machine_model import MachineModel


class Compilation(Protocol):
    """What a back end reads of a compilation (driver.Compilation is one)."""
    ir: Module
    sources: SourceMap
    vended: list            # a library's operations (frontend/vending.py)


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
    model: str                  # the machine model checked for: "ptx" or "fermi" (ir.machine_model.TARGETS)
    summary: str
    build: Callable[[Compilation, BuildOptions], str] | None = None   # the text `syncc build` writes
    runs: bool = False          # `syncc run` runs programs on it

    def machine_model(self, its: bool = False) -> MachineModel:
        """The machine model the passes check for; `its` turns Fermi's into the ITS flavour."""
        from .ir.machine_model import FERMI_ITS, TARGETS
        return FERMI_ITS if its and self.model == "fermi" else TARGETS[self.model]


class BuildFailed(Exception):
    """A back end could not produce its output: `diagnostics` to report, or none when a tool it
    needs is missing (ptxas): the message says which, a usage problem rather than the program's."""

    def __init__(self, message: str = "", diagnostics=()):
        super().__init__(message)
        self.diagnostics = list(diagnostics)


def _ptx(comp: Compilation, options: BuildOptions) -> str:
    from .backends.ptx import build_ptx
    return build_ptx(comp.ir, options.arch).text


def _sass(comp: Compilation, options: BuildOptions) -> str:
    from .backends.ptx.sass import build_sass
    from .backends.ptx.tools import ToolError
    try:
        return build_sass(comp.ir, options.arch, comp.sources)
    except ToolError as e:
        raise BuildFailed(str(e)) from None


def _cuda(comp: Compilation, options: BuildOptions) -> str:
    from .backends.cuda import build_cuda
    return build_cuda(comp.ir, comp.vended, options.output)


def _fermi_sass(comp: Compilation, options: BuildOptions) -> str:
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


_ENTRIES = (
    Backend("ptx", "ptx", "PTX for sm_70 and later (through LLVM's NVPTX back end)", build=_ptx),
    Backend("sass", "ptx", "the SASS ptxas makes of that PTX (needs the CUDA tools)", build=_sass),
    Backend("cuda", "ptx", "a CUDA C++ header: the kernels, or a library's primitives as types", build=_cuda),
    Backend("gpu", "ptx", "run on a real GPU through cupy", runs=True),
    Backend("fermi-sass", "fermi", "Fermi SASS for the built-in simulator (`--its`: Volta-style)",
            build=_fermi_sass),
    Backend("fermi-sim", "fermi", "run on the built-in cycle-level Fermi simulator", runs=True),
)
BACKENDS: dict[str, Backend] = {b.name: b for b in _ENTRIES}
BUILDS = [b.name for b in _ENTRIES if b.build is not None]
RUNS = [b.name for b in _ENTRIES if b.runs]
