"""Grammar rules → AST nodes, built while the parser reduces (lark's inline transformer).

The parser (lalr.py, as lark would) calls the method named after each rule (or
alias) with all of the rule's children (keep_all_tokens). The @rule wrapper turns
them into the rule's span, drops keywords and punctuation, and passes the rest:
NAME/INT/STRING/GRANULARITY tokens, WORD tokens (an operator or keyword a rule
keeps, like `+=` or `var`), already-built nodes, tuples of nodes, and None for an
absent `[optional]` part.
It also measures nesting, so no tree deeper than MAX_NESTING reaches the
recursive phases after parsing.
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction

from .token import Token

from ..core.source import Span
from . import ast as A
from .lexer import MAX_NESTING

KEPT = frozenset({"NAME", "INT", "FLOAT", "STRING", "GRANULARITY", "WORD"})


class TreeTooDeep(Exception):
    def __init__(self, span: Span):
        super().__init__(f"nested more than {MAX_NESTING} levels deep")
        self.span = span


class BadLiteral(Exception):
    def __init__(self, span: Span, message: str):
        super().__init__(message)
        self.span = span


class Seq(tuple):
    """A tuple of nodes that remembers the span it was parsed from."""
    span: Span | None = None


def rule(build):
    """Wrap a builder `build(self, span, *kept_children)` as a lark callback."""

    def callback(self, children):
        depths = self.depths
        kept = []
        depth = 0
        deepest = None
        first = last = None
        for c in children:
            if c is None:
                kept.append(None)
            elif type(c) is Token:
                if first is None:
                    first = c
                last = c
                if c.type in KEPT:
                    kept.append(c)
            else:
                if c.span is not None:
                    if first is None:
                        first = c
                    last = c
                kept.append(c)
                d = depths.get(id(c))
                if d is not None and d > depth:
                    depth, deepest = d, c
        depth += 1
        span = self.span_between(first, last)
        if depth > MAX_NESTING:
            # Point into the deep part, not at the enclosing statement or kernel.
            raise TreeTooDeep(deepest.span if deepest is not None and deepest.span is not None else span)
        result = build(self, span, *kept)
        if isinstance(result, tuple):
            result = Seq(result)
            result.span = span if first is not None else None
        if result is not None:
            depths[id(result)] = depth
        return result

    callback.__name__ = build.__name__
    return callback


def word(self, children):
    """A rule that keeps its one keyword or operator token (`!add_op: "+" | "-"`)."""
    return children[0].update("WORD")


class AstBuilder:
    """The inline transformer. `reset(path)` before each parse (the parser is shared)."""

    def __init__(self) -> None:
        self.path = "<input>"
        self.depths: dict[int, int] = {}

    def reset(self, path: str) -> None:
        self.path = path
        self.depths = {}

    def span_between(self, first, last) -> Span:
        if first is None:
            return Span(self.path, 0, 0, 1, 1, 1, 1)
        if type(first) is Token:
            if type(last) is Token:
                return Span(self.path, first.start_pos, last.end_pos, first.line, first.column,
                            last.end_line, last.end_column)
            b = last.span
            return Span(self.path, first.start_pos, b.end, first.line, first.column, b.end_line, b.end_col)
        a = first.span
        if type(last) is Token:
            return Span(self.path, a.start, last.end_pos, a.line, a.col, last.end_line, last.end_column)
        return a.to(last.span)

    def tok_span(self, tok: Token) -> Span:
        return Span(self.path, tok.start_pos, tok.end_pos, tok.line, tok.column, tok.end_line, tok.end_column)

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

    @rule
    def start(self, span, *items):
        return A.Program(tuple(items), span)

    @rule
    def import_decl(self, span, path, alias):
        return A.Import(path, alias, span)

    @rule
    def module_path(self, span, *names):
        return tuple(self.ident(n) for n in names)

    def module_name(self, children):
        tok = children[0]           # a NAME, or a keyword such as `mutex`: a name here
        return Token.new_borrow_pos("NAME", str(tok), tok)

    @rule
    def import_alias(self, span, name):
        return self.ident(name)

    @rule
    def const_decl(self, span, name, type_, value):
        return A.Const(self.ident(name), type_, value, span)

    @rule
    def type_annot(self, span, type_):
        return type_

    @rule
    def fn_decl(self, span, name, params, ret, body):
        return A.Fn(self.ident(name), params, ret, body, span)

    @rule
    def ret_type(self, span, type_):
        return type_

    @rule
    def kernel_decl(self, span, name, params, launch, body):
        return A.Kernel(self.ident(name), params, launch or (), body, span)

    @rule
    def launch_shape(self, span, *dims):
        return tuple(dims)

    @rule
    def shape_dim(self, span, name, args):
        positional, kwargs = self.split_args(args)
        return A.ShapeDim(self.ident(name), positional + tuple(k.value for k in kwargs), span)

    @rule
    def host_decl(self, span, name, body):
        return A.Host(self.opt_ident(name), body, span)

    @rule
    def struct_decl(self, span, name, *fields):
        return A.StructDecl(self.ident(name), tuple(f for f in fields if f is not None), span)

    @rule
    def struct_field(self, span, name, type_):
        return A.StructField(self.ident(name), type_, span)

    @rule
    def record_type(self, span, name):
        return A.RecordTypeExpr(str(name), span)

    @rule
    def params(self, span, *params):
        return tuple(params)

    @rule
    def param(self, span, name, type_, values):
        return A.Param(self.ident(name), type_, span, values)

    @rule
    def param_values(self, span, first, *rest):
        last = rest[-1]              # (`[".." expr]`: a placeholder for the `..` too where absent)
        if last is None:             # `in [a, b]` (anything else is refused by the checker)
            return first if isinstance(first, A.ListLit) else A.ListLit((first,), first.span)
        return A.Between(first, last, span)

    @rule
    def between(self, span, lo, hi):
        return A.Between(lo, hi, span)

    @rule
    def array_type(self, span, space, elem, dims):
        return A.ArrayTypeExpr(str(space), elem, dims, span)

    @rule
    def dims(self, span, *exprs):
        return tuple(exprs)

    def scalar_type(self, children):
        tok = children[0]   # (a `!` rule: its one keyword token, i32 ... bool)
        return A.ScalarTypeExpr(str(tok), self.tok_span(tok))

    # ---- statements ------------------------------------------------------------

    @rule
    def block(self, span, *stmts):
        return A.Block(tuple(stmts), span)

    @rule
    def let_stmt(self, span, kw, name, type_, value):
        return A.Let(kw == "var", self.ident(name), type_, value, span)

    @rule
    def assign_stmt(self, span, target, op, value):
        return A.Assign(target, str(op), value, span)

    @rule
    def expr_stmt(self, span, expr):
        return A.ExprStmt(expr, span)

    @rule
    def if_stmt(self, span, cond, then, orelse):
        return A.If(cond, then, orelse, span)

    @rule
    def else_clause(self, span, body):
        return body

    @rule
    def while_stmt(self, span, cond, body):
        return A.While(cond, body, span)

    @rule
    def for_stmt(self, span, var, start, *rest):
        # `[".." expr [for_step]]`: the stop and step, or where the group is absent a placeholder
        # for each of its three items (the `..` too)
        stop, step, body = rest[-3:]
        if stop is None:            # for v in q { }
            return A.ForEach(self.ident(var), _as_place(start), body, span)
        return A.For(self.ident(var), start, stop, step, body, span)

    @rule
    def for_step(self, span, expr):
        return expr

    @rule
    def break_stmt(self, span):
        return A.Break(span)

    @rule
    def continue_stmt(self, span):
        return A.Continue(span)

    @rule
    def return_stmt(self, span, value):
        return A.Return(value, span)

    @rule
    def shared_decl(self, span, name, elem, dims):
        return A.SharedDecl(self.ident(name), elem, dims, span)

    @rule
    def prim_decl(self, span, kind, name, dims, args, elem, placement, gran, impl):
        positional, kwargs = self.split_args(args)
        granularity = A.Ident(str(gran)[1:], self.tok_span(gran))
        return A.PrimDecl(str(kind), self.ident(name), dims or (), positional, kwargs, elem, str(placement),
                          granularity, impl, span)

    @rule
    def slot_type(self, span, type_):
        return type_

    @rule
    def prim_args(self, span, args):
        return args or ()

    @rule
    def impl_clause(self, span, name, args):
        positional, kwargs = self.split_args(args)
        return A.ImplRef(self.ident(name), positional, kwargs, span)

    @rule
    def critical_stmt(self, span, place, body):
        return A.Critical(place, body, span)

    @rule
    def acquire_stmt(self, span, place, permits, body):
        return A.Acquire(place, body, span, permits)

    @rule
    def rw_stmt(self, span, mode, place, body):
        return A.RwSection(str(mode), place, body, span)

    @rule
    def when_stmt(self, span, *parts):
        *bindings, body = parts
        return A.When(tuple(bindings), body, span)

    @rule
    def tryget_stmt(self, span, name, place, body, *orelse):
        # (an absent `[else block]` gives a placeholder per part)
        return A.TryGet(self.ident(name), place, body, next((b for b in orelse if b is not None), None), span)

    @rule
    def when_binding(self, span, name, place):
        return A.WhenBinding(self.ident(name), place, span)

    @rule
    def place(self, span, name, *indices):
        return A.Place(self.ident(name), tuple(indices), span)

    @rule
    def permits(self, span, count):
        return count

    @rule
    def barrier_stmt(self, span):
        return A.BarrierStmt(span)

    @rule
    def fence_stmt(self, span, scope):
        return A.Fence(self.ident(scope), span)

    @rule
    def prim_op_stmt(self, span, op, place, permits):
        return A.PrimOp(str(op), place, span, permits)

    @rule
    def put_stmt(self, span, place, value):
        return A.Put(place, value, span)

    @rule
    def put_range_stmt(self, span, place, source, lo, hi):
        return A.Put(place, source, span, (lo, hi))

    @rule
    def launch_stmt(self, span, name, args, *shape):
        positional, kwargs = self.split_args(args)
        return A.Launch(self.ident(name), positional, kwargs, tuple(shape), span)

    @rule
    def check_stmt(self, span, cond, message):
        return A.Check(cond, message, span)

    @rule
    def check_msg(self, span, message):
        return self.string(message)

    @rule
    def print_stmt(self, span, *items):
        return A.Print(tuple(items), span)

    @rule
    def save_stmt(self, span, value, path):
        return A.Save(value, self.string(path), span)

    # ---- expressions -------------------------------------------------------------

    @rule
    def binary(self, span, left, op, right):
        return A.Binary(str(op), left, right, span)

    @rule
    def unary(self, span, op, operand):
        return A.Unary(str(op), operand, span)

    @rule
    def get_expr(self, span, place):
        return A.Get(place, span)

    @rule
    def tile_expr(self, span, place):
        return A.Tile(place, span)

    @rule
    def scan_expr(self, span, side, place, value):
        return A.Scan(place, value, str(side) == "inclusive", span)

    @rule
    def trylock_expr(self, span, place):
        return A.TryLock(place, span)

    @rule
    def tryput_expr(self, span, place, value):
        return A.TryPut(place, value, span)

    @rule
    def trywait_expr(self, span, place, permits, *attempts):
        # (an absent `[permits]` or `[for n]` gives a placeholder per part)
        return A.TryWait(place, next((a for a in attempts if a is not None), None), span, permits=permits)

    @rule
    def trywait_time_expr(self, span, place, permits, bound, unit):
        return A.TryWait(place, bound, span, self.ident(unit), permits)

    @rule
    def index(self, span, base, idx):
        return A.Index(base, idx, span)

    @rule
    def field(self, span, base, name):
        return A.Field(base, self.ident(name), span)

    @rule
    def call(self, span, func, args):
        positional, kwargs = self.split_args(args)
        return A.Call(func, positional, kwargs, span)

    @rule
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

    @rule
    def float_lit(self, span, tok):
        text = str(tok)
        digits = text.replace("_", "")
        mantissa, _, exponent = digits.lower().partition("e")
        if exponent and abs(int(exponent)) > 400:
            raise BadLiteral(span, f"floating-point literal `{_clip(text)}` is out of range even for f64")
        return A.FloatLit(Fraction(mantissa) * Fraction(10) ** int(exponent or 0), text, span)

    @rule
    def true_lit(self, span):
        return A.BoolLit(True, span)

    @rule
    def false_lit(self, span):
        return A.BoolLit(False, span)

    @rule
    def str_lit(self, span, tok):
        return self.string(tok)

    def string(self, tok: Token) -> A.StrLit:
        span = self.tok_span(tok)
        try:
            return A.StrLit(_unescape(str(tok)[1:-1]), span)
        except _BadEscape as e:
            at = span.start + 1 + e.offset   # (a string token is on one line)
            raise BadLiteral(Span(self.path, at, at + 2, span.line, span.col + 1 + e.offset, span.line,
                                  span.col + 3 + e.offset),
                             f"unknown escape `\\{e.char}` in a string") from None

    @rule
    def name(self, span, tok):
        return A.Name(str(tok), span)

    @rule
    def type_ref(self, span, type_):
        return A.TypeRef(type_.name, span)

    @rule
    def list_lit(self, span, args):
        positional, kwargs = self.split_args(args)
        return A.ListLit(positional + tuple(k.value for k in kwargs), span)

    @rule
    def args(self, span, *items):
        return tuple(items)

    @rule
    def kwarg(self, span, name, value):
        return A.KwArg(self.ident(name), value, span)

    binding_kw = assign_op = prim_kind = prim_op = rw_mode = scan_side = space = word
    or_op = and_op = cmp_op = bor_op = bxor_op = band_op = shift_op = add_op = mul_op = unary_op = word

    @rule
    def atom(self, span, expr):
        """`( expr )`: the parentheses only group; the node's span takes them in."""
        return dataclasses.replace(expr, span=span)


def _clip(text: str, limit: int = 24) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"'}


class _BadEscape(Exception):
    def __init__(self, offset: int, char: str):
        super().__init__(char)
        self.offset, self.char = offset, char


def _unescape(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            if body[i + 1] not in _ESCAPES:
                raise _BadEscape(i, body[i + 1])
            out.append(_ESCAPES[body[i + 1]])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _as_place(e):
    """`q` or `q[i][j]` as the Place of a queue; any other expression as it is."""
    whole, indices = e, []
    while isinstance(e, A.Index):
        indices.append(e.index)
        e = e.base
    if not isinstance(e, A.Name):
        return whole
    return A.Place(A.Ident(e.id, e.span), tuple(reversed(indices)), whole.span)
