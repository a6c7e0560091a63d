"""Records (`struct` types) and their one memory layout, which every layer reads.

    Entry = RecordType("Entry", (("key", U32), ("value", F32), ("next", I32)))
    Entry.field("value").offset == 4; Entry.size == 12

The layout is C's natural alignment: each field at the next multiple of its own size (a `bool`
takes one byte, as numpy's and C++'s do), and the record padded to a multiple of its largest
field. It is what numpy's `np.dtype([...], align=True)` and the C++ struct the CUDA header
declares both give, so a host array of records, a buffer on the GPU, the simulator's memory and
the header agree byte for byte on every target (`numpy_dtype` builds the numpy side from these
offsets, and tests check it against numpy's own `align=True`).

A RecordType answers the questions the size-minded code asks of an element type (`name`, `bits`:
the record's size in bits; `kind` "record"; not an integer, float or number), so an array of
records can be sized, passed and allocated like any array; what reads or writes it names a field
(`ir.nodes.Ref.field`), whose type is a scalar.
"""
from __future__ import annotations

from .prebuilt import dataclass
from .types import ScalarType

FIELD_TYPES = ("i32", "u32", "i64", "u64", "f32", "f64", "bool")


def field_size(t: ScalarType) -> int:
    """Bytes a field of scalar type `t` takes in memory (a bool one byte)."""
    return 1 if t.kind == "bool" else t.bits // 8


@dataclass(frozen=True, slots=True)
class RecordField:
    name: str
    type: ScalarType
    offset: int          # bytes from the start of the record


@dataclass(frozen=True, slots=True)
class RecordType:
    name: str
    fields: tuple[RecordField, ...]
    size: int            # bytes, a multiple of `align`
    align: int           # bytes: the largest field's size

    kind = "record"
    signed = False
    is_int = is_float = is_number = False

    @property
    def bits(self) -> int:
        return 8 * self.size

    def field(self, name: str) -> RecordField | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def __str__(self) -> str:
        return self.name


def layout(name: str, fields) -> RecordType:
    """The record `name` with `fields` ((name, ScalarType) pairs, in order) laid out with C's natural
    alignment."""
    out, offset, align = [], 0, 1
    for fname, t in fields:
        size = field_size(t)
        offset = -(-offset // size) * size
        out.append(RecordField(fname, t, offset))
        offset += size
        align = max(align, size)
    return RecordType(name, tuple(out), -(-offset // align) * align if out else 0, align)


_NUMPY = {"i32": "<i4", "u32": "<u4", "i64": "<i8", "u64": "<u8", "f32": "<f4", "f64": "<f8", "bool": "?"}


def numpy_dtype(r: RecordType):
    """The numpy structured dtype of a record: the same bytes as the layout above (and as
    `np.dtype([...], align=True)`)."""
    import numpy as np
    return np.dtype({"names": list(r.field_names), "formats": [_NUMPY[f.type.name] for f in r.fields],
                     "offsets": [f.offset for f in r.fields], "itemsize": r.size, "aligned": True})


CTYPES = {"i32": "int32_t", "u32": "uint32_t", "i64": "int64_t", "u64": "uint64_t", "f32": "float",
          "f64": "double", "bool": "bool"}


def cpp_struct(r: RecordType) -> str:
    """The C++ declaration of a record, with static_asserts that the compiler lays it out as syncc
    does."""
    lines = [f"struct {r.name} {{"]
    lines += [f"    {CTYPES[f.type.name]} {f.name};" for f in r.fields]
    lines.append("};")
    lines.append(f'static_assert(sizeof({r.name}) == {r.size}, "syncc lays out {r.name} in {r.size} bytes");')
    lines += [f'static_assert(offsetof({r.name}, {f.name}) == {f.offset}, "{r.name}.{f.name} at byte {f.offset}");'
              for f in r.fields]
    return "\n".join(lines)
