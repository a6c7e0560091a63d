"""The safe IR → LLVM IR (llvmlite.ir), for the NVPTX back end.

One LLVM function per kernel, marked a kernel in `nvvm.annotations`, taking the
parameters abi.py lists. Shared arrays and shared primitive state become
`addrspace(3)` globals; global arrays are `addrspace(1)` pointers. A register
the IR assigns once is an SSA value: the verifier's definite assignment makes
that one definition dominate every use. A register assigned more than once (a
loop variable, a polling loop's `done`) becomes an `alloca` in the entry block,
which the SROA pass turns into SSA values. Arithmetic and plain loads and stores
are LLVM instructions, chosen from tables; every synchronizing operation is
inline PTX from inline_ptx.py, so its ordering and scope are exactly what
insert_fences chose. A kernel's bounds checks are each a compare and a branch to a failure path
of its own that writes the fault record ir/faults.py adds to the kernel and stalls the failing
thread there (KernelCodegen._bounds_check).
"""
from __future__ import annotations

from dataclasses import replace

from llvmlite import ir

from ...core.types import BOOL, ScalarType
from ...ir.nodes import Array, Branch, Imm, Instr, Jump, Kernel, Module, Ref, Reg, imm
from .. import inline_ptx
from ...ir.abi import (F_BLOCK, F_DONE, F_INDEX, F_SITE, F_THREAD, FAULT_CLAIM, FAULT_RECORD,
                       dynamic_shared_bytes, kernel_abi, shared_layout)
from ...ir.faults import with_fault_record

VOID = ir.VoidType()
I1, I8, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)
FLOAT, DOUBLE = ir.FloatType(), ir.DoubleType()
SPACE = {"global": 1, "shared": 3}


def value_type(t: ScalarType) -> ir.Type:
    if t.is_float:
        return FLOAT if t.bits == 32 else DOUBLE
    return I1 if t == BOOL else ir.IntType(t.bits)


def memory_type(t: ScalarType) -> ir.Type:
    """How an element is stored: a bool takes a byte, as numpy's does; a record its bytes (its fields
    are addressed at their offsets, core/records.py)."""
    if t.kind == "record":
        return ir.ArrayType(I8, t.size)
    return I8 if t == BOOL else value_type(t)


# IR operation → how to build it: (builder, operand type, *LLVM operands) → value
def _signed(t: ScalarType) -> bool:
    return t.signed


def _minmax(pred_signed, pred_unsigned):
    def build(b, t, x, y):
        return b.select(b.icmp_signed(pred_signed, x, y) if t.signed else b.icmp_unsigned(pred_unsigned, x, y), x, y)
    return build


# floats: IEEE operations rounded to nearest (LLVM's fdiv without fast-math flags is PTX's div.rn,
# correctly rounded); min and max are llvm.minnum/maxnum, PTX's min/max (a NaN operand gives the other)
FLOAT_BINARY = {
    "add": lambda b, t, x, y: b.fadd(x, y), "sub": lambda b, t, x, y: b.fsub(x, y),
    "mul": lambda b, t, x, y: b.fmul(x, y), "div": lambda b, t, x, y: b.fdiv(x, y),
}
FLOAT_INTRINSIC = {"min": "llvm.minnum", "max": "llvm.maxnum", "abs": "llvm.fabs", "sqrt": "llvm.sqrt",
                   "fma": "llvm.fma", "floor": "llvm.floor", "ceil": "llvm.ceil", "trunc": "llvm.trunc"}
# a float comparison is ordered (false when either side is NaN) except `!=`, which is true then
FLOAT_COMPARE = {"cmp.eq": ("==", True), "cmp.ne": ("!=", False), "cmp.lt": ("<", True),
                 "cmp.le": ("<=", True), "cmp.gt": (">", True), "cmp.ge": (">=", True)}

BINARY = {
    "add": lambda b, t, x, y: b.add(x, y), "sub": lambda b, t, x, y: b.sub(x, y),
    "mul": lambda b, t, x, y: b.mul(x, y),
    "div": lambda b, t, x, y: b.sdiv(x, y) if t.signed else b.udiv(x, y),
    "rem": lambda b, t, x, y: b.srem(x, y) if t.signed else b.urem(x, y),
    "and": lambda b, t, x, y: b.and_(x, y), "or": lambda b, t, x, y: b.or_(x, y),
    "xor": lambda b, t, x, y: b.xor(x, y), "shl": lambda b, t, x, y: b.shl(x, y),
    "shr": lambda b, t, x, y: b.ashr(x, y) if t.signed else b.lshr(x, y),
    "min": _minmax("<", "<"), "max": _minmax(">", ">"),
}
COMPARE = {"cmp.eq": "==", "cmp.ne": "!=", "cmp.lt": "<", "cmp.le": "<=", "cmp.gt": ">", "cmp.ge": ">="}
SREG = {"tid.x": "tid.x", "tid.y": "tid.y", "tid.z": "tid.z", "ntid.x": "ntid.x", "ntid.y": "ntid.y",
        "ntid.z": "ntid.z", "ctaid.x": "ctaid.x", "ctaid.y": "ctaid.y", "ctaid.z": "ctaid.z",
        "nctaid.x": "nctaid.x", "nctaid.y": "nctaid.y", "nctaid.z": "nctaid.z", "laneid": "laneid",
        "clock": "clock64", "globaltimer_lo": "globaltimer"}


class CodegenError(Exception):
    """The IR has something this back end cannot emit (a bug in syncc's passes)."""


def module_to_llvm(module: Module, lines: bool = False, split_fences: bool = False,
                   mbarrier: str | None = "try") -> ir.Module:
    """`lines`: attach each instruction's source line and column as debug locations, which NVPTX
    writes as `.loc` directives (for `--target sass`, which shows them beside the SASS).
    `split_fences`: the architecture has `fence.acquire` (inline_ptx.SPLIT_FENCES), so a polling
    loop's deferred acquire is one fence after the loop rather than an acquire on each poll.
    `mbarrier`: how the architecture waits on an mbarrier (inline_ptx.MBARRIER_WAIT: try, test,
    or None where it has none and two shared words stand in)."""
    out = ir.Module(name=module.source or "syncc")
    out.triple = "nvptx64-nvidia-cuda"
    annotations = out.add_named_metadata("nvvm.annotations")
    debug = DebugInfo(out, module.source or "<module>") if lines else None
    for k in module.kernels:
        fn = KernelCodegen(out, with_fault_record(k), debug, split_fences, mbarrier).run()
        annotations.add(out.add_metadata([fn, ir.MetaDataString(out, "kernel"), ir.Constant(I32, 1)]))
    return out


class DebugInfo:
    """Line tables only: a compile unit for the source file, a subprogram per kernel."""

    def __init__(self, out: ir.Module, path: str):
        import os
        self.out = out
        self.file = out.add_debug_info("DIFile", {"filename": os.path.basename(path),
                                                  "directory": os.path.dirname(os.path.abspath(path))})
        self.unit = out.add_debug_info("DICompileUnit", {
            "language": ir.DIToken("DW_LANG_C"), "file": self.file, "producer": "syncc", "isOptimized": True,
            "runtimeVersion": 0, "emissionKind": ir.DIToken("DebugDirectivesOnly")}, is_distinct=True)
        flags = out.add_named_metadata("llvm.module.flags")
        flags.add(out.add_metadata([ir.Constant(I32, 2), "Debug Info Version", ir.Constant(I32, 3)]))
        flags.add(out.add_metadata([ir.Constant(I32, 2), "Dwarf Version", ir.Constant(I32, 4)]))
        out.add_named_metadata("llvm.dbg.cu").add(self.unit)
        self.locations: dict = {}

    def subprogram(self, name: str, line: int):
        return self.out.add_debug_info("DISubprogram", {
            "name": name, "file": self.file, "line": line, "unit": self.unit, "scopeLine": line,
            "type": self.out.add_debug_info("DISubroutineType", {"types": self.out.add_metadata([])}),
            "spFlags": ir.DIToken("DISPFlagDefinition")}, is_distinct=True)

    def location(self, scope, span):
        key = (id(scope), span.line, span.col)
        if key not in self.locations:
            self.locations[key] = self.out.add_debug_info("DILocation", {"line": span.line, "column": span.col,
                                                                         "scope": scope})
        return self.locations[key]


class KernelCodegen:
    def __init__(self, out: ir.Module, k: Kernel, debug: DebugInfo | None = None, split_fences: bool = False,
                 mbarrier: str | None = "try"):
        self.out, self.k, self.debug, self.split_fences, self.mbarrier = out, k, debug, split_fences, mbarrier
        self.abi = kernel_abi(k)
        params = [self._param_type(p) for p in self.abi.params]
        self.fn = ir.Function(out, ir.FunctionType(VOID, params), name=k.name)
        self.arrays: dict[str, tuple[ir.Value, Array]] = {}
        self.slots: dict[str, ir.AllocaInstr] = {}      # registers assigned more than once
        self.ssa: dict[str, ir.Value] = {}              # registers assigned once
        self.blocks: dict[str, ir.Block] = {}
        self.intrinsics: dict[str, ir.Function] = {}
        self.read = registers_read(k)                   # an atomic whose result is not among them is a `red`

    @staticmethod
    def _param_type(p) -> ir.Type:
        if p.kind == "scalar":
            return memory_type(p.elem)
        return memory_type(p.elem).as_pointer(addrspace=1)

    # ---- the function
    def run(self) -> ir.Function:
        k = self.k
        entry = self.fn.append_basic_block("alloca")
        for b in k.blocks:
            self.blocks[b.label] = self.fn.append_basic_block(b.label)
        self.b = ir.IRBuilder(entry)
        defs: dict[str, int] = {p.name: 1 for p in k.params if isinstance(p, Reg)}
        for _, _, ins in k.instructions():
            for d in ins.dests:
                defs[d.name] = defs.get(d.name, 0) + 1
        late = read_before_defined(k)
        for _, _, ins in k.instructions():
            for d in ins.dests:
                if defs[d.name] > 1 or d.name in late:
                    self.slot(d)
        self._bind_params()
        self._shared_arrays()
        self.b.branch(self.blocks[k.blocks[0].label])
        scope = None
        if self.debug is not None:
            scope = self.debug.subprogram(k.name, k.span.line if k.span else 1)
            self.fn.set_metadata("dbg", scope)
        for blk in k.blocks:
            self.b.position_at_end(self.blocks[blk.label])
            for ins in blk.instrs:
                if scope is not None and ins.span is not None:
                    self.b.debug_metadata = self.debug.location(scope, ins.span)
                self.instr(ins)
            if scope is not None and blk.term.span is not None:
                self.b.debug_metadata = self.debug.location(scope, blk.term.span)
            self.terminator(blk.term)
        return self.fn

    def _bind_params(self) -> None:
        by_name = {p.name: p for p in self.k.params if isinstance(p, Array)}
        arrays = {a.name: a for a in self.k.arrays}
        for arg, p in zip(self.fn.args, self.abi.params):
            arg.name = p.name
            if p.kind == "scalar":
                value = arg if p.elem != BOOL else self.b.icmp_unsigned("!=", arg, ir.Constant(I8, 0))
                if p.name in self.slots:
                    self.b.store(value, self.slots[p.name])
                else:
                    self.ssa[p.name] = value
            elif p.kind == "array":
                self.arrays[p.name] = (arg, by_name[p.name])
            else:
                self.arrays[p.name] = (arg, arrays[p.name])

    def _shared_arrays(self) -> None:
        """Each shared array is a static `.shared` array, or, when together they pass 48 KB, a place
        at its offset (abi.shared_layout) in the kernel's one dynamic `.extern .shared` array."""
        offsets, _ = shared_layout(self.k)
        dynamic = None
        if dynamic_shared_bytes(self.k):
            dynamic = ir.GlobalVariable(self.out, ir.ArrayType(I8, 0), f"syncc_dynamic_shared_{self.k.name}",
                                        addrspace=3)
            dynamic.linkage = "external"
            dynamic.align = 16
        for a in self.k.arrays:
            if a.space != "shared":
                continue
            kind = ir.ArrayType(memory_type(a.elem), a.length)
            if dynamic is not None:
                place = dynamic.gep([ir.Constant(I64, 0), ir.Constant(I64, offsets[a.name])])
                self.arrays[a.name] = (place.bitcast(kind.as_pointer(3)), a)
                continue
            g = ir.GlobalVariable(self.out, kind, f"{self.k.name}.{a.name}", addrspace=3)
            g.linkage = "internal"
            g.initializer = ir.Constant(g.value_type, None)     # undef: shared memory starts undefined
            g.align = 8
            self.arrays[a.name] = (g, a)

    def slot(self, reg: Reg) -> ir.AllocaInstr:
        s = self.slots.get(reg.name)
        if s is None:
            s = self.slots[reg.name] = self.b.alloca(value_type(reg.type), name=reg.name)
        return s

    # ---- operands
    def value(self, v) -> ir.Value:
        if isinstance(v, Imm):
            return ir.Constant(value_type(v.type), v.value if v.type.is_float else int(v.value))
        if isinstance(v, Reg):
            value = self.ssa.get(v.name)
            return value if value is not None else self.b.load(self.slots[v.name])
        raise CodegenError(f"not a value operand: {v}")

    def address(self, ref: Ref) -> tuple[ir.Value, Array]:
        base, array = self.arrays[ref.name]
        index = self.value(ref.index)
        index = self.b.sext(index, I64) if index.type.width < 64 else index
        if isinstance(base.type.pointee, ir.ArrayType) and array.elem.kind != "record" or \
                isinstance(base.type.pointee, ir.ArrayType) and isinstance(base.type.pointee.element, ir.ArrayType):
            ptr = self.b.gep(base, [ir.Constant(I64, 0), index], inbounds=True)   # a shared array: element `index`
        else:
            ptr = self.b.gep(base, [index])
        if ref.field is None:
            return ptr, array
        field = array.elem.field(ref.field)               # a record's field: its bytes at the field's offset
        space = ptr.type.addrspace
        byte = self.b.gep(self.b.bitcast(ptr, I8.as_pointer(space)), [ir.Constant(I64, field.offset)], inbounds=True)
        return self.b.bitcast(byte, memory_type(field.type).as_pointer(space)), replace(array, elem=field.type)

    def define(self, ins: Instr, value: ir.Value) -> None:
        name = ins.dests[0].name
        slot = self.slots.get(name)
        if slot is None:
            self.ssa[name] = value
        else:
            self.b.store(value, slot)

    # ---- instructions
    def instr(self, ins: Instr) -> None:
        group = ins.info.group
        handler = getattr(self, "_" + ins.op.replace(".", "_"), None) or getattr(self, "_" + group, None)
        if handler is None:
            raise CodegenError(f"the PTX back end cannot emit `{ins.op}` (kernel @{self.k.name})")
        handler(ins)

    def _arith(self, ins: Instr) -> None:
        op, d = ins.op, ins.dests[0]
        args = [self.value(a) for a in ins.args]
        t = ins.args[0].type if ins.args and not isinstance(ins.args[0], Ref) else d.type
        if op == "select":
            t = d.type
        if op == "bitcast":
            self.define(ins, self.b.bitcast(args[0], value_type(d.type)))
            return
        if t.is_float and op != "cvt":
            self.define(ins, self._float_arith(op, t, args))
            return
        if op in BINARY:
            result = BINARY[op](self.b, t, *args)
        elif op in COMPARE:
            pred = COMPARE[op]
            result = self.b.icmp_signed(pred, *args) if t.signed else self.b.icmp_unsigned(pred, *args)
        elif op == "mov":
            result = args[0]
        elif op == "neg":
            result = self.b.neg(args[0])
        elif op == "not":
            result = self.b.not_(args[0])
        elif op == "abs":           # of an unsigned value: the value itself
            x = args[0]
            result = self.b.select(self.b.icmp_signed("<", x, ir.Constant(x.type, 0)), self.b.neg(x), x) \
                if t.signed else x
        elif op == "popc":
            ctpop = self.intrinsic(f"llvm.ctpop.i{args[0].type.width}", args[0].type, [args[0].type])
            result = self.resize(self.b.call(ctpop, args), d.type, ins.args[0].type)
        elif op == "cvt":
            result = self.convert(args[0], ins.args[0].type, d.type)
        elif op == "select":
            result = self.b.select(*args)
        else:
            raise CodegenError(f"no arithmetic for `{op}`")
        self.define(ins, result)

    def _float_arith(self, op: str, t: ScalarType, args: list[ir.Value]) -> ir.Value:
        if op in FLOAT_BINARY:
            return FLOAT_BINARY[op](self.b, t, *args)
        if op in FLOAT_COMPARE:
            pred, ordered = FLOAT_COMPARE[op]
            return (self.b.fcmp_ordered if ordered else self.b.fcmp_unordered)(pred, *args)
        if op in FLOAT_INTRINSIC:
            kind = value_type(t)
            fn = self.intrinsic(f"{FLOAT_INTRINSIC[op]}.{'f32' if t.bits == 32 else 'f64'}", kind,
                                [kind] * len(args))
            return self.b.call(fn, args)
        if op == "neg":
            return self.b.fneg(args[0])
        if op == "mov":
            return args[0]
        if op == "select":
            return self.b.select(*args)
        raise CodegenError(f"no floating-point arithmetic for `{op}`")

    def convert(self, x: ir.Value, src: ScalarType, dst: ScalarType) -> ir.Value:
        """C's conversions, and PTX's for a float to an integer: toward zero, saturating, NaN to 0
        (llvm.fpto[su]i.sat; a plain fptosi is undefined out of range)."""
        if dst == BOOL:
            if src.is_float:
                return self.b.fcmp_unordered("!=", x, ir.Constant(x.type, 0.0))
            return self.b.icmp_unsigned("!=", x, ir.Constant(x.type, 0))
        if src.is_float and dst.is_float:
            want = value_type(dst)
            if src.bits == dst.bits:
                return x
            return self.b.fptrunc(x, want) if src.bits > dst.bits else self.b.fpext(x, want)
        if dst.is_float:
            if src == BOOL or not src.signed:
                return self.b.uitofp(x, value_type(dst))
            return self.b.sitofp(x, value_type(dst))
        if src.is_float:
            want = value_type(dst)
            kind = "fptosi" if dst.signed else "fptoui"
            fn = self.intrinsic(f"llvm.{kind}.sat.i{dst.bits}.{'f32' if src.bits == 32 else 'f64'}", want, [x.type])
            return self.b.call(fn, [x])
        return self.resize(x, dst, src)

    def resize(self, x: ir.Value, dst: ScalarType, src: ScalarType) -> ir.Value:
        want = value_type(dst)
        if x.type.width == want.width:
            return x
        if x.type.width > want.width:
            return self.b.trunc(x, want)
        return self.b.sext(x, want) if src.signed and src != BOOL else self.b.zext(x, want)

    def _sreg(self, ins: Instr) -> None:
        reg = SREG.get(ins.attr("reg"))
        if reg is None:
            raise CodegenError(f"no special register `{ins.attr('reg')}`")
        t = I64 if reg in ("clock64", "globaltimer") else I32
        value = self.b.call(self.intrinsic(f"llvm.nvvm.read.ptx.sreg.{reg}", t, []), [])
        want = value_type(ins.dests[0].type)
        if want.width < t.width:
            value = self.b.trunc(value, want)
        elif want.width > t.width:
            value = self.b.zext(value, want)
        self.define(ins, value)

    def _ld(self, ins: Instr) -> None:
        ptr, array = self.address(ins.ref)
        order, cache = self.order(ins), ins.attr("cache")
        if order is None and cache is None:
            raw = self.b.load(ptr)
        else:
            asm = inline_ptx.load(array.elem, array.space, order, ins.attr("scope"), cache)
            raw = self.asm(asm, self.register_type(array.elem), [ptr])
        self.define(ins, self.from_memory(raw, array.elem))

    def _st(self, ins: Instr) -> None:
        ptr, array = self.address(ins.ref)
        value = self.to_memory(self.value(ins.args[1]), array.elem)
        order = ins.attr("order")
        if order is None:
            self.b.store(value, ptr)
        else:
            asm = inline_ptx.store(array.elem, array.space, order, ins.attr("scope"))
            self.asm(asm, VOID, [ptr, self.widen(value, array.elem)])

    def _atomic(self, ins: Instr) -> None:
        ptr, array = self.address(ins.ref)
        if array.elem.is_float:
            self._float_atomic(ins, ptr, array)
            return
        operands = [self.value(a) for a in ins.args[1:]]
        if ins.op == "atom.sub":
            operands = [self.b.neg(operands[0])]
        if ins.dests[0].name not in self.read:
            red = inline_ptx.reduction(ins.op, array.elem, array.space, self.order(ins), ins.attr("scope"))
            if red is not None:
                self.asm(red, VOID, [ptr, *operands])
                return
        asm = inline_ptx.atomic(ins.op, array.elem, array.space, self.order(ins), ins.attr("scope"))
        self.define(ins, self.asm(asm, value_type(array.elem), [ptr, *operands]))

    def _float_atomic(self, ins: Instr, ptr: ir.Value, array: Array) -> None:
        """add (and sub, as the add of the negation) is PTX's atom.add.f32/.f64; exch and cas move
        bit patterns (cas compares bits: -0.0 is not 0.0, a NaN equals itself); min and max, which
        PTX lacks for floats, are a compare-and-swap loop."""
        elem, order, scope = array.elem, self.order(ins), ins.attr("scope")
        operands = [self.value(a) for a in ins.args[1:]]
        op = ins.op
        if op in ("atom.add", "atom.sub"):
            value = operands[0] if op == "atom.add" else self.b.fneg(operands[0])
            if ins.dests[0].name not in self.read:
                red = inline_ptx.reduction("atom.add", elem, array.space, order, scope)
                if red is not None:
                    self.asm(red, VOID, [ptr, value])
                    return
            asm = inline_ptx.atomic("atom.add", elem, array.space, order, scope)
            self.define(ins, self.asm(asm, value_type(elem), [ptr, value]))
            return
        bits = self.register_type(elem)
        if op in ("atom.exch", "atom.cas"):
            asm = inline_ptx.atomic(op, elem, array.space, order, scope)
            old = self.asm(asm, bits, [ptr, *(self.widen(v, elem) for v in operands)])
            self.define(ins, self.from_memory(old, elem))
            return
        if op not in ("atom.min", "atom.max"):
            raise CodegenError(f"`{op}` on {elem} (the checker refuses it)")
        # old = the word; loop: new = min(old, v); seen = cas(word, old, new); until seen == old
        first = self.asm(inline_ptx.load(elem, array.space, "relaxed", scope or
                                         ("cta" if array.space == "shared" else "gpu"), None), bits, [ptr])
        before = self.b.block
        loop, done = self.fn.append_basic_block(f"{op}.loop"), self.fn.append_basic_block(f"{op}.done")
        self.b.branch(loop)
        self.b.position_at_end(loop)
        old = self.b.phi(bits)
        old.add_incoming(first, before)
        new = self._float_arith("min" if op == "atom.min" else "max", elem,
                                [self.b.bitcast(old, value_type(elem)), operands[0]])
        cas = inline_ptx.atomic("atom.cas", elem, array.space, order, scope)
        seen = self.asm(cas, bits, [ptr, old, self.b.bitcast(new, bits)])
        old.add_incoming(seen, self.b.block)
        self.b.cbranch(self.b.icmp_unsigned("==", seen, old), done, loop)
        self.b.position_at_end(done)
        self.define(ins, self.b.bitcast(seen, value_type(elem)))

    def order(self, ins: Instr) -> str | None:
        return inline_ptx.deferred_order(ins.attr("order"), ins.attr("deferred"), self.split_fences)

    def _fence(self, ins: Instr) -> None:
        if ins.attr("deferred") and not self.split_fences:
            return                      # the polls before it acquire themselves
        self.asm(inline_ptx.fence(ins.attr("order"), ins.attr("scope") or "gpu"), VOID, [])

    def _bar_sync(self, ins: Instr) -> None:
        args = [self.value(a) for a in ins.args]
        if len(args) == 1 and isinstance(ins.args[0], Imm):
            self.asm(inline_ptx.BARRIER_SYNC_ALIGNED, VOID, args)       # a block barrier
            return
        self.asm(inline_ptx.BARRIER_SYNC if len(args) == 1 else inline_ptx.BARRIER_SYNC_COUNT, VOID, args)

    def _bar_arrive(self, ins: Instr) -> None:
        self.asm(inline_ptx.BARRIER_ARRIVE, VOID, [self.value(a) for a in ins.args])

    def _warp_sync(self, ins: Instr) -> None:
        self.asm(inline_ptx.WARP_SYNC, VOID, [self.value(ins.args[0])])

    def _activemask(self, ins: Instr) -> None:
        self.define(ins, self.asm(inline_ptx.ACTIVEMASK, I32, []))

    def _elect(self, ins: Instr) -> None:
        """The lowest active lane: portable to sm_70 (elect.sync needs sm_90)."""
        mask = self.asm(inline_ptx.ACTIVEMASK, I32, [])
        cttz = self.intrinsic("llvm.cttz.i32", I32, [I32, I1])
        lowest = self.b.call(cttz, [mask, ir.Constant(I1, 1)])
        lane = self.b.call(self.intrinsic("llvm.nvvm.read.ptx.sreg.laneid", I32, []), [])
        self.define(ins, self.b.icmp_unsigned("==", lowest, lane))

    def _vote(self, ins: Instr, kind: str) -> None:
        # with a mask operand, the .sync vote waits for those lanes; without, the active ones vote
        mask = self.value(ins.args[1]) if len(ins.args) > 1 else self.asm(inline_ptx.ACTIVEMASK, I32, [])
        result = I32 if kind == "ballot" else I1
        fn = self.intrinsic(f"llvm.nvvm.vote.{kind}.sync", result, [I32, I1])
        self.define(ins, self.b.call(fn, [mask, self.value(ins.args[0])], attrs=("convergent",)))

    def _vote_any(self, ins: Instr) -> None:
        self._vote(ins, "any")

    def _vote_all(self, ins: Instr) -> None:
        self._vote(ins, "all")

    def _ballot(self, ins: Instr) -> None:
        self._vote(ins, "ballot")

    def _trap(self, ins: Instr) -> None:
        """`trap;`: llvm.trap, which LLVM knows never returns (the path to it is cold)."""
        self.b.call(self.intrinsic("llvm.trap", VOID, []), [])

    def _nanosleep(self, ins: Instr) -> None:
        self.asm(inline_ptx.NANOSLEEP, VOID, [self.widen(self.value(ins.args[0]), ins.args[0].type)])

    def _lockbit(self, ins: Instr) -> None:
        raise CodegenError("lock bits exist only on Fermi; expansion should have replaced them for PTX")

    def _mbar_init(self, ins: Instr) -> None:
        ptr, _ = self.address(ins.ref)
        self.asm(inline_ptx.mbar_init(self.mbarrier is not None), VOID, [ptr, self.value(ins.args[1])])

    def _mbar_arrive(self, ins: Instr) -> None:
        ptr, _ = self.address(ins.ref)
        self.asm(inline_ptx.mbar_arrive(self.mbarrier is not None), VOID, [ptr])

    def _mbar_test(self, ins: Instr) -> None:
        ptr, _ = self.address(ins.ref)
        done = self.asm(inline_ptx.mbar_test(self.mbarrier), I32, [ptr, self.value(ins.args[1])])
        self.define(ins, self.b.icmp_unsigned("!=", done, ir.Constant(I32, 0)))

    def _bounds_check(self, ins: Instr) -> None:
        """`if index (as the address uses it, unsigned) >= len`: a failure path of the check's own
        (one shared by the checks would be a block where their lanes meet, which ptxas brackets
        with a convergence barrier) that writes the record and stalls the thread in a loop whose
        way out is never taken, so that the failed access never runs and no trap makes ptxas
        restructure the kernel around it (inline_ptx.bounds_record says why)."""
        index = self.value(ins.args[0])
        wide = self.b.sext(index, I64) if index.type.width < 64 else index
        if len(ins.args) > 1:        # a length the launch gives (never negative: the launcher checks)
            length = self.b.zext(self.value(ins.args[1]), I64)
        else:
            length = ir.Constant(I64, ins.attr("len"))
        fails = self.b.icmp_unsigned(">=", wide, length)
        site = ins.attr("site")
        fail, stall, ok = (self.fn.append_basic_block(f"bounds.{what}.{site}") for what in ("fail", "stall", "ok"))
        claim, _ = self.address(Ref(FAULT_CLAIM, imm(0)))
        record, _ = self.address(Ref(FAULT_RECORD, imm(0)))
        self.b.cbranch(fails, fail, ok).set_weights([1, 1 << 20])
        self.b.position_at_end(fail)
        low = self.b.trunc(wide, I32)
        self.asm(inline_ptx.bounds_record(site, (F_DONE, F_SITE, F_INDEX, F_BLOCK, F_THREAD)), VOID,
                 [low, claim, record])
        self.b.branch(stall)
        self.b.position_at_end(stall)
        word = self.asm(inline_ptx.bounds_stall(), I32, [claim])
        never = self.b.icmp_unsigned("==", word, ir.Constant(I32, inline_ptx.BOUNDS_NEVER))
        self.b.cbranch(never, ok, stall)
        self.b.position_at_end(ok)

    def _prim(self, ins: Instr) -> None:
        raise CodegenError(f"`{ins.op}` reached the back end unexpanded")

    _region_end = _prim

    # ---- terminators
    def terminator(self, term) -> None:
        if isinstance(term, Jump):
            self.b.branch(self.blocks[term.target])
        elif isinstance(term, Branch):
            self.b.cbranch(self.value(term.cond), self.blocks[term.if_true], self.blocks[term.if_false])
        else:
            self.b.ret_void()

    # ---- helpers
    def intrinsic(self, name: str, result: ir.Type, args: list[ir.Type]) -> ir.Function:
        fn = self.out.globals.get(name)
        if fn is None:
            fn = ir.Function(self.out, ir.FunctionType(result, args), name=name)
        return fn

    def asm(self, asm: inline_ptx.Asm, result: ir.Type, args: list[ir.Value]) -> ir.Value:
        code = ir.InlineAsm(ir.FunctionType(result, [a.type for a in args]), asm.text, asm.constraints,
                            side_effect=True)
        return self.b.call(code, args, attrs=("convergent",) if asm.convergent else ())

    @staticmethod
    def register_type(elem: ScalarType) -> ir.IntType:
        """The register an inline-PTX load or store uses: 32 bits for bytes and words."""
        return I64 if elem.bits == 64 else I32

    def widen(self, value: ir.Value, elem: ScalarType) -> ir.Value:
        """The register an inline-PTX operand travels in: an integer (a float as its bits)."""
        want = self.register_type(elem)
        if isinstance(value.type, (ir.FloatType, ir.DoubleType)):
            return self.b.bitcast(value, want)
        return value if value.type.width == want.width else self.b.zext(value, want)

    def from_memory(self, raw: ir.Value, elem: ScalarType) -> ir.Value:
        if elem == BOOL:
            return self.b.icmp_unsigned("!=", raw, ir.Constant(raw.type, 0))
        want = value_type(elem)
        if elem.is_float:
            return raw if raw.type == want else self.b.bitcast(raw, want)
        return raw if raw.type.width == want.width else self.b.trunc(raw, want)

    def to_memory(self, value: ir.Value, elem: ScalarType) -> ir.Value:
        return self.b.zext(value, I8) if elem == BOOL else value


def read_before_defined(k: Kernel) -> set[str]:
    """Registers an instruction or branch reads in a block laid out before the block that defines
    them (a definition that dominates its uses, placed later): kept in a stack slot, because the
    blocks are emitted in layout order and an SSA value must be emitted before it is read."""
    defined = {p.name for p in k.params if isinstance(p, Reg)}
    out: set[str] = set()
    for reads, ins in _reads(k):
        out.update(name for name in reads if name not in defined)
        if ins is not None:
            defined.update(d.name for d in ins.dests)
    return out


def registers_read(k: Kernel) -> set[str]:
    """The names of the registers some instruction, index or branch of the kernel reads."""
    return {name for reads, _ in _reads(k) for name in reads}


def _reads(k: Kernel):
    """(names of the registers read, the instruction or None for a branch), in layout order."""
    def regs(v):
        if isinstance(v, Reg):
            yield v.name
        elif isinstance(v, Ref):
            yield from regs(v.index)
    for b in k.blocks:
        for ins in b.instrs:
            names = [n for a in ins.args for n in regs(a)]
            if ins.ref is not None:
                names += list(regs(ins.ref.index))
            yield names, ins
        yield list(regs(getattr(b.term, "cond", None))), None

