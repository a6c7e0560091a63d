"""Lowering: a checked program → the sync IR, one kernel at a time.

Expressions become three-address instructions on typed registers; `if`,
`while`, `for`, `&&` and `||` become branches; functions are inlined; array
subscripts become row-major linear indices; built-in values (`tid`, `lane`,
...) are computed once in the entry block. The program has been checked:
lowering assumes it is well typed and reports nothing but choices (remarks).

A kernel's lowering is three parts sharing one LoweringContext (context.py): statements
(stmts.py), expressions (expr.py) and synchronization (sync.py, with queue declarations in
queue.py), each dispatching on node classes through a HandlerTable.
"""
from __future__ import annotations

from ...frontend.symbols import CheckedModule, KernelInfo
from ..analysis.launches import launch_shapes
from ..context import PassContext
from ..impls.queue.choose import queue_choices
from ..nodes import Kernel, Module
from . import expr, stmts, sync
from .context import LoweringContext


def lower_program(checked: CheckedModule, ctx: PassContext) -> Module:
    modules = checked.with_imports()
    types, refs = {}, {}
    for m in modules:
        types.update(m.types)
        refs.update(m.refs)
    shapes = launch_shapes(checked)
    kernels = tuple(_lower_kernel(checked, info, types, refs, ctx, shapes.get(name, []))
                    for name, info in checked.kernels.items())
    return Module(kernels, checked.path)


def _lower_kernel(checked, info, types, refs, ctx: PassContext, shapes) -> Kernel:
    """The kernel lowered; again where the cost model, seeing the first lowering, prefers another
    implementation for a queue (impls/queue/choose.py). The first lowering's remarks are dropped."""
    mark = len(ctx.remarks)
    lowering = KernelLowering(checked, info, types, refs, ctx)
    k = lowering.run()
    prefer = queue_choices(k, lowering.cx.sync.queue_candidates, ctx, shapes)
    if not prefer:
        return k
    del ctx.remarks[mark:]
    return KernelLowering(checked, info, types, refs, ctx, prefer).run()


class KernelLowering:
    def __init__(self, checked: CheckedModule, info: KernelInfo, types: dict, refs: dict, ctx: PassContext,
                 preferred: dict | None = None):
        cx = self.cx = LoweringContext(checked, info, types, refs, ctx)
        cx.stmts = stmts.StatementLowering(cx)
        cx.exprs = expr.ExpressionLowering(cx)
        cx.sync = sync.SyncLowering(cx, preferred)
        cx.statement_handlers = stmts.statements.bind(cx.stmts) | sync.statements.bind(cx.sync)
        cx.expression_handlers = expr.expressions.bind(cx.exprs) | sync.expressions.bind(cx.sync)

    def run(self) -> Kernel:
        cx, b = self.cx, self.cx.b
        for prim in cx.info.prims:
            if prim.top_level:          # a top-level declaration this kernel uses: its own instance
                cx.sync.prim_decl(prim.decl)
        cx.stmts.block(cx.info.decl.body)
        if b.open:
            b.ret(cx.info.decl.body.span.last_char())
        b.drop_unreachable()
        return b.freeze()
