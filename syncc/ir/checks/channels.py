"""Checks on channel slots: every slot waited for has a producer, and no slot has two.

    E0705  a `get`, `await` or `when` on a slot that nothing puts or signals
    E0706  a slot put (or signalled) by two threads, or twice by one (in a loop, say)
    E0718  a `namedbar` channel's group of 32 slots waited for by two warps, twice by one, or by
           the warp that puts it: its named barrier counts 64 threads, one warp on each side

Slots are compared instance by instance over the launch (analysis/space.py): each put's slot is
evaluated for every thread and loop round that runs it, and each wait's for every one that
waits. A shared channel exists once per block, so its slots are told apart by block; a global
channel is one instance for the whole grid. A site is judged only where its slot is known; a
claim that a slot has two producers also needs the put's instances to be exact (no condition
on data decides who puts), and a claim that nothing puts a slot needs every put's slot known.
Where the slots cannot be listed (too many instances, or an index from data), the value ranges
(analysis/ranges.py) still bound them, block by block for a shared channel: a wait whose slots lie apart
from everything a put can fill is reported (E0705).
"""
from __future__ import annotations

from itertools import repeat
from operator import add, lshift

from ...core.diagnostics import Note
from ..context import PassContext
from ..impls.registry import implementation
from ..nodes import Instr, Prim
from ..analysis.facts import Facts, reported_waits
from ..analysis.space import gather

CODES = ("E0705", "E0706", "E0718")      # what it reports (tests/ir/test_hazard_checks.py)

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
        else:
            _unproduced_by_ranges(facts, prim, found, ctx)
        if implementation(prim).one_consumer_warp:
            _one_consumer_warp(facts, prim, found, ctx)


def slot_keys(facts: Facts, prim: Prim, label: str, index) -> tuple | None:
    """(instances, slot keys, symbolic part) of an operation on `prim` in block `label`: a key per
    instance, the slot for a global channel and (block, slot) for a shared one. None: unknown.
    Computed once per launch shape (waitfor.py asks for the same slots)."""
    memo = facts.memo.setdefault("slot_keys", {})
    at = (prim.name, label, index)
    if at not in memo:
        memo[at] = _slot_keys(facts, prim, label, index)
    return memo[at]


def _slot_keys(facts: Facts, prim: Prim, label: str, index) -> tuple | None:
    inst = facts.instances(label)
    col = facts.value(index, label)
    if inst is None or col is None:
        return None
    values, symbolic = col
    if prim.placement == "shared":
        return inst, per_block(facts, inst.thread, values), symbolic
    return inst, values, symbolic


def per_block(facts: Facts, rows: list[int], values: list[int]) -> list[int]:
    """Keys for places in shared memory, one copy a block: (block << 32) + the place's index."""
    return list(map(add, map(lshift, gather(facts.threads.columns["block"], rows), repeat(32)), values))


def _decode(facts: Facts, prim: Prim, key: int) -> tuple[int | None, int]:
    """(block, slot) of a key (block None for a global channel)."""
    if prim.placement == "shared":
        return key >> 32, key - ((key >> 32) << 32)
    return None, key


def _producers(facts: Facts, prim: Prim, puts, ctx: PassContext) -> dict | None:
    """symbolic part → {slot key: (row, put)} of every slot some put may fill; None where a put's slot
    is unknown (or a global channel's producers lie in blocks not enumerated). Reports a slot with
    two producers on the way."""
    produced: dict[tuple, dict[int, tuple[int, Instr]]] = {}
    known = facts.threads.every_block or prim.placement == "shared"
    reported = False
    for label, put in puts:
        found = slot_keys(facts, prim, label, put.ref.index)
        if found is None:
            known = False
            facts.undecided(ctx, f"which slots of `{prim.name}` this put fills (its index depends on data), so "
                            "whether every wait on it has a producer, and no slot two", put.span)
            continue
        inst, keys, symbolic = found
        before = produced.get(symbolic, {})
        if inst.exact and not reported:
            reported = _two_producers(facts, prim, put, inst, keys, before, symbolic, ctx)
        # each slot's first producer: built from the last instance back, so that the first stays,
        # and under the earlier puts' (which stay too)
        produced[symbolic] = {**dict(zip(reversed(keys), zip(reversed(inst.thread), repeat(put)))), **before}
    return produced if known else None


def _two_producers(facts: Facts, prim: Prim, put: Instr, inst, keys: list, before, symbolic, ctx) -> bool:
    """Find and report the first slot this put shares with another instance or an earlier put."""
    if len(set(keys)) == len(keys) and before.keys().isdisjoint(keys):
        return False        # (every slot once, none an earlier put's: the usual case, decided in C)
    seen: dict[int, int] = {}
    for row, key in zip(inst.thread, keys):
        other = None
        if key in seen:
            other = (seen[key], put)
        elif key in before:
            u, site = before[key]
            if u != row or facts.reaches(facts.where[id(site)], facts.where[id(put)]):
                other = (u, site)
        seen.setdefault(key, row)
        if other is None:
            continue
        u, site = other
        t = facts.threads
        who = f"{t.describe(row)}, twice" if u == row else f"{t.describe(u)} and {t.describe(row)}"
        block, slot = _decode(facts, prim, key)
        ctx.sink.error("E0706", f"slot `{_slot(prim, slot, symbolic)}` has two producers ({who}): a channel "
                       "slot is filled once per launch, by one thread", put.span,
                       notes=[Note("the other put", site.span)] if site is not put else (),
                       help="give each thread (and each round of a loop) its own slot, or put from one thread "
                            "(`if tid == 0 { put ... }`)" if prim.granularity == "thread" else
                            f"a @{prim.granularity} channel's slots come in groups of one per "
                            f"{'lane' if prim.granularity == 'warp' else 'thread'}, each put by its own thread "
                            f"(`put {prim.name}[{'warp * 32 + lane' if prim.granularity == 'warp' else 'g * ntid + tid'}]"
                            " = ...`), and the group is published when the whole party has put")
        return True
    return False


def _unproduced(facts: Facts, prim: Prim, waits, produced: dict, ctx: PassContext) -> None:
    reported = reported_waits(facts)
    for label, wait in waits:
        if id(wait) in reported:
            continue
        found = slot_keys(facts, prim, label, wait.ref.index)
        if found is None:
            _unproduced_by_data(facts, prim, label, wait, produced, ctx)
            continue
        inst, keys, symbolic = found
        if set(produced) - {symbolic}:
            continue        # producers at parameter-dependent slots: cannot tell
        have = produced.get(symbolic, {})
        if _waits_for_itself(facts, prim, wait, inst, keys, symbolic, have, ctx):
            continue
        if all(map(have.__contains__, keys)):
            continue
        missing = [(row, key) for row, key in zip(inst.thread, keys) if key not in have]
        if not missing or not inst.exact and len(missing) < inst.size:
            continue        # (a data-dependent guard: report only when no waiter's slot is put)
        row, key = missing[0]
        block, value = _decode(facts, prim, key)
        outside = not 0 <= value < prim.instances
        slot = _slot(prim, value, symbolic)
        elsewhere = sorted({b for b, v in (_decode(facts, prim, x) for x in have) if v == value and b != block}) \
            if block is not None else []
        if outside:
            what = f"`{slot}`, outside `{prim.name}`"
        elif elsewhere:
            others = ", ".join(map(str, elsewhere[:3])) + (", ..." if len(elsewhere) > 3 else "")
            what = (f"`{slot}`, which nothing in its block puts or signals (`{prim.name}` is in shared memory, one "
                    f"per block; only block{'s' if len(elsewhere) > 1 else ''} {others} put{'' if len(elsewhere) > 1 else 's'}"
                    " this slot, in its own copy)")
        else:
            what = f"`{slot}`, which nothing puts or signals"
        ctx.sink.error("E0705", f"{facts.threads.describe(row)} waits for {what}: the wait never ends", wait.span,
                       notes=[Note(f"`{prim.name}` is declared here", prim.span)],
                       help="wait only for slots some thread puts, or put this one" if not elsewhere else
                            f"declare `{prim.name}` `in global` to pass values between blocks")


def _unproduced_by_data(facts: Facts, prim: Prim, label: str, wait: Instr, produced: dict, ctx: PassContext) -> None:
    """A wait whose slot is chosen by data (`get c[idx[tid]]`) may wait for any slot of the channel
    (the run-time bounds check stops one outside it): every slot must then have a producer, in
    every block where the wait runs for a shared channel."""
    inst = facts.instances(label)
    if inst is None or not inst.size or set(produced) - {()}:
        return
    have: dict = {}              # block (None: a global channel) → the slots some thread puts
    for key in produced.get((), {}):
        block, slot = _decode(facts, prim, key)
        if 0 <= slot < prim.instances:
            have.setdefault(block, set()).add(slot)
    blocks = sorted(set(gather(facts.threads.columns["block"], inst.thread))) if prim.placement == "shared" else [None]
    for block in blocks:
        slots = have.get(block, set())
        if len(slots) == prim.instances:
            continue
        slot = next(i for i in range(prim.instances) if i not in slots)
        row = next(r for r in inst.thread if block is None or facts.threads.columns["block"][r] == block)
        where = f" of block {block}" if block is not None and facts.shape.blocks > 1 else ""
        ctx.sink.error("E0705", f"{facts.threads.describe(row)} waits for a slot of `{prim.name}` chosen by data, and "
                       f"nothing puts or signals `{_slot(prim, slot, ())}`{where}: if the data chooses it, the wait "
                       "never ends", wait.span, notes=[Note(f"`{prim.name}` is declared here", prim.span)],
                       help="compute the slot from thread and block indices, constants and loop counters, so that "
                            "the check can see it is put; or put every slot of the channel")
        return


# the blocks whose ranges are followed, for a shared channel in a larger grid: the first ones, the
# middle and the last (a block whose wait cannot end is enough to report)
_SAMPLED_BLOCKS = 8


def _unproduced_by_ranges(facts: Facts, prim: Prim, found: dict, ctx: PassContext) -> None:
    """Where the slots cannot be listed one by one (too many instances, or an index from data), the
    value ranges (analysis/ranges.py) still bound them: a wait whose slots lie apart from every slot any put
    can fill (in the wait's own block, for a shared channel) never ends if it runs. For a shared
    channel the ranges are followed block by block (a sample of a large grid)."""
    from ..analysis.ranges import Ranges
    reported = reported_waits(facts)
    waits = [w for w in found["wait"] if id(w[1]) not in reported]
    if not waits:
        return
    grid, block = facts.shape.grid, facts.shape.block
    if prim.placement == "shared":
        n = facts.shape.blocks
        picks = sorted(set(range(min(n, _SAMPLED_BLOCKS - 2))) | {n // 2, n - 1})
        blocks = [(b % grid[0], b // grid[0] % grid[1], b // (grid[0] * grid[1])) for b in picks]
    else:
        blocks = [None]
    for where in blocks:
        ranges = Ranges(facts.k, shape=(grid, block), block_index=where)
        puts = [x for x in (_slot_range(ranges, label, put) for label, put in found["put"]) if x is not None]
        for label, wait in waits:
            got = _slot_range(ranges, label, wait)
            if got is None:
                continue        # (no thread of this block gets there)
            lo, hi = max(got[0], 0), min(got[1], prim.instances - 1)
            if lo > hi or any(p[0] <= hi and lo <= p[1] for p in puts):
                continue        # (outside the channel: the bounds checks' | some put may fill it)
            reported.add(id(wait))
            slots = f"`{_slot(prim, lo, ())}`" if lo == hi else f"a slot of `{prim.name}` in {lo} .. {hi}"
            filled = ", ".join(f"{a} .. {b}" if a != b else f"{a}" for a, b in puts[:3]) or "none"
            who = (f"a thread of block {where[0] + grid[0] * (where[1] + grid[1] * where[2])}"
                   if where is not None and facts.shape.blocks > 1 else "a thread")
            ctx.sink.error("E0705", f"{who} that gets here waits for {slots}, which nothing "
                           f"{'in its block ' if where is not None else ''}puts or signals (the puts fill "
                           f"{filled}{'' if where is None else ' of that block' + chr(39) + 's copy'}): the wait "
                           "never ends", wait.span, notes=[Note(f"`{prim.name}` is declared here", prim.span)],
                           help=f"declare `{prim.name}` `in global` to pass values between blocks"
                           if where is not None else "wait only for slots some thread puts, or put this one")
        waits = [w for w in waits if id(w[1]) not in reported]
        if not waits:
            return


def _slot_range(ranges, label: str, ins: Instr) -> tuple[int, int] | None:
    """The interval of the slot `ins` uses, where some thread reaches it; None where none does."""
    for _, at, state in ranges.walk(label):
        if at is ins:
            return None if state is None else ranges.value(ins.ref.index, state)
    return None


def _waits_for_itself(facts: Facts, prim: Prim, wait: Instr, inst, keys, symbolic, have, ctx) -> bool:
    """A thread waiting for a slot that it alone puts, only after the wait (a `when` on its own
    slot): report it and say True."""
    if not inst.exact:
        return False
    at = facts.where[id(wait)]
    for row, key in zip(inst.thread, keys):
        producer = have.get(key)
        if producer is None or producer[0] != row:
            continue
        put = producer[1]
        if not facts.reaches(at, facts.where[id(put)]) or facts.reaches(facts.where[id(put)], at):
            continue        # (put before the wait, or in a loop around both: not judged)
        _, value = _decode(facts, prim, key)
        ctx.sink.error("E0705", f"{facts.threads.describe(row)} waits for `{_slot(prim, value, symbolic)}`, which "
                       "only it puts, after this wait: the wait never ends", wait.span,
                       notes=[Note("its put", put.span)],
                       help="wait for another thread's slot (the one before it, say), or put this one first")
        return True
    return False


def _one_consumer_warp(facts: Facts, prim: Prim, found, ctx: PassContext) -> None:
    """A `namedbar` group is published by its producer warp's bar.arrive and taken by a bar.sync
    of 64 threads: exactly one other warp may wait for it, once. Judged where slots are known."""
    warps = facts.threads.columns["gwarp"]

    def groups(label, ins):
        found = slot_keys(facts, prim, label, ins.ref.index)
        if found is None or not found[0].exact:
            return []
        inst, keys, symbolic = found
        return [(w, (symbolic, k // 32)) for w, k in zip(gather(warps, inst.thread), keys)]

    producer = {}
    for label, put in found["put"]:
        for w, group in groups(label, put):
            producer.setdefault(group, w)
    consumer: dict = {}
    per_block = -(-facts.threads.per_block // 32)
    for label, wait in found["wait"]:
        for w, group in groups(label, wait):
            first = consumer.setdefault(group, (w, wait))
            slot = _slot(prim, (group[1] * 32) % (1 << 32), group[0])
            local, other = w % per_block, first[0] % per_block
            if producer.get(group) == w:
                why = f"warp {local} waits for the group of `{slot}` that it puts itself"
            elif first[0] != w:
                why = f"warps {other} and {local} both wait for the group of `{slot}`"
            elif first[1] is not wait:
                why = f"warp {local} waits twice for the group of `{slot}`"
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
