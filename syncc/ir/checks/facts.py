"""What the hazard checks ask of a kernel, computed once: control flow, uniformity, loops,
where each register comes from, and which threads can run each block.

Thread questions ("can the thread that puts slot 5 be in the waiter's warp?") are
answered by enumeration: the threads of one block, as columns of component values
(tid.x, tid.y, tid.z, laneid), and every linear index form evaluated over those
columns. A block has at most 1024 threads, so this is exact and cheap, where a
symbolic argument would be neither. Block indices and parameters stay symbolic:
two forms can only be compared when their symbolic parts are the same.

`runs(label)` narrows the threads by the branch conditions that guard the block
(`if lane > 0`, `if i == 0`, the else of `if j == 0`), where those compare linear
forms; any other condition is assumed to let every thread through.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import cached_property

from ..cfg import CFG
from ..nodes import Branch, Imm, Instr, Kernel, Reg
from ..uniformity import GRID, THREAD, Uniformity
from ..values import Values

DEFAULT_BLOCK = (1024, 1, 1)      # the widest block, for kernels whose launch clause does not say

def _div(a: int, b: int) -> int | None:
    return None if b == 0 else abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)


def _rem(a: int, b: int) -> int | None:
    return None if b == 0 else a - b * _div(a, b)


def _shift(f):
    return lambda a, b: f(a, b) if 0 <= b < 64 else None


# Thread-by-thread arithmetic (map over two columns: C speed for the operator module's
# functions), with the GPU's truncating division; comparisons give bools, which are ints.
_ELEMENTWISE = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": _div, "rem": _rem,
    "and": operator.and_, "or": operator.or_, "xor": operator.xor,
    "shl": _shift(operator.lshift), "shr": _shift(operator.rshift), "min": min, "max": max,
    "cmp.eq": operator.eq, "cmp.ne": operator.ne, "cmp.lt": operator.lt, "cmp.le": operator.le,
    "cmp.gt": operator.gt, "cmp.ge": operator.ge,
}
_NEVER_NONE = {"add", "sub", "mul", "and", "or", "xor", "min", "max", "cmp.eq", "cmp.ne", "cmp.lt", "cmp.le",
               "cmp.gt", "cmp.ge"}


def _linear(a: tuple, b: tuple, sign: int) -> tuple:
    d = dict(a)
    for var, c in b:
        d[var] = d.get(var, 0) + sign * c
    return tuple(sorted((var, c) for var, c in d.items() if c))


def _arith(op: str, args: list) -> "Column | None":
    if op in ("mov", "cvt"):
        return args[0]
    if op in ("neg", "not"):
        (values, sym), = args
        if op == "not":
            return (None if sym else (list(map(operator.not_, values)), ()))
        return list(map(operator.neg, values)), tuple((v, -c) for v, c in sym)
    if op not in _ELEMENTWISE or len(args) != 2:
        return None
    (a, sa), (b, sb) = args
    if op in ("add", "sub"):
        return list(map(_ELEMENTWISE[op], a, b)), _linear(sa, sb, 1 if op == "add" else -1)
    if op == "mul" and (sa or sb):
        if sa and sb:
            return None
        (k, _), (vals, sym) = (args[1], args[0]) if sa else (args[0], args[1])
        if k.count(k[0]) != len(k):
            return None
        return list(map(operator.mul, vals, k)), tuple((v, c * k[0]) for v, c in sym if c * k[0])
    if op.startswith("cmp.") and sa != sb:
        return None
    if op.startswith("cmp.") or not (sa or sb):
        out = list(map(_ELEMENTWISE[op], a, b))
        return None if op not in _NEVER_NONE and None in out else (out, ())
    return None


Column = tuple[list[int], tuple]     # a value per thread of a block, and a symbolic part


@dataclass(frozen=True)
class Loop:
    head: str
    blocks: frozenset[str]
    exits: tuple[tuple[str, str], ...]     # (block inside, block outside)


class Facts:
    def __init__(self, k: Kernel, target):
        self.k, self.target = k, target
        self.cfg = CFG(k)
        self.defs: dict[str, list[Instr]] = {}
        self.where: dict[int, tuple[str, int]] = {}       # id(instruction) → (block, index)
        for b, i, ins in k.instructions():
            self.where[id(ins)] = (b.label, i)
            for d in ins.dests:
                self.defs.setdefault(d.name, []).append(ins)
        self.stores: dict[str, list[Instr]] = {}
        for _, _, ins in k.instructions():
            if ins.op == "st":
                self.stores.setdefault(ins.ref.name, []).append(ins)
        self.block_shape = k.block or DEFAULT_BLOCK
        self._runs: dict[str, list[bool]] = {}
        self._columns: dict[str, Column | None] = {}
        self._params = {p.name for p in k.params if isinstance(p, Reg)}

    @cached_property
    def uni(self) -> Uniformity:
        """Uniformity: computed only for the checks that ask (collectives, lock order)."""
        return Uniformity(self.k)

    # ---- definitions
    def def_of(self, v) -> Instr | None:
        """The one instruction that defines register v (None for several, or none)."""
        if not isinstance(v, Reg):
            return None
        defs = self.defs.get(v.name, [])
        return defs[0] if len(defs) == 1 else None

    def sources(self, v, limit: int = 64, through_shared: bool = False) -> list[Instr]:
        """The instructions whose results flow into v, through arithmetic (v's own definitions first).
        `through_shared`: also through shared memory, from what is stored to a shared array to its
        loads (a thread telling its block through a shared word)."""
        out, seen, todo = [], set(), [v]
        while todo and len(out) < limit:
            x = todo.pop()
            if not isinstance(x, Reg) or x.name in seen:
                continue
            seen.add(x.name)
            for ins in self.defs.get(x.name, []):
                out.append(ins)
                if ins.info.group in ("arith", "warp"):
                    todo.extend(a for a in ins.args if isinstance(a, Reg))
                elif ins.op == "ld" and (ins.attr("uniform") or through_shared and getattr(
                        self.k.array(ins.ref.name), "space", None) == "shared"):
                    todo.extend(st.args[1] for st in self.stores.get(ins.ref.name, ()))   # what was stored flows on
        return out

    @cached_property
    def values(self) -> Values:
        return Values(self.k)

    def value_key(self, v):
        """Equal for two operands that always hold the same value (values.py)."""
        return self.values.key(v)

    def is_party_branch(self, label: str) -> bool:
        """A leader branch the compiler made for a @warp or @block primitive."""
        term = self.cfg.blocks[label].term
        d = self.def_of(term.cond) if isinstance(term, Branch) else None
        return d is not None and (d.op == "elect" or d.attr("party") == "leader")

    # ---- loops
    @cached_property
    def loops(self) -> list[Loop]:
        cfg, found = self.cfg, {}
        for label in cfg.labels:
            if label not in cfg.reachable:
                continue
            for head in cfg.succs[label]:
                if cfg.dominates(head, label):          # a back edge label → head
                    body, todo = {head}, [label]
                    while todo:
                        x = todo.pop()
                        if x not in body:
                            body.add(x)
                            todo.extend(cfg.preds[x])
                    found.setdefault(head, set()).update(body)
        loops = []
        for head, body in found.items():
            exits = tuple((x, s) for x in cfg.labels if x in body for s in cfg.succs[x] if s not in body)
            loops.append(Loop(head, frozenset(body), exits))
        return loops

    def loop_of(self, label: str) -> Loop | None:
        """The innermost loop containing the block."""
        inner = None
        for lp in self.loops:
            if label in lp.blocks and (inner is None or len(lp.blocks) < len(inner.blocks)):
                inner = lp
        return inner

    # ---- divergence
    @cached_property
    def _divergence(self) -> dict[str, int]:
        """Like Uniformity.divergence, but not counting the compiler's own leader branches."""
        level = {label: GRID for label in self.cfg.labels}
        for label in self.cfg.labels:
            term = self.cfg.blocks[label].term
            if not isinstance(term, Branch) or label not in self.cfg.reachable or self.is_party_branch(label):
                continue
            cond = self.uni.level(term.cond)
            if cond == GRID:
                continue
            join, seen, todo = self.cfg.ipdom(label), set(), list(self.cfg.succs[label])
            while todo:
                x = todo.pop()
                if x == join or x in seen:
                    continue
                seen.add(x)
                level[x] = max(level[x], cond)
                todo.extend(self.cfg.succs[x])
        return level

    def divergence(self, label: str) -> int:
        return self._divergence.get(label, THREAD)

    # ---- the threads of one block
    @cached_property
    def threads(self) -> int:
        x, y, z = self.block_shape
        return x * y * z

    @cached_property
    def columns(self) -> dict[str, list[int]]:
        x, y, z = self.block_shape
        n = self.threads
        linear = range(n)
        return {"tid.x": [t % x for t in linear], "tid.y": [(t // x) % y for t in linear],
                "tid.z": [t // (x * y) for t in linear], "laneid": [t % 32 for t in linear],
                "warp": [t // 32 for t in linear]}

    def column(self, v) -> Column | None:
        """v's value in each thread of a block, as (values, symbolic part), where the registers it
        comes from have one definition each and only arithmetic on thread indices, block indices
        and parameters; else None. The symbolic part is a linear form over block indices and
        parameters, the same in every thread of a block."""
        if isinstance(v, Imm):
            return [int(v.value)] * self.threads, ()
        if not isinstance(v, Reg):
            return None
        if v.name not in self._columns:
            self._columns[v.name] = None          # a cycle through v: unknown
            self._columns[v.name] = self._compute(v)
        return self._columns[v.name]

    def _compute(self, v: Reg) -> Column | None:
        if v.name in self._params:
            return [0] * self.threads, ((f"%{v.name}", 1),)
        d = self.def_of(v)
        if d is None:
            return None
        if d.op == "sreg":
            reg = d.attr("reg")
            if reg in self.columns:
                return self.columns[reg], ()
            if reg.startswith("ntid."):
                return [self.block_shape["xyz".index(reg[-1])]] * self.threads, ()
            if reg.startswith("nctaid.") and self.k.grid is not None:    # the declared grid
                return [self.k.grid["xyz".index(reg[-1])]] * self.threads, ()
            if reg.startswith(("ctaid.", "nctaid.")):
                return [0] * self.threads, ((reg, 1),)
            return None
        args = [self.column(a) for a in d.args]
        if any(a is None for a in args):
            return None
        return _arith(d.op, args)

    def runs(self, label: str) -> list[bool]:
        """Which threads of a block can run `label`, from the conditions guarding it."""
        if label not in self._runs:
            mask = None
            for cond, polarity in self._guards(label):
                test = self.column(cond)
                if test is not None and not test[1]:
                    values = test[0] if polarity else map(operator.not_, test[0])
                    mask = list(map(bool, values)) if mask is None else list(map(operator.and_, mask, values))
            self._runs[label] = [True] * self.threads if mask is None else list(map(bool, mask))
        return self._runs[label]

    def runs_exactly(self, label: str) -> bool:
        """Is `runs(label)` exact: can every condition guarding the block be evaluated per thread?"""
        for cond, _ in self._guards(label):
            test = self.column(cond)
            if test is None or test[1]:
                return False
        return True

    def _guards(self, label: str) -> list[tuple[Reg, bool]]:
        """(condition, taken?) of every branch edge that the block can only be reached through."""
        cfg, out = self.cfg, []
        for x in cfg.labels:
            term = cfg.blocks[x].term
            if not isinstance(term, Branch) or term.if_true == term.if_false or x not in cfg.reachable:
                continue
            for succ, polarity in ((term.if_true, True), (term.if_false, False)):
                if cfg.preds[succ] == [x] and cfg.dominates(succ, label) and isinstance(term.cond, Reg):
                    out.append((term.cond, polarity))
        return out

    # ---- order of instructions
    def reaches(self, a: tuple[str, int], b: tuple[str, int]) -> bool:
        """Can control go from instruction a to instruction b (later in the same block, or a block after)?"""
        (la, ia), (lb, ib) = a, b
        if la == lb and ib > ia:
            return True
        seen, todo = set(), list(self.cfg.succs[la])
        while todo:
            x = todo.pop()
            if x == lb:
                return True
            if x not in seen:
                seen.add(x)
                todo.extend(self.cfg.succs[x])
        return False
