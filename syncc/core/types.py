"""The types the checker gives to expressions and declarations."""
from __future__ import annotations

from .prebuilt import dataclass


@dataclass(frozen=True, slots=True)
class ScalarType:
    name: str
    bits: int
    signed: bool

    @property
    def is_int(self) -> bool:
        return self.name != "bool"

    @property
    def range(self) -> tuple[int, int]:
        if self.signed:
            return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        return 0, (1 << self.bits) - 1

    def wrap(self, value: int) -> int:
        """Two's-complement wrap of an exact integer to this type, as the GPU computes it."""
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
BOOL = ScalarType("bool", 1, False)
SCALARS = {t.name: t for t in (I32, U32, I64, U64, BOOL)}


@dataclass(frozen=True, slots=True)
class UntypedInt:
    """An integer constant that has not met a typed operand yet (`32`, `N + 1`)."""

    def __str__(self) -> str:
        return "integer"


INT_LIT = UntypedInt()


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
    elem: ScalarType
    dims: tuple[int, ...]
    space: str  # global | shared | host

    def __str__(self) -> str:
        dims = "".join(f"[{d}]" for d in self.dims)
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


def is_error(t) -> bool:
    return t is ERROR


def common_int(a, b):
    """The type two integer operands meet at, or None if they differ."""
    if a is INT_LIT:
        return b
    if b is INT_LIT or a == b:
        return a
    return None
