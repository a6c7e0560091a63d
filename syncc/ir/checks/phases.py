"""A grid barrier's split phase: every `arrive` has its `wait`.

    E0723  a grid barrier's `arrive` and `wait` that do not alternate on every path: a `wait`
           that some path reaches with no `arrive` before it, an `arrive` (or a `sync`) that
           some path reaches while a phase it began is still open, a kernel that can end with
           a phase open, or an `arrive`/`wait` on an element of a barrier array chosen at run time

`arrive b` counts the thread's block in for the barrier's next round and goes on; `wait b`
waits for that round to end. A block that arrived twice without waiting would count itself in
for a round the others have not reached (the barrier would let blocks through early); a wait
with no arrival waits for a round the block never joined (forever); a block that ends with a
phase open leaves nothing broken but a `wait` it meant to have. So on every path each element
of a grid barrier goes closed → `arrive` → open → `wait` → closed, `sync` only while closed, and
the kernel ends closed. The state is tracked per element, so the element must be a constant.

Every thread of the grid takes part in every operation of a grid barrier (barriers.py proves it
with E0704, before this check runs), so the state is the same for every thread and one dataflow
over the CFG decides it.
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ..context import PassContext
from ..nodes import Imm, Instr
from ..analysis.facts import Facts

CODES = ("E0704", "E0723")      # what it reports (tests/ir/test_hazard_checks.py)

CLOSED = "closed"      # with the `arrive`s that may have opened a phase: what a state holds per element
_OPS = ("prim.arrive", "prim.wait", "prim.sync")


def check_phases(facts: Facts, ctx: PassContext) -> None:
    k = facts.k
    split = {p.name for p in k.prims if p.kind == "barrier" and p.granularity == "grid"}
    sites = [ins for b, _, ins in k.instructions()
             if ins.op in ("prim.arrive", "prim.wait") and ins.ref.name in split and b.label in facts.cfg.reachable]
    # a barrier whose `arrive` or `wait` runs under divergence was reported (E0704, barriers.py,
    # which runs first): its phases differ between threads, and pairing them would only repeat that
    divergent = {d.span for d in ctx.sink.items if d.code == "E0704"}
    names = {ins.ref.name for ins in sites} - {ins.ref.name for ins in sites if ins.span in divergent}
    if not names:
        return
    for ins in sites:
        if ins.ref.name in names and not isinstance(ins.ref.index, Imm):
            ctx.sink.error("E0723", f"`{_verb(ins)} {ins.ref.name}[...]` with an element chosen at run time: the "
                           "compiler pairs each element's `arrive` with its `wait`, so it must know which element",
                           ins.span, help="index the barrier array with a constant here, or declare one barrier")
    cfg = facts.cfg
    for label, state in _flow(facts, names).items():
        state = dict(state)
        for ins in cfg.blocks[label].instrs:
            key = _key(ins, names)
            if key is not None and key[1] is not None:
                _judge(ins, key[0], state.get(key, _CLOSED), ctx)
            _step(state, ins, names)
        if cfg.succs[label]:
            continue
        for key, now in sorted(state.items(), key=lambda x: str(x[0])):
            arrive = _opener(now)
            if arrive is not None and key[1] is not None:
                end = cfg.blocks[label].term.span
                ctx.sink.error("E0723", f"the kernel can end with `{key[0]}`'s phase open: some path from this "
                               "`arrive` reaches the end without its `wait`", arrive.span,
                               notes=[Note("the kernel ends here", end)] if end else (),
                               help=f"`wait {key[0]}` on every path after the `arrive`")


_CLOSED = frozenset([CLOSED])


def _opener(now: frozenset) -> Instr | None:
    """An `arrive` whose phase may still be open (the first in source order), or None."""
    return min((x for x in now if x is not CLOSED), key=lambda i: i.span.start if i.span else 0, default=None)


def _judge(ins: Instr, name: str, now: frozenset, ctx: PassContext) -> None:
    arrive = _opener(now)
    if ins.op == "prim.wait" and CLOSED in now:
        how = "every path" if now == _CLOSED else "some path"
        ctx.sink.error("E0723", f"`wait {name}` that {how} reaches without an `arrive {name}` first: it would wait "
                       "for a round its block never joined", ins.span,
                       help=f"`arrive {name}` before the `wait` on every path (or `sync {name}`, which does both)")
    elif ins.op in ("prim.arrive", "prim.sync") and arrive is not None:
        ctx.sink.error("E0723", f"`{_verb(ins)} {name}` where the phase an earlier `arrive` began may still be "
                       "open: its block would count itself in for a round the other blocks have not reached, and "
                       "they would pass the barrier early", ins.span,
                       notes=[Note("the phase opens here", arrive.span)],
                       help=f"`wait {name}` first, on every path")


def _verb(ins: Instr) -> str:
    return ins.op.split(".")[1]


def _key(ins: Instr, names: set[str]):
    if ins.op not in _OPS or ins.ref is None or ins.ref.name not in names:
        return None
    index = ins.ref.index
    return ins.ref.name, index.value if isinstance(index, Imm) else None


def _step(state: dict, ins: Instr, names: set[str]) -> None:
    """An `arrive` opens its element's phase; a `wait` or a `sync` closes it."""
    key = _key(ins, names)
    if key is not None:
        state[key] = frozenset([ins]) if ins.op == "prim.arrive" else _CLOSED


def _flow(facts: Facts, names: set[str]) -> dict[str, dict]:
    """Forward may-dataflow over the reachable blocks: the states each element may be in on entry
    to each block (a missing element is closed)."""
    cfg = facts.cfg
    into: dict[str, dict] = {cfg.entry: {}}
    todo = [cfg.entry]
    while todo:
        label = todo.pop()
        state = dict(into[label])
        for ins in cfg.blocks[label].instrs:
            _step(state, ins, names)
        for s in cfg.succs[label]:
            old = into.get(s)
            new = state if old is None else \
                {key: state.get(key, _CLOSED) | old.get(key, _CLOSED) for key in state.keys() | old.keys()}
            if new != old:
                into[s] = new
                todo.append(s)
    return into
