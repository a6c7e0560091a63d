"""Clean-up, last: no semantics change, only less to read and to run.

Guarantee: afterwards no block but the entry is unreachable, no block is an
empty `jmp` (its predecessors jump straight on), a block that is the only
successor of its only predecessor is merged into it, and no arithmetic or
special-register read defines a register that nothing reads (what expansion
and elision leave behind, like a lock's unused ticket), and the entry block
computes each built-in value once (lowering and expansion both ask for `tid`).
"""
from __future__ import annotations

from ..builder import KernelBuilder
from ..context import PassContext
from ..nodes import Branch, Jump, Kernel, Ref, Reg

_PURE = ("arith", "special")


def simplify_cfg(k: Kernel, ctx: PassContext) -> Kernel:
    b = KernelBuilder.thaw(k)
    _common_entry_values(b)
    _drop_dead_values(b)
    changed = True
    while changed:
        changed = False
        b.drop_unreachable()
        entry = b.order[0]
        # empty blocks that only jump on
        for label in list(b.order[1:]):
            term = b.terms[label]
            if not b.code[label] and isinstance(term, Jump) and term.target != label:
                for other in b.order:
                    b.replace_targets(other, label, term.target)
                changed = True
        # a block whose one predecessor jumps only to it
        preds: dict[str, list[str]] = {label: [] for label in b.order}
        for label in b.order:
            for t in b.terms[label].targets:
                if t in preds:
                    preds[t].append(label)
        for label in b.order:
            term = b.terms[label]
            if isinstance(term, Jump) and term.target != entry and preds.get(term.target) == [label] \
                    and term.target != label:
                target = term.target
                b.code[label] = b.code[label] + b.code[target]
                b.terms[label] = b.terms[target]
                b.terms[target] = Jump(target)   # now unreachable; dropped next round
                changed = True
                break
    b.drop_unreachable()
    return b.freeze()


def _reads(ins) -> list[str]:
    out = []
    for a in ins.args:
        if type(a) is Reg:
            out.append(a.name)
        elif type(a) is Ref and type(a.index) is Reg:
            out.append(a.index.name)
    return out


def _drop_dead_values(b: KernelBuilder) -> None:
    """Remove pure instructions whose results are never read, and what only they read."""
    reads: dict[str, int] = {}
    for label in b.order:
        for ins in b.code[label]:
            for name in _reads(ins):
                reads[name] = reads.get(name, 0) + 1
        term = b.terms[label]
        if type(term) is Branch and type(term.cond) is Reg:
            reads[term.cond.name] = reads.get(term.cond.name, 0) + 1
    dropped = True
    while dropped:
        dropped = False
        for label in b.order:
            code = b.code[label]
            dead = [ins for ins in code if ins.info.group in _PURE and not any(reads.get(d.name) for d in ins.dests)]
            if not dead:
                continue
            for ins in dead:
                for name in _reads(ins):
                    reads[name] -= 1
            gone = set(map(id, dead))
            b.code[label] = [ins for ins in code if id(ins) not in gone]
            dropped = True


def _common_entry_values(b: KernelBuilder) -> None:
    """An entry-block computation repeated with the same operands reuses the first result
    (registers assigned once in the kernel only: their value never changes)."""
    defs: dict[str, int] = {}
    for label in b.order:
        for ins in b.code[label]:
            for d in ins.dests:
                defs[d.name] = defs.get(d.name, 0) + 1
    seen: dict[tuple, Reg] = {}
    names: dict[str, Reg] = {}
    for ins in b.code[b.order[0]]:
        if ins.info.group not in _PURE or len(ins.dests) != 1 or defs[ins.dests[0].name] != 1:
            continue
        args = tuple(names.get(a.name, a) if isinstance(a, Reg) else a for a in ins.args)
        key = (ins.op, args, ins.attrs, ins.dests[0].type)
        if key in seen:
            names[ins.dests[0].name] = seen[key]
        else:
            seen[key] = ins.dests[0]
    if names:
        b.rename(names)
