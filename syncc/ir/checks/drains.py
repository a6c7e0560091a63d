"""A queue that `for v in q` loops drain, taken from by a `get` as well.

    E0728  a `get` (or a loop retrying `tryget` until it succeeds) on a queue instance that
           `for v in q` loops also take from, in the same launch

A `for` loop takes whatever value comes next, as often as there is one, and ends when the
queue is closed and drained (docs/language.md, "Queues"). So the loops may take every value
put, and end; a `get` that comes to the queue after that finds it empty and closed for good,
and waits forever (a retried `tryget` retries forever). Whether the `get` takes its value
first is a matter of timing: its ticket would have to be taken before every loop's first, an
order the analyses do not show. So counting cannot save it, as it saves a `get` beside other
`get`s (counts.py: the gets against the puts): the loops take an unknown number of values, and
any `get` of the same instance is refused. A single `tryget` not retried is no wait (it fails,
and the thread goes on), and a `get` of another queue, or of another instance of an array of
queues, or in another launch (each launch allocates its own queues), meets no loop.

The loops are their ends' waits on the close latch (`latch.wait @q.closed[i] queue=for`, which
every `for` loop over a queue has, a work pool's and a party's too: impls/queue/), the gets the
waits on `q.items` that stand for a `get` (waitfor.py), and the retried attempts retries.py
finds. Instances are compared per instance key (the index, and the block for a shared queue),
over the threads that can run each operation in the launch's shape; an index that depends on
data, or a launch with more blocks than the analyses enumerate, is taken as any instance.
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ..context import PassContext
from ..analysis.facts import Facts, reported_waits
from .retries import retries
from .waitfor import _statement, retry_what, wait_what

CODES = ("E0728",)      # what it reports (tests/ir/test_hazard_checks.py)

ANY = None              # an instance set that may hold any instance (an index from data)
UNKNOWN = "?"           # they meet at an instance not known here


def check_drained_gets(facts: Facts, ctx: PassContext) -> None:
    k, reported = facts.k, reported_waits(facts)
    loops: dict[str, list] = {}          # queue → the `for` loops' ends
    takes: dict[str, list] = {}          # queue → (label, instruction, how a message names it)
    for b, _, ins in k.instructions():
        if b.label not in facts.cfg.reachable:
            continue
        if ins.op == "latch.wait" and ins.attr("queue") == "for":
            loops.setdefault(_queue(ins.ref.name), []).append((b.label, ins))
        elif ins.judged_as == "sem.wait" and ins.ref.name.endswith(".items") and _statement(ins) == "get":
            takes.setdefault(_queue(ins.ref.name), []).append((b.label, ins, wait_what(ins)))
    for r in retries(facts):
        a = r.attempt
        if a.judged_as == "sem.trywait" and a.ref.name.endswith(".items") and _statement(a) == "tryget":
            takes.setdefault(_queue(a.ref.name), []).append((r.label, a, retry_what(a)))
    for queue, sites in takes.items():
        ends = loops.get(queue)
        if not ends:
            continue
        drained = [(label, end, _instances(facts, label, end)) for label, end in ends]
        for label, take, what in sites:
            if id(take) in reported:
                continue
            mine = _instances(facts, label, take)
            met = next(((end, shared) for _, end, theirs in drained if (shared := _meet(mine, theirs)) is not None), None)
            if met is None:
                continue
            end, shared = met
            reported.add(id(take))
            prim = k.prim(take.ref.name)
            where = "" if shared is UNKNOWN or _one(facts, prim) else f" ({_name(facts, prim, queue, shared)})"
            ctx.sink.error(
                "E0728", f"{what} can wait forever: `for` loops also take from this queue{where}, and they may take "
                "every value put into it and end once it is closed, before this take has its value; then the "
                "queue is empty and closed for good",
                take.span, notes=[Note(f"a `for` loop over `{queue}`", end.span),
                                  Note(f"`{queue}` is declared here", prim.span)],
                help=f"take the value with a `for` loop too, which ends when the queue is closed and drained "
                     f"(`for v in {queue}{'' if prim.instances == 1 else '[i]'} {{ ...; break }}` takes at most one), "
                     "or give this side a queue of its own")


def _queue(part: str) -> str:
    """`q` for its part `q.items` or `q.closed`."""
    return part.rsplit(".", 1)[0]


def _instances(facts: Facts, label: str, ins) -> set | None:
    """The instance keys of the queue `ins` can reach over the launch (ANY where its index, or who
    runs it, is not known)."""
    inst = facts.instances(label)
    if inst is None or not facts.threads.every_block:
        return ANY                 # (past the blocks the analyses enumerate, any instance may be reached)
    col = facts.value(ins.ref.index, label)
    if col is None or col[1]:
        return ANY if inst.thread else set()
    global_ = facts.k.prim(ins.ref.name).placement == "global"
    blocks = facts.threads.columns["block"]
    return {v if global_ else (blocks[row], v) for v, row in zip(col[0], inst.thread)}


def _meet(a: set | None, b: set | None):
    """An instance both can reach (UNKNOWN where one of them may reach any), or None where they share none."""
    if a is not None and not a or b is not None and not b:
        return None
    if a is ANY or b is ANY:
        return UNKNOWN
    common = a & b
    return min(common, key=str) if common else None


def _one(facts: Facts, prim) -> bool:
    """Is there one instance of the queue in the launch (so that a message need not name it)?"""
    return prim.instances == 1 and (prim.placement == "global" or facts.shape.blocks == 1)


def _name(facts: Facts, prim, queue: str, key) -> str:
    """`q[1]` of block 0, for the message."""
    if isinstance(key, tuple):
        block, index = key
        one = f"`{queue}`" if prim.instances == 1 else f"`{queue}[{index}]`"
        return one if facts.shape.blocks == 1 else f"{one} of block {block}"
    return f"`{queue}`" if prim.instances == 1 else f"`{queue}[{key}]`"
