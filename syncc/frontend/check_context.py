"""What the parts of the checker share: the module being checked, the sink, the loader and
the catalogue, the top-level scope, the rules objects, and the reporting helpers.

Each part (statements, expressions, calls, definitions, primitives, host block) is an object holding
this context as `cx`; it reaches another part through it (`self.cx.exprs.value(e, pos)`). The
position being checked (scope, kernel, function, loop depth) is the Position `pos` passed along instead.
"""
from __future__ import annotations

from typing import Callable

from ..core.diagnostics import DiagnosticSink, Note, did_you_mean
from . import ast as A
from .builtins import BUILTIN_FNS, BUILTIN_VALUES
from .catalogue import Implementation
from .symbols import CheckedModule, Position, Scope, Symbol
from ..core.types import ERROR, SCALARS, ScalarType

SUGGESTION_BUDGET = 100_000   # names compared for "did you mean" hints per file (keeps 10 000 typos fast)


def builtin_scope() -> Scope:
    scope = Scope()
    for name, fn in BUILTIN_FNS.items():
        scope.names[name] = Symbol(name, "builtin-fn", None, info=fn)
    for name, value in BUILTIN_VALUES.items():
        scope.names[name] = Symbol(name, "builtin-value", None, info=value)
    return scope


_BUILTINS = builtin_scope()


class CheckContext:
    def __init__(self, program, path: str, sink: DiagnosticSink,
                 catalogue: dict[str, dict[str, Implementation]], loader,
                 defines: dict[str, tuple[int | bool, str]], is_module: bool):
        self.program = program
        self.sink = sink
        self.catalogue = catalogue     # kind → name → implementation (the ir registry's, from the driver)
        self.loader = loader
        self.defines = defines
        self.module = CheckedModule(path, program, is_module)
        self.types = self.module.types
        self.refs = self.module.refs
        self.scope = Scope(_BUILTINS)
        self.module.scope = self.scope
        self.library = False         # set by Checker: a library file, whose primitives are vended
        self.reported: set = set()   # constant errors already reported (code, span)
        self.suggestion_budget = SUGGESTION_BUDGET   # see ExpressionRules.resolve
        # an untyped constant → the float type it met (`y * 0.5`), to which its folded value is rounded
        self.meets: dict = {}
        # The parts, set by Checker once all exist (they call one another).
        self.stmts = self.exprs = self.calls = self.defs = self.prims = self.host = None
        self.statement_handlers: dict[type, Callable] = {}    # statement class → handler, of every part
        self.expression_handlers: dict[type, Callable] = {}   # expression class → handler, of every part

    # ---- reporting -------------------------------------------------------------

    def error(self, code, message, span, *, notes=(), help=None):
        self.sink.error(code, message, span, notes=notes, help=help)

    def warning(self, code, message, span, *, notes=(), help=None):
        self.sink.warning(code, message, span, notes=notes, help=help)

    def device_only(self, what: str, span, pos: Position, note: Note | None = None) -> bool:
        """Mark a construct that runs only on the GPU; False (reported) in a host block.
        (In a constant it is left to constant evaluation to say what is not constant.)"""
        if pos.where == "host":
            self.error("E0506", f"{what} runs on the GPU and cannot be used in a host block", span,
                       notes=[note] if note else ())
            return False
        if pos.fn is not None and pos.fn.device_use is None:
            pos.fn.device_use, pos.fn.device_why = span, what.split(" (")[0]
        return True

    def host_only(self, what: str, span, pos: Position) -> bool:
        if pos.where != "host":
            self.error("E0505", f"{what} belongs in a host block", span,
                       help="host blocks prepare data, launch kernels and check results")
            return False
        return True

    def kernel_only(self, what: str, span, pos: Position) -> bool:
        if pos.where != "kernel":
            place = "a host block" if pos.where == "host" else "a function" if pos.where == "fn" else "a constant"
            self.error("E0504", f"{what} can only appear in a kernel, not in {place}", span)
            return False
        return True

    # ---- declarations ------------------------------------------------------------

    def declare(self, scope: Scope, sym: Symbol) -> None:
        builtin = _BUILTINS.names.get(sym.name)
        if builtin is not None and (builtin.kind == "builtin-value" or scope is self.scope):
            # Built-in values (`tid`, `lane`, ...) are never redefined; built-in functions may be
            # shadowed by locals (`let sum = 0`) but not by top-level names, which constants
            # would fold as the built-in. Declared anyway, so its uses do not cascade.
            what = "value" if builtin.kind == "builtin-value" else "function"
            self.error("E0105", f"`{sym.name}` is a built-in {what} and cannot be redefined"
                       + ("" if builtin.kind == "builtin-value" else " at the top level"), sym.span,
                       help="choose another name")
        prev = scope.names.get(sym.name)
        if prev is not None:
            self.error("E0102", f"`{sym.name}` is defined twice", sym.span,
                       notes=[Note("first defined here", prev.span)] if prev.span else ())
            return
        scope.names[sym.name] = sym

    def scalar_of(self, name: str) -> ScalarType:
        return SCALARS[name]

    def elem_of(self, t):
        """An array's element type: a scalar (`ScalarTypeExpr`) or a declared record
        (`RecordTypeExpr`); a name that is no record is E0215 (and ERROR)."""
        if not isinstance(t, A.RecordTypeExpr):
            return SCALARS[t.name]
        sym = self.scope.names.get(t.name)
        if sym is not None and sym.kind == "struct":
            return sym.info
        records = [n for n, s in self.scope.names.items() if s.kind == "struct"]
        what = f"`{t.name}` is not a type" if sym is not None else f"there is no type `{t.name}`"
        self.error("E0215", what + ": an array's element is a scalar type or a `struct`", t.span,
                   help=did_you_mean(t.name, records) or "declare it: `struct NAME { field: i32, ... }`")
        return ERROR
