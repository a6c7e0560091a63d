"""The sync IR: kernels as control-flow graphs of basic blocks of three-address instructions.

Everything is a small frozen dataclass; passes build new kernels rather than
editing old ones (builder.py thaws a kernel into a mutable form and freezes
it again). Registers are typed and may be assigned more than once (not SSA):
structuring moves code between blocks, and a register simply keeps its name.

Operands are registers (%x), typed immediates (5:i32, true) and references to
an element of an array or primitive (@buf[%i]; the index is linear, row-major).
The operations are the table in ops.py. docs/ir.md describes the text form.
"""
from __future__ import annotations

from dataclasses import field, replace
from fractions import Fraction
from math import prod
from typing import Union

from ..core.prebuilt import dataclass
from ..core import floats
from ..core.types import BOOL, I32, ScalarType
from ..core.source import Span
from .ops import OPS, OpInfo

node = dataclass(frozen=True, slots=True)


@node
class Reg:
    name: str
    type: ScalarType

    def __str__(self) -> str:
        return f"%{self.name}"


@node
class Imm:
    value: int | bool | float     # a float's value is already rounded to its type
    type: ScalarType

    def __str__(self) -> str:
        if self.type == BOOL:
            return "true" if self.value else "false"
        if self.type.is_float:
            return f"{floats.text(self.value)}:{self.type}"
        return f"{self.value}:{self.type}"


@node
class Ref:
    """One element of an array or one instance of a primitive: @name[index]; in an array of records,
    one field of one record: @name[index].field (the index counts records)."""
    name: str
    index: Union[Reg, Imm]
    field: str | None = None

    def __str__(self) -> str:
        return f"@{self.name}[{self.index}]" + (f".{self.field}" if self.field is not None else "")


Operand = Union[Reg, Imm, Ref]


class Attributed:
    """Attributes as a tuple of (key, value) pairs, for frozen nodes: read one, or copy with changes
    (a value of None removes the key)."""
    __slots__ = ()

    def attr(self, key: str, default=None):
        for k, v in self.attrs:
            if k == key:
                return v
        return default

    def with_attrs(self, **changes):
        attrs = dict(self.attrs)
        attrs.update(changes)
        return replace(self, attrs=tuple((k, v) for k, v in attrs.items() if v is not None))


class RecordValue(dict):
    """A record value as lowering and the queue implementations handle it: field name → operand,
    one register or immediate per field. It never reaches a kernel: KernelBuilder.emit writes
    each instruction that moves one (`mov`, `ld`, `st` of a whole record) as one per field."""
    __slots__ = ("type",)

    def __init__(self, fields, type):
        super().__init__(fields)
        self.type = type


def imm(value, type: ScalarType = I32) -> Imm:
    """An immediate of `type`: a bool, an integer wrapped to its width, or a float rounded to its type
    (`value` may be exact: an int or a Fraction); for a record, that value in every field."""
    if type.kind == "record":
        return RecordValue({f.name: imm(value, f.type) for f in type.fields}, type)
    if type == BOOL:
        return Imm(bool(value), type)
    if type.is_float:
        return Imm(floats.to_type(value, type), type)
    if isinstance(value, (float, Fraction)):
        return Imm(type.wrap(floats.to_int(value, type)), type)
    return Imm(type.wrap(int(value)), type)


@node
class Instr(Attributed):
    op: str
    dests: tuple[Reg, ...]
    args: tuple[Operand, ...]
    attrs: tuple[tuple[str, object], ...] = ()
    span: Span | None = field(default=None, compare=False)

    @property
    def info(self) -> OpInfo:
        return OPS[self.op]

    @property
    def ref(self) -> Ref | None:
        return self.args[0] if self.args and isinstance(self.args[0], Ref) else None

    @property
    def judged_as(self) -> str:
        """The operation the analyses read this one as (ops.judged_as): a queue's reserve is its
        semaphore's `sem.wait`, and so on; any other operation is itself."""
        return OPS[self.op].judged_as or self.op

    @property
    def permits(self) -> Union[Reg, Imm]:
        """How many permits a semaphore operation takes or gives: its last operand where the table
        gives it one (`sem.wait @s[0], %k`), else 1 (a queue's operations judged as a semaphore's)."""
        info = OPS[self.op]
        if info.permits and info.operands is not None and len(self.args) > info.operands:
            return self.args[info.operands]
        return Imm(1, I32)

    @property
    def reads_only(self) -> bool:
        """An atomic add, sub, or or xor of 0: it returns the word and leaves it as it is (an atomic
        read, which the race check, the waits' checks and Fermi legalization read as a load)."""
        return self.op in ("atom.add", "atom.sub", "atom.or", "atom.xor") and len(self.args) > 1 \
            and isinstance(self.args[1], Imm) and self.args[1].value == 0

    @property
    def reads(self) -> tuple[Reg, ...]:
        """The registers the instruction reads: its register operands and its references' indices."""
        return tuple(read_regs(self.args))


def read_regs(operands):
    """The registers among `operands`: each register, and each reference's register index."""
    for a in operands:
        if isinstance(a, Reg):
            yield a
        elif isinstance(a, Ref) and isinstance(a.index, Reg):
            yield a.index


# ---- terminators ------------------------------------------------------------

@node
class Jump:
    target: str
    span: Span | None = field(default=None, compare=False)

    @property
    def targets(self) -> tuple[str, ...]:
        return (self.target,)


@node
class Branch:
    cond: Union[Reg, Imm]
    if_true: str
    if_false: str
    span: Span | None = field(default=None, compare=False)

    @property
    def targets(self) -> tuple[str, ...]:
        return (self.if_true, self.if_false)


@node
class Return:
    span: Span | None = field(default=None, compare=False)

    @property
    def targets(self) -> tuple[str, ...]:
        return ()


Terminator = Union[Jump, Branch, Return]


@node
class Block:
    label: str
    instrs: tuple[Instr, ...]
    term: Terminator


# ---- declarations -------------------------------------------------------------

@node
class Array:
    """Memory a kernel addresses: a parameter, a shared array, or primitive state. An array of
    records (`elem` a core.records.RecordType) is read and written a field at a time. A parameter's
    size may be given at launch: a dimension that is a string names the kernel's scalar parameter
    register that holds it (`@x: global f32[n]`)."""
    name: str
    space: str                      # global | shared
    elem: ScalarType                # or a RecordType
    dims: tuple[int | str, ...]
    kind: str = "data"              # param | data | state
    init: int | str | None = None   # every word starts at this value; "locked": its lock bit taken
    per: str | None = None          # None: dims is the size; "block"/"thread": dims per block/thread launched
    offset: int | None = None       # word offset in shared memory, where a pass laid it out
    span: Span | None = field(default=None, compare=False)   # the declaration, for user arrays

    @property
    def length(self) -> int | None:
        """The number of elements; None for a size given at launch (`sized`)."""
        return None if self.sized else prod(self.dims)

    @property
    def words(self) -> int | None:
        """The 32-bit words it takes where every element is a word (Fermi's shared memory): a record
        of n 32-bit fields takes n."""
        n = self.length
        return n * (self.elem.size // 4) if n is not None and self.elem.kind == "record" else n

    @property
    def sized(self) -> bool:
        """Is a dimension given at launch, by a scalar parameter?"""
        return any(isinstance(d, str) for d in self.dims)

    def length_with(self, values: dict[str, int]) -> int | None:
        """The number of elements with the scalar parameters' values (register name → value)."""
        try:
            return prod(d if isinstance(d, int) else values[d] for d in self.dims)
        except KeyError:
            return None


@node
class Prim(Attributed):
    """A declared primitive: `kind`, where it lives, who contends, and how it is implemented."""
    name: str
    kind: str                       # mutex | semaphore | barrier | channel
    dims: tuple[int, ...]
    placement: str                  # shared | global
    granularity: str                # thread | warp | block | grid
    impl: str
    params: tuple[tuple[str, int], ...] = ()
    elem: ScalarType | None = None  # a channel's slot type
    count: int | None = None        # semaphore permits, named-barrier threads
    attrs: tuple[tuple[str, object], ...] = ()   # what passes decided: lock bits, barrier ids, ...
    span: Span | None = field(default=None, compare=False)

    @property
    def instances(self) -> int:
        return prod(self.dims)


@node
class Kernel:
    name: str
    params: tuple[Union[Reg, Array], ...]   # in launch order: scalars are registers, arrays global arrays
    arrays: tuple[Array, ...]               # shared arrays and primitive state (not the parameters)
    prims: tuple[Prim, ...]
    grid: tuple[int, int, int] | None
    block: tuple[int, int, int] | None
    blocks: tuple[Block, ...]               # blocks[0] is the entry
    span: Span | None = field(default=None, compare=False)
    # a wait only another block can end (checks/residency.py): every block must be resident at once
    coresident: bool = False

    def array(self, name: str) -> Array | None:
        for a in self.arrays:
            if a.name == name:
                return a
        for p in self.params:
            if isinstance(p, Array) and p.name == name:
                return p
        return None

    def accessed(self, ref: Ref) -> Array | None:
        """The array `ref` addresses, as the access sees it: for a field of a record, the array with
        that field's type as its element (`elem`); `record_offset(ref)` says where the field lies."""
        a = self.array(ref.name)
        if a is None or ref.field is None:
            return a
        f = a.elem.field(ref.field)
        return replace(a, elem=f.type) if f is not None else None

    def prim(self, name: str) -> Prim | None:
        for p in self.prims:
            if p.name == name:
                return p
        return None

    def block_map(self) -> dict[str, Block]:
        return {b.label: b for b in self.blocks}

    @property
    def threads_per_block(self) -> int | None:
        return None if self.block is None else self.block[0] * self.block[1] * self.block[2]

    def instructions(self):
        """Every (block, index, instruction), in block order."""
        for b in self.blocks:
            for i, ins in enumerate(b.instrs):
                yield b, i, ins


@node
class Module:
    kernels: tuple[Kernel, ...]
    source: str | None = None      # the file the kernels came from

    def kernel(self, name: str) -> Kernel | None:
        for k in self.kernels:
            if k.name == name:
                return k
        return None


def field_place(array: Array, ref: Ref) -> tuple[int, int]:
    """(the record's size, the field's offset), in bytes, of a field reference into an array of
    records; (the element's size, 0) for any other reference. Layout: core/records.py."""
    if ref.field is None:
        return max(1, array.elem.bits // 8), 0
    return array.elem.size, array.elem.field(ref.field).offset
