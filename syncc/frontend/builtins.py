"""Built-in values and functions, as tables the checker reads.

A function signature is written with small patterns:
  T        an integer of the type bound by the first `T` (untyped literals adapt)
  N        a number (integer or float), bound like T
  F        a float (f32 or f64), bound like T; an untyped constant alone is an f64
  V        any scalar (integer, float or bool), bound like T
  int      any integer
  values   a number, or a host array of numbers
  bool     a boolean
  place    a memory word (element of a global or shared array) whose type binds T
  dtype    a scalar type name (`i32`)
  shape    a constant size or a list of constant sizes
  array    a host array (binds A)
and results: T, V, bool, i32, u32, i64, void, new-array (dtype × shape), A, sum (i64 for an
integer array, f64 for a float one).
"""
from __future__ import annotations

from ..core.prebuilt import dataclass


@dataclass(frozen=True)
class BuiltinFn:
    name: str
    where: str                    # device | host | both
    params: tuple[str, ...]
    result: str
    variadic: bool = False        # the last pattern repeats
    kwargs: tuple[str, ...] = ()  # optional keyword arguments (integers; numbers for `close` and
                                  # for `random` of a float type)
    summary: str = ""


def _fn(name, where, params, result, summary, variadic=False, kwargs=()):
    return BuiltinFn(name, where, tuple(params.split()), result, variadic, tuple(kwargs), summary)


_ATOMIC_OPS = {
    "add": "adds v", "sub": "subtracts v", "exch": "stores v", "min": "stores the minimum",
    "max": "stores the maximum", "and": "ands with v", "or": "ors with v", "xor": "xors with v",
}

BUILTIN_FNS: dict[str, BuiltinFn] = {f.name: f for f in [
    *(_fn(f"atomic_{op}", "device", "place N", "T", f"atomically {what}; returns the old value")
      for op, what in _ATOMIC_OPS.items()),
    _fn("atomic_cas", "device", "place N N", "T",
        "atomically stores the third argument if the word equals the second (a float's bits); returns the old value"),
    _fn("load_cg", "device", "place", "T", "load that bypasses L1, for polling (ld.relaxed.gpu on PTX)"),
    _fn("ballot", "device", "bool", "u32", "bit i set when lane i's predicate is true"),
    _fn("vote_any", "device", "bool", "bool", "true when the predicate holds on any active lane"),
    _fn("vote_all", "device", "bool", "bool", "true when the predicate holds on every active lane"),
    _fn("activemask", "device", "", "u32", "the mask of lanes executing this instruction"),
    _fn("syncwarp", "device", "", "void", "the active lanes of the warp meet (__syncwarp)"),
    _fn("nanosleep", "device", "int", "void", "sleep about this many nanoseconds (a delay loop where absent)"),
    _fn("clock", "device", "", "i64", "the SM's cycle counter"),
    _fn("min", "both", "V V", "V", "the smallest argument (of floats: a NaN loses)", variadic=True),
    _fn("max", "both", "V V", "V", "the largest argument (of floats: a NaN loses)", variadic=True),
    _fn("abs", "both", "N", "T", "absolute value"),
    _fn("sqrt", "both", "F", "T", "square root, correctly rounded"),
    _fn("fma", "both", "F F F", "T", "a * b + c with one rounding"),
    _fn("floor", "both", "F", "T", "the largest integral value not above the argument"),
    _fn("ceil", "both", "F", "T", "the smallest integral value not below the argument"),
    _fn("trunc", "both", "F", "T", "the argument rounded toward zero to an integral value"),
    *(_fn(name, "both", "F", "T", what) for name, what in (
        ("exp", "e to the power of the argument"), ("exp2", "2 to the power of the argument"),
        ("log", "the natural logarithm"), ("log2", "the base-2 logarithm"))),
    _fn("isnan", "both", "F", "bool", "true for a NaN"),
    _fn("isinf", "both", "F", "bool", "true for an infinity"),
    _fn("select", "both", "bool V V", "V", "the second argument if the first is true, else the third"),
    _fn("popc", "both", "int", "i32", "number of set bits"),
    _fn("zeros", "host", "dtype shape", "new-array", "a host array of zeros"),
    _fn("full", "host", "dtype shape V", "new-array", "a host array filled with one value"),
    _fn("arange", "host", "dtype shape", "new-array", "0, 1, 2, ... in row-major order"),
    _fn("random", "host", "dtype shape", "new-array",
        "uniform integers (floats) in [low, high) from a seeded generator", kwargs=("seed", "low", "high")),
    _fn("copy", "host", "array", "A", "a copy of a host array"),
    _fn("sum", "host", "array", "sum", "the sum of all elements (i64; f64 for a float array)"),
    _fn("allclose", "host", "values values", "bool", "every element of a within atol + rtol * |b| of b (numpy's allclose)",
        kwargs=("rtol", "atol")),
]}


@dataclass(frozen=True)
class BuiltinValue:
    name: str
    summary: str
    has_xyz: bool = False   # tid.x, tid.y, tid.z


BUILTIN_VALUES: dict[str, BuiltinValue] = {v.name: v for v in [
    BuiltinValue("tid", "thread index in the block (linear; .x .y .z for components)", True),
    BuiltinValue("bid", "block index in the grid (linear; .x .y .z for components)", True),
    BuiltinValue("ntid", "threads per block (total; .x .y .z for the block shape)", True),
    BuiltinValue("nbid", "blocks in the grid (total; .x .y .z for the grid shape)", True),
    BuiltinValue("lane", "lane index in the warp, 0..31"),
    BuiltinValue("warp", "warp index in the block"),
    BuiltinValue("nwarps", "warps per block"),
    BuiltinValue("gtid", "global thread index: bid * ntid + tid"),
]}

FENCE_SCOPES = ("cta", "gpu", "sys")
