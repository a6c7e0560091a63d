"""Host-block rules of the checker: launch, check, print, save, and launch shapes.

A host block is sequential code that prepares arrays, launches kernels and
verifies results. `launch k(args)` must match k's parameters exactly: an array
parameter takes a host array of the same element type and shape, a scalar
parameter a value of its type.
"""
from __future__ import annotations

from ..core.configs import Supported, ValueSet
from ..core.diagnostics import Note
from ..core.handlers import HandlerTable
from . import ast as A
from .check_context import CheckContext
from ..core.records import RecordType
from ..core.types import ERROR, FLOAT_LIT, INT_LIT, STR, VOID, ArrayType, ScalarType, is_int

MAX_BLOCK_THREADS = 1024
_BLOCK_LIMITS = (1024, 1024, 64)
_GRID_LIMITS = ((1 << 31) - 1, 65535, 65535)


statements = HandlerTable()


class HostRules:
    def __init__(self, cx: CheckContext):
        self.cx = cx

    @statements.on(A.Launch)
    def launch(self, s: A.Launch, pos):
        if not self.cx.host_only("`launch`", s.span, pos):
            return
        sym = self.cx.exprs.resolve(s.kernel.text, s.kernel.span, pos)
        if sym is not None:
            self.cx.refs[s] = sym
        if sym is None or sym.kind != "kernel":
            if sym is not None:
                self.cx.error("E0601", f"`{sym.name}` is not a kernel", s.kernel.span,
                              notes=[Note("declared here", sym.span)] if sym.span else ())
            for a in s.args:
                self.cx.exprs.expr(a, pos)
            return
        kernel = sym.info
        if s.kwargs:
            self.cx.error("E0602", "kernel arguments are positional", s.kwargs[0].span)
        params = kernel.params
        if len(s.args) != len(params):
            self.cx.error("E0602", f"`{sym.name}` takes {len(params)} argument{'s' if len(params) != 1 else ''}, "
                          f"got {len(s.args)}", s.span, notes=[Note("declared here", kernel.decl.name.span)])
        given = {pname: self.cx.exprs.try_fold(arg) for arg, (pname, ptype) in zip(s.args, params)
                 if isinstance(ptype, ScalarType) and ptype.is_int}
        for arg, (pname, ptype) in zip(s.args, params):
            if isinstance(ptype, ArrayType):
                t = self.cx.exprs.expr(arg, pos)
                if t is ERROR:
                    continue
                if not (isinstance(t, ArrayType) and t.elem == ptype.elem and _fits(t.dims, ptype.dims, given)):
                    shown = "host array " + str(t) if isinstance(t, ArrayType) else self.cx.exprs.kind_of(arg, t)
                    sizes = ", ".join(f"{d} = {given[d]}" for d in ptype.dims if isinstance(d, str) and
                                      isinstance(given.get(d), int))
                    want = str(ArrayType(ptype.elem, ptype.dims, "host")) + (f" ({sizes})" if sizes else "")
                    self.cx.error("E0602", f"`{pname}` needs a host array {want}, found {shown}", arg.span,
                                  help=f"allocate it with `zeros({ptype.elem}, [{', '.join(map(str, ptype.dims))}])`")
            elif ptype is not ERROR:
                self.cx.exprs.coerce(arg, self.cx.exprs.value(arg, pos), ptype, f"for `{pname}`")
        for arg in s.args[len(params):]:
            self.cx.exprs.expr(arg, pos)
        shape = self.launch_shape(s.shape, pos, host=True)
        have = {d.name.text for d in s.shape}
        if kernel.supports is not None:
            self._within_supported(s, kernel, shape, given, have)
        declared = {d.name.text for d in kernel.decl.launch}
        missing = [n for n in ("grid", "block") if n not in declared and n not in have]
        if missing:
            self.cx.error("E0603", f"`{sym.name}` has no launch shape; say `{' '.join(m + '(...)' for m in missing)}`",
                          s.span)
        for d in s.shape:
            if d.name.text == "block" and "block" in declared:
                # Its primitives (named-barrier counts, a block's worth of channel slots) were
                # checked against the declared block; a launch may only change the grid.
                self.cx.error("E0603", f"`{sym.name}` declares its block shape; a launch may change only the grid",
                              d.span, notes=[Note("declared here", next(x.span for x in kernel.decl.launch
                                                                    if x.name.text == "block"))],
                              help="drop `block(...)` here, or leave it out of the kernel's launch shape")

    def _within_supported(self, s: A.Launch, kernel, shape, given, have) -> None:
        """A launch whose grid or arguments are constants outside what the kernel declares is E0607
        (one known only at run time is refused then, runtime/launch_check.py)."""
        supports = kernel.supports
        if supports.grid is not None and "grid" not in have:
            self.cx.error("E0603", f"`{kernel.decl.name.text}` declares the grids it supports "
                                   f"({supports.grid[0].text()}); a launch says which, `grid(...)`", s.span)
            return
        grid = shape.get("grid")          # None where a size is computed at run time
        names = [name for name, _ in kernel.params]
        known = {n: v for n, name in enumerate(names) for v in [given.get(name)]
                 if isinstance(v, int) and not isinstance(v, bool)}
        judged = supports if grid is not None else Supported(None, supports.params)
        why = judged.refusal(grid or (1, 1, 1), known, names)
        if why is not None:
            self.cx.error("E0607", f"this launch is outside what `{kernel.decl.name.text}` supports: {why}", s.span,
                          notes=[Note("declared here", kernel.decl.launch[0].span if kernel.decl.launch
                                      else kernel.decl.name.span)])

    def launch_shape(self, dims: tuple[A.ShapeDim, ...], pos, host: bool = False):
        """Check grid(...)/block(...); return {"grid": (x, y, z), "block": ...} with constants filled in."""
        out: dict = {}
        for d in dims:
            ranges: dict[int, object] = {}
            name = d.name.text
            if name not in ("grid", "block"):
                self.cx.error("E0603", f"a launch shape has `grid(...)` and `block(...)`, not `{name}(...)`", d.name.span)
                continue
            if name in out:
                self.cx.error("E0603", f"`{name}` is given twice", d.name.span)
                continue
            if not 1 <= len(d.args) <= 3:
                self.cx.error("E0603", f"`{name}` takes 1 to 3 sizes (x, y, z), got {len(d.args)}", d.span)
                continue
            values: list[int] = []
            for arg in d.args:
                if isinstance(arg, A.Between) and not host and name == "grid":
                    ranges[len(values)] = self._declared_range(arg, pos, len(values))
                    values.append(1)           # (a stand-in: the grid is the ranges, `supported`)
                    continue
                if isinstance(arg, A.Between):
                    what = "a launch's sizes are values" if host else "a block is one size per axis"
                    self.cx.error("E0606", f"{what}, not a range", arg.span,
                                  help="a range is for a kernel's grid only: `launch grid(1 .. 65536) block(256)`")
                    continue
                if host:   # run-time sizes are allowed at a launch; constant ones are checked
                    t = self.cx.exprs.value(arg, pos)
                    if t is not ERROR and not is_int(t):
                        self.cx.error("E0201", f"a {name} size must be an integer, found {t}", arg.span)
                    v = self.cx.exprs.try_fold(arg) if is_int(t) else None
                else:
                    v = self.cx.exprs.int_constant(arg, pos, f"a kernel's {name} size")
                if v is not None:
                    values.append(v)
            if len(values) != len(d.args):
                out[name] = None
                continue
            shape = tuple(values) + (1,) * (3 - len(values))
            if ranges:
                if all(r is not None for r in ranges.values()):
                    out["grid ranges"] = tuple(ranges.get(axis, ValueSet.of([v]))
                                               for axis, v in enumerate(shape))
                out[name] = None
                continue
            out[name] = shape if self._shape_ok(name, shape, d) else None
        return out

    def _declared_range(self, e: A.Between, pos, axis: int) -> "ValueSet | None":
        """`lo .. hi` of a kernel's grid: within 1 .. the axis's limit."""
        ends = self.declared_ends(e, pos)
        if ends is None:
            return None
        lo, hi = ends
        if lo < 1 or hi - 1 > _GRID_LIMITS[axis]:
            self.cx.error("E0604", f"grid size {'xyz'[axis]} is within 1..{_GRID_LIMITS[axis]}; this range is "
                                   f"{lo} .. {hi}", e.span)
            return None
        return ValueSet.between(lo, hi)

    def declared_ends(self, e: A.Between, pos) -> tuple[int, int] | None:
        """The constant ends of a declared range `lo .. hi`, one that holds a value at least."""
        lo = self.cx.exprs.int_constant(e.lo, pos, "a range's end")
        hi = self.cx.exprs.int_constant(e.hi, pos, "a range's end")
        if lo is None or hi is None:
            return None
        if not lo < hi:
            self.cx.error("E0606", f"the range {lo} .. {hi} holds no value (its end is not included)", e.span)
            return None
        return lo, hi

    def _shape_ok(self, name: str, shape, d: A.ShapeDim) -> bool:
        limits = _BLOCK_LIMITS if name == "block" else _GRID_LIMITS
        for axis, (v, limit) in enumerate(zip(shape, limits)):
            if not 1 <= v <= limit:
                span = d.args[axis].span if axis < len(d.args) else d.span
                self.cx.error("E0604", f"{name} size {'xyz'[axis]} = {v} is outside 1..{limit}", span)
                return False
        if name == "block":
            threads = shape[0] * shape[1] * shape[2]
            if threads > MAX_BLOCK_THREADS:
                self.cx.error("E0604", f"a block of {threads} threads is more than {MAX_BLOCK_THREADS}", d.span)
                return False
        return True

    @statements.on(A.Check)
    def check(self, s: A.Check, pos):
        if self.cx.host_only("`check`", s.span, pos):
            self.cx.exprs.condition(s.cond, pos)

    @statements.on(A.Print)
    def print_stmt(self, s: A.Print, pos):
        if not self.cx.host_only("`print`", s.span, pos):
            return
        for item in s.items:
            t = self.cx.exprs.expr(item, pos)
            if t is STR or t is ERROR or t is INT_LIT or t is FLOAT_LIT or isinstance(t, ScalarType):
                continue
            if isinstance(t, ArrayType) and t.space == "host" or isinstance(t, RecordType):
                continue
            self.cx.error("E0210", f"cannot print {self.cx.exprs.kind_of(item, t)}", item.span,
                          help=self.cx.exprs.value_help(t) if t is not VOID else None)

    @statements.on(A.Save)
    def save(self, s: A.Save, pos):
        if not self.cx.host_only("`save`", s.span, pos):
            return
        t = self.cx.exprs.expr(s.value, pos)
        if t is not ERROR and not (isinstance(t, ArrayType) and t.space == "host"):
            self.cx.error("E0210", f"`save` writes a host array, found {self.cx.exprs.kind_of(s.value, t)}", s.value.span)
        if not s.path.value.endswith(".npy"):
            self.cx.warning("W0601", "`save` writes NumPy's .npy format; this path does not end in `.npy`",
                            s.path.span)


def _fits(have: tuple, want: tuple, given: dict) -> bool:
    """Does a host array of dims `have` fit a parameter of dims `want`? A size named by a scalar
    parameter must equal that argument where it is a constant; else the launch checks it."""
    if len(have) != len(want):
        return False
    for h, w in zip(have, want):
        value = given.get(w) if isinstance(w, str) else w
        if isinstance(value, int) and not isinstance(value, bool) and h is not None and h != value:
            return False
    return True
