"""Call rules of the checker: conversions (`u32(x)`), calls of user functions (their call
graph is recorded for check_defs.py), and built-in functions, whose parameters are patterns
(`T`: an integer that fixes T, `place`: a memory word, `dtype`, `shape`, ...) bound across
the arguments.
"""
from __future__ import annotations

from ..core.diagnostics import Note, did_you_mean
from ..core.handlers import HandlerTable
from . import ast as A
from .builtins import FENCE_SCOPES, BuiltinFn
from .check_context import CheckContext
from .check_expr import sym_kind
from .symbols import Symbol
from ..core.records import RecordType
from ..core.types import (BOOL, ERROR, F64, FLOAT_LIT, I32, I64, INT_LIT, U32, VOID, ArrayType, DType, ListType,
                          ScalarType, common_number, is_float, is_int, is_number)

_RESULTS = {"i32": I32, "u32": U32, "i64": I64, "bool": BOOL, "void": VOID}
_UNTYPED = (INT_LIT, FLOAT_LIT)
_BITWISE_ATOMICS = ("atomic_and", "atomic_or", "atomic_xor")
_SCOPE_NAMES = {"block": "cta", "device": "gpu", "grid": "gpu", "system": "sys"}   # CUDA's words
_FLOAT_KWARGS = ("allclose",)           # whose keyword arguments may be floats (`random`'s: for a float array)

expressions = HandlerTable()


class CallRules:
    def __init__(self, cx: CheckContext):
        self.cx = cx

    # ---- calls ---------------------------------------------------------------------

    @expressions.on(A.Call)
    def call(self, e, pos):
        func = e.func
        if isinstance(func, A.TypeRef):
            return self.cast(e, pos)
        callee = None
        if isinstance(func, A.Name):
            callee = self.cx.exprs.resolve(func.id, func.span, pos)
            if callee is not None:
                self.cx.refs[func] = callee
        elif isinstance(func, A.Field) and isinstance(func.base, A.Name):
            base = self.cx.exprs.resolve(func.base.id, func.base.span, pos)
            if base is not None and base.kind == "module":
                self.cx.refs[func.base] = base
                callee = self.cx.exprs.module_member(base, func.name)
                if callee is not None:
                    self.cx.refs[func] = callee
            elif base is not None and base.kind in ("builtin-fn", "fn"):
                self.cx.refs[func.base] = base
                if not self.scope_suffix(base, func):
                    return self._args_unchecked(e, pos)
                callee = self.cx.refs[func] = base
            elif base is not None:
                self.cx.exprs.expr(func, pos)
                return self._args_unchecked(e, pos)
        else:
            t = self.cx.exprs.expr(func, pos)
            if t is not ERROR:
                self.cx.error("E0206", f"{self.cx.exprs.kind_of(func, t)} cannot be called", func.span)
            return self._args_unchecked(e, pos)
        if callee is None:
            return self._args_unchecked(e, pos)
        if callee.kind == "builtin-fn":
            return self.builtin_call(callee.info, e, pos)
        if callee.kind == "fn":
            return self.fn_call(callee, e, pos)
        if callee.kind == "struct":
            return self.record_literal(callee.info, e, pos)
        what = "a kernel; start it with `launch` in a host block" if callee.kind == "kernel" else \
            f"not a function (it is a {sym_kind(callee)})"
        self.cx.error("E0206", f"`{callee.name}` is {what}", func.span)
        return self._args_unchecked(e, pos)

    def scope_suffix(self, callee: Symbol, func: A.Field) -> bool:
        """`atomic_cas.cta(...)`: the scope an atomic built-in is performed at, one of the words of
        `fence` (E0429 for another word); a suffix on any other function is E0430."""
        word = func.name.text
        if callee.kind == "builtin-fn" and callee.name.startswith("atomic_"):
            if word in FENCE_SCOPES:
                return True
            meant = _SCOPE_NAMES.get(word.lower())
            self.cx.error("E0429", f"unknown atomic scope `{word}`", func.name.span,
                          help=(meant and f"the {word.lower()} scope is written `{callee.name}.{meant}`") or
                          did_you_mean(word, FENCE_SCOPES, f"{callee.name}.") or
                          f"`{callee.name}.cta` is atomic among the threads of a block, `{callee.name}.gpu` "
                          f"(the same as `{callee.name}`) across the GPU, `{callee.name}.sys` with the host too")
            return False
        what = "function" if callee.kind == "fn" else "built-in"
        help = ("`load_cg` always reads at gpu scope (`ld.relaxed.gpu` on PTX); scopes are written on atomics "
                "and fences"
                if callee.name == "load_cg" else
                "a scope suffix (`.cta`, `.gpu`, `.sys`) is written on an atomic built-in: `atomic_add.cta(c[i], 1)`")
        self.cx.error("E0430", f"`{callee.name}.{word}`: the {what} `{callee.name}` takes no scope, only the "
                      "atomic built-ins do", func.name.span, help=help)
        return False

    def record_literal(self, record: RecordType, e, pos):
        """`Entry(key = k, value = v, next = -1)`: every field once, by name (E0216), each value of
        its field's type."""
        ok = True
        for a in e.args:
            self.cx.exprs.expr(a, pos)
            self.cx.error("E0216", f"a `{record.name}` record names each field: `{record.name}("
                          + ", ".join(f"{n} = ..." for n in record.field_names) + ")`", a.span)
            ok = False
        given = {}
        for k in e.kwargs:
            f = record.field(k.name.text)
            if f is None:
                self.cx.exprs.expr(k.value, pos)
                self.cx.error("E0213", f"`{record.name}` has no field `{k.name.text}`", k.name.span,
                              help=did_you_mean(k.name.text, record.field_names))
                ok = False
                continue
            if k.name.text in given:
                self.cx.error("E0216", f"field `{k.name.text}` is given twice", k.name.span,
                              notes=[Note("first given here", given[k.name.text])])
                ok = False
            given[k.name.text] = k.name.span
            t = self.cx.exprs.value(k.value, pos)
            if t is not ERROR and not self.cx.exprs.coerce(k.value, t, f.type, f"for field `{f.name}`"):
                ok = False
        missing = [n for n in record.field_names if n not in given]
        if missing and not e.args:
            self.cx.error("E0216", f"the `{record.name}` record needs a value for "
                          + ", ".join(f"`{n}`" for n in missing), e.span,
                          help="a record literal gives every field: " + ", ".join(f"`{n} = ...`" for n in missing))
            ok = False
        return record if ok else ERROR

    def _args_unchecked(self, e, pos):
        for a in e.args:
            self.cx.exprs.expr(a, pos)
        for k in e.kwargs:
            self.cx.exprs.expr(k.value, pos)
        return ERROR

    def cast(self, e, pos):
        target = self.cx.scalar_of(e.func.name)
        if len(e.args) != 1 or e.kwargs:
            self.cx.error("E0205", f"a conversion to {target} takes one value", e.span)
            return self._args_unchecked(e, pos)
        t = self.cx.exprs.value(e.args[0], pos)
        if t is not ERROR and not isinstance(t, ScalarType) and t not in _UNTYPED:
            self.cx.error("E0201", f"cannot convert {t} to {target}", e.args[0].span)
        elif t is FLOAT_LIT and target.is_int:
            self.cx.exprs.fits(e.args[0], F64)        # (a float constant converted: as an f64 would be)
        elif t in _UNTYPED and target.is_float:
            self.cx.exprs.fits(e.args[0], target)
        return target

    def fn_call(self, sym: Symbol, e, pos):
        info = sym.info          # (signatures are known before any body is checked)
        decl = info.decl
        if e.kwargs:
            self.cx.error("E0205", f"`{sym.name}` takes positional arguments only", e.kwargs[0].span)
        if len(e.args) != len(decl.params):
            self.cx.error("E0205", f"`{sym.name}` takes {len(decl.params)} argument{'s' if len(decl.params) != 1 else ''}"
                          f", got {len(e.args)}", e.span, notes=[Note("declared here", decl.name.span)])
        for arg, want in zip(e.args, info.params):       # (a record parameter takes a whole record)
            have = self.cx.exprs.expr(arg, pos) if isinstance(want, RecordType) else self.cx.exprs.value(arg, pos)
            self.cx.exprs.coerce(arg, have, want, "in argument")
        for arg in e.args[len(info.params):]:
            self.cx.exprs.expr(arg, pos)
        if pos.fn is not None:
            pos.fn.calls.append((info, e.span))   # GPU use and recursion are settled on the call graph
        elif info.device_use is not None:
            self.cx.device_only(f"`{sym.name}` (it uses {info.device_why})", e.span, pos,
                                note=Note(f"{info.device_why} is used here", info.device_use))
        return info.ret if info.ret is not None else VOID

    def builtin_call(self, fn: BuiltinFn, e, pos):
        if fn.where == "device" and not self.cx.device_only(f"`{fn.name}`", e.func.span, pos):
            return self._args_unchecked(e, pos)
        if fn.where == "host" and not self.cx.host_only(f"`{fn.name}`", e.func.span, pos):
            return self._args_unchecked(e, pos)
        n_min = len(fn.params)
        if len(e.args) < n_min or (len(e.args) > n_min and not fn.variadic):
            count = f"at least {n_min}" if fn.variadic else str(n_min)
            self.cx.error("E0205", f"`{fn.name}` takes {count} argument{'s' if n_min != 1 else ''}, got {len(e.args)}",
                          e.span, help=f"`{fn.name}({', '.join(fn.params)})`: {fn.summary}")
            return self._args_unchecked(e, pos)
        bound: dict[str, object] = {}
        ok = True
        patterns = list(fn.params) + [fn.params[-1]] * (len(e.args) - n_min) if e.args else []
        for pattern, arg in zip(patterns, e.args):
            ok &= self._match(pattern, arg, bound, fn, pos)
        for k in e.kwargs:
            if k.name.text not in fn.kwargs:
                self.cx.error("E0205", f"`{fn.name}` has no argument `{k.name.text}`", k.name.span,
                              help=("it takes " + ", ".join(f"`{n}=`" for n in fn.kwargs)) if fn.kwargs else None)
                ok = False
                self.cx.exprs.expr(k.value, pos)
                continue
            t = self.cx.exprs.value(k.value, pos)
            floats_ok = fn.name in _FLOAT_KWARGS or (fn.name == "random" and k.name.text != "seed" and
                                                     isinstance(bound.get("D"), DType) and bound["D"].scalar.is_float)
            if t is not ERROR and not (is_int(t) or floats_ok and is_number(t)):
                self.cx.error("E0201", f"`{k.name.text}` must be {'a number' if floats_ok else 'an integer'}, "
                              f"found {t}", k.value.span)
            elif t in _UNTYPED and floats_ok:
                self.cx.exprs.fits(k.value, F64)
        if ok and fn.name in _BITWISE_ATOMICS and is_float(bound.get("T")):
            self.cx.error("E0201", f"`{fn.name}` needs an integer word, found {bound['T']}", e.args[0].span,
                          help="floats take atomic_add, atomic_sub, atomic_exch, atomic_min, atomic_max and atomic_cas")
            ok = False
        if not ok:
            return ERROR
        # A float pattern given only untyped constants is an untyped float (it meets its type, or f64).
        if "F" in patterns and bound.get("T") is INT_LIT:
            bound["T"] = FLOAT_LIT
        # Untyped constants bound to T/V take the type the other arguments settled on.
        for key, keyed in (("T", ("T", "N", "F")), ("V", ("V",))):
            t = bound.get(key)
            if isinstance(t, ScalarType):
                for pattern, arg in zip(patterns, e.args):
                    if pattern in keyed and self.cx.types.get(arg) in _UNTYPED:
                        self.cx.exprs.fits(arg, t)
        if fn.result == "new-array":
            dtype, shape = bound.get("D"), bound.get("S")
            if dtype is None or shape is None:
                return ERROR
            if "V" in bound:
                v_arg = e.args[fn.params.index("V")]
                self.cx.exprs.coerce(v_arg, bound["V"], dtype.scalar, "for the fill value")
            return ArrayType(dtype.scalar, shape, "host")
        if fn.result in ("T", "V", "A"):
            return bound.get(fn.result, ERROR)
        if fn.result == "sum":
            array = bound.get("A")
            return F64 if isinstance(array, ArrayType) and array.elem.is_float else I64
        return _RESULTS[fn.result]

    def _match(self, pattern: str, arg, bound: dict, fn: BuiltinFn, pos) -> bool:
        """Check one argument against its parameter's pattern (builtins.py), binding what it binds."""
        return _PATTERNS[pattern](self, arg, bound, fn, pos)

    def _match_place(self, arg, bound, fn, pos) -> bool:
        t = self.memory_word(arg, pos, f"`{fn.name}`")
        return t is not ERROR and self._bind("T", t, arg, bound, fn)

    def _match_dtype(self, arg, bound, fn, pos) -> bool:
        t = self.cx.exprs.expr(arg, pos)
        if isinstance(t, DType) and isinstance(t.scalar, RecordType) and fn.name != "zeros":
            self.cx.error("E0214", f"`{fn.name}` makes arrays of scalars; an array of `{t.scalar.name}` records "
                          "starts as `zeros`", arg.span, help=f"`zeros({t.scalar.name}, n)`, then set its fields")
            return False
        if isinstance(t, DType):
            bound["D"] = t
            return True
        self.cx.error("E0201", f"`{fn.name}` needs an element type here (`i32`, `u32`, ...)", arg.span)
        return False

    def _match_shape(self, arg, bound, fn, pos) -> bool:
        shape = self.shape(arg, pos)
        if shape is None:
            return False
        bound["S"] = shape
        return True

    def _match_array(self, arg, bound, fn, pos) -> bool:
        t = self.cx.exprs.expr(arg, pos)
        if isinstance(t, ArrayType) and t.space == "host":
            bound["A"] = t
            return True
        if t is not ERROR:
            self.cx.error("E0201", f"`{fn.name}` needs a host array, found {self.cx.exprs.kind_of(arg, t)}", arg.span)
        return False

    def _match_bool(self, arg, bound, fn, pos) -> bool:
        t = self.cx.exprs.value(arg, pos)
        return t is not ERROR and self.cx.exprs.coerce(arg, t, BOOL, f"for `{fn.name}`")

    def _match_integer(self, arg, fn, pos):
        """The argument's type if it is an integer, else None (reported)."""
        t = self.cx.exprs.value(arg, pos)
        if t is ERROR:
            return None
        if not is_int(t):
            self.cx.error("E0201", f"`{fn.name}` needs an integer, found {t}", arg.span)
            return None
        return t

    def _match_int(self, arg, bound, fn, pos) -> bool:
        return self._match_integer(arg, fn, pos) is not None

    def _match_t(self, arg, bound, fn, pos) -> bool:
        t = self._match_integer(arg, fn, pos)
        return t is not None and self._bind("T", t, arg, bound, fn)

    def _match_v(self, arg, bound, fn, pos) -> bool:     # any scalar
        t = self.cx.exprs.value(arg, pos)
        return t is not ERROR and self._bind("V", t, arg, bound, fn)

    def _match_number(self, arg, bound, fn, pos) -> bool:
        return self._numeric(arg, bound, fn, pos, is_number, "a number", None)

    def _match_float(self, arg, bound, fn, pos) -> bool:
        return self._numeric(arg, bound, fn, pos, lambda t: is_float(t) or t is INT_LIT, "a float (f32 or f64)",
                             "convert it: `f32(...)`")

    def _numeric(self, arg, bound, fn, pos, accepts, what: str, help_for_int) -> bool:
        """An argument `accepts` takes (binding T), else E0201 saying it needs `what`."""
        t = self.cx.exprs.value(arg, pos)
        if t is ERROR:
            return False
        if not accepts(t):
            self.cx.error("E0201", f"`{fn.name}` needs {what}, found {t}", arg.span,
                          help=help_for_int if is_int(t) else None)
            return False
        return self._bind("T", t, arg, bound, fn)

    def _match_values(self, arg, bound, fn, pos) -> bool:
        """A number, or a host array of numbers (`close`'s operands)."""
        t = self.cx.exprs.expr(arg, pos)
        if t is ERROR:
            return False
        if isinstance(t, ArrayType) and t.space == "host" and t.elem.is_number:
            other = bound.get("C")
            if isinstance(other, ArrayType) and not t.fits(other):
                self.cx.error("E0201", f"`{fn.name}` compares arrays of one shape: {other} and {t}", arg.span)
                return False
            bound["C"] = t
            return True
        if is_number(t):
            if t in _UNTYPED:
                self.cx.exprs.fits(arg, F64)
            return True
        self.cx.error("E0201", f"`{fn.name}` needs numbers or host arrays of numbers, found "
                      f"{self.cx.exprs.kind_of(arg, t)}", arg.span)
        return False

    def _bind(self, key, t, arg, bound, fn) -> bool:
        have = bound.get(key)
        if have is None:
            bound[key] = t
            return True
        meet = common_number(have, t) if is_number(have) and is_number(t) else (have if have == t else None)
        if meet is None:
            self.cx.error("E0201", f"mismatched arguments to `{fn.name}`: {have} and {t}", arg.span,
                          help=f"convert explicitly, e.g. `{have}(...)`" if is_number(t) and is_number(have) else None)
            return False
        bound[key] = meet
        return True

    def memory_word(self, e, pos, what: str):
        """A global or shared array element, as atomics and load_cg need."""
        # an element `a[i]`, or a record's field in one: `table[i].next`
        element = e.base if isinstance(e, A.Field) and isinstance(e.base, A.Index) else e
        if isinstance(element, A.Index):
            base, _ = self.cx.exprs.flatten_index(element)
            t = self.cx.exprs.expr(e, pos)
            bt = self.cx.types.get(base)
            if isinstance(bt, ArrayType) and bt.space in ("global", "shared"):
                return t
            if t is ERROR:
                return ERROR
        else:
            self.cx.exprs.expr(e, pos)
        self.cx.error("E0210", f"{what} needs a memory word: an element of a global or shared array", e.span,
                      help="locals live in registers; only memory can be updated atomically")
        return ERROR

    def shape(self, e, pos) -> tuple[int | None, ...] | None:
        """A host array's shape: a size or a list of them; a size not constant is computed when the
        host block runs (None here; the host checks it then)."""
        items = e.items if isinstance(e, A.ListLit) else (e,)
        if not items:
            self.cx.error("E0306", "a shape needs at least one size", e.span)
            return None
        constant = []
        for i in items:
            t = self.cx.exprs.value(i, pos)
            if t is ERROR:
                return None
            if not is_int(t):
                self.cx.error("E0201", f"an array size must be an integer, found {t}", i.span)
                return None
            constant.append(self.cx.exprs.try_fold(i) is not None)
        if all(constant):
            dims = self.cx.exprs.dims(items, pos, "an array size")
        else:
            fixed = [i for i, c in zip(items, constant) if c]
            if fixed and self.cx.exprs.dims(fixed, pos, "an array size") is None:
                return None
            dims = tuple(self.cx.exprs.try_fold(i) if c else None for i, c in zip(items, constant))
        if isinstance(e, A.ListLit):
            self.cx.types[e] = ListType(tuple(self.cx.types.get(i, ERROR) for i in items))
        return dims


# a parameter's pattern (builtins.py) → how an argument is checked against it
_PATTERNS = {"place": CallRules._match_place, "dtype": CallRules._match_dtype, "shape": CallRules._match_shape,
             "array": CallRules._match_array, "bool": CallRules._match_bool, "int": CallRules._match_int,
             "T": CallRules._match_t, "V": CallRules._match_v, "N": CallRules._match_number,
             "F": CallRules._match_float, "values": CallRules._match_values}
