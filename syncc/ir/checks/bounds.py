"""Indices outside their array or primitive, for a launch that is checked.

    E0726  an element of an array, or an instance of a primitive, indexed past its end (or below
           0) by a thread that runs the operation in this launch

The index of every access (`a[i]`, `atomic_add(h[k], 1)`, `critical locks[tid]`, `put c[i]`)
is evaluated for each thread and loop round that runs it (analysis/space.py): thread and block indices
bounded by the launch's shape, constants, the launch's constant arguments, `let`s and loop
counters. Where an instance that certainly runs (no condition on data decides it) has an index
outside the declared size, that thread would read or write the memory beside the array, or a
lock word that is not its lock: it is reported. Indices are the element's position in the
array, row-major (`a[i][j]` is `i * cols + j`), so a subscript past its own dimension that still
lands inside the array is not reported here; the front end checks constant subscripts one by one
(E0304). An index the analysis cannot evaluate (it depends on data, or on a condition on data)
is left to the run-time bounds check, which stops the kernel with a located error. One array is
reported once per statement (a range put, `put q = src[lo .. hi]`, reads its range's two ends and
then each value, all at its statement).
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ..context import PassContext
from ..nodes import Reg
from ..analysis.facts import Facts, reported_waits

CODES = ("E0726",)      # what it reports (tests/ir/test_hazard_checks.py)


def check_bounds(facts: Facts, ctx: PassContext) -> None:
    k = facts.k
    reported = set()            # (name, index): `critical m[i]`'s lock and unlock are one report
    statements = set()          # (name, span): one report per array and statement (a range put reads
                                # its range's ends, then each value, from one statement)
    for b, _, ins in k.instructions():
        ref = ins.ref
        if ref is None or not isinstance(ref.index, Reg) or b.label not in facts.cfg.reachable:
            continue
        if (ref.name, facts.value_key(ref.index)) in reported or (ref.name, ins.span) in statements:
            continue
        target = _target(facts, ref.name)
        if target is None:
            continue
        length, what, span = target
        if facts.space.unknowable(ref.index):
            continue            # from data whatever the launch: the run-time check's
        # where every block runs the access alike, the first block's threads answer for all
        space = facts.first_block_space if facts.space.same_in_every_block(ref.index, b.label) else facts.space
        inst = space.of(b.label)
        if inst is None or not inst.exact:
            continue            # who runs it depends on data: the run-time check's
        col = space.value(ref.index, b.label)
        if col is None or col[1]:
            continue
        values = col[0]
        if not values or 0 <= min(values) and max(values) < length:
            continue
        n = next(n for n, v in enumerate(values) if not 0 <= v < length)
        bad = values[n]
        reported.add((ref.name, facts.value_key(ref.index)))
        statements.add((ref.name, ins.span))
        reported_waits(facts).add(id(ins))     # (a wait on it is not reported again as never ending)
        side = "below its first element" if bad < 0 else f"past its last ({length} element{'s' if length != 1 else ''})"
        ctx.sink.error("E0726", f"{space.threads.describe(inst.thread[n])} {rounds_shown(facts, inst, n)}uses element "
                       f"{bad} of {what} `{ref.name}`, {side}: it would touch the memory beside it", ins.span,
                       notes=[Note(f"`{ref.name}` is declared here", span)] if span is not None else (),
                       help=f"keep the index within 0 .. {length - 1} for every thread the launch runs (a guard "
                            f"`if i < {length}`, or `% {length}`), or declare `{ref.name}` larger")


def _target(facts: Facts, name: str):
    """(length, what it is, declaration) of what `name` names, for the program's own arrays and
    primitives; None for the compiler's own state (a queue's parts are judged as their queue)."""
    array = facts.k.array(name)
    if array is not None:
        if array.kind == "state":
            return None
        length = array.length_with(facts.space.args) if array.sized else array.length
        if length is None:
            return None          # a size the launch gives, not known for this shape: checked at run time
        return length, "the shared array" if array.space == "shared" else "the array", array.span
    prim = facts.k.prim(name)
    if prim is None:
        return None
    if "." in name:                  # a queue's part, as many as the queue's instances
        return prim.instances, "the queue array", prim.span
    return prim.instances, f"the {prim.kind} array", prim.span


def rounds_shown(facts: Facts, inst, n: int) -> str:
    """`in round i = 3 ` of the counted loops around, where there are any."""
    if not inst.iters:
        return ""
    names = {c.var: _source_name(c.var) for c in facts.space.counted.values()}
    shown = ", ".join(f"{names.get(var, var)} = {values[n]}" for var, values in inst.iters.items())
    return f"(with {shown}) "


def _source_name(register: str) -> str:
    """A register's source name: `i` for `%i` and `%i.2`."""
    return register.split(".", 1)[0]
