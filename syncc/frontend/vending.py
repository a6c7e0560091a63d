"""Vending: a library file's top-level primitives, compiled for code written outside syncc.

A file with no kernels and no host block is a library (the stdlib's modules are). Building it
vends each top-level declaration,

    mutex fair in global @thread using ticket

one operation at a time (the table OPERATIONS): each operation is built as a small kernel,
`fair__critical`, a syntax tree added to the library's own (no text is written and parsed again),
checked and compiled by the same passes as any kernel (driver.vend_library), with the same
remarks for `syncc explain`. `--target cuda` turns those kernels into the member functions of a C++ type
(backends/cuda/vended.py); `--target ptx` and `fermi-sass` print them as kernels to read.

Where an operation has a body (`critical`, `acquire`, ...), the kernel's body is one store to
the array `syncc_body`, standing for the caller's code: the C++ writer calls the caller's lambda
there. The passes marked `whole_kernel` in ir/pipeline.py's PASSES are left out, because what they
need is the caller's whole kernel, which the library cannot see:
  * check_hazards: SIMT deadlock, producers of a slot, lock order are properties of the kernel
    that calls the operations; the header says what the caller owes (docs/stdlib.md);
  * elide_locks and combine_warps: the body is opaque, so a lock cannot become one atomic, nor
    a warp's bodies run by its leader;
  * initialize_shared_state: shared state is the caller's, set up once with the type's `init`;
  * insert_bounds_checks: which element of an array of primitives an operation acts on is the C++
    caller's index, as unchecked as any C++ subscript (docs/stdlib.md says the caller owes it);
  * guard_configurations: the grids and sizes a kernel supports are the caller's kernel's, which
    declares them (or not) in its own code.
"""
from __future__ import annotations

from functools import partial
from typing import Callable

from . import ast as A
from ..core.prebuilt import dataclass
from .symbols import PrimInfo

HOLE = "syncc_body"        # the caller's code: a store to this array
RESULT = "syncc_result"    # what the operation returns: a store to this array
INDEX = "syncc_index"      # which element of an array of primitives
VALUE = "syncc_value"      # the value a channel `put` stores
COUNT = "syncc_count"      # attempts of a bounded wait
PERMITS = "syncc_permits"  # how many permits a semaphore operation takes or gives at once
TAKEN = "syncc_taken"      # the value an operation hands back beside its result (a queue's `next`)
VALUES = "syncc_values"    # the values a range put puts (a queue's `put_many`), `MANY` of them
MANY = "syncc_many"        # how many values `VALUES` holds


class OperationBuilder:
    """Syntax-tree nodes for one operation's kernel, every one at the declaration's span: the
    declaration is the only place of the library an operation comes from, so that is where its
    diagnostics and `syncc explain` remarks point."""

    def __init__(self, info: PrimInfo, op: "Operation"):
        self.info, self.op, self.span = info, op, info.decl.span

    def ident(self, text: str) -> A.Ident:
        return A.Ident(text, self.span)

    def name(self, text: str) -> A.Name:
        return A.Name(text, self.span)

    def int(self, value: int) -> A.IntLit:
        return A.IntLit(value, str(value), self.span)

    def bool(self, value: bool) -> A.BoolLit:
        return A.BoolLit(value, self.span)

    def place(self) -> A.Place:
        """The primitive: `fair`, or `locks[syncc_index]` for an array of them."""
        indices = (self.name(INDEX),) if self.info.dims else ()
        return A.Place(self.ident(self.info.decl.name.text), indices, self.span)

    def prim_op(self, op: str) -> A.PrimOp:
        return A.PrimOp(op, self.place(), self.span)

    def store(self, array: str, value: A.Expr) -> A.Assign:
        """`array[0] = value`"""
        return A.Assign(A.Index(self.name(array), self.int(0), self.span), "=", value, self.span)

    def caller_code(self) -> A.Assign:
        """The store standing for the caller's code."""
        assert self.op.has_body, f"{self.op.name} runs the caller's code: declare has_body"
        return self.store(HOLE, self.int(1))

    def body(self, *more: A.Stmt) -> A.Block:
        """A section's body: the caller's code, then `more`."""
        return A.Block((self.caller_code(), *more), self.span)

    def result(self, value: A.Expr) -> A.Assign:
        assert self.op.returns, f"{self.op.name} returns a value: declare returns"
        return self.store(RESULT, value)

    def value(self) -> A.Expr:
        """The value the caller gives: `syncc_value`, or of a record the literal of its fields'
        parameters, `Entry(key = syncc_value_key, ...)` (a kernel takes no record parameter)."""
        assert self.op.takes_value, f"{self.op.name} stores a value: declare takes_value"
        record = record_of(self.info)
        if record is None:
            return self.name(VALUE)
        return A.Call(self.name(record.name), (), tuple(A.KwArg(self.ident(f.name), self.name(field_param(f.name)),
                                                                self.span) for f in record.fields), self.span)

    def taken(self, value: A.Expr) -> A.Assign:
        assert self.op.gives_value, f"{self.op.name} hands a value back: declare gives_value"
        return self.store(TAKEN, value)

    def permits(self) -> A.Name:
        assert self.op.takes_permits, f"{self.op.name} takes a number of permits: declare takes_permits"
        return self.name(PERMITS)

    def values(self) -> tuple[A.Name, A.Name]:
        """The array of values a range put takes, and how many: `syncc_values[0 .. syncc_many]`."""
        assert self.op.takes_values, f"{self.op.name} puts an array of values: declare takes_values"
        return self.name(VALUES), self.name(MANY)

    def count(self) -> A.Name:
        assert self.op.takes_count, f"{self.op.name} takes a count: declare takes_count"
        return self.name(COUNT)

    def block(self, *stmts: A.Stmt) -> A.Block:
        return A.Block(stmts, self.span)


@dataclass(frozen=True)
class Operation:
    name: str                                            # the C++ member function
    statements: Callable[[OperationBuilder], tuple]      # the kernel's body
    returns: str | None = None     # "bool", or "slot" for the channel's slot type
    doc: str = ""
    has_body: bool = False         # runs the caller's code (a lambda in C++)
    takes_value: bool = False      # a channel's value to store
    takes_count: bool = False      # a bound on attempts
    takes_permits: bool = False    # a semaphore's number of permits at once (`wait s(k)`)
    gives_value: bool = False      # hands back a value of the slot type beside its result (C++: `T& value`)
    takes_values: bool = False     # an array of values and their number (a queue's range put; C++: `const T*, int`)


def _section(statement):
    """An operation that is one section statement around the caller's code: `critical m { ... }`
    (`statement` is the node class, or a partial of it: `read`/`write` for an rwlock)."""
    return lambda b: (statement(b.place(), b.body(), b.span),)


def _prim_op(op: str):
    """An operation that is one statement: `post s`."""
    return lambda b: (b.prim_op(op),)


def _try_critical(b: OperationBuilder) -> tuple:
    # result = false; if trylock m { body; unlock m; result = true }
    took = A.If(A.TryLock(b.place(), b.span), b.body(b.prim_op("unlock"), b.result(b.bool(True))), None, b.span)
    return b.result(b.bool(False)), took


def _next_value(b: OperationBuilder) -> tuple:
    # result = false; for v in q { taken = v; result = true; break }: one round of the consumers' loop
    v = b.ident("syncc_v")
    take = A.ForEach(v, b.place(), b.block(b.taken(b.name("syncc_v")), b.result(b.bool(True)), A.Break(b.span)),
                     b.span)
    return b.result(b.bool(False)), take


def _takes_permits(info, impl) -> bool:
    """A semaphore declared `using` an implementation that takes several permits at once."""
    return impl is not None and impl.permits


def _closable(info, impl) -> bool:
    """Closing needs a closable queue (E0418); the default a library's queue gets without `using`
    (`ring`) is one."""
    return impl is None or impl.closable


def _put_many(b: OperationBuilder) -> tuple:
    # put q = values[0 .. many]: one reservation of `many` slots
    values, many = b.values()
    return (A.Put(b.place(), values, b.span, (b.int(0), many)),)


def _ranges(info, impl) -> bool:
    """A range put needs a @thread `ring` queue (E0426), the default a library's queue gets."""
    return info.granularity == "thread" and (impl is None or impl.ranges)


def _not_counted(info, impl) -> bool:
    """A queue whose sides count their own tickets (`spsc`) has `put` and `get` only (E0418)."""
    return impl is None or not impl.counted


# kind → its operations; `when(info, impl)` filters (e.g. `arrive` only for named barriers)
OPERATIONS: dict[str, tuple[tuple[Operation, object], ...]] = {
    "mutex": (
        (Operation("critical", _section(A.Critical), has_body=True, doc="run body holding the mutex"), None),
        (Operation("try_critical", _try_critical, "bool", has_body=True,
                   doc="one attempt: if it takes the mutex, run body and release; true if body ran"),
         lambda info, impl: impl is not None and impl.abandonable),   # else trylock would change the default
    ),
    "semaphore": (
        (Operation("acquire", _section(A.Acquire), has_body=True, doc="run body holding one permit"), None),
        (Operation("wait", _prim_op("wait"), doc="take a permit, waiting until one is free"), None),
        (Operation("post", _prim_op("post"), doc="return a permit"), None),
        (Operation("try_acquire", lambda b: (b.result(A.TryWait(b.place(), None, b.span)),), "bool",
                   doc="one attempt: true if it took a permit (give it back with post)"), None),
        (Operation("try_acquire_for", lambda b: (b.result(A.TryWait(b.place(), b.count(), b.span)),), "bool",
                   takes_count=True,
                   doc="up to `attempts` attempts: true if it took a permit (give it back with post)"), None),
        # several permits at once, on an implementation that takes them so (`using spin` or `backoff`:
        # offered by default, they would change a semaphore's default implementation)
        (Operation("acquire_many", lambda b: (A.Acquire(b.place(), b.body(), b.span, b.permits()),), has_body=True,
                   takes_permits=True, doc="run body holding `permits` permits, taken at once"), _takes_permits),
        (Operation("wait_many", lambda b: (A.PrimOp("wait", b.place(), b.span, b.permits()),), takes_permits=True,
                   doc="take `permits` permits at once, waiting until that many are free"), _takes_permits),
        (Operation("post_many", lambda b: (A.PrimOp("post", b.place(), b.span, b.permits()),), takes_permits=True,
                   doc="return `permits` permits"), _takes_permits),
        (Operation("try_acquire_many", lambda b: (b.result(A.TryWait(b.place(), None, b.span, permits=b.permits())),),
                   "bool", takes_permits=True,
                   doc="one attempt: true if it took `permits` permits at once (give them back with post_many)"),
         _takes_permits),
    ),
    "rwlock": (
        (Operation("read", _section(partial(A.RwSection, "read")), has_body=True,
                   doc="run body as a reader: other readers may be inside too"), None),
        (Operation("write", _section(partial(A.RwSection, "write")), has_body=True,
                   doc="run body as the writer: nobody else inside"), None),
    ),
    "latch": (
        (Operation("count_down", _prim_op("count_down"), doc="count this party in, without waiting"), None),
        (Operation("wait", _prim_op("wait"), doc="wait until every party has counted down"), None),
        (Operation("arrive_and_wait", _prim_op("sync"), doc="count down, then wait"), None),
    ),
    "barrier": (
        (Operation("sync", _prim_op("sync"), doc="meet: wait until every participant has arrived"), None),
        (Operation("arrive", _prim_op("arrive"), doc="the producer half: count this warp in, do not wait"),
         lambda info, impl: info.is_named_barrier),
    ),
    "channel": (
        (Operation("put", lambda b: (A.Put(b.place(), b.value(), b.span),), takes_value=True,
                   doc="fill the slot (once per launch, by one producer)"), None),
        (Operation("get", lambda b: (b.result(A.Get(b.place(), b.span)),), "slot",
                   doc="wait until the slot is full, then read it"), None),
        (Operation("await_full", _prim_op("await"), doc="wait until the slot is full, without reading"), None),
        (Operation("signal", _prim_op("signal"), doc="mark the slot full without writing a value"), None),
    ),
    "queue": (
        (Operation("put", lambda b: (A.Put(b.place(), b.value(), b.span),), takes_value=True,
                   doc="add a value at the tail, waiting while the queue is full"), None),
        (Operation("get", lambda b: (b.result(A.Get(b.place(), b.span)),), "slot",
                   doc="take the value at the head, waiting while the queue is empty"), None),
        (Operation("put_many", _put_many, takes_values=True,
                   doc="add `k` values at the tail, in order and next to each other, with one reservation of `k` "
                       "slots (one atomic), filling each slot as it becomes free"), _ranges),
        (Operation("try_put", lambda b: (b.result(A.TryPut(b.place(), b.value(), b.span)),), "bool",
                   takes_value=True, doc="one attempt to add a value: true if it went in"), _not_counted),
        (Operation("close", _prim_op("close"), doc="count this writer out: after the declaration's `writers` "
                   "closes, `next` ends once every value is taken (once per writer, after its last put)"), _closable),
        (Operation("next", _next_value, "bool", gives_value=True,
                   doc="take the value at the head into `value`, waiting while the queue is empty and open; "
                   "false once it is closed and drained (the `for v in q` loop's get)"), _closable),
    ),
}


@dataclass(frozen=True)
class VendedOp:
    prim: PrimInfo
    op: Operation
    kernel: str                # the kernel it was compiled as
    written: str               # the declaration, as the library writes it


def record_of(info: PrimInfo):
    """The record type a channel or queue carries, or None for a scalar slot."""
    return info.elem if getattr(info.elem, "kind", None) == "record" else None


def field_param(field: str) -> str:
    """The parameter of a vended put's kernel that carries one field of the record it puts (the C++
    member function takes the whole record, `value`, and passes `value.FIELD` there)."""
    return f"{VALUE}_{field}"


def is_library(checked) -> bool:
    """A file of top-level primitives and no kernels or host block: building it vends them."""
    return bool(checked.prims) and not checked.kernels and checked.host is None


def operations(info: PrimInfo, impl) -> list[Operation]:
    return [op for op, when in OPERATIONS.get(info.kind, ()) if when is None or when(info, impl)]


def kernel_name(info: PrimInfo, op: Operation) -> str:
    return f"{info.decl.name.text}__{op.name}"


def operation_kernel(info: PrimInfo, op: Operation) -> A.Kernel:
    """The operation as a kernel of the library, `fair__critical`, built as a syntax tree."""
    b = OperationBuilder(info, op)
    span = b.span

    def param(name: str, type_) -> A.Param:
        return A.Param(b.ident(name), type_, span)

    def scalar(name: str) -> A.ScalarTypeExpr:
        return A.ScalarTypeExpr(name, span)

    record = record_of(info)

    def element(elem: str):
        return A.RecordTypeExpr(elem, span) if record is not None and elem == record.name else scalar(elem)

    def one(space: str, elem: str) -> A.ArrayTypeExpr:
        return A.ArrayTypeExpr(space, element(elem), (b.int(1),), span)

    params, locals_ = [], []
    if info.dims:
        params.append(param(INDEX, scalar("i32")))
    if op.takes_value and record is not None:         # a record: a parameter per field
        params += [param(field_param(f.name), scalar(str(f.type))) for f in record.fields]
    elif op.takes_value:
        params.append(param(VALUE, scalar(str(info.elem))))
    if op.takes_count:
        params.append(param(COUNT, scalar("i32")))
    if op.takes_permits:
        params.append(param(PERMITS, scalar("i32")))
    if op.takes_values:
        params.append(param(MANY, scalar("i32")))
        params.append(param(VALUES, A.ArrayTypeExpr("global", element(str(info.elem)), (b.name(MANY),), span)))
    if op.gives_value:
        params.append(param(TAKEN, one("global", str(info.elem))))
    if op.returns:
        params.append(param(RESULT, one("global", str(info.elem) if op.returns == "slot" else op.returns)))
    if op.has_body:
        if info.placement == "global":
            params.append(param(HOLE, one("global", "i32")))
        else:       # a shared primitive guards block-local data (E0709): so does its caller's body
            locals_.append(A.SharedDecl(b.ident(HOLE), scalar("i32"), (b.int(1),), span))
    body = b.block(*locals_, *op.statements(b))
    return A.Kernel(b.ident(kernel_name(info, op)), tuple(params), (), body, span)
