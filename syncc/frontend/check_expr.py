"""Expression rules of the checker: names, operators, indexing, fields, constants
(calls and built-in functions are in check_calls.py).

Typing is strict: operands of a binary operator meet at one type; an untyped
constant (`32`, `N + 1`, `0.5`) takes the other side's type if its value fits,
so `x * 0x85ebca6b` is fine for a u32 `x` and an error for an i32 one, and
`y * 2` and `y * 0.5` are f32 for an f32 `y` (an untyped float constant is exact
until then, and rounded once). There are no implicit conversions otherwise;
casts are written `u32(x)`, `f32(i)`.
"""
from __future__ import annotations

import math
from fractions import Fraction

from ..core.diagnostics import did_you_mean
from ..core.records import RecordType
from ..core.handlers import HandlerTable
from . import ast as A
from .ast import MAX_TRYWAIT_NS, TIME_UNITS
from .check_context import CheckContext
from .consts import ConstError, NotConstant, fold
from .symbols import Position, Symbol
from ..core import floats
from ..core.types import (BOOL, ERROR, F64, FLOAT_LIT, I32, INT_LIT, STR, VOID, ArrayType, DType, ListType,
                          PrimType, ScalarType, common_int, common_number, is_float, is_int, is_number)

_SHIFT = {"<<", ">>"}
_ORDER = {"<", "<=", ">", ">="}
_EQUALITY = {"==", "!="}
_LOGIC = {"&&", "||"}
_FLOAT_OPS = {"+", "-", "*", "/"} | _ORDER | _EQUALITY     # what floats take (no %, bitwise or shifts)
UNTYPED = (INT_LIT, FLOAT_LIT)
MAX_ELEMENTS = (1 << 31) - 1   # arrays are indexed with i32


class AlreadyReported(Exception):
    """A constant that is wrong in itself; its error has been reported once already."""


expressions = HandlerTable()


class ExpressionRules:
    def __init__(self, cx: CheckContext):
        self.cx = cx

    def dims(self, exprs, pos: Position, what: str) -> tuple[int, ...] | None:
        out = []
        for e in exprs:
            v = self.int_constant(e, pos, what)
            if v is None:
                return None
            if v <= 0:
                self.cx.error("E0306", f"{what} must be positive, found {v}", e.span)
                return None
            out.append(v)
        total = 1
        for v in out:
            total *= v
        if total > MAX_ELEMENTS:
            self.cx.error("E0306", f"{total} elements are too many (at most {MAX_ELEMENTS})", exprs[0].span.to(exprs[-1].span))
            return None
        return tuple(out)

    def param_dims(self, exprs, pos: Position, sizes: dict) -> tuple[int | str, ...] | None:
        """A kernel array parameter's sizes: each a constant, or the name of one of the kernel's
        integer scalar parameters (`global f32[n]`: the size the launch gives)."""
        out = []
        for e in exprs:
            if isinstance(e, A.Name) and e.id in sizes and pos.scope.lookup(e.id) is None:
                out.append(e.id)
                continue
            if isinstance(e, A.Name) and pos.scope.lookup(e.id) is None:
                self.cx.error("E0101", f"unknown name `{e.id}`", e.span,
                              help=f"a size the launch gives is an integer parameter of the kernel: add `{e.id}: i32` "
                                   "to its parameters" + (f" (it has {', '.join(f'`{n}`' for n in sizes)})"
                                                          if sizes else ""))
                return None
            got = self.dims((e,), pos, "an array size")
            if got is None:
                return None
            out.append(got[0])
        fixed = [d for d in out if isinstance(d, int)]
        if len(fixed) != len(out) and fixed:
            total = 1
            for v in fixed:
                total *= v
            if total > MAX_ELEMENTS:
                self.cx.error("E0306", f"{total} elements are too many (at most {MAX_ELEMENTS})", exprs[0].span)
                return None
        return tuple(out)

    # ---- entry points ----------------------------------------------------------

    def expr(self, e: A.Expr, pos):
        t = self.cx.expression_handlers[type(e)](e, pos)
        self.cx.types[e] = t
        return t

    def value(self, e: A.Expr, pos):
        """An expression used as a scalar value (not an array, type, string or primitive)."""
        return self.as_value(e, self.expr(e, pos))

    def as_value(self, e: A.Expr, t):
        if t is ERROR or isinstance(t, ScalarType) or t in UNTYPED:
            return t
        if isinstance(t, RecordType):
            self.cx.error("E0214", f"a whole `{t.name}` record is not a value here", e.span,
                          help=f"use one field at a time: `{_name_of(e)}[...].{t.fields[0].name}`")
            return ERROR
        self.cx.error("E0210", f"expected a value, found {self.kind_of(e, t)}", e.span,
                      help=self.value_help(t))
        return ERROR

    def condition(self, e: A.Expr, pos) -> None:
        t = self.value(e, pos)
        if t is not ERROR and t != BOOL:
            self.cx.error("E0207", f"a condition must be bool, found {t}", e.span,
                          help="compare explicitly, e.g. `x != 0`" if is_int(t) else None)

    def coerce(self, e: A.Expr, have, want, what: str = "") -> bool:
        """Check that a value of type `have` may be used where `want` is expected."""
        if have is ERROR or want is ERROR:
            return True
        if have is INT_LIT and isinstance(want, ScalarType) and want.is_int:
            return self.fits(e, want)
        if have in UNTYPED and isinstance(want, ScalarType) and want.is_float:
            return self.fits(e, want)
        if have == want or isinstance(have, ArrayType) and isinstance(want, ArrayType) and have.fits(want):
            return True
        where = f" {what}" if what else ""
        help = None
        if is_number(have) and isinstance(want, ScalarType) and want.is_number:
            help = f"convert explicitly: `{want}(...)`"
        self.cx.error("E0201", f"mismatched types{where}: expected {want}, found {have}", e.span, help=help)
        return False

    def concrete(self, e: A.Expr, t):
        """Give an untyped constant its default type: i32, or f64 for a float constant (as in C)."""
        if t is INT_LIT:
            self.fits(e, I32)
            self.cx.types[e] = I32
            return I32
        if t is FLOAT_LIT:
            self.fits(e, F64)        # (stays untyped in cx.types: lowering rounds it once, to its use's type)
            return F64
        return t

    # ---- constants -------------------------------------------------------------

    def constant(self, e: A.Expr, what: str):
        """The value of a constant expression, or None after reporting why not."""
        try:
            return self.fold(e)
        except AlreadyReported:
            return None
        except NotConstant as nc:
            why = f": {nc.why}" if nc.why != "not a constant" else ""
            self.cx.error("E0301", f"{what} must be a constant{why}", nc.span,
                          help="use literals, `const`s and operators on them")
        return None

    def int_constant(self, e: A.Expr, pos, what: str):
        """The value of an integer constant expression, or None after reporting why not."""
        t = self.value(e, pos)
        if t is ERROR:
            return None
        if not is_int(t):
            self.cx.error("E0201", f"{what} must be an integer, found {t}", e.span)
            return None
        return self.constant(e, what)

    def try_fold(self, e: A.Expr):
        """The value of `e` if it is a valid constant, else None (errors in it are reported)."""
        try:
            return self.fold(e)
        except (NotConstant, AlreadyReported):
            return None

    def fold(self, e: A.Expr):
        """fold() with this module's constants; a constant that is wrong in itself
        (division by zero, overflow) is reported once and counts as not constant."""
        try:
            return fold(e, self._const_lookup, self._wrap)
        except ConstError as ce:
            self.const_error(ce.code, ce.span, ce.message)
            raise AlreadyReported() from None

    def const_error(self, code: str, span, message: str) -> None:
        """Report a constant that is wrong in itself, once however often it is folded."""
        if (code, span) not in self.cx.reported:
            self.cx.reported.add((code, span))
            self.cx.error(code, message, span)

    def _const_lookup(self, e):
        sym = self.cx.refs.get(e)
        if sym is not None and sym.kind == "const":
            value = self.cx.defs.const_value(sym)
            if value is None:
                raise AlreadyReported()   # (where that constant is declared)
            return value
        name = e.id if isinstance(e, A.Name) else e.name.text
        raise NotConstant(e.span, f"`{name}` is not a constant")

    def _wrap(self, e, v):
        """Fit a folded value to its node's type: conversions wrap, arithmetic must not overflow; a
        float is rounded to its type (an untyped constant to the type it met, once)."""
        t = self.cx.types.get(e)
        if t in UNTYPED:
            t = self.cx.meets.get(e, t)
        if isinstance(t, ScalarType) and t.is_float and not isinstance(v, bool):
            return floats.to_type(v, t)
        if not (isinstance(t, ScalarType) and t.is_int and isinstance(v, int)):
            return v
        if isinstance(e, A.Call) and isinstance(e.func, A.TypeRef):
            return t.wrap(v)
        lo, hi = t.range
        if not lo <= v <= hi and not isinstance(e, (A.IntLit, A.Name, A.Field)):
            raise ConstError("E0305", e.span, f"this constant expression overflows {t}: {v} is outside {lo} to {hi}")
        return v

    def fits(self, e: A.Expr, t: ScalarType) -> bool:
        """Does the untyped constant `e` fit in t? (A float type: it does not round to infinity.)"""
        if t.is_float:
            exact = self.try_fold(e)            # (before it meets t: exact)
            self.cx.meets[e] = t
            if isinstance(exact, (int, Fraction)) and not isinstance(exact, bool) and \
                    math.isinf(floats.to_type(exact, t)):
                self.cx.error("E0305", f"{_short(exact)} does not fit in {t} (it would round to infinity)", e.span)
                return False
            return True
        v = self.try_fold(e)
        lo, hi = t.range
        if isinstance(v, int) and not isinstance(v, bool) and not lo <= v <= hi:
            self.cx.error("E0305", f"{v} does not fit in {t} ({lo} to {hi})", e.span)
            return False
        return True

    # ---- leaves ------------------------------------------------------------------

    @expressions.on(A.IntLit)
    def int_lit(self, e, pos):
        return INT_LIT

    @expressions.on(A.FloatLit)
    def float_lit(self, e, pos):
        return FLOAT_LIT

    @expressions.on(A.BoolLit)
    def bool_lit(self, e, pos):
        return BOOL

    @expressions.on(A.StrLit)
    def str_lit(self, e, pos):
        return STR

    @expressions.on(A.TypeRef)
    def type_ref(self, e, pos):
        return DType(self.cx.scalar_of(e.name))

    @expressions.on(A.Between)
    def between(self, e, pos):
        self.cx.error("E0606", "a range `lo .. hi` is only for what a kernel's header declares it supports",
                      e.span, help="a kernel's grid, `launch grid(1 .. 65536)`, or an integer parameter, "
                                   "`n: i32 in 1 .. 4097`; a `for` loop writes `for i in lo .. hi`")
        return ERROR

    @expressions.on(A.ListLit)
    def list_lit(self, e, pos):
        return ListType(tuple(self.expr(x, pos) for x in e.items))

    @expressions.on(A.Name)
    def name(self, e, pos):
        sym = self.resolve(e.id, e.span, pos)
        if sym is None:
            return ERROR
        self.cx.refs[e] = sym
        return self.symbol_type(sym, e.span, pos)

    def symbol_type(self, sym: Symbol, span, pos):
        kind = sym.kind
        if kind == "const":
            value = self.cx.defs.const_value(sym)
            return ERROR if value is None else sym.info.type
        if kind == "builtin-value":
            self.cx.device_only(f"`{sym.name}`", span, pos)
            return I32
        if kind in ("fn", "kernel", "builtin-fn", "module"):
            return ("fn", sym)   # only meaningful as a callee; value() rejects it
        return sym.type

    def resolve(self, name: str, span, pos) -> Symbol | None:
        sym = pos.scope.lookup(name)
        if sym is None and name in pos.params:
            self.cx.error("E0101", f"unknown name `{name}` here: `{name}` is a parameter of the kernel, and a kernel's "
                          "launch shape and an expression in an array size are constants; a size the launch "
                          "gives is an integer parameter on its own (`global f32[n]`)",
                          span, help=f"size the array by a parameter of its own (`{name}2: i32`, `global i32[{name}2]`), "
                                     f"or declare a constant (`const {name.upper()} = 1024`; `-D {name.upper()}=...` "
                                     "sets it for one build or run); a host block's `launch` may compute the grid")
            return None
        if sym is None:
            help = None
            if self.cx.suggestion_budget > 0:
                names = pos.scope.visible_names()
                self.cx.suggestion_budget -= len(names)
                help = did_you_mean(name, names)
            self.cx.error("E0101", f"unknown name `{name}`", span, help=help)
        return sym

    # ---- operators -----------------------------------------------------------------

    @expressions.on(A.Unary)
    def unary(self, e, pos):
        t = self.value(e.operand, pos)
        if t is ERROR:
            return ERROR
        if e.op == "!":
            if t != BOOL:
                self.cx.error("E0201", f"`!` needs a bool, found {t}", e.operand.span,
                              help="for integers, `~` flips the bits" if is_int(t) else None)
                return ERROR
            return BOOL
        if e.op == "-" and is_float(t):
            return t
        if not is_int(t):
            self.cx.error("E0201", f"`{e.op}` needs an integer, found {t}", e.operand.span,
                          help="for bools, `!` negates" if t == BOOL else None)
            return ERROR
        return t

    @expressions.on(A.Binary)
    def binary(self, e, pos):
        op = e.op
        lt = self.expr(e.left, pos)
        if op in _EQUALITY and isinstance(lt, ArrayType) and lt.space == "host":
            rt = self.expr(e.right, pos)   # whole host arrays compare element by element
            if rt is not ERROR and not (isinstance(rt, ArrayType) and rt.fits(lt)):
                self.cx.error("E0201", f"cannot compare {lt} with {self.kind_of(e.right, rt)}", e.span)
            return BOOL
        lt = self.as_value(e.left, lt)
        rt = self.value(e.right, pos)
        if lt is ERROR or rt is ERROR:
            return BOOL if op in _ORDER | _EQUALITY | _LOGIC else ERROR
        if op in _LOGIC:
            for side, t in ((e.left, lt), (e.right, rt)):
                if t != BOOL:
                    self.cx.error("E0201", f"`{op}` needs bools, found {t}", side.span,
                                  help="for bitwise logic on integers use `&` or `|`" if is_int(t) else None)
            return BOOL
        if op in _EQUALITY and lt == BOOL and rt == BOOL:
            return BOOL
        if is_float(lt) or is_float(rt):
            return self.float_binary(e, lt, rt)
        for side, t in ((e.left, lt), (e.right, rt)):
            if not is_int(t):
                help = "for bools use `&&` and `||`" if t == BOOL and op in ("&", "|") else None
                if isinstance(side, A.TryWait) and side.attempts is not None:
                    help = "the count of `trywait s for N` is one operand: write `trywait s for (n + 1)`"
                self.cx.error("E0201", f"`{op}` needs integers, found {t}", side.span, help=help)
                return ERROR
        if op in _SHIFT:
            # The result has the left operand's type; an untyped left takes the right's.
            t = lt if lt is not INT_LIT else rt
            amount = self.try_fold(e.right)
            if isinstance(t, ScalarType) and isinstance(amount, int) and not 0 <= amount < t.bits:
                self.const_error("E0307", e.right.span, f"shift by {amount} is out of range for {t} (0 to {t.bits - 1})")
            return t
        if op in ("/", "%") and self.try_fold(e.right) == 0:
            self.const_error("E0302", e.span, "division by zero" if op == "/" else "remainder by zero")
        t = common_int(lt, rt)
        if t is None:
            self.cx.error("E0201", f"mismatched types: `{op}` between {lt} and {rt}", e.span,
                          help=f"convert one side explicitly, e.g. `{lt}(...)`")
            return ERROR
        if t is not INT_LIT:
            for side, st in ((e.left, lt), (e.right, rt)):
                if st is INT_LIT:
                    self.fits(side, t)
        return BOOL if op in _ORDER | _EQUALITY else t

    def float_binary(self, e, lt, rt):
        """A binary operator with a float operand: + - * / and comparisons, both sides one type."""
        op = e.op
        if op not in _FLOAT_OPS:
            side, t = (e.left, lt) if is_float(lt) else (e.right, rt)
            self.cx.error("E0201", f"`{op}` needs integers, found {t}", side.span,
                          help="floats take + - * / and comparisons; `fmod` is not provided" if op == "%" else
                          f"convert to an integer first, e.g. `i32(...)`")
            return ERROR
        t = common_number(lt, rt)
        if t is None:
            self.cx.error("E0201", f"mismatched types: `{op}` between {lt} and {rt}", e.span,
                          help=f"convert one side explicitly, e.g. `{lt if is_float(lt) else rt}(...)`")
            return ERROR
        if t is not FLOAT_LIT:
            for side, st in ((e.left, lt), (e.right, rt)):
                if st in UNTYPED:
                    self.fits(side, t)
        elif op == "/" and self.try_fold(e.right) == 0:
            self.const_error("E0302", e.span, "division by zero")
        return BOOL if op in _ORDER | _EQUALITY else t

    # ---- indexing and fields ---------------------------------------------------------

    def flatten_index(self, e):
        indices = []
        while isinstance(e, A.Index):
            indices.append(e.index)
            e = e.base
        return e, indices[::-1]

    @expressions.on(A.Index)
    def index(self, e, pos):
        base, indices = self.flatten_index(e)
        bt = self.expr(base, pos)
        if bt is ERROR:
            for i in indices:
                self.expr(i, pos)
            return ERROR
        if isinstance(bt, PrimType):
            if bt.kind != "channel":
                self.cx.error("E0210", f"`{_name_of(base)}` is a {bt.kind}, not a value", e.span,
                              help=_prim_help(bt.kind, _name_of(base)))
                return ERROR
            sym = self.cx.refs.get(base)
            if sym is not None and sym.kind == "prim":     # a plain read: a use of a top-level channel
                self.cx.prims.take_in(sym.info, e.span, pos)
            dims, elem = bt.dims, bt.elem
        elif isinstance(bt, ArrayType):
            dims, elem = bt.dims, bt.elem
        else:
            what = f"`{base.id}`: it is a scalar ({bt})" if isinstance(base, A.Name) and isinstance(bt, ScalarType) \
                else self.kind_of(base, bt)
            self.cx.error("E0203", f"cannot index {what}", base.span)
            return ERROR
        if not self.check_indices(_name_of(base), dims, indices, e.span, pos):
            return ERROR
        return elem

    def check_indices(self, name: str, dims, indices, span, pos, primitive: bool = False) -> bool:
        ok = True
        if len(indices) != len(dims):
            n = len(dims)
            help = None
            if len(indices) < n:
                help = (f"a primitive array is used one element at a time: `{name}[i]`" if primitive else
                        "a whole array can only be passed to `launch`, `print`, `save` or compared in host code")
            self.cx.error("E0202", f"`{name}` has {n} dimension{'s' if n != 1 else ''} but is indexed with "
                          f"{len(indices)} subscript{'s' if len(indices) != 1 else ''}", span, help=help)
            ok = False
        for dim, idx in zip(dims, indices):
            t = self.value(idx, pos)
            if t is ERROR:
                ok = False
                continue
            if not is_int(t):
                self.cx.error("E0201", f"an index must be an integer, found {t}", idx.span)
                ok = False
                continue
            v = self.try_fold(idx)
            if v is None or not isinstance(dim, int):
                continue
            if not 0 <= v < dim:
                self.cx.error("E0304", f"index {v} is out of bounds for a dimension of size {dim}", idx.span)
                ok = False
        for idx in indices[len(dims):]:
            self.expr(idx, pos)
        return ok

    @expressions.on(A.Field)
    def field(self, e, pos):
        base = e.base
        if isinstance(base, A.Name):
            sym = self.resolve(base.id, base.span, pos)
            if sym is None:
                return ERROR
            self.cx.refs[base] = sym
            if sym.kind == "module":
                member = self.module_member(sym, e.name)
                if member is None:
                    return ERROR
                self.cx.refs[e] = member
                return self.symbol_type(member, e.span, pos)
            if sym.kind == "builtin-value" and sym.info.has_xyz:
                if e.name.text not in ("x", "y", "z"):
                    self.cx.error("E0208", f"`{sym.name}` has fields x, y and z, not `{e.name.text}`", e.name.span)
                    return ERROR
                self.cx.device_only(f"`{sym.name}.{e.name.text}`", e.span, pos)
                self.cx.types[base] = I32
                return I32
        t = self.expr(base, pos)
        if isinstance(t, RecordType):
            return self.record_field(t, e)
        if t is not ERROR:
            self.cx.error("E0208", f"{self.kind_of(base, t)} has no field `{e.name.text}`", e.name.span)
        return ERROR

    def record_field(self, record: RecordType, e: A.Field):
        """The type of field `e.name` of a record (E0213 if it has none of that name)."""
        f = record.field(e.name.text)
        if f is None:
            self.cx.error("E0213", f"`{record.name}` has no field `{e.name.text}`", e.name.span,
                          help=did_you_mean(e.name.text, record.field_names) or
                          "its fields are " + ", ".join(f"`{n}`" for n in record.field_names))
            return ERROR
        return f.type

    def module_member(self, module_sym: Symbol, name: A.Ident) -> Symbol | None:
        module = module_sym.info
        if module is None:
            return None           # the import failed, and said so
        member = module.scope.names.get(name.text) if module.scope else None
        if member is None or name.text.startswith("_") or member.kind not in ("const", "fn"):
            exported = sorted(n for n, s in (module.scope.names.items() if module.scope else ())
                              if not n.startswith("_") and s.kind in ("const", "fn"))
            what = "private to" if member is not None and name.text.startswith("_") else "not in"
            self.cx.error("E0106", f"`{name.text}` is {what} module `{module_sym.name}`", name.span,
                          help=did_you_mean(name.text, exported) or
                       ("it exports " + ", ".join(f"`{n}`" for n in exported) if exported else None))
            return None
        return member

    # ---- channel reads and trylock (kernel only) ---------------------------------------

    @expressions.on(A.Get)
    def misplaced_get(self, e, pos):
        self.cx.error("E0211", "`get` must be the whole right-hand side of `let`, `var` or `=`", e.span,
                      help="take the value first: `let v = get c[i]`")
        self.cx.prims.prim_place(e.place, "get", pos)
        return ERROR

    def get_value(self, e: A.Get, pos):
        info = self.cx.prims.prim_place(e.place, "get", pos)
        t = info.elem if info is not None else ERROR
        self.cx.types[e] = t
        return t

    @expressions.on(A.TryLock)
    def trylock(self, e, pos):
        self.cx.prims.prim_place(e.place, "trylock", pos)
        return BOOL

    @expressions.on(A.Tile)
    def tile(self, e, pos):
        self.cx.prims.prim_place(e.place, "tile", pos)
        return I32

    @expressions.on(A.Scan)
    def scan(self, e, pos):
        info = self.cx.prims.prim_place(e.place, "inclusive" if e.inclusive else "exclusive", pos)
        t = self.value(e.value, pos)
        if info is None or info.elem is None or info.elem is ERROR:
            return ERROR
        self.coerce(e.value, t, info.elem, "for the scan")
        return info.elem

    @expressions.on(A.TryPut)
    def tryput(self, e, pos):
        info = self.cx.prims.prim_place(e.place, "tryput", pos)
        t = self.expr(e.value, pos) if info is not None and isinstance(info.elem, RecordType) else \
            self.value(e.value, pos)
        if info is not None and info.elem is not None:
            self.coerce(e.value, t, info.elem, "for the queue")
        return BOOL

    @expressions.on(A.TryWait)
    def trywait(self, e, pos):
        info = self.cx.prims.prim_place(e.place, "trywait", pos)
        self.cx.prims.permits(e.permits, info, "trywait", e.place, pos)
        if e.attempts is not None:
            what = "the number of attempts" if e.unit is None else "the time"
            t = self.value(e.attempts, pos)
            if t is not ERROR and not is_int(t):
                self.cx.error("E0201", f"{what} must be an integer, found {t}", e.attempts.span)
            elif t is not ERROR:
                self.concrete(e.attempts, t)
                n = self.try_fold(e.attempts)
                if e.unit is not None:
                    self._time_bound(e, n)
                elif n is not None and n < 1:
                    self.cx.error("E0306", f"`trywait ... for N` needs at least one attempt, found {n}",
                                  e.attempts.span, help="`trywait s` tries once")
        return BOOL

    def _time_bound(self, e, n: int | None) -> None:
        """`trywait s for T unit`: a unit of TIME_UNITS, and a constant T within 1 ns .. 4 s."""
        unit = e.unit.text
        if unit not in TIME_UNITS:
            self.cx.error("E0306", f"`{unit}` is not a unit of time: `trywait s for T` takes ns, us or ms",
                          e.unit.span, help="or no unit, for a number of attempts: `trywait s for 8`")
        elif n is not None and not 1 <= n * TIME_UNITS[unit] <= MAX_TRYWAIT_NS:
            self.cx.error("E0306", f"`trywait ... for {n} {unit}` needs a time from 1 ns to 4 s",
                          e.attempts.span, help="the GPU's timer counts nanoseconds in 32 bits (4.29 s)")

    # ---- wording ---------------------------------------------------------------------

    def kind_of(self, e, t) -> str:
        if isinstance(t, tuple) and t and t[0] == "fn":
            return f"`{t[1].name}` ({sym_kind(t[1])})"
        if isinstance(t, ArrayType):
            name = _name_of(e)
            return f"the array `{name}` ({t})" if name != "expression" else f"an array ({t})"
        if isinstance(t, PrimType):
            return f"the {t.kind} `{_name_of(e)}`"
        if isinstance(t, DType):
            return f"the type `{t.scalar}`"
        if t is STR:
            return "a string"
        if t is VOID:
            return "a call that returns nothing"
        if isinstance(t, ListType):
            return "a list"
        return str(t)

    @staticmethod
    def value_help(t) -> str | None:
        if isinstance(t, ArrayType):
            return "index it to read an element"
        if isinstance(t, PrimType):
            return _prim_help(t.kind, None)
        if isinstance(t, tuple):
            return "call it"
        if t is STR:
            return "strings can only be printed or used as messages"
        return None


def _short(v) -> str:
    """A constant's value in a message: an integer as it is, a fraction as a float."""
    if isinstance(v, int):
        return str(v)
    try:
        return f"{float(v):g}"
    except OverflowError:
        return f"about 10^{round(math.log10(abs(v.numerator)) - math.log10(v.denominator))}"


def _name_of(e) -> str:
    if isinstance(e, A.Name):
        return e.id
    if isinstance(e, A.Index):
        return _name_of(e.base)
    if isinstance(e, A.Field):
        return f"{_name_of(e.base)}.{e.name.text}"
    return "expression"


def sym_kind(sym: Symbol) -> str:
    return {"builtin-fn": "built-in function", "builtin-value": "built-in value", "fn": "function",
            "prim": "primitive", "loopvar": "loop variable", "binding": "channel value"}.get(sym.kind, sym.kind)


def _prim_help(kind: str, name: str | None) -> str:
    n = name or "it"
    return {
        "mutex": f"use it with `critical {n} {{ ... }}` or `lock`/`unlock`",
        "semaphore": f"use it with `acquire {n} {{ ... }}` or `wait`/`post`",
        "barrier": f"use it with `sync {n}`",
        "channel": "read a slot with `get` or `when`, write it with `put`",
        "rwlock": f"use it with `read {n} {{ ... }}` or `write {n} {{ ... }}`",
        "latch": f"use it with `count_down {n}`, `wait {n}` or `sync {n}`",
        "queue": f"take a value with `let v = get {n}`, add one with `put {n} = v`",
        "scan": f"take the block's tile with `let t = tile {n}`, then `let before = exclusive {n}(v)`",
    }[kind]
