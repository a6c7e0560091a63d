"""Hand-written synchronization: which accesses synchronize, and which orderings they are owed.

syncc orders its own primitives (passes/fences.py). A program may also synchronize by hand — a
flag published with an atomic and polled with `load_cg`, a test-and-set, ticket or
test-and-test-and-set lock, a barrier built from counters and flags — in any loop shape: a
`break`, a flag variable, a `while` condition, a helper function (inlined by then). What makes an
access a synchronization access is what its value does, not the loop's shape:

- a *sync read* is an atomic or a `load_cg` (or a plain load, polled: it is then read as a
  `load_cg`, which a compiler may not hoist out of the loop) whose value decides a branch: through arithmetic
  (facts.sources), or through a variable that is assigned under a branch it decides (a `var got`
  set to true when the compare-and-swap returned 0: control dependence);
- its array is a *sync array*, and every store or atomic to a sync array is a *sync write*;
- every other load, store or atomic of an array the kernel writes is a *data access* (a load of an
  array the kernel never writes cannot see another thread's write, and owes nothing).

The orderings owed, per thread, in program order (`owed`), treat the sync accesses as sequentially
consistent with the thread's other accesses — the orderings a correct hand-written lock, barrier or
publication has in the seed papers (seed 003 Listing 3.1, the XF barrier of seed 001 §5.1):

- *acquire*: after a sync read, before the next access that is not itself a sync read or an access
  to the very word it read (a later poll, or the compare-and-swap of a test-and-test-and-set lock,
  are ordered by coherence), and before a block barrier (the barrier carries the order on to the
  rest of the block only at block scope, so the thread that observed the flag fences first);
- *release*: before a sync write, after the data accesses since the last fence;
- *store-load*: between a sync write whose value decides nothing and a later sync read of another
  array (Dekker's and Peterson's flags; without it both threads can read the other's flag as 0).

Each is owed at the scope of the sync array: cta for shared memory, gpu for global memory. A fence
of at least that scope discharges it; a block barrier discharges what is owed at cta scope.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..nodes import Branch, Imm, Instr, Kernel, Reg
from ..ops import COMPARE, SWAPPED

SCOPES = {"cta": 0, "gpu": 1, "sys": 2}
ACQUIRE, RELEASE, STORE_LOAD = "acquire", "release", "store-load"


@dataclass(frozen=True)
class Owed:
    """An ordering owed before the instruction at (block, index): a fence of `scope` there."""
    at: tuple[str, int]
    before: Instr
    role: str                 # ACQUIRE | RELEASE | STORE_LOAD
    scope: str                # cta | gpu
    cause: Instr              # the sync access (or, for a release, the data access) that owes it


def hand_sync(facts) -> "HandSync":
    """The kernel's HandSync, made once per Facts (the checks share it)."""
    if "hand_sync" not in facts.memo:
        facts.memo["hand_sync"] = HandSync(facts)
    return facts.memo["hand_sync"]


def constant_written(ins: Instr):
    """The constant a store or an atomic exchange writes (None for any other write)."""
    if ins.op in ("st", "atom.exch") and isinstance(ins.args[1], Imm):
        return ins.args[1].value
    return None


def _constant_test(facts, label: str):
    """(the read, comparison, constant) of the branch that ends block `label` where it compares a
    memory read with a constant (`read OP constant`, operands put in that order); else None."""
    term = facts.cfg.blocks[label].term
    test = facts.def_of(term.cond) if isinstance(term, Branch) else None
    if test is None or test.op not in COMPARE:
        return None
    (x, y), op = test.args, test.op
    if isinstance(x, Imm):
        x, y, op = y, x, SWAPPED[op]
    read = facts.def_of(x)
    if not isinstance(y, Imm) or read is None or read.ref is None or \
            not (read.op == "ld" or read.info.group == "atomic"):
        return None
    return read, op, y.value


def compares_with_constant(facts, label: str) -> bool:
    """Is the branch that ends block `label` a comparison of a memory read with a constant (what
    lets_through judges exactly)?"""
    return _constant_test(facts, label) is not None


def lets_through(facts, tests, word: str, value) -> bool:
    """Can the branches `tests` ((block, the condition's value that lets a thread through): a spin's
    exits, an `if` on a polled word) let a thread through on reading `value` from `word`? Only
    comparisons of what was read with constants are judged (`while atomic_add(f[0], 0) != 2 {}`
    lets through a 2, never a 1); a test of another word lets nothing of `word` through; any other
    test may let anything through."""
    for label, through in tests:
        found = _constant_test(facts, label)
        if found is None:
            return True
        read, op, const = found
        if read.ref.name == word and COMPARE[op](value, const) == through:
            return True
    return False


def array_scope(k: Kernel, name: str) -> str:
    a = k.array(name)
    return "cta" if a is not None and a.space == "shared" else "gpu"


class HandSync:
    """The sync accesses of one kernel (facts: analysis.facts.Facts of it)."""

    def __init__(self, facts):
        self.facts, self.k, self.cfg = facts, facts.k, facts.cfg
        self.written = {ins.ref.name for _, _, ins in self.k.instructions()
                        if ins.op == "st" or ins.info.group == "atomic"}
        self.decides = self._decided()      # id(instruction) → (it, the branch blocks its value decides)
        decided = {key: (ins, b) for key, (ins, b) in self.decides.items() if self._pollable(ins)}
        self._candidates = set(decided)
        self._candidate_arrays = {ins.ref.name for ins, _ in decided.values()}
        self.reads: dict[int, Instr] = {key: ins for key, (ins, branches) in decided.items()
                                        if self._synchronizes(ins, branches)}
        self.arrays = {i.ref.name for i in self.reads.values()}
        self._added: dict[tuple[str, int], Owed] = {}     # acquires owed where a loop is entered (owed)

    # ---- which accesses synchronize
    def _user_array(self, ins: Instr) -> bool:
        a = self.k.array(ins.ref.name) if ins.ref is not None else None
        return a is not None and a.kind != "state"

    def _pollable(self, ins: Instr) -> bool:
        """An atomic, a `load_cg`, or a plain load of an array the kernel writes: polled in a spin, a
        plain load is read as `load_cg` (`plain_polls`), or it could be read once and never again."""
        return self._user_array(ins) and (ins.info.group == "atomic" or ins.op == "ld" and (
            ins.attr("cache") == "cg" or ins.attr("cache") is None and ins.ref.name in self.written))

    def plain_polls(self) -> list[Instr]:
        """The plain loads that are sync reads (a spin polls them): they must be strong loads."""
        return [i for i in self.reads.values() if i.op == "ld" and i.attr("cache") is None]

    def _decided(self) -> dict[int, tuple[Instr, set[str]]]:
        """Each instruction whose value decides a branch → the branch blocks it decides, through
        data or through a variable assigned under a branch it decides (control dependence)."""
        facts, cfg = self.facts, self.cfg
        branches = [b.label for b in self.k.blocks if isinstance(b.term, Branch)]
        under: dict[str, list[str]] = {}     # block → the branch blocks it is control dependent on
        for label in branches:
            for x in cfg.reach(cfg.succs[label], cfg.ipdom(label)):
                if x != label:
                    under.setdefault(x, []).append(label)
        out: dict[int, tuple[Instr, set[str]]] = {}
        for decided in branches:
            seen, todo = set(), [decided]
            while todo:
                label = todo.pop()
                if label in seen:
                    continue
                seen.add(label)
                for ins in facts.sources(self.cfg.blocks[label].term.cond, through_shared=True):
                    out.setdefault(id(ins), (ins, set()))[1].add(decided)
                    if ins.op == "mov" and any(len(facts.defs.get(d.name, ())) > 1 for d in ins.dests):
                        todo.extend(under.get(facts.where[id(ins)][0], ()))   # a flag variable
        return out

    def _synchronizes(self, ins: Instr, branches: set[str]) -> bool:
        """A spin: the value decides the way out of a loop around it, and the loop can come back to
        the read without accessing data (the retry of a poll, a lock's compare-and-swap, a look-back
        that waits on a flag): a loop that takes work items from an atomic counter until they run
        out does work on every way round, and is not one. Or an election: an atomic whose value
        decides a branch under which data the kernel writes is read (the last block reading the
        others' results)."""
        here = self.facts.where[id(ins)]
        for lp in self.facts.loops:
            if here[0] in lp.blocks and any(b in lp.blocks and any(s not in lp.blocks for s in self.cfg.succs[b])
                                            for b in branches) and self._retries(here, lp):
                return True
        if ins.info.group != "atomic":
            return False         # a load's value elects nobody: only an atomic's is unique
        for b in branches:
            for x in self.cfg.reach(self.cfg.succs[b], self.cfg.ipdom(b)):
                if any(i.op == "ld" and self._user_array(i) and i.ref.name in self.written
                       for i in self.cfg.blocks[x].instrs):
                    return True
        return False

    def _retries(self, at: tuple[str, int], lp) -> bool:
        """Can the loop go from the read at `at` back to it, to read the same word again, without a
        data access? (A walk down a list, `k = next[k]`, reads another word each round: no poll.)"""
        label, index = at
        code = self.cfg.blocks[label].instrs
        read = code[index]
        feeding = {read.ref.index.name} if isinstance(read.ref.index, Reg) else set()
        feeding |= {d.name for x in self.facts.sources(read.ref.index) for d in x.dests}
        feeding = {r for r in feeding if len(self.facts.defs.get(r, ())) > 1}   # a `var`: may change

        def idle(instrs) -> bool:
            return not self._works(instrs) and not any(d.name in feeding for i in instrs for d in i.dests)

        if not idle(code[index:]):          # the read itself too: `k = next[k]`
            return False
        seen, todo = set(), list(self.cfg.succs[label])
        while todo:
            x = todo.pop()
            if x not in lp.blocks or x in seen:
                continue
            seen.add(x)
            if x == label:
                return idle(code[:index])
            if idle(self.cfg.blocks[x].instrs):
                todo.extend(self.cfg.succs[x])
        return False

    def _works(self, code) -> bool:
        """Do the instructions access data (anything but the candidate sync reads and accesses to
        their arrays)?"""
        arrays = self._candidate_arrays
        for i in code:
            if i.ref is None or not self._user_array(i) or id(i) in self._candidates or i.ref.name in arrays:
                continue
            if i.op == "st" or i.info.group == "atomic" or i.op == "ld" and i.ref.name in self.written:
                return True
        return False

    def role(self, ins: Instr) -> str | None:
        """sync-read, sync-write, data, or None (owes and discharges nothing)."""
        if ins.ref is None or not self._user_array(ins) or ins.info.group not in ("memory", "atomic"):
            return None
        if id(ins) in self.reads:
            return "sync-read"
        if ins.ref.name in self.arrays and (ins.op == "st" or ins.info.group == "atomic"):
            return "sync-write"
        if ins.op == "ld" and ins.ref.name not in self.written:
            return None               # read-only in this kernel: nothing to be stale against
        return "data"

    def same_word(self, a: Instr, b: Instr) -> bool:
        return a.ref.name == b.ref.name and self.facts.value_key(a.ref.index) == self.facts.value_key(b.ref.index)

    # ---- what is owed
    def owed(self) -> list[Owed]:
        """Every ordering owed and not yet given by a fence in the kernel, at the place it is first
        owed on some path (a forward may-analysis: owed on one path is owed). An acquire first owed
        inside a loop that the sync read is outside of is owed where the loop is entered instead
        (at the end of each block that enters it), so that it is not paid on every round."""
        if not self.reads:
            return []
        self._added = {}
        for _ in range(64):
            state_in = self._fixpoint()
            out: list[Owed] = []
            for label in self.cfg.labels:
                if label in self.cfg.reachable:
                    self._walk(label, state_in.get(label, frozenset()), out)
            hoist = next((o for o in out if o.role == ACQUIRE and self._outer_loop(o) is not None), None)
            if hoist is None:
                return sorted(self._added.values(), key=lambda o: o.at) + out
            lp = self._outer_loop(hoist)
            for p in self.cfg.preds[lp.head]:
                if p not in lp.blocks:
                    at = (p, len(self.cfg.blocks[p].instrs))
                    self._added[at] = Owed(at, hoist.before, hoist.role, hoist.scope, hoist.cause)
        return sorted(self._added.values(), key=lambda o: o.at) + out

    def _outer_loop(self, o: Owed):
        """The outermost loop around the owing instruction that the sync read is not in."""
        cause = self.facts.where[id(o.cause)][0]
        best = None
        for lp in self.facts.loops:
            if o.at[0] in lp.blocks and cause not in lp.blocks and (best is None or len(lp.blocks) > len(best.blocks)):
                best = lp
        return best

    def _fixpoint(self) -> dict[str, frozenset]:
        cfg = self.cfg
        state_in: dict[str, frozenset] = {cfg.entry: frozenset()}
        todo = [cfg.entry]
        while todo:
            label = todo.pop()
            after = self._walk(label, state_in[label], None)
            for s in cfg.succs[label]:
                merged = state_in.get(s, frozenset()) | after
                if s not in state_in or merged != state_in[s]:
                    state_in[s] = merged
                    todo.append(s)
        return state_in

    def _walk(self, label: str, state: frozenset, out: list | None) -> frozenset:
        """The state after block `label` from `state` before it: a set of (kind, scope, instruction)
        with kind acq (a sync read not yet fenced), dirty (a data access) or wsync (a sync write
        deciding nothing). With `out`, each ordering owed is appended to it."""
        added = self._added
        code = self.cfg.blocks[label].instrs
        for i, ins in enumerate(code):
            if (label, i) in added:
                state = _discharge(state, added[(label, i)].scope)
            if ins.op == "fence":
                state = _discharge(state, ins.attr("scope") or "gpu")
                continue
            if ins.op in ("bar.sync", "bar.arrive"):
                state = self._owe_acquire(state, label, i, ins, out)
                state = _discharge(state, "cta")
                continue
            role = self.role(ins)
            if role is None:
                continue
            scope = array_scope(self.k, ins.ref.name)
            if role == "data":
                state = self._owe_acquire(state, label, i, ins, out)
                state = state | {("dirty", "cta", ins), ("dirty", "gpu", ins)}
                continue
            writes = ins.op == "st" or ins.info.group == "atomic"
            if role == "sync-write":
                state = self._owe_acquire(state, label, i, ins, out)
            if writes:
                dirty = [x for kind, s, x in state if kind == "dirty" and s == scope]
                if dirty:
                    state = self._owe(state, label, i, ins, RELEASE, scope, dirty[0], out)
            if role == "sync-read":
                stores = [x for kind, s, x in state if kind == "wsync" and x.ref.name != ins.ref.name]
                if stores:
                    state = self._owe(state, label, i, ins, STORE_LOAD, _widest(scope, stores, self.k), stores[0], out)
                state = state | {("acq", scope, ins)}
            else:
                state = state | {("wsync", scope, ins)}
        if (label, len(code)) in added:
            state = _discharge(state, added[(label, len(code))].scope)
        return state

    def _owe_acquire(self, state, label, i, ins, out):
        pending = [(s, x) for kind, s, x in state if kind == "acq"
                   and not (ins.ref is not None and self.same_word(x, ins))]
        if not pending:
            return state
        scope = max((s for s, _ in pending), key=SCOPES.__getitem__)
        latest = max((x for _, x in pending), key=lambda x: (x.span.line, x.span.col) if x.span else (0, 0))
        return self._owe(state, label, i, ins, ACQUIRE, scope, latest, out)

    @staticmethod
    def _owe(state, label, i, ins, role, scope, cause, out):
        if out is not None:
            out.append(Owed((label, i), ins, role, scope, cause))
        return _discharge(state, scope)          # as if fenced: what follows is owed afresh


def _discharge(state: frozenset, scope: str) -> frozenset:
    level = SCOPES.get(scope, 1)
    return frozenset(e for e in state if SCOPES[e[1]] > level)


def _widest(scope: str, stores: list[Instr], k: Kernel) -> str:
    return max([scope, *(array_scope(k, s.ref.name) for s in stores)], key=SCOPES.__getitem__)
