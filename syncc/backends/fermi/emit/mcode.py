"""The emitter's machine code: SASS instructions on virtual registers, in blocks.

Guarantee: a `MFunction` is a control-flow graph of `MBlock`s whose
instructions are real Fermi opcodes (isa.OPCODES) with operands that are either
physical (RZ, pt, immediates, constant-bank words, special registers) or
virtual (`V`, wrapped in `Use` with its -R / ~R / !P flags, or as the base of
a `VMem` address). Which leading operands an instruction writes is the
opcode table's `dests`. Every block ends in one `MTerm`:

    Goto(t)                 continue at t
    CondBr(p, neg, t, f, u) lanes where p (negated when neg) holds go to t, the others to f;
                            u: the condition is warp-uniform (BRA.U, no SSY needed)
    Exit()                  EXIT
    Sync(t)                 the block's last instruction carries .S (a NOP.S when none can):
                            the warp pops its SIMT stack, and each thread continues at t,
                            the target of the SSY that opened the region

Per thread, the successors of a block are exactly its terminator's targets
(a thread that executes a .S next runs the SSY target), which is what liveness
and register allocation need: inactive lanes keep their registers.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count
from typing import Union

from ..isa import OPCODES, ConstBankWord, Pred, SassImm, SassReg

_ids = count()

# Opcodes whose result depends on their operands alone: they can be dropped when unused, shared,
# moved and run speculatively. S2R is pure too, except for the clocks, which change as they are read.
PURE = {"MOV", "MOV32I", "IADD", "IADD32I", "ISCADD", "IMUL", "IMAD", "SHL", "SHR", "LOP", "LOP32I", "IMNMX",
        "SEL", "POPC", "ISETP", "PSETP", "FADD", "FMUL", "FFMA", "FMNMX", "FSETP", "F2I", "I2F", "F2F",
        "MUFU"}
CLOCKS = {"SR_ClockLo", "SR_ClockHi", "SR_GlobalTimerLo"}


def is_pure(op: str, ops: list) -> bool:
    return op in PURE or (op == "S2R" and getattr(ops[1], "name", None) not in CLOCKS)


class V:
    """A virtual register: cls "r" (a general register, R0-R62), "d" (a register pair R2n:R2n+1 holding
    a 64-bit value, low word first) or "p" (a predicate, P0-P6)."""
    __slots__ = ("id", "cls", "hint", "temp")

    def __init__(self, cls: str, hint: str = "", temp: bool = False):
        self.id = next(_ids)
        self.cls = cls
        self.hint = hint
        self.temp = temp          # made by selection or spilling: one definition, used nearby

    def __repr__(self) -> str:
        return f"%{self.cls}{self.id}{'.' + self.hint if self.hint else ''}"


@dataclass(frozen=True, slots=True)
class Use:
    """A virtual register as an operand: -R (neg, integer sources of IADD), ~R (inv, LOP), !P (neg);
    of a pair, the whole pair, or one word of it (half 0: the low word, 1: the high word). Writing
    one word is a partial definition: the other word keeps its value, so it ends the pair's old
    value only where the instruction's `kills` says (select.py marks the first word of each
    definition)."""
    v: V
    neg: bool = False
    inv: bool = False
    half: int | None = None

    def __repr__(self) -> str:
        return ("-" if self.neg and self.v.cls != "p" else "!" if self.neg else "") + ("~" if self.inv else "") \
            + repr(self.v) + ("" if self.half is None else (".lo", ".hi")[self.half])


def same_file(a: V, b: V) -> bool:
    """Whether two virtual registers compete for the same registers: a pair takes two general ones."""
    return (a.cls == "p") == (b.cls == "p")


@dataclass(frozen=True, slots=True)
class VMem:
    """An address: a virtual base register (None: RZ) plus a byte offset."""
    base: V | None
    offset: int = 0


@dataclass(frozen=True, slots=True)
class Label:
    """A branch or SSY target, by block label (layout turns it into an address)."""
    name: str


MOperand = Union[Use, VMem, Label, SassReg, Pred, SassImm, ConstBankWord, object]


@dataclass(eq=False)
class MInstr:
    op: str
    mods: tuple[str, ...] = ()
    ops: list = field(default_factory=list)
    guard: tuple[V, bool] | None = None      # @P / @!P on a virtual predicate
    sync: bool = False
    loc: tuple[int, int] | None = None
    kills: set = field(default_factory=set)   # guarded definitions that still end the old value's life

    @property
    def pure(self) -> bool:
        """(IADD.CC and IADD.X are not: the carry flag between them is state no operand names, so they
        are never dropped, shared or moved apart.)"""
        return is_pure(self.op, self.ops) and not ("CC" in self.mods or "X" in self.mods)

    @property
    def ndests(self) -> int:
        return OPCODES[self.op].dests

    def defs(self) -> list[V]:
        return [o.v for o in self.ops[:self.ndests] if isinstance(o, Use)]

    def killed(self) -> list[V]:
        """The definitions that end their register's old value on every thread that runs this: unguarded
        whole registers, and whatever `kills` names."""
        return [o.v for o in self.ops[:self.ndests] if isinstance(o, Use)
                and ((self.guard is None and o.half is None) or o.v in self.kills)]

    def uses(self) -> list[V]:
        out = [o.v for o in self.ops[self.ndests:] if isinstance(o, Use)]
        out += [o.base for o in self.ops if isinstance(o, VMem) and o.base is not None]
        if self.guard is not None:
            out.append(self.guard[0])
        return out

    def is_copy(self) -> tuple[V, V] | None:
        """(dest, source) when this is a plain unguarded register copy (for coalescing)."""
        if self.guard is not None:
            return None
        if self.op == "MOV" and len(self.ops) == 2 and isinstance(self.ops[0], Use) and isinstance(self.ops[1], Use) \
                and not self.ops[1].neg and not self.ops[1].inv and self.ops[0].half is None \
                and self.ops[1].half is None:
            return self.ops[0].v, self.ops[1].v
        if self.op == "PSETP" and self.mods == ("AND", "AND") and isinstance(self.ops[0], Use) \
                and isinstance(self.ops[2], Use) and not self.ops[2].neg and _is_pt(self.ops[1]) \
                and _is_pt(self.ops[3]) and _is_pt(self.ops[4]):
            return self.ops[0].v, self.ops[2].v
        return None

    def __repr__(self) -> str:
        g = "" if self.guard is None else f"@{'!' if self.guard[1] else ''}{self.guard[0]!r} "
        return f"{g}{'.'.join((self.op, *self.mods))}{'.S' if self.sync else ''} " + ", ".join(map(repr, self.ops))


def _is_pt(o) -> bool:
    return isinstance(o, Pred) and o.n == 7 and not o.neg


# ---- terminators ----------------------------------------------------------------

@dataclass(eq=False)
class Goto:
    target: str
    loc: tuple[int, int] | None = None

    @property
    def targets(self) -> tuple[str, ...]:
        return (self.target,)


@dataclass(eq=False)
class CondBr:
    cond: V
    neg: bool
    if_true: str
    if_false: str
    uniform: bool
    loc: tuple[int, int] | None = None

    @property
    def targets(self) -> tuple[str, ...]:
        return (self.if_true, self.if_false)


@dataclass(eq=False)
class Exit:
    loc: tuple[int, int] | None = None

    @property
    def targets(self) -> tuple[str, ...]:
        return ()


@dataclass(eq=False)
class Sync:
    target: str                 # where the thread continues once the region's SSY entry pops
    loc: tuple[int, int] | None = None

    @property
    def targets(self) -> tuple[str, ...]:
        return (self.target,)


MTerm = Union[Goto, CondBr, Exit, Sync]


@dataclass(eq=False)
class MBlock:
    label: str
    instrs: list[MInstr]
    term: MTerm | None = None
    kind: str = "code"          # code | ssy (opens regions) | stub (closes one) | edge


@dataclass(eq=False)
class MFunction:
    name: str
    blocks: list[MBlock]        # blocks[0] is the entry
    local_bytes: int = 0

    def block_map(self) -> dict[str, MBlock]:
        return {b.label: b for b in self.blocks}

    def preds(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {b.label: [] for b in self.blocks}
        for b in self.blocks:
            for t in b.term.targets:
                out[t].append(b.label)
        return out


class EmitterError(Exception):
    """The IR has a shape the emitter cannot turn into correct SASS: a bug in syncc, not in the program."""
