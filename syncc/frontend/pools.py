"""Work pools (docs/language.md, "Work pools"): a `for v in q` loop whose body puts into the same
queue. Such a put is an *inner put*: the item the worker holds keeps the queue open, so it needs no
`close`, and the loops over the queue end when it is closed by its writers (the puts made outside
the loops: the seeds), empty, and no worker is inside a body.

    pools = find_pools(body, refs)     # ForEach node → its inner Put nodes, for every pool loop

The checker (check_prims.py) judges the pool loops it finds (E0423, E0424); lowering
(ir/lower/sync.py) counts the items of a pool's queue that are put and not yet done.
"""
from __future__ import annotations

import dataclasses

from . import ast as A


def walk(node):
    """Every syntax node under `node` (itself first), in source order."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        if not dataclasses.is_dataclass(n):
            continue
        kids = []
        for f in dataclasses.fields(n):
            v = getattr(n, f.name)
            for item in (v if isinstance(v, tuple) else (v,)):
                if dataclasses.is_dataclass(item) and not isinstance(item, (A.Ident,)):
                    kids.append(item)
        todo.extend(reversed(kids))


def _decl(refs: dict, place):
    sym = refs.get(place)
    return sym.decl if sym is not None else None


def inner_puts(loop: A.ForEach, refs: dict) -> list[A.Put]:
    """The `put`s into the loop's own queue made inside its body (at any depth of statements,
    not in the functions it calls): the loop's inner puts."""
    if not isinstance(loop.source, A.Place):
        return []
    decl = _decl(refs, loop.source)
    if decl is None:
        return []
    return [n for n in walk(loop.body) if isinstance(n, A.Put) and _decl(refs, n.target) is decl]


def find_pools(body, refs: dict) -> dict:
    """ForEach node → its inner puts, for each `for v in q` loop under `body` that has any."""
    out = {}
    for n in walk(body):
        if isinstance(n, A.ForEach):
            puts = inner_puts(n, refs)
            if puts:
                out[n] = puts
    return out


def pool_queues(pools: dict, refs: dict) -> set:
    """The declarations of the queues that pool loops take from."""
    return {_decl(refs, loop.source) for loop in pools}


# What a pool's body may not do: wait for another thread (the loops' end waits for every body,
# which the analyses do not see), or leave without finishing its item.
_WAITING_STMTS = {A.Acquire: "an `acquire` block", A.When: "a `when` block", A.BarrierStmt: "a `barrier`",
                  A.ForEach: "a `for` loop over a queue", A.Return: "a `return`"}
_WAITING_OPS = {"wait": "a `wait`", "await": "an `await`", "sync": "a `sync`", "arrive": "an `arrive`",
                "lock": "a `lock`"}


_TRIES = (A.TryPut, A.TryGet, A.TryLock, A.TryWait)


def _is_queue(refs: dict, place) -> bool:
    sym = refs.get(place)
    return sym is not None and getattr(getattr(sym, "info", None), "kind", None) == "queue"


def waits_in_body(loop: A.ForEach, inner: list, refs: dict):
    """The first statement or expression in the pool loop's body that can wait for another thread
    or leave the loop's kernel (a `return`), with what it is; None where there is none. A
    `critical` or `read`/`write` section is allowed (a lock is held for a bounded time), and so
    are the loop's inner puts (which never wait) and single attempts (`tryput`, `tryget`), but
    not a `while` loop that retries one (the analyses judge it as the wait it stands for)."""
    for n in walk(loop.body):
        what = _WAITING_STMTS.get(type(n))
        if what is None and isinstance(n, A.PrimOp):
            what = _WAITING_OPS.get(n.op)
        if what is None and isinstance(n, A.While) and any(isinstance(m, _TRIES) for m in walk(n.body)):
            what = "a `while` loop around a single attempt (a wait written by hand)"
        if what is None and isinstance(n, A.Get):
            what = "a `get`"
        if what is None and isinstance(n, A.Put) and not any(n is p for p in inner) and _is_queue(refs, n.target):
            what = "a `put` into another queue (it can wait for room)"
        if what is not None:
            return n, what
    return None
