"""Layout: block merging, block order, fall-through, addresses and branch targets.

Guarantee: `merge_blocks` leaves a machine CFG with no empty jump-only blocks
and no straight-line pair of blocks (a jump to a block nothing else reaches),
keeping every block an SSY names; `lay_out` turns the allocated function into
the kernel's instruction list: instruction i at byte address 8·i, every
branch and SSY target the address of its block's first instruction, and no
path that falls off the end (the last instruction is an EXIT, a BRA or a .S).

A block's terminator becomes:

    Goto t              nothing when t is the next block, else `BRA t`
    CondBr p, t, f      `@P BRA t` when f is next, `@!P BRA f` when t is next, else both;
                        `.U` when the condition is warp-uniform (Fermi only: with independent
                        thread scheduling the lanes of one split may be in different iterations
                        of a loop, after a convergence barrier let yielded lanes through, so a
                        condition uniform per iteration can still split it)
    Exit                `EXIT`
    Sync                `.S` on the block's last instruction when that is plain unguarded
                        arithmetic (Listing 3's `ISETP.EQ.AND.S`), else `NOP.S CC.T`

The blocks keep the order lowering gave them (source order), with the SSY and
stub blocks reconvergence made placed before the block they lead to.
"""
from __future__ import annotations

from ..isa import INSTR_BYTES, OPCODES, BranchTarget, CondCode, Instruction, Pred
from .mcode import CondBr, EmitterError, Exit, Goto, Label, MFunction, MInstr, Sync

FOLDABLE_UNITS = ("alu", "mul")
CONTROL = {"BRA", "SSY", "PBK", "BRK", "EXIT", "NOP", "BSSY", "BSYNC", "BREAK", "WARPSYNC", "YIELD"}


def _retarget(term, old: str, new: str) -> None:
    if isinstance(term, (Goto, Sync)) and term.target == old:
        term.target = new
    elif isinstance(term, CondBr):
        if term.if_true == old:
            term.if_true = new
        if term.if_false == old:
            term.if_false = new


def merge_blocks(mf: MFunction) -> None:
    entry = mf.blocks[0].label
    changed = True
    while changed:
        changed = False
        preds = mf.preds()
        bm = mf.block_map()
        named = {o.name for b in mf.blocks for ins in b.instrs for o in ins.ops if isinstance(o, Label)}
        for b in mf.blocks:
            if isinstance(b.term, CondBr) and b.term.if_true == b.term.if_false:
                b.term = Goto(b.term.if_true, b.term.loc)
                changed = True
        for b in mf.blocks:
            if b.label != entry and not b.instrs and isinstance(b.term, Goto) and b.term.target != b.label:
                new = b.term.target
                for p in preds[b.label]:
                    _retarget(bm[p].term, b.label, new)
                for x in mf.blocks:
                    for ins in x.instrs:
                        ins.ops = [Label(new) if isinstance(o, Label) and o.name == b.label else o for o in ins.ops]
                mf.blocks.remove(b)
                changed = True
                break
        if changed:
            continue
        for a in mf.blocks:
            if isinstance(a.term, Goto):
                t = a.term.target
                if t != a.label and t != entry and preds[t] == [a.label] and t not in named:
                    b = bm[t]
                    a.instrs.extend(b.instrs)
                    a.term = b.term
                    mf.blocks.remove(b)
                    changed = True
                    break


def _in_cycles(mf: MFunction) -> set[str]:
    succs = {b.label: b.term.targets for b in mf.blocks}
    out = set()
    for b in mf.blocks:
        seen, todo = set(), list(succs[b.label])
        while todo:
            x = todo.pop()
            if x == b.label:
                out.add(b.label)
                break
            if x not in seen:
                seen.add(x)
                todo.extend(succs[x])
    return out


def order_blocks(mf: MFunction) -> None:
    """Let the lanes that leave a loop's region fall into their .S: a divergent branch in a cycle
    whose one side is a stub gets that stub next, so the divergence entry it pushes for the lanes
    that go round again is popped at once and the SIMT stack does not deepen iteration by iteration."""
    preds = mf.preds()
    bm = mf.block_map()
    cyclic = _in_cycles(mf)
    for b in list(mf.blocks):
        term = b.term
        if not isinstance(term, CondBr) or term.uniform or b.label not in cyclic:
            continue
        for t in (term.if_false, term.if_true):
            s = bm[t]
            if s.kind == "stub" and isinstance(s.term, Sync) and preds[t] == [b.label] and s is not b:
                mf.blocks.remove(s)
                mf.blocks.insert(mf.blocks.index(b) + 1, s)
                break


def _foldable(ins: MInstr) -> bool:
    return ins.guard is None and not ins.sync and ins.op not in CONTROL and OPCODES[ins.op].unit in FOLDABLE_UNITS


def lay_out(mf: MFunction, its: bool = False) -> list[Instruction]:
    """The allocated function as addressed instructions (operands physical)."""
    order = list(mf.blocks)
    code: list[tuple[MInstr, str | None]] = []      # (instruction, branch/SSY label to resolve)
    starts: dict[str, int] = {}
    for n, b in enumerate(order):
        nxt = order[n + 1].label if n + 1 < len(order) else None
        starts[b.label] = len(code)
        for ins in b.instrs:
            code.append((ins, None))
        term = b.term
        if isinstance(term, Goto):
            if term.target != nxt:
                code.append((MInstr("BRA", (), [], None, False, term.loc), term.target))
        elif isinstance(term, Exit):
            code.append((MInstr("EXIT", (), [], None, False, term.loc), None))
        elif isinstance(term, Sync):
            if b.instrs and _foldable(b.instrs[-1]):
                b.instrs[-1].sync = True
            else:
                code.append((MInstr("NOP", (), [CondCode("T")], None, True, term.loc), None))
        elif isinstance(term, CondBr):
            mods = ("U",) if term.uniform and not its else ()
            if term.if_false == nxt:
                code.append((MInstr("BRA", mods, [], Pred(term.cond, term.neg), False, term.loc), term.if_true))
            elif term.if_true == nxt:
                code.append((MInstr("BRA", mods, [], Pred(term.cond, not term.neg), False, term.loc), term.if_false))
            else:
                code.append((MInstr("BRA", mods, [], Pred(term.cond, term.neg), False, term.loc), term.if_true))
                code.append((MInstr("BRA", (), [], None, False, term.loc), term.if_false))
        else:
            raise EmitterError(f"block {b.label} has no terminator")
    out = []
    for addr, (ins, label) in enumerate(code):
        ops = [BranchTarget(INSTR_BYTES * starts[o.name]) if isinstance(o, Label) else o for o in ins.ops]
        if label is not None:
            ops = [BranchTarget(INSTR_BYTES * starts[label])]
        guard = ins.guard
        if guard is not None and not isinstance(guard, Pred):
            raise EmitterError(f"an unallocated guard in {ins!r}")
        out.append(Instruction(ins.op, tuple(ins.mods), tuple(ops), guard, ins.sync, INSTR_BYTES * addr, ins.loc))
    if out and not _ends(out[-1]):
        raise EmitterError(f"kernel @{mf.name} can fall off its last instruction {out[-1]}")
    return out


def _ends(ins: Instruction) -> bool:
    return ins.guard is None and (ins.op in ("EXIT", "BRA") or ins.sync)


