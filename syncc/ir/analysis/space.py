"""The threads of one launch, and the instances of each operation among them.

    threads = Threads(Shape(grid=(4, 1, 1), block=(64, 1, 1)))
    space = Spaces(kernel, cfg, loops, threads)
    inst = space.of("crit")          # who runs block `crit`, and in which loop iterations
    col = space.value(reg, "crit")   # the register's value in each of those instances

The analyses ask thread questions ("which thread puts slot 5?", "can two lanes of one warp
take different elements?", "how many times is this semaphore posted?"). They are answered
by enumeration: every thread of the launch (every block, when the launch is small enough;
else a sample of blocks, first and last among them) is a row, and an operation inside counted
loops (`for i in a .. b step s`, or a `while` with one induction variable stepped by a
constant on every round) has a row per thread and iteration. Values are numpy columns over
those rows, computed from thread and block indices, the launch shape, constants, the
launch's constant arguments and induction variables. What comes from memory is unknown
(None); a kernel parameter with no constant argument stays symbolic, as a linear form the
same in every row, so two such values can still be compared when their symbolic parts match.

A counted loop whose bound is read from memory but capped (`for i in 0 .. min(n[tid], 4)`) is
listed for as many rounds as the cap allows, as instances that may not all run: an upper count.

Who runs a block is narrowed by the branch conditions that guard it, where they can be
evaluated (`if lane > 0`, `if bid == 0`, `if i < n - 1`), and by the sides of an `&&` that can
(`if lane > 0 && x[i] > 0` narrows to `lane > 0`); a condition on data lets everyone through
and makes the space inexact: it then says who *may* run the block, not who does. The
compiler's own leader branches of @warp and @block statements are not narrowed: every member
of the party is an instance, and a count of parties counts each party once.
"""
from __future__ import annotations

import operator
from dataclasses import field
from functools import cached_property
from itertools import chain, compress, repeat
from math import prod

from ...core.prebuilt import dataclass
from ..nodes import Branch, Imm, Instr, Kernel, Reg
from ..ops import COMPARE, NEGATED, SWAPPED

BUDGET_THREADS = 1 << 17     # enumerate every block up to this many threads in all
BUDGET_ROWS = 1 << 20        # instances of one block's operations (threads × iterations)


@dataclass(frozen=True)
class Shape:
    """One launch configuration: the grid, the block, the scalar arguments known at compile time,
    and where the launch is (None: the kernel's declared shape)."""
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: tuple[tuple[int, int], ...] = ()       # (position of a scalar parameter, its value)
    where: object = field(default=None, compare=False)     # the launch statement's span

    @property
    def blocks(self) -> int:
        return prod(self.grid)

    @property
    def threads_per_block(self) -> int:
        return prod(self.block)


# recent launch shapes' columns: a declared range checks many configurations that differ only in
# their arguments (analyses read the columns and never change them)
_COLUMNS: dict[tuple, dict[str, list[int]]] = {}


def _columns(shape: Shape, blocks: list[int]) -> dict[str, list[int]]:
    """The index columns of the threads of `blocks`: one block's, repeated for every block kept
    (list repetition and chain run in C)."""
    nt = shape.threads_per_block
    bx, by, bz = shape.block
    gx, gy, _ = shape.grid
    nwarps, kept = -(-nt // 32), len(blocks)
    warp = list(chain.from_iterable(repeat(w, 32) for w in range(nwarps)))[:nt]

    def per_block(values):
        return list(chain.from_iterable(repeat(v, nt) for v in values))

    return {
        "tid.x": list(range(bx)) * (by * bz * kept),
        "tid.y": list(chain.from_iterable(repeat(y, bx) for y in range(by))) * (bz * kept),
        "tid.z": list(chain.from_iterable(repeat(z, bx * by) for z in range(bz))) * kept,
        "laneid": (list(range(32)) * nwarps)[:nt] * kept,
        "tid": list(range(nt)) * kept, "warp": warp * kept,
        "ctaid.x": per_block(b % gx for b in blocks), "ctaid.y": per_block((b // gx) % gy for b in blocks),
        "ctaid.z": per_block(b // (gx * gy) for b in blocks), "block": per_block(blocks),
        "gwarp": list(chain.from_iterable(map((b * nwarps).__add__, warp) for b in blocks)),  # a warp of the launch
    }


class Threads:
    """The launch's threads as rows: block by block, thread by thread within a block."""

    def __init__(self, shape: Shape, first_block_only: bool = False):
        self.shape = shape
        nb, nt = shape.blocks, shape.threads_per_block
        if first_block_only:           # for questions every block answers alike (Spaces.same_in_every_block)
            blocks = [0]
        elif nb * nt <= BUDGET_THREADS:
            blocks = list(range(nb))
        else:
            keep = max(2, BUDGET_THREADS // nt)
            blocks = sorted({round(i * (nb - 1) / (keep - 1)) for i in range(keep)})
        self.every_block = len(blocks) == nb
        self.block_ids = blocks
        self.per_block = nt
        self.n = len(blocks) * nt
        key = (shape.grid, shape.block, first_block_only)
        self.columns: dict[str, list[int]] = _COLUMNS.get(key) or _columns(shape, blocks)
        if len(_COLUMNS) >= 4:
            _COLUMNS.clear()
        _COLUMNS[key] = self.columns

    def describe(self, row: int) -> str:
        """`thread 5 of block 1` (`thread 5` when the launch has one block)."""
        t, b = self.columns["tid"][row], self.columns["block"][row]
        return f"thread {t}" if self.shape.blocks == 1 else f"thread {t} of block {b}"


@dataclass(frozen=True)
class Loop:
    head: str
    blocks: frozenset[str]
    exits: tuple[tuple[str, str], ...]     # (block inside, block outside)


@dataclass(frozen=True)
class Counted:
    """A loop whose rounds can be counted: `var` starts at `init` (defined before the loop),
    grows by the constant `step` once per round, and the head leaves when `var op bound`
    fails. `early`: the loop has another exit (a `break`), so it may stop sooner."""
    loop: Loop
    var: str
    init: object
    step: int
    op: str
    bound: object
    var_first: bool          # `var op bound` (True) or `bound op var`
    early: bool


@dataclass
class Instances:
    """Who runs a block: a row per (thread, iteration of each counted loop around it)."""
    thread: list[int]                         # the row of Threads running each instance
    iters: dict[str, list[int]]               # induction register name → its value per instance
    exact: bool                               # exactly these run (guards evaluated, loops counted)
    counted: bool                             # every loop around it is counted
    loops: tuple[str, ...] = ()               # the heads of the loops around it, outermost first
    values: dict = field(default_factory=dict, repr=False)   # register name → its Column here

    @property
    def size(self) -> int:
        return len(self.thread)

    def take(self, keep: list, exact: bool) -> "Instances":
        return Instances(list(compress(self.thread, keep)), {k: list(compress(v, keep)) for k, v in self.iters.items()},
                         exact, self.counted, self.loops)


Column = tuple  # (a list of ints, one per instance; the symbolic linear part: ((name, coef), ...))


def gather(column: list, rows: list[int]) -> list:
    """column[r] for each r of rows."""
    return list(map(column.__getitem__, rows))


# Instance-by-instance arithmetic: map over two columns (C speed for the operator module's
# functions), with the GPU's truncating division; comparisons give bools, which are ints.
_PURE = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "and": operator.and_, "or": operator.or_,
         "xor": operator.xor, "min": min, "max": max}


def _linear(a: tuple, b: tuple, sign: int) -> tuple:
    d = dict(a)
    for var, c in b:
        d[var] = d.get(var, 0) + sign * c
    return tuple(sorted((var, c) for var, c in d.items() if c))


def _div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def _rem(a: int, b: int) -> int:
    return a - b * _div(a, b)


class Spaces:
    """Instances and values for one kernel and one launch shape."""

    def __init__(self, k: Kernel, cfg, loops: list[Loop], guards, threads: Threads, party_branch=lambda label: False):
        self.k, self.cfg, self.loops, self._guards, self.threads = k, cfg, loops, guards, threads
        self._party_branch = party_branch
        self.defs: dict[str, list[tuple[str, Instr]]] = {}
        for b in k.blocks:
            for ins in b.instrs:
                for d in ins.dests:
                    self.defs.setdefault(d.name, []).append((b.label, ins))
        self.params = {p.name for p in k.params if isinstance(p, Reg)}
        self.args = {k.params[i].name: v for i, v in threads.shape.args
                     if i < len(k.params) and isinstance(k.params[i], Reg)}
        self._spaces: dict[str, Instances | None] = {}
        self._unknowable: dict[str, bool] = {}

    # ---- loops ----------------------------------------------------------------------------
    def loops_around(self, label: str) -> list[Loop]:
        """The loops containing the block, outermost first."""
        return sorted((lp for lp in self.loops if label in lp.blocks), key=lambda lp: -len(lp.blocks))

    @cached_property
    def counted(self) -> dict[str, Counted]:
        out = {}
        for lp in self.loops:
            c = self._counted(lp)
            if c is not None:
                out[lp.head] = c
        return out

    def _counted(self, lp: Loop) -> Counted | None:
        head = self.cfg.blocks[lp.head]
        term = head.term
        if not isinstance(term, Branch) or not isinstance(term.cond, Reg):
            return None
        inside = term.if_true in lp.blocks
        if inside == (term.if_false in lp.blocks):
            return None
        cond = [ins for ins in head.instrs if term.cond in ins.dests]
        if len(cond) != 1 or cond[0].op not in COMPARE:
            return None
        test = cond[0]
        op = test.op if inside else NEGATED[test.op]
        for var_first, (var, bound) in ((True, test.args), (False, test.args[::-1])):
            if not isinstance(var, Reg) or not var.type.is_int:
                continue
            defs = self.defs.get(var.name, [])
            outside = [(lbl, d) for lbl, d in defs if lbl not in lp.blocks]
            within = [(lbl, d) for lbl, d in defs if lbl in lp.blocks]
            if len(outside) != 1 or len(within) != 1:
                continue
            step_label, step = within[0]
            if step.op not in ("add", "sub") or step.args[0] != var or not isinstance(step.args[1], Imm):
                continue
            amount = int(step.args[1].value) * (1 if step.op == "add" else -1)
            if amount == 0 or not self._every_round(lp, step_label):
                continue
            if isinstance(bound, Reg) and any(lbl in lp.blocks for lbl, _ in self.defs.get(bound.name, [])):
                continue                      # the bound changes inside the loop
            init = outside[0][1]
            if init.op not in ("mov", "cvt"):
                continue
            early = any(x != lp.head for x, _ in lp.exits)
            return Counted(lp, var.name, init.args[0], amount, op if var_first else SWAPPED[op], bound,
                           True, early)
        return None

    def _every_round(self, lp: Loop, label: str) -> bool:
        """Does every round that comes back to the head pass through `label`?"""
        latches = [x for x in lp.blocks if lp.head in self.cfg.succs[x]]
        return all(self.cfg.dominates(label, x) for x in latches)

    # ---- instances ------------------------------------------------------------------------
    def of(self, label: str) -> Instances | None:
        """The instances of block `label`; None when there would be too many to enumerate."""
        if label not in self._spaces:
            self._spaces[label] = None
            self._spaces[label] = self._build(label)
        return self._spaces[label]

    def _build(self, label: str) -> Instances | None:
        t = self.threads
        inst = Instances(list(range(t.n)), {}, True, True)
        for lp in self.loops_around(label):
            c = self.counted.get(lp.head)
            if c is None:
                inst = Instances(inst.thread, inst.iters, False, False, inst.loops + (lp.head,))
                continue
            inst = self._expand(inst, c)
            if inst is None:
                return None
        return self._narrow(inst, label)

    def _expand(self, inst: Instances, c: Counted) -> Instances | None:
        """One instance per round of the counted loop, for every instance outside it."""
        outer = self._at(inst, c.init), self._at(inst, c.bound)
        if outer[0] is not None and not outer[0][1] and outer[1] is None and c.step > 0 and c.op in ("cmp.lt", "cmp.le"):
            # a bound from data, below a known ceiling (`for i in 0 .. min(n[tid], 4)`): at most that
            # many rounds, as instances that may not all run
            ceiling = self._ceiling(inst, c.bound)
            if ceiling is not None:
                rounds = _rounds(outer[0][0], ceiling, c.step, c.op)
                if rounds is not None and sum(rounds) <= BUDGET_ROWS:
                    return self._listed(inst, c, outer[0][0], rounds, False)
        if any(x is None or x[1] for x in outer):
            return Instances(inst.thread, inst.iters, False, False, inst.loops + (c.loop.head,))
        (start, _), (stop, _) = outer
        rounds = _rounds(start, stop, c.step, c.op)
        if rounds is None:
            return Instances(inst.thread, inst.iters, False, False, inst.loops + (c.loop.head,))
        return self._listed(inst, c, start, rounds, inst.exact and not c.early)

    def _listed(self, inst: Instances, c: Counted, start: list[int], rounds: list[int], exact: bool) -> Instances | None:
        """One instance per round, `rounds[n]` rounds for instance n of the loop's outside."""
        if sum(rounds) > BUDGET_ROWS:          # too many rounds to list: one instance per thread, not counted
            return Instances(inst.thread, inst.iters, False, False, inst.loops + (c.loop.head,))
        which = [i for i, r in enumerate(rounds) for _ in range(r)]
        step = c.step
        iters = {name: gather(v, which) for name, v in inst.iters.items()}
        iters[c.var] = [s + step * k for s, r in zip(start, rounds) for k in range(r)]
        return Instances(gather(inst.thread, which), iters, exact, inst.counted, inst.loops + (c.loop.head,))

    def _narrow(self, inst: Instances, label: str) -> Instances:
        exact = inst.exact
        keep = [True] * inst.size
        for cond, polarity, branch in self._guards(label):
            c = self.counted.get(branch)
            if c is not None and self.cfg.blocks[branch].term.cond == cond:
                continue                      # a counted loop's own test: its rounds are the instances
            if self._party_branch(branch):
                continue                      # a @warp/@block leader's branch: the party acts, counted as one
            for part, taken in self._implied(inst, cond, polarity):
                col = self._at(inst, part)
                if col is None or col[1]:
                    exact = False
                    continue
                keep = list(map(operator.and_, keep, map(bool, col[0]) if taken else map(operator.not_, col[0])))
        return inst.take(keep, exact)

    def _implied(self, inst: Instances, cond, polarity: bool) -> list[tuple[object, bool]]:
        """What taking a branch's edge says, as (condition, polarity) pairs: the condition itself, or,
        where it is unknown as a whole, each side of an `and` taken true (of an `or` taken false), so
        that a known side still narrows: `if g == 1 && t < T`, with `t` unknown (too many rounds to
        list), still says which warps come in."""
        defs = self.defs.get(cond.name, []) if isinstance(cond, Reg) else []
        op = defs[0][1].op if len(defs) == 1 else None
        whole = self._at(inst, cond)
        if op != ("and" if polarity else "or") or (whole is not None and not whole[1]):
            return [(cond, polarity)]
        return [implied for side in defs[0][1].args for implied in self._implied(inst, side, polarity)]

    def _ceiling(self, inst: Instances, v) -> list[int] | None:
        """A value no larger than v's, per instance, where v is not known but bounded above: `min` with
        something known, `x % k` and `x & k` for a constant k >= 0; None where there is none."""
        col = self._at(inst, v)
        if col is not None:
            return None if col[1] else col[0]
        defs = self.defs.get(v.name, []) if isinstance(v, Reg) else []
        if len(defs) != 1:
            return None
        d = defs[0][1]
        if d.op in ("mov", "cvt"):
            return self._ceiling(inst, d.args[0])
        if d.op == "min":
            known = [c for c in (self._ceiling(inst, a) for a in d.args) if c is not None]
            return list(map(min, *known)) if len(known) > 1 else known[0] if known else None
        k = d.args[1] if len(d.args) == 2 else None
        if d.op in ("rem", "and") and isinstance(k, Imm) and int(k.value) > 0:
            return [int(k.value) - (d.op == "rem")] * inst.size
        return None

    # ---- values ---------------------------------------------------------------------------
    def unknowable(self, v) -> bool:
        """Is v's value unknown in every block, whatever the launch? True where its definitions lead
        to memory, a merge of values that is no counted loop's counter, or an operation `_arith`
        cannot evaluate: a check can then skip listing the instances of an access by v (a launch of
        2^17 threads lists as many rows only to find nothing). False where it may be known."""
        if isinstance(v, Imm):
            return v.type.is_float
        if not isinstance(v, Reg):
            return True
        if v.type.is_float:
            return True
        if v.name not in self._unknowable:
            self._unknowable[v.name] = False        # a cycle through v: may be known
            self._unknowable[v.name] = self._surely_unknown(v)
        return self._unknowable[v.name]

    def same_in_every_block(self, v, label: str) -> bool:
        """Are v's values in block `label`, and who runs it, the same in every block of the launch? True
        where neither v nor a guard of the block nor a bound of a counted loop around it reaches a
        block index: the first block's rows then answer for all (a shared array's `buf[k * T + tid]`
        in a launch of thousands of blocks)."""
        regs = [v] + [cond for cond, _, _ in self._guards(label)]
        for lp in self.loops_around(label):
            c = self.counted.get(lp.head)
            if c is not None:
                regs += [c.init, c.bound]
        return not any(self._reaches_block(r, set()) for r in regs)

    def _reaches_block(self, v, seen: set) -> bool:
        if not isinstance(v, Reg) or v.name in self.params or v.name in seen:
            return False
        seen.add(v.name)
        for _, d in self.defs.get(v.name, []):
            if d.op == "sreg" and d.attr("reg") in _PER_BLOCK:
                return True
            if any(self._reaches_block(a, seen) for a in d.args):
                return True
        return False

    def _surely_unknown(self, v: Reg) -> bool:
        if v.name in self.params or any(c.var == v.name for c in self.counted.values()):
            return False
        defs = self.defs.get(v.name, [])
        if len(defs) != 1:
            return True
        d = defs[0][1]
        if d.op == "sreg":
            reg = d.attr("reg")
            return not (reg in self.threads.columns or reg.startswith(("ntid.", "nctaid.")))
        if d.op not in _EVALUATED:
            return True
        return any(self.unknowable(a) for a in d.args)

    def value(self, v, label: str) -> Column | None:
        """v's value in each instance of block `label` (None: unknown)."""
        inst = self.of(label)
        return None if inst is None else self._at(inst, v)

    def _at(self, inst: Instances, v) -> Column | None:
        if isinstance(v, (Imm, Reg)) and v.type.is_float:
            return None                       # integer values only
        if isinstance(v, Imm):
            return [int(v.value)] * inst.size, ()
        if not isinstance(v, Reg):
            return None
        if v.name in inst.iters:
            return inst.iters[v.name], ()
        if v.name not in inst.values:
            inst.values[v.name] = None        # a cycle through v: unknown
            inst.values[v.name] = self._compute(inst, v)
        return inst.values[v.name]

    def _compute(self, inst: Instances, v: Reg) -> Column | None:
        n = inst.size
        if v.name in self.params:
            if v.name in self.args:
                return [self.args[v.name]] * n, ()
            return [0] * n, ((f"%{v.name}", 1),)
        defs = self.defs.get(v.name, [])
        if len(defs) != 1:
            return None
        where, d = defs[0]
        if any(where in lp.blocks and lp.head not in inst.loops for lp in self.loops):
            return None                       # defined in a loop this block is not in: its last round's
        if d.op == "sreg":
            return self._special(d.attr("reg"), inst)
        args = [self._at(inst, a) for a in d.args]
        if any(a is None for a in args):
            return None
        return _arith(d.op, args)

    def _special(self, reg: str, inst: Instances) -> Column | None:
        t, n = self.threads, inst.size
        if reg in t.columns:
            return gather(t.columns[reg], inst.thread), ()
        shape = t.shape
        if reg.startswith("ntid."):
            return [shape.block["xyz".index(reg[-1])]] * n, ()
        if reg.startswith("nctaid."):
            return [shape.grid["xyz".index(reg[-1])]] * n, ()
        return None


def _rounds(start: list[int], stop: list[int], step: int, op: str) -> list[int] | None:
    """How many rounds `for v = start; v op stop; v += step` makes, per instance."""
    if op == "cmp.lt" and step > 0:
        span = list(map(operator.sub, stop, start))
    elif op == "cmp.le" and step > 0:
        span = [b - a + 1 for a, b in zip(start, stop)]
    elif op == "cmp.gt" and step < 0:
        span = list(map(operator.sub, start, stop))
    elif op == "cmp.ge" and step < 0:
        span = [a - b + 1 for a, b in zip(start, stop)]
    elif op == "cmp.ne":
        span = [(b - a) * (1 if step > 0 else -1) for a, b in zip(start, stop)]
        if any(x % abs(step) or x < 0 for x in span):
            return None
    else:
        return None
    s = abs(step)
    return [max(0, -(-x // s)) for x in span]


# the special registers whose value differs from block to block
_PER_BLOCK = frozenset({"ctaid.x", "ctaid.y", "ctaid.z", "block", "gwarp"})

# the operations _arith evaluates (Spaces.unknowable: anything else is unknown)
_EVALUATED = frozenset({"mov", "cvt", "neg", "not", "abs", "select", "add", "sub", "mul", "div", "rem", "shl",
                        "shr"}) | frozenset(COMPARE) | frozenset(_PURE)


def _arith(op: str, args: list) -> Column | None:
    if op in ("mov", "cvt"):
        return args[0]
    if op in ("neg", "not", "abs"):
        (a, sa), = args
        if op == "neg":
            return list(map(operator.neg, a)), tuple((x, -c) for x, c in sa)
        if sa:
            return None
        return (list(map(int, map(operator.not_, a))) if op == "not" else list(map(abs, a))), ()
    if op == "select" and len(args) == 3:
        (c, sc), (a, sa), (b, sb) = args
        if sc or sa != sb:
            return None
        return [x if k else y for k, x, y in zip(c, a, b)], sa
    if len(args) != 2:
        return None
    (a, sa), (b, sb) = args
    if op in ("add", "sub"):
        return list(map(_PURE[op], a, b)), _linear(sa, sb, 1 if op == "add" else -1)
    if op in COMPARE:
        if sa != sb:
            return None
        return list(map(int, map(COMPARE[op], a, b))), ()
    if op == "mul" and (sa or sb):
        if sa and sb:
            return None
        (k, _), (vals, sym) = (args[1], args[0]) if sa else (args[0], args[1])
        factor = k[0] if k else 0
        if k.count(factor) != len(k):
            return None
        return [x * factor for x in vals], tuple((x, c * factor) for x, c in sym if c * factor)
    if sa or sb:
        return None
    if op in _PURE:
        return list(map(_PURE[op], a, b)), ()
    if op in ("div", "rem"):
        if 0 in b:
            return None
        return list(map(_div if op == "div" else _rem, a, b)), ()
    if op in ("shl", "shr"):
        if any(x < 0 or x > 62 for x in b):
            return None
        return list(map(operator.lshift if op == "shl" else operator.rshift, a, b)), ()
    return None
