"""Parse tree (lark) → AST (syncc.frontend.ast), without recursion.

Each method is named after the grammar rule (or alias) it builds from and gets
the rule's span and its kept children: NAME/INT/STRING/GRANULARITY tokens and
already-built nodes; keywords and punctuation were filtered out by lark, and an
absent `[optional]` part arrives as None.
"""
from __future__ import annotations

from lark import Token, Tree

from ..source import SourceFile, Span
from . import ast as A
from .lexer import MAX_NESTING


class TreeTooDeep(Exception):
    def __init__(self, span: Span):
        super().__init__(f"nested more than {MAX_NESTING} levels deep")
        self.span = span


class BadLiteral(Exception):
    def __init__(self, span: Span, message: str):
        super().__init__(message)
        self.span = span


class AstBuilder:
    def __init__(self, source: SourceFile):
        self.source = source

    # ---- driving -----------------------------------------------------------

    def build(self, tree: Tree) -> A.Program:
        """Post-order walk with explicit stacks, so deep trees cannot overflow Python's."""
        order: list = []
        todo = [tree]
        while todo:
            t = todo.pop()
            order.append(t)
            if isinstance(t, Tree):
                todo.extend(t.children)
        values: list = []
        depths: list[int] = []
        for t in reversed(order):
            if isinstance(t, Tree):
                n = len(t.children)
                kids = values[len(values) - n:] if n else []
                depth = 1 + max(depths[len(depths) - n:], default=0)
                if n:
                    del values[-n:]
                    del depths[-n:]
                span = self.span_of(t)
                if depth > MAX_NESTING:
                    raise TreeTooDeep(span)
                values.append(getattr(self, t.data)(span, *kids))
                depths.append(depth)
            else:
                values.append(t)
                depths.append(0)
        (program,) = values
        return program

    def span_of(self, t: Tree) -> Span:
        m = t.meta
        if m.empty:
            return self.source.span(0, 0)
        return Span(self.source.path, m.start_pos, m.end_pos, m.line, m.column, m.end_line, m.end_column)

    def tok_span(self, tok: Token) -> Span:
        return Span(self.source.path, tok.start_pos, tok.end_pos, tok.line, tok.column,
                    tok.end_line, tok.end_column)

    def ident(self, tok: Token) -> A.Ident:
        return A.Ident(str(tok), self.tok_span(tok))

    def opt_ident(self, tok: Token | None) -> A.Ident | None:
        return None if tok is None else self.ident(tok)

    @staticmethod
    def split_args(items) -> tuple[tuple, tuple]:
        items = items or ()
        return (tuple(x for x in items if not isinstance(x, A.KwArg)),
                tuple(x for x in items if isinstance(x, A.KwArg)))

    # ---- items ---------------------------------------------------------------

    def start(self, span, *items):
        return A.Program(tuple(items), span)

    def import_decl(self, span, path, alias):
        return A.Import(path, alias, span)

    def module_path(self, span, *names):
        return tuple(self.ident(n) for n in names)

    def import_alias(self, span, name):
        return self.ident(name)

    def const_decl(self, span, name, type_, value):
        return A.Const(self.ident(name), type_, value, span)

    def type_annot(self, span, type_):
        return type_

    def fn_decl(self, span, name, params, ret, body):
        return A.Fn(self.ident(name), params, ret, body, span)

    def ret_type(self, span, type_):
        return type_

    def kernel_decl(self, span, name, params, launch, body):
        return A.Kernel(self.ident(name), params, launch or (), body, span)

    def launch_shape(self, span, *dims):
        return tuple(dims)

    def shape_dim(self, span, name, args):
        positional, kwargs = self.split_args(args)
        return A.ShapeDim(self.ident(name), positional + tuple(k.value for k in kwargs), span)

    def host_decl(self, span, name, body):
        return A.Host(self.opt_ident(name), body, span)

    def params(self, span, *params):
        return tuple(params)

    def param(self, span, name, type_):
        return A.Param(self.ident(name), type_, span)

    def array_type(self, span, space, elem, dims):
        return A.ArrayTypeExpr(space, elem, dims, span)

    def dims(self, span, *exprs):
        return tuple(exprs)

    def scalar_type(self, span, tok):
        return A.ScalarTypeExpr(str(tok), span)

    def space(self, span, tok):
        return str(tok)

    # ---- statements ------------------------------------------------------------

    def block(self, span, *stmts):
        return A.Block(tuple(stmts), span)

    def let_stmt(self, span, kw, name, type_, value):
        return A.Let(kw == "var", self.ident(name), type_, value, span)

    def binding_kw(self, span, tok):
        return str(tok)

    def assign_stmt(self, span, target, op, value):
        return A.Assign(target, op, value, span)

    def assign_op(self, span, tok):
        return str(tok)

    def expr_stmt(self, span, expr):
        return A.ExprStmt(expr, span)

    def if_stmt(self, span, cond, then, orelse):
        return A.If(cond, then, orelse, span)

    def else_clause(self, span, body):
        return body

    def while_stmt(self, span, cond, body):
        return A.While(cond, body, span)

    def for_stmt(self, span, var, start, stop, step, body):
        return A.For(self.ident(var), start, stop, step, body, span)

    def for_step(self, span, expr):
        return expr

    def break_stmt(self, span):
        return A.Break(span)

    def continue_stmt(self, span):
        return A.Continue(span)

    def return_stmt(self, span, value):
        return A.Return(value, span)

    def shared_decl(self, span, name, elem, dims):
        return A.SharedDecl(self.ident(name), elem, dims, span)

    def prim_decl(self, span, kind, name, dims, args, elem, placement, gran, impl):
        positional, kwargs = self.split_args(args)
        granularity = A.Ident(str(gran)[1:], self.tok_span(gran))
        return A.PrimDecl(kind, self.ident(name), dims or (), positional, kwargs, elem, placement,
                          granularity, impl, span)

    def prim_kind(self, span, tok):
        return str(tok)

    def prim_args(self, span, args):
        return args or ()

    def impl_clause(self, span, name, args):
        positional, kwargs = self.split_args(args)
        return A.ImplRef(self.ident(name), positional, kwargs, span)

    def critical_stmt(self, span, place, body):
        return A.Critical(place, body, span)

    def acquire_stmt(self, span, place, body):
        return A.Acquire(place, body, span)

    def when_stmt(self, span, *parts):
        *bindings, body = parts
        return A.When(tuple(bindings), body, span)

    def when_binding(self, span, name, place):
        return A.WhenBinding(self.ident(name), place, span)

    def place(self, span, name, *indices):
        return A.Place(self.ident(name), tuple(indices), span)

    def barrier_stmt(self, span):
        return A.BarrierStmt(span)

    def fence_stmt(self, span, scope):
        return A.Fence(self.ident(scope), span)

    def prim_op_stmt(self, span, op, place):
        return A.PrimOp(op, place, span)

    def prim_op(self, span, tok):
        return str(tok)

    def put_stmt(self, span, place, value):
        return A.Put(place, value, span)

    def launch_stmt(self, span, name, args, *shape):
        positional, kwargs = self.split_args(args)
        return A.Launch(self.ident(name), positional, kwargs, tuple(shape), span)

    def check_stmt(self, span, cond, message):
        msg = None if message is None else self.str_lit(self.tok_span(message), message)
        return A.Check(cond, msg, span)

    def print_stmt(self, span, *items):
        return A.Print(tuple(items), span)

    def save_stmt(self, span, value, path):
        return A.Save(value, self.str_lit(self.tok_span(path), path), span)

    # ---- expressions -------------------------------------------------------------

    def binary(self, span, left, op, right):
        return A.Binary(op, left, right, span)

    def unary(self, span, op, operand):
        return A.Unary(op, operand, span)

    def get_expr(self, span, place):
        return A.Get(place, span)

    def trylock_expr(self, span, place):
        return A.TryLock(place, span)

    def index(self, span, base, idx):
        return A.Index(base, idx, span)

    def field(self, span, base, name):
        return A.Field(base, self.ident(name), span)

    def call(self, span, func, args):
        positional, kwargs = self.split_args(args)
        return A.Call(func, positional, kwargs, span)

    def int_lit(self, span, tok):
        text = str(tok)
        digits, base = text.replace("_", ""), 10
        if digits[:2].lower() in ("0x", "0b"):
            digits, base = digits[2:], (16 if digits[1] in "xX" else 2)
        if not digits:
            raise BadLiteral(span, f"integer literal `{text}` has no digits")
        value = int(digits, base) if len(digits) <= 70 else 1 << 64
        if value >= 1 << 64:
            raise BadLiteral(span, f"integer literal `{_clip(text)}` does not fit in 64 bits")
        return A.IntLit(value, text, span)

    def true_lit(self, span):
        return A.BoolLit(True, span)

    def false_lit(self, span):
        return A.BoolLit(False, span)

    def str_lit(self, span, tok):
        return A.StrLit(_unescape(str(tok)[1:-1]), span)

    def name(self, span, tok):
        return A.Name(str(tok), span)

    def type_ref(self, span, type_):
        return A.TypeRef(type_.name, span)

    def list_lit(self, span, args):
        positional, kwargs = self.split_args(args)
        return A.ListLit(positional + tuple(k.value for k in kwargs), span)

    def args(self, span, *items):
        return tuple(items)

    def kwarg(self, span, name, value):
        return A.KwArg(self.ident(name), value, span)

    def _op(self, span, tok):
        return str(tok)

    or_op = and_op = cmp_op = bor_op = bxor_op = band_op = shift_op = add_op = mul_op = unary_op = _op


def _clip(text: str, limit: int = 24) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"'}


def _unescape(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)
