"""Instruction selection: each IR instruction becomes Fermi SASS on virtual registers.

Guarantee: every block of the (legalized, if-converted) kernel becomes an
`MBlock` of real opcodes whose operands fit the opcode table's shapes, computing
per thread what the IR computes, with each instruction's `loc` the source
position of the IR instruction it came from, and a terminator on IR labels.

The mapping is the table `TEMPLATES`, keyed by (IR op, operand kind), of SASS
instruction templates; the operations that need more than a fixed template
(memory, atomics, special registers, warp and barrier operations, division by
a constant) are the table `HANDLERS`. Conventions:

  * an integer lives in a general register, a bool in a predicate;
  * signedness comes from the IR type: `ISETP.LT` vs `ISETP.LT.U32`, `SHR` vs
    `SHR.U32`, `IMNMX` vs `IMNMX.U32`, `ATOM.MIN.S32` vs `.U32`;
  * an f32 lives in a general register as its bits: FADD/FMUL/FFMA/FMNMX/FSETP and the
    conversions F2I/I2F/F2F; `!=` is FSETP.NEU (true on a NaN), the other comparisons ordered;
    neg and abs flip and clear the sign bit (LOP32I), a bitcast is a MOV; an f32 constant is
    its bit pattern (MOV32I; 0.0 is RZ);
  * an f64 lives in a register pair (a virtual register of class d): DADD/DMUL/DFMA/DMNMX/DSETP
    and F2F/F2I/I2F .F64 take it whole; a move, neg, abs, select, constant or parameter writes
    it a word at a time (`d.lo`, `a.hi` in a template; mark_pair_definition says which write
    ends the old value); its loads and stores are .64;
  * an immediate goes into the instruction when the shape allows it and it
    fits 20 signed bits; else MOV32I into a register (0 is RZ); true is pt;
  * a scalar parameter is its constant-bank word (param_words: from c[0x0][0x20], an f64 two
    words; read in place where the shape allows a C operand), ntid/nctaid are c[0x0][0x8..];
  * every element is a 32-bit word (a bool 0 or 1), an f64 two: a shared element is at
    byte 4·offset + 4·index (8·index), a global one at the array's 32-bit address (a
    parameter word) plus 4·index (8·index); the addresses of global state arrays follow
    the program's parameters, in kernel_abi order;
  * a guarded IR instruction (ifconvert.py) guards every instruction that
    writes its result or touches memory; address arithmetic into fresh
    temporaries runs unguarded (it cannot fault) and is shared within a block
    (local value numbering);
  * warp.sync is nothing on Fermi (pre-Volta hardware ignores it, seed 003) and
    WARPSYNC in the ITS flavour, where a vote or ballot that names the lanes that
    must take part (a party's whole warp) is WARPSYNC on them, then VOTE, as
    ptxas makes of vote.sync; bar.sync 0 is `BAR.RED.POPC RZ, RZ`, as nvcc
    compiled __syncthreads; elect is the lowest lane of VOTE's ballot of pt.
"""
from __future__ import annotations

from ....core import floats
from ....core.types import BOOL, F32, F64, I32 as _I32, ScalarType
from ....ir.nodes import Array, Branch, Imm, Instr, Jump, Kernel, Ref, Reg, Return, field_place
from ....ir.ops import OPS as _IR_OPS
from ....ir.abi import kernel_abi
from ..isa import CBANK, OPCODES, PARAM_BASE, PT, RZ, ConstBankWord, Pred, SassImm, SassReg, Special
from .float_rounding import divide_f32, divide_f64, sqrt_f32, sqrt_f64
from .ifconvert import guard_of
from .mcode import CondBr, EmitterError, Exit, Goto, MBlock, MFunction, MInstr, Use, V, VMem

IMM20 = (-(1 << 19), (1 << 19) - 1)
SREGS = {"tid.x": "SR_Tid_X", "tid.y": "SR_Tid_Y", "tid.z": "SR_Tid_Z", "ctaid.x": "SR_CTAid_X",
         "ctaid.y": "SR_CTAid_Y", "ctaid.z": "SR_CTAid_Z", "laneid": "SR_LaneId", "clock": "SR_ClockLo",
         "globaltimer_lo": "SR_GlobalTimerLo"}
MEMBAR = {"cta": "CTA", "gpu": "GL", "sys": "SYS"}
ATOM = {"atom.add": "ADD", "atom.sub": "ADD", "atom.exch": "EXCH", "atom.min": "MIN", "atom.max": "MAX",
        "atom.and": "AND", "atom.or": "OR", "atom.xor": "XOR", "atom.cas": "CAS"}
CC = {"cmp.eq": "EQ", "cmp.ne": "NE", "cmp.lt": "LT", "cmp.le": "LE", "cmp.gt": "GT", "cmp.ge": "GE"}
MIRROR = {"EQ": "EQ", "NE": "NE", "LT": "GT", "LE": "GE", "GT": "LT", "GE": "LE", "NEU": "NEU"}


# ---- the table: (IR op, kind) → SASS templates ----------------------------------------
# A template is (opcode.MODS, operand, ...). Operands: d / d1 the IR results, a b c the IR
# operands, t0 t1 fresh temporaries (p0 a fresh predicate), RZ pt !pt, 0xN an immediate;
# a prefix - negates an integer source, ~ inverts it, ! negates a predicate.

TEMPLATES: dict[tuple[str, str], tuple[tuple[str, ...], ...]] = {}


def _put(op: str, kinds, *instrs) -> None:
    for kind in kinds:
        TEMPLATES[(op, kind)] = tuple(instrs)


INT = ("i32", "u32")
_put("add", INT, ("IADD", "d", "a", "b"))
_put("sub", INT, ("IADD", "d", "a", "-b"))
_put("mul", INT, ("IMUL", "d", "a", "b"))
_put("and", INT, ("LOP.AND", "d", "a", "b"))
_put("or", INT, ("LOP.OR", "d", "a", "b"))
_put("xor", INT, ("LOP.XOR", "d", "a", "b"))
_put("shl", INT, ("SHL", "d", "a", "b"))
_put("shr", ("i32",), ("SHR", "d", "a", "b"))
_put("shr", ("u32",), ("SHR.U32", "d", "a", "b"))
_put("min", ("i32",), ("IMNMX", "d", "a", "b", "pt"))
_put("min", ("u32",), ("IMNMX.U32", "d", "a", "b", "pt"))
_put("max", ("i32",), ("IMNMX", "d", "a", "b", "!pt"))
_put("max", ("u32",), ("IMNMX.U32", "d", "a", "b", "!pt"))
_put("neg", INT, ("IADD", "d", "RZ", "-a"))
_put("not", INT, ("LOP.PASS_B", "d", "RZ", "~a"))
_put("abs", ("i32",), ("IADD", "t0", "RZ", "-a"), ("IMNMX", "d", "a", "t0", "!pt"))
_put("abs", ("u32",), ("MOV", "d", "a"))                          # an unsigned value is its own magnitude
_put("popc", INT, ("POPC", "d", "a", "a"))
_put("mov", INT, ("MOV", "d", "a"))
_put("select", INT, ("SEL", "d", "b", "c", "a"))                  # select cond, x, y: SEL d, x, y, cond
for _cmp, _cc in CC.items():
    _put(_cmp, ("i32",), (f"ISETP.{_cc}.AND", "d", "pt", "a", "b", "pt"))
    _put(_cmp, ("u32",), (f"ISETP.{_cc}.U32.AND", "d", "pt", "a", "b", "pt"))
_put("and", ("bool",), ("PSETP.AND.AND", "d", "pt", "a", "b", "pt"))
_put("or", ("bool",), ("PSETP.OR.AND", "d", "pt", "a", "b", "pt"))
_put("xor", ("bool",), ("PSETP.XOR.AND", "d", "pt", "a", "b", "pt"))
_put("cmp.ne", ("bool",), ("PSETP.XOR.AND", "d", "pt", "a", "b", "pt"))
_put("cmp.eq", ("bool",), ("PSETP.XOR.AND", "d", "pt", "a", "!b", "pt"))
_put("mov", ("bool",), ("PSETP.AND.AND", "d", "pt", "a", "pt", "pt"))
_put("not", ("bool",), ("PSETP.AND.AND", "d", "pt", "!a", "pt", "pt"))
_put("select", ("bool",), ("PSETP.AND.AND", "p0", "pt", "a", "b", "pt"), ("PSETP.AND.OR", "d", "pt", "!a", "c", "p0"))
for _a in INT:
    for _b in INT:
        _put("cvt", (f"{_a}>{_b}",), ("MOV", "d", "a"))
    _put("cvt", (f"{_a}>bool",), ("ISETP.NE.AND", "d", "pt", "a", "RZ", "pt"))
    _put("cvt", (f"bool>{_a}",), ("SEL", "d", "RZ", "0x1", "!a"))
_put("cvt", ("bool>bool",), ("PSETP.AND.AND", "d", "pt", "a", "pt", "pt"))

_put("bitcast", ("i32>u32", "u32>i32", "i32>i32", "u32>u32"), ("MOV", "d", "a"))

# f32: IEEE binary32 in a general register (docs/fermi.md, "Floats")
FLOAT = ("f32",)
FCC = {**CC, "cmp.ne": "NEU"}                                     # x != y is true on a NaN (PTX's une)
_put("add", FLOAT, ("FADD", "d", "a", "b"))
_put("sub", FLOAT, ("FADD", "d", "a", "-b"))
_put("mul", FLOAT, ("FMUL", "d", "a", "b"))
_put("fma", FLOAT, ("FFMA", "d", "a", "b", "c"))
_put("min", FLOAT, ("FMNMX", "d", "a", "b", "pt"))
_put("max", FLOAT, ("FMNMX", "d", "a", "b", "!pt"))
_put("neg", FLOAT, ("LOP32I.XOR", "d", "a", "0x80000000"))       # the sign bit, a NaN's too
_put("abs", FLOAT, ("LOP32I.AND", "d", "a", "0x7fffffff"))
_put("floor", FLOAT, ("F2F.F32.F32.FLOOR", "d", "a"))
_put("ceil", FLOAT, ("F2F.F32.F32.CEIL", "d", "a"))
_put("trunc", FLOAT, ("F2F.F32.F32.TRUNC", "d", "a"))
_put("mov", FLOAT, ("MOV", "d", "a"))
_put("select", FLOAT, ("SEL", "d", "b", "c", "a"))
for _cmp, _cc in FCC.items():
    _put(_cmp, FLOAT, (f"FSETP.{_cc}.AND", "d", "pt", "a", "b", "pt"))
_put("cvt", ("f32>f32",), ("MOV", "d", "a"))
_put("cvt", ("f32>i32",), ("F2I.S32.F32.TRUNC", "d", "a"))
_put("cvt", ("f32>u32",), ("F2I.U32.F32.TRUNC", "d", "a"))
_put("cvt", ("i32>f32",), ("I2F.F32.S32", "d", "a"))
_put("cvt", ("u32>f32",), ("I2F.F32.U32", "d", "a"))
_put("cvt", ("f32>bool",), ("FSETP.NEU.AND", "d", "pt", "a", "RZ", "pt"))   # a NaN is true, as C's
_put("cvt", ("bool>f32",), ("MOV32I", "t0", "0x3f800000"), ("SEL", "d", "t0", "RZ", "a"))
_put("bitcast", ("f32>i32", "f32>u32", "i32>f32", "u32>f32"), ("MOV", "d", "a"))

# f64: IEEE binary64 in a register pair (docs/fermi.md, "Register pairs"): the D instructions take the
# pairs whole; a move, negation, absolute value or choice is a word at a time (`d.lo`, `a.hi`)
DOUBLE = ("f64",)
_put("add", DOUBLE, ("DADD", "d", "a", "b"))
_put("sub", DOUBLE, ("DADD", "d", "a", "-b"))
_put("mul", DOUBLE, ("DMUL", "d", "a", "b"))
_put("fma", DOUBLE, ("DFMA", "d", "a", "b", "c"))
_put("min", DOUBLE, ("DMNMX", "d", "a", "b", "pt"))
_put("max", DOUBLE, ("DMNMX", "d", "a", "b", "!pt"))
_put("neg", DOUBLE, ("MOV", "d.lo", "a.lo"), ("LOP32I.XOR", "d.hi", "a.hi", "0x80000000"))
_put("abs", DOUBLE, ("MOV", "d.lo", "a.lo"), ("LOP32I.AND", "d.hi", "a.hi", "0x7fffffff"))
_put("floor", DOUBLE, ("F2F.F64.F64.FLOOR", "d", "a"))
_put("ceil", DOUBLE, ("F2F.F64.F64.CEIL", "d", "a"))
_put("trunc", DOUBLE, ("F2F.F64.F64.TRUNC", "d", "a"))
_put("mov", DOUBLE, ("MOV", "d.lo", "a.lo"), ("MOV", "d.hi", "a.hi"))
_put("select", DOUBLE, ("SEL", "d.lo", "b.lo", "c.lo", "a"), ("SEL", "d.hi", "b.hi", "c.hi", "a"))
for _cmp, _cc in FCC.items():
    _put(_cmp, DOUBLE, (f"DSETP.{_cc}.AND", "d", "pt", "a", "b", "pt"))
_put("cvt", ("f64>f64",), ("MOV", "d.lo", "a.lo"), ("MOV", "d.hi", "a.hi"))
_put("cvt", ("f32>f64",), ("F2F.F64.F32", "d", "a"))
_put("cvt", ("f64>f32",), ("F2F.F32.F64", "d", "a"))
_put("cvt", ("f64>i32",), ("F2I.S32.F64.TRUNC", "d", "a"))
_put("cvt", ("f64>u32",), ("F2I.U32.F64.TRUNC", "d", "a"))
_put("cvt", ("i32>f64",), ("I2F.F64.S32", "d", "a"))
_put("cvt", ("u32>f64",), ("I2F.F64.U32", "d", "a"))
_put("cvt", ("f64>bool",), ("DSETP.NEU.AND", "d", "pt", "a", "RZ", "pt"))   # a NaN is true, as C's
_put("cvt", ("bool>f64",), ("MOV32I", "t0", "0x3ff00000"), ("MOV", "d.lo", "RZ"), ("SEL", "d.hi", "t0", "RZ", "a"))

# i64 and u64: a 64-bit integer in a register pair, as f64 (docs/fermi.md, "Register pairs"). An add
# carries from the low word into the high one (IADD.CC, IADD.X); a subtraction adds ~b with a carry in
# (-b.lo is ~b.lo + 1); a product is IMUL.HI and IMAD on the words; a comparison tests the high words,
# and the low ones (unsigned) where the high ones are equal. Shifts are Selector.shift64.
LONG = ("i64", "u64")
_put("add", LONG, ("IADD.CC", "d.lo", "a.lo", "b.lo"), ("IADD.X", "d.hi", "a.hi", "b.hi"))
_put("sub", LONG, ("IADD.CC", "d.lo", "a.lo", "-b.lo"), ("IADD.X", "d.hi", "a.hi", "~b.hi"))
_put("neg", LONG, ("IADD.CC", "d.lo", "RZ", "-a.lo"), ("IADD.X", "d.hi", "RZ", "~a.hi"))
_put("mul", LONG, ("IMUL.U32.U32.HI", "t0", "a.lo", "b.lo"), ("IMAD", "t1", "a.lo", "b.hi", "t0"),
     ("IMAD", "d.hi", "a.hi", "b.lo", "t1"), ("IMUL", "d.lo", "a.lo", "b.lo"))
for _op, _lop in (("and", "AND"), ("or", "OR"), ("xor", "XOR")):
    _put(_op, LONG, (f"LOP.{_lop}", "d.lo", "a.lo", "b.lo"), (f"LOP.{_lop}", "d.hi", "a.hi", "b.hi"))
_put("not", LONG, ("LOP.PASS_B", "d.lo", "RZ", "~a.lo"), ("LOP.PASS_B", "d.hi", "RZ", "~a.hi"))
_put("mov", LONG, ("MOV", "d.lo", "a.lo"), ("MOV", "d.hi", "a.hi"))
_put("select", LONG, ("SEL", "d.lo", "b.lo", "c.lo", "a"), ("SEL", "d.hi", "b.hi", "c.hi", "a"))
_put("abs", ("i64",), ("ISETP.LT.AND", "p0", "pt", "a.hi", "RZ", "pt"), ("IADD.CC", "t0", "RZ", "-a.lo"),
     ("IADD.X", "t1", "RZ", "~a.hi"), ("SEL", "d.lo", "t0", "a.lo", "p0"), ("SEL", "d.hi", "t1", "a.hi", "p0"))
_put("abs", ("u64",), ("MOV", "d.lo", "a.lo"), ("MOV", "d.hi", "a.hi"))
_put("popc", LONG, ("POPC", "t0", "a.lo", "a.lo"), ("POPC", "t1", "a.hi", "a.hi"), ("IADD", "d", "t0", "t1"))
_put("cmp.eq", LONG, ("ISETP.EQ.AND", "p0", "pt", "a.lo", "b.lo", "pt"),
     ("ISETP.EQ.AND", "d", "pt", "a.hi", "b.hi", "p0"))
_put("cmp.ne", LONG, ("ISETP.NE.AND", "p0", "pt", "a.lo", "b.lo", "pt"),
     ("ISETP.NE.OR", "d", "pt", "a.hi", "b.hi", "p0"))
_STRICT = {"LT": "LT", "LE": "LT", "GT": "GT", "GE": "GT"}
for _kind, _sign in (("i64", ""), ("u64", ".U32")):
    for _cmp, _cc in CC.items():
        if _cc in _STRICT:                     # hi < hi', or hi == hi' and lo <= lo' (unsigned)
            _put(_cmp, (_kind,), (f"ISETP.{_cc}.U32.AND", "p0", "pt", "a.lo", "b.lo", "pt"),
                 ("ISETP.EQ.AND", "p1", "pt", "a.hi", "b.hi", "p0"),
                 (f"ISETP.{_STRICT[_cc]}{_sign}.OR", "d", "pt", "a.hi", "b.hi", "p1"))
    for _op, _cc in (("min", "LT"), ("max", "GT")):
        _put(_op, (_kind,), (f"ISETP.{_cc}.U32.AND", "p0", "pt", "a.lo", "b.lo", "pt"),
             ("ISETP.EQ.AND", "p1", "pt", "a.hi", "b.hi", "p0"),
             (f"ISETP.{_cc}{_sign}.OR", "p1", "pt", "a.hi", "b.hi", "p1"),
             ("SEL", "d.lo", "a.lo", "b.lo", "p1"), ("SEL", "d.hi", "a.hi", "b.hi", "p1"))
for _a in INT:
    for _b in LONG:
        _put("cvt", (f"{_b}>{_a}",), ("MOV", "d", "a.lo"))
    _put("cvt", (f"i32>{_a.replace('32', '64')}",), ("MOV", "d.lo", "a"), ("SHR", "d.hi", "a", "0x1f"))
    _put("cvt", (f"u32>{_a.replace('32', '64')}",), ("MOV", "d.lo", "a"), ("MOV", "d.hi", "RZ"))
for _a in LONG:
    for _b in LONG:
        _put("cvt", (f"{_a}>{_b}",), ("MOV", "d.lo", "a.lo"), ("MOV", "d.hi", "a.hi"))
        _put("bitcast", (f"{_a}>{_b}",), ("MOV", "d.lo", "a.lo"), ("MOV", "d.hi", "a.hi"))
    _put("bitcast", (f"f64>{_a}", f"{_a}>f64"), ("MOV", "d.lo", "a.lo"), ("MOV", "d.hi", "a.hi"))
    _put("cvt", (f"{_a}>bool",), ("LOP.OR", "t0", "a.lo", "a.hi"), ("ISETP.NE.AND", "d", "pt", "t0", "RZ", "pt"))
    _put("cvt", (f"bool>{_a}",), ("SEL", "d.lo", "RZ", "0x1", "!a"), ("MOV", "d.hi", "RZ"))
    _sign = "S64" if _a == "i64" else "U64"
    _put("cvt", (f"{_a}>f64",), (f"I2F.F64.{_sign}", "d", "a"))
    _put("cvt", (f"{_a}>f32",), (f"I2F.F32.{_sign}", "d", "a"))
    _put("cvt", (f"f64>{_a}",), (f"F2I.{_sign}.F64.TRUNC", "d", "a"))
    _put("cvt", (f"f32>{_a}",), (f"F2I.{_sign}.F32.TRUNC", "d", "a"))

# Operand positions an immediate in the first source may swap with: (i, j, how)
COMMUTE = {"IADD": (1, 2, None), "IMUL": (1, 2, None), "LOP": (1, 2, None), "IMNMX": (1, 2, None),
           "ISETP": (2, 3, "mirror"), "SEL": (1, 2, "negate"), "FADD": (1, 2, None), "FMUL": (1, 2, None),
           "FMNMX": (1, 2, None), "FSETP": (2, 3, "mirror")}


def template_key(ins: Instr) -> tuple[str, str]:
    """The key of TEMPLATES an IR instruction is selected by: its op and the kind it works on."""
    op = ins.op
    if op in ("cvt", "bitcast"):
        return (op, f"{kind_of(ins.args[0].type)}>{kind_of(ins.dests[0].type)}")
    if op in ("select",):
        return (op, kind_of(ins.dests[0].type))
    return (op, kind_of(ins.args[0].type if ins.args else ins.dests[0].type))


def param_words(params) -> dict[str, int]:
    """Each parameter's constant-bank address: a word each from PARAM_BASE, two for a 64-bit scalar
    (low word first; the runtime writes them so)."""
    out, at = {}, PARAM_BASE
    for p in params:
        out[p.name] = at
        at += 8 if p.kind == "scalar" and p.elem.bits == 64 else 4
    return out


def kind_of(t: ScalarType) -> str:
    return t.name


def fits20(v: int) -> bool:
    return IMM20[0] <= v <= IMM20[1]


def wrap32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


class Selector:
    def __init__(self, k: Kernel, levels, its: bool = False, source: str | None = None):
        self.k, self.levels, self.its, self.source = k, levels, its, source
        self.abi = kernel_abi(k)
        self.param_word = param_words(self.abi.params)
        self.regs: dict[str, V] = {}
        assigned = {d.name for _, _, ins in k.instructions() for d in ins.dests}
        self.const_params = {p.name: p for p in k.params if isinstance(p, Reg) and p.name not in assigned}
        self.read = self._read_registers()
        self.out: list[MInstr] = []
        self.loc = None
        self.guard = None
        self.local: set[V] = set()
        self.cache: dict = {}
        self.pairs: dict = {}
        self.written = self._written_arrays()

    def _written_arrays(self) -> set[str]:
        """The arrays the kernel stores to or updates atomically. Fermi's L1 is not coherent,
        so a plain load of such a global array reads L2 (LD.CG): another block may have
        written the word since this SM cached its line, and no fence invalidates L1."""
        return {ins.ref.name for _, _, ins in self.k.instructions()
                if ins.ref is not None and (ins.op == "st" or ins.op.startswith("atom."))}

    def _read_registers(self) -> set[str]:
        out = set()
        for b in self.k.blocks:
            for ins in b.instrs:
                for a in ins.args:
                    r = a.index if isinstance(a, Ref) else a
                    if isinstance(r, Reg):
                        out.add(r.name)
                for reg, _ in guard_of(ins):
                    out.add(reg.name)
            if isinstance(b.term, Branch) and isinstance(b.term.cond, Reg):
                out.add(b.term.cond.name)
        return out

    # ---- registers and operands
    def vreg(self, r: Reg) -> V:
        v = self.regs.get(r.name)
        if v is None:
            v = self.regs[r.name] = V("p" if r.type == BOOL else "d" if r.type.bits == 64 else "r", r.name)
        return v

    def temp(self, cls: str = "r") -> V:
        return V(cls, "", temp=True)

    def emit(self, name: str, *ops, guard="inherit", sync: bool = False) -> MInstr:
        op, *mods = name.split(".")
        if op not in OPCODES:
            raise EmitterError(f"no opcode {op}")
        ins = MInstr(op, tuple(mods), list(ops), None, sync, self.loc)
        g = self.guard if guard == "inherit" else guard
        defs = ins.defs()
        pure = ins.pure
        if g is not None and not (pure and defs and all(d.temp for d in defs)):
            ins.guard = g
            ins.kills = {d for d in defs if d.temp or d in self.local}
        whole = not any(isinstance(o, Use) and o.half is not None for o in ins.ops[:ins.ndests])
        if ins.guard is None and pure and len(defs) == 1 and defs[0].temp and len(ins.ops) > 1 and whole:
            key = (op, ins.mods, tuple(_key(o) for o in ins.ops[1:]))
            hit = self.cache.get(key)
            if hit is not None:
                return hit
            self.out.append(ins)
            self.cache[key] = ins
        else:
            self.out.append(ins)
        self.invalidate(defs)
        return ins

    def invalidate(self, defs) -> None:
        if not defs or not self.cache:
            return
        dead = {d for d in defs if not d.temp}
        if not dead:
            return
        for key in [k for k, ins in self.cache.items() if _mentions(k, dead)]:
            del self.cache[key]

    def result(self, ins: MInstr) -> V:
        return ins.ops[0].v

    def value(self, a, shape: str = "R", neg: bool = False, inv: bool = False):
        """IR operand → a SASS operand that fits `shape` (letters R, I, C, P)."""
        if isinstance(a, Imm):
            if a.type == BOOL:
                return Pred(PT, neg=(not a.value) ^ neg)
            if a.type == F64:                   # a pair of words (+0.0: RZ)
                return self.double_constant(floats.f64_bits(a.value) ^ (neg << 63))
            if a.type.bits == 64:               # an i64 / u64: a pair of its words, -/~ on the pair's use
                bits = int(a.value) & ((1 << 64) - 1)
                if bits == 0 and not neg and not inv:
                    return SassReg(RZ)
                return Use(self.pair_of(("imm", bits), (_word_operand(self, (bits >> (32 * h)) & 0xFFFFFFFF)
                                                        for h in (0, 1))), neg=neg, inv=inv)
            if a.type == F32:                   # its bits; a negated one is the other sign
                return self.value(Imm(wrap32(floats.f32_bits(a.value) ^ (neg << 31)), _I32), shape, inv=inv)
            v = int(a.value)
            v = -v if neg else v
            v = ~v if inv else v
            v = wrap32(v)
            if v == 0 and "R" in shape:
                return SassReg(RZ)
            if "I" in shape and fits20(v):
                return SassImm(v)
            if "R" not in shape:
                raise EmitterError(f"an immediate {v} where only {shape} fits")
            if fits20(v):
                return Use(self.result(self.emit("MOV", Use(self.temp()), SassImm(v), guard=None)))
            return Use(self.result(self.emit("MOV32I", Use(self.temp()), SassImm(v & 0xFFFFFFFF), guard=None)))
        if isinstance(a, Reg):
            if a.name in self.const_params and a.type.bits == 64:     # its two words, into a pair
                t = self.pair_of(("param", a.name), (ConstBankWord(0, self.param_word[a.name] + 4 * h)
                                                     for h in (0, 1)))
                return Use(t, neg=neg, inv=inv)
            if a.name in self.const_params:
                word = ConstBankWord(0, self.param_word[a.name])
                if a.type == BOOL:
                    raw = self.result(self.emit("MOV", Use(self.temp()), word, guard=None))
                    p = self.result(self.emit("ISETP.NE.AND", Use(self.temp("p")), Pred(PT), Use(raw), SassReg(RZ),
                                              Pred(PT), guard=None))
                    return Use(p, neg=neg)
                if "C" in shape and not neg and not inv:
                    return word
                t = self.result(self.emit("MOV", Use(self.temp()), word, guard=None))
                return Use(t, neg=neg, inv=inv)
            v = self.vreg(a)
            if v.cls == "p" and "P" not in shape:
                raise EmitterError(f"a bool %{a.name} where only {shape} fits")
            return Use(v, neg=neg, inv=inv)
        raise EmitterError(f"not a value operand: {a}")

    def pair_of(self, key, words) -> V:
        """A temporary pair holding two words (operands MOV takes), made once a block for each key
        (a constant's bits, a parameter's name): its MOVs are unguarded, so it serves the rest of the
        block."""
        t = self.pairs.get(key)
        if t is None:
            t = self.pairs[key] = self.temp("d")
            self.pair_from(t, *words)
        return t

    def double_constant(self, bits: int):
        """A binary64 constant as a pair operand: RZ for +0.0, else a temporary pair of its words."""
        if bits == 0:
            return SassReg(RZ)
        t = self.temp("d")
        self.pair_from(t, *(_word_operand(self, (bits >> (32 * h)) & 0xFFFFFFFF) for h in (0, 1)))
        return Use(t)

    def pair_from(self, d: V, lo, hi, guard=None) -> None:
        """d = the two words lo and hi (operands MOV takes), a word at a time."""
        self.emit("MOV32I" if isinstance(lo, SassImm) and not fits20(wrap32(lo.value)) else "MOV", Use(d, half=0), lo,
                  guard=guard)
        self.emit("MOV32I" if isinstance(hi, SassImm) and not fits20(wrap32(hi.value)) else "MOV", Use(d, half=1), hi,
                  guard=guard)
        self.mark_pair_definition(self.out[-2:], d)

    def mark_pair_definition(self, code: list[MInstr], d: V) -> None:
        """Instructions that write d a word at a time: the first one's write ends d's old value (where
        it runs, and, guarded, as selection's kills say), the later ones' do not (mcode.Use)."""
        first = True
        for ins in code:
            if not any(isinstance(o, Use) and o.v is d and o.half is not None for o in ins.ops[:ins.ndests]):
                continue
            if first and ins.guard is None:
                ins.kills = ins.kills | {d}
            elif not first:
                ins.kills = ins.kills - {d}
            first = False

    def ireg(self, a) -> SassReg | Use:
        """An integer operand in a register (0 is RZ), a bool converted to 0/1."""
        if isinstance(a, Imm) and a.type == BOOL:
            return self.value(Imm(int(a.value), _I32), "R")
        if isinstance(a, Reg) and a.type == BOOL:
            p = self.value(a, "P")
            return Use(self.result(self.emit("SEL", Use(self.temp()), SassReg(RZ), SassImm(1),
                                             Use(p.v, neg=not p.neg))))
        return self.value(a, "R")

    # ---- the kernel
    def run(self) -> MFunction:
        blocks = []
        for n, b in enumerate(self.k.blocks):
            self.out, self.cache, self.pairs = [], {}, {}
            if n == 0:
                self.prologue()
            for ins in b.instrs:
                self.instr(ins)
            blocks.append(MBlock(b.label, self.out, self.terminator(b.term)))
        return MFunction(self.k.name, blocks)

    def prologue(self) -> None:
        """Scalar parameters the code assigns live in registers, from their constant-bank words."""
        for p in self.k.params:
            if isinstance(p, Reg) and p.name not in self.const_params and p.name in self.read:
                word = ConstBankWord(0, self.param_word[p.name])
                v = self.vreg(p)
                if v.cls == "p":
                    raw = self.result(self.emit("MOV", Use(self.temp()), word, guard=None))
                    self.emit("ISETP.NE.AND", Use(v), Pred(PT), Use(raw), SassReg(RZ), Pred(PT), guard=None)
                elif v.cls == "d":
                    self.pair_from(v, word, ConstBankWord(0, word.offset + 4))
                else:
                    self.emit("MOV", Use(v), word, guard=None)

    def location(self, span):
        if span is None or (self.source is not None and span.file != self.source):
            return None
        return (span.line, span.col)

    def terminator(self, term):
        self.guard, self.loc = None, self.location(term.span)
        if isinstance(term, Jump):
            return Goto(term.target, self.loc)
        if isinstance(term, Return):
            return Exit(self.loc)
        if isinstance(term, Branch):
            if isinstance(term.cond, Imm):
                return Goto(term.if_true if term.cond.value else term.if_false, self.loc)
            p = self.value(term.cond, "P")
            uniform = self.levels(term.cond)
            return CondBr(p.v, p.neg, term.if_true, term.if_false, uniform, self.loc)
        raise EmitterError(f"unknown terminator {term}")

    def instr(self, ins: Instr) -> None:
        self.loc = self.location(ins.span)
        self.guard = self.guard_for(guard_of(ins))
        self.local = {self.vreg(d) for d in ins.dests if d.name in (ins.attr("local") or ())}
        handler = HANDLERS.get(ins.op) or HANDLERS.get(ins.info.group if ins.op in _IR_OPS else "")
        if handler is not None:
            handler(self, ins)
        else:
            self.template(ins)
        self.guard, self.local = None, set()

    def guard_for(self, lits) -> tuple[V, bool] | None:
        """A guard for a conjunction of (register, negated) literals: one PSETP per extra literal."""
        if not lits:
            return None
        ops = []
        for reg, neg in lits:
            o = self.value(reg, "P", neg=neg)
            ops.append(o)
        if len(ops) == 1:
            o = ops[0]
            if isinstance(o, Pred):
                return None if not o.neg else self._false_guard()
            return (o.v, o.neg)
        acc = ops[0]
        for o in ops[1:]:
            acc = Use(self.result(self.emit("PSETP.AND.AND", Use(self.temp("p")), Pred(PT), acc, o, Pred(PT),
                                            guard=None)))
        return (acc.v, False)

    def _false_guard(self):
        p = self.result(self.emit("PSETP.AND.AND", Use(self.temp("p")), Pred(PT), Pred(PT, True), Pred(PT), Pred(PT),
                                  guard=None))
        return (p, False)

    # ---- templates
    def template(self, ins: Instr) -> None:
        op = ins.op
        key = template_key(ins)
        if op == "mul" and key[1] in INT and self.power_of_two_multiply(ins):
            return
        if op in ("shl", "shr") and key[1] in LONG:
            self.shift64(ins)
            return
        tpl = TEMPLATES.get(key)
        if tpl is None:
            raise EmitterError(f"the Fermi emitter has no instruction for `{op}` on {key[1]}")
        temps: dict[str, V] = {}
        start = len(self.out)
        for spec in tpl:
            self.apply(spec, ins, temps)
        if ins.dests and self.vreg(ins.dests[0]).cls == "d":
            self.mark_pair_definition(self.out[start:], self.vreg(ins.dests[0]))

    def apply(self, spec: tuple[str, ...], ins: Instr, temps: dict) -> None:
        name, *ops = spec
        op = name.split(".")[0]
        shapes = OPCODES[op].shapes
        mods = name.split(".")[1:]
        # an immediate in a register-only slot: swap with its partner where the op allows
        swap = COMMUTE.get(op)
        if swap is not None:
            i, j, how = swap
            if i < len(ops) and j < len(ops) and self._is_imm_operand(ops[i], ins) \
                    and not self._is_imm_operand(ops[j], ins):
                ops[i], ops[j] = ops[j], ops[i]
                if how == "mirror":
                    mods[0] = MIRROR[mods[0]]
                elif how == "negate":
                    ops[3] = _flip(ops[3])
        out = []
        for n, o in enumerate(ops):
            out.append(self.operand(o, shapes[n].rstrip("?"), ins, temps))
        got = self.emit(".".join((op, *mods)), *out)
        first = ops[0].lstrip("-~!")
        if first in temps and got.ops[0].v is not temps[first]:
            temps[first] = got.ops[0].v             # value numbering found it computed already

    def _is_imm_operand(self, o: str, ins: Instr) -> bool:
        name = o.lstrip("-~!")
        if name in "abc" and len(name) == 1:
            a = ins.args["abc".index(name)]
            return isinstance(a, Imm) or (isinstance(a, Reg) and a.name in self.const_params)
        return o.startswith("0x")

    def operand(self, o: str, shape: str, ins: Instr, temps: dict):
        if o.endswith((".lo", ".hi")):          # one word of a pair
            whole = self.operand(o[:-3], "R", ins, temps)
            return _half(whole, o.endswith(".hi"))
        neg = o.startswith("-") or o.startswith("!")
        inv = o.startswith("~")
        name = o.lstrip("-~!")
        if name == "d":
            return Use(self.vreg(ins.dests[0]))
        if name == "d1":
            return Use(self.vreg(ins.dests[1]))
        if name in ("t0", "t1", "p0", "p1"):
            if name not in temps:
                temps[name] = self.temp("p" if name.startswith("p") else "r")
            return Use(temps[name], neg=neg)
        if name in ("a", "b", "c"):
            return self.value(ins.args["abc".index(name)], shape, neg=neg, inv=inv)
        if name == "RZ":
            return SassReg(RZ)
        if name == "pt":
            return Pred(PT, neg=neg)
        if name.startswith("0x"):
            return SassImm(int(name, 16))
        raise EmitterError(f"bad template operand {o}")

    def power_of_two_multiply(self, ins: Instr) -> bool:
        a, b = ins.args
        if isinstance(a, Imm) and not isinstance(b, Imm):
            a, b = b, a
        if not isinstance(b, Imm) or isinstance(a, Imm):
            return False
        v = int(b.value) & 0xFFFFFFFF
        if v == 0 or v & (v - 1):
            return False
        shift = v.bit_length() - 1
        if shift == 0:
            self.emit("MOV", Use(self.vreg(ins.dests[0])), self.value(a, "RIC"))
        else:
            self.emit("SHL", Use(self.vreg(ins.dests[0])), self.value(a, "R"), SassImm(shift))
        return True

    def shift64(self, ins: Instr) -> None:
        """A 64-bit shift: each word from the two words' shifted parts (Fermi has no funnel shift: SHL,
        SHR and LOP.OR). A constant amount (0..63, E0307) picks its words; an amount in a register
        (its low word, as PTX's shl.b64 reads a u32) uses that SHL and SHR of 32 or more give 0 and
        an arithmetic SHR of 32 or more the sign: at 64 or more the result is 0 (or the sign), as
        PTX's clamped shifts give."""
        a, b = ins.args
        d = self.vreg(ins.dests[0])
        left, arith = ins.op == "shl", ins.op == "shr" and ins.dests[0].type.signed
        src = self.value(a, "R")
        lo, hi = _half(src, False), _half(src, True)
        down = "SHR" if arith else "SHR.U32"
        dlo, dhi = Use(d, half=0), Use(d, half=1)
        start = len(self.out)

        def t(name, *ops):
            return Use(self.result(self.emit(name, Use(self.temp()), *ops, guard=None)))
        if isinstance(b, Imm):
            k = int(b.value) & 63
            if k == 0:
                self.emit("MOV", dlo, lo)
                self.emit("MOV", dhi, hi)
            elif left and k < 32:
                self.emit("LOP.OR", dhi, t("SHL", hi, SassImm(k)), t("SHR.U32", lo, SassImm(32 - k)))
                self.emit("SHL", dlo, lo, SassImm(k))
            elif left:
                self.emit("SHL", dhi, lo, SassImm(k - 32))
                self.emit("MOV", dlo, SassReg(RZ))
            elif k < 32:
                self.emit("LOP.OR", dlo, t("SHR.U32", lo, SassImm(k)), t("SHL", hi, SassImm(32 - k)))
                self.emit(down, dhi, hi, SassImm(k))
            else:
                self.emit(down, dlo, hi, SassImm(k - 32))
                if arith:
                    self.emit("SHR", dhi, hi, SassImm(31))
                else:
                    self.emit("MOV", dhi, SassReg(RZ))
        else:
            n = self.value(b, "R")
            if isinstance(n, Use) and n.v.cls == "d":
                n = _half(n, False)
            up = t("IADD", Use(n.v, neg=True, half=n.half) if isinstance(n, Use) else n, SassImm(32))   # 32 - n
            over = t("IADD", n, SassImm(-32))                                                             # n - 32
            if left:
                high = t("LOP.OR", t("SHL", hi, n), t("SHR.U32", lo, up))
                self.emit("LOP.OR", dhi, high, t("SHL", lo, over))
                self.emit("SHL", dlo, lo, n)
            elif not arith:
                low = t("LOP.OR", t("SHR.U32", lo, n), t("SHL", hi, up))
                self.emit("LOP.OR", dlo, low, t("SHR.U32", hi, over))
                self.emit("SHR.U32", dhi, hi, n)
            else:
                small = t("LOP.OR", t("SHR.U32", lo, n), t("SHL", hi, up))
                big = t("SHR", hi, over)
                p = self.result(self.emit("ISETP.LT.U32.AND", Use(self.temp("p")), Pred(PT), n, SassImm(32), Pred(PT),
                                          guard=None))
                self.emit("SEL", dlo, small, big, Use(p))
                self.emit("SHR", dhi, hi, n)
        self.mark_pair_definition(self.out[start:], d)

    # ---- handlers
    def sreg(self, ins: Instr) -> None:
        reg = ins.attr("reg")
        d = Use(self.vreg(ins.dests[0]))
        if reg == "clock" and d.v.cls == "d":
            # the 64-bit count: the high word, the low, the high again; where the high word moved between,
            # (the second high word, 0) is a count between the two reads
            first = self.emit("S2R", Use(self.temp()), Special("SR_ClockHi"), guard=None)
            low = self.emit("S2R", Use(self.temp()), Special("SR_ClockLo"), guard=None)
            high = self.emit("S2R", Use(self.temp()), Special("SR_ClockHi"), guard=None)
            moved = self.emit("ISETP.NE.AND", Use(self.temp("p")), Pred(PT), Use(self.result(first)),
                              Use(self.result(high)), Pred(PT), guard=None)
            start = len(self.out)
            self.emit("SEL", Use(d.v, half=0), SassReg(RZ), Use(self.result(low)), Use(self.result(moved)))
            self.emit("MOV", Use(d.v, half=1), Use(self.result(high)))
            self.mark_pair_definition(self.out[start:], d.v)
            return

        if reg in CBANK:
            self.emit("MOV", d, ConstBankWord(0, CBANK[reg]))
        elif reg in SREGS:
            self.emit("S2R", d, Special(SREGS[reg]))
        else:
            raise EmitterError(f"no special register `{reg}` on Fermi")

    def address(self, ref: Ref) -> tuple[VMem, Array]:
        array = self.k.array(ref.name)
        if array is None:
            raise EmitterError(f"@{ref.name} is not declared")
        if ref.field is not None:
            return self.field_address(ref, array)
        idx = ref.index
        shift = 3 if array.elem.bits == 64 else 2              # an element's bytes: 8 (a pair) or 4
        if array.space == "shared":
            if array.offset is None:
                raise EmitterError(f"shared @{ref.name} has no offset: allocate_lock_bits did not run")
            base = 4 * array.offset
            if isinstance(idx, Imm):
                return VMem(None, base + (int(idx.value) << shift)), array
            t = self.emit("SHL", Use(self.temp()), self.value(idx, "R"), SassImm(shift), guard=None)
            return VMem(self.result(t), base), array
        word = self.param_word.get(ref.name)
        if word is None:
            raise EmitterError(f"global @{ref.name} is neither a parameter nor global state")
        if isinstance(idx, Imm):
            t = self.emit("MOV", Use(self.temp()), ConstBankWord(0, word), guard=None)
            return VMem(self.result(t), int(idx.value) << shift), array
        t = self.emit("ISCADD", Use(self.temp()), self.value(idx, "R"), ConstBankWord(0, word), SassImm(shift),
                      guard=None)
        return VMem(self.result(t), 0), array

    def field_address(self, ref: Ref, array: Array) -> tuple[VMem, Array]:
        """A field of a record: byte (record size) * index + (the field's offset) from the array's
        start (core/records.py's layout; legalize.py refuses records with fields not 32 bits)."""
        size, offset = field_place(array, ref)
        view = self.k.accessed(ref)
        idx = ref.index
        if array.space == "shared":
            if array.offset is None:
                raise EmitterError(f"shared @{ref.name} has no offset: allocate_lock_bits did not run")
            base = 4 * array.offset + offset
            if isinstance(idx, Imm):
                return VMem(None, base + size * int(idx.value)), view
            t = self.emit("IMUL", Use(self.temp()), self.value(idx, "R"), self.value(Imm(size, _I32), "RIC"), guard=None)
            return VMem(self.result(t), base), view
        word = self.param_word.get(ref.name)
        if word is None:
            raise EmitterError(f"global @{ref.name} is neither a parameter nor global state")
        if isinstance(idx, Imm):
            t = self.emit("MOV", Use(self.temp()), ConstBankWord(0, word), guard=None)
            return VMem(self.result(t), size * int(idx.value) + offset), view
        scaled = self.emit("IMUL", Use(self.temp()), self.value(idx, "R"), self.value(Imm(size, _I32), "RIC"), guard=None)
        t = self.emit("IADD", Use(self.temp()), Use(self.result(scaled)), ConstBankWord(0, word), guard=None)
        return VMem(self.result(t), offset), view

    def load(self, ins: Instr) -> None:
        mem, array = self.address(ins.ref)
        d = self.vreg(ins.dests[0])
        dest = Use(self.temp()) if d.cls == "p" else Use(d)
        size = ".64" if d.cls == "d" else ""
        if array.space == "shared":
            self.emit("LDS" + size, dest, mem)
        else:
            cache = {"cg": ".CG", "volatile": ".CV"}.get(ins.attr("cache"), "")
            if not cache and ins.ref.name in self.written:
                cache = ".CG"
            self.emit("LD" + cache + size, dest, mem)
        if d.cls == "p":
            self.emit("ISETP.NE.AND", Use(d), Pred(PT), dest, SassReg(RZ), Pred(PT))

    def store(self, ins: Instr) -> None:
        mem, array = self.address(ins.ref)
        wide = array.elem.bits == 64
        v = self.value(ins.args[1], "R") if wide else self.ireg(ins.args[1])
        size = ".64" if wide else ""
        if array.space == "shared":
            self.emit("STS" + size, mem, v)
        else:
            self.emit("ST" + size, mem, v)

    def atomic(self, ins: Instr) -> None:
        mem, array = self.address(ins.ref)
        if array.space != "global":
            raise EmitterError(f"`{ins.op}` on shared @{ins.ref.name} should have become a lock-bit loop")
        op = ATOM[ins.op]
        sign = (".S32" if array.elem.signed else ".U32") if op in ("MIN", "MAX") else ""
        if array.elem == F32 and op != "ADD" and op not in ("EXCH", "CAS"):
            raise EmitterError(f"`{ins.op}` on an f32 word should have become a CAS loop (legalize.py)")
        if array.elem == F32 and op == "ADD":
            sign = ".F32.FTZ.RN"                 # Fermi's float add at L2, which flushes subnormals
        wide = array.elem.bits == 64
        if wide:
            if op not in ("CAS",) + (() if array.elem == F64 else ("ADD", "EXCH")):
                raise EmitterError(f"`{ins.op}` on a 64-bit word should have become a CAS loop (legalize.py)")
            sign = ".64"                         # ATOM.CAS/ADD/EXCH.64: on the pair of words, with pairs
        vals = [self.value(a, "R", neg=(ins.op == "atom.sub")) for a in ins.args[1:]]
        vals = [self._in_register(v, array.elem == F32) for v in vals]
        used = bool(ins.dests) and ins.dests[0].name in self.read
        if not used and wide:
            self.emit(f"ATOM.{op}{sign}", SassReg(RZ), mem, *vals)     # (RED has no .64)
        elif not used and op not in ("EXCH", "CAS"):
            self.emit(f"RED.{op}{sign}", mem, *vals)
        else:
            dest = Use(self.vreg(ins.dests[0])) if used else SassReg(RZ)
            self.emit(f"ATOM.{op}{sign}", dest, mem, *vals)

    def _in_register(self, v, is_float: bool = False):
        """A negated register (atom.sub) as a register holding the negation (of a float: its sign bit
        flipped)."""
        if isinstance(v, Use) and v.neg and v.v.cls == "d":        # a 64-bit integer's negation
            t = self.temp("d")
            self.emit("IADD.CC", Use(t, half=0), SassReg(RZ), Use(v.v, neg=True, half=0), guard=None)
            self.emit("IADD.X", Use(t, half=1), SassReg(RZ), Use(v.v, inv=True, half=1), guard=None)
            self.mark_pair_definition(self.out[-2:], t)
            return Use(t)
        if isinstance(v, Use) and v.neg:
            if is_float:
                return Use(self.result(self.emit("LOP32I.XOR", Use(self.temp()), Use(v.v), SassImm(0x80000000),
                                                 guard=None)))
            return Use(self.result(self.emit("IADD", Use(self.temp()), SassReg(RZ), v, guard=None)))
        return v

    def lockbit_try(self, ins: Instr) -> None:
        mem, _ = self.address(ins.ref)
        taken, word = ins.dests
        pd = Use(self.vreg(taken))
        if word.type.bits == 64 and word.name in self.read:
            # a 64-bit word: the low word's lock bit guards the pair (every LDSLK/STSUL of it names the low
            # word); the high word is read after the low one, which its holder stored before the STSUL
            w = self.vreg(word)
            start = len(self.out)
            self.emit("LDSLK", pd, Use(w, half=0), mem)
            self.emit("LDS", Use(w, half=1), VMem(mem.base, mem.offset + 4))
            self.mark_pair_definition(self.out[start:], w)
        elif word.name not in self.read:
            self.emit("LDSLK", pd, SassReg(RZ), mem)
        elif word.type == BOOL:
            # a bool slot's word: LDSLK loads it into a data register; the bool is word != 0
            raw = Use(self.temp())
            self.emit("LDSLK", pd, raw, mem)
            self.emit("ISETP.NE.AND", Use(self.vreg(word)), Pred(PT), raw, SassReg(RZ), Pred(PT))
        else:
            self.emit("LDSLK", pd, Use(self.vreg(word)), mem)

    def lockbit_release(self, ins: Instr) -> None:
        mem, _ = self.address(ins.ref)
        v = ins.args[1]
        if getattr(v, "type", None) is not None and v.type.bits == 64:
            pair = self.value(v, "R")             # the high word first; STSUL of the low one frees the bit
            self.emit("STS", VMem(mem.base, mem.offset + 4), _half(pair, True))
            self.emit("STSUL", mem, _half(pair, False))
            return
        self.emit("STSUL", mem, self.ireg(ins.args[1]))

    def fence(self, ins: Instr) -> None:
        self.emit(f"MEMBAR.{MEMBAR[ins.attr('scope') or 'gpu']}")

    def bar_sync(self, ins: Instr) -> None:
        args = ins.args
        if len(args) == 1 and isinstance(args[0], Imm) and int(args[0].value) == 0:
            self.emit("BAR.RED.POPC", SassReg(RZ), SassReg(RZ))
            return
        self.emit("BAR.SYNC", *(self.value(a, "RI") for a in args))

    def bar_arrive(self, ins: Instr) -> None:
        self.emit("BAR.ARV", *(self.value(a, "RI") for a in ins.args))

    def nanosleep(self, ins: Instr) -> None:
        """ITS only (legalize makes it a clock loop on Fermi): the split sleeps, the others run."""
        if not self.its:
            self.unexpanded(ins)
        self.emit("NANOSLEEP", self.value(ins.args[0], "RI"))

    def warp_sync(self, ins: Instr) -> None:
        if self.its:
            self.emit("WARPSYNC", self.value(ins.args[0], "RI"))

    def vote(self, ins: Instr) -> None:
        d = Use(self.vreg(ins.dests[0]))
        src = self.value(ins.args[0], "P") if ins.args else Pred(PT)
        if self.its and len(ins.args) > 1:       # vote.sync: the lanes that must take part meet first
            self.emit("WARPSYNC", self.value(ins.args[1], "RI"))
        if ins.op == "vote.any":
            self.emit("VOTE.ANY", SassReg(RZ), d, src)
        elif ins.op == "vote.all":
            self.emit("VOTE.ALL", SassReg(RZ), d, src)
        else:                                    # ballot, activemask: the ballot of the operand (of pt)
            self.emit("VOTE.ANY", d, Pred(PT), src)

    def elect(self, ins: Instr) -> None:
        """The lowest active lane: no active lane below it (mask & lanemask_lt == 0)."""
        below = self.result(self.emit("S2R", Use(self.temp()), Special("SR_LanemaskLt")))
        mask = self.result(self.emit("VOTE.ANY", Use(self.temp()), Pred(PT), Pred(PT)))
        lower = self.result(self.emit("LOP.AND", Use(self.temp()), Use(mask), Use(below)))
        self.emit("ISETP.EQ.AND", Use(self.vreg(ins.dests[0])), Pred(PT), Use(lower), SassReg(RZ), Pred(PT))

    def divide(self, ins: Instr) -> None:
        """By a constant (legalize.py turned division by a register into a loop); an f32 quotient is
        float_rounding.py's correctly rounded sequence."""
        x, y = ins.args
        if ins.dests[0].type == F32:
            divide_f32(self, Use(self.vreg(ins.dests[0])), self.value(x, "R"), self.value(y, "R"))
            return
        if ins.dests[0].type == F64 and ins.op == "div":
            divide_f64(self, Use(self.vreg(ins.dests[0])), self.value(x, "R"), self.value(y, "R"))
            return
        if not isinstance(y, Imm):
            raise EmitterError("division by a register should have become a loop (legalize.py)")
        d = Use(self.vreg(ins.dests[0]))
        signed = ins.dests[0].type.signed
        n = int(y.value) if signed else int(y.value) & 0xFFFFFFFF
        quotient = ins.op == "div"
        if isinstance(x, Imm):          # both constant: fold (C's truncation; x / 0 as the loop gives it)
            self.emit_constant(d, _fold_divide(int(x.value), n, signed, quotient))
            return
        src = self.value(x, "R")
        if quotient:
            self.emit("MOV", d, divide_sequence(self, src, n, signed))
            return
        magnitude = abs(n)
        if n == 0:
            self.emit("MOV", d, src)                       # x % 0: what the division loop gives
        elif magnitude == 1:
            self.emit("MOV", d, SassReg(RZ))
        elif magnitude & (magnitude - 1) == 0 and not signed:
            self.emit("LOP.AND", d, src, self.value(Imm(wrap32(magnitude - 1), _I32), "RIC"))
        elif magnitude & (magnitude - 1) == 0:
            k = magnitude.bit_length() - 1
            biased = _biased(self, src, k)
            low = self.emit("LOP.AND", Use(self.temp()), biased, self.value(Imm(wrap32(-magnitude), _I32), "RIC"),
                            guard=None)
            self.emit("IADD", d, src, Use(self.result(low), neg=True))
        else:
            q = divide_sequence(self, src, n, signed)
            prod = self.emit("IMUL", Use(self.temp()), q, self.value(Imm(wrap32(n), _I32), "RIC"), guard=None)
            self.emit("IADD", d, src, Use(self.result(prod), neg=True))

    def sqrt(self, ins: Instr) -> None:
        """f32 square root: float_rounding.py's correctly rounded sequence."""
        if ins.dests[0].type == F64:
            sqrt_f64(self, Use(self.vreg(ins.dests[0])), self.value(ins.args[0], "R"))
            return
        if ins.dests[0].type != F32:
            raise EmitterError(f"no Fermi square root of {ins.dests[0].type}")
        sqrt_f32(self, Use(self.vreg(ins.dests[0])), self.value(ins.args[0], "R"))

    def emit_constant(self, d: Use, v: int) -> None:
        v = wrap32(v)
        if fits20(v):
            self.emit("MOV", d, SassImm(v))
        else:
            self.emit("MOV32I", d, SassImm(v & 0xFFFFFFFF))

    def trap(self, ins: Instr) -> None:
        self.emit("BPT.TRAP", SassImm(1))

    def unexpanded(self, ins: Instr) -> None:
        raise EmitterError(f"`{ins.op}` reached the Fermi emitter: expand_primitives/legalize should have "
                           "replaced it")


def divide_sequence(sel: Selector, src, n: int, signed: bool, want_quotient: bool = True):
    """The quotient of src / n (n a constant) as an operand: shifts for a power of two,
    else Granlund–Montgomery multiply-high (GM 1994, figures 4.1 and 5.2)."""
    def t(name, *ops):
        return Use(sel.result(sel.emit(name, Use(sel.temp()), *ops, guard=None)))

    def const(v):
        return sel.value(Imm(wrap32(v), _I32), "RI")

    if n == 0:                                   # what the division loop gives: all ones
        return const(-1)
    if not signed:
        n &= 0xFFFFFFFF
        if n & (n - 1) == 0:
            k = n.bit_length() - 1
            return src if k == 0 else t("SHR.U32", src, SassImm(k))
        ell = (n - 1).bit_length()
        m = (((1 << 32) * ((1 << ell) - n)) // n) + 1
        hi = t("IMUL.U32.U32.HI", src, sel.value(Imm(wrap32(m), _I32), "R"))
        diff = t("IADD", src, Use(hi.v, neg=True))
        half = t("SHR.U32", diff, SassImm(1))
        total = t("IADD", half, hi)
        return t("SHR.U32", total, SassImm(ell - 1)) if ell > 1 else total
    magnitude = abs(n)
    if magnitude == 1:
        q = src
    elif magnitude & (magnitude - 1) == 0:
        k = magnitude.bit_length() - 1
        q = t("SHR", _biased(sel, src, k), SassImm(k))
    else:
        ell = max((magnitude - 1).bit_length(), 1)
        m = 1 + (1 << (31 + ell)) // magnitude
        hi = t("IMUL.S32.S32.HI", src, sel.value(Imm(wrap32(m - (1 << 32)), _I32), "R"))
        q0 = t("SHR", t("IADD", hi, src), SassImm(ell - 1))
        q = t("IADD", q0, Use(t("SHR", src, SassImm(31)).v, neg=True))
    if n < 0:
        q = t("IADD", SassReg(RZ), Use(q.v, neg=True)) if isinstance(q, Use) else q
    return q


def _biased(sel: Selector, src, k: int):
    """src + (2^k - 1 when src is negative): rounds a signed shift toward zero."""
    sign = sel.result(sel.emit("SHR", Use(sel.temp()), src, SassImm(31), guard=None))           # -1 when negative
    bias = sel.result(sel.emit("SHR.U32", Use(sel.temp()), Use(sign), SassImm(32 - k), guard=None))
    return Use(sel.result(sel.emit("IADD", Use(sel.temp()), src, Use(bias), guard=None)))


def _fold_divide(x: int, n: int, signed: bool, quotient: bool) -> int:
    if not signed:
        x &= 0xFFFFFFFF
        n &= 0xFFFFFFFF
    if n == 0:
        return -1 if quotient else x
    q = abs(x) // abs(n)
    if (x < 0) != (n < 0):
        q = -q
    return q if quotient else x - q * n


def _flip(o: str) -> str:
    return o[1:] if o.startswith("!") else "!" + o


def _half(o, high: bool):
    """One word of a pair operand (RZ: RZ)."""
    if isinstance(o, SassReg) and o.n == RZ:
        return o
    if isinstance(o, Use) and o.v.cls == "d":
        return Use(o.v, o.neg, o.inv, int(high))
    raise EmitterError(f"not a register pair: {o}")


def _word_operand(sel: "Selector", w: int):
    """A 32-bit word as an operand MOV / MOV32I takes: RZ, or an immediate."""
    return SassReg(RZ) if w == 0 else SassImm(wrap32(w) if fits20(wrap32(w)) else w)


def _key(o):
    if isinstance(o, Use):
        return ("v", o.v.id, o.neg, o.inv, o.half)
    if isinstance(o, VMem):
        return ("m", o.base.id if o.base else None, o.offset)
    return ("o", str(o))


def _mentions(key, dead: set[V]) -> bool:
    ids = {v.id for v in dead}
    return any(part[0] == "v" and part[1] in ids or part[0] == "m" and part[1] in ids for part in key[2])


HANDLERS = {
    "sreg": Selector.sreg,
    "ld": Selector.load,
    "st": Selector.store,
    "atomic": Selector.atomic,
    "lockbit.try": Selector.lockbit_try,
    "lockbit.release": Selector.lockbit_release,
    "fence": Selector.fence,
    "bar.sync": Selector.bar_sync,
    "bar.arrive": Selector.bar_arrive,
    "warp.sync": Selector.warp_sync,
    "vote.any": Selector.vote,
    "vote.all": Selector.vote,
    "ballot": Selector.vote,
    "activemask": Selector.vote,
    "elect": Selector.elect,
    "div": Selector.divide,
    "rem": Selector.divide,
    "sqrt": Selector.sqrt,
    "prim": Selector.unexpanded,
    "nanosleep": Selector.nanosleep,
    "region.end": Selector.unexpanded,
    "bounds.check": Selector.unexpanded,
    "trap": Selector.trap,
}
