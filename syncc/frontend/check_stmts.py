"""Statement rules of the checker: blocks, let, assignment, control flow, shared arrays.

A block dispatches each statement on its class through CheckContext.statement_handlers,
which holds this file's handlers and those of check_prims.py and check_host.py.
"""
from __future__ import annotations

from ..core.diagnostics import Note
from ..core.handlers import HandlerTable
from . import ast as A
from .check_context import CheckContext
from .symbols import Position, SharedInfo, Symbol
from ..core.records import RecordType
from ..core.types import ERROR, INT_LIT, ArrayType, is_float, is_int

statements = HandlerTable()


class StatementRules:
    def __init__(self, cx: CheckContext):
        self.cx = cx

    def block(self, b: A.Block, pos: Position, new_scope: bool = True) -> None:
        inner = pos.child() if new_scope else pos
        handlers = self.cx.statement_handlers
        for s in b.stmts:
            handlers[type(s)](s, inner)

    @statements.on(A.Let)
    def let(self, s: A.Let, pos):
        if isinstance(s.value, A.Get):
            t = self.cx.exprs.get_value(s.value, pos)
        else:
            t = self.cx.exprs.expr(s.value, pos)
        want = self.cx.elem_of(s.type) if s.type is not None else None     # (E0215 for no type)
        if isinstance(want, RecordType):               # `let e: Entry = ...`
            self.cx.exprs.coerce(s.value, t, want, f"for `{s.name.text}`")
            t = want
        if isinstance(t, ArrayType) and pos.where == "host" and s.type is None or \
                isinstance(t, RecordType) and (s.type is None or t is want):    # (a record: one value per field)
            self.cx.declare(pos.scope, Symbol(s.name.text, "local", t, s, mutable=s.mutable))
            return
        t = self.cx.exprs.as_value(s.value, t)
        if s.type is not None:
            self.cx.exprs.coerce(s.value, t, want, f"for `{s.name.text}`")
            t = want
        elif t is not ERROR:
            t = self.cx.exprs.concrete(s.value, t)
        self.cx.declare(pos.scope, Symbol(s.name.text, "local", t, s, mutable=s.mutable))

    @statements.on(A.Assign)
    def assign(self, s: A.Assign, pos):
        target_t = self.assign_target(s.target, pos)
        if isinstance(s.value, A.Get):
            if s.op != "=":
                self.cx.error("E0211", f"`get` cannot be combined with `{s.op}`", s.value.span)
            t = self.cx.exprs.get_value(s.value, pos)
        elif isinstance(target_t, (ArrayType, RecordType)):
            t = self.cx.exprs.expr(s.value, pos)
            if isinstance(target_t, RecordType) and s.op != "=" and t is not ERROR:
                self.cx.error("E0214", f"a whole `{target_t.name}` record takes only `=`", s.span,
                              help="update one field at a time: `x.field += ...`")
                return
        else:
            t = self.cx.exprs.value(s.value, pos)
        if target_t is ERROR or t is ERROR:
            return
        if s.op == "=":
            self.cx.exprs.coerce(s.value, t, target_t, "in assignment")
            return
        op = s.op[:-1]
        if is_float(target_t):
            if op in ("+", "-", "*", "/"):
                self.cx.exprs.coerce(s.value, t, target_t, f"in `{s.op}`")
            else:
                self.cx.error("E0201", f"`{s.op}` needs an integer target, found {target_t}", s.target.span,
                              help="floats take `+=`, `-=`, `*=` and `/=`")
        elif not is_int(target_t):
            self.cx.error("E0201", f"`{s.op}` needs an integer target, found {target_t}", s.target.span)
        elif op in ("<<", ">>"):
            if not is_int(t):
                self.cx.error("E0201", f"a shift amount must be an integer, found {t}", s.value.span)
        else:
            self.cx.exprs.coerce(s.value, t, target_t, f"in `{s.op}`")

    def assign_target(self, e, pos):
        if isinstance(e, A.Name):
            sym = self.cx.exprs.resolve(e.id, e.span, pos)
            if sym is None:
                return ERROR
            self.cx.refs[e] = sym
            if sym.kind == "local" and sym.mutable:   # (host arrays too: `out = zeros(i32, 8)`)
                self.cx.types[e] = sym.type
                return sym.type
            what = {"local": "declared with `let`", "param": "a parameter", "const": "a constant",
                    "loopvar": "a loop variable", "binding": "a value received from a channel"}.get(sym.kind)
            if sym.kind == "prim":
                return self._assign_prim(e, sym)
            self.cx.error("E0204", f"cannot assign to `{sym.name}`" + (f": it is {what}" if what else ""), e.span,
                          notes=[Note("declared here", sym.span)] if sym.span else (),
                          help="declare it with `var` to change it" if sym.kind == "local" else None)
            return ERROR
        if isinstance(e, A.Index):
            base, _ = self.cx.exprs.flatten_index(e)
            if isinstance(base, A.Name):
                sym = pos.scope.lookup(base.id)
                if sym is not None and sym.kind == "prim":
                    for index in self.cx.exprs.flatten_index(e)[1]:
                        self.cx.exprs.expr(index, pos)
                    return self._assign_prim(base, sym)
            t = self.cx.exprs.expr(e, pos)
            bt = self.cx.types.get(base)
            if t is ERROR or isinstance(bt, ArrayType):
                return t
        elif isinstance(e, A.Field) and isinstance(e.base, A.Name) and \
                isinstance(getattr(pos.scope.lookup(e.base.id), "type", None), RecordType):   # `e.key = k`
            sym = pos.scope.lookup(e.base.id)
            t = self.cx.exprs.expr(e, pos)
            if sym.kind == "local" and sym.mutable or t is ERROR:
                return t
            param = sym.kind == "param"
            self.cx.error("E0204", f"cannot assign to a field of `{sym.name}`: it is "
                          + ("a parameter" if param else "declared with `let`"), e.span,
                          notes=[Note("declared here", sym.span)] if sym.span else (),
                          help=f"copy it first: `var mine = {sym.name}`" if param else
                          "declare it with `var` to change it")
            return ERROR
        elif isinstance(e, A.Field) and isinstance(e.base, A.Index):     # a record's field: `table[i].key = k`
            t = self.cx.exprs.expr(e, pos)
            base, _ = self.cx.exprs.flatten_index(e.base)
            sym = pos.scope.lookup(base.id) if isinstance(base, A.Name) else None
            if sym is not None and sym.kind == "prim" and t is not ERROR:      # a field of a channel's slot
                return self._assign_prim(base, sym)
            if t is ERROR or isinstance(self.cx.types.get(base), ArrayType):
                return t
        else:
            self.cx.exprs.expr(e, pos)
        self.cx.error("E0204", "cannot assign to this expression", e.span,
                      help="assign to a `var`, or to an element of an array")
        return ERROR

    def _assign_prim(self, e, sym):
        if sym.info.kind in ("channel", "queue"):
            what = "channel slots are" if sym.info.kind == "channel" else "a queue is"
            self.cx.error("E0411", f"{what} written with `put`, not `=`", e.span,
                          help=f"write `put {sym.name}{'[...]' if sym.info.kind == 'channel' else ''} = value`")
        else:
            self.cx.error("E0411", f"`{sym.name}` is a {sym.info.kind}; it cannot be assigned", e.span)
        return ERROR

    @statements.on(A.ExprStmt)
    def expr_stmt(self, s: A.ExprStmt, pos):
        if not isinstance(s.expr, A.Call):
            self.cx.exprs.expr(s.expr, pos)
            self.cx.error("E0209", "this expression does nothing", s.span,
                          help="assign it (`x = ...`) or remove it")
            return
        self.cx.exprs.expr(s.expr, pos)

    @statements.on(A.If)
    def if_stmt(self, s: A.If, pos):
        self.cx.exprs.condition(s.cond, pos)
        self.block(s.then, pos)
        if isinstance(s.orelse, A.Block):
            self.block(s.orelse, pos)
        elif isinstance(s.orelse, A.If):
            self.if_stmt(s.orelse, pos.child())

    @statements.on(A.While)
    def while_loop(self, s: A.While, pos):
        self.cx.exprs.condition(s.cond, pos)
        self.block(s.body, pos.child(loops=pos.loops + 1))

    @statements.on(A.For)
    def for_loop(self, s: A.For, pos):
        lo, hi = self.cx.exprs.value(s.start, pos), self.cx.exprs.value(s.stop, pos)
        t = ERROR
        if lo is not ERROR and hi is not ERROR:
            for e, et in ((s.start, lo), (s.stop, hi)):
                if not is_int(et):
                    self.cx.error("E0201", f"a `for` range needs integers, found {et}", e.span)
            if is_int(lo) and is_int(hi):
                common = lo if hi is INT_LIT else hi if lo is INT_LIT else lo if lo == hi else None
                if common is None:
                    self.cx.error("E0201", f"the bounds of a `for` range differ in type: {lo} and {hi}",
                                  s.start.span.to(s.stop.span), help=f"convert one, e.g. `{lo}(...)`")
                else:
                    t = self.cx.exprs.concrete(s.start, common) if common is INT_LIT else common
                    for e, et in ((s.start, lo), (s.stop, hi)):
                        if et is INT_LIT:
                            self.cx.exprs.fits(e, t)
        if s.step is not None:
            st = self.cx.exprs.value(s.step, pos)
            if st is not ERROR and t is not ERROR:
                self.cx.exprs.coerce(s.step, st, t, "for the step")
                step = self.cx.exprs.try_fold(s.step)
                if step is not None and step <= 0:
                    self.cx.error("E0306", f"a `for` step must be positive, found {step}", s.step.span)
        body = pos.child(loops=pos.loops + 1)
        self.cx.declare(body.scope, Symbol(s.var.text, "loopvar", t, s))
        self.block(s.body, body, new_scope=False)

    @statements.on(A.Break)
    def break_stmt(self, s, pos):
        self._leave("break", s.span, pos, needs_loop=True)

    @statements.on(A.Continue)
    def continue_stmt(self, s, pos):
        self._leave("continue", s.span, pos, needs_loop=True)

    def _leave(self, what: str, span, pos: Position, needs_loop: bool) -> bool:
        if needs_loop and pos.loops == 0:
            if pos.region is not None:
                self.cx.error("E0508", f"`{what}` would leave the {pos.region} without releasing it", span,
                              help="set a flag and leave the loop after the block")
            else:
                self.cx.error("E0501", f"`{what}` outside a loop", span)
            return False
        if not needs_loop and pos.region is not None:
            self.cx.error("E0508", f"`{what}` would leave the {pos.region} without releasing it", span,
                          help="finish the block first, then return")
            return False
        return True

    @statements.on(A.Return)
    def return_stmt(self, s: A.Return, pos):
        if not self._leave("return", s.span, pos, needs_loop=False):
            if s.value is not None:
                self.cx.exprs.expr(s.value, pos)
            return
        ret = pos.fn.ret if pos.fn is not None else None
        if s.value is None:
            if ret is not None:
                self.cx.error("E0502", f"this function returns {ret}; `return` needs a value", s.span)
            return
        t = self.cx.exprs.expr(s.value, pos) if isinstance(ret, RecordType) else self.cx.exprs.value(s.value, pos)
        if ret is None:
            where = "a kernel" if pos.where == "kernel" else "a host block" if pos.where == "host" else \
                "a function without `-> type`"
            self.cx.error("E0502", f"{where} returns no value", s.value.span)
        else:
            self.cx.exprs.coerce(s.value, t, ret, "in `return`")

    @statements.on(A.SharedDecl)
    def shared_decl(self, s: A.SharedDecl, pos):
        if not self.cx.kernel_only("a shared array", s.span, pos):
            return
        if not pos.top_level:
            self.cx.error("E0412", f"declare the shared array `{s.name.text}` at the top level of the kernel body",
                          s.span)
        dims = self.cx.exprs.dims(s.dims, pos, "an array size")
        elem = self.cx.elem_of(s.elem)
        t = ArrayType(elem, dims, "shared") if dims is not None and elem is not ERROR else ERROR
        if dims is not None:
            pos.kernel.shared.append(SharedInfo(s, t))
        self.cx.declare(pos.scope, Symbol(s.name.text, "shared", t, s))
