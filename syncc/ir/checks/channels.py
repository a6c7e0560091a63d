"""Checks on channel slots: every slot waited for has a producer, and no slot has two.

    E0705  a `get`, `await` or `when` on a slot that nothing puts or signals
    E0706  a slot put (or signalled) by two threads, or twice by one

Slots are compared thread by thread over one block (facts.py): each put site's
index is evaluated for the threads that can reach it, and each wait's index for
the threads that can wait. A site is judged only where its index is known and
the conditions guarding it can be evaluated; elsewhere the check stays silent
rather than guess. A global channel is one instance for the whole grid, so a
slot put by every block (its index not depending on `bid`) has many producers.
"""
from __future__ import annotations

from ...diagnostics import Note
from ..context import PassContext
from ..nodes import Instr, Prim
from .facts import Facts

_PRODUCE = ("chan.put", "chan.signal")
_WAIT = ("chan.get", "chan.await")


def check_channels(facts: Facts, ctx: PassContext) -> None:
    k = facts.k
    sites: dict[str, dict[str, list[tuple[str, Instr]]]] = {}
    for b, _, ins in k.instructions():
        if ins.info.group == "prim" and ins.ref is not None and b.label in facts.cfg.reachable:
            role = "put" if ins.op in _PRODUCE else "wait" if ins.op in _WAIT else None
            if role:
                sites.setdefault(ins.ref.name, {"put": [], "wait": []})[role].append((b.label, ins))
    for name, found in sites.items():
        prim = k.prim(name)
        if prim is None or prim.kind != "channel":
            continue
        if found["wait"] and not found["put"]:
            label, wait = found["wait"][0]
            ctx.sink.error("E0705", f"nothing in this kernel puts or signals `{name}`, so this wait never ends",
                           wait.span, notes=[Note(f"`{name}` is declared here", prim.span)],
                           help=f"put the slot (`put {name}[i] = v`) or signal it (`signal {name}[i]`) in the "
                                "thread that produces it")
            continue
        produced = _producers(facts, prim, found["put"], ctx)
        if produced is not None:
            _unproduced(facts, prim, found["wait"], produced, ctx)


def _across_blocks(facts: Facts, prim: Prim) -> bool:
    grid = facts.k.grid
    return prim.placement == "global" and (grid is None or grid[0] * grid[1] * grid[2] > 1)


def _producers(facts: Facts, prim: Prim, puts, ctx: PassContext) -> dict | None:
    """(slot value, symbolic part) → the first (thread, site) putting it; None where unknown.
    Reports slots with two producers on the way."""
    produced: dict[tuple, tuple[int, str, Instr]] = {}
    known = True
    reported = False
    for label, put in puts:
        column = facts.column(put.ref.index)
        if column is None:
            known = False
            continue
        values, symbolic = column
        exact = facts.runs_exactly(label)
        if exact and _across_blocks(facts, prim) and not any(v.startswith("ctaid") for v, _ in symbolic) \
                and not reported:
            reported = True
            ctx.sink.error("E0706", f"every block puts the same slots of `{prim.name}`: it is in global memory, "
                           "one instance for the whole grid, so each slot gets a producer per block", put.span,
                           help="index the slot by block (`gtid`, or `bid * n + ...`), or put it from one block")
        runs = facts.runs(label)
        for t, (value, go) in enumerate(zip(values, runs)):
            if not go:
                continue
            key = (value, symbolic)
            first = produced.get(key)
            if first is None:
                produced[key] = (t, label, put)
                continue
            if reported or not exact:
                continue
            u, other_label, other = first
            twice = u == t and other is not put and (facts.reaches(facts.where[id(other)], facts.where[id(put)]))
            if u != t or twice:
                reported = True
                slot = _slot(prim, value, symbolic)
                who = f"thread {t}, twice" if twice else f"threads {u} and {t}"
                ctx.sink.error("E0706", f"slot `{slot}` has two producers ({who}): a channel slot is filled "
                               "once per launch, by one thread", put.span,
                               notes=[Note("the other put", other.span)] if other is not put else (),
                               help="give each thread its own slot (index by `tid`), or put from one thread "
                                    "(`if tid == 0 { put ... }`)")
    return produced if known else None


def _unproduced(facts: Facts, prim: Prim, waits, produced: dict, ctx: PassContext) -> None:
    for label, wait in waits:
        column = facts.column(wait.ref.index)
        if column is None or not facts.runs_exactly(label):
            continue
        values, symbolic = column
        others = {sym for _, sym in produced}
        if _across_blocks(facts, prim) and (symbolic or any(others)) or others - {symbolic}:
            continue        # producers in other blocks, or at parameter-dependent slots: cannot tell
        for t, (value, go) in enumerate(zip(values, facts.runs(label))):
            if go and (value, symbolic) not in produced:
                outside = not 0 <= value < prim.instances
                slot = _slot(prim, value, symbolic)
                what = f"`{slot}`, outside `{prim.name}`" if outside else f"`{slot}`, which nothing puts or signals"
                ctx.sink.error("E0705", f"thread {t} waits for {what}: the wait never ends", wait.span,
                               notes=[Note(f"`{prim.name}` is declared here", prim.span)],
                               help="wait only for slots some thread puts, or put this one")
                break


def _slot(prim: Prim, value: int, symbolic) -> str:
    if symbolic or not 0 <= value < prim.instances:
        return f"{prim.name}[{value}{' + ...' if symbolic else ''}]"
    idx, rest = [], value
    for d in reversed(prim.dims):
        idx.append(rest % d)
        rest //= d
    return prim.name + "".join(f"[{i}]" for i in reversed(idx))
