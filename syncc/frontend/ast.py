"""The syntax tree: small frozen dataclasses, each carrying the span it came from.

Nodes compare by identity (eq=False), so checker tables can key on them cheaply.
The grammar rule each node comes from is named in syncc/frontend/build_ast.py.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Union

from ..core.prebuilt import dataclass
from ..core.source import Span

node = dataclass(frozen=True, eq=False, slots=True)


@node
class Ident:
    text: str
    span: Span


# ---- expressions -----------------------------------------------------------

@node
class IntLit:
    value: int
    text: str
    span: Span


@node
class FloatLit:
    value: Fraction      # exact: rounded when it meets its type
    text: str
    span: Span


@node
class BoolLit:
    value: bool
    span: Span


@node
class StrLit:
    value: str
    span: Span


@node
class Name:
    id: str
    span: Span


@node
class TypeRef:
    """A scalar type used as a value: a cast `u32(x)` or a dtype `zeros(i32, 4)`."""
    name: str
    span: Span


@node
class Unary:
    op: str
    operand: Expr
    span: Span


@node
class Binary:
    op: str
    left: Expr
    right: Expr
    span: Span


@node
class Index:
    base: Expr
    index: Expr
    span: Span


@node
class Field:
    base: Expr
    name: Ident
    span: Span


@node
class KwArg:
    name: Ident
    value: Expr
    span: Span


@node
class Call:
    func: Expr
    args: tuple[Expr, ...]
    kwargs: tuple[KwArg, ...]
    span: Span


@node
class ListLit:
    items: tuple[Expr, ...]
    span: Span


@node
class Between:
    """`lo .. hi`: the sizes a kernel supports for one dimension of its grid (half-open, as in a `for`)."""
    lo: Expr
    hi: Expr
    span: Span


@node
class Place:
    """A primitive instance named by a synchronization statement: `m`, `locks[h]`."""
    name: Ident
    indices: tuple[Expr, ...]
    span: Span


@node
class Get:
    """`get c[i]`: wait until the channel slot is full and take its value."""
    place: Place
    span: Span


@node
class TryLock:
    """`trylock m`: one attempt to take the mutex; true on success."""
    place: Place
    span: Span


@node
class Tile:
    """`tile s`: the block's tile of the scan `s`, 0, 1, 2, ... in the order blocks reach it."""
    place: Place
    span: Span


@node
class Scan:
    """`exclusive s(v)` / `inclusive s(v)`: the sum of `v` over every thread of the earlier tiles and
    the earlier threads of this one (inclusive: and this thread's own)."""
    place: Place
    value: Expr
    inclusive: bool
    span: Span


@node
class TryPut:
    """`tryput q = v`: one attempt to add `v` to the queue; true when it went in."""
    place: Place
    value: Expr
    span: Span


@node
class TryWait:
    """`trywait s` / `trywait s for n` / `trywait s for t us`: one attempt, up to `n`, or as many
    as fit in the time `t` (`unit`: ns, us or ms), to take a permit (`trywait s(k)`: k permits at
    once); true on success."""
    place: Place
    attempts: Expr | None
    span: Span
    unit: Ident | None = None
    permits: Expr | None = None     # `trywait s(k)`: k, evaluated once; None: one permit


TIME_UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000}    # `trywait s for T unit`: nanoseconds per unit
MAX_TRYWAIT_NS = 4_000_000_000                          # the timer's 32 bits of nanoseconds, rounded down


Expr = Union[IntLit, FloatLit, BoolLit, StrLit, Name, TypeRef, Unary, Binary, Index, Field, Call, ListLit, Between,
             Get, TryLock, TryPut, TryWait, Tile, Scan]


# ---- types ----------------------------------------------------------------

@node
class ScalarTypeExpr:
    name: str  # i32 u32 i64 u64 bool
    span: Span


@node
class RecordTypeExpr:
    """A record's name where a type is due: an array's element (`global Entry[n]`)."""
    name: str
    span: Span


@node
class ArrayTypeExpr:
    space: str  # global | shared
    elem: ScalarTypeExpr | RecordTypeExpr
    dims: tuple[Expr, ...]
    span: Span


TypeExpr = Union[ScalarTypeExpr, ArrayTypeExpr]


# ---- statements -------------------------------------------------------------

@node
class Block:
    stmts: tuple[Stmt, ...]
    span: Span


@node
class Let:
    mutable: bool  # var (True) or let (False)
    name: Ident
    type: ScalarTypeExpr | None
    value: Expr
    span: Span


@node
class Assign:
    target: Expr
    op: str  # "=" or a compound operator such as "+="
    value: Expr
    span: Span


@node
class ExprStmt:
    expr: Expr
    span: Span


@node
class If:
    cond: Expr
    then: Block
    orelse: Block | If | None
    span: Span


@node
class While:
    cond: Expr
    body: Block
    span: Span


@node
class For:
    var: Ident
    start: Expr
    stop: Expr
    step: Expr | None
    body: Block
    span: Span


@node
class ForEach:
    """for v in q { }: the values of a queue, until it is closed and drained. `source` is the
    queue's Place, or the expression written where it is not a name with indices (the checker
    reports it)."""
    var: Ident
    source: "Place | Expr"
    body: Block
    span: Span


@node
class Break:
    span: Span


@node
class Continue:
    span: Span


@node
class Return:
    value: Expr | None
    span: Span


@node
class SharedDecl:
    name: Ident
    elem: ScalarTypeExpr
    dims: tuple[Expr, ...]
    span: Span


@node
class ImplRef:
    """`using ticket(backoff=64)`: the implementation chosen for a primitive."""
    name: Ident
    args: tuple[Expr, ...]
    kwargs: tuple[KwArg, ...]
    span: Span


@node
class PrimDecl:
    """`mutex m[4] in global @thread using ticket`, `semaphore s(3) ...`, `channel c[N]: i32 ...`."""
    kind: str  # mutex | semaphore | barrier | channel | rwlock | latch | queue | scan
    name: Ident
    dims: tuple[Expr, ...]
    args: tuple[Expr, ...]
    kwargs: tuple[KwArg, ...]
    elem: ScalarTypeExpr | None
    placement: str  # shared | global
    granularity: Ident  # text without the '@'
    impl: ImplRef | None
    span: Span


@node
class Critical:
    target: Place
    body: Block
    span: Span


@node
class Acquire:
    """`acquire s { }` / `acquire s(k) { }`: take one permit (k permits) for the body, then give them back."""
    target: Place
    body: Block
    span: Span
    permits: Expr | None = None     # k, evaluated once before the body; None: one permit


@node
class RwSection:
    """`read rw[i] { }` (shared) or `write rw[i] { }` (exclusive) on a reader-writer lock."""
    mode: str  # read | write
    target: Place
    body: Block
    span: Span


@node
class WhenBinding:
    name: Ident
    source: Place
    span: Span


@node
class When:
    bindings: tuple[WhenBinding, ...]
    body: Block
    span: Span


@node
class TryGet:
    """`tryget v = q { body } else { orelse }`: one attempt to take a value from the queue; `body`
    runs with it bound to `v`, `orelse` (if any) when the queue was empty."""
    name: Ident
    place: Place
    body: Block
    orelse: Block | None
    span: Span


@node
class BarrierStmt:
    """`barrier`: every thread of the block meets here (bar.sync 0)."""
    span: Span


@node
class Fence:
    scope: Ident  # cta | gpu | sys
    span: Span


@node
class PrimOp:
    """A low-level operation on one primitive instance: lock, unlock, wait, post,
    signal, await, sync or arrive (the table in check.py says which kind each needs)."""
    op: str
    target: Place
    span: Span
    permits: Expr | None = None     # `wait s(k)` / `post s(k)`: k permits at once; None: one


@node
class Put:
    """`put q = v`; with `range`, `put q = src[lo .. hi]`: `value` is the array `src`, and the
    values src[lo] .. src[hi - 1] go in with one reservation of hi - lo slots."""
    target: Place
    value: Expr
    span: Span
    range: tuple[Expr, Expr] | None = None


@node
class ShapeDim:
    """`grid(8)` or `block(32, 32)` in a kernel's launch shape or a host launch."""
    name: Ident
    args: tuple[Expr, ...]
    span: Span


@node
class Launch:
    kernel: Ident
    args: tuple[Expr, ...]
    kwargs: tuple[KwArg, ...]
    shape: tuple[ShapeDim, ...]
    span: Span


@node
class Check:
    cond: Expr
    message: StrLit | None
    span: Span


@node
class Print:
    items: tuple[Expr, ...]
    span: Span


@node
class Save:
    value: Expr
    path: StrLit
    span: Span


Stmt = Union[Let, Assign, ExprStmt, If, While, For, ForEach, Break, Continue, Return, SharedDecl, PrimDecl,
             Critical, Acquire, RwSection, When, TryGet, BarrierStmt, Fence, PrimOp, Put, Launch, Check, Print, Save]


# ---- items ------------------------------------------------------------------

@node
class Import:
    path: tuple[Ident, ...]  # std . mutex
    alias: Ident | None
    span: Span

    @property
    def dotted(self) -> str:
        return ".".join(p.text for p in self.path)

    @property
    def bound_name(self) -> Ident:
        return self.alias or self.path[-1]


@node
class Const:
    name: Ident
    type: ScalarTypeExpr | None
    value: Expr
    span: Span


@node
class StructField:
    name: Ident
    type: ScalarTypeExpr
    span: Span


@node
class StructDecl:
    """`struct Entry { key: u32, value: f32 }`: a record type of scalar fields."""
    name: Ident
    fields: tuple[StructField, ...]
    span: Span


@node
class Param:
    name: Ident
    type: TypeExpr
    span: Span
    # `in lo .. hi` or `in [a, b]`: the values a kernel supports for an integer parameter
    values: Between | ListLit | None = None


@node
class Fn:
    name: Ident
    params: tuple[Param, ...]
    ret: ScalarTypeExpr | None
    body: Block
    span: Span


@node
class Kernel:
    name: Ident
    params: tuple[Param, ...]
    launch: tuple[ShapeDim, ...]
    body: Block
    span: Span


@node
class Host:
    name: Ident | None
    body: Block
    span: Span


Item = Union[Import, Const, Fn, Kernel, Host, StructDecl]


@node
class Program:
    items: tuple[Item, ...]
    span: Span
