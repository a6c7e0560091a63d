"""If-conversion: short arms of a branch become predicated instructions, as nvcc does.

Guarantee: the kernel computes the same thing per thread, with fewer branches.
A `then` arm (and an optional `else` arm) that is one block, reached only from
the branch, rejoining where the other side goes, at most `ARM_LIMIT`
instructions long and holding only instructions that can be predicated
(arithmetic, special registers, loads and stores, atomics, fences, lock bits:
no barrier, warp operation, call or further control flow) is moved into the
branching block with a guard, and the branch disappears:

    br %ok, apply, test            ok, old = lockbit.try @a[i]
    apply: new = add old, 1    ⇒   @ok new = add old, 1
           release @a[i], new      @ok lockbit.release @a[i], new
                                   br %ok, done, retry

which is seed 000 Listing 1 (`@P0 IADD`, `@P0 STSUL`) and, applied from the
inside out, Listing 15 (`@!P1 LDSLK P1, ...`, `@P1 STSUL`, `@P2 ...`).

A guard is the attribute `guard`: a tuple of (register, negated) literals
whose conjunction must hold (select.py computes a conjunction of two or more
with PSETP). When an arm assigns the branch's condition, the condition is first
copied (`%c.g = mov %c`) and the copy guards the arm. A guarded definition
leaves the register unchanged where the guard is false, which regalloc.py's
liveness knows. Straight-line blocks (a jump to a block with no other
predecessor) are merged as well.
"""
from __future__ import annotations

from dataclasses import replace

from ....core.types import BOOL
from ....ir.nodes import Block, Branch, Imm, Instr, Jump, Kernel, Ref, Reg

ARM_LIMIT = 24                      # IR instructions in one predicated arm
PREDICABLE = ("arith", "special", "memory", "atomic", "fence", "lockbit")


def guard_of(ins: Instr) -> tuple[tuple[Reg, bool], ...]:
    return ins.attr("guard") or ()


def reads(ins: Instr) -> set[str]:
    out = {r.name for r, _ in guard_of(ins)}
    for a in ins.args:
        r = a.index if isinstance(a, Ref) else a
        if isinstance(r, Reg):
            out.add(r.name)
    return out


def kills(ins: Instr) -> set[str]:
    """The registers an instruction's definitions end the old values of (a guarded one: its `local` ones)."""
    if not guard_of(ins):
        return {d.name for d in ins.dests}
    return set(ins.attr("local") or ())


def live_in(order: list[str], code: dict, terms: dict) -> dict[str, set[str]]:
    """Per-thread liveness of IR registers, knowing guards (a guarded definition kills only its `local` ones)."""
    gen, kill = {}, {}
    for label in order:
        g, k = set(), set()
        term = terms[label]
        if isinstance(term, Branch) and isinstance(term.cond, Reg):
            g.add(term.cond.name)
        for ins in reversed(code[label]):
            kd = kills(ins)
            g -= kd
            k |= kd
            g |= reads(ins)
        gen[label], kill[label] = g, k
    live = {label: set() for label in order}
    changed = True
    while changed:
        changed = False
        for label in reversed(order):
            out = set().union(*(live[t] for t in terms[label].targets))
            new = gen[label] | (out - kill[label])
            if new != live[label]:
                live[label] = new
                changed = True
    return live


def mark_local(arm: list[Instr], after: set[str]) -> list[Instr]:
    """Flag the guarded definitions whose old value no one can need: the register is not read after
    the arm, and every later read in the arm is under a guard that implies this one's (whose registers
    nothing redefines in between). Such a definition ends the old value's life (regalloc.py), so a
    value computed under a guard inside a loop is not live around the whole loop."""
    out = []
    for n, ins in enumerate(arm):
        g = set(guard_of(ins))
        lits = {r.name for r, _ in g}
        local = []
        for d in ins.dests:
            if d.name in after:
                continue
            ok, moved = True, bool(lits & {x.name for x in ins.dests})
            for later in arm[n + 1:]:
                if d.name in reads(later) and (moved or not g <= set(guard_of(later))):
                    ok = False
                    break
                if lits & {x.name for x in later.dests}:
                    moved = True
            if ok:
                local.append(d.name)
        out.append(ins.with_attrs(local=tuple(local) or None))
    return out


def if_convert(k: Kernel, limit: int = ARM_LIMIT) -> Kernel:
    code = {b.label: list(b.instrs) for b in k.blocks}
    terms = {b.label: b.term for b in k.blocks}
    order = [b.label for b in k.blocks]
    entry = order[0]
    taken = {d.name for _, _, ins in k.instructions() for d in ins.dests}
    taken |= {p.name for p in k.params if isinstance(p, Reg)}

    def preds() -> dict[str, list[str]]:
        out = {label: [] for label in order}
        for label in order:
            for t in terms[label].targets:
                out[t].append(label)
        return out

    def convertible(label: str, p: dict) -> bool:
        return label != entry and p[label] and len(set(p[label])) == 1 and len(p[label]) == 1 \
            and isinstance(terms[label], Jump) and len(code[label]) <= limit \
            and all(ins.info.group in PREDICABLE for ins in code[label])

    def snapshot(label: str, cond: Reg, arms: list[str]) -> Reg:
        if not any(d == cond for arm in arms for ins in code[arm] for d in ins.dests):
            return cond
        n, name = 0, f"{cond.name}.g"
        while name in taken:
            n += 1
            name = f"{cond.name}.g{n}"
        taken.add(name)
        copy = Reg(name, BOOL)
        span = terms[label].span
        code[label].append(Instr("mov", (copy,), (cond,), (), span))
        return copy

    def guarded(arm: str, cond: Reg, neg: bool) -> list[Instr]:
        out = []
        for ins in code[arm]:
            lits = ((cond, neg),) + tuple(lit for lit in guard_of(ins) if lit != (cond, neg))
            out.append(ins.with_attrs(guard=lits))
        return out

    def remove(label: str) -> None:
        order.remove(label)
        del code[label], terms[label]

    changed = True
    while changed:
        changed = False
        p = preds()
        for label in list(order):
            if label not in terms:
                continue
            term = terms[label]
            if isinstance(term, Branch) and (term.if_true == term.if_false or isinstance(term.cond, Imm)):
                target = term.if_true if term.if_true == term.if_false or term.cond.value else term.if_false
                terms[label] = Jump(target, term.span)
                changed = True
                break
            if isinstance(term, Jump):
                t = term.target
                if t != label and t != entry and p[t] == [label]:
                    code[label] += code[t]
                    terms[label] = terms[t]
                    remove(t)
                    changed = True
                    break
                continue
            if not isinstance(term, Branch):
                continue
            c, t, f = term.cond, term.if_true, term.if_false
            if label in (t, f):
                continue
            then_ok = convertible(t, p) and terms[t].target == f
            else_ok = convertible(f, p) and terms[f].target == t
            diamond = convertible(t, p) and convertible(f, p) and terms[t].target == terms[f].target \
                and terms[t].target not in (t, f, label)
            live = live_in(order, code, terms)
            if diamond:
                g = snapshot(label, c, [t, f])
                join = terms[t].target
                else_reads = set().union(*(reads(ins) for ins in code[f]))
                code[label] += mark_local(guarded(t, g, False), live[join] | else_reads) \
                    + mark_local(guarded(f, g, True), live[join])
                terms[label] = Jump(terms[t].target, term.span)
                remove(t)
                remove(f)
            elif then_ok:
                g = snapshot(label, c, [t])
                code[label] += mark_local(guarded(t, g, False), live[f])
                terms[label] = Jump(f, term.span)
                remove(t)
            elif else_ok:
                g = snapshot(label, c, [f])
                code[label] += mark_local(guarded(f, g, True), live[t])
                terms[label] = Jump(t, term.span)
                remove(f)
            else:
                continue
            changed = True
            break
    blocks = tuple(Block(label, tuple(code[label]), terms[label]) for label in order)
    return replace(k, blocks=blocks)
