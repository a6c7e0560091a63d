"""Waits that need other blocks to be running: the launch must fit on the GPU at once.

    E0708  a grid barrier in a launch larger than the GPU can hold at once
    E0727  a wait that only another block can end (a flag that block `bid - 1` sets, a channel
           slot block 0 puts, values another block puts into a queue), in a launch larger than
           the GPU can hold at once

A GPU runs a launch's blocks in no promised order and starts a block only when one has left
room. A grid barrier waits for every block; a wait whose release comes only from another block
waits for that block. Either is safe only while every block of the launch can be resident at
once: then the block it waits for is running too, or will start, whatever the order. Past that,
the blocks that started first can fill the GPU waiting for blocks that cannot start.

Who can end a wait is evaluated per instance (analysis/space.py), for the waits whose word is known:
a spin on a word of a global array (waits.spin_loops) is ended by the stores and atomics to
that word (but not a store of a constant for which the loop's tests of the word stay in the
loop: a block's own `flag[bid] = 1` before `while load_cg(flag[bid]) == 1 { }` waits for
another), a global channel slot by its `put`, an instance of a global semaphore, latch or
queue by its posts, count-downs, puts or gets. A wait of block b needs another block when no
thread of b itself can end it. A wait whose index comes from data (a tile number taken from a
counter at run time, as the look-back scan does) is not judged: a block that took a later
ticket waits only for blocks that took theirs before it, and have started.

Within the limit, such a kernel is marked `coresident` (check_hazards), and the GPU runtime
launches it cooperatively after checking the occupancy, as it does a grid barrier's.
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ..context import PassContext
from ..fold import fold
from ..nodes import Imm, Instr
from ..analysis.facts import Facts
from .waitfor import blocking_operations
from .waits import spin_loop, spin_loops, word_keys

CODES = ("E0708", "E0727")      # what it reports (tests/ir/test_hazard_checks.py)

# a blocking operation's kind (waitfor.Blocking) → how many provisions of a waiter's instance its
# own block must make to end the wait by itself
_NEEDED = {"channel": lambda prim: 1, "latch": lambda prim: prim.count or 1,
           "semaphore": lambda prim: 0 if prim.count else 1}


def check_residency(facts: Facts, ctx: PassContext) -> None:
    k = facts.k
    fit = ctx.target.co_resident_blocks(facts.shape.threads_per_block)
    blocks = facts.shape.blocks
    where = facts.shape.where or k.span
    launch_note = Note("the launch is declared here" if facts.shape.where is None else "launched here", where)
    for prim in k.prims:
        if prim.kind == "barrier" and prim.granularity == "grid" and blocks > fit:
            ctx.sink.error("E0708", f"this launch runs {blocks} blocks, but the grid barrier `{prim.name}` needs them "
                           f"all resident at once, and {ctx.target.title} holds at most {fit} blocks of "
                           f"{facts.shape.threads_per_block} threads ({ctx.target.sms} SMs): the blocks that run first "
                           "wait for blocks that cannot start", where,
                           notes=[Note(f"`{prim.name}` is declared here", prim.span)],
                           help=f"launch at most {fit} blocks and loop over the work inside the kernel")
    found = cross_block_wait(facts)
    if found is None:
        return
    facts.memo["coresident"] = True
    if blocks <= fit:
        return
    site, waiter, provider = found
    t = facts.threads
    by = (f"only another block ({t.describe(provider)}) can end it" if provider is not None else
          "no thread of its own block can end it")
    ctx.sink.error("E0727", f"{t.describe(waiter)} waits here for another block: {by}, and this launch runs {blocks} "
                   f"blocks, more than {ctx.target.title} holds at once ({fit} blocks of "
                   f"{facts.shape.threads_per_block} threads): blocks are started in no promised order, so the ones "
                   "running can fill the GPU waiting for blocks that cannot start", site.span,
                   notes=[] if facts.shape.where is not None else [launch_note],
                   help=f"launch at most {fit} blocks and loop over the work inside the kernel, or take the "
                        "block's place in the order from a counter at run time (`let tile = atomic_add(next[0], 1)`), "
                        "so that a block only waits for blocks that started before it")


def coresident(facts: Facts) -> bool:
    """Did check_residency find a wait that only another block can end (so the kernel needs its
    blocks resident at once)?"""
    return facts.memo.get("coresident", False)


def cross_block_wait(facts: Facts) -> tuple[Instr, int, int | None] | None:
    """The first wait some instance of which only another block can end: (the wait, the waiting
    thread's row, a row of the block that would end it, or None where no such row is listed);
    None when every wait can be ended from its own block (or is not judged)."""
    if facts.shape.blocks == 1:
        return None
    k = facts.k
    for w in spin_loops(facts):
        array = k.array(w.site.ref.name)
        if array is None or array.space != "global":
            continue
        writes = [(facts.where[id(ins)][0], ins) for _, _, ins in k.instructions()
                  if ins.ref is not None and ins.ref.name == w.site.ref.name and ins is not w.site
                  and (ins.op == "st" or ins.info.group == "atomic") and _can_end(facts, w, ins)]
        found = _needs_other_block(facts, w.label, w.site, writes, 1)
        if found is not None:
            return found
    for w in blocking_operations(facts):
        prim = k.prim(w.site.ref.name) if w.site.ref is not None else None
        if w.kind not in _NEEDED or prim is None or prim.placement != "global":
            continue
        needed = _NEEDED[w.kind](prim)
        if needed == 0:
            continue        # (a semaphore with permits of its own to start with)
        found = _needs_other_block(facts, w.label, w.site, list(w.providers), needed)
        if found is not None:
            return found
    return None


def _can_end(facts: Facts, wait, write: Instr) -> bool:
    """Can this write end the spin? Not where it stores a constant (a plain store, an exchange)
    for which every exit of the loop that tests the spin's read stays in the loop: a block's own
    `flag[bid] = 1` before it spins `while load_cg(flag[bid]) == 1` is not what ends the spin,
    nor is the clearing `flag[i] = 0` of a block that spins `while load_cg(flag[i]) == 0`. Where
    the value or an exit's test is not a constant comparison, it can."""
    value = write.args[1] if write.op in ("st", "atom.exch") and len(write.args) > 1 else None
    if not isinstance(value, Imm) or not wait.site.dests:
        return True
    read = wait.site.dests[0]
    loop = spin_loop(facts, wait)
    if loop is None:
        return True
    for inside, _ in loop.exits:
        term = facts.cfg.blocks[inside].term
        cond = getattr(term, "cond", None)
        d = facts.def_of(cond) if cond is not None else None
        if d is None or not d.op.startswith("cmp.") or len(d.args) != 2:
            return True
        a, b = d.args
        if a == read and isinstance(b, Imm):
            outcome = fold(d.op, read.type, [value.value, b.value])
        elif b == read and isinstance(a, Imm):
            outcome = fold(d.op, read.type, [a.value, value.value])
        else:
            return True
        if outcome is None:
            return True
        if (term.if_true if outcome else term.if_false) not in loop.blocks:
            return True             # this exit is taken on the value: it can end the spin
    return False


def _needs_other_block(facts: Facts, label: str, site: Instr, providers, needed: int):
    """A waiting instance of `site` whose own block makes fewer than `needed` of the provisions
    (writes of its word, posts or count-downs of its instance) it waits for: (the wait, its row,
    a row of another block that provides, or None)."""
    waiters = word_keys(facts, label, site)
    if waiters is None or waiters[1] is None or not providers:
        return None
    wait_rows, wait_keys, wait_sym = waiters
    blocks = facts.threads.columns["block"]
    own: dict[tuple[int, int], int] = {}     # (block, key) → provisions from that block
    first: dict[int, int] = {}               # key → a providing row
    for p_label, p in providers:
        found = word_keys(facts, p_label, p)
        if found is None or found[1] is None or found[2] != wait_sym:
            return None      # a provider whose word is unknown: it may be anyone's
        rows, keys, _ = found
        for row, key in zip(rows, keys):
            own[blocks[row], key] = own.get((blocks[row], key), 0) + 1
            first.setdefault(key, row)
    for row, key in zip(wait_rows, wait_keys):
        if own.get((blocks[row], key), 0) < needed:
            other = first.get(key)
            return site, row, other if other is not None and blocks[other] != blocks[row] else None
    return None

