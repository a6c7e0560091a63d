"""Scalar clean-up of the selected machine code, before reconvergence and register allocation.

Guarantee: per thread, the function computes what it computed before, with the
same memory operations, branches and blocks (so the IR's regions still name
them); only pure instructions (mcode.PURE: ALU work, and S2R of anything but
the clock) are folded, replaced or moved. Four rewrites, repeated until nothing changes:

  * known values: a register with one definition that is a constant, or that is
    non-negative (a thread, block or lane index, an unsigned shift, an AND with a
    non-negative operand), lets `SHR x, 0x1f` of a non-negative x become 0 and
    an `IADD` or shift of 0 a copy; so the signed-division sequence of
    `tid / 32` (SHR, SHR.U32, IADD, SHR) becomes one shift;
  * copy propagation: the uses of `MOV d, s`, when d and s each have one
    definition, read s instead, and the MOV goes;
  * common subexpressions: a pure instruction whose operands each have one
    definition and that repeats one in a dominating position is dropped, its
    uses reading the first one's result (`tid / 32` computed for the warp index
    at the start and again in a `put`);
  * loop-invariant code motion: a pure, unguarded instruction in a loop whose
    operands are defined outside it (or by instructions already moved) moves to
    the loop's preheader, when the loop has one (a block outside it that only
    jumps to the header), so a spin loop is only its load, test and branch.

Pure instructions cannot fault, so running one on the preheader for threads
that then skip the loop changes nothing they can see. Only registers with one
definition are touched: a register that the IR assigns more than once, or that
is defined under a guard, keeps its instructions where they are.
"""
from __future__ import annotations

from ....ir.analysis.cfg import CFG
from ..isa import RZ, SassImm, SassReg, Special
from .mcode import Goto, MFunction, MInstr, Use, V, VMem

NONNEGATIVE_SPECIALS = {"SR_Tid_X", "SR_Tid_Y", "SR_Tid_Z", "SR_CTAid_X", "SR_CTAid_Y", "SR_CTAid_Z",
                        "SR_LaneId"}


def optimize(mf: MFunction) -> None:
    for _ in range(8):
        changed = _fold(mf, _Facts(mf))
        changed |= _propagate_copies(mf, _Facts(mf))
        changed |= _eliminate_common(mf, _Facts(mf))
        if not changed:
            break
    _hoist_invariants(mf, _Facts(mf))


def _pure(ins: MInstr) -> bool:
    """Pure and unconditional: the same result wherever, and for whichever threads, it runs."""
    return ins.pure and ins.guard is None and not ins.sync


class _Facts:
    """Definitions and uses of every virtual register, and what is known of the single-definition ones."""

    def __init__(self, mf: MFunction):
        self.defs: dict[V, list[MInstr]] = {}
        self.uses: dict[V, int] = {}
        self.where: dict[int, str] = {}                       # id(instr) → block label
        for b in mf.blocks:
            for ins in b.instrs:
                self.where[id(ins)] = b.label
                for d in ins.defs():
                    self.defs.setdefault(d, []).append(ins)
                for u in ins.uses():
                    self.uses[u] = self.uses.get(u, 0) + 1
            term = b.term
            cond = getattr(term, "cond", None)
            if cond is not None:
                self.uses[cond] = self.uses.get(cond, 0) + 1
        self.const: dict[V, int] = {}
        self.nonneg: set[V] = set()
        for v, ds in self.defs.items():
            if len(ds) == 1 and ds[0].guard is None:
                self._learn(v, ds[0])

    def single(self, v: V) -> bool:
        ds = self.defs.get(v, ())
        return len(ds) == 1 and ds[0].guard is None and not ds[0].kills

    def _learn(self, v: V, ins: MInstr) -> None:
        op, ops = ins.op, ins.ops
        if op in ("MOV", "MOV32I") and len(ops) == 2:
            value = _constant(ops[1])
            if value is not None:
                self.const[v] = value
                if value >= 0:
                    self.nonneg.add(v)
        elif op == "S2R" and isinstance(ops[1], Special) and ops[1].name in NONNEGATIVE_SPECIALS:
            self.nonneg.add(v)
        elif op == "SHR" and "U32" in ins.mods:
            self.nonneg.add(v)

    def is_nonneg(self, o) -> bool:
        if isinstance(o, Use):
            return not o.neg and not o.inv and (o.v in self.nonneg or self.const.get(o.v, -1) >= 0)
        value = _constant(o)
        return value is not None and value >= 0

    def value(self, o) -> int | None:
        if isinstance(o, Use):
            return self.const.get(o.v) if not o.neg and not o.inv else None
        return _constant(o)


def _constant(o) -> int | None:
    if isinstance(o, SassImm):
        return o.value - (1 << 32) if o.value >= 1 << 31 else o.value
    if isinstance(o, SassReg) and o.n == RZ:
        return 0
    return None


# ---- known values --------------------------------------------------------------------------

def _fold(mf: MFunction, facts: _Facts) -> bool:
    changed = False
    for b in mf.blocks:
        for ins in b.instrs:
            if ins.guard is not None or len(ins.ops) < 3 or not isinstance(ins.ops[0], Use):
                continue
            a, c = ins.ops[1], ins.ops[2]
            new = None
            if ins.op == "SHR" and "U32" not in ins.mods and facts.value(c) == 31 and facts.is_nonneg(a):
                new = [ins.ops[0], SassReg(RZ)]                              # the sign of a non-negative value
            elif ins.op in ("SHR", "SHL") and len(ins.ops) == 3 and facts.value(a) == 0:
                new = [ins.ops[0], SassReg(RZ)]
            elif ins.op == "SHR" and "U32" not in ins.mods and facts.is_nonneg(a):
                ins.mods = ins.mods + ("U32",)                   # the same result, and known >= 0
                changed = True
            elif ins.op == "IADD" and len(ins.ops) == 3 and not ins.mods:
                if facts.value(c) == 0 and isinstance(a, Use) and not a.neg:
                    new = [ins.ops[0], a]
                elif facts.value(a) == 0 and isinstance(c, Use) and not c.neg:
                    new = [ins.ops[0], c]
            if new is not None:
                ins.op, ins.mods, ins.ops = "MOV", (), new
                changed = True
    return changed


# ---- copies and repeats ----------------------------------------------------------------------

def _replace_uses(mf: MFunction, old: V, new: V) -> None:
    for b in mf.blocks:
        for ins in b.instrs:
            for k in range(ins.ndests, len(ins.ops)):
                o = ins.ops[k]
                if isinstance(o, Use) and o.v is old:
                    ins.ops[k] = Use(new, o.neg, o.inv, o.half)
            for k, o in enumerate(ins.ops):
                if isinstance(o, VMem) and o.base is old:
                    ins.ops[k] = VMem(new, o.offset)
            if ins.guard is not None and ins.guard[0] is old:
                ins.guard = (new, ins.guard[1])
        term = b.term
        if getattr(term, "cond", None) is old:
            term.cond = new


def _propagate_copies(mf: MFunction, facts: _Facts) -> bool:
    changed = False
    for b in mf.blocks:
        for ins in list(b.instrs):
            copy = ins.is_copy()
            if copy is None or ins.op != "MOV":
                continue
            d, s = copy
            if d is s or not facts.single(d) or not facts.single(s) or d.cls != s.cls:
                continue
            _replace_uses(mf, d, s)      # d had one definition, this one: the facts stay true
            b.instrs.remove(ins)
            changed = True
    return changed


def _key(ins: MInstr) -> tuple:
    def one(o):
        if isinstance(o, Use):
            return ("v", o.v.id, o.neg, o.inv, o.half)
        if isinstance(o, VMem):
            return ("m", o.base.id if o.base else None, o.offset)
        return ("x", type(o).__name__, str(o))
    return (ins.op, ins.mods, tuple(one(o) for o in ins.ops[ins.ndests:]))


def _dominators(mf: MFunction) -> tuple[dict[str, str], dict[str, list[str]], dict[str, list[str]]]:
    succs = {b.label: list(b.term.targets) for b in mf.blocks}
    preds = mf.preds()
    return CFG._dominators(mf.blocks[0].label, succs, preds), succs, preds


def _dominates(idom: dict[str, str], a: str, b: str) -> bool:
    while b in idom:
        if a == b:
            return True
        if idom[b] == b:
            return False
        b = idom[b]
    return False


def _eliminate_common(mf: MFunction, facts: _Facts) -> bool:
    idom, _, _ = _dominators(mf)
    seen: dict[tuple, list[MInstr]] = {}
    changed = False
    for b in mf.blocks:
        if b.label not in idom:
            continue
        for ins in list(b.instrs):
            defs = ins.defs()
            if not _pure(ins) or len(defs) != 1 or not facts.single(defs[0]) \
                    or not all(facts.single(u) for u in ins.uses()):
                continue
            key = _key(ins)
            for first in seen.get(key, ()):
                home = facts.where[id(first)]
                if home == b.label or _dominates(idom, home, b.label):
                    _replace_uses(mf, defs[0], first.defs()[0])
                    b.instrs.remove(ins)
                    changed = True
                    break
            else:
                seen.setdefault(key, []).append(ins)
    return changed


# ---- loop-invariant code motion -------------------------------------------------------------

def natural_loops(mf: MFunction) -> list[tuple[str, set[str]]]:
    """(header, body) of each back edge u → h (h dominates u): the blocks from h that reach u."""
    idom, succs, preds = _dominators(mf)
    return [(h, _loop_body(h, u, preds)) for u, targets in succs.items() for h in targets
            if u in idom and _dominates(idom, h, u)]


def _hoist_invariants(mf: MFunction, facts: _Facts) -> None:
    preds = mf.preds()
    blocks = mf.block_map()
    order = {b.label: i for i, b in enumerate(mf.blocks)}
    for h, body in natural_loops(mf):
        outside = [p for p in preds[h] if p not in body]
        if len(outside) != 1 or not isinstance(blocks[outside[0]].term, Goto):
            continue
        pre = blocks[outside[0]]
        inside = {id(ins) for label in body for ins in blocks[label].instrs}
        moved = True
        while moved:
            moved = False
            for label in sorted(body, key=order.__getitem__):
                for ins in list(blocks[label].instrs):
                    if _invariant(ins, facts, inside):
                        blocks[label].instrs.remove(ins)
                        pre.instrs.append(ins)
                        inside.discard(id(ins))
                        facts.where[id(ins)] = pre.label
                        moved = True


def _loop_body(h: str, u: str, preds: dict[str, list[str]]) -> set[str]:
    body, todo = {h, u}, [u]
    while todo:
        n = todo.pop()
        if n == h:
            continue
        for p in preds[n]:
            if p not in body:
                body.add(p)
                todo.append(p)
    return body


def _invariant(ins: MInstr, facts: _Facts, inside: set[int]) -> bool:
    defs = ins.defs()
    if not _pure(ins) or not defs or not all(facts.single(d) for d in defs):
        return False
    for v in ins.uses():
        ds = facts.defs.get(v, ())
        if len(ds) != 1 or id(ds[0]) in inside:
            return False
    return True
