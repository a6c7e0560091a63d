"""The checker: names, types, constants and the rules of the language.

    module = Checker(program, path, sink, catalogue, loader, defines).run()

It walks the AST once, reporting every problem it finds to the sink, and
returns a CheckedModule: the AST plus each expression's type, each name's
symbol, constant values, and per-kernel information (launch shape, primitives
with their granularity, placement and implementation) for the lowering.

The rules are separate objects sharing one CheckContext (check_context.py):
statements (check_stmts.py), expressions (check_expr.py), calls and built-in
functions (check_calls.py), definitions: constants and functions
(check_defs.py), primitives (check_prims.py) and the host block
(check_host.py). Each dispatches on node classes through a HandlerTable
(syncc/core/handlers.py); this file declares the items and checks kernels
and the host block.
"""
from __future__ import annotations

from ..core.diagnostics import Diagnostic, DiagnosticSink, Note, Severity, did_you_mean
from ..core.handlers import HandlerTable
from . import ast as A
from . import check_calls, check_defs, check_expr, check_host, check_prims, check_stmts
from .catalogue import Implementation
from .check_scan import ScanRules
from .check_context import CheckContext
from .consts import kernel_constants
from .symbols import CheckedModule, ConstInfo, Position, FnInfo, KernelInfo, Scope, Symbol
from ..core.configs import MAX_CONFIGURATIONS, Supported, ValueSet
from ..core.records import layout
from ..core.types import ERROR, ArrayType, DType, ScalarType

declarations = HandlerTable()    # top-level item class → how it is declared


class Checker:
    def __init__(self, program: A.Program, path: str, sink: DiagnosticSink,
                 catalogue: dict[str, dict[str, Implementation]], loader=None,
                 defines: dict[str, tuple[int | bool, str]] | None = None, is_module: bool = False,
                 vending: bool = False):
        cx = self.cx = CheckContext(program, path, sink, catalogue, loader, defines or {}, is_module)
        # a library's own file, checked on its own or with its vended operations' kernels: its
        # primitives are vended to C++ callers, not shared by kernels of this program
        cx.library = vending or not is_module and not any(isinstance(i, (A.Kernel, A.Host)) for i in program.items)
        cx.stmts = check_stmts.StatementRules(cx)
        cx.exprs = check_expr.ExpressionRules(cx)
        cx.calls = check_calls.CallRules(cx)
        cx.defs = check_defs.DefinitionRules(cx)
        cx.prims = check_prims.PrimitiveRules(cx)
        cx.host = check_host.HostRules(cx)
        cx.statement_handlers = (check_stmts.statements.bind(cx.stmts) | check_prims.statements.bind(cx.prims)
                                 | check_host.statements.bind(cx.host))
        cx.expression_handlers = check_expr.expressions.bind(cx.exprs) | check_calls.expressions.bind(cx.calls)
        self.declarations = declarations.bind(self)

    # ---- the program ---------------------------------------------------------------

    def run(self) -> CheckedModule:
        items = self.cx.program.items
        for item in items:
            self.declare_item(item)
        self.apply_defines()
        self.cx.defs.check_definitions()
        for item in items:
            if isinstance(item, A.PrimDecl):      # before the kernels, which may use them
                self.cx.prims.prim_decl(item, Position("top", self.cx.scope, top_level=True))
        for item in items:
            if isinstance(item, A.Kernel):
                self.check_kernel(item)
            elif isinstance(item, A.Host):
                self.check_host(item)
        return self.cx.module

    def declare_item(self, item) -> None:
        declare = self.declarations.get(type(item))
        if declare is not None:      # (primitives are declared after the definitions are checked)
            declare(item)

    @declarations.on(A.Import)
    def declare_import(self, item: A.Import) -> None:
        module = self.cx.loader.load(item) if self.cx.loader is not None else None
        if module is not None:
            self.cx.module.imports[item.dotted] = module
        # A failed import is declared too (info None), so its uses add no errors of their own.
        self.cx.declare(self.cx.scope, Symbol(item.bound_name.text, "module", None, item, info=module))

    @declarations.on(A.Const)
    def declare_const(self, item: A.Const) -> None:
        info = ConstInfo(item)
        self.cx.declare(self.cx.scope, Symbol(item.name.text, "const", None, item, info=info))
        self.cx.module.consts.setdefault(item.name.text, info)

    @declarations.on(A.Fn)
    def declare_fn(self, item: A.Fn) -> None:
        info = FnInfo(item)
        self.cx.declare(self.cx.scope, Symbol(item.name.text, "fn", None, item, info=info))
        self.cx.module.fns.setdefault(item.name.text, info)

    @declarations.on(A.Kernel)
    def declare_kernel(self, item: A.Kernel) -> None:
        m = self.cx.module
        if m.is_module:
            self.cx.error("E0108", "a stdlib module holds constants, functions and primitive declarations, not kernels",
                          item.name.span)
        info = KernelInfo(item)
        self.cx.declare(self.cx.scope, Symbol(item.name.text, "kernel", None, item, info=info))
        m.kernels.setdefault(item.name.text, info)

    @declarations.on(A.StructDecl)
    def declare_struct(self, item: A.StructDecl) -> None:
        """A record type: its fields' names once each (E0212), laid out by core/records.py."""
        fields, seen = [], {}
        for f in item.fields:
            if f.name.text in seen:
                self.cx.error("E0212", f"`{item.name.text}` has two fields named `{f.name.text}`", f.name.span,
                              notes=[Note("the first one is here", seen[f.name.text])])
                continue
            seen[f.name.text] = f.name.span
            fields.append((f.name.text, self.cx.scalar_of(f.type.name)))
        if not item.fields:
            self.cx.error("E0212", f"`{item.name.text}` has no fields", item.span,
                          help="a record holds at least one scalar field: `struct NAME { field: i32 }`")
        record = layout(item.name.text, fields)
        self.cx.declare(self.cx.scope, Symbol(item.name.text, "struct", DType(record), item, info=record))
        self.cx.module.records.setdefault(item.name.text, record)

    @declarations.on(A.Host)
    def declare_host(self, item: A.Host) -> None:
        m = self.cx.module
        if m.is_module:
            self.cx.error("E0108", "a stdlib module holds constants, functions and primitive declarations, not a host block",
                          item.span)
        elif m.host is not None:
            self.cx.error("E0109", "a program has one host block", item.span,
                          notes=[Note("the first one is here", m.host.span)])
        else:
            m.host = item

    def apply_defines(self) -> None:
        for name, (value, text) in self.cx.defines.items():
            sym = self.cx.scope.names.get(name)
            if sym is None or sym.kind != "const":
                consts = [n for n, s in self.cx.scope.names.items() if s.kind == "const"]
                self.cx.sink.add(Diagnostic(Severity.WARNING, "W0101", f"`-D {text}` matches no constant in this file",
                                            None, help=did_you_mean(name, consts),
                                            file=self.cx.module.path))
                continue
            sym.info.defined_by = f"-D {text}"
            sym.info.value = value

    # ---- kernels and host ------------------------------------------------------------------

    def check_kernel(self, k: A.Kernel) -> None:
        sym = self.cx.scope.names.get(k.name.text)
        info: KernelInfo = sym.info if sym is not None and sym.decl is k else KernelInfo(k)
        scope = Scope(self.cx.scope)
        const_pos = Position("const", self.cx.scope, params=tuple(p.name.text for p in k.params))
        sizes = {p.name.text: p for p in k.params if isinstance(p.type, A.ScalarTypeExpr) and
                 self.cx.scalar_of(p.type.name).is_int}
        for p in k.params:
            if isinstance(p.type, A.ArrayTypeExpr):
                if p.type.space != "global":
                    self.cx.error("E0605", "kernel arrays come from the host and live in global memory",
                                  p.type.span, help="write `global` here; declare shared arrays in the body")
                dims = self.cx.exprs.param_dims(p.type.dims, const_pos, sizes)
                elem = self.cx.elem_of(p.type.elem)
                t = ArrayType(elem, dims, "global") if dims is not None and elem is not ERROR else ERROR
            elif isinstance(p.type, A.RecordTypeExpr):
                t = self.cx.elem_of(p.type)
                if t is not ERROR:
                    self.cx.error("E0214", f"a kernel parameter is a scalar or an array, not a `{t.name}` record",
                                  p.type.span, help=f"pass the record in an array: `{p.name.text}: global "
                                                    f"{t.name}[1]`, read as `{p.name.text}[0]`")
                    t = ERROR
            else:
                t = self.cx.scalar_of(p.type.name)
            info.params.append((p.name.text, t))
            self.cx.declare(scope, Symbol(p.name.text, "param", t, p))
        shape = self.cx.host.launch_shape(k.launch, const_pos)
        info.grid, info.block = shape.get("grid"), shape.get("block")
        declared = tuple((n, vs) for n, p in enumerate(k.params) if p.values is not None
                         for vs in [self.declared_values(p, info.params[n][1], const_pos)] if vs is not None)
        if declared or "grid ranges" in shape:
            info.supports = Supported(shape.get("grid ranges"), declared)
        if k.launch and info.block is None and "block" not in {d.name.text for d in k.launch}:
            self.cx.error("E0603", "a launch shape needs `block(...)`", k.launch[0].span)
        pos = Position("kernel", scope, kernel=info, top_level=True)
        self.cx.stmts.block(k.body, pos, new_scope=False)
        if any(p.kind == "scan" for p in info.prims):        # (the walk costs a kernel without scans nothing)
            ScanRules(self.cx).check_kernel(k)
        if info.supports is not None:
            self.check_supported(info)

    def check_supported(self, info: KernelInfo) -> None:
        """The configurations a kernel declares must be few enough for the analyses to cover."""
        refs = self.cx.module.refs
        block = info.block or (1024, 1, 1)
        if info.supports.covering(kernel_constants(info.decl, refs), block[0] * block[1] * block[2]) is None:
            k = info.decl
            self.cx.error("E0606", f"`{k.name.text}` declares {info.supports.count} configurations, and the "
                                   f"analyses would need more than {MAX_CONFIGURATIONS} of them to cover these ranges",
                          k.launch[0].span if k.launch else k.name.span,
                          help="declare fewer: narrow a range, or list the values (`n: i32 in [256, 1024, 4096]`)")

    def declared_values(self, p: A.Param, t, pos) -> ValueSet | None:
        """`n: i32 in 1 .. 4097` or `in [1, 2, 4]`: the values the kernel supports for `n`."""
        if not (isinstance(t, ScalarType) and t.is_int):
            self.cx.error("E0606", f"only an integer scalar parameter declares the values it supports; "
                                   f"`{p.name.text}` is {t}", p.values.span)
            return None
        lo_type, hi_type = t.range
        if isinstance(p.values, A.Between):
            ends = self.cx.host.declared_ends(p.values, pos)
            if ends is None:
                return None
            lo, hi = ends
            if lo < lo_type or hi - 1 > hi_type:
                self.cx.error("E0606", f"{lo} .. {hi} is not within {t}'s values", p.values.span)
                return None
            return ValueSet.between(lo, hi)
        values = [self.cx.exprs.int_constant(e, pos, "a supported value") for e in p.values.items]
        if any(v is None for v in values) or not values:
            return None
        for e, v in zip(p.values.items, values):
            if not lo_type <= v <= hi_type:
                self.cx.error("E0606", f"{v} is not a value of {t}", e.span)
                return None
        return ValueSet.of(values)

    def check_host(self, h: A.Host) -> None:
        self.cx.stmts.block(h.body, Position("host", Scope(self.cx.scope)), new_scope=False)
