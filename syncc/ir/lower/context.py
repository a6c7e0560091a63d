"""What the parts of a kernel's lowering share: the checked program, the kernel builder, the
registers of names, the enclosing loops and inlined calls, and the parts themselves.

Each part (statements, expressions, synchronization) is an object holding this context as `cx`;
it reaches another part through it (`self.cx.exprs.expr(e, t)`). `vars`, `loops` and `returns`
are replaced while a function is inlined, so the parts always read them here.
"""
from __future__ import annotations

from typing import Callable

from ...core.types import BOOL, F64, FLOAT_LIT, I32, INT_LIT, SCALARS, ArrayType, ScalarType
from ...frontend.symbols import CheckedModule, KernelInfo, Symbol
from ..builder import KernelBuilder
from ..context import PassContext
from ..nodes import Array, Reg
from ..specials import Specials


class LoweringError(Exception):
    """Lowering met something the checker should have refused (a bug in syncc)."""


class LoweringContext:
    def __init__(self, checked: CheckedModule, info: KernelInfo, types: dict, refs: dict, ctx: PassContext):
        self.checked, self.info, self.types, self.refs, self.ctx = checked, info, types, refs, ctx
        k = info.decl
        params = []
        self.vars: dict = {}          # declaring node (Let, Param, For, WhenBinding) → register
        self.arrays: dict = {}        # declaring node (Param, SharedDecl) → array name
        self.b = KernelBuilder(k.name.text, grid=info.grid, block=info.block, span=k.span)
        scalars = {}
        for p, (name, t) in zip(k.params, info.params):      # (first: an array's size may name one)
            if not isinstance(t, ArrayType):
                scalars[name] = self.vars[p] = Reg(self.b.fresh(name), t)
        for p, (name, t) in zip(k.params, info.params):
            if isinstance(t, ArrayType):
                dims = tuple(scalars[d].name if isinstance(d, str) else d for d in t.dims)
                params.append(Array(name, "global", t.elem, dims, "param"))
                self.arrays[p] = name
            else:
                params.append(scalars[name])
        self.b.params = params
        self.sizes = scalars            # a scalar parameter's source name → its register (array sizes)
        self.loops: list[tuple[str, str]] = []          # (break to, continue to)
        self.returns: list[tuple[str, Reg | None]] = []  # inlined functions: (exit block, result)
        self.entry = self.b.new_block("entry")
        self.specials = Specials(self.b, self.entry, info.block)
        body = self.b.new_block("body")
        self.b.at(self.entry)
        self.b.jump(body)
        self.b.at(body)
        # The parts, set by KernelLowering once all exist (they call one another).
        self.stmts = self.exprs = self.sync = None
        self.statement_handlers: dict[type, Callable] = {}    # statement class → handler, of every part
        self.expression_handlers: dict[type, Callable] = {}   # expression class → handler, of every part

    # ---- names and built-in values ---------------------------------------------------

    def symbol(self, e) -> Symbol:
        sym = self.refs.get(e)
        if sym is None:
            raise LoweringError(f"unresolved name at {e.span.line}:{e.span.col}")
        return sym

    def builtin(self, name: str):
        """`tid`, `tid.x`, `lane`, `warp`, ...: computed once, in the entry block (specials.py)."""
        return self.specials.get(name)

    def type_of(self, e, want: ScalarType | None = None) -> ScalarType:
        t = self.types.get(e)
        if t is INT_LIT or t is FLOAT_LIT or t is None:
            if isinstance(want, ScalarType) and want != BOOL:
                return want
            return F64 if t is FLOAT_LIT else I32
        return t

    def scalar_of(self, name):
        return SCALARS[name]
