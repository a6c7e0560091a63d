"""`--target cuda`: a CUDA C++ header of a program's kernels, for library writers who vendor
syncc's primitives into their own CUDA code.

The safe IR becomes C++ with labels and gotos, one statement per instruction from the
tables below; registers are locals declared at the top (so no goto jumps over an
initialization), shared arrays `__shared__` arrays. Arithmetic is done on unsigned types
and cast back, so overflow wraps as syncc defines it instead of being undefined in C++.
Float arithmetic is CUDA's round-to-nearest intrinsics (`__fadd_rn`, `__dmul_rn`, ...), which
nvcc never contracts into an fma, and float constants are exact hex literals, so the header
computes what the PTX back end does; a float to an integer is `__float2int_rz` and its kin,
PTX's saturating `cvt.rzi` (a NaN made 0 first: the 64-bit ones give 0x8000000000000000 for
one, measured on an H200), where a C++ cast would be undefined out of range.
Every synchronizing operation is the same inline PTX the PTX back end emits (backends/inline_ptx.py),
with `%n` operands and a memory clobber: the orderings and scopes are exactly those the
passes chose. The file is rendered by jinja2 (templates/header.cuh.j2).

A run-time bounds check (passes/bounds.py) is `if ((uint64_t)(int64_t)i >= N) bounds_stop();`:
the thread stops there for good, before the access, waiting for a word nothing writes (not
`__trap()`, which ptxas builds the kernel around: see backends/ptx/codegen.py). Nothing records
which index it was (the PTX the runtime launches does: ir/faults.py), and the launch does not
end: the header's kernels take no fault record, only their program's parameters and primitive
state, and `syncc run` on the program says which check failed.
"""
from __future__ import annotations

import os
import re
from dataclasses import replace

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from ...core.version import VERSION
from ...core.records import cpp_struct
from ...core.types import BOOL, ScalarType
from ...ir.nodes import Array, Branch, Imm, Instr, Jump, Kernel, Module, Ref, Reg
from .. import inline_ptx
from ...ir.abi import kernel_abi

CTYPE = {"i32": "int32_t", "u32": "uint32_t", "i64": "int64_t", "u64": "uint64_t", "f32": "float", "f64": "double",
         "bool": "bool"}
UNSIGNED = {"i32": "uint32_t", "u32": "uint32_t", "i64": "uint64_t", "u64": "uint64_t", "f32": "uint32_t",
            "f64": "uint64_t", "bool": "uint32_t"}
# float operation → (the f32 function, the f64 one)
FLOAT_CALL = {"add": ("__fadd_rn", "__dadd_rn"), "sub": ("__fsub_rn", "__dsub_rn"), "mul": ("__fmul_rn", "__dmul_rn"),
              "div": ("__fdiv_rn", "__ddiv_rn"), "sqrt": ("__fsqrt_rn", "__dsqrt_rn"), "fma": ("__fmaf_rn", "__fma_rn"),
              "min": ("fminf", "fmin"), "max": ("fmaxf", "fmax"), "abs": ("fabsf", "fabs"),
              "floor": ("floorf", "floor"), "ceil": ("ceilf", "ceil"), "trunc": ("truncf", "trunc")}
# a float's bits and back: (to bits, from bits), by width
FLOAT_BITS = {32: ("__float_as_uint", "__uint_as_float"), 64: ("__double_as_longlong", "__longlong_as_double")}
# (source, destination) → the conversion; an integer from a float saturates (PTX's cvt.rzi)
_TO_INT = {"i32": "int", "u32": "uint", "i64": "ll", "u64": "ull"}


def float_conversion(src: ScalarType, dst: ScalarType, x: str) -> str:
    """C++ for converting x of src to dst where either is a float."""
    if dst == BOOL:
        return f"({x} != 0)"
    if src == BOOL:
        return f"({x} ? 1.0{'f' if dst.bits == 32 else ''} : 0.0)"
    fname = {32: "float", 64: "double"}
    if src.is_float and dst.is_float:
        return f"(double){x}" if dst.bits == 64 else f"__double2float_rn({x})"
    if dst.is_float:
        return f"__{_TO_INT[src.name]}2{fname[dst.bits]}_rn({x})"
    # NaN to 0 as PTX's cvt.rzi.s32 does; the 64-bit conversions give 0x8000000000000000 for a NaN
    return f"({x} != {x} ? ({CTYPE[dst.name]})0 : __{fname[src.bits]}2{_TO_INT[dst.name]}_rz({x}))"


def float_literal(value: float, t: ScalarType) -> str:
    """An exact C++ literal of a float: hex, or the bits of an infinity or a NaN."""
    import math
    from ...core import floats
    if math.isfinite(value):
        return f"({value.hex()}{'f' if t.bits == 32 else ''})"
    to_bits, from_bits = FLOAT_BITS[t.bits]
    return f"{from_bits}({floats.bits(value, t):#x}{'u' if t.bits == 32 else 'ull'})"
MEMORY = {**CTYPE, "bool": "uint8_t"}


def memory_ctype(elem) -> str:
    """The C++ type of an array's element: a record is the struct the header declares for it."""
    return elem.name if elem.kind == "record" else MEMORY[elem.name]


def module_records(module: Module) -> list:
    """The record types the module's kernels' arrays hold, each once, in order of first use."""
    out = {}
    for k in module.kernels:
        for a in (*k.params, *k.arrays):
            if isinstance(a, Array) and a.elem.kind == "record":
                out.setdefault(a.elem.name, a.elem)
    return list(out.values())
WRAPPING = {"add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^", "shl": "<<"}
PLAIN = {"div": "/", "rem": "%", "shr": ">>"}
COMPARE = {"cmp.eq": "==", "cmp.ne": "!=", "cmp.lt": "<", "cmp.le": "<=", "cmp.gt": ">", "cmp.ge": ">="}
SREG = {"tid.x": "threadIdx.x", "tid.y": "threadIdx.y", "tid.z": "threadIdx.z", "ntid.x": "blockDim.x",
        "ntid.y": "blockDim.y", "ntid.z": "blockDim.z", "ctaid.x": "blockIdx.x", "ctaid.y": "blockIdx.y",
        "ctaid.z": "blockIdx.z", "nctaid.x": "gridDim.x", "nctaid.y": "gridDim.y", "nctaid.z": "gridDim.z",
        "laneid": "syncc_laneid()", "clock": "clock64()", "globaltimer_lo": "syncc_globaltimer_lo()"}


class CudaError(Exception):
    """The IR has something this back end cannot write (a bug in syncc)."""


def build_cuda(module: Module, vended=(), output: str | None = None, supports=None) -> str:
    """The header: the module's kernels, or for a library (syncc/frontend/vending.py) its primitives' types.
    `output`: the file it is written to (`-o`), which the regenerate line names; `supports`: kernel name →
    the configurations its header declares (core/configs.py), for its `NAME_supports` function."""
    env = Environment(loader=FileSystemLoader(os.path.join(os.path.dirname(__file__), "templates")),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    source = module.source or "program.sync"
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(source))[0])
    from .vended import vended_types
    ops = {v.kernel for v in vended}
    kernels = [KernelWriter(k).render() for k in module.kernels if k.name not in ops]
    for k in kernels:
        k["supports"] = supports_function(k["name"], module.kernel(k["name"]), (supports or {}).get(k["name"]))
    types = vended_types(module, list(vended))
    return env.get_template("header.cuh.j2").render(
        banner=f"{os.path.basename(source)}: syncc {'primitives' if types else 'kernels'} as CUDA C++", version=VERSION, source=source,
        guard=stem, namespace=f"syncc_{stem}", kernels=kernels, types=types,
        records=[cpp_struct(r) for r in module_records(module)],
        bounds=any(ins.op == "bounds.check" for k in module.kernels for _, _, ins in k.instructions()),
        output=output or f"{stem.lower()}.cuh")


def supports_function(name: str, k: Kernel, supports) -> list[str]:
    """`NAME_supports(grid, declared parameters...)`: the launch configurations the kernel's header
    declares, as the kernel's own guard (passes/guard.py) tests them; [] where it declares none."""
    if supports is None:
        return []
    args, tests = [], []
    if supports.grid is not None:
        args.append("dim3 grid")
        for axis, allowed in zip("xyz", supports.grid):
            tests.append(_within_text(f"(int64_t)grid.{axis}", allowed))
    for position, allowed in supports.params:
        p = k.params[position]
        arg = p.name.split(".")[0]
        args.append(f"{CTYPE[p.type.name]} {arg}")
        tests.append(_within_text(f"(int64_t){arg}" if p.type.name != "u64" else arg, allowed))
    return [f"__host__ __device__ inline bool {name}_supports({', '.join(args)})", "{",
            "    return " + "\n        && ".join(tests) + ";", "}"]


def _within_text(x: str, allowed) -> str:
    if allowed.listed is not None:
        return "(" + " || ".join(f"{x} == {v}" for v in allowed.listed) + ")"
    return f"({x} >= {allowed.lo} && {x} < {allowed.hi})"


def cname(name: str) -> str:
    return re.sub(r"\W", "_", name)


class KernelWriter:
    def __init__(self, k: Kernel):
        self.k = k
        self.abi = kernel_abi(k, bounds_record=False)
        self.arrays: dict[str, Array] = {a.name: a for a in k.arrays}
        self.arrays.update({p.name: p for p in k.params if isinstance(p, Array)})
        self.lines: list[str] = []

    def render(self) -> dict:
        k = self.k
        params, docs = [], []
        for p in self.abi.params:
            if p.kind == "scalar":
                params.append(f"{CTYPE[p.elem.name]} {self.reg_name(p.name)}")
                docs.append(f"{p.name}: {p.elem}")
            else:
                params.append(f"{memory_ctype(p.elem)}* __restrict__ {self.array_name(p.name)}")
                dims = "".join(f"[{d}]" for d in p.dims)
                per = {None: "", "block": " per block", "thread": " per thread"}[p.per]
                docs.append(f"{p.name}: {p.elem}{dims}" if p.kind == "array" else
                            f"{p.name}: state, {p.length(1, 1)} {p.elem}{per}, each element {p.init} before a launch")
        body = self.declarations() + self.code()
        state = [{"cname": cname(p.name), "init": p.init, "doc": d}
                 for p, d in zip(self.abi.params, docs) if p.kind == "state"]
        return {"name": k.name, "block": k.block, "grid": k.grid, "signature": ", ".join(params),
                "params": [{"doc": d} for p, d in zip(self.abi.params, docs) if p.kind != "state"],
                "state": state, "body": body}

    # ---- names
    @staticmethod
    def reg_name(name: str) -> str:
        return "r_" + cname(name)

    @staticmethod
    def array_name(name: str) -> str:
        return "a_" + cname(name)

    # ---- declarations
    def declarations(self) -> list[str]:
        out = []
        uses_lane = any(ins.op == "elect" or ins.op == "sreg" and ins.attr("reg") == "laneid"
                        for _, _, ins in self.k.instructions())
        if uses_lane:
            out.append("    auto syncc_laneid = []() { uint32_t l; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(l)); "
                       "return l; };")
        if any(ins.op == "sreg" and ins.attr("reg") == "globaltimer_lo" for _, _, ins in self.k.instructions()):
            out.append("    auto syncc_globaltimer_lo = []() { uint32_t t; "
                       "asm volatile(\"mov.u32 %0, %%globaltimer_lo;\" : \"=r\"(t)); return t; };")
        read = {a.name for _, _, ins in self.k.instructions() for a in ins.args if isinstance(a, Reg)}
        read |= {a.index.name for _, _, ins in self.k.instructions() for a in ins.args
                 if isinstance(a, Ref) and isinstance(a.index, Reg)}
        read |= {b.term.cond.name for b in self.k.blocks if isinstance(b.term, Branch) and isinstance(b.term.cond, Reg)}
        self.read = read
        for a in self.k.arrays:
            if a.space == "shared" and self.declares(a):
                n = a.length
                out.append(f"    __shared__ {memory_ctype(a.elem)} {self.array_name(a.name)}[{n}];")
        params = {p.name for p in self.k.params if isinstance(p, Reg)}
        seen = set()
        for _, _, ins in self.k.instructions():
            for d in ins.dests:
                if d.name not in seen and d.name not in params:
                    seen.add(d.name)
                    unused = "" if d.name in read else "[[maybe_unused]] "
                    out.append(f"    {unused}{CTYPE[d.type.name]} {self.reg_name(d.name)} = 0;")
        return out

    def declares(self, array: Array) -> bool:
        """Is this shared array a `__shared__` array of the function (not one it is given)?"""
        return True

    # ---- code
    def code(self) -> list[str]:
        self.lines = []
        targets = {t for b in self.k.blocks for t in b.term.targets}
        for b in self.k.blocks:
            if b.label in targets:
                self.lines.append(f"L_{cname(b.label)}:;")
            for ins in b.instrs:
                self.instr(ins)
            self.term(b.term)
        return self.lines

    def emit(self, text: str) -> None:
        self.lines.append("    " + text)

    def value(self, v) -> str:
        if isinstance(v, Imm):
            if v.type == BOOL:
                return "true" if v.value else "false"
            if v.type.is_float:
                return float_literal(v.value, v.type)
            suffix = {"u32": "u", "i64": "ll", "u64": "ull"}.get(v.type.name, "")
            return f"({CTYPE[v.type.name]}){v.value}{suffix}"
        if isinstance(v, Reg):
            return self.reg_name(v.name)
        raise CudaError(f"not a value: {v}")

    def element(self, ref: Ref) -> str:
        field = f".{ref.field}" if ref.field is not None else ""
        return f"{self.array_name(ref.name)}[{self.value(ref.index)}]{field}"

    def array_of(self, ref: Ref) -> Array:
        """The array `ref` addresses, as the access sees it (a record's field: the field's type)."""
        a = self.arrays[ref.name]
        return a if ref.field is None else replace(a, elem=a.elem.field(ref.field).type)

    def instr(self, ins: Instr) -> None:
        handler = getattr(self, "_" + ins.op.replace(".", "_"), None) or getattr(self, "_" + ins.info.group, None)
        if handler is None:
            raise CudaError(f"no CUDA for `{ins.op}`")
        handler(ins)

    def dest(self, ins: Instr) -> str:
        return self.reg_name(ins.dests[0].name)

    def _arith(self, ins: Instr) -> None:
        op, d = ins.op, ins.dests[0]
        args = [self.value(a) for a in ins.args]
        t: ScalarType = ins.args[0].type if ins.args else d.type
        ct, ut = CTYPE[d.type.name], UNSIGNED[d.type.name]
        if op == "bitcast":
            expr = f"{FLOAT_BITS[t.bits][0]}({args[0]})" if t.is_float else \
                f"{FLOAT_BITS[d.type.bits][1]}(({UNSIGNED[t.name]}){args[0]})"
            if not d.type.is_float:
                expr = f"({ct}){expr}"
        elif op == "cvt" and (t.is_float or d.type.is_float):
            expr = float_conversion(t, d.type, args[0])
        elif t.is_float and op in FLOAT_CALL:
            expr = f"{FLOAT_CALL[op][t.bits == 64]}({', '.join(args)})"
        elif t.is_float and op == "neg":
            expr = f"-{args[0]}"
        elif op in WRAPPING:
            expr = f"({ct})(({ut}){args[0]} {WRAPPING[op]} ({ut}){args[1]})"
        elif op in PLAIN:
            expr = f"({ct})({args[0]} {PLAIN[op]} {args[1]})"
        elif op in COMPARE:
            expr = f"{args[0]} {COMPARE[op]} {args[1]}"
        elif op in ("min", "max"):
            cmp = "<" if op == "min" else ">"
            expr = f"({args[0]} {cmp} {args[1]} ? {args[0]} : {args[1]})"
        elif op == "mov":
            expr = args[0]
        elif op == "neg":
            expr = f"({ct})(0u - ({ut}){args[0]})"
        elif op == "not":
            expr = f"!{args[0]}" if d.type == BOOL else f"({ct})~({ut}){args[0]}"
        elif op == "abs":
            expr = f"({ct})({args[0]} < 0 ? 0u - ({ut}){args[0]} : ({ut}){args[0]})"
        elif op == "popc":
            expr = f"__popcll((unsigned long long)({UNSIGNED[t.name]}){args[0]})"
        elif op == "cvt":
            expr = f"({args[0]} != 0)" if d.type == BOOL else f"({ct}){args[0]}"
        elif op == "select":
            expr = f"({args[0]} ? {args[1]} : {args[2]})"
        else:
            raise CudaError(f"no arithmetic for `{op}`")
        self.emit(f"{self.dest(ins)} = {expr};")

    def _sreg(self, ins: Instr) -> None:
        self.emit(f"{self.dest(ins)} = ({CTYPE[ins.dests[0].type.name]}){SREG[ins.attr('reg')]};")

    def _ld(self, ins: Instr) -> None:
        array = self.array_of(ins.ref)
        if ins.attr("order") is None and ins.attr("cache") is None:
            value = self.element(ins.ref)
            self.emit(f"{self.dest(ins)} = {value}{' != 0' if array.elem == BOOL else ''};")
            return
        asm = inline_ptx.load(array.elem, array.space, ins.attr("order"), ins.attr("scope"), ins.attr("cache"))
        tmp = "uint64_t" if array.elem.bits == 64 else "uint32_t"
        value = f"{FLOAT_BITS[array.elem.bits][1]}(v)" if array.elem.is_float else f"({CTYPE[array.elem.name]})v"
        self.emit(f"{{ {tmp} v; {self.asm(asm, ['v'], [self.address(ins.ref, array)])} "
                  f"{self.dest(ins)} = {value}; }}")

    def _st(self, ins: Instr) -> None:
        array = self.array_of(ins.ref)
        value = self.value(ins.args[1])
        if ins.attr("order") is None:
            self.emit(f"{self.element(ins.ref)} = {value};")
            return
        asm = inline_ptx.store(array.elem, array.space, ins.attr("order"), ins.attr("scope"))
        bits = f"{FLOAT_BITS[array.elem.bits][0]}({value})" if array.elem.is_float else \
            f"{'(uint64_t)' if array.elem.bits == 64 else '(uint32_t)'}{value}"
        self.emit(self.asm(asm, [], [self.address(ins.ref, array), bits]))

    def _atomic(self, ins: Instr) -> None:
        array = self.array_of(ins.ref)
        if array.elem.is_float:
            self._float_atomic(ins, array)
            return
        values = [self.value(a) for a in ins.args[1:]]
        if ins.op == "atom.sub":
            values = [f"({CTYPE[array.elem.name]})(0u - ({UNSIGNED[array.elem.name]}){values[0]})"]
        asm = inline_ptx.atomic(ins.op, array.elem, array.space, ins.attr("order"), ins.attr("scope"))
        self.emit(self.asm(asm, [self.dest(ins)], [self.address(ins.ref, array), *values]))

    def _float_atomic(self, ins: Instr, array: Array) -> None:
        """add (sub: the add of the negation) is PTX's atom.add.f32/.f64; exch and cas move bits;
        min and max, which PTX lacks for floats, are a compare-and-swap loop (as the PTX back end's)."""
        elem, order, scope = array.elem, ins.attr("order"), ins.attr("scope")
        values = [self.value(a) for a in ins.args[1:]]
        where = self.address(ins.ref, array)
        to_bits, from_bits = FLOAT_BITS[elem.bits]
        word = UNSIGNED[elem.name]
        if ins.op in ("atom.add", "atom.sub"):
            value = values[0] if ins.op == "atom.add" else f"-{values[0]}"
            asm = inline_ptx.atomic("atom.add", elem, array.space, order, scope)
            self.emit(self.asm(asm, [self.dest(ins)], [where, value]))
            return
        if ins.op in ("atom.exch", "atom.cas"):
            asm = inline_ptx.atomic(ins.op, elem, array.space, order, scope)
            bits = [f"{to_bits}({v})" for v in values]
            self.emit(f"{{ {word} old; {self.asm(asm, ['old'], [where, *bits])} {self.dest(ins)} = {from_bits}(old); }}")
            return
        pick = FLOAT_CALL["min" if ins.op == "atom.min" else "max"][elem.bits == 64]
        load = inline_ptx.load(elem, array.space, "relaxed", scope or ("cta" if array.space == "shared" else "gpu"), None)
        cas = inline_ptx.atomic("atom.cas", elem, array.space, order, scope)
        self.emit(f"{{ {word} seen, old; {self.asm(load, ['seen'], [where])} do {{ old = seen; "
                  f"{self.asm(cas, ['seen'], [where, 'old', f'{to_bits}({pick}({from_bits}(old), {values[0]}))'])} "
                  f"}} while (seen != old); {self.dest(ins)} = {from_bits}(seen); }}")

    def _fence(self, ins: Instr) -> None:
        if ins.attr("deferred"):
            # the polls before it acquire themselves: C++ built for any architecture and toolkit
            # keeps the form every one of them has (fence.acquire needs sm_90 and PTX 8.6)
            return
        self.emit(self.asm(inline_ptx.fence(ins.attr("order"), ins.attr("scope") or "gpu"), [], []))

    def _bar_sync(self, ins: Instr) -> None:
        args = [f"(uint32_t){self.value(a)}" for a in ins.args]
        self.emit(self.asm(inline_ptx.BARRIER_SYNC if len(args) == 1 else inline_ptx.BARRIER_SYNC_COUNT, [], args))

    def _bar_arrive(self, ins: Instr) -> None:
        self.emit(self.asm(inline_ptx.BARRIER_ARRIVE, [], [f"(uint32_t){self.value(a)}" for a in ins.args]))

    def _warp_sync(self, ins: Instr) -> None:
        self.emit(f"__syncwarp({self.value(ins.args[0])});")

    def _activemask(self, ins: Instr) -> None:
        self.emit(f"{self.dest(ins)} = __activemask();")

    def _elect(self, ins: Instr) -> None:
        self.emit(f"{self.dest(ins)} = (uint32_t)(__ffs(__activemask()) - 1) == syncc_laneid();")

    def _vote(self, ins: Instr, fn: str) -> None:
        # with a mask operand (a party's whole warp), the vote waits for those lanes, as the PTX
        # back end's does; without, the lanes that happen to be active vote
        mask = self.value(ins.args[1]) if len(ins.args) > 1 else "__activemask()"
        self.emit(f"{self.dest(ins)} = {fn}({mask}, {self.value(ins.args[0])});")

    def _vote_any(self, ins: Instr) -> None:
        self._vote(ins, "__any_sync")

    def _vote_all(self, ins: Instr) -> None:
        self._vote(ins, "__all_sync")

    def _ballot(self, ins: Instr) -> None:
        self._vote(ins, "__ballot_sync")

    def _nanosleep(self, ins: Instr) -> None:
        self.emit(f"__nanosleep((unsigned)({self.value(ins.args[0])}));")

    def _bounds_check(self, ins: Instr) -> None:
        if len(ins.args) > 1:          # a length the launch gives
            length, has = f"(uint64_t)(uint32_t){self.value(ins.args[1])}", "the length its launch gives"
        else:
            length, has = f"{ins.attr('len')}u", str(ins.attr("len"))
        self.emit(f"if ((uint64_t)(int64_t){self.value(ins.args[0])} >= {length}) bounds_stop();   "
                  f"// `{ins.attr('array')}` has {has}: outside it, stop here")

    def _trap(self, ins: Instr) -> None:
        self.emit("__trap();")

    def _lockbit(self, ins: Instr) -> None:
        raise CudaError("lock bits exist only on Fermi")

    # An mbarrier queue's stages: the same PTX as the PTX back end's, for the architecture the
    # code is compiled for: try_wait on sm_90, test_wait on sm_80 to sm_89, two words before
    def _mbar_init(self, ins: Instr) -> None:
        args = [self.address(ins.ref, self.array_of(ins.ref)), f"(uint32_t){self.value(ins.args[1])}"]
        self._by_arch(lambda how: self.asm(inline_ptx.mbar_init(how is not None), [], args))

    def _mbar_arrive(self, ins: Instr) -> None:
        args = [self.address(ins.ref, self.array_of(ins.ref))]
        self._by_arch(lambda how: self.asm(inline_ptx.mbar_arrive(how is not None), [], args))

    def _mbar_test(self, ins: Instr) -> None:
        args = [self.address(ins.ref, self.array_of(ins.ref)), f"(uint32_t){self.value(ins.args[1])}"]
        self.emit("{ uint32_t done;")
        self._by_arch(lambda how: self.asm(inline_ptx.mbar_test(how), ["done"], args))
        self.emit(f"{self.dest(ins)} = done != 0; }}")

    def _by_arch(self, asm) -> None:
        for test, how in (("#if __CUDA_ARCH__ >= 900", "try"), ("#elif __CUDA_ARCH__ >= 800", "test"), ("#else", None)):
            self.emit(test)
            self.emit(asm(how))
        self.emit("#endif")

    def _prim(self, ins: Instr) -> None:
        raise CudaError(f"`{ins.op}` reached the back end unexpanded")

    def term(self, t) -> None:
        if isinstance(t, Jump):
            self.emit(f"goto L_{cname(t.target)};")
        elif isinstance(t, Branch):
            self.emit(f"if ({self.value(t.cond)}) goto L_{cname(t.if_true)}; else goto L_{cname(t.if_false)};")
        else:
            self.emit("return;")

    # ---- inline PTX
    def address(self, ref: Ref, array: Array) -> str:
        ptr = f"&{self.element(ref)}"
        return f"__cvta_generic_to_shared({ptr})" if array.space == "shared" else f"(const void*){ptr}"

    @staticmethod
    def asm(asm: inline_ptx.Asm, outputs: list[str], inputs: list[str]) -> str:
        text = re.sub(r"\$(\d+)", r"%\1", asm.text)
        constraints = asm.constraints.split(",")
        outs = [c for c in constraints if c.startswith("=")]
        ins = [c for c in constraints if not c.startswith("=") and not c.startswith("~")]
        out_part = ", ".join(f'"{c}"({o})' for c, o in zip(outs, outputs))
        in_part = ", ".join(f'"{c}"({i})' for c, i in zip(ins, inputs))
        return f'asm volatile("{text}" : {out_part} : {in_part} : "memory");'
