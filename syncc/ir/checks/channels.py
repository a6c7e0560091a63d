"""Checks on channel slots: every slot waited for has a producer, and no slot has two.

    E0705  a `get`, `await` or `when` on a slot that nothing puts or signals
    E0706  a slot put (or signalled) by two threads, or twice by one
    E0718  a `namedbar` channel's group of 32 slots waited for by two warps, twice by one, or by
           the warp that puts it: its named barrier counts 64 threads, one warp on each side

Slots are compared thread by thread over one block (facts.py): each put site's
index is evaluated for the threads that can reach it, and each wait's index for
the threads that can wait. A site is judged only where its index is known and
the conditions guarding it can be evaluated; elsewhere the check stays silent
rather than guess. A global channel is one instance for the whole grid, so a
slot put by every block (its index not depending on `bid`) has many producers.
"""
from __future__ import annotations

from itertools import compress, repeat

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
        if prim.impl == "namedbar":
            _one_consumer_warp(facts, prim, found, ctx)


def _across_blocks(facts: Facts, prim: Prim) -> bool:
    grid = facts.k.grid
    return prim.placement == "global" and (grid is None or grid[0] * grid[1] * grid[2] > 1)


def _producers(facts: Facts, prim: Prim, puts, ctx: PassContext) -> dict | None:
    """symbolic part → slot value → the first (thread, site) putting it; None where a put's slot
    is unknown. Reports a slot with two producers on the way."""
    produced: dict[tuple, dict[int, tuple[int, Instr]]] = {}
    known, reported = True, False
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
        threads = list(compress(range(len(values)), runs))
        slots = list(compress(values, runs))
        here = dict(zip(reversed(slots), zip(reversed(threads), repeat(put))))   # the first thread wins
        before = produced.setdefault(symbolic, {})
        if exact and not reported and (len(here) < len(slots) or not before.keys().isdisjoint(here)):
            reported = _two_producers(facts, prim, put, slots, threads, before, symbolic, ctx)
        produced[symbolic] = {**here, **before}
    return produced if known else None


def _two_producers(facts: Facts, prim: Prim, put: Instr, slots, threads, before, symbolic, ctx) -> bool:
    """Find and report the first slot this put shares with another thread or an earlier put."""
    seen: dict[int, int] = {}
    for value, t in zip(slots, threads):
        other = None
        if value in seen:
            other = (seen[value], put)
        elif value in before:
            u, site = before[value]
            if u != t or facts.reaches(facts.where[id(site)], facts.where[id(put)]):
                other = (u, site)
        seen.setdefault(value, t)
        if other is None:
            continue
        u, site = other
        who = f"thread {t}, twice" if u == t else f"threads {u} and {t}"
        ctx.sink.error("E0706", f"slot `{_slot(prim, value, symbolic)}` has two producers ({who}): a channel "
                       "slot is filled once per launch, by one thread", put.span,
                       notes=[Note("the other put", site.span)] if site is not put else (),
                       help="give each thread its own slot (index by `tid`), or put from one thread "
                            "(`if tid == 0 { put ... }`)")
        return True
    return False


def _unproduced(facts: Facts, prim: Prim, waits, produced: dict, ctx: PassContext) -> None:
    for label, wait in waits:
        column = facts.column(wait.ref.index)
        if column is None or not facts.runs_exactly(label):
            continue
        values, symbolic = column
        others = set(produced)
        if _across_blocks(facts, prim) and (symbolic or any(others)) or others - {symbolic}:
            continue        # producers in other blocks, or at parameter-dependent slots: cannot tell
        have = produced.get(symbolic, {})
        runs = facts.runs(label)
        missing = set(compress(values, runs)).difference(have)
        if not missing:
            continue
        t, value = next((t, v) for t, (v, go) in enumerate(zip(values, runs)) if go and v in missing)
        outside = not 0 <= value < prim.instances
        slot = _slot(prim, value, symbolic)
        what = f"`{slot}`, outside `{prim.name}`" if outside else f"`{slot}`, which nothing puts or signals"
        ctx.sink.error("E0705", f"thread {t} waits for {what}: the wait never ends", wait.span,
                       notes=[Note(f"`{prim.name}` is declared here", prim.span)],
                       help="wait only for slots some thread puts, or put this one")


def _one_consumer_warp(facts: Facts, prim: Prim, found, ctx: PassContext) -> None:
    """A `namedbar` group is published by its producer warp's bar.arrive and taken by a bar.sync
    of 64 threads: exactly one other warp may wait for it, once. Judged where slots are known."""
    def groups(label, ins):
        column = facts.column(ins.ref.index)
        if column is None or not facts.runs_exactly(label):
            return []
        values, symbolic = column
        return [(t // 32, (symbolic, v // 32)) for t, (v, go) in enumerate(zip(values, facts.runs(label))) if go]

    producer = {}
    for label, put in found["put"]:
        for w, group in groups(label, put):
            producer.setdefault(group, w)
    consumer: dict = {}
    for label, wait in found["wait"]:
        for w, group in groups(label, wait):
            first = consumer.setdefault(group, (w, wait))
            slot = _slot(prim, group[1] * 32, group[0])
            if producer.get(group) == w:
                why = f"warp {w} waits for the group of `{slot}` that it puts itself"
            elif first[0] != w:
                why = f"warps {first[0]} and {w} both wait for the group of `{slot}`"
            elif first[1] is not wait:
                why = f"warp {w} waits twice for the group of `{slot}`"
            else:
                continue
            ctx.sink.error("E0718", f"{why}: a `namedbar` channel's named barrier counts 64 threads, the "
                           "producer warp's arrival and one consumer warp's", wait.span,
                           notes=[Note("the other wait", first[1].span)] if first[1] is not wait else (),
                           help="let one other warp read each group (a warp reads its own slots with a plain "
                                "read), or use `using flag` or `using tinylock`, which any number of warps may read")
            return


def _slot(prim: Prim, value: int, symbolic) -> str:
    if symbolic or not 0 <= value < prim.instances:
        return f"{prim.name}[{value}{' + ...' if symbolic else ''}]"
    idx, rest = [], value
    for d in reversed(prim.dims):
        idx.append(rest % d)
        rest //= d
    return prim.name + "".join(f"[{i}]" for i in reversed(idx))
