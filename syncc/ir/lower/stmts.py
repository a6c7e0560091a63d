"""Lowering of statements: `let` and assignment into registers and memory, `if`, `while` and
`for` as blocks and branches, `break`/`continue`/`return` as jumps (a `return` in an inlined
function jumps to its end), shared arrays. Synchronization statements are in sync.py.
"""
from __future__ import annotations

from ...core.handlers import HandlerTable
from ...core.types import BOOL, I32, ScalarType
from ...frontend import ast as A
from ...core.records import RecordType
from ..nodes import Array, Imm, Ref, Reg, imm
from .context import LoweringContext
from .expr import BINARY

statements = HandlerTable()


class StatementLowering:
    def __init__(self, cx: LoweringContext):
        self.cx = cx
        self.b = cx.b

    def block(self, b: A.Block) -> None:
        handlers = self.cx.statement_handlers
        for s in b.stmts:
            self.b.span_now = s.span
            handlers[type(s)](s)
        self.b.span_now = None

    @statements.on(A.Let)
    def let(self, s: A.Let) -> None:
        t = self.cx.types.get(s.value)
        if isinstance(t, RecordType):      # a record (`let e = ...`, `let e: Entry = ...`): one register per field
            regs = self.cx.vars[s] = self.cx.exprs.record_registers(t, s.name.text)
            self.cx.exprs.record(s.value, regs)
            return
        # an untyped constant gets the checker's default: i32, or f64 for a float (`var acc = 1.0`)
        t = self.cx.scalar_of(s.type.name) if s.type is not None else \
            (t if isinstance(t, ScalarType) else self.cx.type_of(s.value))
        reg = self.b.reg(t, s.name.text)
        self.cx.vars[s] = reg
        self.cx.exprs.expr(s.value, t, reg)

    @statements.on(A.Assign)
    def assign(self, s: A.Assign) -> None:
        target = s.target
        if isinstance(self.cx.types.get(target), RecordType):      # a whole record, field by field
            if isinstance(target, A.Name):
                self.cx.exprs.record(s.value, self.cx.vars[self.cx.symbol(target).decl])
                return
            name, index, record = self.cx.exprs.element(target)
            values = self.cx.exprs.record(s.value)
            for f in record.fields:
                self.b.emit("st", (), (Ref(name, index, f.name), values[f.name]), s.span)
            return
        if isinstance(target, A.Field) and isinstance(target.base, A.Name):        # a field of a `var` record
            reg = self.cx.vars[self.cx.symbol(target.base).decl][target.name.text]
        elif isinstance(target, A.Name):
            reg = self.cx.vars[self.cx.symbol(target).decl]
        else:
            reg = None
        if reg is not None:
            if s.op == "=":
                self.cx.exprs.expr(s.value, reg.type, reg)
            else:
                value = self.cx.exprs.expr(s.value, reg.type)
                self.cx.exprs.binop_into(reg, BINARY[s.op[:-1]], reg.type, reg, self.shift_amount(s.op, value, reg.type),
                                         span=s.span)
            return
        ref, elem = self.cx.exprs.place(target)
        if s.op == "=":
            value = self.cx.exprs.expr(s.value, elem)
        else:
            old = self.b.op("ld", elem, ref, span=s.span)
            value = self.cx.exprs.binop_into(None, BINARY[s.op[:-1]], elem, old,
                                             self.shift_amount(s.op, self.cx.exprs.expr(s.value, elem), elem), span=s.span)
        self.b.emit("st", (), (ref, value), s.span)

    def shift_amount(self, op, value, t):
        if op in ("<<=", ">>=") and value.type != t:
            return imm(value.value, t) if isinstance(value, Imm) else self.b.op("cvt", t, value)
        return value

    @statements.on(A.ExprStmt)
    def expr_stmt(self, s: A.ExprStmt) -> None:
        self.cx.exprs.expr(s.expr)

    @statements.on(A.If)
    def if_stmt(self, s: A.If) -> None:
        then, done = self.b.new_block("then"), None
        orelse = self.b.new_block("else") if s.orelse is not None else None
        done = self.b.new_block("endif")
        self.cx.exprs.condition(s.cond, then, orelse or done)
        self.b.at(then)
        self.block(s.then)
        if self.b.open:
            self.b.jump(done)
        if orelse is not None:
            self.b.at(orelse)
            if isinstance(s.orelse, A.If):
                self.if_stmt(s.orelse)
            else:
                self.block(s.orelse)
            if self.b.open:
                self.b.jump(done)
        self.b.at(done)

    @statements.on(A.While)
    def while_loop(self, s: A.While) -> None:
        head, body, done = self.b.new_block("while"), self.b.new_block("do"), self.b.new_block("endwhile")
        self.b.jump(head)
        self.b.at(head)
        self.cx.exprs.condition(s.cond, body, done)
        self.b.at(body)
        self.cx.loops.append((done, head))
        self.block(s.body)
        self.cx.loops.pop()
        if self.b.open:
            self.b.jump(head)
        self.b.at(done)

    @statements.on(A.For)
    def for_loop(self, s: A.For) -> None:
        t = self.cx.types.get(s.start)
        t = t if isinstance(t, ScalarType) else self.cx.type_of(s.stop)
        var = self.b.reg(t, s.var.text)
        self.cx.vars[s] = var
        self.cx.exprs.expr(s.start, t, var)
        stop = self.cx.exprs.expr(s.stop, t)
        if isinstance(stop, Reg):      # the bound is evaluated once
            frozen = self.b.reg(t, f"{s.var.text}.stop")
            self.b.assign(frozen, stop, s.stop.span)
            stop = frozen
        step = self.cx.exprs.expr(s.step, t) if s.step is not None else imm(1, t)
        head, body, latch, done = (self.b.new_block(h) for h in ("for", "loop", "next", "endfor"))
        self.b.jump(head)
        self.b.at(head)
        cond = self.b.op("cmp.lt", BOOL, var, stop, span=s.span)
        self.b.branch(cond, body, done, s.span)
        self.b.at(body)
        self.cx.loops.append((done, latch))
        self.block(s.body)
        self.cx.loops.pop()
        if self.b.open:
            self.b.jump(latch)
        self.b.at(latch)
        self.b.emit("add", (var,), (var, step), s.span)
        self.b.jump(head)
        self.b.at(done)

    @statements.on(A.Break)
    def break_stmt(self, s) -> None:
        self.b.jump(self.cx.loops[-1][0], s.span)

    @statements.on(A.Continue)
    def continue_stmt(self, s) -> None:
        self.b.jump(self.cx.loops[-1][1], s.span)

    @statements.on(A.Return)
    def return_stmt(self, s: A.Return) -> None:
        if self.cx.returns:
            exit_, result = self.cx.returns[-1]
            if s.value is not None and result is not None:
                self.cx.exprs.expr(s.value, result.type, result)
            self.b.jump(exit_, s.span)
        else:
            self.b.ret(s.span)

    @statements.on(A.SharedDecl)
    def shared_decl(self, s: A.SharedDecl) -> None:
        t = next(x.type for x in self.cx.info.shared if x.decl is s)
        name = self.b.fresh(s.name.text)
        self.b.add_array(Array(name, "shared", t.elem, t.dims, "data", span=s.span))
        self.cx.arrays[s] = name
