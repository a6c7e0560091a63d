"""Definition rules of the checker: constants and functions, without recursion across them.

Constants are evaluated in dependency order (a cycle is E0303); functions get
their signatures first, then each body is checked once, with calls recorded as
edges of a call graph. Afterwards the graph says which functions use the GPU
(a function that calls a GPU-only one is GPU-only too; a host block may not
call it, E0506) and which recurse (E0507: functions are inlined). So a chain
of ten thousand definitions that each use the next costs no Python stack.
"""
from __future__ import annotations

from ..core.diagnostics import Note
from . import ast as A
from .check_context import CheckContext
from .symbols import ConstInfo, Position, FnInfo, Scope, Symbol
from ..core.types import BOOL, ERROR, INT_LIT, ScalarType


def _names_in(expr) -> list[str]:
    """Every name an expression mentions (expressions are at most MAX_NESTING deep)."""
    out, todo = [], [expr]
    while todo:
        node = todo.pop()
        if isinstance(node, A.Name):
            out.append(node.id)
        for field in getattr(node, "__slots__", ()):
            value = getattr(node, field)
            for v in value if isinstance(value, tuple) else (value,):
                if hasattr(v, "__slots__") and not isinstance(v, A.Ident):
                    todo.append(v)
    return out


def _chain(names: list[str]) -> str:
    """`a → b → a`, abbreviated in the middle when long."""
    if len(names) > 8:
        names = names[:3] + [f"… ({len(names) - 5} more)"] + names[-2:]
    return " → ".join(names)


def _order(nodes: list, edges: dict) -> tuple[list, list[list]]:
    """Depth-first order of a graph (dependencies first) and the cycles met, with explicit stacks."""
    state: dict = {}          # 0 on the current path, 1 finished
    order, cycles = [], []
    for root in nodes:
        if root in state:
            continue
        state[root] = 0
        path, stack = [root], [iter(edges.get(root, ()))]
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                stack.pop()
                done = path.pop()
                state[done] = 1
                order.append(done)
            elif nxt not in state:
                state[nxt] = 0
                path.append(nxt)
                stack.append(iter(edges.get(nxt, ())))
            elif state[nxt] == 0:
                cycles.append(path[path.index(nxt):] + [nxt])
    return order, cycles


class DefinitionRules:
    def __init__(self, cx: CheckContext):
        self.cx = cx

    def check_definitions(self) -> None:
        syms = list(self.cx.scope.names.values())
        consts = [s for s in syms if s.kind == "const"]
        fns = [s for s in syms if s.kind == "fn"]
        for sym in fns:
            self.fn_signature(sym)
        self.evaluate_consts(consts)
        for sym in fns:
            self.check_fn_body(sym)
        self.find_recursion(fns)
        self.spread_device_use(fns)

    # ---- constants --------------------------------------------------------------------

    def evaluate_consts(self, consts: list[Symbol]) -> None:
        by_name = {s.name: s for s in consts}
        deps = {s: [by_name[n] for n in _names_in(s.decl.value) if n in by_name] for s in consts}
        order, cycles = _order(consts, deps)
        for cycle in cycles:
            first = cycle[0]
            chain = _chain([s.name for s in cycle])
            what = f"the constant `{first.name}` depends on itself" + (f": {chain}" if len(cycle) > 2 else "")
            self.cx.error("E0303", what, first.decl.name.span)
            for sym in cycle:
                sym.info.state, sym.info.type, sym.info.value = "done", ERROR, None
        for sym in order:
            self.const_value(sym)

    def const_value(self, sym: Symbol | None):
        if sym is None or sym.kind != "const":
            return None
        info: ConstInfo = sym.info
        if info.state != "done":
            self._evaluate(sym, info)
        return info.value

    def _evaluate(self, sym: Symbol, info: ConstInfo) -> None:
        info.state = "done"      # (set first: a cycle that slipped through reads None, not loops)
        decl = info.decl
        t = self.cx.exprs.value(decl.value, Position("const", self.cx.scope))
        want = self.cx.scalar_of(decl.type.name) if isinstance(decl.type, A.ScalarTypeExpr) else None
        if decl.type is not None and want is None:
            self.cx.error("E0214", f"a constant is a scalar, not a `{decl.type.name}` record", decl.type.span,
                          help="declare a constant per field, or a `let` of the record where it is used")
            info.type = ERROR
            return
        value = None
        if t is not ERROR:
            if want is not None:
                self.cx.exprs.coerce(decl.value, t, want, f"for `{sym.name}`")
                t = want
            value = self.cx.exprs.constant(decl.value, f"the value of `{sym.name}`")
        if info.defined_by is not None and info.value is not None:
            value = self._override(sym, info, t)
            t = info.type if info.type is not None else t
        info.type = t if value is not None else ERROR
        info.value = value

    def _override(self, sym: Symbol, info: ConstInfo, t):
        """The -D value, checked against the constant's type."""
        value = info.value
        note = [Note(f"its value comes from `{info.defined_by}`")]
        if isinstance(value, bool) != (t == BOOL):
            kind, want = ("a bool", "true or false") if t == BOOL else ("an integer", "an integer")
            self.cx.error("E0201", f"`{sym.name}` is {kind}; `{info.defined_by}` must give {want}",
                          info.decl.name.span, notes=note)
            return None
        if isinstance(t, ScalarType) and t.is_int:
            lo, hi = t.range
            if not lo <= value <= hi:
                self.cx.error("E0305", f"{value} does not fit in {t} ({lo} to {hi})", info.decl.name.span, notes=note)
                return None
        info.type = BOOL if isinstance(value, bool) and t is INT_LIT else t
        return value

    # ---- functions ----------------------------------------------------------------------

    def fn_signature(self, sym: Symbol) -> None:
        info: FnInfo = sym.info
        decl = info.decl
        info.scope = Scope(self.cx.scope)
        for p in decl.params:
            if isinstance(p.type, A.ArrayTypeExpr):
                self.cx.error("E0509", "function parameters are scalars; pass an index instead of an array",
                              p.type.span)
                t = ERROR
            else:
                t = self.cx.elem_of(p.type)          # a scalar, or a record (scalarized when inlined)
            if p.values is not None:
                self.cx.error("E0606", "a function takes what its caller passes; only a kernel's parameter "
                                       "declares the values it supports", p.values.span)
            info.params.append(t)
            self.cx.declare(info.scope, Symbol(p.name.text, "param", t, p))
        info.ret = self.cx.elem_of(decl.ret) if decl.ret is not None else None

    def check_fn_body(self, sym: Symbol) -> None:
        info: FnInfo = sym.info
        self.cx.stmts.block(info.decl.body, Position("fn", info.scope, fn=info), new_scope=False)
        if info.ret is not None and not _always_returns(info.decl.body):
            self.cx.error("E0503", f"`{sym.name}` can reach its end without returning a value of type {info.ret}",
                          info.decl.body.span.last_char(), help="end every path with `return <value>`")

    def find_recursion(self, fns: list[Symbol]) -> None:
        by_info = {s.info: s for s in fns}
        edges = {s: [by_info[c] for c, _ in s.info.calls if c in by_info] for s in fns}
        _, cycles = _order(fns, edges)
        for cycle in cycles:
            caller, callee = cycle[-2], cycle[-1]
            span = next(sp for c, sp in caller.info.calls if c is callee.info)
            if len(cycle) == 2:
                message = f"`{callee.name}` calls itself"
            else:
                message = f"`{callee.name}` is recursive: " + _chain([s.name for s in cycle])
            self.cx.error("E0507", message + "; functions are inlined and cannot recurse", span,
                          notes=[Note("declared here", callee.decl.name.span)])

    def spread_device_use(self, fns: list[Symbol]) -> None:
        """A function that calls a GPU-only function is GPU-only (a worklist over reverse edges)."""
        callers: dict[FnInfo, list[tuple[FnInfo, object]]] = {}
        for s in fns:
            for callee, span in s.info.calls:
                callers.setdefault(callee, []).append((s.info, span))
        names = {s.info: s.name for s in fns}
        todo = [s.info for s in fns if s.info.device_use is not None]
        while todo:
            callee = todo.pop()
            for caller, span in callers.get(callee, ()):
                if caller.device_use is None:
                    caller.device_use, caller.device_why = span, f"`{names.get(callee, '?')}`"
                    todo.append(caller)


def _always_returns(b: A.Block) -> bool:
    """Does every path through the block end in `return`? (A structural check.)"""
    for s in b.stmts:
        if isinstance(s, A.Return):
            return True
        if isinstance(s, A.If) and s.orelse is not None:
            other = s.orelse if isinstance(s.orelse, A.Block) else A.Block((s.orelse,), s.orelse.span)
            if _always_returns(s.then) and _always_returns(other):
                return True
        if isinstance(s, A.While) and isinstance(s.cond, A.BoolLit) and s.cond.value and not _breaks(s.body):
            return True
    return False


def _breaks(b: A.Block) -> bool:
    for s in b.stmts:
        if isinstance(s, A.Break):
            return True
        if isinstance(s, A.If):
            if _breaks(s.then) or (isinstance(s.orelse, A.Block) and _breaks(s.orelse)) or \
                    (isinstance(s.orelse, A.If) and _breaks(A.Block((s.orelse,), s.span))):
                return True
        if isinstance(s, (A.Critical, A.Acquire, A.RwSection, A.When)):
            if _breaks(s.body):
                return True
        if isinstance(s, A.TryGet) and (_breaks(s.body) or s.orelse is not None and _breaks(s.orelse)):
            return True
    return False
