"""Which values are the same for every thread of the grid, a block or a warp, and which
control flow therefore keeps a block or a warp together.

    u = Uniformity(kernel)
    u.level(reg)        GRID < BLOCK < WARP < THREAD: the widest group that always agrees on it
    u.divergence(label) the level of the branches a block depends on: a block barrier needs
                        BLOCK or less (the whole block takes the same path), a warp operation WARP
    u.form(operand)     a linear form over the thread and block indices (or None)

The analysis is flow-insensitive over registers (a register's level covers all
its assignments) and iterates with control dependence: a register assigned
inside the paths of a branch whose condition varies at some level varies at
that level too, and so does every block those paths contain.

Linear forms let a value like `(tid - 32) / 32` be known warp-uniform (tid is
32·warp + lane when the block's x size is a multiple of 32), and tell the
producer of a channel slot from its consumer's index: with put at `tid + p`
and get at `tid + q`, the producer is the thread `q - p` away.
"""
from __future__ import annotations

from dataclasses import dataclass

from .cfg import CFG
from .nodes import Branch, Imm, Kernel, Ref, Reg

GRID, BLOCK, WARP, THREAD = 0, 1, 2, 3
LEVEL_NAMES = {GRID: "the grid", BLOCK: "a block", WARP: "a warp", THREAD: "a thread"}


@dataclass(frozen=True)
class Form:
    """Σ coef·var + const over the special registers (tid.x, ctaid.y, laneid, ...) and parameters."""
    terms: tuple[tuple[str, int], ...]
    const: int

    def add(self, other: "Form", sign: int = 1) -> "Form":
        d = dict(self.terms)
        for v, c in other.terms:
            d[v] = d.get(v, 0) + sign * c
        return Form(tuple(sorted((v, c) for v, c in d.items() if c)), self.const + sign * other.const)

    def scale(self, k: int) -> "Form":
        return Form(tuple((v, c * k) for v, c in self.terms if c * k), self.const * k)


class Uniformity:
    def __init__(self, k: Kernel):
        self.k = k
        self.cfg = CFG(k)
        self.levels: dict[str, int] = {}
        self.forms: dict[str, Form | None] = {}
        self.block_level: dict[str, int] = {b.label: GRID for b in k.blocks}
        self.written = {ins.ref.name for _, _, ins in k.instructions()
                        if ins.ref is not None and ins.op in ("st", "lockbit.release") or ins.info.group == "atomic"}
        for p in k.params:
            if isinstance(p, Reg):
                self.levels[p.name] = GRID
                self.forms[p.name] = Form(((f"%{p.name}", 1),), 0)
        self._solve()

    # ---- queries
    def level(self, v) -> int:
        if isinstance(v, Imm):
            return GRID
        if isinstance(v, Reg):
            return self.levels.get(v.name, THREAD)
        return THREAD

    def form(self, v) -> Form | None:
        if isinstance(v, Imm):
            return Form((), int(v.value))
        if isinstance(v, Reg):
            return self.forms.get(v.name)
        return None

    def divergence(self, label: str) -> int:
        return self.block_level.get(label, THREAD)

    def thread_form(self) -> Form | None:
        """The linear thread index `tid` as a form over tid.x, tid.y, tid.z (None: block shape unknown)."""
        block = self.k.block
        if block is None:
            return None
        x, y, _ = block
        terms = {"tid.x": 1}
        if block[1] > 1:
            terms["tid.y"] = x
        if block[2] > 1:
            terms["tid.z"] = x * y
        return Form(tuple(sorted(terms.items())), 0)

    # ---- the fixed point
    def _solve(self) -> None:
        changed = True
        while changed:
            changed = False
            for b in self.k.blocks:
                floor = self.block_level[b.label]
                for ins in b.instrs:
                    level, form = self._value(ins)
                    for d in ins.dests:
                        changed |= self._join(d.name, max(level, floor), form if ins.dests[0] is d else None)
            for b in self.k.blocks:
                if isinstance(b.term, Branch) and b.label in self.cfg.reachable:
                    cond = max(self.level(b.term.cond), self.block_level[b.label])
                    if cond > GRID:
                        changed |= self._diverge(b.label, cond)

    def _join(self, name: str, level: int, form: Form | None) -> bool:
        old_level = self.levels.get(name)
        new_level = level if old_level is None else max(old_level, level)
        if name in self.forms:
            new_form = self.forms[name] if self.forms[name] == form else None
        else:
            new_form = form
        if old_level == new_level and self.forms.get(name, "unset") == new_form:
            return False
        self.levels[name], self.forms[name] = new_level, new_form
        return True

    def _diverge(self, label: str, level: int) -> bool:
        """Everything between a branch and where its paths meet again varies at `level`."""
        join = self.cfg.ipdom(label)
        changed, seen, todo = False, set(), list(self.cfg.succs[label])
        while todo:
            x = todo.pop()
            if x == join or x in seen:
                continue
            seen.add(x)
            todo.extend(self.cfg.succs[x])
            if self.block_level[x] < level:
                self.block_level[x] = level
                changed = True
            for ins in self.cfg.blocks[x].instrs:
                for d in ins.dests:
                    if self.levels.get(d.name, GRID) < level:
                        self.levels[d.name] = level
                        changed = True
        return changed

    def _value(self, ins) -> tuple[int, Form | None]:
        op, args = ins.op, ins.args
        if op == "sreg":
            return self._special(ins.attr("reg"))
        if op in ("vote.any", "vote.all", "ballot", "activemask"):
            return WARP, None
        if op == "elect" or ins.info.group in ("atomic", "prim", "lockbit"):
            return THREAD, None
        if op == "ld":
            ref = args[0]
            if ins.attr("uniform") == "block":     # a value broadcast to the block (lowering says so)
                return BLOCK, None
            if ref.name in self.written:
                return THREAD, None
            return max(BLOCK, self.level(ref.index)) if self.level(ref.index) > GRID else GRID, None
        levels = [self.level(a.index if isinstance(a, Ref) else a) for a in args]
        level = max(levels, default=GRID)
        forms = [self.form(a) for a in args]
        form = None
        if op == "mov" or op == "cvt":
            form = forms[0]
        elif op in ("add", "sub") and None not in forms:
            form = forms[0].add(forms[1], 1 if op == "add" else -1)
        elif op == "mul" and None not in forms:
            if not forms[1].terms:
                form = forms[0].scale(forms[1].const)
            elif not forms[0].terms:
                form = forms[1].scale(forms[0].const)
        elif op in ("div", "rem", "and") and isinstance(args[1], Imm):
            level = self._by_lane(op, forms[0], int(args[1].value), level)
            if op == "div" and forms[0] is not None and not forms[0].terms:
                form = Form((), forms[0].const // int(args[1].value)) if args[1].value else None
        return level, form

    def _special(self, reg: str) -> tuple[int, Form | None]:
        if reg.startswith(("ntid", "nctaid")):
            # analysed for the declared shape (a launch may give another grid; the runtime checks
            # what depends on it, like a grid barrier's co-residency)
            shape = self.k.block if reg.startswith("ntid") else self.k.grid
            if shape is not None:
                return GRID, Form((), shape["xyz".index(reg[-1])])
            return GRID, Form(((reg, 1),), 0)
        if reg.startswith("ctaid"):
            return BLOCK, Form(((reg, 1),), 0)
        if reg == "clock":
            return THREAD, None
        block = self.k.block
        if reg == "tid.x":
            return THREAD, Form((("tid.x", 1),), 0)
        if reg in ("tid.y", "tid.z") and block is not None and block[0] % 32 == 0:
            return WARP, Form(((reg, 1),), 0)         # a warp lies within one row of x
        return THREAD, Form(((reg, 1),), 0)

    def _by_lane(self, op: str, form: Form | None, k: int, level: int) -> int:
        """x / k (k a multiple of 32) is warp-uniform when x = 32·(something warp-uniform) + lane."""
        if level <= WARP or form is None or k <= 0:
            return level
        lane = self._lane_part(form)
        if lane is None:
            return level
        if op == "div" and k % 32 == 0:
            return WARP
        if op == "and" and (k & 31) == 0 and k < 0:      # x & -32: the warp's first thread
            return WARP
        return level

    def _lane_part(self, form: Form) -> int | None:
        """1 when form = lane + 32·(warp-uniform): tid.x is 32·(tid.x / 32) + lane when the block's x
        size is a multiple of 32, and then tid.y, tid.z, block indices and parameters are warp-uniform;
        their coefficients and the constant must be multiples of 32. Else None."""
        block = self.k.block
        rows = block is not None and block[0] % 32 == 0
        terms = dict(form.terms)
        lane = terms.pop("laneid", 0) + (terms.pop("tid.x", 0) if rows else 0)
        if lane != 1 or form.const % 32:
            return None
        for v, c in terms.items():
            if v.startswith("tid.") and not rows:
                return None
            if c % 32:
                return None
        return 1
