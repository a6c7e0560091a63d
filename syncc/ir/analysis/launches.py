"""The shapes each kernel is launched with: its declared one, and every `launch` of the host block.

    shapes = launch_shapes(checked)      # kernel name → [Shape, ...]

The hazard analyses run once per distinct shape, because many hazards depend on the grid (a
grid barrier needs every block resident; a global channel's slots are put by as many blocks
as run) and on the scalar arguments a launch fixes (`launch counter(total, 4)` gives the
kernel's `iters` the value 4, so its loop can be counted). A shape or an argument the host
computes at run time is not known here: the grid then falls back to the declared one, and
the argument stays symbolic.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import prod

from ...core.source import Span
from ...core.types import ArrayType
from ...frontend import ast as A
from ...frontend.consts import NotConstant, fold, kernel_constants
from ...frontend.symbols import CheckedModule
from .space import Shape

DEFAULT_BLOCK = (1024, 1, 1)      # the widest block, for kernels whose launch clause does not say
DEFAULT_GRID = (2, 1, 1)          # two blocks, for kernels whose grid is given only at launch


def launch_shapes(checked: CheckedModule) -> dict[str, list[Shape]]:
    refs = {}
    for m in checked.with_imports():
        refs.update(m.refs)

    def lookup(x):
        sym = refs.get(x)
        if sym is not None and sym.kind == "const" and sym.info.value is not None:
            return sym.info.value
        raise NotConstant(x.span)

    def const(e):
        try:
            v = fold(e, lookup)
        except Exception:      # noqa: BLE001 — anything not foldable is simply not known here
            return None
        return int(v) if isinstance(v, (int, bool)) else None

    out: dict[str, list[Shape]] = {}
    for name, info in checked.kernels.items():
        if info.supports is not None:
            out[name] = declared_configurations(info, refs)
        elif info.grid is not None and info.block is not None:
            out[name] = [Shape(info.grid, info.block)]
        else:
            out[name] = []
    host = checked.host
    for launch in _launches(host.body) if host is not None else ():
        info = checked.kernels.get(launch.kernel.text)
        if info is None:
            continue
        dims = {d.name.text: _dim3([const(a) for a in d.args]) for d in launch.shape}
        grid = dims.get("grid", info.grid)
        block = dims.get("block", info.block)
        if grid is None or block is None:
            continue
        args = []
        for position, ((_, t), a) in enumerate(zip(info.params, launch.args)):
            if not isinstance(t, ArrayType):
                v = const(a)
                if v is not None:
                    args.append((position, v))
        shape = Shape(grid, block, tuple(args), launch.span)
        if shape not in out[info.decl.name.text]:
            out[info.decl.name.text].append(shape)
    return out


@dataclass(frozen=True)
class DeclaredConfiguration:
    """Where a Shape comes from the configurations a kernel's header declares it supports (its span)."""
    span: Span


def declared_configurations(info, refs=None) -> list[Shape]:
    """The shapes the analyses run for to cover what the kernel declares it supports (core/configs.py:
    Supported.covering, with the kernel's integer constants as landmarks); [] where they would be
    too many (the checker has said so)."""
    block = info.block or DEFAULT_BLOCK
    covering = info.supports.covering(kernel_constants(info.decl, refs or {}), prod(block))
    where = DeclaredConfiguration(info.decl.launch[0].span if info.decl.launch else info.decl.name.span)
    return [Shape(grid or info.grid or DEFAULT_GRID, block, args, where) for grid, args in covering or ()]


def _dim3(values: list[int | None]) -> tuple[int, int, int] | None:
    if any(v is None or v < 1 for v in values):
        return None
    values = list(values) + [1] * (3 - len(values))
    return tuple(values[:3])


def _launches(node):
    """Every `launch` statement under a host block, in source order."""
    if isinstance(node, A.Launch):
        yield node
        return
    for name in getattr(node, "__slots__", ()):
        value = getattr(node, name)
        for v in value if isinstance(value, tuple) else (value,):
            if hasattr(v, "__slots__") and hasattr(v, "span"):
                yield from _launches(v)
