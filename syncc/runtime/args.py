"""Checking a kernel launch's arguments against the kernel's parameters, for every target.

cupy and the simulator check nothing themselves: a numpy array of the wrong dtype
or shape would be read as raw words, a Python int sent as 64 bits. So both
launchers call `check_shape` and `check_arguments` first, which returns the values to pass (arrays
as given, scalars wrapped to the parameter's numpy type) or raises LaunchError.
"""
from __future__ import annotations

import numpy as np

from ..core.records import numpy_dtype
from ..core.source import Span

DTYPES = {"i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64, "f32": np.float32,
          "f64": np.float64, "bool": np.bool_}
_RANGES = {"i32": (-2**31, 2**31 - 1), "u32": (0, 2**32 - 1), "i64": (-2**63, 2**63 - 1), "u64": (0, 2**64 - 1),
           "bool": (0, 1)}


class LaunchError(Exception):
    """A launch that cannot be made as asked: wrong arguments, too many blocks for a grid barrier."""

    def __init__(self, message: str, span: Span | None = None):
        super().__init__(message)
        self.message, self.span = message, span


def _elem(p) -> str:
    return getattr(p.elem, "name", p.elem)


def check_shape(kernel: str, compiled_block, grid, block, span: Span | None) -> tuple[tuple, tuple]:
    """The launch shape as tuples; the block must be the one the kernel was compiled for, when it
    declares one: its primitives and checks depend on it."""
    if grid is None or block is None:
        raise LaunchError(f"`{kernel}` needs a grid and a block shape to launch", span)
    grid, block = tuple(grid), tuple(block)
    if compiled_block is not None and block != tuple(compiled_block):
        raise LaunchError(f"`{kernel}` is compiled for block{tuple(compiled_block)}, not block{block}: its "
                          "primitives and checks depend on it", span)
    return grid, block


def _overlap(a, b) -> bool:
    """Do two arrays (numpy, or on the device) share memory?"""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.size > 0 and b.size > 0 and np.shares_memory(a, b)
    ia, ib = getattr(a, "__cuda_array_interface__", None), getattr(b, "__cuda_array_interface__", None)
    if ia is None or ib is None or not a.size or not b.size:
        return False
    start_a, start_b = ia["data"][0], ib["data"][0]
    return start_a < start_b + b.nbytes and start_b < start_a + a.nbytes


MAX_ELEMENTS = (1 << 31) - 1     # arrays are indexed with i32


def _sizes(params, args: list, span) -> dict[str, int]:
    """The values of the scalar parameters that size arrays (`global f32[n]`): each at least 0, and
    an array they size under 2^31 elements."""
    named = {d for p in params if p.kind == "array" for d in p.dims if isinstance(d, str)}
    out = {}
    for p, a in zip(params, args):
        if p.kind != "array" and p.name in named:
            try:
                value = int(a)
            except (TypeError, ValueError):
                raise LaunchError(f"`{p.name}` sizes an array: give it an integer, not {type(a).__name__}", span) \
                    from None
            if value < 0:
                raise LaunchError(f"`{p.name}` sizes an array, and {value} is negative", span)
            out[p.name] = value
    for p in params:
        if p.kind == "array" and any(isinstance(d, str) for d in p.dims):
            total = 1
            for d in p.dims:
                if isinstance(d, str) and d not in out:
                    raise LaunchError(f"`{p.name}` is sized by `{d}`, which is no scalar parameter", span)
                total *= out[d] if isinstance(d, str) else d
            if total > MAX_ELEMENTS:
                raise LaunchError(f"`{p.name}` would have {total} elements, more than {MAX_ELEMENTS}", span)
    return out


def check_arguments(kernel: str, params, args: list, span: Span | None, scalar_type=None) -> list:
    """`params`: the program's parameters (objects with name, kind "array"/"scalar", elem, dims).
    `scalar_type(p)`: the numpy type a scalar is passed as (default: its own type)."""
    if len(args) != len(params):
        raise LaunchError(f"`{kernel}` takes {len(params)} arguments, got {len(args)}", span)
    sizes = _sizes(params, args, span)
    out = []
    for p, a in zip(params, args):
        elem = _elem(p)
        if p.kind == "array":
            record = getattr(p.elem, "kind", None) == "record"
            want = numpy_dtype(p.elem) if record else np.dtype(DTYPES[elem])
            dims = tuple(sizes[d] if isinstance(d, str) else d for d in p.dims)
            on_device = hasattr(a, "__cuda_array_interface__")
            if not (isinstance(a, np.ndarray) or on_device):
                raise LaunchError(f"`{p.name}` needs an array of {elem}{list(p.dims)}, got {type(a).__name__}", span)
            if a.dtype != want or tuple(a.shape) != dims:
                given = "".join(f", {d} = {sizes[d]}" for d in p.dims if isinstance(d, str))
                raise LaunchError(f"`{p.name}` needs {elem}{list(p.dims)}{given} ({want}), got {a.dtype}{list(a.shape)}"
                                  .replace("'", ""), span)
            if not a.flags.c_contiguous:
                raise LaunchError(f"`{p.name}` must be C-contiguous", span)
            for q, b in zip(params, out):
                if q.kind == "array" and _overlap(a, b):
                    raise LaunchError(f"`{q.name}` and `{p.name}` are given the same memory: each array parameter "
                                      "must be an array of its own (the kernel's checks, and the copies the "
                                      "launch makes, take them apart); pass a copy", span)
            out.append(a)
        elif elem in ("f32", "f64"):
            if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, float, np.integer, np.floating)):
                raise LaunchError(f"`{p.name}` is {elem}: give it a number, not {type(a).__name__}", span)
            with np.errstate(over="ignore"):    # (numpy rounds to nearest; past f32's range: infinity)
                out.append(DTYPES[elem](a))
        else:
            lo, hi = _RANGES[elem]
            value = int(a)
            if not lo <= value <= hi:
                raise LaunchError(f"`{p.name}` is {elem}, and {value} is out of its range", span)
            out.append((scalar_type(p) if scalar_type else DTYPES[elem])(value))
    return out
