"""Which block barriers (and warp collectives) order two accesses made by threads of one block.

    order = BarrierOrder(facts, scope="block")      # or "warp": collectives order lanes too
    left = order.unordered(first, second)           # positions (block, index) of two accesses
    # frozenset(): every pair of their instances is ordered; SAME in it: pairs in one round of the
    # loops around both are not; (NEXT, d) / (CROSS, d): pairs whose rounds first differ in the
    # loop at depth d of common_loops() (outermost 0), by one round / by any, are not

A barrier orders an access before it in one thread with an access after it in another when both
threads take part in the same *phase* of it. The phases are matched by the program's shape:

- one operation: a path from the first access through a waiting operation (`barrier`, a named
  barrier's `sync`) to the second, the loop's back edge left out;
- two operations of one barrier that are alternatives (neither comes before the other within one
  round): the roles of a named barrier, a producer's `arrive full` after its write and the
  consumer's `sync full` before its read.

The waiting operation must be one the second access's threads pass: it comes before the access
on every path (dominates it), or every thread that runs the access runs it too (the launch's
threads, analysis/space.py: `if warp == 0 { sync full }` does not order the reads of warps 2-3).

Where both accesses are inside a loop, pairs of instances in different rounds are judged apart,
loop by loop (the outermost in which their rounds differ): round r's first access and round
r + 1's second are ordered by a waiting operation of the loop before the second within its round,
or by one that matches (as above) an operation after the first within round r; which the
second's threads pass. A loop with a waiting operation every round orders rounds two or more
apart. (`for r { s[tid] = r; barrier; x = s[tid + 1] }` orders each round's write before its
reads, but not round r's read before round r + 1's write: the second barrier of the classic
pattern; with two buffers, `s[r % 2][tid]`, the rounds that meet are two apart, and ordered.)

On a machine whose warps reconverge on a stack (Fermi), the lanes of a warp run in lockstep: two
accesses one of which comes before the other in the program are ordered between lanes, in one
round and across rounds (GPUVerify's --warp-sync); only alternatives (the two sides of a branch
on the lane, which run one after the other in either order) and one instruction's lanes are not.
With independent thread scheduling (sm_70 and later), lanes of one warp that read a word and then
one of them writes it (`let at = fill[0]; if lane == 0 { fill[0] = at + 32 }`) are taken as
ordered: the lanes read together, as one instruction, before any of them writes. A write before
a read needs a collective (`syncwarp()`).
"""
from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from ..nodes import Imm, Instr
from .cfg import beyond
from .facts import Facts
from .space import Loop

SAME, NEXT, CROSS = "same round", "next round", "another round"


class Op(NamedTuple):
    label: str
    index: int
    key: object          # which barrier: ("bar", id) for the block's, a named barrier's name, "warp"
    waits: bool          # a `sync`/`barrier`; an `arrive` only signals


def _barrier_ops(facts: Facts, scope: str) -> list[Op]:
    """The block barriers' operations (every barrier but a grid's), and for scope "warp" the warp
    collectives too: a named barrier of `@warp` parties meets several warps of the block, one of a
    warp's lanes only that warp, but as a block barrier it only orders more."""
    k = facts.k
    block_bars = {p.name for p in k.prims if p.kind == "barrier" and p.granularity != "grid"}
    ops: list[Op] = []
    for b in k.blocks:
        if b.label not in facts.cfg.reachable:
            continue
        for i, ins in enumerate(b.instrs):
            op = _op(ins, block_bars, scope)
            if op is not None:
                ops.append(Op(b.label, i, *op))
    return ops


def _op(ins: Instr, block_bars: set[str], scope: str):
    if ins.op in ("bar.sync", "bar.arrive"):
        number = ins.args[0].value if ins.args and isinstance(ins.args[0], Imm) else 0
        return ("bar", number), ins.op == "bar.sync"
    if ins.info.group == "prim" and ins.ref is not None and ins.ref.name in block_bars:
        return ins.ref.name, ins.op != "prim.arrive"
    if scope == "warp" and ins.info.group == "warp" and ins.op not in ("activemask", "elect"):
        return "warp", True
    return None


class BarrierOrder:
    def __init__(self, facts: Facts, scope: str):
        self.facts, self.scope = facts, scope
        cfg = facts.cfg
        self.ops = _barrier_ops(facts, scope)
        self.lockstep = scope == "warp" and not facts.target.its
        # the graph within one round: every back edge left out, and a loop's exits made to follow
        # its latches (a `for` leaves at its head: what its body does comes before what follows)
        dag = {x: [s for s in cfg.succs[x] if not cfg.dominates(s, x)] for x in cfg.labels}
        for lp in facts.loops:
            for latch in (x for x in lp.blocks if lp.head in cfg.succs[x]):
                dag[latch] += [out for _, out in lp.exits if out not in dag[latch]]
        self._after_dag = {x: beyond([x], dag) for x in cfg.labels}
        self._threads: dict[str, frozenset | None] = {}
        self._memo: dict = {}

    # ---- the question
    def unordered(self, first: tuple[str, int], second: tuple[str, int], read_then_write: bool = False) -> frozenset:
        """The classes of instance pairs of two accesses (in different threads of one block, or one
        warp for scope "warp") that nothing here orders: SAME, (NEXT, depth) or (CROSS, depth)
        (module docstring). `read_then_write`: the first access reads and the second writes (lanes
        of one warp read together before one writes)."""
        key = (first, second, read_then_write)
        if key not in self._memo:
            self._memo[key] = self._unordered(first, second, read_then_write)
        return self._memo[key]

    def _unordered(self, a, b, read_then_write: bool) -> frozenset:
        if self.lockstep:          # one instruction at a time for the whole warp, round after round
            return frozenset() if self._before(a, b) or self._before(b, a) else frozenset({SAME})
        left: set = set()
        together = self.scope == "warp" and read_then_write and self._before(a, b)
        if not (together or self._within(a, b) or self._within(b, a)):
            left.add(SAME)
        for depth, loop in enumerate(self.common_loops(a[0], b[0])):
            if not (self._across(loop, a, b) and self._across(loop, b, a)):
                left.add((NEXT if self._only_consecutive(loop, a, b) else CROSS, depth))
        return frozenset(left)

    # ---- within one round
    def _within(self, a, b) -> bool:
        """Does a barrier order a (in one thread) before b (in another) in one round: operations of
        one barrier, one after a and the others before b (the same operation, or alternatives),
        that b's threads pass?"""
        signals = [o for o in self.ops if self._before(a, (o.label, o.index))]
        for key in {o.key for o in signals}:
            mine = [o for o in signals if o.key == key]
            waits = [o2 for o2 in self.ops if o2.key == key and o2.waits and self._before((o2.label, o2.index), b)
                     and any(o1 is o2 or self._alternatives(o1, o2) for o1 in mine)]
            if waits and self._passed(waits, b):
                return True
        return False

    def _alternatives(self, x: Op, y: Op) -> bool:
        """Two operations neither of which comes before the other in one round, each run in every
        round by its threads: then they meet in one phase. (`if r > 0 { sync empty }` in the
        producers meets the consumers' `arrive empty` of the round before, not of its own.)"""
        return not self._before((x.label, x.index), (y.label, y.index)) and \
            not self._before((y.label, y.index), (x.label, x.index)) and \
            self._runs_every_round(x) and self._runs_every_round(y)

    def _runs_every_round(self, op: Op) -> bool:
        """Does each thread that runs the operation run it in every round of the loops around it
        (the same number of times as it enters the innermost loop's body)? Yes where not known."""
        key = ("each round", op.label)
        if key not in self._memo:
            loop = self.facts.loop_of(op.label)
            inst = self.facts.space.of(op.label)
            head = self.facts.space.of(loop.head) if loop is not None else None
            if loop is None or inst is None or head is None or not inst.counted:
                self._memo[key] = True
            else:
                mine = Counter(inst.thread)
                heads = Counter(head.thread)
                self._memo[key] = all(n >= heads[t] - 1 for t, n in mine.items())
        return self._memo[key]

    def _before(self, a: tuple[str, int], b: tuple[str, int]) -> bool:
        """Can control go from a to b within one round (no back edge)?"""
        return a[0] == b[0] and a[1] < b[1] or b[0] in self._after_dag[a[0]]

    def _passed(self, ops: list[Op], at: tuple[str, int]) -> bool:
        """Do the threads that run the access at `at` pass one of the waiting operations before it?"""
        return not self._uncovered(ops, at)

    def unsheltered(self, at: tuple[str, int]) -> frozenset:
        """The threads that run the access at `at` without passing a waiting operation before it (a
        named barrier's `sync` under a narrower guard): where a report's example is best taken."""
        return self._uncovered([o for o in self.ops if o.waits and self._before((o.label, o.index), at)], at)

    def _uncovered(self, ops: list[Op], at: tuple[str, int]) -> frozenset:
        """The threads that run the access at `at` and none of `ops` (empty where not enumerated).
        A block's `barrier` and a warp's collectives every thread passes (E0704 says where one
        cannot); a named barrier's `sync` too where it comes before the access on every path, else
        the threads that run it."""
        cfg = self.facts.cfg
        if any(not isinstance(o.key, str) or o.key == "warp" or cfg.dominates(o.label, at[0]) for o in ops):
            return frozenset()
        mine = self._runs(at[0])
        for o in ops:
            runs = self._runs(o.label)
            if mine is None or runs is None:
                return frozenset()
            mine = mine - runs
        return mine or frozenset()

    def _runs(self, label: str) -> frozenset | None:
        """The threads (rows of the launch) that may run the block; None where not enumerated."""
        if label not in self._threads:
            inst = self.facts.space.of(label)
            self._threads[label] = None if inst is None else frozenset(inst.thread)
        return self._threads[label]

    # ---- across rounds
    def common_loops(self, x: str, y: str) -> list[Loop]:
        """The loops around both blocks, outermost first (the depths unordered() counts)."""
        return sorted((lp for lp in self.facts.loops if x in lp.blocks and y in lp.blocks), key=lambda lp: -len(lp.blocks))

    def _across(self, loop: Loop, a, b) -> bool:
        """Is a in round r of the loop ordered before b in round r + 1? Operations of one barrier in
        the loop, one after a (in round r) or the waiting one before b (in round r + 1), the same
        operation or alternatives, that b's threads pass."""
        inside = [o for o in self.ops if o.label in loop.blocks]
        for key in {o.key for o in inside if o.waits}:
            mine = [o for o in inside if o.key == key]
            after_a = [o for o in mine if self._before(a, (o.label, o.index))]
            waits = [o2 for o2 in mine if o2.waits and (
                self._before((o2.label, o2.index), b)                    # round r + 1's phase
                or any(o1 is o2 or self._alternatives(o1, o2) for o1 in after_a))]    # round r's
            if waits and self._passed(waits, b):
                return True
        return False

    def _only_consecutive(self, loop: Loop, a, b) -> bool:
        """Does a waiting operation of the loop that both accesses' threads pass run in every round
        (it then orders rounds two apart: only consecutive rounds can meet unordered)?"""
        cfg = self.facts.cfg
        latches = [x for x in loop.blocks if loop.head in cfg.succs[x]]
        return any(o.waits and o.label in loop.blocks and all(cfg.dominates(o.label, x) for x in latches)
                   and self._passed([o], a) and self._passed([o], b) for o in self.ops)
