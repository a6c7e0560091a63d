"""The machine-code verifier, run after every emitter step that has machine code (steps.py).

What it checks is what the steps promise at that point:

  always            block labels unique, every block ends in a terminator, every branch,
                    SSY and BSSY target names a block (after lay_out: the address of an
                    instruction); every opcode is in the table; every physical register is
                    R0–R62 or RZ, every predicate P0–P6 or PT, every barrier B0–B15;
                    an operand the opcode table says is a register pair is a pair (class d before
                    allocation, an even register R0-R60 or RZ after); the Fermi flavour has no ITS-only opcode (BSSY, BSYNC, WARPSYNC, YIELD,
                    ...), the ITS flavour no SSY, PBK, BRK or .S
  place_reconvergence and later
                    Fermi: every SSY's target is where some .S sends its lanes, and every .S
                    sends them to some SSY's target; ITS: every BSSY Bn's target starts with
                    BSYNC Bn, and every BSYNC Bn has a BSSY Bn
  allocate and later
                    no virtual register is left (operands, addresses, guards, branch conditions)
  lay_out           instruction i is at address 8·i; a kernel with an SSY has a .S (Fermi: which
                    .S pops which SSY is a matter of paths, checked on the blocks before);
                    the instruction at a BSSY Bn's target is BSYNC Bn (ITS)

A failure is a MachineVerifyError (an EmitterError: a bug in syncc, not in the program) that names
the kernel, the step just run and each problem.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..isa import (INSTR_BYTES, NUM_PREDS, NUM_REGS, OPCODES, PT, RZ, BranchTarget, ConvergenceBarrier, Instruction,
                   pair_operands,
                   Mem, Pred, SassReg)
from .mcode import CondBr, EmitterError, Label, MFunction, Sync, Use, VMem

NUM_BARRIERS = 16
FERMI_ONLY = {"SSY", "PBK", "BRK"}


@dataclass(frozen=True)
class Stage:
    """Where the verifier runs: the kernel, the step just run, the flavour, every step run so far."""
    kernel: str
    after: str
    its: bool
    done: frozenset[str]


class MachineVerifyError(EmitterError):
    def __init__(self, stage: Stage, problems: list[str]):
        more = f" (and {len(problems) - 8} more)" if len(problems) > 8 else ""
        super().__init__(f"kernel @{stage.kernel} after emitter step {stage.after}: "
                         + "; ".join(problems[:8]) + more)
        self.problems = problems


def verify_function(mf: MFunction, stage: Stage) -> None:
    problems: list[str] = []
    labels = [b.label for b in mf.blocks]
    known = set(labels)
    if len(known) != len(labels):
        problems.append("duplicate block labels " + ", ".join(sorted({x for x in labels if labels.count(x) > 1})))
    allocated = "allocate" in stage.done
    for b in mf.blocks:
        for i, ins in enumerate(b.instrs):
            where = f"{b.label}[{i}] {ins.op}"
            problems += [f"{where}: {p}" for p in _opcode_problems(ins.op, ins.sync, stage.its)]
            problems += [f"{where}: {p}" for p in _operand_problems(ins.ops, allocated, pair_operands(ins.op, ins.mods))]
            problems += [f"{where}: branches to missing block {o.name}"
                         for o in ins.ops if isinstance(o, Label) and o.name not in known]
            if ins.guard is not None:
                problems += [f"{where}: guard {p}" for p in _guard_problems(ins.guard, allocated)]
        if b.term is None:
            problems.append(f"block {b.label} has no terminator")
            continue
        problems += [f"block {b.label}: branches to missing block {t}" for t in b.term.targets if t not in known]
        if isinstance(b.term, Sync) and stage.its:
            problems.append(f"block {b.label}: a .S (Sync) in the ITS flavour")
        if isinstance(b.term, CondBr) and allocated and not _is_pred_number(b.term.cond):
            problems.append(f"block {b.label}: branch condition {b.term.cond!r} is not a predicate P0-P6")
    if "place_reconvergence" in stage.done:
        problems += _its_pairs(mf) if stage.its else _fermi_pairs(mf)
    if problems:
        raise MachineVerifyError(stage, problems)


def verify_instructions(instrs: list[Instruction], stage: Stage) -> None:
    problems: list[str] = []
    for i, ins in enumerate(instrs):
        where = f"0x{INSTR_BYTES * i:04x} {ins.op}"
        if ins.addr != INSTR_BYTES * i:
            problems.append(f"{where}: at address 0x{ins.addr:04x}, not 0x{INSTR_BYTES * i:04x}")
        problems += [f"{where}: {p}" for p in _opcode_problems(ins.op, ins.sync, stage.its)]
        problems += [f"{where}: {p}" for p in _operand_problems(ins.operands, True, ins.pairs)]
        if ins.guard is not None:
            problems += [f"{where}: guard {p}" for p in _guard_problems(ins.guard, True)]
        for o in ins.operands:
            if isinstance(o, BranchTarget) \
                    and not (o.addr % INSTR_BYTES == 0 and 0 <= o.addr < INSTR_BYTES * len(instrs)):
                problems.append(f"{where}: target 0x{o.addr:x} is not an instruction of the kernel")
    if not problems:            # pairs are looked up by address: only once every target is one
        problems += _its_pairs_laid_out(instrs) if stage.its else _fermi_pairs_laid_out(instrs)
    if problems:
        raise MachineVerifyError(stage, problems)


# ---- one instruction

def _opcode_problems(op: str, sync: bool, its: bool) -> list[str]:
    spec = OPCODES.get(op)
    if spec is None:
        return ["not an opcode of the table"]
    if its and (op in FERMI_ONLY or sync):
        return [f"{op}{'.S' if sync else ''} in the ITS flavour (it reconverges with BSSY / BSYNC)"]
    if not its and spec.its:
        return ["an ITS-only opcode in the Fermi flavour"]
    return []


def _operand_problems(ops, allocated: bool, pairs=frozenset()) -> list[str]:
    out = []
    for k, o in enumerate(ops):
        if isinstance(o, Mem):
            o = o.base
        if isinstance(o, SassReg) and not (0 <= o.n < NUM_REGS or o.n == RZ):
            out.append(f"register R{o.n} out of range (R0-R{NUM_REGS - 1}, RZ)")
        elif isinstance(o, SassReg) and k in pairs and o.n != RZ and (o.n % 2 or o.n + 1 >= NUM_REGS):
            out.append(f"R{o.n} names no register pair (an even register R0-R{NUM_REGS - 3}, or RZ)")
        elif isinstance(o, Use) and k in pairs and (o.v.cls != "d" or o.half is not None):
            out.append(f"{o!r} is no register pair where the instruction reads or writes one")
        elif isinstance(o, Use) and k not in pairs and o.v.cls == "d" and o.half is None:
            out.append(f"a register pair {o!r} where the instruction takes one word")
        elif isinstance(o, Pred) and not _is_pred_number(o.n) and o.n != PT:
            out.append(f"predicate P{o.n} out of range (P0-P{NUM_PREDS - 1}, PT)")
        elif isinstance(o, ConvergenceBarrier) and not 0 <= o.n < NUM_BARRIERS:
            out.append(f"barrier B{o.n} out of range (B0-B{NUM_BARRIERS - 1})")
        elif allocated and isinstance(o, (Use, VMem)):
            out.append(f"virtual register {o!r} left after allocation")
    return out


def _guard_problems(guard, allocated: bool) -> list[str]:
    if isinstance(guard, Pred):
        return [] if _is_pred_number(guard.n) or guard.n == PT else [f"P{guard.n} out of range"]
    return [f"{guard!r} is virtual after allocation"] if allocated else []


def _is_pred_number(n) -> bool:
    return isinstance(n, int) and 0 <= n < NUM_PREDS


# ---- reconvergence: each opening has its closing

def _fermi_pairs(mf: MFunction) -> list[str]:
    ssy = {o.name for b in mf.blocks for ins in b.instrs if ins.op == "SSY" for o in ins.ops if isinstance(o, Label)}
    syncs = {b.term.target for b in mf.blocks if isinstance(b.term, Sync)}
    return ([f"SSY {t} has no .S that continues there" for t in sorted(ssy - syncs)]
            + [f".S continues at {t}, which no SSY pushed" for t in sorted(syncs - ssy)])


def _its_pairs(mf: MFunction) -> list[str]:
    bm = mf.block_map()
    out, opened = [], set()
    for b in mf.blocks:
        for ins in b.instrs:
            if ins.op == "BSSY":
                barrier, target = ins.ops
                opened.add(barrier.n)
                first = bm[target.name].instrs[:1] if target.name in bm else []
                if not (first and first[0].op == "BSYNC" and first[0].ops[0] == barrier):
                    out.append(f"BSSY {barrier}, {target.name}: the target does not start with BSYNC {barrier}")
    closed = {ins.ops[0].n for b in mf.blocks for ins in b.instrs if ins.op == "BSYNC"}
    return out + [f"BSYNC B{n} has no BSSY B{n}" for n in sorted(closed - opened)]


def _fermi_pairs_laid_out(instrs: list[Instruction]) -> list[str]:
    if any(i.op == "SSY" for i in instrs) and not any(i.sync for i in instrs):
        return ["an SSY but no .S"]
    return []


def _its_pairs_laid_out(instrs: list[Instruction]) -> list[str]:
    out, opened = [], set()
    for ins in instrs:
        if ins.op == "BSSY":
            barrier, target = ins.operands
            opened.add(barrier.n)
            at = instrs[target.addr // INSTR_BYTES]
            if not (at.op == "BSYNC" and at.operands[0] == barrier):
                out.append(f"BSSY {barrier}, {target}: the instruction there is not BSYNC {barrier}")
    closed = {ins.operands[0].n for ins in instrs if ins.op == "BSYNC"}
    return out + [f"BSYNC B{n} has no BSSY B{n}" for n in sorted(closed - opened)]
