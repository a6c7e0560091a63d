"""Symbols, scopes, the position being checked (Position), and what the checker hands to the lowering (CheckedModule)."""
from __future__ import annotations

from dataclasses import field, replace
from typing import Any

from ..core.prebuilt import dataclass
from ..core.configs import Supported
from ..core.source import Span
from . import ast as A
from .catalogue import Implementation


@dataclass(eq=False)
class Symbol:
    name: str
    kind: str        # const fn kernel struct param local loopvar binding shared prim module builtin-fn builtin-value
    type: Any
    decl: Any = None             # the AST node that declared it (None for built-ins)
    mutable: bool = False
    info: Any = None             # ConstInfo, FnInfo, KernelInfo, PrimInfo, CheckedModule, BuiltinFn, ...

    @property
    def span(self) -> Span | None:
        decl = self.decl
        if decl is None:
            return None
        name = getattr(decl, "name", None) or getattr(decl, "var", None)   # (a `for` declares `var`)
        return name.span if isinstance(name, A.Ident) else decl.span


class Scope:
    def __init__(self, parent: "Scope | None" = None):
        self.parent = parent
        self.names: dict[str, Symbol] = {}

    def lookup(self, name: str) -> Symbol | None:
        scope: Scope | None = self
        while scope is not None:
            sym = scope.names.get(name)
            if sym is not None:
                return sym
            scope = scope.parent
        return None

    def visible_names(self) -> list[str]:
        names: set[str] = set()
        scope: Scope | None = self
        while scope is not None:
            names.update(scope.names)
            scope = scope.parent
        return sorted(names)


@dataclass
class Position:
    """Where a statement or expression is being checked."""
    where: str                       # const | fn | kernel | host | top (a top-level declaration)
    scope: Scope
    kernel: "KernelInfo | None" = None
    fn: "FnInfo | None" = None
    loops: int = 0
    top_level: bool = False          # directly in a kernel's body block
    region: str | None = None        # structured sync region that break/continue/return must not leave
    params: tuple[str, ...] = ()     # const positions in a kernel's signature: its parameters' names

    def child(self, **changes) -> "Position":
        return replace(self, scope=Scope(self.scope), top_level=False, **changes)

    def region_child(self, region: str) -> "Position":
        return self.child(region=region, loops=0)


@dataclass(eq=False)
class ConstInfo:
    decl: A.Const
    type: Any = None
    value: int | bool | None = None
    state: str = "todo"          # todo | active | done
    defined_by: str | None = None  # "-D N=16" when overridden on the command line


@dataclass(eq=False)
class FnInfo:
    decl: A.Fn
    params: list[Any] = field(default_factory=list)
    ret: Any = None
    scope: Scope | None = None       # the parameters
    calls: list[tuple["FnInfo", Span]] = field(default_factory=list)   # (callee, call site)
    device_use: Span | None = None   # first construct that needs a GPU; None = callable from host too
    device_why: str = ""


@dataclass(eq=False)
class PrimInfo:
    decl: A.PrimDecl
    kind: str
    dims: tuple[int, ...]
    placement: str
    granularity: str
    elem: Any = None               # a channel's slot type
    count: int | None = None       # semaphore permits / named-barrier thread count
    impl: Implementation | None = None
    impl_params: dict[str, int] = field(default_factory=dict)
    named: bool = False            # a barrier @warp declared with a thread count (bar.sync/bar.arrive)
    writers: int = 1               # a queue: the `close`s that close it (`queue q(8, writers = 4)`)
    top_level: bool = False        # declared outside any kernel: each kernel that uses it gets its own
    permits: bool = False          # a semaphore waited on or posted k at a time (`wait s(k)`, k not the constant 1)

    @property
    def instances(self) -> int:
        n = 1
        for d in self.dims:
            n *= d
        return n

    @property
    def is_named_barrier(self) -> bool:
        return self.named


@dataclass(eq=False)
class SharedInfo:
    decl: A.SharedDecl
    type: Any


@dataclass(eq=False)
class KernelInfo:
    decl: A.Kernel
    params: list[tuple[str, Any]] = field(default_factory=list)
    grid: tuple[int, int, int] | None = None
    block: tuple[int, int, int] | None = None
    prims: list[PrimInfo] = field(default_factory=list)
    # what the header declares it supports: grid ranges, values of integer parameters (core/configs.py)
    supports: Supported | None = None
    shared: list[SharedInfo] = field(default_factory=list)

    @property
    def threads_per_block(self) -> int | None:
        if self.block is None:
            return None
        x, y, z = self.block
        return x * y * z

    @property
    def named_barriers(self) -> int:
        return sum(p.instances for p in self.prims if p.is_named_barrier)


@dataclass(eq=False)
class CheckedModule:
    """A checked program or stdlib module: the AST plus everything the checker learned."""
    path: str
    program: A.Program
    is_module: bool
    consts: dict[str, ConstInfo] = field(default_factory=dict)
    fns: dict[str, FnInfo] = field(default_factory=dict)
    kernels: dict[str, KernelInfo] = field(default_factory=dict)
    prims: dict[str, PrimInfo] = field(default_factory=dict)    # top-level declarations
    records: dict[str, Any] = field(default_factory=dict)      # name → core.records.RecordType
    host: A.Host | None = None
    imports: dict[str, "CheckedModule"] = field(default_factory=dict)
    scope: Scope | None = None
    types: dict[Any, Any] = field(default_factory=dict)      # expression node → type
    refs: dict[Any, Symbol] = field(default_factory=dict)    # Name / Place / Field node → symbol

    def with_imports(self) -> list["CheckedModule"]:
        """This module and every module it imports, directly or not, each once."""
        seen, todo = [self], list(self.imports.values())
        while todo:
            m = todo.pop()
            if m not in seen:
                seen.append(m)
                todo.extend(m.imports.values())
        return seen
