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

from dataclasses import dataclass, replace

from ....core.types import BOOL
from ....ir.nodes import Block, Branch, Imm, Instr, Jump, Kernel, Ref, Reg, Terminator

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
    """Fold trivial branches, merge straight-line blocks and predicate short arms, until none is left."""
    g = _Graph.of(k, limit)
    while g.rewrite_once():
        pass
    return replace(k, blocks=g.blocks())


@dataclass
class _Graph:
    """A kernel's blocks while if_convert rewrites them: code and terminator per label, in layout order."""
    code: dict[str, list[Instr]]
    terms: dict[str, Terminator]
    order: list[str]
    entry: str                  # never merged or predicated away
    taken: set[str]             # register names in use, so a snapshot's copy gets a fresh one
    limit: int                  # the most instructions in an arm

    @classmethod
    def of(cls, k: Kernel, limit: int) -> _Graph:
        taken = {d.name for _, _, ins in k.instructions() for d in ins.dests}
        taken |= {p.name for p in k.params if isinstance(p, Reg)}
        return cls({b.label: list(b.instrs) for b in k.blocks}, {b.label: b.term for b in k.blocks},
                   [b.label for b in k.blocks], k.blocks[0].label, taken, limit)

    def blocks(self) -> tuple[Block, ...]:
        return tuple(Block(label, tuple(self.code[label]), self.terms[label]) for label in self.order)

    def preds(self) -> dict[str, list[str]]:
        out = {label: [] for label in self.order}
        for label in self.order:
            for t in self.terms[label].targets:
                out[t].append(label)
        return out

    def remove(self, label: str) -> None:
        self.order.remove(label)
        del self.code[label], self.terms[label]

    def rewrite_once(self) -> bool:
        """Make the first rewrite that applies, scanning blocks in layout order; False when none does.
        A rewrite changes the predecessors, so the scan starts over after every one."""
        p = self.preds()
        for label in self.order:
            term = self.terms[label]
            if isinstance(term, Branch):
                if self.fold_branch(label, term) or self.convert_branch(label, term, p):
                    return True
            elif isinstance(term, Jump):
                if self.merge_successor(label, term, p):
                    return True
        return False

    def fold_branch(self, label: str, term: Branch) -> bool:
        """A branch to one block both ways, or on a constant, becomes a jump."""
        if not (term.if_true == term.if_false or isinstance(term.cond, Imm)):
            return False
        target = term.if_true if term.if_true == term.if_false or term.cond.value else term.if_false
        self.terms[label] = Jump(target, term.span)
        return True

    def merge_successor(self, label: str, term: Jump, p: dict[str, list[str]]) -> bool:
        """A jump to a block with no other predecessor: that block is appended to this one."""
        t = term.target
        if t == label or t == self.entry or p[t] != [label]:
            return False
        self.code[label] += self.code[t]
        self.terms[label] = self.terms[t]
        self.remove(t)
        return True

    def convert_branch(self, label: str, term: Branch, p: dict[str, list[str]]) -> bool:
        """A branch whose arms fit (arms_of) becomes the arms, guarded, and a jump to where they rejoin."""
        shape = self.arms_of(label, term, p)
        if shape is None:
            return False
        arms, join = shape
        live = live_in(self.order, self.code, self.terms)
        cond = self.snapshot(label, term.cond, [arm for arm, _ in arms])
        for n, (arm, neg) in enumerate(arms):
            # the old values an arm's definitions hide are needed where the join needs them, and
            # where a later arm (now after it in the same block) reads them
            after = live[join].union(*(reads(ins) for later, _ in arms[n + 1:] for ins in self.code[later]))
            self.code[label] += mark_local(self.guarded(arm, cond, neg), after)
        self.terms[label] = Jump(join, term.span)
        for arm, _ in arms:
            self.remove(arm)
        return True

    def arms_of(self, label: str, term: Branch, p: dict[str, list[str]]) \
            -> tuple[list[tuple[str, bool]], str] | None:
        """The arms to predicate, as (label, negated) in the order they run, and the block where
        they rejoin: both arms of a diamond, else the `then` arm, else the `else` arm; None if none fit."""
        t, f = term.if_true, term.if_false
        if label in (t, f):
            return None
        then_ok, else_ok = self.is_arm(t, p), self.is_arm(f, p)
        if then_ok and else_ok and self.terms[t].target == self.terms[f].target \
                and self.terms[t].target not in (t, f, label):
            return [(t, False), (f, True)], self.terms[t].target
        if then_ok and self.terms[t].target == f:
            return [(t, False)], f
        if else_ok and self.terms[f].target == t:
            return [(f, True)], t
        return None

    def is_arm(self, label: str, p: dict[str, list[str]]) -> bool:
        """Can the block be predicated into its one predecessor: reached only from there, ending in a jump,
        short enough, and holding only predicable instructions."""
        return label != self.entry and len(p[label]) == 1 and isinstance(self.terms[label], Jump) \
            and len(self.code[label]) <= self.limit \
            and all(ins.info.group in PREDICABLE for ins in self.code[label])

    def snapshot(self, label: str, cond: Reg, arms: list[str]) -> Reg:
        """The register to guard the arms with: `cond`, or, when an arm assigns it, a copy taken at
        the end of `label` (`%c.g = mov %c`) so that every guarded instruction sees the branch's value."""
        if not any(d == cond for arm in arms for ins in self.code[arm] for d in ins.dests):
            return cond
        n, name = 0, f"{cond.name}.g"
        while name in self.taken:
            n += 1
            name = f"{cond.name}.g{n}"
        self.taken.add(name)
        copy = Reg(name, BOOL)
        self.code[label].append(Instr("mov", (copy,), (cond,), (), self.terms[label].span))
        return copy

    def guarded(self, arm: str, cond: Reg, neg: bool) -> list[Instr]:
        """The arm's instructions, each guarded by (cond, neg) on top of the guard it already has."""
        out = []
        for ins in self.code[arm]:
            lits = ((cond, neg),) + tuple(lit for lit in guard_of(ins) if lit != (cond, neg))
            out.append(ins.with_attrs(guard=lits))
        return out
