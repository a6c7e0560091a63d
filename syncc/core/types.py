"""The types the checker gives to expressions and declarations."""
from __future__ import annotations

from .prebuilt import dataclass


@dataclass(frozen=True, slots=True)
class ScalarType:
    name: str
    bits: int
    signed: bool
    kind: str = "int"       # int | float | bool

    @property
    def is_int(self) -> bool:
        return self.kind == "int"

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_number(self) -> bool:
        return self.kind != "bool"

    @property
    def range(self) -> tuple[int, int]:
        """The integers an integer type holds (floats have no integer range)."""
        assert self.kind != "float", f"{self.name} has no integer range"
        if self.signed:
            return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        return 0, (1 << self.bits) - 1

    def wrap(self, value: int) -> int:
        """Two's-complement wrap of an exact integer to this type, as the GPU computes it."""
        assert self.kind != "float", f"{self.name} does not wrap"
        value &= (1 << self.bits) - 1
        if self.signed and value >> (self.bits - 1):
            value -= 1 << self.bits
        return value

    def __str__(self) -> str:
        return self.name


I32 = ScalarType("i32", 32, True)
U32 = ScalarType("u32", 32, False)
I64 = ScalarType("i64", 64, True)
U64 = ScalarType("u64", 64, False)
F32 = ScalarType("f32", 32, True, "float")      # IEEE binary32
F64 = ScalarType("f64", 64, True, "float")      # IEEE binary64
BOOL = ScalarType("bool", 1, False, "bool")
SCALARS = {t.name: t for t in (I32, U32, I64, U64, F32, F64, BOOL)}
INTEGERS = (I32, U32, I64, U64)
FLOATS = (F32, F64)


@dataclass(frozen=True, slots=True)
class UntypedInt:
    """An integer constant that has not met a typed operand yet (`32`, `N + 1`)."""

    def __str__(self) -> str:
        return "integer"


INT_LIT = UntypedInt()


@dataclass(frozen=True, slots=True)
class UntypedFloat:
    """A floating-point constant that has not met a typed operand yet (`0.5`, `1e-3 * K`): exact
    until it does, then rounded to that type; alone it is an f64, as in C."""

    def __str__(self) -> str:
        return "floating-point constant"


FLOAT_LIT = UntypedFloat()


@dataclass(frozen=True, slots=True)
class Other:
    name: str

    def __str__(self) -> str:
        return self.name


STR = Other("string")
VOID = Other("no value")
ERROR = Other("<error>")  # already reported; suppresses follow-on errors


@dataclass(frozen=True, slots=True)
class ArrayType:
    """An array: a dimension is an int, a kernel parameter's name (a size its launch gives), or for
    a host array None (a size the host block computes when it runs)."""
    elem: ScalarType
    dims: tuple[int | str | None, ...]
    space: str  # global | shared | host

    def fits(self, other: "ArrayType") -> bool:
        """Can a value of this type stand where `other` is due: one element type and rank, and the
        sizes known on both sides equal?"""
        return self.elem == other.elem and len(self.dims) == len(other.dims) and all(
            a == b or a is None or b is None for a, b in zip(self.dims, other.dims))

    def __str__(self) -> str:
        dims = "".join(f"[{'?' if d is None else d}]" for d in self.dims)
        prefix = "" if self.space == "host" else f"{self.space} "
        return f"{prefix}{self.elem}{dims}"


@dataclass(frozen=True, slots=True)
class DType:
    """The value of a type name used as an argument (`zeros(i32, 4)`)."""
    scalar: ScalarType

    def __str__(self) -> str:
        return f"type {self.scalar}"


@dataclass(frozen=True, slots=True)
class ListType:
    items: tuple

    def __str__(self) -> str:
        return "[" + ", ".join(map(str, self.items)) + "]"


@dataclass(frozen=True, slots=True)
class PrimType:
    """A synchronization primitive, or an array of them when dims is non-empty."""
    kind: str
    dims: tuple[int, ...]
    elem: ScalarType | None = None  # a channel's slot type

    def __str__(self) -> str:
        dims = "".join(f"[{d}]" for d in self.dims)
        return f"{self.kind}{dims}" + (f": {self.elem}" if self.elem else "")


def is_int(t) -> bool:
    return t is INT_LIT or (isinstance(t, ScalarType) and t.is_int)


def is_float(t) -> bool:
    return t is FLOAT_LIT or (isinstance(t, ScalarType) and t.is_float)


def is_number(t) -> bool:
    return is_int(t) or is_float(t)


def is_error(t) -> bool:
    return t is ERROR


def common_int(a, b):
    """The type two integer operands meet at, or None if they differ."""
    if a is INT_LIT:
        return b
    if b is INT_LIT or a == b:
        return a
    return None


def common_number(a, b):
    """The type two numeric operands meet at, or None if they differ. An untyped constant takes
    the other side's type: an integer constant a float's too (`x * 2` for an f32 `x`), a float
    constant never an integer's; two untyped constants meet as a float if either is one."""
    if a == b:
        return a
    for x, y in ((a, b), (b, a)):
        if x is INT_LIT and (y is FLOAT_LIT or isinstance(y, ScalarType) and y.is_number):
            return y
        if x is FLOAT_LIT and (isinstance(y, ScalarType) and y.is_float):
            return y
    return None
