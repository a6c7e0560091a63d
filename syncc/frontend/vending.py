"""Vending: a library file's top-level primitives, compiled for code written outside syncc.

A file with no kernels and no host block is a library (the stdlib's modules are). Building it
vends each top-level declaration,

    mutex fair in global @thread using ticket

one operation at a time (the table OPERATIONS): each operation is written as a small kernel,
`fair__critical`, and compiled by the same passes as any kernel (driver.vend_library), with the
same remarks for `syncc explain`. `--target cuda` turns those kernels into the member functions of a C++ type
(backends/cuda/vended.py); `--target ptx` and `fermi-sass` print them as kernels to read.

Where an operation has a body (`critical`, `acquire`, ...), the kernel's body is one store to
the array `syncc_body`, standing for the caller's code: the C++ writer calls the caller's lambda
there. Three passes are left out, because what they need is the caller's whole kernel, which the
library cannot see:
  * check_hazards: SIMT deadlock, producers of a slot, lock order are properties of the kernel
    that calls the operations; the header says what the caller owes (docs/stdlib.md);
  * elide_locks and combine_warps: the body is opaque, so a lock cannot become one atomic, nor
    a warp's bodies run by its leader;
  * initialize_shared_state: shared state is the caller's, set up once with the type's `init`.
"""
from __future__ import annotations

from dataclasses import dataclass

from .symbols import PrimInfo

# the passes a vended operation skips (see above)
SKIPPED_PASSES = ("check_hazards", "elide_locks", "combine_warps", "initialize_shared_state")

HOLE = "syncc_body"        # the caller's code: a store to this array
RESULT = "syncc_result"    # what the operation returns: a store to this array
INDEX = "syncc_index"      # which element of an array of primitives
VALUE = "syncc_value"      # the value a channel `put` stores
COUNT = "syncc_count"      # attempts of a bounded wait


@dataclass(frozen=True)
class Operation:
    name: str                  # the C++ member function
    code: str                  # the kernel body; {p} is the primitive (indexed), {hole} the caller's code
    returns: str | None = None # "bool", or "slot" for the channel's slot type
    doc: str = ""

    @property
    def has_body(self) -> bool:
        return "{hole}" in self.code

    @property
    def takes_value(self) -> bool:
        return "{value}" in self.code

    @property
    def takes_count(self) -> bool:
        return "{count}" in self.code


def _op(name, code, returns=None, doc=""):
    return Operation(name, code, returns, doc)


# kind → its operations; `when(info)` filters (e.g. `arrive` only for named barriers)
OPERATIONS: dict[str, tuple[tuple[Operation, object], ...]] = {
    "mutex": (
        (_op("critical", "critical {p} {{ {hole} }}", doc="run body holding the mutex"), None),
        (_op("try_critical", "{result} = false\n    if trylock {p} {{ {hole}\n        unlock {p}\n        "
                             "{result} = true }}", "bool",
             "one attempt: if it takes the mutex, run body and release; true if body ran"),
         lambda info, impl: impl is not None and impl.abandonable),   # else trylock would change the default
    ),
    "semaphore": (
        (_op("acquire", "acquire {p} {{ {hole} }}", doc="run body holding one permit"), None),
        (_op("wait", "wait {p}", doc="take a permit, waiting until one is free"), None),
        (_op("post", "post {p}", doc="return a permit"), None),
        (_op("try_acquire", "{result} = trywait {p}", "bool",
             "one attempt: true if it took a permit (give it back with post)"), None),
        (_op("try_acquire_for", "{result} = trywait {p} for {count}", "bool",
             "up to `attempts` attempts: true if it took a permit (give it back with post)"), None),
    ),
    "rwlock": (
        (_op("read", "read {p} {{ {hole} }}", doc="run body as a reader: other readers may be inside too"), None),
        (_op("write", "write {p} {{ {hole} }}", doc="run body as the writer: nobody else inside"), None),
    ),
    "latch": (
        (_op("count_down", "count_down {p}", doc="count this party in, without waiting"), None),
        (_op("wait", "wait {p}", doc="wait until every party has counted down"), None),
        (_op("arrive_and_wait", "sync {p}", doc="count down, then wait"), None),
    ),
    "barrier": (
        (_op("sync", "sync {p}", doc="meet: wait until every participant has arrived"), None),
        (_op("arrive", "arrive {p}", doc="the producer half: count this warp in, do not wait"),
         lambda info, impl: info.is_named_barrier),
    ),
    "channel": (
        (_op("put", "put {p} = {value}", doc="fill the slot (once per launch, by one producer)"), None),
        (_op("get", "{result} = get {p}", "slot", "wait until the slot is full, then read it"), None),
        (_op("await_full", "await {p}", doc="wait until the slot is full, without reading"), None),
        (_op("signal", "signal {p}", doc="mark the slot full without writing a value"), None),
    ),
}


@dataclass(frozen=True)
class VendedOp:
    prim: PrimInfo
    op: Operation
    kernel: str                # the kernel it was compiled as
    written: str               # the declaration, as the library writes it


def is_library(checked) -> bool:
    """A file of top-level primitives and no kernels or host block: building it vends them."""
    return bool(checked.prims) and not checked.kernels and checked.host is None


def operations(info: PrimInfo, impl) -> list[Operation]:
    return [op for op, when in OPERATIONS.get(info.kind, ()) if when is None or when(info, impl)]


def kernel_source(info: PrimInfo, op: Operation) -> str:
    """The operation as a kernel of the library file (appended to its text)."""
    name = info.decl.name.text
    params = []
    place = name
    if info.dims:
        params.append(f"{INDEX}: i32")
        place = name + f"[{INDEX}]"
    if op.takes_value:
        params.append(f"{VALUE}: {info.elem}")
    if op.takes_count:
        params.append(f"{COUNT}: i32")
    if op.returns:
        params.append(f"{RESULT}: global {info.elem if op.returns == 'slot' else op.returns}[1]")
    body_decl = ""
    if op.has_body:
        if info.placement == "global":
            params.append(f"{HOLE}: global i32[1]")
        else:       # a shared primitive guards block-local data (E0709): so does its caller's body
            body_decl = f"    shared {HOLE}: i32[1]\n"
    code = op.code.format(p=place, hole=f"{HOLE}[0] = 1", result=f"{RESULT}[0]", value=VALUE, count=COUNT)
    return f"kernel {name}__{op.name}({', '.join(params)}) {{\n{body_decl}    {code}\n}}\n"
