"""The checker: names, types, constants and the rules of the language.

    module = Checker(program, path, sink, catalogue, loader, defines).run()

It walks the AST once, reporting every problem it finds to the sink, and
returns a CheckedModule: the AST plus each expression's type, each name's
symbol, constant values, and per-kernel information (launch shape, primitives
with their granularity, placement and implementation) for the lowering.

Definitions (constants, functions) are in check_defs.py, expressions in
check_expr.py, primitives in check_prims.py and the host block in
check_host.py; this file holds items, scopes and statements.
"""
from __future__ import annotations

from ..core.diagnostics import Diagnostic, DiagnosticSink, Note, Severity, did_you_mean
from . import ast as A
from .builtins import BUILTIN_FNS, BUILTIN_VALUES
from .check_defs import DefRules
from .check_expr import SUGGESTION_BUDGET, ExprRules
from .check_host import HostRules
from .catalogue import Implementation
from .check_prims import PrimRules
from .symbols import CheckedModule, ConstInfo, Ctx, FnInfo, KernelInfo, Scope, SharedInfo, Symbol
from ..core.types import ERROR, INT_LIT, SCALARS, ArrayType, ScalarType, is_int


def builtin_scope() -> Scope:
    scope = Scope()
    for name, fn in BUILTIN_FNS.items():
        scope.names[name] = Symbol(name, "builtin-fn", None, info=fn)
    for name, value in BUILTIN_VALUES.items():
        scope.names[name] = Symbol(name, "builtin-value", None, info=value)
    return scope


_BUILTINS = builtin_scope()
MAX_ELEMENTS = (1 << 31) - 1   # arrays are indexed with i32


class Checker(DefRules, ExprRules, PrimRules, HostRules):
    def __init__(self, program: A.Program, path: str, sink: DiagnosticSink,
                 catalogue: dict[str, dict[str, Implementation]], loader=None,
                 defines: dict[str, tuple[int | bool, str]] | None = None, is_module: bool = False):
        self.program = program
        self.sink = sink
        self.catalogue = catalogue     # kind → name → implementation (the ir registry's, from the driver)
        self.loader = loader
        self.defines = defines or {}
        self.module = CheckedModule(path, program, is_module)
        self.types = self.module.types
        self.refs = self.module.refs
        self.scope = Scope(_BUILTINS)
        self.module.scope = self.scope
        self.reported: set = set()   # constant errors already reported (code, span)
        self.suggestion_budget = SUGGESTION_BUDGET   # see ExprRules.resolve

    # ---- reporting -------------------------------------------------------------

    def error(self, code, message, span, *, notes=(), help=None):
        self.sink.error(code, message, span, notes=notes, help=help)

    def warning(self, code, message, span, *, notes=(), help=None):
        self.sink.warning(code, message, span, notes=notes, help=help)

    def device_only(self, what: str, span, ctx: Ctx, note: Note | None = None) -> bool:
        """Mark a construct that runs only on the GPU; False (reported) in a host block.
        (In a constant it is left to constant evaluation to say what is not constant.)"""
        if ctx.where == "host":
            self.error("E0506", f"{what} runs on the GPU and cannot be used in a host block", span,
                       notes=[note] if note else ())
            return False
        if ctx.fn is not None and ctx.fn.device_use is None:
            ctx.fn.device_use, ctx.fn.device_why = span, what.split(" (")[0]
        return True

    def host_only(self, what: str, span, ctx: Ctx) -> bool:
        if ctx.where != "host":
            self.error("E0505", f"{what} belongs in a host block", span,
                       help="host blocks prepare data, launch kernels and check results")
            return False
        return True

    def kernel_only(self, what: str, span, ctx: Ctx) -> bool:
        if ctx.where != "kernel":
            place = "a host block" if ctx.where == "host" else "a function" if ctx.where == "fn" else "a constant"
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

    def dims(self, exprs, ctx: Ctx, what: str) -> tuple[int, ...] | None:
        out = []
        for e in exprs:
            v = self.int_constant(e, ctx, what)
            if v is None:
                return None
            if v <= 0:
                self.error("E0306", f"{what} must be positive, found {v}", e.span)
                return None
            out.append(v)
        total = 1
        for v in out:
            total *= v
        if total > MAX_ELEMENTS:
            self.error("E0306", f"{total} elements are too many (at most {MAX_ELEMENTS})", exprs[0].span.to(exprs[-1].span))
            return None
        return tuple(out)

    # ---- the program ---------------------------------------------------------------

    def run(self) -> CheckedModule:
        items = self.program.items
        for item in items:
            self.declare_item(item)
        self.apply_defines()
        self.check_definitions()
        for item in items:
            if isinstance(item, A.PrimDecl):      # before the kernels, which may use them
                self._PrimDecl(item, Ctx("top", self.scope, top_level=True))
        for item in items:
            if isinstance(item, A.Kernel):
                self.check_kernel(item)
            elif isinstance(item, A.Host):
                self.check_host(item)
        return self.module

    def declare_item(self, item) -> None:
        m = self.module
        if isinstance(item, A.Import):
            module = self.loader.load(item) if self.loader is not None else None
            if module is not None:
                m.imports[item.dotted] = module
            # A failed import is declared too (info None), so its uses add no errors of their own.
            self.declare(self.scope, Symbol(item.bound_name.text, "module", None, item, info=module))
        elif isinstance(item, A.Const):
            info = ConstInfo(item)
            self.declare(self.scope, Symbol(item.name.text, "const", None, item, info=info))
            m.consts.setdefault(item.name.text, info)
        elif isinstance(item, A.Fn):
            info = FnInfo(item)
            self.declare(self.scope, Symbol(item.name.text, "fn", None, item, info=info))
            m.fns.setdefault(item.name.text, info)
        elif isinstance(item, A.Kernel):
            if m.is_module:
                self.error("E0108", "a stdlib module holds constants, functions and primitive declarations, not kernels", item.name.span)
            info = KernelInfo(item)
            self.declare(self.scope, Symbol(item.name.text, "kernel", None, item, info=info))
            m.kernels.setdefault(item.name.text, info)
        elif isinstance(item, A.Host):
            if m.is_module:
                self.error("E0108", "a stdlib module holds constants, functions and primitive declarations, not a host block", item.span)
            elif m.host is not None:
                self.error("E0109", "a program has one host block", item.span,
                           notes=[Note("the first one is here", m.host.span)])
            else:
                m.host = item

    def apply_defines(self) -> None:
        for name, (value, text) in self.defines.items():
            sym = self.scope.names.get(name)
            if sym is None or sym.kind != "const":
                consts = [n for n, s in self.scope.names.items() if s.kind == "const"]
                self.sink.add(Diagnostic(Severity.WARNING, "W0101", f"`-D {text}` matches no constant in this file",
                                         None, help=did_you_mean(name, consts),
                                         file=self.module.path))
                continue
            sym.info.defined_by = f"-D {text}"
            sym.info.value = value

    # ---- kernels and host ------------------------------------------------------------------

    def check_kernel(self, k: A.Kernel) -> None:
        sym = self.scope.names.get(k.name.text)
        info: KernelInfo = sym.info if sym is not None and sym.decl is k else KernelInfo(k)
        scope = Scope(self.scope)
        const_ctx = Ctx("const", self.scope)
        for p in k.params:
            if isinstance(p.type, A.ArrayTypeExpr):
                if p.type.space != "global":
                    self.error("E0605", "kernel arrays come from the host and live in global memory",
                               p.type.span, help="write `global` here; declare shared arrays in the body")
                dims = self.dims(p.type.dims, const_ctx, "an array size")
                t = ArrayType(self.scalar_of(p.type.elem.name), dims, "global") if dims is not None else ERROR
            else:
                t = self.scalar_of(p.type.name)
            info.params.append((p.name.text, t))
            self.declare(scope, Symbol(p.name.text, "param", t, p))
        shape = self.launch_shape(k.launch, const_ctx)
        info.grid, info.block = shape.get("grid"), shape.get("block")
        if k.launch and info.block is None and "block" not in {d.name.text for d in k.launch}:
            self.error("E0603", "a launch shape needs `block(...)`", k.launch[0].span)
        ctx = Ctx("kernel", scope, kernel=info, top_level=True)
        self.block(k.body, ctx, new_scope=False)

    def check_host(self, h: A.Host) -> None:
        self.block(h.body, Ctx("host", Scope(self.scope)), new_scope=False)

    # ---- statements ----------------------------------------------------------------------

    def block(self, b: A.Block, ctx: Ctx, new_scope: bool = True) -> None:
        inner = ctx.child() if new_scope else ctx
        for s in b.stmts:
            getattr(self, "_" + type(s).__name__)(s, inner)

    def _Let(self, s: A.Let, ctx):
        if isinstance(s.value, A.Get):
            t = self.get_value(s.value, ctx)
        else:
            t = self.expr(s.value, ctx)
        if isinstance(t, ArrayType) and ctx.where == "host" and s.type is None:
            self.declare(ctx.scope, Symbol(s.name.text, "local", t, s, mutable=s.mutable))
            return
        t = self.as_value(s.value, t)
        if s.type is not None:
            want = self.scalar_of(s.type.name)
            self.coerce(s.value, t, want, f"for `{s.name.text}`")
            t = want
        elif t is not ERROR:
            t = self.concrete(s.value, t)
        self.declare(ctx.scope, Symbol(s.name.text, "local", t, s, mutable=s.mutable))

    def _Assign(self, s: A.Assign, ctx):
        target_t = self.assign_target(s.target, ctx)
        if isinstance(s.value, A.Get):
            if s.op != "=":
                self.error("E0211", f"`get` cannot be combined with `{s.op}`", s.value.span)
            t = self.get_value(s.value, ctx)
        elif isinstance(target_t, ArrayType):
            t = self.expr(s.value, ctx)
        else:
            t = self.value(s.value, ctx)
        if target_t is ERROR or t is ERROR:
            return
        if s.op == "=":
            self.coerce(s.value, t, target_t, "in assignment")
            return
        op = s.op[:-1]
        if not is_int(target_t):
            self.error("E0201", f"`{s.op}` needs an integer target, found {target_t}", s.target.span)
        elif op in ("<<", ">>"):
            if not is_int(t):
                self.error("E0201", f"a shift amount must be an integer, found {t}", s.value.span)
        else:
            self.coerce(s.value, t, target_t, f"in `{s.op}`")

    def assign_target(self, e, ctx):
        if isinstance(e, A.Name):
            sym = self.resolve(e.id, e.span, ctx)
            if sym is None:
                return ERROR
            self.refs[e] = sym
            if sym.kind == "local" and sym.mutable:   # (host arrays too: `out = zeros(i32, 8)`)
                self.types[e] = sym.type
                return sym.type
            what = {"local": "declared with `let`", "param": "a parameter", "const": "a constant",
                    "loopvar": "a loop variable", "binding": "a value received from a channel"}.get(sym.kind)
            if sym.kind == "prim":
                return self._assign_prim(e, sym)
            self.error("E0204", f"cannot assign to `{sym.name}`" + (f": it is {what}" if what else ""), e.span,
                       notes=[Note("declared here", sym.span)] if sym.span else (),
                       help="declare it with `var` to change it" if sym.kind == "local" else None)
            return ERROR
        if isinstance(e, A.Index):
            base, _ = self.flatten_index(e)
            if isinstance(base, A.Name):
                sym = ctx.scope.lookup(base.id)
                if sym is not None and sym.kind == "prim":
                    for index in self.flatten_index(e)[1]:
                        self.expr(index, ctx)
                    return self._assign_prim(base, sym)
            t = self.expr(e, ctx)
            bt = self.types.get(base)
            if t is ERROR or isinstance(bt, ArrayType):
                return t
        else:
            self.expr(e, ctx)
        self.error("E0204", "cannot assign to this expression", e.span,
                   help="assign to a `var`, or to an element of an array")
        return ERROR

    def _assign_prim(self, e, sym):
        if sym.info.kind == "channel":
            self.error("E0411", "channel slots are written with `put`, not `=`", e.span,
                       help=f"write `put {sym.name}[...] = value`")
        else:
            self.error("E0411", f"`{sym.name}` is a {sym.info.kind}; it cannot be assigned", e.span)
        return ERROR

    def _ExprStmt(self, s: A.ExprStmt, ctx):
        if not isinstance(s.expr, A.Call):
            self.expr(s.expr, ctx)
            self.error("E0209", "this expression does nothing", s.span,
                       help="assign it (`x = ...`) or remove it")
            return
        self.expr(s.expr, ctx)

    def _If(self, s: A.If, ctx):
        self.condition(s.cond, ctx)
        self.block(s.then, ctx)
        if isinstance(s.orelse, A.Block):
            self.block(s.orelse, ctx)
        elif isinstance(s.orelse, A.If):
            self._If(s.orelse, ctx.child())

    def _While(self, s: A.While, ctx):
        self.condition(s.cond, ctx)
        self.block(s.body, ctx.child(loops=ctx.loops + 1))

    def _For(self, s: A.For, ctx):
        lo, hi = self.value(s.start, ctx), self.value(s.stop, ctx)
        t = ERROR
        if lo is not ERROR and hi is not ERROR:
            for e, et in ((s.start, lo), (s.stop, hi)):
                if not is_int(et):
                    self.error("E0201", f"a `for` range needs integers, found {et}", e.span)
            if is_int(lo) and is_int(hi):
                common = lo if hi is INT_LIT else hi if lo is INT_LIT else lo if lo == hi else None
                if common is None:
                    self.error("E0201", f"the bounds of a `for` range differ in type: {lo} and {hi}",
                               s.start.span.to(s.stop.span), help=f"convert one, e.g. `{lo}(...)`")
                else:
                    t = self.concrete(s.start, common) if common is INT_LIT else common
                    for e, et in ((s.start, lo), (s.stop, hi)):
                        if et is INT_LIT:
                            self._fits(e, t)
        if s.step is not None:
            st = self.value(s.step, ctx)
            if st is not ERROR and t is not ERROR:
                self.coerce(s.step, st, t, "for the step")
                step = self.try_fold(s.step)
                if step is not None and step <= 0:
                    self.error("E0306", f"a `for` step must be positive, found {step}", s.step.span)
        body = ctx.child(loops=ctx.loops + 1)
        self.declare(body.scope, Symbol(s.var.text, "loopvar", t, s))
        self.block(s.body, body, new_scope=False)

    def _Break(self, s, ctx):
        self._leave("break", s.span, ctx, needs_loop=True)

    def _Continue(self, s, ctx):
        self._leave("continue", s.span, ctx, needs_loop=True)

    def _leave(self, what: str, span, ctx: Ctx, needs_loop: bool) -> bool:
        if needs_loop and ctx.loops == 0:
            if ctx.region is not None:
                self.error("E0508", f"`{what}` would leave the {ctx.region} without releasing it", span,
                           help="set a flag and leave the loop after the block")
            else:
                self.error("E0501", f"`{what}` outside a loop", span)
            return False
        if not needs_loop and ctx.region is not None:
            self.error("E0508", f"`{what}` would leave the {ctx.region} without releasing it", span,
                       help="finish the block first, then return")
            return False
        return True

    def _Return(self, s: A.Return, ctx):
        if not self._leave("return", s.span, ctx, needs_loop=False):
            if s.value is not None:
                self.expr(s.value, ctx)
            return
        ret = ctx.fn.ret if ctx.fn is not None else None
        if s.value is None:
            if ret is not None:
                self.error("E0502", f"this function returns {ret}; `return` needs a value", s.span)
            return
        t = self.value(s.value, ctx)
        if ret is None:
            where = "a kernel" if ctx.where == "kernel" else "a host block" if ctx.where == "host" else \
                "a function without `-> type`"
            self.error("E0502", f"{where} returns no value", s.value.span)
        else:
            self.coerce(s.value, t, ret, "in `return`")

    def _SharedDecl(self, s: A.SharedDecl, ctx):
        if not self.kernel_only("a shared array", s.span, ctx):
            return
        if not ctx.top_level:
            self.error("E0412", f"declare the shared array `{s.name.text}` at the top level of the kernel body",
                       s.span)
        dims = self.dims(s.dims, ctx, "an array size")
        t = ArrayType(self.scalar_of(s.elem.name), dims, "shared") if dims is not None else ERROR
        if dims is not None:
            ctx.kernel.shared.append(SharedInfo(s, t))
        self.declare(ctx.scope, Symbol(s.name.text, "shared", t, s))

