"""Register allocation: virtual registers → R0–R62, pairs R2n:R2n+1 and P0–P6, spilling when they do not fit.

Guarantee: afterwards every operand of the machine code is physical, no two
values that are live at the same point of some thread's path share a register,
and `MFunction.local_bytes` is the local memory the spills need (4 bytes a slot).

  * Liveness is per thread over the machine CFG (a thread that executes a .S
    continues at the SSY target, so a region's stubs lead to its join), because
    the lanes a warp does not run keep their registers. IR registers may be
    assigned many times (not SSA) and an if-converted definition is guarded: a
    guarded definition does not end the old value's life (where its guard is
    false the old value stays). A register is only live where some definition of
    it may have happened ("live and maybe defined"), so a value first defined
    under a guard is not live back to the kernel's start.
  * A pair (class d) takes an even register and the next, R0:R1 to R60:R61, and
    interferes with general registers: a pair neighbour takes two of a register's
    colours, any neighbour one of a pair's. A definition of one word of a pair
    (mcode.Use.half) ends the pair's old value only where its `kills` says; a
    pair a load defines interferes with the load's address (the simulator
    writes the low word before it reads the high word's address).
  * Allocation is Chaitin–Briggs graph colouring with conservative (Briggs)
    coalescing of copies (MOV, and PSETP copies of predicates) and optimistic
    colouring, colour choice biased toward copy partners.
  * A predicate that gets no colour is spilled to a general register (SEL 0/1
    after each definition, ISETP.NE before each use); a general register that
    gets none to local memory (STL after each definition, with the definition's
    guard, LDL before each use; a pair to an 8-byte slot with STL.64 / LDL.64,
    reloaded before a write of one of its words). Then everything is coloured again. Spill code's
    own temporaries are never spilled.
  * A value no instruction reads is written to RZ (or pt); pure instructions that
    define only such values are dropped.
"""
from __future__ import annotations

from ....ir.analysis.cfg import CFG
from ..isa import PT, RZ, Mem, Pred, SassImm, SassReg
from .mcode import CondBr, EmitterError, MFunction, MInstr, Use, V, VMem, same_file

COLORS = {"r": 63, "d": 31, "p": 7}     # a pair: R0:R1 .. R60:R61 (R62:RZ is no pair)


def _weight(n: V, v: V) -> int:
    """How many of v's colours a neighbour n can take: a pair two of a register's, one of a pair's."""
    return 2 if n.cls == "d" and v.cls == "r" else 1


def _registers(v: V, c: int) -> tuple[int, ...]:
    return (c, c + 1) if v.cls == "d" else (c,)


def _choices(v: V) -> range:
    return range(0, 2 * COLORS["d"], 2) if v.cls == "d" else range(COLORS[v.cls])
MAX_ROUNDS = 24


def allocate(mf: MFunction) -> dict[V, int]:
    """Colour mf's virtual registers in place; returns the colouring (RZ / PT for unused values)."""
    slots = 0
    nospill: set[V] = set()
    for _ in range(MAX_ROUNDS):
        _drop_dead(mf)
        alloc = _Round(mf, nospill)
        spilled = alloc.run()
        if not spilled:
            _rewrite(mf, alloc.color)
            mf.local_bytes = 4 * slots
            return alloc.color
        alloc.rename_to_roots()
        slots = _spill(mf, spilled, slots, nospill)
    raise EmitterError(f"kernel @{mf.name}: register allocation did not converge after {MAX_ROUNDS} rounds of spilling")


# ---- liveness ----------------------------------------------------------------------

def _used(mf: MFunction) -> set[V]:
    used = set()
    for b in mf.blocks:
        for ins in b.instrs:
            used.update(ins.uses())
        if isinstance(b.term, CondBr):
            used.add(b.term.cond)
    return used


def _drop_dead(mf: MFunction) -> None:
    changed = True
    while changed:
        changed = False
        used = _used(mf)
        for b in mf.blocks:
            keep = [ins for ins in b.instrs
                    if not (ins.pure and ins.defs() and not any(d in used for d in ins.defs()))]
            if len(keep) != len(b.instrs):
                b.instrs = keep
                changed = True


class Liveness:
    def __init__(self, mf: MFunction):
        self.mf = mf
        self.blocks = mf.block_map()
        self.succs = {b.label: list(b.term.targets) for b in mf.blocks}
        self.preds = mf.preds()
        self.maydef_in: dict[str, set[V]] = {}
        self.before: dict[str, list[set[V]]] = {}      # maybe-defined before each instruction (and the term)
        self.live_in: dict[str, set[V]] = {b.label: set() for b in mf.blocks}
        self.live_out: dict[str, set[V]] = {b.label: set() for b in mf.blocks}
        self._maydef()
        self._live()

    def _maydef(self) -> None:
        out = {b.label: set() for b in self.mf.blocks}
        defs = {b.label: {d for ins in b.instrs for d in ins.defs()} for b in self.mf.blocks}
        changed = True
        while changed:
            changed = False
            for b in self.mf.blocks:
                inn = set().union(*(out[p] for p in self.preds[b.label])) if self.preds[b.label] else set()
                new = inn | defs[b.label]
                self.maydef_in[b.label] = inn
                if new != out[b.label]:
                    out[b.label] = new
                    changed = True
        for b in self.mf.blocks:
            cur = set(self.maydef_in[b.label])
            seq = []
            for ins in b.instrs:
                seq.append(set(cur))
                cur |= set(ins.defs())
            seq.append(cur)
            self.before[b.label] = seq

    def block_backward(self, label: str, out: set[V], visit=None) -> set[V]:
        b = self.blocks[label]
        before = self.before[label]
        live = set(out) & before[-1]
        if isinstance(b.term, CondBr) and b.term.cond in before[-1]:
            live.add(b.term.cond)
        for n in range(len(b.instrs) - 1, -1, -1):
            ins = b.instrs[n]
            if visit is not None:
                visit(ins, live)
            live.difference_update(ins.killed())
            live.update(ins.uses())
            live &= before[n]
        return live

    def _live(self) -> None:
        order = list(reversed(self.mf.blocks))
        changed = True
        while changed:
            changed = False
            for b in order:
                out = set().union(*(self.live_in[s] for s in self.succs[b.label])) if self.succs[b.label] else set()
                self.live_out[b.label] = out
                inn = self.block_backward(b.label, out)
                if inn != self.live_in[b.label]:
                    self.live_in[b.label] = inn
                    changed = True


def loop_depths(mf: MFunction) -> dict[str, int]:
    succs = {b.label: list(b.term.targets) for b in mf.blocks}
    preds = mf.preds()
    entry = mf.blocks[0].label
    idom = CFG._dominators(entry, succs, preds)

    def dominates(a, b):
        while True:
            if a == b:
                return True
            if b not in idom or idom[b] == b:
                return False
            b = idom[b]

    depth = {b.label: 0 for b in mf.blocks}
    for u in succs:
        for h in succs[u]:
            if u in idom and dominates(h, u):
                body, todo = {h}, [u]
                while todo:
                    x = todo.pop()
                    if x not in body:
                        body.add(x)
                        todo.extend(preds[x])
                for x in body:
                    depth[x] += 1
    return depth


# ---- one round of colouring --------------------------------------------------------

class _Round:
    def __init__(self, mf: MFunction, nospill: set[V]):
        self.mf, self.nospill = mf, nospill
        self.color: dict[V, int] = {}
        self.alias: dict[V, V] = {}

    def find(self, v: V) -> V:
        while v in self.alias:
            v = self.alias[v]
        return v

    def run(self) -> set[V]:
        mf = self.mf
        used = _used(mf)
        live = Liveness(mf)
        depth = loop_depths(mf)
        graph: dict[V, set[V]] = {}
        cost: dict[V, float] = {}
        moves: list[tuple[float, V, V]] = []

        def node(v: V) -> None:
            if v in used and v not in graph:
                graph[v] = set()
                cost[v] = 0.0

        for b in mf.blocks:
            weight = 10.0 ** min(depth[b.label], 6)

            def visit(ins: MInstr, live_after: set[V]) -> None:
                copy = ins.is_copy()
                if copy is not None:
                    moves.append((weight, copy[0], copy[1]))
                for d in ins.defs():
                    node(d)
                    if d not in graph:
                        continue
                    cost[d] += weight
                    others = set(live_after)
                    if d.cls == "d":      # a pair's words are written one at a time: not over an address
                        others.update(o.base for o in ins.ops if isinstance(o, VMem) and o.base is not None)
                    for v in others:
                        if v is not d and same_file(v, d) and not (copy is not None and v is copy[1]):
                            node(v)
                            graph[d].add(v)
                            graph[v].add(d)
                for u in ins.uses():
                    node(u)
                    cost[u] = cost.get(u, 0.0) + weight
            live.block_backward(b.label, live.live_out[b.label], visit)
            if isinstance(b.term, CondBr):
                node(b.term.cond)
                cost[b.term.cond] = cost.get(b.term.cond, 0.0) + weight
        # values live into the entry block were never defined: nothing to do; every node exists now
        self.graph, self.cost = graph, cost
        self._coalesce(sorted(moves, key=lambda m: -m[0]))
        spilled = self._color()
        for v in used:
            if v not in self.color and self.find(v) in self.color:
                self.color[v] = self.color[self.find(v)]
        for b in mf.blocks:       # defined but never read: the zero register / pt
            for ins in b.instrs:
                for d in ins.defs():
                    if d not in used:
                        self.color[d] = PT if d.cls == "p" else RZ
        return spilled

    def _coalesce(self, moves) -> None:
        g = self.graph
        for _, d, s in moves:
            a, b = self.find(d), self.find(s)
            if a is b or a.cls != b.cls or a not in g or b not in g or b in g[a]:
                continue
            k = COLORS[a.cls]
            high = sum(1 for n in g[a] | g[b] if len(g[n]) >= k)
            if high >= k:
                continue
            if b in self.nospill and a not in self.nospill:
                a, b = b, a                  # keep the unspillable one as the representative
            for n in g[b]:
                g[n].discard(b)
                g[n].add(a)
            g[a] |= g[b]
            self.cost[a] = self.cost.get(a, 0.0) + self.cost.get(b, 0.0)
            del g[b]
            self.alias[b] = a
        self.partners: dict[V, set[V]] = {}
        for _, d, s in moves:
            a, b = self.find(d), self.find(s)
            if a is not b:
                self.partners.setdefault(a, set()).add(b)
                self.partners.setdefault(b, set()).add(a)

    def _color(self) -> set[V]:
        g = self.graph
        degree = {v: sum(_weight(n, v) for n in ns) for v, ns in g.items()}
        removed: set[V] = set()
        stack: list[V] = []
        remaining = set(g)
        while remaining:
            pick = None
            for v in sorted(remaining, key=lambda v: v.id):
                if degree[v] < COLORS[v.cls]:
                    pick = v
                    break
            if pick is None:      # a spill candidate, pushed optimistically
                def spill_cost(v):
                    if v in self.nospill:
                        return float("inf")
                    return self.cost.get(v, 1.0) / (degree[v] + 1)
                pick = min(sorted(remaining, key=lambda v: v.id), key=spill_cost)
            remaining.discard(pick)
            removed.add(pick)
            stack.append(pick)
            for n in g[pick]:
                if n not in removed:
                    degree[n] -= _weight(pick, n)
        spilled = set()
        while stack:
            v = stack.pop()
            taken = {r for n in g[v] if n in self.color for r in _registers(n, self.color[n])}
            free = [c for c in _choices(v) if not taken.intersection(_registers(v, c))]
            if not free:
                spilled.add(v)
                continue
            preferred = [self.color[p] for p in self.partners.get(v, ()) if p in self.color and self.color[p] in free]
            self.color[v] = preferred[0] if preferred else free[0]
        if spilled and all(v in self.nospill for v in spilled):
            raise EmitterError(f"kernel @{self.mf.name}: more values are needed at once than there are registers")
        return {v for v in spilled if v not in self.nospill} or spilled

    def rename_to_roots(self) -> None:
        """Make the coalescing permanent in the code (before spilling, so a spilled node is one register)."""
        if not self.alias:
            return
        _substitute(self.mf, {v: self.find(v) for v in self.alias})


# ---- spilling ----------------------------------------------------------------------------

def _substitute(mf: MFunction, m: dict[V, V]) -> None:
    for b in mf.blocks:
        for ins in b.instrs:
            ins.ops = [_sub(o, m) for o in ins.ops]
            if ins.guard is not None and ins.guard[0] in m:
                ins.guard = (m[ins.guard[0]], ins.guard[1])
            if ins.kills:
                ins.kills = {m.get(v, v) for v in ins.kills}
        if isinstance(b.term, CondBr) and b.term.cond in m:
            b.term.cond = m[b.term.cond]
        b.instrs = [ins for ins in b.instrs if not _identity(ins)]


def _identity(ins: MInstr) -> bool:
    copy = ins.is_copy()
    return copy is not None and copy[0] is copy[1]


def _sub(o, m):
    if isinstance(o, Use) and o.v in m:
        return Use(m[o.v], o.neg, o.inv, o.half)
    if isinstance(o, VMem) and o.base in m:
        return VMem(m[o.base], o.offset)
    return o


def _spill(mf: MFunction, spilled: set[V], slots: int, nospill: set[V]) -> int:
    home: dict[V, object] = {}
    for v in sorted(spilled, key=lambda v: v.id):
        if v.cls == "r":
            home[v] = slots * 4
            slots += 1
        elif v.cls == "d":                      # two aligned words: LDL.64 / STL.64
            slots += slots & 1
            home[v] = slots * 4
            slots += 2
        else:
            home[v] = V("r", f"{v.hint or 'p'}.spill")

    def load(v: V, out: list[MInstr], loc) -> V:
        t = V(v.cls, "reload", temp=True)
        nospill.add(t)
        if v.cls != "p":
            out.append(MInstr("LDL", ("64",) if v.cls == "d" else (), [Use(t), Mem(SassReg(RZ), home[v])], loc=loc))
        else:
            out.append(MInstr("ISETP", ("NE", "AND"), [Use(t), Pred(PT), Use(home[v]), SassReg(RZ), Pred(PT)], loc=loc))
        return t

    def store(v: V, t: V, guard, out: list[MInstr], loc) -> None:
        if v.cls != "p":
            out.append(MInstr("STL", ("64",) if v.cls == "d" else (), [Mem(SassReg(RZ), home[v]), Use(t)], guard,
                              loc=loc))
        else:
            out.append(MInstr("SEL", (), [Use(home[v]), SassReg(RZ), SassImm(1), Use(t, neg=True)], guard, loc=loc))

    for b in mf.blocks:
        code = []
        for ins in b.instrs:
            m = {}
            for v in dict.fromkeys(ins.uses()):
                if v in home:
                    m[v] = load(v, code, ins.loc)
            defs = [d for d in ins.defs() if d in home]
            ins.ops = ins.ops[:ins.ndests] + [_sub(o, m) for o in ins.ops[ins.ndests:]]
            if ins.guard is not None and ins.guard[0] in m:
                ins.guard = (m[ins.guard[0]], ins.guard[1])
            after = []
            for d in defs:
                partial = any(isinstance(o, Use) and o.v is d and o.half is not None for o in ins.ops[:ins.ndests])
                if partial:                      # one word of a pair: the other comes from its home
                    t = load(d, code, ins.loc)
                else:
                    t = V(d.cls, "spilled", temp=True)
                    nospill.add(t)
                ins.ops = [Use(t, o.neg, o.inv, o.half) if isinstance(o, Use) and o.v is d and n < ins.ndests else o
                           for n, o in enumerate(ins.ops)]
                ins.kills = (ins.kills - {d}) | ({t} if not partial else set())
                store(d, t, ins.guard, after, ins.loc)
            code.append(ins)
            code.extend(after)
        if isinstance(b.term, CondBr) and b.term.cond in home:
            b.term.cond = load(b.term.cond, code, b.term.loc)
        b.instrs = code
    return slots


# ---- the result ----------------------------------------------------------------------

def _rewrite(mf: MFunction, color: dict[V, int]) -> None:
    def phys(o):
        if isinstance(o, Use):
            c = color[o.v]
            if o.v.cls == "p":
                return Pred(c, o.neg)
            return SassReg(c if c == RZ else c + (o.half or 0), o.neg, o.inv)
        if isinstance(o, VMem):
            return Mem(SassReg(RZ if o.base is None else color[o.base]), o.offset)
        return o

    for b in mf.blocks:
        code = []
        for ins in b.instrs:
            ins.ops = [phys(o) for o in ins.ops]
            if ins.guard is not None:
                ins.guard = Pred(color[ins.guard[0]], ins.guard[1])
            if _physical_identity(ins):
                continue
            code.append(ins)
        b.instrs = code
        if isinstance(b.term, CondBr):
            b.term.cond = color[b.term.cond]


def _physical_identity(ins: MInstr) -> bool:
    if ins.guard is not None:
        return False
    o = ins.ops
    if ins.op == "MOV" and isinstance(o[0], SassReg) and isinstance(o[1], SassReg):
        return o[0] == o[1] or o[0].n == RZ
    if ins.op == "PSETP" and ins.mods == ("AND", "AND") and isinstance(o[2], Pred):
        return o[0] == o[2] and o[1] == Pred(PT) and o[3] == Pred(PT) and o[4] == Pred(PT) or o[0] == Pred(PT)
    return False
