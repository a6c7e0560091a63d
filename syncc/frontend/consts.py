"""Constant evaluation with the GPU's semantics.

`fold(expr, lookup)` computes the value of a constant expression exactly: integers as
Python ints, with C's truncating division and remainder; untyped float constants as
Fractions; typed floats as Python floats. The checker's `wrap` fits each result to its
node's type (wraps an integer to its width, rounds a float to f32 or f64). `lookup`
answers names and module members; anything that is not constant raises NotConstant at
the offending node.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable

from ..core import floats
from ..core.source import Span
from ..core.types import SCALARS
from . import ast as A

Value = int | bool | Fraction | float


class NotConstant(Exception):
    def __init__(self, span: Span, why: str = "not a constant"):
        super().__init__(why)
        self.span = span
        self.why = why


class ConstError(Exception):
    """A constant expression that is wrong in itself (division by zero, bad shift)."""

    def __init__(self, code: str, span: Span, message: str):
        super().__init__(message)
        self.code = code
        self.span = span
        self.message = message


def c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def c_rem(a: int, b: int) -> int:
    return a - b * c_div(a, b)


def _shift(op: str, a: int, b: int, span: Span) -> int:
    if b < 0 or b >= 64:
        raise ConstError("E0307", span, f"shift by {b} is out of range (0 to 63)")
    return a << b if op == "<<" else a >> b


_BINARY: dict[str, Callable[[Value, Value], Value]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
_UNARY: dict[str, Callable[[Value], Value]] = {
    "-": lambda a: -a,
    "~": lambda a: ~a,
    "!": lambda a: not a,
}
def _min(*xs):
    return _reduce(floats.fmin, min, xs)


def _max(*xs):
    return _reduce(floats.fmax, max, xs)


def _reduce(on_floats, on_exact, xs):
    """min/max with IEEE's minNum/maxNum once a typed float is among the values (NaN loses)."""
    if any(isinstance(x, float) for x in xs):
        out = xs[0]
        for x in xs[1:]:
            out = on_floats(out, x)
        return out
    return on_exact(xs)


def _is_float(v) -> bool:
    return isinstance(v, (float, Fraction)) and not isinstance(v, bool)


_CALLS: dict[str, Callable[..., Value]] = {"min": _min, "max": _max, "abs": abs}


def fold(expr: A.Expr, lookup: Callable[[A.Expr], Value],
         wrap: Callable[[A.Expr, Value], Value] = lambda e, v: v) -> Value:
    """The value of a constant expression; `wrap(node, v)` fits each intermediate
    result to the node's type, so `u32(-1) / 2` folds as the GPU computes it."""
    return wrap(expr, _eval(expr, lookup, wrap))


def _eval(e: A.Expr, lookup, wrap) -> Value:
    match e:
        case A.IntLit(value=v) | A.BoolLit(value=v) | A.FloatLit(value=v):
            return v
        case A.Name() | A.Field():
            return lookup(e)
        case A.Unary(op=op, operand=x):
            return _UNARY[op](fold(x, lookup, wrap))
        case A.Binary(op="&&", left=l, right=r):
            return bool(fold(l, lookup, wrap)) and bool(fold(r, lookup, wrap))
        case A.Binary(op="||", left=l, right=r):
            return bool(fold(l, lookup, wrap)) or bool(fold(r, lookup, wrap))
        case A.Binary(op=op, left=l, right=r):
            a, b = fold(l, lookup, wrap), fold(r, lookup, wrap)
            if op in ("/", "%"):
                if b == 0:
                    raise ConstError("E0302", e.span, "division by zero in a constant")
                if _is_float(a) or _is_float(b):
                    return Fraction(a) / Fraction(b) if not isinstance(a, float) and not isinstance(b, float) \
                        else a / b
                return c_div(a, b) if op == "/" else c_rem(a, b)
            if op in ("<<", ">>"):
                return _shift(op, a, b, r.span)
            return _BINARY[op](a, b)
        case A.Call(func=A.Name(id=fn), args=args, kwargs=()) if fn in _CALLS and args:
            return _CALLS[fn](*(fold(a, lookup, wrap) for a in args))
        case A.Call(func=A.TypeRef(name=t), args=(x,), kwargs=()):
            value = fold(x, lookup, wrap)
            target = SCALARS[t]
            if t == "bool":
                return bool(value)
            if target.is_float:
                return value if not isinstance(value, bool) else int(value)   # (wrap rounds it)
            if isinstance(value, (float, Fraction)):
                return floats.to_int(value, target)
            return int(value)
    raise NotConstant(e.span)


def kernel_constants(decl, refs) -> set[int]:
    """Every integer the kernel's body and header write, literally or as a named constant."""
    out: set[int] = set()

    def walk(node):
        if isinstance(node, A.IntLit):
            out.add(node.value)
        elif isinstance(node, A.Name):
            sym = refs.get(node)
            if sym is not None and sym.kind == "const" and isinstance(sym.info.value, int) \
                    and not isinstance(sym.info.value, bool):
                out.add(sym.info.value)
        for slot in getattr(node, "__slots__", ()):
            value = getattr(node, slot)
            for v in value if isinstance(value, tuple) else (value,):
                if hasattr(v, "__slots__") and hasattr(v, "span"):
                    walk(v)
    walk(decl)
    return out
