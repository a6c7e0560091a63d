"""Reading the IR's text form (printer.py) back into nodes, for golden pass tests.

    module = parse_ir(text)

Register types come from their definitions (`%x: i32 = ...`) and from the
kernel's parameters; a use may come before its definition in block order.
"""
from __future__ import annotations

from pathlib import Path

from lark import Lark, Transformer, v_args

from ..core import floats
from ..core.records import layout
from ..core.types import SCALARS
from ..core.source import Span
from .nodes import Array, Block, Branch, Imm, Instr, Jump, Kernel, Module, Prim, Ref, Reg, Return

_parser: Lark | None = None


class IRSyntaxError(ValueError):
    def __init__(self, message: str, line: int = 0, col: int = 0):
        super().__init__(message)
        self.line, self.col = line, col


def _lark() -> Lark:
    global _parser
    if _parser is None:
        _parser = Lark(Path(__file__).with_name("ir.lark").read_text(), parser="lalr", maybe_placeholders=True,
                       cache=True)
    return _parser


def parse_ir(text: str) -> Module:
    from lark.exceptions import UnexpectedInput, VisitError
    try:
        tree = _lark().parse(text if text.endswith("\n") else text + "\n")
    except UnexpectedInput as e:
        token = getattr(e, "token", None)
        found = token.value if token is not None else getattr(e, "char", None)
        raise IRSyntaxError(f"unexpected `{found}` in the IR text" if found else "malformed IR text",
                            e.line, e.column) from None
    try:
        return _Build().transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, IRSyntaxError):
            raise e.orig_exc from None
        raise


def _type(name: str):
    if name not in SCALARS:
        raise IRSyntaxError(f"unknown type `{name}`")
    return SCALARS[name]


class _PendingReg:
    """A register named in an operand, typed once the kernel's definitions are known."""
    __slots__ = ("name", "line", "col")

    def __init__(self, name: str, line: int = 0, col: int = 0):
        self.name, self.line, self.col = name, line, col


@v_args(inline=True)
class _Build(Transformer):
    source = None

    def __init__(self):
        super().__init__()
        self.records = {}          # the module's record types, by name (its `record` lines)

    def _elem(self, name: str):
        """An array's element type: a scalar, or a record declared above."""
        return self.records[name] if name in self.records else _type(name)

    def start(self, header, *items):
        return Module(tuple(i for i in items if isinstance(i, Kernel)), header)

    def record_decl(self, name, *parts):
        """`record Entry { key: u32, ... }`: a record type the kernels below may name."""
        names, types = parts[0::2], parts[1::2]
        self.records[str(name)] = layout(str(name), [(str(n), _type(str(t))) for n, t in zip(names, types)])
        return None

    def module_header(self, s):
        self.source = str(s)[1:-1]
        return self.source

    # ---- declarations
    def scalar_param(self, reg, type_):
        return Reg(str(reg)[1:], _type(str(type_)))

    def array_param(self, name, elem, dims):
        return Array(str(name)[1:], "global", self._elem(str(elem)), dims, "param")

    def coresident(self):
        return "coresident", True

    def shape(self, name, *ints):
        values = tuple(int(i) for i in ints)
        return str(name), values + (1,) * (3 - len(values))

    def dims(self, *items):
        return tuple(int(i) if str(i).isdigit() else str(i) for i in items)

    def elem(self, name):
        """A channel's slot type: a scalar, or a record declared above."""
        return self._elem(str(name))

    def placement(self, tok):
        return str(tok)

    def primkind(self, tok):
        return str(tok)

    def attr(self, key, value):
        return str(key)[:-1], value

    def word(self, name):
        return str(name)

    def number(self, n):
        return int(n)

    def numbers(self, *ns):
        return tuple(int(n) for n in ns if n is not None)

    def call(self, name, *kv):
        pairs = tuple((str(kv[i])[:-1], int(kv[i + 1])) for i in range(0, len(kv), 2))
        return str(name), pairs

    def prim_decl(self, kind, name, dims, elem, placement, gran, *attrs):
        attrs = dict(attrs)
        impl = attrs.pop("impl", None)
        params = ()
        if isinstance(impl, tuple):
            impl, params = impl
        count = attrs.pop("count", None)
        return Prim(str(name)[1:], str(kind), dims or (), placement, str(gran), impl, params, elem, count,
                    tuple(attrs.items()))

    def shared_decl(self, name, elem, dims, *attrs):
        a = dict(attrs)
        return Array(str(name)[1:], "shared", self._elem(str(elem)), dims, "data", a.get("init"), a.get("per"),
                     a.get("offset"))

    def state_decl(self, name, elem, dims, placement, *attrs):
        a = dict(attrs)
        return Array(str(name)[1:], placement, self._elem(str(elem)), dims, "state", a.get("init"), a.get("per"),
                     a.get("offset"))

    # ---- code
    def params(self, *ps):
        return list(ps)

    def shapes(self, *ss):
        return dict(ss)

    def decls(self, *ds):
        return list(ds)

    def blocks(self, *bs):
        return list(bs)

    def kernel(self, name, params, shapes, decls, blocks):
        types = {r.name: r.type for r in params if isinstance(r, Reg)}
        for _, instrs, _ in blocks:
            for dests, *_ in instrs:
                for d in dests:
                    if types.setdefault(d.name, d.type) != d.type:
                        raise IRSyntaxError(f"%{d.name} is defined with two types")
        built = tuple(Block(label, tuple(self._instr(i, types) for i in instrs), self._term(term, types))
                      for label, instrs, term in blocks)
        return Kernel(str(name)[1:], tuple(params), tuple(d for d in decls if isinstance(d, Array)),
                      tuple(d for d in decls if isinstance(d, Prim)), shapes.get("grid"), shapes.get("block"),
                      built, None, shapes.get("coresident", False))

    def block(self, label, *items):
        *instrs, term = items
        return str(label)[:-1], list(instrs), term

    def dest(self, reg, type_):
        return Reg(str(reg)[1:], _type(str(type_)))

    def dests(self, *ds):
        return tuple(ds)

    def operands(self, *os):
        return list(os)

    def attrs(self, *attrs):
        return list(attrs)

    def instr(self, dests, op, bare, operands, attrs, loc):
        return (dests or (), op, None if bare is None else str(bare), operands or [], attrs, loc)

    def _instr(self, raw, types) -> Instr:
        from .ops import OPS
        dests, token, bare, args, attrs, loc = raw
        op = str(token)
        if op not in OPS:
            raise IRSyntaxError(f"unknown operation `{op}`", token.line, token.column)
        if bare is not None:
            attrs = [(OPS[op].bare, bare)] + attrs
        return Instr(op, dests, tuple(self._operand(a, types) for a in args), tuple(attrs), self._loc(loc))

    def _operand(self, a, types):
        if isinstance(a, _PendingReg):
            if a.name not in types:
                raise IRSyntaxError(f"%{a.name} is used but never defined", a.line, a.col)
            return Reg(a.name, types[a.name])
        if isinstance(a, tuple) and a[0] == "ref":
            return Ref(a[1], self._operand(a[2], types), a[3])
        return a

    def _term(self, raw, types):
        kind, *rest = raw
        loc = self._loc(rest[-1])
        if kind == "jmp":
            return Jump(rest[0], loc)
        if kind == "br":
            return Branch(self._operand(rest[0], types), rest[1], rest[2], loc)
        return Return(loc)

    def _loc(self, tok):
        if tok is None:
            return None
        line, col = (int(x) for x in str(tok)[1:].split(":"))
        return Span(self.source or "<ir>", 0, 0, line, col, line, col)

    def reg(self, tok):
        return _PendingReg(str(tok)[1:], tok.line, tok.column)

    def ref(self, name, index, field=None):
        return ("ref", str(name)[1:], index, None if field is None else str(field))

    def imm(self, value, type_):
        t = _type(str(type_))
        if t.is_float:
            return Imm(floats.to_type(int(value), t), t)
        return Imm(t.wrap(int(value)), t)

    def fimm(self, value, type_):
        t = _type(str(type_))
        if not t.is_float:
            raise IRSyntaxError(f"{value}:{t}: a float immediate needs a float type", value.line, value.column)
        return Imm(floats.to_type(float(str(value)), t), t)

    def true(self):
        from ..core.types import BOOL
        return Imm(True, BOOL)

    def false(self):
        from ..core.types import BOOL
        return Imm(False, BOOL)

    def jump(self, label, loc):
        return ("jmp", str(label), loc)

    def branch(self, cond, t, f, loc):
        return ("br", cond, str(t), str(f), loc)

    def ret(self, loc):
        return ("ret", loc)
