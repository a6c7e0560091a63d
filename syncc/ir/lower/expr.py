"""Lowering of expressions: three-address instructions on typed registers, `&&` and `||` as
branches where the right side has effects, array subscripts as row-major linear indices,
built-in functions, and calls to user functions, inlined. Constants fold with the GPU's semantics.
"""
from __future__ import annotations

import math
from dataclasses import replace

from ...core.handlers import HandlerTable
from ...core.source import Span
from ...core import mathlib
from ...core.types import BOOL, F64, FLOAT_LIT, I32, I64, INT_LIT, U32, ArrayType, PrimType, ScalarType
from ...frontend import ast as A
from ...frontend.consts import NotConstant, fold
from ..fold import bitcast, fold as fold_op, fold_same
from ...frontend.symbols import Symbol
from ..inlined import through_call
from ...core.records import RecordType
from ..nodes import Array, Imm, RecordValue, Ref, Reg, imm
from .context import LoweringContext, LoweringError

BINARY = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "rem", "&": "and", "|": "or", "^": "xor",
          "<<": "shl", ">>": "shr"}
COMPARE = {"==": "cmp.eq", "!=": "cmp.ne", "<": "cmp.lt", "<=": "cmp.le", ">": "cmp.gt", ">=": "cmp.ge"}
ATOMIC = {f"atomic_{op}": f"atom.{op}" for op in ("add", "sub", "exch", "min", "max", "and", "or", "xor", "cas")}


expressions = HandlerTable()
builtins = HandlerTable()        # keyed on the built-in function's name


class ExpressionLowering:
    def __init__(self, cx: LoweringContext):
        self.cx = cx
        self.b = cx.b
        self.builtins = builtins.bind(self)

    def const_value(self, e):
        def lookup(x):
            sym = self.cx.refs.get(x)
            if sym is not None and sym.kind == "const" and sym.info.value is not None:
                return sym.info.value
            raise NotConstant(x.span)
        return fold(e, lookup)

    def expr(self, e, want: ScalarType | None = None, dest: Reg | None = None):
        """Lower an expression to an operand (into `dest` when given); a record-valued one to a
        RecordValue, one operand per field."""
        t = self.cx.types.get(e)
        if isinstance(t, RecordType) and not isinstance(e, A.Get):
            return RecordValue(self.record(e, dest), t)
        result = None
        if self.cx.types.get(e) in (INT_LIT, FLOAT_LIT):   # an untyped constant, unless it has a runtime part
            try:                              # (`select(x > 0, 10, 100)` is untyped, not constant)
                result = imm(self.const_value(e), self.cx.type_of(e, want))
            except NotConstant:
                pass
        if result is None:
            result = self.cx.expression_handlers[type(e)](e, want, dest)
        if dest is not None and result != dest:
            self.b.assign(dest, result, e.span)
            return dest
        return result

    @expressions.on(A.IntLit)
    def int_lit(self, e, want, dest):
        return imm(e.value, self.cx.type_of(e, want))

    @expressions.on(A.FloatLit)
    def float_lit(self, e, want, dest):
        return imm(e.value, self.cx.type_of(e, want))

    @expressions.on(A.BoolLit)
    def bool_lit(self, e, want, dest):
        return imm(e.value, BOOL)

    @expressions.on(A.Name)
    def name(self, e, want, dest):
        sym = self.cx.symbol(e)
        if sym.kind == "const":
            return imm(sym.info.value, sym.info.type if isinstance(sym.info.type, ScalarType) else
                       self.cx.type_of(e, want))
        if sym.kind == "builtin-value":
            return self.cx.builtin(sym.name)
        reg = self.cx.vars.get(sym.decl)
        if reg is None:
            raise LoweringError(f"`{sym.name}` has no register")
        return reg

    @expressions.on(A.Field)
    def field(self, e, want, dest):
        if isinstance(e.base, A.Index):           # a field of an array's record
            name, index, record = self.element(e.base)
            if self.b.prim(name) is not None:     # of a channel slot's: a plain read of the record
                fields = self.emit_value(None, "chan.read", record, Ref(name, index), span=e.span)
                return fields[e.name.text]
            return self.emit_value(dest, "ld", record.field(e.name.text).type, Ref(name, index, e.name.text),
                                   span=e.span)
        if isinstance(e.base, A.Name):
            local = self.cx.vars.get(self.cx.symbol(e.base).decl)
            if isinstance(local, dict):           # a field of a record value: its register
                return local[e.name.text]
        elif isinstance(self.cx.types.get(e.base), RecordType):    # of a function's record result
            return self.record(e.base)[e.name.text]
        sym = self.cx.refs.get(e)
        if sym is not None:      # a module's constant
            return imm(sym.info.value, sym.info.type if isinstance(sym.info.type, ScalarType) else
                       self.cx.type_of(e, want))
        base = self.cx.symbol(e.base)
        return self.cx.builtin(f"{base.name}.{e.name.text}")

    @expressions.on(A.Unary)
    def unary(self, e, want, dest):
        t = self.cx.type_of(e, want)
        x = self.expr(e.operand, t)
        op = "neg" if e.op == "-" else "not"
        return self.binop_into(dest, op, t, x, span=e.span)

    @expressions.on(A.Binary)
    def binary(self, e, want, dest):
        op = e.op
        if op in ("&&", "||"):
            return self.logic(e, dest)
        if op in COMPARE:
            lt, rt = self.cx.types.get(e.left), self.cx.types.get(e.right)
            operand_t = lt if isinstance(lt, ScalarType) else rt if isinstance(rt, ScalarType) else \
                F64 if FLOAT_LIT in (lt, rt) else I32
            if isinstance(lt, ArrayType):      # whole host arrays: not in kernels
                raise LoweringError("array comparison in a kernel")
            a, b = self.expr(e.left, operand_t), self.expr(e.right, operand_t)
            return self.binop_into(dest, COMPARE[op], BOOL, a, b, span=e.span)
        t = self.cx.type_of(e, want)
        a = self.expr(e.left, t)
        b = self.expr(e.right, self.cx.type_of(e.right, t) if op in ("<<", ">>") else t)
        if op in ("<<", ">>") and isinstance(b, (Imm, Reg)) and b.type != t:
            b = imm(b.value, t) if isinstance(b, Imm) else self.b.op("cvt", t, b, span=e.span)
        return self.binop_into(dest, BINARY[op], t, a, b, span=e.span)

    def binop_into(self, dest, op, t, *args, span=None):
        """Emit `op` (folding it when every operand is an immediate, or an integer register given
        twice: `x == x`)."""
        if all(isinstance(a, Imm) for a in args):
            value = fold_op(op, args[0].type, [a.value for a in args])
            if value is not None:
                return imm(value, t)
        if len(args) == 2 and isinstance(args[0], Reg) and args[0] == args[1]:
            value = fold_same(op, args[0].type)
            if value is not None:
                return imm(value, t)
        if dest is not None and dest.type == t:
            self.b.emit(op, (dest,), args, span)
            return dest
        return self.b.op(op, t, *args, span=span)

    def logic(self, e, dest):
        """`&&` and `||`: evaluated only as far as needed, unless the right side has no effects."""
        if _harmless(e.right):
            a, b = self.expr(e.left, BOOL), self.expr(e.right, BOOL)
            return self.binop_into(dest, "and" if e.op == "&&" else "or", BOOL, a, b, span=e.span)
        result = dest if dest is not None and dest.type == BOOL else self.b.reg(BOOL, "cond")
        rhs, done = self.b.new_block("rhs"), self.b.new_block("logic")
        self.expr(e.left, BOOL, result)
        if e.op == "&&":
            self.b.branch(result, rhs, done, e.span)
        else:
            self.b.branch(result, done, rhs, e.span)
        self.b.at(rhs)
        self.expr(e.right, BOOL, result)
        self.b.jump(done)
        self.b.at(done)
        return result

    def condition(self, e, if_true: str, if_false: str) -> None:
        """Branch on a bool expression, short-circuiting && and || into control flow."""
        if isinstance(e, A.Binary) and e.op in ("&&", "||") and not _harmless(e.right):
            mid = self.b.new_block("cond")
            if e.op == "&&":
                self.condition(e.left, mid, if_false)
            else:
                self.condition(e.left, if_true, mid)
            self.b.at(mid)
            self.condition(e.right, if_true, if_false)
            return
        c = self.expr(e, BOOL)
        if isinstance(c, Imm):
            self.b.jump(if_true if c.value else if_false, e.span)
        else:
            self.b.branch(c, if_true, if_false, e.span)

    # ---- record values: one operand per field (scalarized; back ends see only scalars) ------

    def record(self, e, dests: dict[str, Reg] | None = None) -> dict[str, object]:
        """The fields of a record-valued expression, field name → operand: an array's element (one
        load per field), a local record (its registers), or a literal `Entry(key = k, ...)`. With
        `dests`, each field is computed into its register there."""
        record: RecordType = self.cx.types[e]
        dests = dests or {}
        if isinstance(e, A.Get):                  # a queue's value: its implementation's registers
            into = RecordValue(dests, record) if dests else None
            return dict(self.cx.expression_handlers[A.Get](e, record, into))
        if isinstance(e, A.Index):
            name, index, _ = self.element(e)
            if self.b.prim(name) is not None:     # a channel slot's plain read: one chan.read of every field
                into = RecordValue(dests, record) if dests else None
                return dict(self.emit_value(into, "chan.read", record, Ref(name, index), span=e.span))
            return {f.name: self.emit_value(dests.get(f.name), "ld", f.type, Ref(name, index, f.name), span=e.span)
                    for f in record.fields}
        if isinstance(e, A.Call):
            sym = self.cx.refs.get(e.func)
            if sym is not None and sym.kind == "fn":     # a function's result: its registers
                return dict(self.inline(sym, e, RecordValue(dests, record) if dests else None))
            given = {k.name.text: k.value for k in e.kwargs}
            return {f.name: self.expr(given[f.name], f.type, dests.get(f.name)) for f in record.fields}
        local = self.cx.vars[self.cx.symbol(e).decl]
        out = {}
        for f in record.fields:
            d = dests.get(f.name)
            if d is not None and d != local[f.name]:
                self.b.emit("mov", (d,), (local[f.name],), e.span)
                out[f.name] = d
            else:
                out[f.name] = local[f.name]
        return out

    def record_registers(self, record: RecordType, name: str) -> dict[str, Reg]:
        """Fresh registers for a local record, one per field (`e.key`, `e.value`, ...)."""
        return {f.name: self.b.reg(f.type, f"{name}.{f.name}") for f in record.fields}

    def place(self, e) -> tuple[Ref, ScalarType]:
        """An indexed array or channel element, or a field of an array's record (`table[i].key`):
        its reference and type."""
        if isinstance(e, A.Field):
            name, index, record = self.element(e.base)
            return Ref(name, index, e.name.text), record.field(e.name.text).type
        name, index, elem = self.element(e)
        return Ref(name, index), elem

    def element(self, e) -> tuple[str, object, ScalarType]:
        """An indexed array or channel element: (name, linear index, element type)."""
        base, indices = _flatten(e)
        t = self.cx.types.get(base)
        sym = self.cx.symbol(base)
        dims = t.dims
        index = self.linear(indices, dims)
        if isinstance(t, PrimType):
            return self.cx.sync.prim_name(sym), index, t.elem
        return self.cx.arrays[sym.decl], index, t.elem

    def linear(self, indices, dims):
        """Row-major linear index of a subscript list."""
        total = None
        for idx, dim in zip(indices, dims):
            i = self.expr(idx, I32)
            if isinstance(i, Reg) and i.type != I32:
                i = self.b.op("cvt", I32, i, span=idx.span)
            total = i if total is None else self.binop_into(None, "add", I32,
                                                            self.binop_into(None, "mul", I32, total, self.size(dim)), i)
        return total if total is not None else imm(0)

    def size(self, dim):
        """A dimension as an i32 operand: a constant, or the scalar parameter that gives it at launch."""
        if isinstance(dim, int):
            return imm(dim)
        reg = self.cx.sizes[dim]
        return reg if reg.type == I32 else self.b.op("cvt", I32, reg)

    @expressions.on(A.Index)
    def index(self, e, want, dest):
        name, index, elem = self.element(e)
        if self.b.prim(name) is not None:
            return self.emit_value(dest, "chan.read", elem, Ref(name, index), span=e.span)
        return self.emit_value(dest, "ld", elem, Ref(name, index), span=e.span)

    def emit_value(self, dest, op, t, *args, span=None, **attrs):
        if dest is not None and dest.type == t:
            self.b.emit(op, (dest,), args, span, **attrs)
            return dest
        return self.b.op(op, t, *args, span=span, **attrs)

    @expressions.on(A.Call)
    def call(self, e, want, dest):
        func = e.func
        if isinstance(func, A.TypeRef):
            t = self.cx.type_of(e)
            x = self.expr(e.args[0], t if self.cx.types.get(e.args[0]) is INT_LIT else None)
            if isinstance(x, Imm):
                return imm(x.value != 0 if t == BOOL else x.value, t)
            if x.type == t:
                return x
            if t == BOOL:
                return self.binop_into(dest, "cmp.ne", BOOL, x, imm(0, x.type), span=e.span)
            return self.emit_value(dest, "cvt", t, x, span=e.span)
        sym = self.cx.refs.get(func)
        if sym is None:
            raise LoweringError("unresolved call")
        if sym.kind == "fn":
            return self.inline(sym, e, dest)
        return self.builtin_call(sym.info.name, e, want, dest)

    def builtin_call(self, name, e, want, dest):
        lower = self.builtins.get(name)
        if lower is None:
            raise LoweringError(f"built-in `{name}` is not for kernels")
        return lower(name, e, self.cx.type_of(e, want), dest)

    # ---- built-in functions: (name, call, result type, destination) → operand --------------

    @builtins.on(*ATOMIC)
    def atomic(self, name, e, t, dest):
        ref, elem = self.place(e.args[0])
        values = [self.expr(a, elem) for a in e.args[1:]]
        # the scope written (`atomic_add.cta(...)`), else the word's memory's: gpu for global, cta for shared
        written = e.func.name.text if isinstance(e.func, A.Field) else None
        scope = written or ("gpu" if self.b_array(ref.name).space == "global" else "cta")
        return self.emit_value(dest, ATOMIC[name], elem, ref, *values, span=e.span, order="relaxed", scope=scope)

    @builtins.on("load_cg")
    def load_cg(self, name, e, t, dest):
        ref, elem = self.place(e.args[0])
        return self.emit_value(dest, "ld", elem, ref, span=e.span, cache="cg")

    @builtins.on("min", "max")
    def min_max(self, name, e, t, dest):
        acc = self.expr(e.args[0], t)
        for a in e.args[1:]:
            acc = self.binop_into(None, name, t, acc, self.expr(a, t), span=e.span)
        return self.expr_result(acc, dest)

    @builtins.on("abs")
    def abs(self, name, e, t, dest):
        return self.binop_into(dest, "abs", t, self.expr(e.args[0], t), span=e.span)

    @builtins.on("sqrt", "floor", "ceil", "trunc")
    def float_unary(self, name, e, t, dest):
        return self.binop_into(dest, name, t, self.expr(e.args[0], t), span=e.span)

    @builtins.on(*mathlib.RECIPES)
    def recipe(self, name, e, t, dest):
        """exp, exp2, log, log2: core/mathlib.py's recipe, as IR (the host block runs the same one)."""
        result = mathlib.RECIPES[name](_IRArith(self, mathlib.FORMATS[t]), self.expr(e.args[0], t))
        return self.expr_result(result, dest)

    @builtins.on("fma")
    def fma(self, name, e, t, dest):
        return self.binop_into(dest, "fma", t, *(self.expr(a, t) for a in e.args), span=e.span)

    @builtins.on("isnan")
    def isnan(self, name, e, t, dest):
        x = self.expr(e.args[0], self.cx.type_of(e.args[0]))
        return self.binop_into(dest, "cmp.ne", BOOL, x, x, span=e.span)       # only a NaN differs from itself

    @builtins.on("isinf")
    def isinf(self, name, e, t, dest):
        x = self.expr(e.args[0], self.cx.type_of(e.args[0]))
        size = self.binop_into(None, "abs", x.type, x, span=e.span)
        return self.binop_into(dest, "cmp.eq", BOOL, size, imm(math.inf, x.type), span=e.span)

    @builtins.on("select")
    def select(self, name, e, t, dest):
        c = self.expr(e.args[0], BOOL)
        a, b = self.expr(e.args[1], t), self.expr(e.args[2], t)
        if isinstance(c, Imm):
            return self.expr_result(a if c.value else b, dest)
        return self.emit_value(dest, "select", t, c, a, b, span=e.span)

    @builtins.on("popc")
    def popc(self, name, e, t, dest):
        return self.emit_value(dest, "popc", I32, self.expr(e.args[0]), span=e.span)

    @builtins.on("ballot")
    def ballot(self, name, e, t, dest):
        return self.emit_value(dest, "ballot", t, self.expr(e.args[0], BOOL), span=e.span)

    @builtins.on("vote_any", "vote_all")
    def vote(self, name, e, t, dest):
        return self.emit_value(dest, name.replace("_", "."), BOOL, self.expr(e.args[0], BOOL), span=e.span)

    @builtins.on("activemask")
    def activemask(self, name, e, t, dest):
        return self.emit_value(dest, "activemask", t, span=e.span)

    @builtins.on("syncwarp")
    def syncwarp(self, name, e, t, dest):
        self.b.emit("warp.sync", (), (imm(0xFFFFFFFF, U32),), e.span)
        return None

    @builtins.on("nanosleep")
    def nanosleep(self, name, e, t, dest):
        x = self.expr(e.args[0], I32)
        self.b.emit("nanosleep", (), (x,), e.span)
        return None

    @builtins.on("clock")
    def clock(self, name, e, t, dest):
        return self.emit_value(dest, "sreg", I64, span=e.span, reg="clock")

    # ---- arrays, results and inlined calls ----------------------------------------------------

    def b_array(self, name: str) -> Array:
        arr = next((a for a in self.b.arrays if a.name == name), None) or \
            next((p for p in self.b.params if isinstance(p, Array) and p.name == name), None)
        if arr is None:
            raise LoweringError(f"unknown array {name}")
        return arr

    def expr_result(self, value, dest):
        if dest is not None and value != dest:
            self.b.assign(dest, value)
            return dest
        return value

    def inline(self, sym: Symbol, e, dest):
        """A call to a user function: its body, inlined, with `return` jumping to the end."""
        info = sym.info
        decl = info.decl
        args = [self.expr(a, want) for a, want in zip(e.args, info.params)]
        emitted = {label: len(code) for label, code in self.b.code.items()}    # what the call adds comes after
        open_ = {label for label, term in self.b.terms.items() if term is None}
        saved_vars = self.cx.vars
        self.cx.vars = {}
        for p, a, t in zip(decl.params, args, info.params):
            reg = self.b.reg(t, p.name.text)      # (a record: a register per field, nodes.RecordValue)
            self.b.assign(reg, a, p.span)
            self.cx.vars[p] = reg
        result = None
        if info.ret is not None:
            result = dest if dest is not None and dest.type == info.ret else self.b.reg(info.ret, decl.name.text)
        exit_ = self.b.new_block(f"{decl.name.text}.end")
        self.cx.returns.append((exit_, result))
        saved_loops, self.cx.loops = self.cx.loops, []
        self.cx.stmts.block(decl.body)
        if self.b.open:
            self.b.jump(exit_)
        self.cx.loops = saved_loops
        self.cx.returns.pop()
        self.cx.vars = saved_vars
        self._inlined_from(emitted, open_, (e.span, decl.name.text))
        self.b.at(exit_)
        return result

    def _inlined_from(self, emitted: dict[str, int], open_: set[str], call: tuple[Span, str]) -> None:
        """Give what the inlined body emitted (instructions after `emitted`, terminators of blocks that
        were open or new) spans that say which call it came through."""
        for label, code in self.b.code.items():
            for n in range(emitted.get(label, 0), len(code)):
                code[n] = replace(code[n], span=through_call(code[n].span, call))
            term = self.b.terms.get(label)
            if term is not None and (label not in emitted or label in open_):
                self.b.terms[label] = replace(term, span=through_call(term.span, call))


class _IRArith:
    """core/mathlib.py's Arith as IR instructions (folded where the operands are constants)."""

    def __init__(self, lowering: ExpressionLowering, fmt: mathlib.Format):
        self.op, self.fmt, self.t, self.it = lowering.binop_into, fmt, fmt.t, fmt.it

    def const(self, v):
        return imm(v, self.t)

    def iconst(self, v):
        return imm(v, self.it)

    def _f(self, op, *args):
        return self.op(None, op, self.t, *args)

    def _i(self, op, *args):
        return self.op(None, op, self.it, *args)

    def add(self, a, b):
        return self._f("add", a, b)

    def sub(self, a, b):
        return self._f("sub", a, b)

    def mul(self, a, b):
        return self._f("mul", a, b)

    def div(self, a, b):
        return self._f("div", a, b)

    def fma(self, a, b, c):
        return self._f("fma", a, b, c)

    def min(self, a, b):
        return self._f("min", a, b)

    def max(self, a, b):
        return self._f("max", a, b)

    def lt(self, a, b):
        return self.op(None, "cmp.lt", BOOL, a, b)

    def eq(self, a, b):
        return self.op(None, "cmp.eq", BOOL, a, b)

    def isnan(self, a):
        return self.op(None, "cmp.ne", BOOL, a, a)

    def select(self, c, a, b):
        return self.op(None, "select", a.type, c, a, b)

    def to_int(self, a):
        return self._i("cvt", a)

    def from_int(self, i):
        return self._f("cvt", i)

    def bits(self, a):
        return imm(bitcast(a.value, self.t, self.it), self.it) if isinstance(a, Imm) else self._i("bitcast", a)

    def from_bits(self, i):
        return imm(bitcast(i.value, self.it, self.t), self.t) if isinstance(i, Imm) else self._f("bitcast", i)

    def iadd(self, a, b):
        return self._i("add", a, b)

    def isub(self, a, b):
        return self._i("sub", a, b)

    def ishr(self, a, k):
        return self._i("shr", a, imm(k, self.it))

    def ishl(self, a, k):
        return self._i("shl", a, imm(k, self.it))

    def iand(self, a, b):
        return self._i("and", a, b)

    def ior(self, a, b):
        return self._i("or", a, b)


def _flatten(e):
    indices = []
    while isinstance(e, A.Index):
        indices.append(e.index)
        e = e.base
    return e, indices[::-1]


def _harmless(e) -> bool:
    """May `e` be evaluated even when && / || would skip it? (No loads, calls or waits.)"""
    todo = [e]
    while todo:
        x = todo.pop()
        if isinstance(x, (A.Index, A.Call, A.Get, A.TryLock, A.TryWait)):
            if isinstance(x, A.Call) and isinstance(x.func, A.TypeRef):
                todo.extend(x.args)
                continue
            return False
        if isinstance(x, A.Unary):
            todo.append(x.operand)
        elif isinstance(x, A.Binary):
            todo.extend((x.left, x.right))
    return True
