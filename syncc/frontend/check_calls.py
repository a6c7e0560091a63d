"""Call rules of the checker: conversions (`u32(x)`), calls of user functions (their call
graph is recorded for check_defs.py), and built-in functions, whose parameters are patterns
(`T`: an integer that fixes T, `place`: a memory word, `dtype`, `shape`, ...) bound across
the arguments.
"""
from __future__ import annotations

from ..core.diagnostics import Note
from ..core.handlers import HandlerTable
from . import ast as A
from .builtins import BuiltinFn
from .check_context import CheckContext
from .check_expr import sym_kind
from .symbols import Symbol
from ..core.types import BOOL, ERROR, I32, I64, INT_LIT, U32, VOID, ArrayType, DType, ListType, ScalarType, is_int

_RESULTS = {"i32": I32, "u32": U32, "i64": I64, "bool": BOOL, "void": VOID}

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
        what = "a kernel; start it with `launch` in a host block" if callee.kind == "kernel" else \
            f"not a function (it is a {sym_kind(callee)})"
        self.cx.error("E0206", f"`{callee.name}` is {what}", func.span)
        return self._args_unchecked(e, pos)

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
        if t is not ERROR and not isinstance(t, ScalarType) and t is not INT_LIT:
            self.cx.error("E0201", f"cannot convert {t} to {target}", e.args[0].span)
        return target

    def fn_call(self, sym: Symbol, e, pos):
        info = sym.info          # (signatures are known before any body is checked)
        decl = info.decl
        if e.kwargs:
            self.cx.error("E0205", f"`{sym.name}` takes positional arguments only", e.kwargs[0].span)
        if len(e.args) != len(decl.params):
            self.cx.error("E0205", f"`{sym.name}` takes {len(decl.params)} argument{'s' if len(decl.params) != 1 else ''}"
                          f", got {len(e.args)}", e.span, notes=[Note("declared here", decl.name.span)])
        for arg, want in zip(e.args, info.params):
            self.cx.exprs.coerce(arg, self.cx.exprs.value(arg, pos), want, "in argument")
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
            if t is not ERROR and not is_int(t):
                self.cx.error("E0201", f"`{k.name.text}` must be an integer, found {t}", k.value.span)
        if not ok:
            return ERROR
        # Untyped constants bound to T/V take the type the other arguments settled on.
        for key in ("T", "V"):
            t = bound.get(key)
            if isinstance(t, ScalarType):
                for pattern, arg in zip(patterns, e.args):
                    if pattern == key and self.cx.types.get(arg) is INT_LIT:
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
        return _RESULTS[fn.result]

    def _match(self, pattern: str, arg, bound: dict, fn: BuiltinFn, pos) -> bool:
        """Check one argument against its parameter's pattern (builtins.py), binding what it binds."""
        return _PATTERNS[pattern](self, arg, bound, fn, pos)

    def _match_place(self, arg, bound, fn, pos) -> bool:
        t = self.memory_word(arg, pos, f"`{fn.name}`")
        return t is not ERROR and self._bind("T", t, arg, bound, fn)

    def _match_dtype(self, arg, bound, fn, pos) -> bool:
        t = self.cx.exprs.expr(arg, pos)
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

    def _bind(self, key, t, arg, bound, fn) -> bool:
        have = bound.get(key)
        if have is None or have is INT_LIT:
            if have is INT_LIT and t is not INT_LIT and not is_int(t):
                self.cx.error("E0201", f"mismatched arguments to `{fn.name}`: integer and {t}", arg.span)
                return False
            bound[key] = t if have is None or t is not INT_LIT else have
            return True
        if t is INT_LIT and is_int(have):
            return True
        if t != have:
            self.cx.error("E0201", f"mismatched arguments to `{fn.name}`: {have} and {t}", arg.span,
                          help=f"convert explicitly, e.g. `{have}(...)`" if is_int(t) and is_int(have) else None)
            return False
        return True

    def memory_word(self, e, pos, what: str):
        """A global or shared array element, as atomics and load_cg need."""
        if isinstance(e, A.Index):
            base, _ = self.cx.exprs.flatten_index(e)
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

    def shape(self, e, pos) -> tuple[int, ...] | None:
        """A host array's shape: a constant size or a list of them."""
        items = e.items if isinstance(e, A.ListLit) else (e,)
        if not items:
            self.cx.error("E0306", "a shape needs at least one size", e.span)
            return None
        dims = self.cx.exprs.dims(items, pos, "an array size")
        if isinstance(e, A.ListLit):
            self.cx.types[e] = ListType(tuple(self.cx.types.get(i, ERROR) for i in items))
        return dims


# a parameter's pattern (builtins.py) → how an argument is checked against it
_PATTERNS = {"place": CallRules._match_place, "dtype": CallRules._match_dtype, "shape": CallRules._match_shape,
             "array": CallRules._match_array, "bool": CallRules._match_bool, "int": CallRules._match_int,
             "T": CallRules._match_t, "V": CallRules._match_v}
