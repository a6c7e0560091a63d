"""The Fermi-like instruction set of the simulator: operands, instructions, and one opcode table.

The syntax is what cuobjdump and asfermi print for sm_20:

    /*0068*/     @!P0 LDSLK P0, R2, [R0+0x4];
    /*0090*/     ISETP.EQ.AND.S P2, pt, R2, RZ, pt;

An instruction is an optional guard predicate (`@P0`, `@!P0`), an opcode with
dot-modifiers (`ISETP.EQ.U32.AND`), an optional `.S` (the reconvergence mark:
after executing, the warp pops its SIMT stack), and operands. Every instruction
is 8 bytes; branch targets are byte addresses.

Registers are R0..R62 and RZ (always zero; writes vanish); predicates P0..P6 and
pt (always true). Immediates print in hex (`0x1`, `-0x4`); memory operands are
`[R0]`, `[R7+-0x4]`, `[0x10]`; the constant bank is `c [0x0] [0x20]`.

The table OPCODES says, for each opcode, its operand shapes, how many leading
operands it writes, the modifier groups it accepts (in order) and the unit that
executes it (the timing model's latency class). The assembler checks
instructions against it; the simulator decodes through it. Opcodes marked ITS
exist only in the simulator's independent-thread-scheduling mode (Volta-style
convergence barriers and WARPSYNC).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

RZ = 63        # the zero register
PT = 7         # the true predicate
NUM_REGS = 63  # R0..R62
NUM_PREDS = 7  # P0..P6
CARRY = 8      # the condition code's carry flag (IADD.CC writes it, IADD.X reads it): a hidden predicate row
INSTR_BYTES = 8


def hexval(v: int) -> str:
    return f"-0x{-v:x}" if v < 0 else f"0x{v:x}"


# ---- operands ----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SassReg:
    n: int                  # 0..62, or RZ
    neg: bool = False       # -R2 (IADD, ISCADD)
    inv: bool = False       # ~R2 (LOP)

    def __str__(self) -> str:
        name = "RZ" if self.n == RZ else f"R{self.n}"
        return ("-" if self.neg else "") + ("~" if self.inv else "") + name


@dataclass(frozen=True, slots=True)
class Pred:
    n: int                  # 0..6, or PT
    neg: bool = False       # !P0

    def __str__(self) -> str:
        return ("!" if self.neg else "") + ("pt" if self.n == PT else f"P{self.n}")


@dataclass(frozen=True, slots=True)
class SassImm:
    value: int

    def __str__(self) -> str:
        return hexval(self.value)


@dataclass(frozen=True, slots=True)
class Mem:
    """A memory address: base register plus a signed byte offset ([RZ+off] prints as [off])."""
    base: SassReg
    offset: int = 0

    def __str__(self) -> str:
        if self.base.n == RZ:
            return f"[{hexval(self.offset)}]"
        if self.offset == 0:
            return f"[{self.base}]"
        return f"[{self.base}+{hexval(self.offset)}]"


@dataclass(frozen=True, slots=True)
class ConstBankWord:
    """A word of a constant bank: bank 0 holds the launch shape and the parameters (see CBANK)."""
    bank: int
    offset: int

    def __str__(self) -> str:
        return f"c [{hexval(self.bank)}] [{hexval(self.offset)}]"


@dataclass(frozen=True, slots=True)
class Special:
    name: str               # one of SPECIALS

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class BranchTarget:
    addr: int               # a byte address in the kernel

    def __str__(self) -> str:
        return hexval(self.addr)


@dataclass(frozen=True, slots=True)
class ConvergenceBarrier:
    """A convergence barrier register B0..B15 (ITS mode: BSSY/BSYNC/BREAK)."""
    n: int

    def __str__(self) -> str:
        return f"B{self.n}"


@dataclass(frozen=True, slots=True)
class CondCode:
    """`CC.T` as NOP prints it: the condition-code test, always true here."""
    test: str = "T"

    def __str__(self) -> str:
        return f"CC.{self.test}"


Operand = Union[SassReg, Pred, SassImm, Mem, ConstBankWord, Special, BranchTarget, ConvergenceBarrier, CondCode]

# Special registers S2R reads. ntid and nctaid are not here: Fermi code reads them from the
# constant bank (CBANK).
SPECIALS = ("SR_Tid_X", "SR_Tid_Y", "SR_Tid_Z", "SR_CTAid_X", "SR_CTAid_Y", "SR_CTAid_Z",
            "SR_LaneId", "SR_LanemaskLt", "SR_ClockLo", "SR_ClockHi", "SR_GlobalTimerLo")

# Constant bank 0, as the sm_20 ABI lays it out: the block and grid shape, then the kernel's
# parameters, 4 bytes each from 0x20 (pointers are 32-bit, as with nvcc -m32).
CBANK = {"ntid.x": 0x8, "ntid.y": 0xC, "ntid.z": 0x10, "nctaid.x": 0x14, "nctaid.y": 0x18, "nctaid.z": 0x1C}
PARAM_BASE = 0x20


# ---- instructions ----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Instruction:
    op: str                              # "ISETP"
    mods: tuple[str, ...] = ()           # ("EQ", "U32", "AND"), as written
    operands: tuple[Operand, ...] = ()
    guard: Pred | None = None            # @P0 / @!P0 (None: always)
    sync: bool = False                   # the .S suffix: pop the SIMT stack afterwards
    addr: int = 0                        # byte address
    loc: tuple[int, int] | None = None   # source (line, column) the instruction came from
    at: tuple[int, int] | None = field(default=None, compare=False)   # its own (line, column) in a .sass file

    @property
    def spec(self) -> "OpSpec":
        return OPCODES[self.op]

    @property
    def name(self) -> str:
        """The opcode with its modifiers and .S, as printed: `ISETP.EQ.AND.S`."""
        return ".".join((self.op, *self.mods)) + (".S" if self.sync else "")

    def has(self, mod: str) -> bool:
        return mod in self.mods

    @property
    def pairs(self) -> frozenset[int]:
        """The positions of the operands that name a register pair (pair_operands)."""
        return pair_operands(self.op, self.mods)

    def __str__(self) -> str:
        guard = f"@{self.guard} " if self.guard is not None else ""
        ops = ", ".join(str(o) for o in self.operands)
        return f"{guard}{self.name}{' ' + ops if ops else ''};"


# ---- the opcode table -------------------------------------------------------------------

# Operand shape letters: R register, P predicate, I immediate, C constant-bank word,
# M memory address, S special register, T branch target, B convergence barrier, K CC.T.
# A shape like "RIC" accepts any of its letters; a trailing "?" makes the operand optional
# (optional operands come last).

@dataclass(frozen=True)
class OpSpec:
    name: str
    shapes: tuple[str, ...]                 # one per operand position
    dests: int                              # leading operands the instruction writes
    unit: str                               # latency class: see timing.py
    mods: tuple[tuple[str, ...], ...] = ()  # modifier groups, in order; each used at most once
    required: tuple[int, ...] = ()          # indices of groups that must be present
    negatable: bool = False                 # sources may be written -R (IADD, ISCADD)
    invertible: bool = False                # sources may be written ~R (LOP)
    its: bool = False                       # only in ITS mode
    summary: str = ""
    pairs: tuple[tuple[int, str | None, int | None], ...] = ()   # register pairs: see pair_operands

    @property
    def min_operands(self) -> int:
        return sum(1 for s in self.shapes if not s.endswith("?"))


_CMP = ("LT", "EQ", "LE", "GT", "NE", "GE", "F", "T")
# FSETP's tests, in Fermi's 4-bit encoding (bit 0 less, 1 equal, 2 greater, 3 unordered: a NaN
# operand), so FCMP.index(test) is its truth table: NE is ordered (false on a NaN), NEU is not.
FCMP = ("F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU", "T")
F2F_ROUND = ("FLOOR", "CEIL", "TRUNC")
_FTYPE = ("F32", "F64")
MUFU_FN = ("RCP", "RSQ", "RCP64H", "RSQ64H")   # the special-function unit's approximations the emitter uses
_BOOL = ("AND", "OR", "XOR")
_ATOM_OPS = ("ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR", "EXCH", "CAS")
_SIGN = ("U32", "S32")
_ISIGN = ("U32", "S32", "U64", "S64")    # F2I's and I2F's integer: .U64/.S64 a register pair
_ATOM_TYPE = ("U32", "S32", "F32")
_LD_CACHE = ("CA", "CG", "CS", "CV", "LU")
_ST_CACHE = ("WB", "CG", "CS", "WT")
_SIZE = ("U8", "S8", "U16", "S16", "32", "64")


def _op(name, shapes, dests, unit, summary, mods=(), required=(), **flags) -> OpSpec:
    return OpSpec(name, tuple(shapes.split()), dests, unit, tuple(mods), tuple(required), summary=summary, **flags)


# Register-pair rules (OpSpec.pairs): (operand, modifier, position). The operand names an even
# register R2n whose pair R2n:R2n+1 holds a 64-bit value (low word in R2n) when the modifier is
# None (always), is among the instruction's modifiers (position None), or is its modifier at that
# position (F2F.F64.F32: the destination is a pair, the source not).
_ALWAYS = None
_DOUBLE3 = ((0, _ALWAYS, None), (1, _ALWAYS, None), (2, _ALWAYS, None))
_LOAD64 = ((0, "64", None),)
_STORE64 = ((1, "64", None),)


_TABLE = [
    # moves and special registers
    _op("MOV", "R RIC", 1, "alu", "Rd = b"),
    _op("MOV32I", "R I", 1, "alu", "Rd = 32-bit immediate"),
    _op("S2R", "R S", 1, "s2r", "Rd = special register (SR_Tid_X, SR_LaneId, SR_ClockLo, ...)"),
    # integer arithmetic
    _op("IADD", "R R RIC", 1, "alu", "Rd = a + b (either may be negated: -R, or inverted: ~R); .X adds the carry "
        "flag CC, .CC sets it to the carry out (-R counts as ~R + 1)", mods=[("X",), ("CC",)], negatable=True,
        invertible=True),
    _op("IADD32I", "R R I", 1, "alu", "Rd = a + 32-bit immediate"),
    _op("ISCADD", "R R RIC I", 1, "alu", "Rd = (a << shift) + b", negatable=True),
    _op("IMUL", "R R RIC", 1, "mul", "Rd = low 32 bits of a * b", mods=[_SIGN, _SIGN, ("HI",)]),
    _op("IMAD", "R R RIC R", 1, "mul", "Rd = a * b + c (low 32 bits)", mods=[_SIGN, _SIGN, ("HI",)]),
    _op("SHL", "R R RI", 1, "alu", "Rd = a << b (b >= 32 gives 0)", mods=[("W",)]),
    _op("SHR", "R R RI", 1, "alu", "Rd = a >> b: arithmetic, or logical with .U32", mods=[("U32", "S32"), ("W",)]),
    _op("LOP", "R R RIC", 1, "alu", "Rd = a AND/OR/XOR b, or PASS_B: Rd = b (~R inverts a source)",
        mods=[("AND", "OR", "XOR", "PASS_B")], required=(0,), invertible=True),
    _op("LOP32I", "R R I", 1, "alu", "Rd = a AND/OR/XOR immediate", mods=[("AND", "OR", "XOR")], required=(0,),
        invertible=True),
    _op("IMNMX", "R R RIC P", 1, "alu", "Rd = c ? min(a, b) : max(a, b)", mods=[("U32", "S32")]),
    _op("SEL", "R R RIC P", 1, "alu", "Rd = c ? a : b"),
    _op("POPC", "R R RI", 1, "alu", "Rd = popcount(a & b)"),
    _op("ISETP", "P P R RIC P", 2, "alu", "Pd = (a cmp b) bool c; Pd2 = !(a cmp b) bool c",
        mods=[_CMP, ("U32",), _BOOL], required=(0,)),
    _op("PSETP", "P P P P P", 2, "alu", "Pd = (a op1 b) op2 c; Pd2 = !(a op1 b) op2 c",
        mods=[_BOOL, _BOOL], required=(0, 1)),
    # binary32 arithmetic: IEEE, rounded to nearest even, subnormals kept; a NaN result is 0x7fffffff;
    # -R flips a source's sign bit. Float constants are their bit patterns (MOV32I, constant bank).
    _op("FADD", "R R RC", 1, "alu", "Rd = a + b (binary32; either may be negated: -R)", negatable=True),
    _op("FMUL", "R R RC", 1, "alu", "Rd = a * b (binary32)", negatable=True),
    _op("FFMA", "R R RC R", 1, "alu", "Rd = a * b + c, rounded once (binary32)", negatable=True),
    _op("FMNMX", "R R RC P", 1, "alu", "Rd = c ? minNum(a, b) : maxNum(a, b) (a NaN loses; -0 < +0)",
        negatable=True),
    _op("FSETP", "P P R RC P", 2, "alu", "Pd = (a cmp b) bool c; Pd2 = !(a cmp b) bool c; cmp ordered, or "
        "true on a NaN with U (NEU)", mods=[FCMP, _BOOL], required=(0,), negatable=True),
    _op("F2I", "R R", 1, "mul", "Rd = integer of binary32 (.F64: binary64 pair) a: toward zero, saturating, "
        "NaN to 0 (.U64/.S64: Rd a pair)", mods=[_ISIGN, _FTYPE, ("TRUNC",)], required=(0, 1, 2),
        pairs=((1, "F64", 1), (0, "U64", 0), (0, "S64", 0))),
    _op("I2F", "R R", 1, "mul", "Rd = binary32 (.F64: binary64 pair) nearest to integer a (ties to even; "
        ".U64/.S64: a a pair)", mods=[_FTYPE, _ISIGN], required=(0, 1),
        pairs=((0, "F64", 0), (1, "U64", 1), (1, "S64", 1))),
    _op("F2F", "R R", 1, "mul", "Rd = float a in Rd's format (F32/F64: destination, then source), rounded to "
        "nearest even, or to an integral value: down, up or toward zero", mods=[_FTYPE, _FTYPE, F2F_ROUND],
        required=(0, 1), pairs=((0, "F64", 0), (1, "F64", 1))),
    _op("MUFU", "R R", 1, "mul", "Rd = approximate 1/a (RCP) or 1/sqrt(a) (RSQ): binary64's value truncated to "
        "binary32 (below the exact one, within an ulp); subnormal a flushed; RCP64H / RSQ64H: the high word of "
        "binary64's 1/x or 1/sqrt(x), x the binary64 whose high word is a (docs/fermi.md, \"MUFU\")",
        mods=[MUFU_FN], required=(0,)),
    # binary64 in register pairs (R2n: the low word, R2n+1 the high one; RZ as a source is +0.0): IEEE,
    # rounded to nearest even, subnormals kept; a NaN result is 0x7fffffff_ffffffff; -R flips the sign
    _op("DADD", "R R R", 1, "mul", "Rd = a + b (binary64 pairs; either may be negated: -R)", negatable=True,
        pairs=_DOUBLE3),
    _op("DMUL", "R R R", 1, "mul", "Rd = a * b (binary64 pairs)", negatable=True, pairs=_DOUBLE3),
    _op("DFMA", "R R R R", 1, "mul", "Rd = a * b + c, rounded once (binary64 pairs)", negatable=True,
        pairs=(*_DOUBLE3, (3, _ALWAYS, None))),
    _op("DMNMX", "R R R P", 1, "mul", "Rd = c ? minNum(a, b) : maxNum(a, b) (binary64 pairs; a NaN loses; "
        "-0 < +0)", negatable=True, pairs=_DOUBLE3),
    _op("DSETP", "P P R R P", 2, "mul", "Pd = (a cmp b) bool c; Pd2 = !(a cmp b) bool c (binary64 pairs; "
        "FSETP's tests)", mods=[FCMP, _BOOL], required=(0,), negatable=True,
        pairs=((2, _ALWAYS, None), (3, _ALWAYS, None))),
    _op("VOTE", "R P P", 2, "vote", "Rd = ballot(c); Pd = ALL/ANY/EQ of c over the active lanes",
        mods=[("ALL", "ANY", "EQ")], required=(0,)),
    _op("NOP", "K?", 0, "alu", "nothing (NOP.S marks a reconvergence point)"),
    # shared memory and the lock unit
    _op("LDS", "R M", 1, "shared", "Rd = shared[a] (.64: a pair from a and a + 4)", mods=[_SIZE], pairs=_LOAD64),
    _op("STS", "M R", 0, "shared", "shared[a] = b (.64: a pair, to a and a + 4)", mods=[_SIZE], pairs=_STORE64),
    _op("LDSLK", "P R M", 2, "shared", "Rd = shared[a]; Pd = the word's lock bit was free (and is now taken)"),
    _op("STSUL", "M R", 0, "shared", "shared[a] = b, and free the word's lock bit"),
    # global and local memory
    _op("LD", "R M", 1, "global", "Rd = global[a] (.64: a pair, from a then a + 4)", mods=[("E",), _LD_CACHE, _SIZE],
        pairs=_LOAD64),
    _op("ST", "M R", 0, "global_store", "global[a] = b (.64: a pair, to a then a + 4)", mods=[("E",), _ST_CACHE, _SIZE],
        pairs=_STORE64),
    _op("LDL", "R M", 1, "local", "Rd = local[a] (the thread's own memory, for spills; .64: a pair)",
        mods=[("64",)], pairs=_LOAD64),
    _op("STL", "M R", 0, "local_store", "local[a] = b (.64: a pair)", mods=[("64",)], pairs=_STORE64),
    _op("ATOM", "R M R R?", 1, "atomic", "Rd = global[a]; global[a] = op(global[a], b[, c]) at L2 "
        "(.ADD.F32.FTZ.RN: binary32 add, subnormals flushed; .ADD/.EXCH/.CAS.64: on the pair of words at a, with "
        "pairs)",
        mods=[("E",), _ATOM_OPS, (*_ATOM_TYPE, "64"), ("FTZ",), ("RN",)], required=(1,),
        pairs=((0, "64", None), (2, "64", None), (3, "64", None))),
    _op("RED", "M R", 0, "atomic_store", "global[a] = op(global[a], b) at L2, no result",
        mods=[("E",), _ATOM_OPS[:-2], _ATOM_TYPE, ("FTZ",), ("RN",)], required=(1,)),
    _op("MEMBAR", "", 0, "membar", "wait until this warp's earlier memory operations are visible at the scope",
        mods=[("CTA", "GL", "SYS")], required=(0,)),
    # barriers
    _op("BAR", "RI? RI? RI? P?", 0, "barrier",
        "BAR.SYNC id[, count]; BAR.ARV id, count; BAR.RED.POPC|AND|OR Rd, id[, count][, pred]",
        mods=[("SYNC", "ARV", "RED"), ("POPC", "AND", "OR")], required=(0,)),
    # control flow and the SIMT stack
    _op("BRA", "T", 0, "branch", "jump; lanes that disagree split the warp (.U: all must agree)", mods=[("U",)]),
    _op("SSY", "T", 0, "stack", "push a reconvergence point: the active lanes meet again at the target"),
    _op("PBK", "T", 0, "stack", "push a break point: lanes that BRK continue at the target"),
    _op("BRK", "", 0, "branch", "the guarded lanes leave the loop, to the PBK target"),
    _op("EXIT", "", 0, "branch", "the guarded lanes finish"),
    _op("BPT", "I", 0, "branch", "BPT.TRAP n: a trap: the kernel stops and its launch fails (a failed bounds "
        "check's end)", mods=[("TRAP",)], required=(0,)),
    # independent thread scheduling (sm_70 style)
    _op("WARPSYNC", "RI", 0, "warpsync", "wait until every unexited lane of the mask has reached a WARPSYNC",
        its=True),
    _op("BSSY", "B T", 0, "stack", "convergence barrier Bn = the active lanes; they meet at BSYNC Bn", its=True),
    _op("BSYNC", "B", 0, "warpsync", "wait until every unexited lane of Bn has arrived", its=True),
    _op("BREAK", "B", 0, "stack", "remove the guarded lanes from Bn", its=True),
    _op("YIELD", "", 0, "branch", "let another split of the warp run", its=True),
    _op("NANOSLEEP", "RI", 0, "branch", "the split sleeps this many cycles while the others run", its=True),
]

OPCODES: dict[str, OpSpec] = {spec.name: spec for spec in _TABLE}


def pair_operands(op: str, mods: tuple[str, ...]) -> frozenset[int]:
    """The operand positions of an instruction (opcode and modifiers) that name a register pair."""
    out = set()
    for operand, mod, position in OPCODES[op].pairs:
        if mod is None or (mod in mods if position is None else mods[position:position + 1] == (mod,)):
            out.add(operand)
    return frozenset(out)

# BAR forms that produce a register (BAR.RED.*) write their first operand.
BAR_RED = "RED"
