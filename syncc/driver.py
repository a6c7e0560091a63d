"""The pipeline, as one readable sequence of phases.

    source.sync ──frontend.parse──▶ AST ──frontend.check──▶ CheckedModule
                 ──Compilation.lower──▶ sync IR ──passes──▶ safe IR ──Compilation.build──▶ PTX / Fermi SASS / ...

A `Compilation` is a program compiled for a target (an entry of backend_table.py): it carries
what every phase shares, the files read (for quoting in diagnostics) and the diagnostics found
so far, and what each phase made. The CLI, the Python API and vending assemble compilations
only through the functions here:

    check_file          parse and check (the front end)
    compile_file        check, then lower and run the passes for a target (a library: and vend it)
    Compilation.build   the text a target's back end makes of it (`syncc build`)
    check_for_targets   `syncc check`: check once, run the passes for every machine model
    opt_file            `syncc opt`: the named passes on IR text

A compiled program runs on its target through runtime/run.py's run_program.
"""
from __future__ import annotations

import gc
import re
from contextlib import contextmanager
from dataclasses import field
from typing import TYPE_CHECKING, Callable

from .core.diagnostics import Diagnostic, DiagnosticSink, DiagnosticsError, Severity
from .core.types import ScalarType
from .core.prebuilt import dataclass
from .core.source import SourceFile, SourceMap
from .frontend import ast as A
from .frontend.check import Checker
from .frontend.modules import ModuleLoader, load_source, stdlib_search_path
from .frontend.parser import parse
from .frontend.symbols import CheckedModule

if TYPE_CHECKING:
    from .backend_table import Backend, BuildOptions
    from .ir.context import PassContext
    from .ir.nodes import Module
    from .ir.machine_model import MachineModel

Defines = dict[str, tuple[int | bool, str]]

_DEFINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.+)$")


def parse_define(text: str) -> tuple[str, int | bool]:
    """`N=16` → ("N", 16); `DEBUG=true` → ("DEBUG", True). Raises ValueError."""
    m = _DEFINE.match(text.strip())
    if not m:
        raise ValueError(f"expected NAME=VALUE, got `{text}`")
    name, raw = m.group(1), m.group(2).strip()
    if raw in ("true", "false"):
        return name, raw == "true"
    try:
        return name, int(raw.replace("_", ""), 0) if not raw.lstrip("-").isdigit() else int(raw)
    except ValueError:
        raise ValueError(f"the value of `{name}` must be an integer or true/false, got `{raw}`") from None


@dataclass
class Compilation:
    target: "Backend | None" = None            # what it is compiled for (none: checked only, or for every model)
    defines: Defines = field(default_factory=dict)
    sources: SourceMap = field(default_factory=SourceMap)
    sink: DiagnosticSink = field(default_factory=DiagnosticSink)
    module: CheckedModule | None = None
    ir: "Module | None" = None                 # after every pass, where lowering ran and succeeded
    context: "PassContext | None" = None       # the machine model, and the remarks `syncc explain` prints
    vended: list = field(default_factory=list)  # a library's operations (frontend/vending.py), one kernel each
    stdlib: tuple[str, ...] = ()               # where `import std.X` looks instead of the shipped stdlib
    _loader: ModuleLoader | None = None

    @property
    def loader(self) -> ModuleLoader:
        """One loader per compilation, so each module is checked once and cycles are seen."""
        if self._loader is None:
            self._loader = ModuleLoader(self.sources, self.sink, self._parse_and_check_module,
                                        stdlib_search_path(self.stdlib))
        return self._loader

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.sink.sorted()

    @property
    def ok(self) -> bool:
        return not self.sink.has_errors

    def read(self, path: str) -> SourceFile | None:
        source = load_source(path, self.sources)
        if isinstance(source, Diagnostic):
            self.sink.add(source)
            return None
        return source

    def parse(self, source: SourceFile) -> A.Program | None:
        try:
            return parse(source)
        except DiagnosticsError as e:
            self.sink.extend(e.diagnostics)
            return None

    def check(self, source: SourceFile, program: A.Program, is_module: bool = False,
              vending: bool = False) -> CheckedModule:
        """`vending`: the program is a library with its operations' kernels (vend_library)."""
        from .ir.impls.registry import CATALOGUE
        defines = {} if is_module else self.defines
        return Checker(program, source.path, self.sink, CATALOGUE, self.loader, defines, is_module, vending).run()

    def lower(self, target: MachineModel, opt: int = 2, dump_after: str | None = None,
              dump: Callable[[str, Module], None] | None = None, verify_each: bool = False,
              fences: bool = True, syncwarp: bool = True, hazards: bool = True,
              omit: frozenset = frozenset(), bounds_checks: bool = True, vending: bool = False) -> Module | None:
        """Lower the checked program to the sync IR and run every pass (syncc/ir/pipeline.py); a
        library's primitives are then vended (vend_library). None when a pass reported an error.
        `fences=False` is --unsafe-no-fences (GPU tests only), `syncwarp=False` --unsafe-no-syncwarp (to
        show an ITS livelock on the simulator), `hazards=False` --unsafe-skip-hazard-checks (the oracle
        runs what the analyses reject); `omit` names inserted orderings to leave out (`syncc explain
        --witness`); `bounds_checks=False` --unsafe-no-bounds-checks (no run-time index checks: to
        measure what they cost); `vending`: the program is a library's operations, compiled without
        the passes that need the caller's whole kernel (PassContext.vending)."""
        from .frontend.vending import is_library
        from .ir.context import PassContext
        from .ir.pipeline import compile_module
        self.context = PassContext(target, opt, self.sink, fences=fences, syncwarp=syncwarp, hazards=hazards,
                                   omit=omit, bounds_checks=bounds_checks, vending=vending)
        self.context.verify_each |= verify_each
        with collector_paused():
            self.ir = compile_module(self.module, self.context, dump_after, dump)
        if self.ir is not None and not vending and is_library(self.module):
            self.vended = vend_library(self, self.context)     # a library: its primitives' operations
        return self.ir

    def build(self, options: BuildOptions, target: Backend | None = None) -> str:
        """The text a target's back end makes of the compiled program: its own target's, or that of
        `target`, another entry for the same machine model (the API builds PTX of the IR it runs on
        the GPU). Raises backend_table.BuildFailed."""
        target = target or self.target
        if target.build is None:
            raise ValueError(f"`{target.name}` builds nothing: it runs programs")
        if target is not self.target and target.model.name != self.context.target.name:
            raise ValueError(f"`{target.name}` builds for {target.model.name}, and this program was compiled "
                             f"for {self.context.target.name}")
        return target.build(self, options)

    def _parse_and_check_module(self, source: SourceFile, is_module: bool) -> CheckedModule | None:
        errors_before = sum(d.is_error for d in self.sink.items)
        program = self.parse(source)
        if program is None:
            return None
        module = self.check(source, program, is_module=True)
        return module if sum(d.is_error for d in self.sink.items) == errors_before else None


@contextmanager
def collector_paused():
    """The front end builds acyclic trees; pausing the cyclic collector while it
    runs stops it from rescanning a growing heap. Scoped to one compilation, and kept
    because it pays: checking and lowering wavefront, primitives and hashtable for both
    machine models in one process took 0.68 s paused against 0.83 s collecting (median of
    6 alternating runs, 2026-11-24), and large files gain more."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def check_file(path: str, defines: Defines | None = None, stdlib: tuple[str, ...] = ()) -> Compilation:
    """Parse and check one file (and the stdlib modules it imports, found in `stdlib`'s directories
    when given: `--stdlib`)."""
    comp = Compilation(defines=defines or {}, stdlib=tuple(stdlib))
    with collector_paused():
        source = comp.read(path)
        if source is None:
            return comp
        program = comp.parse(source)
        if program is None:
            return comp
        comp.module = comp.check(source, program)
    return comp


def vend_library(comp: Compilation, ctx: PassContext) -> list:
    """Compile every operation of every top-level primitive of the library `comp` checked, for
    ctx.target: sets comp.ir to the operations' kernels and adds their remarks to ctx. The
    operations are syntax trees (frontend/vending.py) added to the library's program, which is
    compiled as any program is: checked again with them (its imports are not: the loader has
    them), then lowered with `vending`, which leaves out the passes that need the caller's whole
    kernel (ir/pipeline.py's PASSES says which)."""
    from .core.diagnostics import Renderer
    from .frontend.vending import VendedOp, kernel_name, operation_kernel, operations
    from .ir.nodes import Module
    checked = comp.module
    source = comp.sources.get(checked.path)
    vended, kernels = [], []
    for info in checked.prims.values():
        for op in operations(info, info.impl):
            span = info.decl.span
            vended.append(VendedOp(info, op, kernel_name(info, op), source.text[span.start:span.end]))
            kernels.append(operation_kernel(info, op))
    program = A.Program(checked.program.items + tuple(kernels), checked.program.span)
    # a sink of its own: the library's own findings were reported when it was checked
    library = Compilation(defines=comp.defines, sources=comp.sources, stdlib=comp.stdlib, _loader=comp.loader)
    with collector_paused():
        library.module = library.check(source, program, vending=True)
    if library.ok:
        library.lower(ctx.target, ctx.opt, verify_each=ctx.verify_each, fences=ctx.fences, syncwarp=ctx.syncwarp,
                      vending=True)
    if library.ir is None or not library.ok:
        raise VendError("\n".join(Renderer(comp.sources).render(d) for d in library.sink.sorted()))
    declared = {v.kernel: v.prim.decl.span for v in vended}
    for r in library.context.remarks:     # every part of an operation comes from its declaration
        ctx.remark(r.kernel, r.topic, r.message, declared.get(r.kernel, r.span))
    comp.ir = Module(library.ir.kernels, checked.path)
    return vended


class VendError(Exception):
    """An operation of a checked primitive did not compile: a bug in syncc."""


def compile_file(path: str, defines: Defines | None = None, target: str = "ptx", opt: int = 2,
                 dump_after: str | None = None, dump: Callable[[str, Module], None] | None = None,
                 verify_each: bool = False, fences: bool = True, its: bool = False,
                 syncwarp: bool = True, hazards: bool = True, omit: frozenset = frozenset(),
                 stdlib: tuple[str, ...] = (), bounds_checks: bool = True) -> Compilation:
    """Check one file, then lower it and run every pass for `target` (a name of backend_table.BACKENDS;
    `its`: the Fermi targets with independent thread scheduling, the simulator's --its mode)."""
    from .backend_table import BACKENDS
    comp = check_file(path, defines, stdlib)
    comp.target = BACKENDS[target]
    if comp.ok:
        comp.lower(comp.target.machine_model(its), opt, dump_after, dump, verify_each, fences, syncwarp, hazards, omit,
                   bounds_checks)
    return comp


def undeclared_configurations(comp: Compilation) -> list[Diagnostic]:
    """W0602 for each kernel of code `syncc build` writes for others to launch (PTX, SASS, the CUDA
    header) whose grid, or an integer parameter the checks can see, it does not declare: the analyses
    judged one configuration of it, and a launch with another is judged by nobody."""
    from .ir.checks.data_params import data_only_params
    if comp.module is None or comp.ir is None or not comp.context.hazards:
        return []
    out = []
    for k in comp.ir.kernels:
        info = comp.module.kernels.get(k.name)
        if info is None:
            continue
        declared = {n for n, _ in info.supports.params} if info.supports is not None else set()
        hidden = data_only_params(k)
        names = [n for n, (name, t) in enumerate(info.params)
                 if isinstance(t, ScalarType) and t.is_int and n not in declared and n not in hidden]
        no_grid = info.grid is None and (info.supports is None or info.supports.grid is None)
        if not names and not no_grid:
            continue
        missing = ["`launch grid(lo .. hi)`"] * no_grid + [f"`{info.params[n][0]}: {info.params[n][1]} in lo .. hi`"
                                                           for n in names]
        parts = ["for grid(2) only"] * no_grid
        if names:
            parts.append("with " + and_list(f"`{info.params[n][0]}`" for n in names) + " left unknown")
        what = " and ".join(parts)
        out.append(Diagnostic(Severity.WARNING, "W0602", f"`{k.name}` was checked {what}: a launch of the "
                              f"built code with another is checked by nobody", info.decl.name.span,
                              help=f"declare what it supports: {and_list(missing)} (docs/language.md §8); "
                                   f"`syncc run` and the Python API check every launch themselves"))
    return out


def and_list(names) -> str:
    """"ptx", "ptx and fermi", "ptx, fermi and toy"."""
    names = list(names)
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


def found_on(names: list[str], models: list[MachineModel]) -> str:
    """What a finding of `syncc check` found for the machine models `names` (of `models`, every
    model checked) says about where it holds (docs/diagnostics.md)."""
    from .backend_table import targets_of
    if len(names) == len(models):
        return f"on both {and_list(names)}" if len(names) == 2 else f"on all of {and_list(names)}"
    if len(names) > 1:
        return f"on {and_list(names)}"
    model = next(m for m in models if m.name == names[0])
    return f"on {model.name} ({', '.join(targets_of(model))})" + (f": {model.brief}" if model.brief else "")


def check_for_targets(path: str, defines: Defines | None = None, opt: int = 2,
                      verify_each: bool = False, stdlib: tuple[str, ...] = (),
                      bounds_checks: bool = True) -> Compilation:
    """`syncc check` without `--target`: check one file once, then run the passes for every machine
    model a target of backend_table.py is checked for (ptx's and Fermi's). A finding of the passes
    that every model reports alike (same code, span and message) is kept once, for all; every other
    one says, in a last note, which models it is for. Each diagnostic's `targets` names the models;
    the front end's findings are for all."""
    from dataclasses import replace
    from .backend_table import machine_models
    from .core.diagnostics import Note
    models = machine_models()
    every = tuple(model.name for model in models)
    comp = check_file(path, defines, stdlib)
    front = [replace(d, targets=every) for d in comp.sink.items]
    found: dict[tuple, tuple[Diagnostic, list[str]]] = {}
    if comp.ok:
        for model in models:
            comp.sink = DiagnosticSink()
            comp.lower(model, opt, verify_each=verify_each, bounds_checks=bounds_checks)
            seen: dict[tuple, int] = {}
            for d in comp.sink.items:
                key = (d.severity, d.code, d.span, d.file, d.message)
                seen[key] = seen.get(key, 0) + 1
                key += (seen[key],)          # the n-th such finding of one model meets the other's n-th
                if key in found:
                    found[key][1].append(model.name)
                else:
                    found[key] = (d, [model.name])
    found_after = []
    for d, names in found.values():
        found_after.append(replace(d, notes=d.notes + (Note(found_on(names, models)),), targets=tuple(names)))
    comp.sink = DiagnosticSink(front + found_after)
    return comp


def opt_file(path: str, passes: list[str], target: str = "ptx", opt: int = 2) -> Compilation:
    """Read IR text (syncc/ir/printer.py's form), run the named passes on it (`syncc opt`)."""
    from .core.diagnostics import Severity
    from .ir.context import PassContext
    from .ir.parser import IRSyntaxError, parse_ir
    from .ir.pipeline import run_passes
    from .ir.verify import IRVerifyError
    from .backend_table import BACKENDS
    comp = Compilation(BACKENDS[target])
    source = comp.read(path)
    if source is None:
        return comp
    try:
        module = parse_ir(source.text)
    except IRSyntaxError as e:
        comp.sink.error("E0009", str(e), source.span_at(e.line, e.col))
        return comp
    if module.source and comp.sources.get(module.source) is None:
        load_source(module.source, comp.sources)      # to quote the program in diagnostics, if it is there
    comp.context = PassContext(comp.target.machine_model(), opt, comp.sink)
    try:
        comp.ir = run_passes(module, passes, comp.context)
    except IRVerifyError as e:
        if "reading" not in str(e):
            raise
        comp.sink.add(Diagnostic(Severity.ERROR, "E0009", f"the IR does not verify: {e}", None, file=path))
    return comp
