"""Checks on which instance of a lock covers what.

    E0709  a shared-memory mutex guarding global data that threads of two blocks can touch at
           one index (a mutex `in shared` is one per block: it keeps out only its own block)
    E0719  a @warp or @block mutex, rwlock or semaphore array indexed by a value that differs
           within the party: the leader takes its own element for everyone
    E0722  an MCS mutex held twice at once by one thread (mcs2: three times): each holding
           needs a queue node of its own, and the thread has one (two)

Indices are evaluated thread by thread over the launch (analysis/space.py); one that comes from data
each thread loads may differ, or collide, and is reported so.
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ..context import PassContext
from ..impls.registry import implementation
from ..analysis.facts import Facts
from .held import LOCKABLE, held

CODES = ("E0709", "E0719", "E0722")      # what it reports (tests/ir/test_hazard_checks.py)


def check_lock_scope(facts: Facts, ctx: PassContext) -> None:
    _party_index(facts, ctx)
    if not any(p.kind in LOCKABLE for p in facts.k.prims):
        return
    before, _ = held(facts)
    _queue_nodes(facts, before, ctx)
    _narrow_scope(facts, before, ctx)


def _start(ins) -> int:
    return ins.span.start if ins.span else 0


# ---- E0722 -------------------------------------------------------------------------------------

def _queue_nodes(facts: Facts, before, ctx: PassContext) -> None:
    """An MCS lock queues each waiter on a node of its own; mcs has one per thread, mcs2 two. A
    thread that takes an element while holding as many elements of the same array as it has
    nodes would queue the new one on a node still in use."""
    told = set()
    for _, _, ins in facts.k.instructions():
        if ins.op != "mutex.lock":
            continue
        prim = facts.k.prim(ins.ref.name)
        nodes = implementation(prim).nodes_per_thread
        if nodes is None:
            continue
        holding = {h.value: h for h in before.get(id(ins), frozenset()) if h.prim == prim.name}
        if len(holding) < nodes or ins.span in told:
            continue
        told.add(ins.span)
        first = min(holding.values(), key=lambda h: _start(h.site))
        ctx.sink.error("E0722", f"`{prim.name}` is an `{prim.impl}` lock, with {nodes} queue node"
                       f"{'s' if nodes > 1 else ''} per thread, and this thread already holds "
                       f"{len(holding)} of its elements: it would queue here on a node still in use, and the "
                       "holder and the waiter would both wait on that node", ins.span,
                       notes=[Note(f"an element of `{prim.name}` this thread holds is taken here", first.site.span)],
                       help="use `mcs2` (two nodes per thread, for two nested elements) or another implementation "
                            "(`ticket`, `ttas`)" if nodes == 1 else
                            "nest at most two elements, or use another implementation (`ticket`, `ttas`)")


# ---- E0719 -------------------------------------------------------------------------------------

_PARTY = {"warp": ("gwarp", "warp", "lanes of a warp", "warp"), "block": ("block", "block", "threads of a block", "bid")}


def _party_index(facts: Facts, ctx: PassContext) -> None:
    """A @warp (@block) mutex, rwlock or semaphore is taken by one leader for the whole party: the
    element it takes is the leader's. An index that differs within the party makes the other
    threads work under an element they do not hold (updates are lost)."""
    from ..analysis.uniformity import BLOCK, WARP
    k, told = facts.k, set()
    for b, _, ins in k.instructions():
        if ins.judged_as not in ("mutex.lock", "mutex.trylock", "rw.lock", "sem.wait", "sem.trywait", "sem.tryfor") \
                or ins.span in told or b.label not in facts.cfg.reachable:
            continue
        prim = k.prim(ins.ref.name)
        if prim is None or prim.granularity not in _PARTY or prim.instances == 1:
            continue
        column, unit, who, uniform_name = _PARTY[prim.granularity]
        level = facts.uni.level(ins.ref.index)
        if level <= (WARP if prim.granularity == "warp" else BLOCK):
            continue
        differs = _differs_within(facts, b.label, ins.ref.index, column)
        if differs is False:
            continue
        told.add(ins.span)
        example = (f"is not the same for all of them ({differs})" if isinstance(differs, str) else
                   "may differ between them (it comes from data each thread loads)")
        ctx.sink.error("E0719", f"`{prim.name}` is @{prim.granularity}: one leader takes an element for all the "
                       f"{who}, but this index {example}; the others would work under an element they do "
                       "not hold", ins.span,
                       notes=[Note(f"`{prim.name}` is declared @{prim.granularity} here", prim.span)],
                       help=f"index it by something the whole {unit} agrees on (`{uniform_name}`, or a value "
                            f"read after a barrier), or declare it @thread so each thread takes its own element")


def _differs_within(facts: Facts, label: str, index, column: str):
    """False when the index is the same throughout each party; a description of two members that
    differ; True when it may differ (unknown)."""
    col = facts.value(index, label)
    inst = facts.instances(label)
    if col is None or inst is None or col[1]:
        return True
    first: dict[int, tuple[int, int]] = {}
    parties = facts.threads.columns[column]
    for row, v in zip(inst.thread, col[0]):
        p = parties[row]
        seen = first.setdefault(p, (row, v))
        if seen[1] != v:
            t = facts.threads
            return f"{t.describe(seen[0])} has {seen[1]}, {t.describe(row)} has {v}"
    return False


# ---- E0709 (shared mutexes) -----------------------------------------------------------------------

def _narrow_scope(facts: Facts, before, ctx: PassContext) -> None:
    """A shared mutex is one per block: it keeps out only its own block's threads. Data in global
    memory that threads of two blocks may touch at the same index under it is not protected."""
    k = facts.k
    if facts.shape.blocks == 1:
        return
    told = set()
    for b, _, ins in k.instructions():
        if ins.op not in ("st",) and ins.info.group != "atomic":
            continue
        array = k.array(ins.ref.name)
        if array is None or array.space != "global":
            continue
        for h in before.get(id(ins), frozenset()):
            prim = k.prim(h.prim)
            if prim.placement != "shared" or (h.prim, ins.ref.name) in told:
                continue
            clash = _blocks_share(facts, b.label, ins)
            if clash is False:
                continue
            told.add((h.prim, ins.ref.name))
            why = (f" ({clash})" if isinstance(clash, str) else
                   " (the index depends on data, so nothing keeps two blocks apart)")
            ctx.sink.error("E0709", f"`{h.prim}` is in shared memory, so every block has its own: it does not keep "
                           f"the other blocks from writing `{ins.ref.name}` here at the same time{why}", ins.span,
                           notes=[Note(f"`{h.prim}` is declared here", prim.span),
                                  Note("and held from here", h.site.span)],
                           help=f"declare `{h.prim}` `in global`, or index `{ins.ref.name}` so that each block has "
                                "elements of its own (`bid * n + ...`)")


def _blocks_share(facts: Facts, label: str, ins):
    """Can threads of two different blocks reach this access of an array at the same element?
    False when not; a description of two that do; True when unknown. The subscripts of a
    multi-dimensional array are told apart (`x[bid][a]` keeps blocks apart whatever `a` is,
    a subscript being within its dimension)."""
    inst = facts.instances(label)
    if inst is None:
        return True
    array = facts.k.array(ins.ref.name)
    cols = [facts.value(s, label) for s in subscripts(facts, ins.ref.index, array.dims if array else (1,))]
    known = [c[0] for c in cols if c is not None and not c[1]]
    if not known:
        return True
    exact = len(known) == len(cols)
    blocks = facts.threads.columns["block"]
    owner: dict[tuple, int] = {}
    for n, row in enumerate(inst.thread):
        key = tuple(c[n] for c in known)
        other = owner.setdefault(key, row)
        if blocks[other] != blocks[row]:
            t = facts.threads
            if not exact:
                return (f"{t.describe(other)} and {t.describe(row)} index the same row "
                        f"({', '.join(map(str, key))}), and the rest of the index depends on data")
            return f"{t.describe(other)} and {t.describe(row)} both write element {key[-1] if len(key) == 1 else key}"
    return False


def subscripts(facts: Facts, index, dims: tuple) -> list:
    """The subscripts a row-major linear index was made of (lower/expr.py's `linear`: ((s0·d1 + s1)·d2
    + s2)...), as operands; the index itself when it was not made so."""
    if len(dims) <= 1:
        return [index]
    d = facts.def_of(index)
    if d is not None and d.op == "add":
        head = facts.def_of(d.args[0])
        if head is not None and head.op == "mul" and getattr(head.args[1], "value", None) == dims[-1]:
            return subscripts(facts, head.args[0], dims[:-1]) + [d.args[1]]
    return [index]
