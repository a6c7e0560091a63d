"""Hand-written counting barriers and flags that their launch cannot complete.

    E0705  a spin that leaves once a word of a global array reaches a bound (`while
           load_cg(cnt[0]) < 128 { }`), where every write of the array is an atomic add of a
           constant of 1 or more (the count only grows), and the adds of the whole launch to the
           word sum to less than the bound some waiting instance needs; or a spin on a flag
           (every exit compares what it read with constants) that 0 does not let through, where
           every write of the array stores a constant and none that lets it through reaches the
           element a waiting instance polls (`while atomic_add(f[0], 0) != 2 { }` and no thread of
           the launch stores a 2: the block that would is not launched)

Counting from 0, the value a host's `zeros` gives the word, such a wait never ends (a grid
barrier written by hand, launched with fewer blocks than its bound counts). The adds are counted
at most, over the launch's threads and the rounds of counted loops (analysis/space.py); the
waiting instances exactly. A bound read from memory or from a kernel parameter (a count carried
on from launch to launch) is not judged, nor is a word that an add inside an uncounted loop
feeds. The semaphores', latches' and channels' counts are counts.py's.
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ..context import PassContext
from ..nodes import Imm, Instr, Reg
from ..ops import NEGATED, SWAPPED
from ..analysis.facts import Facts, reported_waits
from ..analysis.hand_sync import compares_with_constant, constant_written, lets_through
from .bounds import rounds_shown
from .waits import spin_loop, spin_loops, word_keys

CODES = ("E0705",)      # what it reports (tests/ir/test_hazard_checks.py)


# a comparison that leaves the spin when true, normalized to `read OP bound` → the least value of
# the word that leaves (`read >= b`: b; `read > b`: b + 1; `read == b`: b, which a count that only
# grows reaches only from below); None where it does not leave on a count grown high enough
_LEAVES_AT = {"cmp.ge": 0, "cmp.gt": 1, "cmp.eq": 0}


def check_counting_barriers(facts: Facts, ctx: PassContext) -> None:
    reported = reported_waits(facts)
    _check_counts(facts, ctx, reported)
    _check_flags(facts, ctx, reported)


def _check_flags(facts: Facts, ctx: PassContext, reported: set) -> None:
    """E0705 for a flag no store of the launch raises to a value its spin leaves on (module
    docstring). Counting from 0, as for the counts."""
    k = facts.k
    if not facts.threads.every_block:
        return                          # (a sample of the blocks: a store may be in one left out)
    for w in spin_loops(facts):
        array = k.array(w.site.ref.name)
        loop = spin_loop(facts, w)
        if id(w.site) in reported or array is None or array.space != "global" or loop is None:
            continue
        tests = [(inside, facts.cfg.blocks[inside].term.if_true not in loop.blocks) for inside, _ in loop.exits]
        word = w.site.ref.name
        if not all(compares_with_constant(facts, label) for label, _ in tests) or lets_through(facts, tests, word, 0):
            continue
        writes = [(b.label, ins) for b, _, ins in k.instructions() if ins.ref is not None and ins.ref.name == word
                  and (ins.op == "st" or ins.info.group == "atomic" and not ins.reads_only)]
        if any(constant_written(ins) is None for _, ins in writes):
            continue                    # (a value computed at run time may be any)
        waiters = word_keys(facts, w.label, w.site)
        if waiters is None or waiters[1] is None or not _surely_waits(facts, w):
            continue
        raised: set = set()
        for label, ins in writes:
            if not lets_through(facts, tests, word, constant_written(ins)):
                continue
            found = word_keys(facts, label, ins)
            if found is None or found[1] is None or found[2] != waiters[2]:
                raised = None
                break
            raised |= set(found[1])
        if raised is None:
            continue
        rows, keys, _ = waiters
        for n, (row, key) in enumerate(zip(rows, keys)):
            if key not in raised:
                reported.add(id(w.site))
                t = facts.threads.describe(row) + " " + rounds_shown(facts, facts.instances(w.label), n)
                name = f"`{word}`" if not isinstance(key, int) else f"`{word}[{key}]`"
                ctx.sink.error(
                    "E0705", f"{t.rstrip()} waits here for {name} to hold a value it leaves on, but no store of "
                    "this launch writes one there: counting from 0, the wait never ends", w.site.span,
                    help="store the value the wait leaves on from a thread the launch runs, or launch the "
                         "threads that store it")
                break


def _check_counts(facts: Facts, ctx: PassContext, reported: set) -> None:
    """E0705 for a count that the launch's adds cannot bring to its bound (module docstring)."""
    k = facts.k
    for w in spin_loops(facts):
        array = k.array(w.site.ref.name)
        if id(w.site) in reported or array is None or array.space != "global" or not w.site.dests:
            continue
        bound = _spin_bound(facts, w)
        if bound is None:
            continue
        adds = _adds(facts, w.site.ref.name)
        if adds is None:
            continue
        waiters = word_keys(facts, w.label, w.site)
        values = facts.value(bound[0], w.label)
        if waiters is None or waiters[1] is None or values is None or values[1] or not _surely_waits(facts, w):
            continue
        rows, keys, sym = waiters
        total: dict = {}
        for label, add, amount in adds:
            found = word_keys(facts, label, add)
            if found is None or found[1] is None or found[2] != sym:
                total = None
                break
            for key in found[1]:
                total[key] = total.get(key, 0) + amount
        if total is None:
            continue
        for n, (row, key, b) in enumerate(zip(rows, keys, values[0])):
            need = b + bound[1]
            have = total.get(key, 0)
            if need > have:
                reported.add(id(w.site))
                t = facts.threads.describe(row) + " " + rounds_shown(facts, facts.instances(w.label), n)
                name = f"`{w.site.ref.name}`" if not isinstance(key, int) else f"`{w.site.ref.name}[{key}]`"
                ctx.sink.error(
                    "E0705", f"{t.rstrip()} waits here for {name} to reach {need}, but the atomic adds to it in this "
                    f"launch add up to {have} at most: counting from 0, the wait never ends", w.site.span,
                    notes=[Note("an add to it", adds[0][1].span)] if adds else [],
                    help="count the arrivals the launch makes (the bound is the number of threads, or parties, "
                         "that add, times the rounds), or launch as many threads as the bound counts")
                break


def _spin_bound(facts: Facts, w) -> tuple[object, int] | None:
    """(the bound register or constant, what to add to it) of the value of the spin's word that
    lets it leave, where every exit of the spin loop tests the word against a bound that a growing
    count passes (`>=`, `>`, `==`); else None."""
    loop = spin_loop(facts, w)
    read = w.site.dests[0]
    if loop is None:
        return None
    found = None
    for inside, _ in loop.exits:
        term = facts.cfg.blocks[inside].term
        d = facts.def_of(getattr(term, "cond", None))
        if d is None or d.op not in NEGATED or len(d.args) != 2:
            return None
        op, (x, y) = d.op, d.args
        if y == read and x != read:
            op, x, y = SWAPPED[op], y, x
        if x != read or _from_parameter(facts, y):
            return None
        if term.if_true in loop.blocks:          # leaves when false: the negated test leaves
            op = NEGATED[op]
        if op not in _LEAVES_AT or found is not None:
            return None                           # (one exit test: a bound and nothing else)
        found = (y, _LEAVES_AT[op])
    return found


def _from_parameter(facts: Facts, v, seen: set | None = None) -> bool:
    """Does v come from a kernel parameter (a register nothing in the kernel defines) or memory?"""
    if isinstance(v, Imm):
        return False
    if not isinstance(v, Reg):
        return True
    seen = set() if seen is None else seen
    if v.name in seen:
        return False                 # (a loop's counter, stepped from its own value)
    seen.add(v.name)
    defs = facts.defs.get(v.name, [])
    if not defs:
        return True
    for d in defs:
        if d.op == "ld" or d.info.group in ("atomic", "memory"):
            return True
        if any(_from_parameter(facts, a, seen) for a in d.args if isinstance(a, Reg)):
            return True
    return False


def _adds(facts: Facts, name: str) -> list[tuple[str, Instr, int]] | None:
    """Every write of the array as (block, the add, its constant), where each is an atomic add of
    1 or more (or a sub of -1 or less) outside uncounted loops; None where one is not."""
    out = []
    for b, _, ins in facts.k.instructions():
        if ins.ref is None or ins.ref.name != name or not (ins.op == "st" or ins.info.group == "atomic"):
            continue
        if ins.reads_only:
            continue
        amount = ins.args[1] if len(ins.args) > 1 else None
        if not isinstance(amount, Imm) or ins.op not in ("atom.add", "atom.sub"):
            return None
        value = int(amount.value) * (1 if ins.op == "atom.add" else -1)
        inst = facts.instances(b.label)
        if value < 1 or inst is None or not inst.counted:
            return None
        out.append((b.label, ins, value))
    return out


def _surely_waits(facts: Facts, w) -> bool:
    """Does every instance listed run the spin: the conditions that guard the spin loop (its own
    exits aside) are all evaluated?"""
    loop = spin_loop(facts, w)
    for cond, _, branch in facts.guards(w.label):
        if loop is not None and branch in loop.blocks:
            continue
        if facts.is_party_branch(branch):
            continue
        col = facts.value(cond, w.label)
        if col is None or col[1]:
            return False
    return not any(w.label in lp.blocks and lp.head not in facts.space.counted and lp.blocks != w.inside
                   for lp in facts.loops)
