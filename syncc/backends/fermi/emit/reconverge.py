"""Reconvergence: where a warp that a branch split meets again, and the SSY / .S that make it so.

Guarantee: after `place_reconvergence`, every branch whose condition is not
warp-uniform runs inside a region opened by an SSY and closed by a `.S`, as
Fermi nvcc compiled it, so that the lanes of the two sides that do not return
meet again at the branch's join (unless a side only returns: then the lanes
that go on are together already); the regions nest, so the SIMT stack holds,
at every block, one SSY entry per region around it, and it does not grow from
one loop iteration to the next.

The algorithm (docs/fermi.md, "From IR to SASS"):

  * a branch whose condition is warp-uniform (analysis/uniformity.py: level ≤ WARP) is a
    BRA.U and needs nothing;
  * any other branch B has a join J = its immediate post-dominator, or, when
    that is the exit because a path from B returns early, the nearest block that
    every path from B passes unless it returns first (`join_of`: the lanes that
    exit leave the SIMT stack, so the others meet there, as nvcc puts the SSY of
    an `if` with a `return` inside at its endif); none when one side only
    returns, or only traps (a failed bounds check's path, ir/faults.py: its lanes
    never come back, and a stub waiting for them would wait for ever). Its region is B and every block reachable from B without passing J,
    the early `ret`s included. Branches with the same region and join share one
    SSY, and so do regions with the same join that share blocks without nesting
    (the two inner branches of an if/else whose arms both `continue` meet in the
    if's endif): their union is one region, since each path to the join ends in
    one .S, which pops one entry, a divergence entry of its branches or, last,
    the SSY's;
  * the regions must nest (two are disjoint or one holds the other): else an
    EmitterError names them;
  * every edge u → v now leaves the regions around u that do not hold v
    (innermost first; each must have v as its join) and enters those around v
    that do not hold u (outermost first). Leaving region R means executing a
    `.S` (the last instruction of u when u jumps there unconditionally, else
    a stub of the edge's own, a `NOP.S CC.T`), which pops R's SSY entry, so the thread
    continues at R's SSY target, `cont(R)`. Entering R means executing `SSY
    cont(R)` on that edge (in a block of its own, which block merging later
    folds into the end of the source or the start of the target).
    cont(R) is the stub of R's parent when the parent has the same join (a
    nested region with the same join has its own stub, which then syncs the
    outer one), else the SSYs of the regions J itself enters, then J.

So an `if` is `SSY J; @!P BRA stub; then...; .S` with `stub: NOP.S`, and a loop
whose branch diverges gets its SSY on the edge into the loop (the preheader),
not inside it: each iteration pushes only divergence entries, which its .S pops.
When the entry block itself branches divergently, the kernel starts with an
empty block of its own, so that the SSY has an edge to go on.

In the ITS flavour (`its=True`) a region is a convergence barrier instead:
`BSSY Bn, stub` on the entry edges, every path into J goes to the stub, whose
first instruction is `BSYNC Bn`. Bn is a register of the warp that BSSY sets to
the lanes of the split executing it, so regions that can be open at once in
different splits (nested ones, the loops in the two arms of an `if`) get
different barriers, while regions one split runs one after the other may share
one (`_assign_barriers`; E0801, located at a branch, when 16 do not suffice); regions with
one join that share blocks are one region; and a region whose lanes can arrive
in different splits (entered from both sides of an `if` before it ends) has no
barrier of its own: a second BSSY would overwrite the first's lanes, so its
lanes meet at the join of the region around it. Lanes leave a region only
through its join (or EXIT, which a BSYNC does not wait for), so no BREAK is
needed.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ....core.diagnostics import Diagnostic, DiagnosticsError, Severity
from ....ir.analysis.cfg import CFG, EXIT
from ....ir.nodes import Branch, Kernel, Return
from ..isa import ConvergenceBarrier
from .mcode import CondBr, EmitterError, Goto, Label, MBlock, MFunction, MInstr, Sync

MAX_BARRIERS = 16


@dataclass(eq=False)
class ReconvergenceRegion:
    id: int
    blocks: frozenset[str]
    join: str
    branches: list[str]
    parent: "ReconvergenceRegion | None" = None
    depth: int = 0
    barrier: int = 0                # the convergence barrier Bn in the ITS flavour (_assign_barriers)
    children: list["ReconvergenceRegion"] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"region {self.id} (branches {', '.join(self.branches)}; join {self.join})"


def find_regions(k: Kernel, divergent, its: bool = False) -> list[ReconvergenceRegion]:
    """The SSY regions of `k` (after if-conversion): `divergent(block)` says whether its branch
    may split a warp. Raises EmitterError when they do not nest. With `its`, regions with one join
    that share blocks are one region (one convergence barrier serves them all), a region whose
    lanes can arrive in two splits gets none (`_entered_apart`), and each region gets its barrier
    number (`_assign_barriers`)."""
    cfg = CFG(k)
    groups: dict[tuple[frozenset[str], str], list[str]] = {}
    sides: list[tuple[str, list[frozenset[str]]]] = []     # per divergent branch: where each side's lanes go
    early = _early_postdoms(cfg)
    trapped = _trapping(cfg)
    for b in k.blocks:
        t = b.term
        if not isinstance(t, Branch) or t.if_true == t.if_false or b.label not in cfg.reachable:
            continue
        if not divergent(b) or any(x in trapped for x in t.targets):
            continue
        join = join_of(cfg, b.label, early)
        sides.append((b.label, [frozenset(cfg.reach([x], join)) for x in dict.fromkeys(t.targets)]))
        if join is None:
            continue                        # the lanes of one side all return: they never meet
        inside = frozenset(cfg.reach([b.label], join))
        groups.setdefault((inside, join), []).append(b.label)
    regions = [ReconvergenceRegion(n, blocks, join, branches)
               for n, ((blocks, join), branches) in enumerate(_merge(groups, nested=its))]
    if its:
        regions = [r for r in regions if not _entered_apart(cfg, r, sides)]
    _nest(k, regions)
    if its:
        _assign_barriers(regions, [branch for _, branch in sides])
        over = [r for r in regions if r.barrier >= MAX_BARRIERS]
        if over:
            raise DiagnosticsError([_too_many_barriers(k, regions, over[0])])
    return regions


def _too_many_barriers(k: Kernel, regions: list[ReconvergenceRegion], r: ReconvergenceRegion) -> Diagnostic:
    """E0801 at the first branch whose region finds all 16 convergence barriers taken."""
    spans = [b.term.span for b in k.blocks if b.label in r.branches and b.term.span is not None]
    need = max(x.barrier for x in regions) + 1
    return Diagnostic(
        Severity.ERROR, "E0801",
        f"{need} reconvergence regions open at once are not supported on Fermi SASS with independent "
        f"thread scheduling (`--its`): it has {MAX_BARRIERS} convergence barriers, and this branch's "
        f"region would need a {MAX_BARRIERS + 1}th", spans[0] if spans else k.span,
        help="nest fewer divergent branches and loops inside one another in this kernel, or compile it "
             "without `--its` (Fermi's SIMT stack has no such limit)")


def _entered_apart(cfg: CFG, r: ReconvergenceRegion, sides: list[tuple[str, list[frozenset[str]]]]) -> bool:
    """Can the lanes that enter region r arrive in different splits of the warp (from different
    sides of a divergent branch outside r, before they meet again)? Each split would execute r's
    BSSY, the later one overwriting the barrier's lanes, and the earlier ones would wait at the
    BSYNC for lanes that have gone on. Such a region gets no barrier of its own in the ITS flavour:
    its lanes meet at the join of the region around it (on Fermi each split pushes its own SSY)."""
    entries = {x for x in r.blocks if any(p not in r.blocks for p in cfg.preds[x])}
    for label, branch in sides:
        if label in r.blocks:
            continue
        reached = [side for side in branch if side & entries]
        if len(reached) > 1:
            return True
    return False


def join_of(cfg: CFG, label: str, early: dict | None = None) -> str | None:
    """Where the lanes that the branch ending `label` splits meet again: its immediate
    post-dominator; when that is the exit because a path from the branch reaches a `return`
    statement, the nearest block that every path passes unless it returns early (lanes that exit
    leave the warp's stack and barriers, so the others meet there, as nvcc puts the SSY of an `if`
    with a `return` inside before its endif); None when a side only returns (the lanes that go on
    are one split already) or every path does. `early`: post-dominator sets that ignore early
    returns (`_early_postdoms`), computed when not given."""
    join = cfg.ipdom(label)
    if join is not None and join != EXIT:
        return join
    pd = _early_postdoms(cfg) if early is None else early
    if pd.get(label) is None or any(pd.get(x) is None for x in cfg.succs[label]):
        return None
    below = pd[label] - {label}
    for j in below:
        if pd[j] == below:
            return j
    return None


def _trapping(cfg: CFG) -> set[str]:
    """The blocks whose every path ends in a `trap` or never ends, and some path traps: a failed
    bounds check's path (ir/faults.py), where the lanes wait for the trap or make it."""
    traps = {x for x in cfg.labels if any(ins.op == "trap" for ins in cfg.blocks[x].instrs)}
    if not traps:
        return set()

    def back(start: set[str], stop: set[str]) -> set[str]:
        seen, todo = set(start), list(start)
        while todo:
            for p in cfg.preds[todo.pop()]:
                if p not in seen and p not in stop:
                    seen.add(p)
                    todo.append(p)
        return seen
    finishing = back({x for x in cfg.labels if isinstance(cfg.blocks[x].term, Return)} - traps, traps)
    return back(traps, set()) - finishing


def _early_postdoms(cfg: CFG) -> dict[str, frozenset[str] | None]:
    """Post-dominator sets where the paths that end in a `return` statement do not count (None: every
    path from the block does so, or never ends). The kernel's own end is the `ret` at its closing
    brace (its span ends where the kernel's does); when no `ret` is, every `ret` counts as the end."""
    k = cfg.kernel
    rets = [b.label for b in k.blocks if isinstance(b.term, Return)]
    final = [x for x in rets if k.span is not None and cfg.blocks[x].term.span is not None
             and cfg.blocks[x].term.span.end == k.span.end and cfg.blocks[x].term.span.file == k.span.file]
    final = set(final or rets)
    pd: dict[str, frozenset[str] | None] = {x: None for x in cfg.labels}
    for x in final:
        pd[x] = frozenset({x})
    changed = True
    while changed:
        changed = False
        for x in reversed(cfg.labels):
            if x in final or x in rets:
                continue
            sets = [pd[t] for t in cfg.succs[x] if pd[t] is not None]
            new = frozenset({x}).union(frozenset.intersection(*sets)) if sets else None
            if new != pd[x]:
                pd[x] = new
                changed = True
    return pd


def _merge(groups: dict[tuple[frozenset[str], str], list[str]], nested: bool = False) \
        -> list[tuple[tuple[frozenset[str], str], list[str]]]:
    """Regions with one join that share blocks without nesting become one region, their union (an
    if/else whose arms both `continue` has two inner branches whose regions meet in the if's
    endif). One SSY entry serves every branch of the union: each path to the join ends in one .S,
    which pops one entry, a divergence entry of the union's branches or, last, the SSY's. With
    `nested`, a region inside another with the same join joins it too."""
    merged = [[blocks, join, list(branches)] for (blocks, join), branches in groups.items()]
    changed = True
    while changed:
        changed = False
        for i, a in enumerate(merged):
            for b in merged[i + 1:]:
                if a[1] == b[1] and a[0] & b[0] and (nested or not a[0] <= b[0] and not b[0] <= a[0]):
                    a[0] = a[0] | b[0]
                    a[2] += b[2]
                    merged.remove(b)
                    changed = True
                    break
            if changed:
                break
    return [((blocks, join), branches) for blocks, join, branches in merged]


def _assign_barriers(regions: list[ReconvergenceRegion], sides: list[list[frozenset[str]]]) -> None:
    """The convergence barrier of each region in the ITS flavour. A barrier is one register of the
    warp, which BSSY sets to the lanes of the split that executes it; so two regions that can be
    open at once get different ones: nested regions, and regions that lanes of different sides of
    one divergent branch can reach before they meet again (the loops in the two arms of an `if`).
    Regions that one split runs one after the other may share one."""
    def conflict(r: ReconvergenceRegion, s: ReconvergenceRegion) -> bool:
        if r.blocks & s.blocks:
            return True
        return any(a & r.blocks and b & s.blocks for branch in sides for a in branch for b in branch if a is not b)

    done: list[ReconvergenceRegion] = []
    for r in sorted(regions, key=lambda r: (r.depth, r.id)):
        taken = {s.barrier for s in done if conflict(r, s)}
        r.barrier = min(n for n in range(len(regions) + 1) if n not in taken)
        done.append(r)


def _nest(k: Kernel, regions: list[ReconvergenceRegion]) -> None:
    by_size = sorted(regions, key=lambda r: (len(r.blocks), r.id))
    for i, r in enumerate(by_size):
        for s in by_size[i + 1:]:
            common = r.blocks & s.blocks
            if not common:
                continue
            if r.blocks == s.blocks:
                raise EmitterError(f"kernel @{k.name}: {r} and {s} cover the same blocks with different joins")
            if not r.blocks <= s.blocks:
                raise EmitterError(
                    f"kernel @{k.name}: the reconvergence regions of the branches in {', '.join(r.branches)} "
                    f"and in {', '.join(s.branches)} overlap without nesting ({', '.join(sorted(common))} in "
                    f"both; only the first also holds {', '.join(sorted(r.blocks - s.blocks))}): one SIMT stack "
                    "cannot serve them")
            if r.parent is None:
                r.parent = s            # the smallest region holding r (sorted by size)
    for r in sorted(regions, key=lambda r: -len(r.blocks)):
        if r.parent is not None:
            r.depth = r.parent.depth + 1
            r.parent.children.append(r)


class Reconverger:
    """Rewrites a machine CFG (blocks labelled as the IR's) with the SSYs and syncs of `regions`."""

    def __init__(self, mf: MFunction, regions: list[ReconvergenceRegion], its: bool = False):
        self.mf, self.regions, self.its = mf, regions, its
        self.blocks = mf.block_map()
        self.chains: dict[str, list[ReconvergenceRegion]] = {}
        for r in regions:
            for label in r.blocks:
                self.chains.setdefault(label, []).append(r)
        for chain in self.chains.values():
            chain.sort(key=lambda r: r.depth)          # outermost first
        self.stubs: dict[int, str] = {}
        self.conts: dict[int, str] = {}
        self.entries: dict[tuple, str] = {}
        self.busy: set[int] = set()
        self.new: list[tuple[str, MBlock]] = []         # (placed before this label, block)

    def chain(self, label: str) -> list[ReconvergenceRegion]:
        return self.chains.get(label, [])

    def _add(self, block: MBlock, before: str) -> str:
        self.new.append((before, block))
        self.blocks[block.label] = block
        return block.label

    def _fresh(self, base: str) -> str:
        n, label = 0, base
        while label in self.blocks:
            n += 1
            label = f"{base}.{n}"
        return label

    # ---- where a region's lanes go, and how they get in
    def cont(self, r: ReconvergenceRegion) -> str:
        if r.id in self.conts:
            return self.conts[r.id]
        if r.id in self.busy:
            raise EmitterError(f"kernel @{self.mf.name}: the joins of the reconvergence regions form a cycle at {r}")
        self.busy.add(r.id)
        p = r.parent
        if p is not None and r.join not in p.blocks:
            if p.join != r.join:
                raise EmitterError(f"kernel @{self.mf.name}: {r} leaves its enclosing {p} other than at its join")
            target = self.stub(p)
        else:
            entering = [q for q in self.chain(r.join) if not r.blocks <= q.blocks]
            target = self.entry(r.join, entering)
        self.busy.discard(r.id)
        self.conts[r.id] = target
        return target

    def stub(self, r: ReconvergenceRegion) -> str:
        if r.id not in self.stubs:
            label = self._fresh(f"{r.join}.sync")
            self.stubs[r.id] = label
            if self.its:
                block = MBlock(label, [MInstr("BSYNC", (), [ConvergenceBarrier(r.barrier)])], None, kind="stub")
                self._add(block, r.join)
                block.term = Goto(self.cont(r))
            else:
                block = MBlock(label, [], None, kind="stub")
                self._add(block, r.join)
                block.term = Sync(self.cont(r))
        return self.stubs[r.id]

    def entry(self, v: str, entering: list[ReconvergenceRegion]) -> str:
        """The block that opens `entering` (outermost first) and goes on to v."""
        if not entering:
            return v
        key = (v, tuple(r.id for r in entering))
        if key not in self.entries:
            label = self._fresh(f"{v}.ssy")
            self.entries[key] = label
            block = MBlock(label, [], Goto(v), kind="ssy")
            self._add(block, v)
            for r in entering:
                if self.its:
                    block.instrs.append(MInstr("BSSY", (), [ConvergenceBarrier(r.barrier), Label(self.stub(r))]))
                else:
                    block.instrs.append(MInstr("SSY", (), [Label(self.cont(r))]))
        return self.entries[key]

    # ---- the edges
    def run(self) -> None:
        entry = self.mf.blocks[0].label
        if self.chain(entry):
            # a divergent branch in the entry block: its SSY needs an edge into the region, so the
            # kernel starts in an empty block of its own that goes on to the old entry
            start = MBlock(self._fresh("start"), [], Goto(entry))
            self.mf.blocks.insert(0, start)
            self.blocks[start.label] = start
        originals = list(self.mf.blocks)
        entry = originals[0].label
        for u in originals:
            term = u.term
            if isinstance(term, Goto):
                target = self.edge(u, term.target, unconditional=True)
                if target is not None:
                    term.target = target
            elif isinstance(term, CondBr):
                term.if_true = self.edge(u, term.if_true) or term.if_true
                term.if_false = self.edge(u, term.if_false) or term.if_false
        if self.chain(entry):
            raise EmitterError(f"kernel @{self.mf.name}: the entry block lies inside a reconvergence region")
        placed = {before: [] for before, _ in self.new}
        for before, block in self.new:
            placed[before].append(block)
        order = []
        for b in originals:
            order.extend(placed.pop(b.label, []))
            order.append(b)
        for rest in placed.values():
            order.extend(rest)
        self.mf.blocks = order

    def edge(self, u: MBlock, v: str, unconditional: bool = False) -> str | None:
        """The new target of the edge u → v (None: unchanged, or u now ends in a .S)."""
        leaving = [r for r in reversed(self.chain(u.label)) if v not in r.blocks]
        entering = [r for r in self.chain(v) if u.label not in r.blocks]
        if leaving:
            for r in leaving:
                if r.join != v:
                    raise EmitterError(f"kernel @{self.mf.name}: the edge {u.label} → {v} leaves {r} other "
                                       "than at its join")
            if self.its:
                return self.stub(leaving[0])
            if unconditional:
                u.term = Sync(self.cont(leaving[0]), u.term.loc)      # the .S goes on u's last instruction
                return None
            # a stub of the edge's own, so that layout can let the lanes that leave fall into it
            label = self._fresh(f"{u.label}.sync")
            return self._add(MBlock(label, [], Sync(self.cont(leaving[0]), u.term.loc), kind="stub"), v)
        if entering:
            return self.entry(v, entering)
        return None


def place_reconvergence(mf: MFunction, regions: list[ReconvergenceRegion], its: bool = False) -> None:
    Reconverger(mf, regions, its).run()
