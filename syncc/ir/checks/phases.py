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
from .facts import Facts

CLOSED, OPEN = "closed", "open"
_OPS = ("prim.arrive", "prim.wait", "prim.sync")


def check_phases(facts: Facts, ctx: PassContext) -> None:
    k = facts.k
    split = {p.name for p in k.prims if p.kind == "barrier" and p.granularity == "grid"}
    sites = [(b.label, ins) for b, _, ins in k.instructions()
             if ins.op in ("prim.arrive", "prim.wait") and ins.ref.name in split and b.label in facts.cfg.reachable]
    # a barrier whose `arrive` or `wait` runs under divergence was reported (E0704, barriers.py,
    # which runs first): its phases differ between threads, and pairing them would only repeat that
    divergent = {d.span for d in ctx.sink.items if d.code == "E0704"}
    split -= {ins.ref.name for _, ins in sites if ins.span in divergent}
    sites = [(label, ins) for label, ins in sites if ins.ref.name in split]
    if not sites:
        return
    told: set[int] = set()
    for _, ins in sites:
        if not isinstance(ins.ref.index, Imm):
            told.add(id(ins))
            ctx.sink.error("E0723", f"`{_verb(ins)} {ins.ref.name}[...]` with an element chosen at run time: the "
                           "compiler pairs each element's `arrive` with its `wait`, so it must know which element",
                           ins.span, help="index the barrier array with a constant here, or declare one barrier")
    names = {ins.ref.name for _, ins in sites}
    state_in, last_open = _flow(facts, names)
    for label in facts.cfg.labels:
        if label not in facts.cfg.reachable:
            continue
        state = dict(state_in[label])
        for ins in facts.cfg.blocks[label].instrs:
            key = _key(ins, names)
            if key is None:
                continue
            now = state.get(key, frozenset([CLOSED]))
            if id(ins) not in told and key[1] is not None:
                _judge(ins, key, now, last_open, ctx)
            state[key] = frozenset([OPEN if ins.op == "prim.arrive" else CLOSED])
        if not facts.cfg.succs[label]:
            for key, now in sorted(state.items(), key=lambda x: str(x[0])):
                if OPEN in now and key[1] is not None:
                    arrive = last_open.get(key)
                    ctx.sink.error("E0723", f"the kernel can end with `{key[0]}`'s phase open: some path from this "
                                   "`arrive` reaches the end without its `wait`", arrive.span if arrive else None,
                                   notes=[Note("the kernel ends here", facts.cfg.blocks[label].term.span)]
                                   if facts.cfg.blocks[label].term.span else (),
                                   help=f"`wait {key[0]}` on every path after the `arrive`")


def _judge(ins: Instr, key, now: frozenset, last_open: dict, ctx: PassContext) -> None:
    name = key[0]
    arrive = last_open.get(key)
    if ins.op == "prim.wait" and CLOSED in now:
        how = "every path" if now == {CLOSED} else "some path"
        ctx.sink.error("E0723", f"`wait {name}` that {how} reaches without an `arrive {name}` first: it would wait "
                       "for a round its block never joined", ins.span,
                       help=f"`arrive {name}` before the `wait` on every path (or `sync {name}`, which does both)")
    elif ins.op in ("prim.arrive", "prim.sync") and OPEN in now:
        ctx.sink.error("E0723", f"`{_verb(ins)} {name}` where the phase an earlier `arrive` began may still be "
                       "open: its block would count itself in for a round the other blocks have not reached, and "
                       "they would pass the barrier early", ins.span,
                       notes=[Note("the phase opens here", arrive.span)] if arrive is not None else (),
                       help=f"`wait {name}` first, on every path")


def _verb(ins: Instr) -> str:
    return ins.op.split(".")[1]


def _key(ins: Instr, names: set[str]):
    if ins.op not in _OPS or ins.ref is None or ins.ref.name not in names:
        return None
    index = ins.ref.index
    return ins.ref.name, index.value if isinstance(index, Imm) else None


def _flow(facts: Facts, names: set[str]):
    """Forward may-dataflow: for each block, the states each element may be in on entry (a missing
    element is closed), and each element's last `arrive` met (for the notes)."""
    cfg = facts.cfg
    into: dict[str, dict] = {label: {} for label in cfg.labels}
    last_open: dict = {}
    seen_entry = {cfg.entry}
    todo = [cfg.entry]
    while todo:
        label = todo.pop()
        state = dict(into[label])
        for ins in cfg.blocks[label].instrs:
            key = _key(ins, names)
            if key is not None:
                if ins.op == "prim.arrive":
                    last_open.setdefault(key, ins)
                state[key] = frozenset([OPEN if ins.op == "prim.arrive" else CLOSED])
        for s in cfg.succs[label]:
            merged = dict(into[s])
            for key in state.keys() | merged.keys():
                merged[key] = state.get(key, frozenset([CLOSED])) | merged.get(key, frozenset([CLOSED])) \
                    if s in seen_entry else state.get(key, frozenset([CLOSED]))
            if s not in seen_entry or merged != into[s]:
                seen_entry.add(s)
                into[s] = merged
                todo.append(s)
    return into, last_open
