"""What the hazard checks ask of a kernel, computed once: control flow, uniformity, loops,
where each register comes from, and which threads run each block, for one launch shape.

Thread questions ("can the thread that puts slot 5 be in the waiter's warp?", "how many
times is this semaphore posted?") are answered by enumeration over the launch's threads and
the rounds of counted loops (space.py): `instances(label)` says who runs a block and
`value(v, label)` what a register holds there, per instance. The shape is the kernel's
declared launch, or a `launch` of the host block (the checks run once per distinct shape).
"""
from __future__ import annotations

from functools import cached_property

from .cfg import CFG, post_order
from ..nodes import Branch, Imm, Instr, Kernel, Reg
from ..ops import COMPARE, NEGATED, SWAPPED
from .uniformity import GRID, THREAD, WARP, Uniformity
from .values import Values
from .space import Loop, Shape, Spaces, Threads

from .launches import DEFAULT_BLOCK, DEFAULT_GRID


def reported_waits(facts: "Facts") -> set[int]:
    """The waits a check already reported (so that another does not report them again)."""
    return facts.memo.setdefault("reported_waits", set())


def explained_reads(facts: "Facts") -> set[int]:
    """The loads a report already blames for reading beside a store (E0704's condition read between
    the same two barriers as a store): the race check does not report them again (E0732)."""
    return facts.memo.setdefault("explained_reads", set())


def declared_shape(k: Kernel) -> Shape:
    return Shape(k.grid or DEFAULT_GRID, k.block or DEFAULT_BLOCK)


class Facts:
    def __init__(self, k: Kernel, target, shape: Shape | None = None):
        self.k, self.target = k, target
        self.shape = shape or declared_shape(k)
        self.cfg = CFG(k)
        self.defs: dict[str, list[Instr]] = {}
        self.where: dict[int, tuple[str, int]] = {}       # id(instruction) → (block, index)
        for b, i, ins in k.instructions():
            self.where[id(ins)] = (b.label, i)
            for d in ins.dests:
                self.defs.setdefault(d.name, []).append(ins)
        self._guard_cache: dict[str, list] = {}
        self.memo: dict = {}          # what a check derives once and another reuses (locks.lock_like, ...)
        self.stores: dict[str, list[Instr]] = {}
        for _, _, ins in k.instructions():
            if ins.op == "st":
                self.stores.setdefault(ins.ref.name, []).append(ins)

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
        cfg, found = self.cfg, self.cfg.natural_loops()
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

    # ---- the threads of the launch
    @cached_property
    def threads(self) -> Threads:
        return Threads(self.shape)

    @cached_property
    def space(self) -> Spaces:
        return Spaces(self.k, self.cfg, self.loops, self.guards, self.threads, self.is_party_branch)

    @cached_property
    def first_block_space(self) -> Spaces:
        """The space of the launch's first block alone, for questions every block answers alike."""
        if self.threads.block_ids == [0]:
            return self.space
        return Spaces(self.k, self.cfg, self.loops, self.guards, Threads(self.shape, first_block_only=True),
                      self.is_party_branch)

    def instances(self, label: str):
        """Who runs block `label` (space.Instances), or None when too many to enumerate."""
        return self.space.of(label)

    def value(self, v, label: str):
        """v's value in each instance of block `label`, as (numpy values, symbolic part), or None."""
        return self.space.value(v, label)

    def column(self, v):
        """v's value per thread, as a hashable (values, symbolic part), for a register defined outside
        every loop; None when unknown."""
        col = self.space.value(v, self.cfg.entry)
        return None if col is None else (tuple(col[0]), col[1])

    def guards(self, label: str) -> list[tuple[Reg, bool, str]]:
        """(condition, taken?, branching block) of every branch edge the block can only be reached through."""
        if label not in self._guard_cache:
            cfg, out = self.cfg, []
            for x in cfg.labels:
                term = cfg.blocks[x].term
                if not isinstance(term, Branch) or term.if_true == term.if_false or x not in cfg.reachable:
                    continue
                for succ, polarity in ((term.if_true, True), (term.if_false, False)):
                    if cfg.preds[succ] == [x] and cfg.dominates(succ, label) and isinstance(term.cond, Reg):
                        out.append((term.cond, polarity, x))
            self._guard_cache[label] = out
        return self._guard_cache[label]

    def apart_in_warps(self, a: str, b: str) -> bool:
        """Can no warp run block a on one lane and block b on another? So where each is reached only
        through a branch on one integer that a thread sets once (outside every loop) and the lanes of
        a warp share (a block's ticket told through a shared word after a barrier: uniformity.py),
        and no value passes both branches: `if role == 0 { ... }` and `if role == 1 { ... }`."""
        tests_b = [t for t in map(self._shared_test, self._edge_guards(b)) if t is not None]
        for reg, op, const in filter(None, map(self._shared_test, self._edge_guards(a))):
            for reg_b, op_b, const_b in tests_b:
                if reg_b == reg and not any(COMPARE[op](v, const) and COMPARE[op_b](v, const_b) for v in
                                            (const - 1, const, const + 1, const_b - 1, const_b, const_b + 1)):
                    return True
        return False

    def _edge_guards(self, label: str) -> list[tuple[Reg, bool]]:
        """(condition, taken?) of every branch edge that each path to the block passes, the edge into
        a loop's head included (guards() takes only edges into blocks with one predecessor)."""
        cfg, out = self.cfg, []
        for x in cfg.labels:
            term = cfg.blocks[x].term
            if not isinstance(term, Branch) or term.if_true == term.if_false or not isinstance(term.cond, Reg):
                continue
            for succ, taken in ((term.if_true, True), (term.if_false, False)):
                if cfg.dominates(succ, label) and all(p == x or cfg.dominates(succ, p) for p in cfg.preds[succ]):
                    out.append((term.cond, taken))
        return out

    def _shared_test(self, guard: tuple[Reg, bool]) -> tuple[str, str, int] | None:
        """(register, comparison, constant) that holds past a guard comparing an integer a thread sets
        once and its warp shares with a constant; None for any other guard."""
        cond, taken = guard
        test = self.def_of(cond)
        if test is None or test.op not in COMPARE:
            return None
        (x, y), op = test.args, test.op
        if isinstance(x, Imm):
            x, y, op = y, x, SWAPPED[op]
        if not (isinstance(x, Reg) and isinstance(y, Imm) and x.type.is_int):
            return None
        d = self.def_of(x)
        if d is None or self.loop_of(self.where[id(d)][0]) is not None or self.uni.level(x) > WARP:
            return None
        return x.name, op if taken else NEGATED[op], int(y.value)

    def undecided(self, ctx, message: str, span) -> None:
        """Say (in `syncc explain`) that a check could not decide something, and why."""
        ctx.remark(self.k.name, "undecided", message, span)

    def _guards(self, label: str) -> list[tuple[Reg, bool]]:
        return [(c, p) for c, p, _ in self.guards(label)]

    # ---- order of instructions
    @cached_property
    def positions(self) -> dict[str, int]:
        """A topological order of the blocks in which a loop's body comes before the code after the
        loop: depth-first over the graph without its back edges, each loop's exits made to follow
        its latches. (With the rounds of the loops around, it orders a thread's operations.)"""
        cfg = self.cfg
        succs = {x: [s for s in cfg.succs[x] if not cfg.dominates(s, x)] for x in cfg.labels}
        for lp in self.loops:
            latches = [x for x in lp.blocks if lp.head in cfg.succs[x]]
            for _, out in lp.exits:
                for latch in latches:
                    if out not in succs[latch]:
                        succs[latch].append(out)
        return {label: n for n, label in enumerate(reversed(post_order(cfg.entry, succs)))}

    def order_keys(self, label: str, ins: Instr) -> tuple[list[int], list[tuple]] | None:
        """(rows, order key of each instance) of `ins` in block `label`: the rounds of the loops
        around it, outermost first, each after its loop's place, then the operation's place; two
        operations of one thread run in the order of their keys. None where a loop around it is
        not counted (or there are too many instances)."""
        inst = self.instances(label)
        if inst is None or not inst.counted:
            return None
        here = (self.positions[label], self.where[id(ins)][1])
        counted = self.space.counted
        columns = [(self.positions[head], inst.iters[counted[head].var]) for head in inst.loops]
        keys = [tuple(x for place, values in columns for x in (place, values[n])) + here for n in range(inst.size)]
        return inst.thread, keys

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
