"""Every launch is checked by the hazard analyses for its own configuration before it runs.

    launcher = CheckedLauncher(comp, GpuLauncher(...))    # backend_table.py wraps each target's

At compile time the analyses run for the kernel's declared shape and for each `launch` of the
host block whose grid, block and scalar arguments are constants (ir/analysis/launches.py). A
launch whose configuration is known only at run time (a host block's `launch k(x, n) grid(g)`
with g computed, any launch from the Python API) gets them here, just before it runs: the shape
is the launch's grid and block and the values of its integer and bool scalar arguments, and
passes/hazards.py's `check_launch` runs the checks for it unless a shape already checked would
find the same. A launch they find a hazard in is refused with their diagnostics
(DiagnosticsError: `syncc run` reports them, the API raises syncc.CompileError); one that needs
every block resident at once is launched so. Each configuration is checked once per compilation.
"""
from __future__ import annotations

import numpy as np

from ..core.diagnostics import Diagnostic, DiagnosticsError, Severity
from ..core.source import Span
from ..ir.analysis.space import Shape
from ..ir.nodes import Reg
from ..ir.passes.hazards import check_launch
from .args import check_shape


class CheckedLauncher:
    """A target's launcher that checks each launch's configuration first (the module docstring)."""

    def __init__(self, comp, launcher):
        self.comp, self.launcher = comp, launcher
        self.kernels = {k.name: k for k in comp.ir.kernels} if comp.ir is not None else {}

    def __getattr__(self, name):             # runs, leaves_kernels_running, ...: the launcher's own
        return getattr(self.launcher, name)

    def __call__(self, name: str, args: list, grid, block, span: Span | None = None, **options):
        self.check(name, args, grid, block, span)
        return self.launcher(name, args, grid, block, span, **options)

    def timed(self, name: str, args: list, grid, block, *rest, **options):
        """`syncc bench`'s timed launches (the GPU launcher's), checked the same way."""
        self.check(name, args, grid, block, None)
        return self.launcher.timed(name, args, grid, block, *rest, **options)

    def timed_batch(self, name: str, args: list, grid, block, *rest, **options):
        """`syncc bench`'s launches timed back to back (the GPU launcher's), checked the same way."""
        self.check(name, args, grid, block, None)
        return self.launcher.timed_batch(name, args, grid, block, *rest, **options)

    def check(self, name: str, args: list, grid, block, span: Span | None) -> None:
        """Refuse (DiagnosticsError) a launch the hazard checks find a problem in for its shape."""
        k = self.kernels.get(name)
        context = getattr(self.comp, "context", None)
        if k is None or context is None:
            return                             # (the launcher says what is wrong with the name)
        grid, block = check_shape(name, k.block, grid, block, span)
        supports = context.supports.get(name)
        if supports is not None:
            names = [p.name.split(".")[0] for p in k.params]
            why = supports.refusal(_dim3(grid), dict(_scalars(k, args)), names)
            if why is not None:
                raise DiagnosticsError([Diagnostic(
                    Severity.ERROR, "E0607", f"this launch of `{name}` is outside what it supports: {why}", span,
                    help="launch it within the configurations its header declares, or declare more there")])
        verdict = check_launch(context, name, Shape(_dim3(grid), _dim3(block), _scalars(k, args), span))
        if verdict.errors:
            raise DiagnosticsError(list(verdict.errors))
        if verdict.coresident and not k.coresident:
            require = getattr(self.launcher, "require_coresidency", None)
            if require is not None:
                require(name)


def _scalars(k, args: list) -> tuple[tuple[int, int], ...]:
    """(position, value) of each integer or bool scalar argument, as the analyses take them; a value
    that is not a number of the parameter's type is left out (check_arguments refuses it next)."""
    out = []
    for position, (p, a) in enumerate(zip(k.params, args)):
        if not isinstance(p, Reg) or p.type.is_float or not isinstance(a, (bool, int, np.integer, np.bool_)):
            continue
        value = int(a)
        if p.type.kind == "bool" or p.type.range[0] <= value <= p.type.range[1]:
            out.append((position, value))
    return tuple(out)


def _dim3(shape) -> tuple[int, int, int]:
    shape = tuple(int(v) for v in shape)
    return shape + (1,) * (3 - len(shape))
