"""Constant folding of the IR's arithmetic, with the GPU's semantics, as one table.

`fold(op, type, values)` is the result of `op` on immediate values of `type` (the operands'
type; a comparison's result is a bool), or None where it must not fold: a division by zero
(the GPU's result is the target's business, not the compiler's), an operation this table does
not know. Integers are exact Python ints (`imm` wraps the result to the type): division and
remainder truncate toward zero as C's. Floats are Python floats already rounded to their type;
a basic operation on two of them is a binary64 operation, which `imm` rounds once to f32 (the
double rounding is innocuous for + - * /: binary64 has more than twice binary32's precision);
min and max are IEEE minNum and maxNum, as PTX's (a NaN operand gives the other).
"""
from __future__ import annotations

import math
import operator
from typing import Callable

from ..core import floats
from ..core.types import ScalarType
from ..frontend.consts import c_div, c_rem
from .ops import COMPARE


# `x OP x` for any integer x (a float may be a NaN, which equals nothing): comparisons of a value
# with itself, which a skip-lock edit (`if my == my`) or a macro leaves behind
SAME_OPERANDS = {"cmp.eq": True, "cmp.le": True, "cmp.ge": True, "cmp.ne": False, "cmp.lt": False,
                 "cmp.gt": False, "sub": 0, "xor": 0}

INTEGER: dict[str, Callable] = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "div": lambda a, b: c_div(a, b) if b else None, "rem": lambda a, b: c_rem(a, b) if b else None,
    "and": operator.and_, "or": operator.or_, "xor": operator.xor, "min": min, "max": max,
    "neg": operator.neg, "not": lambda a: not a if isinstance(a, bool) else ~a,
    **COMPARE,
}
FLOAT: dict[str, Callable] = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "div": lambda a, b: a / b if b else None,
    "min": floats.fmin, "max": floats.fmax, "neg": operator.neg, "abs": abs,
    "sqrt": lambda a: math.sqrt(a) if a >= 0 else (a if a == 0 else math.nan),
    # IEEE's roundToIntegral: the result has the operand's sign (`ceil(-0.5)` is -0.0, as on the GPU)
    "floor": lambda a: math.copysign(float(math.floor(a)), a) if math.isfinite(a) else a,
    "ceil": lambda a: math.copysign(float(math.ceil(a)), a) if math.isfinite(a) else a,
    "trunc": lambda a: math.copysign(float(math.trunc(a)), a) if math.isfinite(a) else a,
    **COMPARE,
}


def fold(op: str, t: ScalarType, values) -> object | None:
    """The value of `op` on constant operands of type t, or None where it does not fold."""
    fn = (FLOAT if t.is_float else INTEGER).get(op)
    return None if fn is None else fn(*values)


def fold_same(op: str, t: ScalarType) -> object | None:
    """The value of `op` on one integer operand given twice (`x == x`), or None."""
    return None if t.is_float else SAME_OPERANDS.get(op)


def bitcast(value, src: ScalarType, dst: ScalarType):
    """A value's bits read as another type of its width (an integer's as its unsigned pattern)."""
    raw = floats.bits(value, src) if src.is_float else value & ((1 << src.bits) - 1)
    return floats.from_bits(raw, dst) if dst.is_float else raw
