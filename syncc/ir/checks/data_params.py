"""Scalar parameters whose value no check can see: they only ever reach memory as data.

    positions = data_only_params(kernel)     # positions in kernel.params

The checks read a launch's constant arguments only through the values they evaluate (analysis/space.py):
indices of references, branch conditions, loop bounds, and the operands those are computed from.
A parameter whose value flows, through arithmetic, only into the value a `st` stores or a
`chan.put` puts is none of those, so two launches that differ only in such arguments (the same
grid and block) get the same findings, and the hazard checks need to run for one of them only.
A parameter that sizes an array (`global f32[n]`) is never one: the bounds check reads it.
"""
from __future__ import annotations

from ..nodes import Branch, Kernel, Reg, read_regs

_DATA_SINKS = {"st": 1, "chan.put": 1}         # op → the operand that is the value written (a record
                                               # channel's put: the first of its fields, ops.OpInfo.fields)


def data_only_params(k: Kernel) -> frozenset[int]:
    scalars = {p.name: n for n, p in enumerate(k.params) if isinstance(p, Reg)}
    if not scalars:
        return frozenset()
    instrs = [ins for b in k.blocks for ins in b.instrs]
    # which registers carry a parameter's value: name → the parameter positions it may carry
    carries: dict[str, set[int]] = {name: {n} for name, n in scalars.items()}
    changed = True
    while changed:                   # registers are not SSA: to a fixed point
        changed = False
        for ins in instrs:
            got = set().union(*(carries.get(r.name, ()) for r in ins.reads))
            for d in ins.dests:
                have = carries.setdefault(d.name, set())
                if not got <= have:
                    have |= got
                    changed = True
    # parameters some check may evaluate: the sizes of arrays, and what reaches the checks' values
    seen: set[int] = {scalars[d] for a in k.params if not isinstance(a, Reg) for d in a.dims if d in scalars}
    for ins in instrs:
        sink = _DATA_SINKS.get(ins.op)
        arith = ins.info.group == "arith"
        for position, a in enumerate(ins.args):
            written = sink is not None and (position == sink or position > sink and ins.info.fields)
            if arith or written and isinstance(a, Reg):
                continue             # (arithmetic: its result carries the value on, and is judged where used)
            for r in read_regs((a,)):
                seen |= carries.get(r.name, set())
    for b in k.blocks:
        if isinstance(b.term, Branch) and isinstance(b.term.cond, Reg):
            seen |= carries.get(b.term.cond.name, set())
    return frozenset(n for n in scalars.values() if n not in seen)
