"""The host block, run on the CPU: arrays in numpy, kernels through a launcher.

    HostRunner(checked, launcher, write=print).run()

`launcher(name, args, grid, block, span)` runs one kernel to completion on some target
(the GPU through cupy, or the Fermi simulator), reading and writing the numpy arrays
in `args` in place. Everything else the host block does happens here, with the
language's semantics: every typed integer is wrapped to its type after each
operation, division truncates toward zero; a float is a Python float rounded to its
type after each operation (core/floats.py), IEEE's infinities and NaN included;
untyped constants are exact (ints and Fractions).

`random(T, shape, seed=S, low=L, high=H)` draws from numpy's default generator
(PCG64) seeded with S: `default_rng(S).integers(L, H, size=shape)` for an integer T
(L, H default 0, 100), `L + (H - L) * default_rng(S).random(shape)` in f64, then
rounded to T, for a float T (L, H default 0, 1), so a program's inputs are the same on
every target and every run.

A failed `check` raises CheckFailed; `return` ends the block.

Statements and expressions are dispatched on their node class, built-in functions on
their name, through HandlerTables (syncc/core/handlers.py).
"""
from __future__ import annotations

import math
import operator
from fractions import Fraction
from math import prod
from typing import Callable

import numpy as np

from ..core.records import RecordType, numpy_dtype

from ..core import floats, mathlib
from ..core.handlers import HandlerTable
from ..frontend import ast as A
from ..frontend.consts import c_div, c_rem
from ..frontend.symbols import CheckedModule
from ..core.types import BOOL, F32, F64, FLOAT_LIT, I32, I64, INT_LIT, SCALARS, ArrayType, ScalarType, common_number
from ..core.source import Span
from ..ir.fold import FLOAT as FLOAT_FOLD
from .args import DTYPES

_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": c_div, "%": c_rem,
          "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift}


def _float_div(a: float, b: float) -> float:
    """IEEE division, infinities and NaN included (Python raises where the GPU does not)."""
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


_FLOAT_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": _float_div}
_EXACT_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul,
                "/": lambda a, b: Fraction(a) / Fraction(b)}     # untyped float constants
_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
            ">=": operator.ge}

Launcher = Callable[[str, list, tuple, tuple, Span], None]

statements = HandlerTable()
expressions = HandlerTable()
builtins = HandlerTable()      # keyed on the built-in function's name


class CheckFailed(Exception):
    def __init__(self, message: str, span: Span):
        super().__init__(message)
        self.message, self.span = message, span


class HostError(Exception):
    """Something the host block did that cannot be done at run time (a division by zero, an index
    out of range): reported at its source position."""

    def __init__(self, message: str, span: Span):
        super().__init__(message)
        self.message, self.span = message, span


class _Return(Exception):
    def __init__(self, value=None):
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class HostRunner:
    def __init__(self, checked: CheckedModule, launcher: Launcher, write: Callable[[str], None] = print):
        self.checked, self.launcher, self.write = checked, launcher, write
        self.types, self.refs = {}, {}
        for m in checked.with_imports():
            self.types.update(m.types)
            self.refs.update(m.refs)
        self.env: dict = {}
        self.statements = statements.bind(self)
        self.expressions = expressions.bind(self)
        self.builtins = builtins.bind(self)

    def run(self) -> None:
        host = self.checked.host
        if host is None:
            return
        try:
            self.block(host.body)
        except _Return:
            pass

    # ---- statements
    def block(self, b: A.Block) -> None:
        for s in b.stmts:
            self.statements[type(s)](s)

    @statements.on(A.Let)
    def let(self, s: A.Let) -> None:
        value = self.eval(s.value)
        if isinstance(s.type, A.ScalarTypeExpr):     # (`let e: Entry = ...`: a record, already a copy)
            value = self.convert(value, SCALARS[s.type.name])
        elif isinstance(value, int) and not isinstance(value, bool) and self.types.get(s.value) is INT_LIT:
            value = I32.wrap(value)
        elif self.types.get(s.value) is FLOAT_LIT:
            value = floats.to_type(value, F64)
        self.env[s] = value

    @statements.on(A.Assign)
    def assign(self, s: A.Assign) -> None:
        target = s.target
        if isinstance(target, A.Name):
            decl = self.refs[target].decl
            if s.op == "=":
                self.env[decl] = self.fit(self.eval(s.value), self.types.get(target))
            else:
                t = self.types.get(target)
                self.env[decl] = self.arith(s.op[:-1], self.env[decl], self.eval(s.value), t, s.span)
            return
        target_t = self.types.get(target)
        if isinstance(target_t, RecordType) and not isinstance(target, A.Name):    # a whole record
            array, index = self.element(target)
            value = self.eval(s.value)
            array[index] = tuple(value[f.name] for f in target_t.fields)
            return
        if isinstance(target, A.Field) and isinstance(target.base, A.Name):       # a field of a `var` record
            self.env[self.refs[target.base].decl][target.name.text] = self.fit(
                self.eval(s.value) if s.op == "=" else self.arith(s.op[:-1], self.eval(target), self.eval(s.value),
                                                                  target_t, s.span), target_t)
            return
        if isinstance(target, A.Field):
            array, index, t = self.field_element(target)
        else:
            array, index = self.element(target)
            t = self.elem_type(array)
        if s.op == "=":
            value = self.fit(self.eval(s.value), t)
        else:
            value = self.arith(s.op[:-1], self.scalar(array[index], t), self.eval(s.value), t, s.span)
        array[index] = value

    @statements.on(A.ExprStmt)
    def expr_stmt(self, s: A.ExprStmt) -> None:
        self.eval(s.expr)

    @statements.on(A.If)
    def if_stmt(self, s: A.If) -> None:
        if self.eval(s.cond):
            self.block(s.then)
        elif isinstance(s.orelse, A.If):
            self.if_stmt(s.orelse)
        elif s.orelse is not None:
            self.block(s.orelse)

    @statements.on(A.While)
    def while_loop(self, s: A.While) -> None:
        while self.eval(s.cond):
            try:
                self.block(s.body)
            except _Break:
                break
            except _Continue:
                continue

    @statements.on(A.For)
    def for_loop(self, s: A.For) -> None:
        t = self.types.get(s.start)
        t = t if isinstance(t, ScalarType) else self.types.get(s.stop)
        t = t if isinstance(t, ScalarType) else I32
        i = t.wrap(self.eval(s.start))
        stop = self.eval(s.stop)
        step = self.eval(s.step) if s.step is not None else 1
        while i < stop:
            self.env[s] = i
            try:
                self.block(s.body)
            except _Break:
                break
            except _Continue:
                pass
            i = t.wrap(self.env[s] + step)

    @statements.on(A.Break)
    def break_stmt(self, s) -> None:
        raise _Break()

    @statements.on(A.Continue)
    def continue_stmt(self, s) -> None:
        raise _Continue()

    @statements.on(A.Return)
    def return_stmt(self, s: A.Return) -> None:
        raise _Return(self.eval(s.value) if s.value is not None else None)

    @statements.on(A.Launch)
    def launch(self, s: A.Launch) -> None:
        sym = self.refs[s]
        info = sym.info
        args = []
        for a, (_, ptype) in zip(s.args, info.params):
            value = self.eval(a)
            args.append(value if isinstance(ptype, ArrayType) else self.convert(value, ptype))
        shape = {d.name.text: self.shape3(d) for d in s.shape}
        grid = shape.get("grid", info.grid)
        block = shape.get("block", info.block)
        self.launcher(sym.name, args, grid, block, s.span)

    def shape3(self, d: A.ShapeDim) -> tuple[int, int, int]:
        values = [int(self.eval(a)) for a in d.args]
        return tuple(values + [1] * (3 - len(values)))

    @statements.on(A.Check)
    def check(self, s: A.Check) -> None:
        if not self.eval(s.cond):
            raise CheckFailed(s.message.value if s.message is not None else "check failed", s.cond.span)

    @statements.on(A.Print)
    def print_stmt(self, s: A.Print) -> None:
        self.write(" ".join(self.show(self.eval(item), self.types.get(item)) for item in s.items))

    @statements.on(A.Save)
    def save(self, s: A.Save) -> None:
        np.save(s.path.value, self.eval(s.value), allow_pickle=False)

    @staticmethod
    def show(value, t=None) -> str:
        """A value as `print` writes it: a float in the fewest digits that read back as it, in its type."""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, dict):             # a record value: `W(flag = true, big = 5, ...)`
            fields = ", ".join(f"{k} = {HostRunner.show(v, t.field(k).type if isinstance(t, RecordType) else None)}"
                               for k, v in value.items())
            return f"{t.name if isinstance(t, RecordType) else ''}({fields})"
        if isinstance(value, np.ndarray):
            return np.array2string(value, separator=" ", threshold=64)
        if isinstance(value, Fraction):
            value = floats.to_type(value, F64)
        if isinstance(value, float):
            return str(np.float32(value)) if t == F32 else str(np.float64(value))
        return str(value)

    # ---- expressions
    def eval(self, e):
        return self.expressions[type(e)](e)

    @expressions.on(A.IntLit)
    def int_lit(self, e):
        return e.value

    @expressions.on(A.FloatLit)
    def float_lit(self, e):
        return e.value

    @expressions.on(A.BoolLit)
    def bool_lit(self, e):
        return e.value

    @expressions.on(A.StrLit)
    def str_lit(self, e):
        return e.value

    @expressions.on(A.ListLit)
    def list_lit(self, e):
        return tuple(self.eval(x) for x in e.items)

    @expressions.on(A.Name)
    def name(self, e):
        sym = self.refs[e]
        if sym.kind == "const":
            return sym.info.value
        if sym.decl in self.env:
            value = self.env[sym.decl]
            return dict(value) if isinstance(value, dict) else value     # (a record is copied, as a value)
        raise HostError(f"`{sym.name}` has no value here", e.span)

    @expressions.on(A.Field)
    def field(self, e):
        if isinstance(e.base, A.Index):          # a field of a record in a host array: `t[0].key`
            array, index, t = self.field_element(e)
            return self.scalar(array[index], t)
        if isinstance(self.types.get(e.base), RecordType):       # a field of a record value
            return self.eval(e.base)[e.name.text]
        sym = self.refs.get(e)
        if sym is not None and sym.kind == "const":
            return sym.info.value
        raise HostError(f"`{e.name.text}` is not a value on the host", e.span)

    @expressions.on(A.Unary)
    def unary(self, e):
        x = self.eval(e.operand)
        if e.op == "!":
            return not x
        t = self.types.get(e)
        value = -x if e.op == "-" else ~x
        return t.wrap(value) if isinstance(t, ScalarType) and t.is_int else value

    @expressions.on(A.Binary)
    def binary(self, e):
        op = e.op
        if op == "&&":
            return bool(self.eval(e.left)) and bool(self.eval(e.right))
        if op == "||":
            return bool(self.eval(e.left)) or bool(self.eval(e.right))
        a, b = self.eval(e.left), self.eval(e.right)
        if op in _COMPARE:
            if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
                same = isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape \
                    and a.dtype == b.dtype and bool(np.array_equal(a, b))
                return same if op == "==" else not same
            t = common_number(self.types.get(e.left), self.types.get(e.right))
            if isinstance(t, ScalarType) and t.is_float:    # an untyped side is rounded to the other's type
                a, b = floats.to_type(a, t), floats.to_type(b, t)
            return _COMPARE[op](a, b)
        return self.arith(op, a, b, self.types.get(e), e.span)

    def arith(self, op: str, a, b, t, span: Span):
        if isinstance(t, ScalarType) and t.is_float:
            return floats.to_type(_FLOAT_ARITH[op](floats.to_type(a, t), floats.to_type(b, t)), t)
        if t is FLOAT_LIT:
            if op == "/" and b == 0:
                raise HostError("division by zero", span)
            return _EXACT_ARITH[op](a, b)
        if op in ("/", "%") and b == 0:
            raise HostError("division by zero", span)
        if op in ("<<", ">>") and isinstance(t, ScalarType) and not 0 <= b < t.bits:
            raise HostError(f"shift by {b} of a {t.bits}-bit value", span)
        value = _ARITH[op](a, b)
        return t.wrap(value) if isinstance(t, ScalarType) and t != BOOL else value

    @expressions.on(A.Index)
    def index(self, e):
        array, index = self.element(e)
        record = self.types.get(e)
        if isinstance(record, RecordType):       # a whole record: field → value
            return {f.name: self.scalar(array[f.name][index], f.type) for f in record.fields}
        return self.scalar(array[index], self.elem_type(array))

    def field_element(self, e: A.Field) -> tuple[np.ndarray, tuple, ScalarType]:
        """A record's field in a host array of records: (the field's view of the array, the index,
        the field's type)."""
        array, index = self.element(e.base)
        return array[e.name.text], index, self.types[e]

    def element(self, e) -> tuple[np.ndarray, tuple]:
        indices = []
        while isinstance(e, A.Index):
            indices.append(e.index)
            e = e.base
        array = self.eval(e)
        index = tuple(int(self.eval(i)) for i in reversed(indices))
        for n, (i, size) in enumerate(zip(index, array.shape)):
            if not 0 <= i < size:
                raise HostError(f"index {i} is out of bounds for dimension {n} of size {size}", e.span)
        return array, index

    @expressions.on(A.Call)
    def call(self, e):
        func = e.func
        if isinstance(func, A.TypeRef):
            return self.convert(self.eval(e.args[0]), SCALARS[func.name])
        sym = self.refs[func]
        if sym.kind == "fn":
            return self.call_fn(sym, e)
        if sym.kind == "struct":                 # a record literal: field → value
            given = {k.name.text: k.value for k in e.kwargs}
            return {f.name: self.convert(self.eval(given[f.name]), f.type) for f in sym.info.fields}
        return self.builtins[sym.info.name](e)

    def call_fn(self, sym, e):
        info = sym.info
        args = [self.convert(self.eval(a), t) for a, t in zip(e.args, info.params)]
        saved = self.env
        self.env = dict(zip(info.decl.params, args))
        try:
            self.block(info.decl.body)
            result = None
        except _Return as r:
            result = r.value
        finally:
            self.env = saved
        return self.convert(result, info.ret) if info.ret is not None else None

    # ---- built-ins of the host
    def _kwargs(self, e) -> dict:
        return {k.name.text: self.eval(k.value) for k in e.kwargs}

    def _dtype_shape(self, e):
        """The dtype and the shape, whose sizes the host may compute: each at least 1, and fewer
        than 2^31 elements in all (as a constant shape must be: E0306)."""
        sym = self.refs.get(e.args[0]) if isinstance(e.args[0], A.Name) else None
        dtype = numpy_dtype(sym.info) if sym is not None and sym.kind == "struct" else DTYPES[e.args[0].name]
        shape = self.eval(e.args[1])
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if any(n < 1 for n in shape) or prod(shape) > (1 << 31) - 1:
            raise HostError(f"an array of shape {list(shape)}: each size must be at least 1, and the elements "
                            f"fewer than 2^31", e.args[1].span)
        return dtype, shape

    @builtins.on("zeros")
    def builtin_zeros(self, e):
        dtype, shape = self._dtype_shape(e)
        return np.zeros(shape, dtype)

    @builtins.on("full")
    def builtin_full(self, e):
        dtype, shape = self._dtype_shape(e)
        return np.full(shape, self._real(self.eval(e.args[2])), dtype)

    @builtins.on("arange")
    def builtin_arange(self, e):
        dtype, shape = self._dtype_shape(e)
        return np.arange(prod(shape), dtype=np.int64).astype(dtype).reshape(shape)

    @builtins.on("random")
    def builtin_random(self, e):
        dtype, shape = self._dtype_shape(e)
        kw = self._kwargs(e)
        rng = np.random.default_rng(kw.get("seed", 0))
        if np.issubdtype(dtype, np.floating):
            low, high = float(kw.get("low", 0)), float(kw.get("high", 1))
            return (low + (high - low) * rng.random(size=shape)).astype(dtype)
        values = rng.integers(kw.get("low", 0), kw.get("high", 100), size=shape, dtype=np.int64)
        return values.astype(dtype)

    @builtins.on("copy")
    def builtin_copy(self, e):
        return self.eval(e.args[0]).copy()

    @builtins.on("sum")
    def builtin_sum(self, e):
        array = self.eval(e.args[0])
        if np.issubdtype(array.dtype, np.floating):
            return float(array.astype(np.float64).sum())       # numpy's pairwise sum, in f64
        return I64.wrap(int(array.astype(np.int64).sum()))

    @builtins.on("allclose")
    def builtin_close(self, e):
        """numpy's isclose on every element: |a - b| <= atol + rtol * |b| (a NaN is close to nothing)."""
        kw = self._kwargs(e)
        a, b = (np.asarray(self._real(self.eval(x)), dtype=np.float64) for x in e.args)
        rtol, atol = float(kw.get("rtol", 1e-5)), float(kw.get("atol", 1e-8))
        return bool(np.all(np.isclose(a, b, rtol=rtol, atol=atol)))

    @staticmethod
    def _real(value):
        return float(value) if isinstance(value, Fraction) else value

    @builtins.on("min", "max")
    def builtin_min_max(self, e):
        t = self.types.get(e)
        values = [self.eval(a) for a in e.args]
        if isinstance(t, ScalarType) and t.is_float:
            pick = floats.fmin if e.func.id == "min" else floats.fmax
            out = floats.to_type(values[0], t)
            for v in values[1:]:
                out = pick(out, floats.to_type(v, t))
            return out
        return (min if e.func.id == "min" else max)(values)

    @builtins.on("abs")
    def builtin_abs(self, e):
        t = self.types.get(e)
        value = abs(self.eval(e.args[0]))
        return t.wrap(value) if isinstance(t, ScalarType) and t.is_int else value

    @builtins.on("sqrt", "floor", "ceil", "trunc")
    def builtin_float_unary(self, e):
        t = self.types.get(e)
        return floats.to_type(FLOAT_FOLD[e.func.id](floats.to_type(self.eval(e.args[0]), t)), t)

    @builtins.on("fma")
    def builtin_fma(self, e):
        t = self.types.get(e)
        return floats.fma(*(floats.to_type(self.eval(a), t) for a in e.args), t)

    @builtins.on(*mathlib.RECIPES)
    def builtin_recipe(self, e):
        """exp, exp2, log, log2: the recipe the kernels run (core/mathlib.py), on host floats."""
        t = self.types.get(e)
        return mathlib.evaluate(e.func.id, self.eval(e.args[0]), t if isinstance(t, ScalarType) else F64)

    @builtins.on("isnan")
    def builtin_isnan(self, e):
        return math.isnan(self.eval(e.args[0]))

    @builtins.on("isinf")
    def builtin_isinf(self, e):
        return math.isinf(self.eval(e.args[0]))

    @builtins.on("select")
    def builtin_select(self, e):
        return self.eval(e.args[1]) if self.eval(e.args[0]) else self.eval(e.args[2])

    @builtins.on("popc")
    def builtin_popc(self, e):
        t = self.types.get(e.args[0])
        x = self.eval(e.args[0])
        bits = t.bits if isinstance(t, ScalarType) else 64
        return bin(x & ((1 << bits) - 1)).count("1")

    # ---- values
    @staticmethod
    def convert(value, t: ScalarType):
        """`value` as a value of t: C's conversions, a float to an integer as PTX's cvt.rzi (toward zero,
        saturating, NaN to 0)."""
        if value is None or not isinstance(t, ScalarType):
            return value
        if t == BOOL:
            return bool(value)
        if t.is_float:
            return floats.to_type(value, t)
        if isinstance(value, (float, Fraction)):
            return floats.to_int(value, t)
        return t.wrap(int(value))

    def fit(self, value, t):
        return self.convert(value, t) if isinstance(t, ScalarType) else value

    @staticmethod
    def elem_type(array: np.ndarray) -> ScalarType:
        return {np.dtype(v): SCALARS[k] for k, v in DTYPES.items()}[array.dtype]

    @staticmethod
    def scalar(value, t: ScalarType):
        return bool(value) if t == BOOL else float(value) if t.is_float else int(value)
