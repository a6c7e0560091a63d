"""One instruction line → an `Instruction`, checked against the opcode table (isa.OPCODES).

    ins, labels = decode_instruction(line, sink)     # None, [] after reporting what is wrong

The checks, each with its code:

    E1001  the opcode is in OPCODES
    E1002  the modifiers: each of the opcode's groups at most once, in the table's order,
           the required groups present; a final `.S` is the reconvergence mark (Instruction.sync)
    E1003  the operand count (optional operands included) and each operand's kind against the
           opcode's shapes (R register, P predicate, I immediate, C constant, M address,
           S special register, T branch target, B convergence barrier, K CC.T)
    E1004  each operand on its own: R0-R62 and RZ, P0-P6 and pt, B0-B15, SPECIALS, CC.T,
           immediates of 32 bits, -R only where the opcode is `negatable` and ~R only where it
           is `invertible`, and neither on a destination

A branch target written as a label comes back as a `BranchTarget(-1)` placeholder, with the label's
word in `labels` (operand index, word) for asm.py to resolve once the kernel is read.
"""
from __future__ import annotations

import re
from typing import Callable

from ...core.diagnostics import DiagnosticSink, did_you_mean
from ...core.source import Span
from .asm_parse import ConstOp, InstrLine, MemOp, NotOp, NumOp, RawOperand, Word, WordOp
from .isa import (NUM_PREDS, NUM_REGS, OPCODES, PT, RZ, SPECIALS, BranchTarget, CondCode, ConstBankWord,
                  ConvergenceBarrier, Instruction, Mem, OpSpec, Pred, SassImm, SassReg, Special)

NUM_BARRIERS = 16
IMM_MIN, IMM_MAX = -(1 << 31), (1 << 32) - 1      # a 32-bit immediate, signed or unsigned
OFFSET_MIN, OFFSET_MAX = -(1 << 31), (1 << 31) - 1

# How messages name each operand kind (the shape letters of isa.py).
KIND_WORDS = {
    "R": "a register", "P": "a predicate", "I": "an immediate", "C": "a constant `c [0x0] [0x20]`",
    "M": "an address `[R0+0x4]`", "S": "a special register", "T": "a branch target (a label or an address)",
    "B": "a convergence barrier", "K": "`CC.T`",
}
KIND_OF = {SassReg: "R", Pred: "P", SassImm: "I", ConstBankWord: "C", Mem: "M", Special: "S", BranchTarget: "T",
           ConvergenceBarrier: "B", CondCode: "K"}


class Invalid(Exception):
    """An operand that is no operand at all (E1004); the message says why."""

    def __init__(self, message: str, help: str | None = None):
        super().__init__(message)
        self.help = help


# ---- words → operands: a table of patterns ---------------------------------------------------

def _register(m: re.Match) -> SassReg:
    if m.group(1) is None:
        return SassReg(RZ)
    n = int(m.group(1))
    if n >= NUM_REGS:
        raise Invalid(f"there is no register R{n}", f"registers are R0-R{NUM_REGS - 1} and RZ")
    return SassReg(n)


def _predicate(m: re.Match) -> Pred:
    if m.group(1) is None:
        return Pred(PT)
    n = int(m.group(1))
    if n >= NUM_PREDS:
        raise Invalid(f"there is no predicate P{n}", f"predicates are P0-P{NUM_PREDS - 1} and pt")
    return Pred(n)


def _barrier(m: re.Match) -> ConvergenceBarrier:
    n = int(m.group(1))
    if n >= NUM_BARRIERS:
        raise Invalid(f"there is no convergence barrier B{n}", f"barriers are B0-B{NUM_BARRIERS - 1}")
    return ConvergenceBarrier(n)


def _cond(m: re.Match) -> CondCode:
    if m.group(1) != "T":
        raise Invalid(f"`CC.{m.group(1)}` is not supported", "the only condition-code test is `CC.T` (NOP CC.T)")
    return CondCode("T")


_WORD_PATTERNS: list[tuple[re.Pattern, Callable[[re.Match], object]]] = [
    (re.compile(r"R(\d+)|RZ"), _register),
    (re.compile(r"P(\d+)|pt|PT"), _predicate),
    (re.compile(r"B(\d+)"), _barrier),
    (re.compile(r"CC\.(\w+)"), _cond),
    (re.compile("|".join(SPECIALS)), lambda m: Special(m.group(0))),
]


def word_operand(text: str):
    """The operand a word names (R1, P0, pt, B2, SR_LaneId, CC.T); Invalid when none."""
    for pattern, make in _WORD_PATTERNS:
        m = pattern.fullmatch(text)
        if m:
            return make(m)
    if text.startswith("SR_"):
        raise Invalid(f"unknown special register `{text}`",
                      did_you_mean(text, SPECIALS) or "the special registers are " + ", ".join(SPECIALS))
    raise Invalid(f"`{text}` is not an operand",
                  "operands are registers (R0-R62, RZ), predicates (P0-P6, pt), numbers, `[R0+0x4]`, "
                  "`c [0x0] [0x20]`, special registers (SR_LaneId, ...), and labels after BRA, SSY, PBK, BSSY")


def _check_range(value: int, low: int, high: int, what: str) -> int:
    if not low <= value <= high:
        raise Invalid(f"{what} {value:#x} does not fit in 32 bits")
    return value


def raw_operand(raw: RawOperand, kinds: str):
    """A parsed operand → an isa operand, for a position that accepts `kinds` (shape letters).
    A word in a T position is a label: returned as the Word itself."""
    if isinstance(raw, WordOp):
        if "T" in kinds and not (raw.neg or raw.inv):
            return Word(raw.text, raw.span)
        operand = word_operand(raw.text)
        if raw.neg or raw.inv:
            if not isinstance(operand, SassReg):
                raise Invalid(f"`{'-' if raw.neg else '~'}` applies to registers only")
            operand = SassReg(operand.n, raw.neg, raw.inv)
        return operand
    if isinstance(raw, NotOp):
        operand = word_operand(raw.text)
        if not isinstance(operand, Pred):
            raise Invalid(f"`!` applies to predicates only, not `{raw.text}`", "write `~R1` to invert a register (LOP)")
        return Pred(operand.n, True)
    if isinstance(raw, NumOp):
        if "T" in kinds:
            return BranchTarget(raw.value)
        return SassImm(_check_range(raw.value, IMM_MIN, IMM_MAX, "immediate"))
    if isinstance(raw, MemOp):
        base = SassReg(RZ)
        if raw.base is not None:
            base = word_operand(raw.base.text)
            if not isinstance(base, SassReg):
                raise Invalid(f"an address is based on a register, not `{raw.base.text}`")
        return Mem(base, _check_range(raw.offset, OFFSET_MIN, OFFSET_MAX, "offset"))
    assert isinstance(raw, ConstOp)
    if raw.offset % 4:
        raise Invalid(f"constant offset {raw.offset:#x} is not a multiple of 4")
    return ConstBankWord(raw.bank, raw.offset)


# ---- the instruction --------------------------------------------------------------------------

def _kinds_text(shape: str) -> str:
    words = [KIND_WORDS[k] for k in shape.rstrip("?")]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


# How a usage line writes each operand kind.
KIND_SYNTAX = {"R": "R", "P": "P", "I": "imm", "C": "c[b][o]", "M": "[addr]", "S": "SR", "T": "target", "B": "B",
               "K": "CC.T"}


def operand_syntax(spec: OpSpec) -> str:
    """The operands of an opcode as a usage line writes them: `R, R, R|imm|c[b][o]`; optional ones in [ ]."""
    parts = []
    for shape in spec.shapes:
        text = "|".join(KIND_SYNTAX[k] for k in shape.rstrip("?"))
        parts.append(f"[{text}]" if shape.endswith("?") else text)
    return ", ".join(parts)


def usage(spec: OpSpec) -> str:
    """`usage: IADD R, R, R|imm|c[b][o]` for help lines."""
    ops = operand_syntax(spec)
    return f"usage: `{spec.name}{' ' + ops if ops else ''};`"


def _count_text(spec: OpSpec) -> str:
    low, high = spec.min_operands, len(spec.shapes)
    n = f"{low}" if low == high else f"{low} to {high}" if high - low > 1 else f"{low} or {high}"
    return f"{n} operand" + ("" if high == 1 and low == 1 else "s")


def _split_opcode(opcode: Word) -> list[Word]:
    """`ISETP.EQ.AND.S` → words ISETP, EQ, AND, S, each with its own span (for carets)."""
    out, at = [], opcode.span.start
    for part in opcode.text.split("."):
        span = Span(opcode.span.file, at, at + len(part), opcode.span.line, opcode.span.col + (at - opcode.span.start),
                    opcode.span.line, opcode.span.col + (at - opcode.span.start) + len(part))
        out.append(Word(part, span))
        at += len(part) + 1
    return out


def _modifiers(spec: OpSpec, words: list[Word], opcode: Word,
               sink: DiagnosticSink) -> tuple[tuple[str, ...], bool] | None:
    """Check the modifiers against the opcode's groups; (mods, sync) or None after E1002."""
    sync = bool(words) and words[-1].text == "S" and not any("S" in g for g in spec.mods)
    if sync:
        words = words[:-1]
    order = " ".join("[" + "|".join("." + m for m in g) + "]" for g in spec.mods)
    group = 0
    for w in words:
        found = next((i for i in range(group, len(spec.mods)) if w.text in spec.mods[i]), None)
        if found is not None:
            group = found + 1
            continue
        if w.text == "S":
            sink.error("E1002", "`.S` (the reconvergence mark) must come last", w.span,
                       help=f"write `{spec.name}.{'.'.join(x.text for x in words if x.text != 'S')}.S`")
        elif any(w.text in g for g in spec.mods):
            sink.error("E1002", f"modifier `.{w.text}` of `{spec.name}` is repeated or out of order", w.span,
                       help=f"`{spec.name}` takes its modifiers in this order, each group at most once: {order}")
        elif not spec.mods:
            sink.error("E1002", f"`{spec.name}` takes no modifiers, found `.{w.text}`", w.span,
                       help="the only suffix every opcode takes is `.S`, the reconvergence mark, last")
        else:
            allowed = [m for g in spec.mods for m in g]
            sink.error("E1002", f"`{spec.name}` has no modifier `.{w.text}`", w.span,
                       help=did_you_mean(w.text, allowed, ".") or f"`{spec.name}` takes {order}")
        return None
    for i in spec.required:
        if not any(w.text in spec.mods[i] for w in words):
            choices = ", ".join("." + m for m in spec.mods[i])
            sink.error("E1002", f"`{spec.name}` needs one of {choices}", opcode.span,
                       help=f"for example `{spec.name}.{spec.mods[i][0]}`; the modifiers are {order}")
            return None
    return tuple(w.text for w in words), sync


def _guard(raw: WordOp | None) -> Pred | None:
    if raw is None:
        return None
    try:
        p = word_operand(raw.text)
    except Invalid:
        p = None
    if not isinstance(p, Pred):
        raise Invalid(f"a guard is a predicate, not `{raw.text}`", "write @P0 ... @P6 or @pt, and @!P0 to negate")
    return Pred(p.n, raw.neg)


def decode_instruction(line: InstrLine, sink: DiagnosticSink) -> tuple[Instruction, list[tuple[int, Word]]] | None:
    """The instruction of a line (addr 0, no loc: asm.py places it), and its label operands."""
    op, *mod_words = _split_opcode(line.opcode)
    spec = OPCODES.get(op.text)
    if spec is None:
        help = (f"opcodes are upper case: `{op.text.upper()}`" if op.text.upper() in OPCODES
                else did_you_mean(op.text, OPCODES) or "docs/fermi.md, \"Instruction set\", lists the opcodes")
        sink.error("E1001", f"unknown opcode `{op.text}`", op.span, help=help)
        return None
    checked = _modifiers(spec, mod_words, op, sink)
    try:
        guard = _guard(line.guard)
    except Invalid as e:
        sink.error("E1004", str(e), line.guard.span, help=e.help)
        return None
    if checked is None:
        return None
    mods, sync = checked
    raws = line.operands
    if not spec.min_operands <= len(raws) <= len(spec.shapes):
        span = (raws[len(spec.shapes)].span.to(raws[-1].span) if len(raws) > len(spec.shapes)
                else raws[0].span.to(raws[-1].span) if raws else op.span)
        sink.error("E1003", f"`{spec.name}` takes {_count_text(spec)}, found {len(raws)}", span,
                   help=usage(spec))
        return None
    operands, labels, ok = [], [], True
    for i, (raw, shape) in enumerate(zip(raws, spec.shapes)):
        kinds = shape.rstrip("?")
        try:
            operand = raw_operand(raw, kinds)
            _check_prefixes(spec, i, operand)
        except Invalid as e:
            sink.error("E1004", str(e), raw.span, help=e.help)
            ok = False
            continue
        if isinstance(operand, Word):
            labels.append((i, operand))
            operand = BranchTarget(-1)
        kind = KIND_OF[type(operand)]
        if kind not in kinds:
            sink.error("E1003", f"operand {i + 1} of `{spec.name}` must be {_kinds_text(kinds)}; "
                       f"this is {KIND_WORDS[kind]}", raw.span, help=usage(spec))
            ok = False
        operands.append(operand)
    if not ok:
        return None
    return Instruction(spec.name, mods, tuple(operands), guard, sync), labels


_NEGATABLE = ", ".join(s.name for s in OPCODES.values() if s.negatable)
_INVERTIBLE = ", ".join(s.name for s in OPCODES.values() if s.invertible)


def _check_prefixes(spec: OpSpec, index: int, operand) -> None:
    """-R only on sources of negatable opcodes, ~R only on sources of invertible ones, !P on sources."""
    dest = index < spec.dests
    if isinstance(operand, SassReg) and operand.neg:
        if dest:
            raise Invalid("a destination register cannot be negated")
        if not spec.negatable:
            raise Invalid(f"`{spec.name}` cannot negate a register", f"`-R` is for the sources of {_NEGATABLE}")
    if isinstance(operand, SassReg) and operand.inv:
        if dest:
            raise Invalid("a destination register cannot be inverted")
        if not spec.invertible:
            raise Invalid(f"`{spec.name}` cannot invert a register", f"`~R` is for the sources of {_INVERTIBLE}")
    if isinstance(operand, Pred) and operand.neg and dest:
        raise Invalid("a destination predicate cannot be negated")
