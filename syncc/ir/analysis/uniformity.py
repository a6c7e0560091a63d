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

A load of memory that the kernel writes varies by thread, except across a barrier:

  - a load of a **shared** array at a block-uniform index is BLOCK when no store or atomic
    of that array can run in the same barrier interval: no block barrier (`bar.sync` with
    one operand, a @block or @grid barrier's `sync`, a grid barrier's `arrive` or `wait`) starts
    an interval, or the kernel's entry, from which both the load and a store can be reached
    without passing another;
  - a load of a **global** array at a grid-uniform index is GRID likewise, with the grid
    barriers' `sync` as the intervals' ends (not a split phase's `arrive` or `wait`, between
    which other blocks run on), when it reads past L1 (`load_cg`, or an acquire): Fermi's L1
    is not coherent, so a plain load could return another block's stale line.

Such a load reads a word nobody writes while any thread of the block (grid) can read it:
every thread that reads it in one interval reads the same value. This holds while every
barrier is passed by the whole block (grid), which the E0704 check of each barrier proves
with these very levels: by induction over the barriers in execution order, the threads
agree on every branch before the next barrier, so all of them pass the same barriers.

Linear forms let a value like `(tid - 32) / 32` be known warp-uniform (tid is
32·warp + lane when the block's x size is a multiple of 32), and tell the
producer of a channel slot from its consumer's index: with put at `tid + p`
and get at `tid + q`, the producer is the thread `q - p` away.
"""
from __future__ import annotations

from ...core.prebuilt import dataclass
from .cfg import CFG
from ..nodes import Branch, Imm, Instr, Kernel, Ref, Reg
from ..ops import SWAPPED

GRID, BLOCK, WARP, THREAD = 0, 1, 2, 3
_WARP_EDGE = ("cmp.lt", "cmp.le", "cmp.gt", "cmp.ge")
_HOLDS = {"cmp.lt": lambda d: d < 0, "cmp.le": lambda d: d <= 0,        # x OP y, given d = x - y
          "cmp.gt": lambda d: d > 0, "cmp.ge": lambda d: d >= 0}
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
        # A path that traps (a failed bounds check's: ir/faults.py) never comes back: the lanes that
        # go on past the check meet where they would without it, so what follows does not vary
        # because some lanes could have trapped.
        self.cfg = CFG(k, traps_exit=False)
        self.levels: dict[str, int] = {}
        self.forms: dict[str, Form | None] = {}
        self.block_level: dict[str, int] = {b.label: GRID for b in k.blocks}
        self.writers: dict[str, list[tuple[str, int]]] = {}     # array → where it is stored to
        self._where: dict[int, tuple[str, int]] = {}
        for b, i, ins in k.instructions():
            self._where[id(ins)] = (b.label, i)
            if _writes(ins):
                self.writers.setdefault(ins.ref.name, []).append((b.label, i))
        self.written = set(self.writers)
        self._intervals: dict[str, dict[tuple[str, int], frozenset]] = {}
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
        if isinstance(v, (Imm, Reg)) and v.type.is_float:
            return None                 # forms are integer arithmetic; a float has none
        if isinstance(v, Imm):
            return Form((), int(v.value))
        if isinstance(v, Reg):
            return self.forms.get(v.name)
        return None

    def divergence(self, label: str) -> int:
        return self.block_level.get(label, THREAD)

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
        if op == "elect" or ins.info.group in ("atomic", "prim", "lockbit", "mbarrier"):
            return THREAD, None
        if op == "ld":
            ref = args[0]
            if ins.attr("uniform") == "block":     # a value broadcast to the block (lowering says so)
                return BLOCK, None
            if ins.attr("uniform") == "warp":      # ... or to the warp
                return WARP, None
            if ref.name in self.written:
                return self._across_barriers(ins), None
            return max(BLOCK, self.level(ref.index)) if self.level(ref.index) > GRID else GRID, None
        levels = [self.level(a.index if isinstance(a, Ref) else a) for a in args]
        level = max(levels, default=GRID)
        forms = [self.form(a) for a in args]
        form = None
        if any(d.type.is_float for d in ins.dests) or any(isinstance(a, (Reg, Imm)) and a.type.is_float
                                                          for a in args):
            return level, None
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
        elif op in _WARP_EDGE and level > WARP and None not in forms:
            level = GRID if self._same_over_range(op, forms) else self._warp_edge(op, forms, level)
        return level, form

    def _same_over_range(self, op: str, forms: list[Form]) -> bool:
        """`tid < 32` in a block of 8 threads: x - bound is linear in thread indices whose ranges the
        launch shape gives, so its least and greatest values bound it; when the comparison has the
        same outcome at both, every thread gets it."""
        block = self.k.block
        if block is None:
            return False
        ranges = {"tid.x": block[0] - 1, "tid.y": block[1] - 1, "tid.z": block[2] - 1,
                  "laneid": min(31, block[0] * block[1] * block[2] - 1)}
        diff = forms[0].add(forms[1], -1)
        low = high = diff.const
        for v, c in diff.terms:
            if v not in ranges:
                return False
            low, high = low + min(0, c * ranges[v]), high + max(0, c * ranges[v])
        return _HOLDS[op](low) == _HOLDS[op](high)

    def _warp_edge(self, op: str, forms: list[Form], level: int) -> int:
        """`tid < 32 k`: x = lane + 32·(warp-uniform) compared with a warp-uniform bound on a warp
        edge (a multiple of 32 for < and >=, one less for <= and >) is the same for a whole warp,
        and for the whole block when the block is one warp."""
        x, bound = forms
        if self._lane_part(x) != 1:
            if self._lane_part(bound) != 1:
                return level
            x, bound, op = bound, x, SWAPPED[op]
        if any(v.startswith("tid.") or v == "laneid" or c % 32 for v, c in bound.terms):
            return level
        edge = bound.const + (1 if op in ("cmp.le", "cmp.gt") else 0)
        if edge % 32:
            return level
        threads = self.k.threads_per_block
        return BLOCK if threads is not None and threads <= 32 else WARP

    # ---- loads separated from every store by barriers
    def _across_barriers(self, load: Instr) -> int:
        """BLOCK for a shared array's word that no store can change while the block reads it,
        GRID for a global array's word read past L1 that no store can change while the grid
        reads it; else THREAD (the module's docstring)."""
        ref = load.ref
        array = self.k.array(ref.name)
        index = self.level(ref.index)
        if array is None or id(load) not in self._where:
            return THREAD
        if array.space == "shared" and index <= BLOCK and self._apart(load, "block"):
            return BLOCK
        if array.space == "global" and index == GRID and (load.attr("cache") == "cg"
                                                          or load.attr("order") == "acquire") \
                and self._apart(load, "grid"):
            return GRID
        return THREAD

    def _apart(self, load: Instr, kind: str) -> bool:
        """Can no store or atomic of the load's array run in the load's barrier interval?"""
        return self.writer_beside(load, kind) is None

    def writer_beside(self, load: Instr, kind: str) -> tuple[str, int] | None:
        """A store or atomic of the load's array that can run in the load's barrier interval
        (kind "block": between the same two block barriers; "grid": grid barriers), as (block,
        index); None when there is none."""
        starts = self._interval_starts(kind)
        here = self._where.get(id(load))
        mine = starts.get(here, frozenset())
        for at in self.writers.get(load.ref.name, ()):
            shared = mine & starts.get(at, frozenset())
            if shared and not all(self._other_word(here, at, start, kind) for start in shared):
                return at
        return None

    def _other_word(self, load: tuple[str, int], store: tuple[str, int], start, kind: str) -> bool:
        """Do the load and the store touch different words whenever both run in the interval that
        begins at `start`? Yes when both index with one register that the interval only steps by
        constants (a round counter, `delta[it]` read after the barrier and `delta[it]` written
        after `it += 1`), and it has stepped by different amounts when each runs."""
        index = self.cfg.blocks[load[0]].instrs[load[1]].ref.index
        if not isinstance(index, Reg) or self.cfg.blocks[store[0]].instrs[store[1]].ref.index != index:
            return False
        steps = self._steps_from(start, index.name, kind)
        a, b = steps.get(load), steps.get(store)
        return a is not None and b is not None and a != b

    def _steps_from(self, start, name: str, kind: str) -> dict[tuple[str, int], int | None]:
        """How far register `name` has been stepped (`add name, name, c`) at each instruction of the
        interval that begins at barrier `start`, since the interval began; None where it differs
        by path or is set otherwise."""
        cfg = self.cfg
        if start[0] not in cfg.blocks:
            return {}                                  # the kernel's entry: before anything is set
        out: dict[tuple[str, int], int | None] = {}
        into: dict[str, int | None] = {}
        todo = [(start[0], start[1] + 1, 0)]
        while todo:
            label, first, step = todo.pop()
            instrs = cfg.blocks[label].instrs
            ended = False
            for i in range(first, len(instrs)):
                at = (label, i)
                if at in out and out[at] == step:
                    ended = True
                    break
                out[at] = None if at in out and out[at] != step else step
                step = out[at]
                ins = instrs[i]
                if self._barrier(ins, kind):
                    ended = True
                    break
                if any(d.name == name for d in ins.dests):
                    inc = ins.args[1] if ins.op in ("add", "sub") and ins.args[0] == ins.dests[0] else None
                    step = None if step is None or not isinstance(inc, Imm) else \
                        step + (int(inc.value) if ins.op == "add" else -int(inc.value))
            if ended:
                continue
            for succ in cfg.succs[label]:
                seen = into.get(succ, "unseen")
                if seen == "unseen":
                    into[succ] = step
                elif seen != step:
                    if seen is None:
                        continue
                    into[succ] = None
                else:
                    continue
                todo.append((succ, 0, into[succ]))
        return out

    def _interval_starts(self, kind: str) -> dict[tuple[str, int], frozenset]:
        """For each instruction, the barriers (of `kind`: block or grid) and the kernel's entry
        from which it can be reached without passing another barrier of that kind: two
        instructions can run in one barrier interval only if these share one."""
        if kind in self._intervals:
            return self._intervals[kind]
        cfg = self.cfg
        entry = ("<entry>", -1)
        into = {label: frozenset() for label in cfg.labels}
        into[cfg.entry] = frozenset([entry])
        todo = [cfg.entry]
        while todo:
            label = todo.pop()
            now = into[label]
            for i, ins in enumerate(cfg.blocks[label].instrs):
                if self._barrier(ins, kind):
                    now = frozenset([(label, i)])
            for s in cfg.succs[label]:
                if not now <= into[s]:
                    into[s] = into[s] | now
                    todo.append(s)
        at = {}
        for label in cfg.labels:
            now = into[label]
            for i, ins in enumerate(cfg.blocks[label].instrs):
                at[(label, i)] = now          # (a barrier itself: the interval it ends)
                if self._barrier(ins, kind):
                    now = frozenset([(label, i)])
        self._intervals[kind] = at
        return at

    def _barrier(self, ins: Instr, kind: str) -> bool:
        """A block barrier (kind "block": `bar.sync` with one operand, the `sync` of a @block or
        @grid barrier, which meets the block too) or a grid barrier (kind "grid")."""
        if ins.op == "bar.sync":
            return kind == "block" and len(ins.args) == 1
        if ins.op not in ("prim.sync", "prim.arrive", "prim.wait") or ins.ref is None:
            return False
        prim = self.k.prim(ins.ref.name)
        if prim is None or prim.kind != "barrier":
            return False
        if ins.op != "prim.sync":
            # a grid barrier's `arrive` and `wait` each meet the block; neither ends the grid's interval:
            # other blocks run on between them, so what one writes there another may not see
            return kind == "block" and prim.granularity == "grid"
        return prim.granularity == "grid" or kind == "block" and prim.granularity == "block"

    def _special(self, reg: str) -> tuple[int, Form | None]:
        if reg.startswith(("ntid", "nctaid")):
            # analysed for the declared shape (a launch may give another grid; the runtime checks
            # what depends on it, like a grid barrier's co-residency)
            shape = self.k.block if reg.startswith("ntid") else self.k.grid
            if shape is not None:
                return GRID, Form((), shape["xyz".index(reg[-1])])
            return GRID, Form(((reg, 1),), 0)
        if reg.startswith("ctaid"):
            grid = self.k.grid
            if grid is not None and grid["xyz".index(reg[-1])] == 1:
                return GRID, Form((), 0)              # one block along it: the same for the whole grid
            return BLOCK, Form(((reg, 1),), 0)
        if reg in ("clock", "globaltimer_lo"):
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


def _writes(ins: Instr) -> bool:
    """A store, a lock-bit release (a store too) or an atomic, to the array it references."""
    return ins.ref is not None and (ins.op in ("st", "lockbit.release") or ins.info.group == "atomic")
