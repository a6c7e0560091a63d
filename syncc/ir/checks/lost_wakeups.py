"""Hand-written waits that can miss the value they wait for.

    E0733  a spin that leaves on a value one store writes, beside a store of a value it does not
           leave on that can land after that one with nothing ordering the two: the spin may never
           read the value it waits for, and never end (a lost wake-up)

`while atomic_add(flag[0], 0) != 2 { }` waits for block 2's `atomic_exch(flag[0], 2)`; block 0's
`atomic_exch(flag[0], 1)`, unordered with it, can come after it and before the spin's next poll,
and the 2 is gone. Judged where every exit of the spin compares what it read with a constant
(hand_sync.lets_through says which stores it leaves on), between stores of constants (plain, or
atomic exchanges) to the word it polls, made outside the spin, with the race check's order
(races.unordered_stores: syncc's primitives, hand-offs, a block's barriers by phase): a reset
the waiter makes after its spin, or one a hand-off orders before the store the spin waits for, is
fine. A hand-written lock's word is the lock's (its release and its attempts are not flags).
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ..analysis.facts import Facts
from ..analysis.hand_locks import hand_locks
from ..analysis.hand_sync import compares_with_constant, constant_written, lets_through
from ..context import PassContext
from .races import unordered_stores
from .waits import spin_loop, spin_loops

CODES = ("E0733",)      # what it reports (tests/ir/test_hazard_checks.py)


def check_lost_wakeups(facts: Facts, ctx: PassContext) -> None:
    lock_words = {lock.acquire.ref.name for lock in hand_locks(facts)}
    told = set()
    for wait in spin_loops(facts):
        word = wait.site.ref.name
        loop = spin_loop(facts, wait)
        if word in lock_words or loop is None:
            continue
        tests = [(inside, facts.cfg.blocks[inside].term.if_true not in loop.blocks) for inside, _ in loop.exits]
        if not all(compares_with_constant(facts, label) for label, _ in tests):
            continue
        stores = [ins for b, _, ins in facts.k.instructions() if ins.ref is not None and ins.ref.name == word
                  and b.label not in loop.blocks and constant_written(ins) is not None]
        wakes = [s for s in stores if lets_through(facts, tests, word, constant_written(s))]
        for closing in stores:
            if closing in wakes or id(closing) in told:
                continue
            for waking in wakes:
                found = unordered_stores(facts, waking, closing)
                if found is not None:
                    told.add(id(closing))
                    _report(facts, ctx, wait, waking, closing, found)
                    break


def _report(facts: Facts, ctx: PassContext, wait, waking, closing, found) -> None:
    row_waking, row_closing, element, relation = found
    describe = facts.threads.describe
    who = describe(row_closing) if row_closing >= 0 else "a thread of another block"
    whom = describe(row_waking) if row_waking >= 0 else "a thread of another block"
    what = f"element {element} of `{closing.ref.name}`" if isinstance(element, int) else f"`{closing.ref.name}`"
    ctx.sink.error(
        "E0733", f"{who} can store {constant_written(closing)} to {what} after {whom} ({relation}) "
        f"stores the {constant_written(waking)} a wait leaves on, with nothing ordering the two: the wait can "
        "miss the value and never end", closing.span,
        notes=[Note(f"the store of {constant_written(waking)} the wait needs", waking.span),
               Note("the wait", wait.site.span)],
        help="order the two stores (the waiter resets the word after its wait, or a hand-off or barrier "
             "puts one before the other), or give each value its own word")
