"""Value ranges: an interval for every integer register at every instruction of a kernel.

    ranges = Ranges(kernel)
    for i, ins, state in ranges.walk(label):     # the state before each instruction of a block
        lo, hi = ranges.value(ins.ref.index, state)

Floats are not tracked: a float register has no interval, a comparison of floats gives no
facts, and an integer converted from a float has its type's whole range.

The intervals hold for **every launch the kernel can get**, not only the shapes its host block
uses: the grid is never known (ctaid.x lies in 0 .. 2^31 − 2, ctaid.y and .z in 0 .. 65534, and
nctaid is at least 1), the block only when the kernel's header declares it (then tid, ntid, the
lane and the warp are exact), else tid.x and .y are at most 1023, tid.z at most 63 and ntid at
most 1024. A scalar parameter and anything loaded from memory or returned by an atomic or a
primitive has its type's whole range (a bool 0 .. 1). `shape=(grid, block)` narrows the special
registers to one launch shape, for an analysis that asks about a given launch.

Arithmetic is on the mathematical values, and a result that may leave its type's range (it
wraps on the GPU) gets the type's whole range. The IR is not SSA, so the analysis is a forward
data flow over the control-flow graph that joins the intervals of every definition reaching a
point; at the heads of loops (the targets of retreating edges in depth-first order) a bound
that still moves is widened to the type's limit, and two descending rounds without widening
then bring back what a loop's exit test bounds (`for i in 0 .. n`: the body sees 0 .. n − 1
through the test, the code after the loop n .. n).

Branches refine what they test, on each edge, where the test still holds there: `if k >= 0
&& k < N` (an `and` of comparisons on the true edge, an `or` on the false one, `!`), a
comparison with another register (`i < j` bounds both), and through a copy or a constant
offset (`t = v + 1; if t < 48` bounds v too, when v + 1 cannot wrap), and `x != y` where x is
y plus a sum of registers whose interval has 0 at an end (`i = lo + k * 128 + tid; if i != lo`:
i > lo; `if i != lo + 2047` with k * 128 + tid at most 2047: i < lo + 2047). A comparison's facts
die when a register it reads is assigned again. `min`, `max`, `x % 48` (of a non-negative
x: 0 .. 47), `x & 31` (0 .. 31), `select` (each arm under its condition), shifts by a
constant and division by a range that excludes zero are exact on intervals.

With `accesses_checked` (the default), an access to an element, `ld @a[%i]`, a store, an
atomic, a primitive operation or a `bounds.check`, bounds its index to 0 .. length − 1 after
it: the program goes on past it only where the index was inside (a run-time check stops it
otherwise), so a second access with the same index needs no second check.

Time is linear in the kernel's size times the rounds the loops need (widening bounds them).
"""
from __future__ import annotations

import heapq

from ...core.types import BOOL, ScalarType
from .cfg import post_order
from ..nodes import Branch, Imm, Instr, Kernel, Ref, Reg
from ..ops import COMPARE, NEGATED, SWAPPED

Interval = tuple[int, int]

# Special registers whatever the launch: the hardware's limits (CUDA's maximum grid and block)
_GRID_MAX = {"x": (1 << 31) - 1, "y": 65535, "z": 65535}
_BLOCK_MAX = {"x": 1024, "y": 1024, "z": 64}
_AXIS = {"x": 0, "y": 1, "z": 2}
_LOGIC = ("and", "or", "not", "mov", "xor", "cvt", "select")     # what reads a condition's facts
_RELATED = ("mov", "add", "sub", "div", "min", "max")      # what an alias or a relation (State) comes from


def ref_length(k: Kernel, name: str) -> int | None:
    """Elements of the array or instances of the primitive `name`; None where a launch decides
    (state kept per block or per thread) or the name is not declared."""
    a = k.array(name)
    if a is not None:
        return a.length if a.per is None else None
    p = k.prim(name)
    return p.instances if p is not None else None


class State:
    """What holds at one point: the registers narrower than their type (`r`), the facts each
    boolean register stands for when true and when false (`facts`), and the registers that are
    another plus a constant, exactly (`alias`: t → (v, c) for t == v + c with no wrap), and those
    that are another divided by a positive constant, or the least or greatest of two others (`rel`:
    t → ("div", v, c) for t == v / c, truncated: `warp` is `tid / 32`, so `if warp != 0` bounds
    `tid` too; t → ("min", a, b) or ("max", a, b): a lock taken at `min(x, y)` and one at
    `max(x, y)`, both checked, bound x and y; t → ("sum", a, b) for t == a + b with no wrap), and the
    pairs of registers known apart by a strict order (`below`: (x, y) for x < y, signed, from a test
    on the path that neither has been assigned since: an index below the length a launch gives)."""
    __slots__ = ("r", "facts", "alias", "rel", "below")

    def __init__(self, r=None, facts=None, alias=None, rel=None, below=frozenset()):
        self.r: dict[str, Interval] = r if r is not None else {}
        self.facts: dict[str, tuple[tuple, tuple]] = facts if facts is not None else {}
        self.alias: dict[str, tuple[str, int]] = alias if alias is not None else {}
        self.rel: dict[str, tuple] = rel if rel is not None else {}
        self.below: frozenset[tuple[str, str]] = below

    def copy(self) -> "State":
        return State(dict(self.r), dict(self.facts), dict(self.alias), dict(self.rel), self.below)

    def __eq__(self, other) -> bool:
        return isinstance(other, State) and self.r == other.r and self.facts == other.facts \
            and self.alias == other.alias and self.rel == other.rel and self.below == other.below


def _join(states: list[State | None]) -> State | None:
    states = [s for s in states if s is not None]
    if not states:
        return None
    if len(states) == 1:
        return states[0].copy()
    first, rest = states[0], states[1:]
    r = {}
    for name, (lo, hi) in first.r.items():
        for s in rest:
            other = s.r.get(name)
            if other is None:
                break
            lo, hi = min(lo, other[0]), max(hi, other[1])
        else:
            r[name] = (lo, hi)
    facts = {}
    for name, (t, f) in first.facts.items():
        for s in rest:
            other = s.facts.get(name)
            if other is None:
                break
            t = tuple(x for x in t if x in other[0])
            f = tuple(x for x in f if x in other[1])
        else:
            if t or f:
                facts[name] = (t, f)
    alias = {name: a for name, a in first.alias.items() if all(s.alias.get(name) == a for s in rest)}
    rel = {name: q for name, q in first.rel.items() if all(s.rel.get(name) == q for s in rest)}
    below = first.below.intersection(*(s.below for s in rest))
    return State(r, facts, alias, rel, below)


class Ranges:
    def __init__(self, k: Kernel, shape: tuple | None = None, accesses_checked: bool = True,
                 block_index: tuple[int, int, int] | None = None):
        """`shape`: (grid, block) of a launch, either None where a launch decides. `block_index`:
        the ranges in that one block of the grid (`bid` fixed, `nbid` the grid's)."""
        self.k = k
        self.block_index = block_index
        self.accesses_checked = accesses_checked
        self.types: dict[str, ScalarType] = {p.name: p.type for p in k.params if isinstance(p, Reg)}
        conditions = set()       # boolean registers something reads as a condition
        for b in k.blocks:
            for ins in b.instrs:
                for d in ins.dests:
                    self.types[d.name] = d.type
                if ins.op in _LOGIC:
                    conditions.update(a.name for a in ins.args if isinstance(a, Reg) and a.type == BOOL)
            if isinstance(b.term, Branch) and isinstance(b.term.cond, Reg):
                conditions.add(b.term.cond.name)
        self.conditions = conditions
        # the registers a condition's facts can read: assigning another kills no fact
        self.compared = {a.name for b in k.blocks for ins in b.instrs
                         if ins.dests and ins.dests[0].name in conditions and ins.op in ("cvt",) + tuple(COMPARE)
                         for a in ins.args if isinstance(a, Reg)}
        # the registers worth an alias (a constant offset of another): those compared or used as an
        # index, whose refinement can pass to the register they are an offset of, and back; and
        # the registers such an alias can name, whose assignment kills it
        worth = self.compared | {a.index.name for b in k.blocks for ins in b.instrs for a in ins.args
                                 if isinstance(a, Ref) and isinstance(a.index, Reg)}
        # (and, for a sum or an offset that is worth it, its operands, whose own sums and offsets
        # `!=` can follow)
        adds = {}
        for b in k.blocks:
            for ins in b.instrs:
                if ins.op in ("add", "sub", "mov") and ins.dests:
                    adds.setdefault(ins.dests[0].name, set()).update(a.name for a in ins.args if isinstance(a, Reg))
        todo = [name for name in worth if name in adds]
        while todo:
            for a in adds.pop(todo.pop(), ()):
                if a not in worth:
                    worth.add(a)
                    if a in adds:
                        todo.append(a)
        self.aliased = {ins.dests[0].name for b in k.blocks for ins in b.instrs
                        if ins.op in _RELATED and ins.dests and ins.dests[0].name in worth}
        self.bases = {a.name for b in k.blocks for ins in b.instrs
                      if ins.op in _RELATED and ins.dests and ins.dests[0].name in self.aliased
                      for a in ins.args if isinstance(a, Reg)}
        self.lengths: dict[str, int | None] = {}
        self.specials = self._specials(shape)
        self.blocks = k.block_map()
        self.entry = k.blocks[0].label
        self.states: dict[str, State | None] = {}      # block → the state where it starts
        self._solve()

    # ---- queries
    def walk(self, label: str):
        """(index, instruction, state before it) for each instruction of the block; the state is
        None in a block no execution reaches. The state is the analysis's own: read it, do not keep it."""
        state = self.states.get(label)
        state = state.copy() if state is not None else None
        for i, ins in enumerate(self.blocks[label].instrs):
            yield i, ins, state
            if state is not None:
                self.step(state, ins)

    def value(self, v, state: State) -> Interval:
        """The interval of an operand (a register or an immediate) in `state`."""
        if isinstance(v, Imm):
            return int(v.value), int(v.value)
        got = state.r.get(v.name)
        return got if got is not None else v.type.range

    def below(self, x, y, state: State) -> bool:
        """Is register x known below register y (signed) in `state`?"""
        return isinstance(x, Reg) and isinstance(y, Reg) and (x.name, y.name) in state.below

    def range_at(self, label: str, index: int, v) -> Interval | None:
        """The interval of operand `v` just before instruction `index` of block `label` (None where
        no execution reaches)."""
        for i, _, state in self.walk(label):
            if i == index:
                return None if state is None else self.value(v, state)
        return None

    # ---- the fixpoint
    def _solve(self) -> None:
        succs = {b.label: list(dict.fromkeys(b.term.targets)) for b in self.k.blocks}
        order = post_order(self.entry, succs)[::-1]
        rank = {label: n for n, label in enumerate(order)}
        preds: dict[str, list[str]] = {label: [] for label in order}
        latches: dict[str, list[str]] = {}
        for u in order:
            for v in succs[u]:
                preds[v].append(u)
                if rank[v] <= rank[u]:
                    latches.setdefault(v, []).append(u)     # a retreating edge: v heads a loop
        heads = self._loop_assigned(latches, preds)
        edges: dict[tuple[str, str], State | None] = {}
        states = self.states
        start = State()

        def block_in(label: str) -> State | None:
            ins = [edges.get((p, label)) for p in preds[label]]
            return _join(ins + [start] if label == self.entry else ins)

        def flow(label: str) -> list[str]:
            """Run the block from its state; the successors whose incoming state changed."""
            state = states[label].copy()
            for ins in self.blocks[label].instrs:
                self.step(state, ins)
            changed = []
            for target, out in self._branch(state, self.blocks[label].term):
                if edges.get((label, target), ...) != out:
                    edges[label, target] = out
                    changed.append(target)
            return changed

        work = [(0, self.entry)]
        queued = {self.entry}
        while work:
            _, label = heapq.heappop(work)
            queued.discard(label)
            new = block_in(label)
            if new is None:
                continue
            old = states.get(label)
            if old is not None:
                if label in heads:
                    new = self._widen(old, new, heads[label])
                if new == old:
                    continue
            states[label] = new
            for target in flow(label):
                if target not in queued:
                    queued.add(target)
                    heapq.heappush(work, (rank[target], target))
        for _ in range(2):       # descending rounds: what widening overshot, the exit tests bound again
            for label in order:
                if label in states:
                    new = block_in(label)
                    if new is None:
                        continue
                    states[label] = new
                    flow(label)

    def _loop_assigned(self, latches: dict[str, list[str]], preds: dict[str, list[str]]) -> dict[str, set[str]]:
        """Each loop head → the registers its loop assigns (in the blocks that reach a back edge to
        it without passing it): only those can grow round that loop, so only those are widened
        there (a variable an inner loop does not assign is widened at the outer loop's head, which
        does; widening it at the inner head too would lose what the outer loop's test bounds)."""
        out = {}
        for head, sources in latches.items():
            body, todo = {head}, list(sources)
            while todo:
                x = todo.pop()
                if x not in body:
                    body.add(x)
                    todo.extend(preds[x])
            out[head] = {d.name for x in body for ins in self.blocks[x].instrs for d in ins.dests}
        return out

    def _widen(self, old: State, new: State, assigned: set[str]) -> State:
        r = {}
        for name, (lo, hi) in new.r.items():
            was = old.r.get(name)
            if name not in assigned:
                r[name] = (lo, hi)             # the loop does not change it: it cannot grow round it
                continue
            if was is None:
                continue                       # already the whole range
            tlo, thi = self.types[name].range
            lo = was[0] if lo >= was[0] else tlo
            hi = was[1] if hi <= was[1] else thi
            if (lo, hi) != (tlo, thi):
                r[name] = (lo, hi)
        return State(r, new.facts, new.alias, new.rel, new.below & old.below)

    def _branch(self, state: State, term):
        """(successor, the state on the edge to it): a branch refines what its condition tests."""
        if not isinstance(term, Branch):
            return [(t, state) for t in term.targets]
        cond = term.cond
        if term.if_true == term.if_false:
            return [(term.if_true, state)]
        if isinstance(cond, Imm):
            return [(term.if_true, state if cond.value else None), (term.if_false, None if cond.value else state)]
        t_facts, f_facts = state.facts.get(cond.name, ((), ()))
        on_true, on_false = state.copy(), state
        ok_true = self._refine(on_true, t_facts) and self._narrow(on_true, cond, (1, 1))
        ok_false = self._refine(on_false, f_facts) and self._narrow(on_false, cond, (0, 0))
        return [(term.if_true, on_true if ok_true else None), (term.if_false, on_false if ok_false else None)]

    # ---- one instruction
    def step(self, state: State, ins: Instr) -> None:
        """Move `state` past `ins`."""
        op = ins.op
        if self.accesses_checked and op != "bounds.check" and ins.info.ref and ins.args \
                and isinstance(ins.args[0], Ref) and isinstance(ins.args[0].index, Reg):
            n = self._length(ins.args[0].name)
            if n is not None:
                self._narrow(state, ins.args[0].index, (0, n - 1))
        elif op == "bounds.check" and self.accesses_checked:
            if len(ins.args) == 1:
                self._narrow(state, ins.args[0], (0, int(ins.attr("len")) - 1))
        if not ins.dests:
            return
        d = ins.dests[0]
        if d.type.is_float:
            for x in ins.dests:
                self._kill(state, x.name)
            return
        value, facts, alias = self._compute(state, ins, d)
        for x in ins.dests:
            self._kill(state, x.name)
        if value is not None and value != d.type.range:
            state.r[d.name] = value
        if facts is not None and d.name in self.conditions:
            state.facts[d.name] = facts
        if alias is not None and d.name in self.aliased:
            if len(alias) == 3:            # (kind, ...): div, min, max, sum
                state.rel[d.name] = alias
            else:
                state.alias[d.name] = alias

    def _length(self, name: str) -> int | None:
        if name not in self.lengths:
            self.lengths[name] = ref_length(self.k, name)
        return self.lengths[name]

    def _kill(self, state: State, name: str) -> None:
        """`name` is assigned: what was known of its old value, and every fact that read it, go."""
        if state.below:
            state.below = frozenset(p for p in state.below if name not in p)
        state.r.pop(name, None)
        state.facts.pop(name, None)
        state.alias.pop(name, None)
        state.rel.pop(name, None)
        if state.facts and name in self.compared:
            for c, (t, f) in list(state.facts.items()):
                if any(_mentions(x, name) for x in t) or any(_mentions(x, name) for x in f):
                    t = tuple(x for x in t if not _mentions(x, name))
                    f = tuple(x for x in f if not _mentions(x, name))
                    if t or f:
                        state.facts[c] = (t, f)
                    else:
                        del state.facts[c]
        if name in self.bases:
            for t, (v, _) in list(state.alias.items()):
                if v == name:
                    del state.alias[t]
            for t, (_, *operands) in list(state.rel.items()):
                if name in operands:
                    del state.rel[t]

    def _compute(self, state: State, ins: Instr, d: Reg):
        """(interval of the first result or None for the whole range, its facts when a bool, its
        alias) of one instruction."""
        op, args, t = ins.op, ins.args, d.type
        group = ins.info.group
        if group == "special":
            out = self.specials.get(ins.attr("reg"))
            return (out if out is not None and t.range[0] <= out[0] and out[1] <= t.range[1] else None), None, None
        if op == "scan.tile" or ins.attr("within") == "blocks":
            # a block's tile (one a block, numbered from 0: frontend/check_scan.py), or the load that
            # reads it back after expansion (impls/scan.py): below the grid's blocks
            blocks = 1
            for axis in _AXIS:
                blocks *= self.specials[f"nctaid.{axis}"][1]
            return (0, min(blocks - 1, t.range[1])), None, None
        if group != "arith" or any(isinstance(a, (Reg, Imm)) and a.type.is_float for a in args):
            return None, None, None                # memory, atomics, primitives, floats: the type's range
        if t == BOOL:
            return self._condition(state, ins)
        v = [self.value(a, state) for a in args]
        alias = None
        if op == "mov":
            out = v[0]
            if isinstance(args[0], Reg) and args[0].type == t:
                alias = self._alias_of(state, args[0], 0)
        elif op == "cvt":
            out = v[0]
        elif op in ("add", "sub"):
            sign = 1 if op == "add" else -1
            out = (v[0][0] + v[1][0], v[0][1] + v[1][1]) if sign == 1 else (v[0][0] - v[1][1], v[0][1] - v[1][0])
            const = [x[0] if x[0] == x[1] else None for x in v]
            if const[1] is not None and isinstance(args[0], Reg) and args[0].type == t:
                alias = self._alias_of(state, args[0], sign * const[1])
            elif op == "add" and const[0] is not None and isinstance(args[1], Reg) and args[1].type == t:
                alias = self._alias_of(state, args[1], const[0])
            elif op == "add" and all(isinstance(a, Reg) and a.type == t for a in args):
                alias = ("sum", args[0].name, args[1].name)     # (a relation: State.rel)
        elif op == "mul":
            c = [a * b for a in v[0] for b in v[1]]
            out = (min(c), max(c))
        elif op == "div":
            out = _divide(v[0], v[1])
            if v[1][0] == v[1][1] > 0 and isinstance(args[0], Reg) and args[0].type == t:
                alias = ("div", args[0].name, v[1][0])   # (a relation: State.rel)
        elif op == "rem":
            out = _remainder(v[0], v[1])
        elif op in ("min", "max"):
            pick = min if op == "min" else max
            out = (pick(v[0][0], v[1][0]), pick(v[0][1], v[1][1]))
            alias = (op, *(a.name if isinstance(a, Reg) and a.type == t else None for a in args))
        elif op == "neg":
            out = (-v[0][1], -v[0][0])
        elif op == "abs":
            lo, hi = v[0]
            out = v[0] if lo >= 0 else (-hi, -lo) if hi <= 0 else (0, max(-lo, hi))
        elif op == "not":
            out = (-v[0][1] - 1, -v[0][0] - 1) if t.signed else (t.range[1] - v[0][1], t.range[1] - v[0][0])
        elif op == "popc":
            out = (0, args[0].type.bits)
        elif op in ("and", "or", "xor"):
            out = _bitwise(op, v[0], v[1])
        elif op in ("shl", "shr"):
            out = _shift(op, v[0], v[1], args[0].type.bits)
        elif op == "select":
            out = self._select(state, args)
        else:
            out = None
        if out is None or out[0] < t.range[0] or out[1] > t.range[1]:
            return None, None, None                # it may wrap: the whole range
        return out, None, alias

    def _alias_of(self, state: State, v: Reg, c: int):
        """v + c as (base register, offset), following v's own alias."""
        base = state.alias.get(v.name)
        return (base[0], base[1] + c) if base is not None else (v.name, c)

    def _condition(self, state: State, ins: Instr):
        """A boolean result: its interval (0 .. 1, or a constant), and the facts it stands for."""
        op, args = ins.op, ins.args
        if op.startswith("cmp.") and args[0].type != BOOL:
            rel = op[4:]
            a, b = self.value(args[0], state), self.value(args[1], state)
            known = _decide(rel, a, b)
            fact = (args[0], rel, args[1])
            facts = ((fact,), ((args[0], NEGATED[op][4:], args[1]),))
            return ((known, known) if known is not None else (0, 1)), facts, None
        v = [self.value(a, state) for a in args]
        f = [self._facts_of(state, a) for a in args]
        if op == "and":
            out = (v[0][0] & v[1][0], v[0][1] & v[1][1])
            return out, (f[0][0] + f[1][0], ()), None
        if op == "or":
            out = (v[0][0] | v[1][0], v[0][1] | v[1][1])
            return out, ((), f[0][1] + f[1][1]), None
        if op == "not":
            return (1 - v[0][1], 1 - v[0][0]), (f[0][1], f[0][0]), None
        if op == "mov" and args[0].type == BOOL:
            return v[0], f[0], None
        if op == "xor" and isinstance(args[1], Imm):
            return ((1 - v[0][1], 1 - v[0][0]), (f[0][1], f[0][0]), None) if args[1].value else (v[0], f[0], None)
        if op == "cvt" and args[0].type != BOOL:
            zero = Imm(0, args[0].type)
            lo, hi = v[0]
            known = 0 if (lo, hi) == (0, 0) else 1 if lo > 0 or hi < 0 else None
            return ((known, known) if known is not None else (0, 1)), \
                (((args[0], "ne", zero),), ((args[0], "eq", zero),)), None
        if op == "select":
            return self._select(state, args), None, None
        return None, None, None

    def _facts_of(self, state: State, v) -> tuple[tuple, tuple]:
        if isinstance(v, Imm):
            return (), ()
        return state.facts.get(v.name, ((), ()))

    def _select(self, state: State, args) -> Interval:
        """select c, a, b: a where c holds, b where it does not (each under that side's facts)."""
        c = args[0]
        t_facts, f_facts = self._facts_of(state, c)
        out = []
        for facts, arm in ((t_facts, args[1]), (f_facts, args[2])):
            if facts and isinstance(arm, Reg):
                s = state.copy()
                if not self._refine(s, facts):
                    continue                        # this side is never taken
                out.append(self.value(arm, s))
            else:
                out.append(self.value(arm, state))
        if not out:
            return self.value(args[1], state)
        return min(x[0] for x in out), max(x[1] for x in out)

    # ---- refinement
    def _refine(self, state: State, facts) -> bool:
        """Narrow `state` by facts known to hold; False when they cannot all hold (no execution).
        A second round lets a fact use what a later one narrowed (`k != 0 && k >= 0`)."""
        return self._refine_once(state, facts) and (len(facts) < 2 or self._refine_once(state, facts))

    def _refine_once(self, state: State, facts) -> bool:
        for x, rel, y in facts:
            if rel in ("lt", "gt") and isinstance(x, Reg) and isinstance(y, Reg) and x.type.signed and \
                    x.type == y.type:
                state.below = state.below | {(x.name, y.name) if rel == "lt" else (y.name, x.name)}
            a, b = self.value(x, state), self.value(y, state)
            if rel == "ne":
                na, nb = _not_equal(a, b), _not_equal(b, a)
            else:
                na, nb = _relate(rel, a, b), _relate(SWAPPED["cmp." + rel][4:], b, a)
            if na is None or nb is None:
                return False
            if isinstance(x, Reg) and not self._narrow(state, x, na):
                return False
            if isinstance(y, Reg) and not self._narrow(state, y, nb):
                return False
            if rel == "ne" and isinstance(x, Reg) and isinstance(y, Reg) and \
                    not (self._apart(state, x, y) and self._apart(state, y, x)):
                return False
        return True

    def _apart(self, state: State, x: Reg, y: Reg) -> bool:
        """x != y, where x is y plus a sum D of other registers and a constant (State.rel's sums,
        State.alias's offsets): D != 0 narrows x to y + (D without 0). False when nothing is left."""
        terms = self._terms(state, x.name)
        if terms is None:
            return True
        (regs, c), (yregs, yc) = terms, self._terms(state, y.name) or ({y.name: 1}, 0)
        for name, n in yregs.items():
            if regs.get(name, 0) < n:
                return True                  # y is not a part of x
            regs = {**regs, name: regs[name] - n}
        lo = hi = c - yc
        for name, n in regs.items():
            if n:
                a, b = self.value(Reg(name, self.types[name]), state)
                lo, hi = lo + n * a, hi + n * b
        d = _not_equal((lo, hi), (0, 0))
        if d is None:
            return False
        if d == (lo, hi):
            return True
        ylo, yhi = self.value(y, state)
        return self._narrow(state, x, (ylo + d[0], yhi + d[1]))

    def _terms(self, state: State, name: str, depth: int = 8) -> tuple[dict[str, int], int] | None:
        """name as a sum of registers (how many times each) and a constant, following its sums and
        constant offsets; None where it is neither."""
        alias = state.alias.get(name)
        if alias is not None:
            inner = self._terms(state, alias[0], depth - 1) if depth else None
            regs, c = inner if inner is not None else ({alias[0]: 1}, 0)
            return regs, c + alias[1]
        rel = state.rel.get(name)
        if rel is None or rel[0] != "sum" or not depth:
            return None
        regs, c = {}, 0
        for part in rel[1:]:
            inner = self._terms(state, part, depth - 1)
            more, k = inner if inner is not None else ({part: 1}, 0)
            for r, n in more.items():
                regs[r] = regs.get(r, 0) + n
            c += k
        return regs, c

    def _narrow(self, state: State, x, want: Interval) -> bool:
        """x lies in `want` as well: narrow it, the register it is a constant offset of, and that
        register's other offsets. False when nothing is left."""
        if not isinstance(x, Reg):
            lo, hi = self.value(x, state)
            return want[0] <= hi and lo <= want[1]
        got = self._set(state, x.name, want)
        if got is None:
            return False
        rel = state.rel.get(x.name)
        if rel is not None and not self._narrow_related(state, rel, got):
            return False
        root, c = state.alias.get(x.name, (x.name, 0))
        if root != x.name:
            got = self._set(state, root, (got[0] - c, got[1] - c))
            if got is None:
                return False
        for other, (v, d) in state.alias.items():
            if v == root and other != x.name and self._set(state, other, (got[0] + d, got[1] + d)) is None:
                return False
        return True

    def _narrow_related(self, state: State, rel: tuple, got: Interval) -> bool:
        """A register related to others (State.rel) now lies in `got`: what that says of them."""
        kind, *operands = rel
        if kind == "sum":              # t == a + b: each lies within t less the other
            a, b = (Reg(v, self.types[v]) for v in operands)
            (alo, ahi), (blo, bhi) = self.value(a, state), self.value(b, state)
            return self._narrow(state, a, (got[0] - bhi, got[1] - blo)) and \
                self._narrow(state, b, (got[0] - ahi, got[1] - alo))
        if kind == "div":              # t == v / c: v lies where its quotient does
            v, c = operands
            lo = got[0] * c if got[0] > 0 else got[0] * c - (c - 1)
            hi = got[1] * c + (c - 1) if got[1] >= 0 else got[1] * c
            return self._narrow(state, Reg(v, self.types[v]), (lo, hi))
        for v in operands:             # min(a, b) >= lo: both are; max(a, b) <= hi: both are
            if v is not None:
                t = self.types[v]
                want = (got[0], t.range[1]) if kind == "min" else (t.range[0], got[1])
                if not self._narrow(state, Reg(v, t), want):
                    return False
        return True

    def _set(self, state: State, name: str, want: Interval) -> Interval | None:
        t = self.types.get(name)
        if t is None:
            return want
        lo, hi = state.r.get(name) or t.range
        lo, hi = max(lo, want[0]), min(hi, want[1])
        if lo > hi:
            return None
        if (lo, hi) == t.range:
            state.r.pop(name, None)
        else:
            state.r[name] = (lo, hi)
        return lo, hi

    # ---- the special registers
    def _specials(self, shape) -> dict[str, Interval]:
        grid, block = (shape or (None, None))
        block = block if block is not None else self.k.block
        out = {}
        for axis, i in _AXIS.items():
            if block is not None:
                out[f"ntid.{axis}"] = (block[i], block[i])
                out[f"tid.{axis}"] = (0, block[i] - 1)
            else:
                out[f"ntid.{axis}"] = (1, _BLOCK_MAX[axis])
                out[f"tid.{axis}"] = (0, _BLOCK_MAX[axis] - 1)
            if grid is not None:
                out[f"nctaid.{axis}"] = (grid[i], grid[i])
                out[f"ctaid.{axis}"] = (0, grid[i] - 1)
            else:
                out[f"nctaid.{axis}"] = (1, _GRID_MAX[axis])
                out[f"ctaid.{axis}"] = (0, _GRID_MAX[axis] - 1)
            if self.block_index is not None:
                out[f"ctaid.{axis}"] = (self.block_index[i], self.block_index[i])
        threads = block[0] * block[1] * block[2] if block is not None else 32
        out["laneid"] = (0, min(31, threads - 1))
        return out


def _mentions(fact, name: str) -> bool:
    x, _, y = fact
    return (isinstance(x, Reg) and x.name == name) or (isinstance(y, Reg) and y.name == name)


def _decide(rel: str, a: Interval, b: Interval) -> int | None:
    """1 or 0 when `a rel b` holds or fails for every pair of values, else None."""
    (alo, ahi), (blo, bhi) = a, b
    holds = {"lt": ahi < blo, "le": ahi <= blo, "gt": alo > bhi, "ge": alo >= bhi,
             "eq": alo == ahi == blo == bhi, "ne": ahi < blo or alo > bhi}[rel]
    fails = {"lt": alo >= bhi, "le": alo > bhi, "gt": ahi <= blo, "ge": ahi < blo,
             "eq": ahi < blo or alo > bhi, "ne": alo == ahi == blo == bhi}[rel]
    return 1 if holds else 0 if fails else None


def _relate(rel: str, a: Interval, b: Interval) -> Interval | None:
    """The part of `a` whose values x can have `x rel y` for some y in `b` (None: no part)."""
    lo, hi = a
    if rel == "lt":
        hi = min(hi, b[1] - 1)
    elif rel == "le":
        hi = min(hi, b[1])
    elif rel == "gt":
        lo = max(lo, b[0] + 1)
    elif rel == "ge":
        lo = max(lo, b[0])
    elif rel == "eq":
        lo, hi = max(lo, b[0]), min(hi, b[1])
    return (lo, hi) if lo <= hi else None


def _not_equal(a: Interval, b: Interval) -> Interval | None:
    lo, hi = a
    if b[0] == b[1]:
        if lo == b[0]:
            lo += 1
        if hi == b[0]:
            hi -= 1
    return (lo, hi) if lo <= hi else None


def _divide(a: Interval, b: Interval) -> Interval | None:
    """Truncating division, when the divisor cannot be zero."""
    if b[0] <= 0 <= b[1]:
        return None
    q = [_trunc_div(x, y) for x in a for y in b]
    return min(q), max(q)


def _trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y > 0) else -q


def _remainder(a: Interval, b: Interval) -> Interval | None:
    """Truncating remainder (its sign is the dividend's, its size below the divisor's)."""
    if b[0] <= 0 <= b[1]:
        return None
    m = max(abs(b[0]), abs(b[1])) - 1
    lo, hi = a
    if lo >= 0:
        return 0, min(hi, m)
    if hi <= 0:
        return max(lo, -m), 0
    return max(lo, -m), min(hi, m)


def _bitwise(op: str, a: Interval, b: Interval) -> Interval | None:
    if op == "and":
        if a[0] >= 0 and b[0] >= 0:
            return 0, min(a[1], b[1])
        if a[0] >= 0:
            return 0, a[1]
        if b[0] >= 0:
            return 0, b[1]
        return None
    if a[0] >= 0 and b[0] >= 0:
        top = (1 << max(a[1], b[1]).bit_length()) - 1
        return (max(a[0], b[0]) if op == "or" else 0), top
    return None


def _shift(op: str, a: Interval, s: Interval, bits: int) -> Interval | None:
    if s[0] < 0 or s[1] >= bits:
        return None
    if op == "shl":
        c = [x << y for x in a for y in s]
        return min(c), max(c)
    c = [x >> y for x in a for y in s]
    return min(c), max(c)
