"""Waits whose release can come from the waiter's own warp, after the warp has split.

    E0701  potential SIMT deadlock (stack-based targets: Fermi)
    W0702  a spin that may livelock under independent thread scheduling (sm_70+)

A wait is a hand-written spin loop (a loop that only reads memory and exits on
what it read: `while atomic_cas(l[0], 0, 1) != 0 {}`, `while load_cg(f[i]) == 0 {}`),
an uncounted loop around a single attempt (`while !got { if trywait s { got = true } }`,
and `trylock`, a queue's `tryput`/`tryget`), or a blocking operation on a @thread
primitive (`get`, `await`, `wait`, a queue's `put`/`get`), except a semaphore wait that
can never wait (counts.never_blocks: it is taken no more often than its permits). What
releases it is a write to the location it waits on: a store or atomic, a `put`
or `signal`, a `post`, a latch's `count_down`.

On a stack-based GPU the lanes of a warp that leave a loop wait at its
reconvergence point for the lanes still in it. If the write a spinning lane
needs is made by a lane of the same warp only after that point, neither ever
moves: seed 000 §4.4.1, seed 003 Listing 3.1, seed 004. The write is safe when
it runs inside the wait's own loop (structuring puts a `when` body there, seed
000 Listing 8) or before the wait on every path. With independent thread
scheduling the same shape can livelock instead (seed 003 Listing 3.3); syncc
adds `__syncwarp` to the loops it structures, but not to hand-written ones, and
not where the release lies outside the loop, so those get W0702.

A hand-written spin that a whole warp enters together (warp-uniform control) and whose every
exit tests plain loads of one word per warp against warp-uniform values is not E0701: its lanes
read one value at each poll and leave in the same round, so none waits at the reconvergence
point for another (a counting barrier whose arrivals come before its spin). Nor is one polled
with an atomic add of 0 per lane whose word only grows (every write that can follow the spin
adds 0 or more) and whose exits are taken once the value reaches a warp-uniform bound: the lanes
may leave in different rounds, but those still in follow at their next poll without a write from
anyone.
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ...core.prebuilt import dataclass
from ..context import PassContext
from ..nodes import Branch, Imm, Instr, Kernel, Reg
from ..analysis.uniformity import WARP
from ..analysis.wait_regions import UNPAIRED, release_point, waits_together
from .channels import per_block, slot_keys
from .counts import never_blocks
from ..analysis.facts import Facts, Loop
from .held import lock_like
from .waitfor import retry_what, wait_what

CODES = ("E0701", "W0702")      # what it reports (tests/ir/test_hazard_checks.py)

_SPIN_OK = {"arith", "special", "fence", "warp", "misc"}   # what a spin loop may do besides reading memory
_WAITS = {"chan.get": ("chan.put", "chan.signal"), "chan.await": ("chan.put", "chan.signal"),
          "sem.wait": ("sem.post",), "latch.wait": ("latch.arrive",)}


@dataclass(frozen=True)
class Wait:
    site: Instr                     # the read the loop exits on, or the blocking operation
    label: str
    inside: frozenset[str]          # blocks that run inside the wait's loop
    releases: tuple[str, ...]       # operations that can end the wait
    hand_written: bool
    syncwarp: bool                  # the loop already has a __syncwarp


def check_waits(facts: Facts, ctx: PassContext) -> None:
    for wait in spin_loops(facts) + retry_loops(facts) + _primitive_waits(facts):
        culprit = _same_warp_release(facts, wait)
        if culprit is None or ctx.target.stack_based and _leaves_together(facts, wait):
            continue
        release, why = culprit
        what = _what(wait)
        if ctx.target.stack_based:
            ctx.sink.error(
                "E0701", f"potential SIMT deadlock: {what} can need a write by {why}, which "
                "that lane makes only after the warp reconverges, and the warp cannot reconverge while this "
                "lane spins", wait.site.span,
                notes=[Note("the write that would end the wait", release.span)],
                help=_help(wait))
        elif not wait.syncwarp:
            ctx.sink.warning(
                "W0702", f"{what.replace('this wait on', 'this spin on')} may livelock: the write that ends it "
                f"is made by {why}, "
                "and the scheduler can keep running the spinning lanes instead of that one", wait.site.span,
                notes=[Note("the write that would end the wait", release.span)],
                help=_help(wait))


def _what(wait: Wait) -> str:
    """How a message names the wait: a queue's by its statement, a retry loop as one."""
    site = wait.site
    if site.judged_as in _TRIES:
        return retry_what(site)
    if site.judged_as == "sem.wait":
        return wait_what(site)
    return f"this wait on `{site.ref.name}`"


def _help(wait: Wait) -> str:
    if wait.hand_written and wait.site.judged_as not in _TRIES:
        return ("use a primitive, whose waits syncc structures: `critical m { ... }` for a lock, `when v = c[i] "
                "{ ... }` or `await c[i]` for a flag; or make the write in the loop, before leaving it")
    role = wait.site.ref.name.rpartition(".")[2]
    if role == "space":          # a queue's put waits for room
        return ("let another warp take the values, or give the queue room for every value the warp puts before "
                "it takes any (a capacity of at least that many)")
    if role == "items":          # a queue's get waits for a value
        return "put the values from another warp, or before the `get` on every path"
    if wait.site.judged_as in ("sem.wait", "sem.trywait", "sem.tryfor"):
        return "post from another warp, or before the wait on every path, or give the semaphore more permits"
    if wait.site.judged_as == "latch.wait":
        return "count down before the wait on every path, or let another warp count down"
    return "move the release into the waiting path: `when v = c[i] { ...; put c[j] = ... }` (seed 000 Listing 15)"


# ---- the waits ------------------------------------------------------------------------------------

def spin_loops(facts: Facts) -> list[Wait]:
    """Hand-written spins: loops that only read memory (loads, atomics) and leave on what they
    read; one Wait per read an exit tests, released by stores and atomics to its word."""
    out = []
    for loop in facts.loops:
        code = [ins for label in loop.blocks for ins in facts.cfg.blocks[label].instrs]
        if any(ins.info.group not in _SPIN_OK | {"memory", "atomic"} or ins.op == "st" for ins in code):
            continue
        reads = _exit_reads(facts, loop)
        if len(reads) == 1 and _update_attempt(facts, loop, reads[0]):
            continue
        syncwarp = any(ins.op == "warp.sync" for ins in code)
        for read in reads:
            label = facts.where[id(read)][0]
            out.append(Wait(read, label, loop.blocks, ("st", "atom"), True, syncwarp))
    return out


def _update_attempt(facts: Facts, loop: Loop, read: Instr) -> bool:
    """Is the loop a lock-free update, CUDA's atomicCAS loop (`old = atomic_cas(w, seen, f(seen))`
    until `old == seen`, with `seen = old` between attempts), rather than a wait? So where every exit
    is taken when the compare-and-swap succeeded, and its expected value is, each round, what this
    thread last read of the word: the last attempt's result or a load of the word in the loop,
    set before the attempt. An attempt fails only because another thread's write came between
    the read and the attempt, and in the word's order one attempt of each round succeeds: the
    loop waits for no write, and a lane parked at its end owes the others nothing. (An expected
    value kept from before the loop waits for the word to come back to it: a wait.)"""
    if read.op != "atom.cas" or not isinstance(read.args[1], Reg):
        return False
    old, expected = read.dests[0], read.args[1]
    for inside, _ in loop.exits:
        term = facts.cfg.blocks[inside].term
        test = facts.def_of(term.cond) if isinstance(term, Branch) else None
        if test is None or test.op not in ("cmp.eq", "cmp.ne") or set(test.args) != {old, expected}:
            return False
        if (test.op == "cmp.eq") != (term.if_true not in loop.blocks):     # leaves when they are equal
            return False
    at = facts.where[id(read)]
    fresh = False
    for d in facts.defs.get(expected.name, []):
        label, index = facts.where[id(d)]
        if label not in loop.blocks:
            continue
        if not (d.op == "mov" and d.args[0] == old or d.op == "ld" and d.ref == read.ref):
            return False
        fresh |= label == at[0] and index < at[1] or label != at[0] and facts.cfg.dominates(label, at[0])
    return fresh


# a single attempt (as the analyses read it: a queue's try is its semaphore's) → what ends its failures
_TRIES = {"sem.trywait": ("sem.post",), "sem.tryfor": ("sem.post",), "mutex.trylock": ("mutex.unlock",)}


def retry_loops(facts: Facts) -> list[Wait]:
    """Loops around a single attempt (`trywait s`, `trylock m`, a queue's `tryput` or `tryget`)
    whose rounds are not counted: they can go round until an attempt succeeds, so they spin on the
    primitive as surely as a blocking wait does, written by hand. (A counted loop ends however
    its attempts fare.) Its exit depends on the attempt through control flow, which spin_loops,
    looking for exits that test a load, does not see."""
    counted = facts.space.counted
    out = []
    for loop in facts.loops:
        if loop.head in counted:
            continue
        code = [(label, ins) for label in loop.blocks for ins in facts.cfg.blocks[label].instrs]
        syncwarp = any(ins.op == "warp.sync" for _, ins in code)
        for label, ins in code:
            releases = _TRIES.get(ins.judged_as)
            if releases is None or ins.attr("party") is not None:
                continue
            prim = facts.k.prim(ins.ref.name)
            if prim is None or prim.granularity != "thread" or prim.kind == "semaphore" and never_blocks(facts, prim.name):
                continue      # (every attempt finds a permit, or room in its queue: it never goes round)
            out.append(Wait(ins, label, loop.blocks, releases, True, syncwarp))
    return out


def _leaves_together(facts: Facts, wait: Wait) -> bool:
    """On a stack-based GPU, does every lane of a warp enter this hand-written spin together and
    leave it in the same round? Then no lane of the warp can be held at the spin's reconvergence
    point while another spins, and a write that only such a lane would make is not what the wait
    needs (a counting barrier's arrivals, made before the spin by the whole warp at once). So when
    the loop is entered under warp-uniform control and each exit tests, with warp-uniform values,
    plain loads of one word per warp: one load instruction reads one word once for all its lanes
    (docs/fermi.md, "loads"), so they all see the same value and branch alike. An atomic read is
    each lane's own access: `_passes_once_seen` says when its lanes still follow each other out."""
    loop = spin_loop(facts, wait)
    if loop is None:
        return False
    uni = facts.uni
    entries = [p for p in facts.cfg.preds[loop.head] if p not in loop.blocks]
    if not entries or any(uni.divergence(p) > WARP for p in entries):
        return False
    if wait.site.op != "ld":
        return _passes_once_seen(facts, uni, loop, wait.site)
    for inside, _ in loop.exits:
        cond = getattr(facts.cfg.blocks[inside].term, "cond", None)
        if cond is not None and not _one_value_per_warp(facts, uni, cond):
            return False
    return True


# comparison → does it hold when its left operand is large (and so stay holding as it grows)?
_HOLDS_WHEN_LARGE = {"cmp.ge": True, "cmp.gt": True, "cmp.le": False, "cmp.lt": False}


def _passes_once_seen(facts: Facts, uni, loop: Loop, read: Instr) -> bool:
    """A spin whose lanes read their own values (an atomic add of 0 per lane), entered by the whole
    warp: its lanes may leave in different rounds, but none needs a later write when the word only
    grows (every write of its array after the spin can start adds a constant of 0 or more) and
    every exit is taken once the value read reaches a warp-uniform bound (`while atomic_add(c[i],
    0) < n {}`, i warp-uniform): what one lane saw, every later poll of the others sees too, so
    they follow it out."""
    if not read.reads_only or uni.level(read.ref.index) > WARP:
        return False
    for _, _, ins in facts.k.instructions():
        if ins.ref is None or ins.ref.name != read.ref.name or ins.op == "ld" or _before(facts, ins, read):
            continue                # (a store before the spin, never after it: the count's start)
        if not (ins.op == "atom.add" and isinstance(ins.args[1], Imm) and ins.args[1].value >= 0):
            return False
    for inside, _ in loop.exits:
        term = facts.cfg.blocks[inside].term
        test = facts.def_of(term.cond) if isinstance(term, Branch) else None
        if test is None or test.op not in _HOLDS_WHEN_LARGE:
            return False
        leaves_when = term.if_true not in loop.blocks          # the exit is taken when the test is this
        value, bound = test.args if _HOLDS_WHEN_LARGE[test.op] == leaves_when else reversed(test.args)
        if facts.def_of(value) is not read or not _one_value_per_warp(facts, uni, bound):
            return False
    return True


def spin_loop(facts: Facts, wait: Wait) -> Loop | None:
    """The loop of a hand-written spin (spin_loops: its blocks are the Wait's), else None."""
    if not wait.hand_written:
        return None
    return next((lp for lp in facts.loops if lp.blocks == wait.inside), None)


def _one_value_per_warp(facts: Facts, uni, v, depth: int = 0) -> bool:
    """Is v the same for the active lanes of a warp at each execution: warp-uniform, or computed
    from such values and loads of one word per warp?"""
    if isinstance(v, Imm) or uni.level(v) <= WARP:
        return True
    d = facts.def_of(v)
    if d is None or depth > 16:
        return False
    if d.op == "ld":
        return facts.k.array(d.ref.name) is not None and uni.level(d.ref.index) <= WARP
    return d.info.group == "arith" and all(_one_value_per_warp(facts, uni, a, depth + 1) for a in d.args)


def _exit_reads(facts: Facts, loop: Loop) -> list[Instr]:
    """The loads and atomics inside the loop that its exit branches test."""
    found: dict[int, Instr] = {}
    for inside, _ in loop.exits:
        term = facts.cfg.blocks[inside].term
        cond = getattr(term, "cond", None)
        for ins in facts.sources(cond):
            if ins.op in ("ld",) or ins.info.group == "atomic":
                if facts.where[id(ins)][0] in loop.blocks and facts.k.array(ins.ref.name) is not None:
                    found[id(ins)] = ins
    return list(found.values())


def _primitive_waits(facts: Facts) -> list[Wait]:
    k, out = facts.k, []
    for b in k.blocks:
        for i, ins in enumerate(b.instrs):
            if ins.judged_as not in _WAITS or ins.attr("party") is not None or id(ins) in lock_like(facts):
                continue      # (a semaphore taken as a lock is a critical section: structured like one)
            prim = k.prim(ins.ref.name)
            if prim is None or prim.granularity != "thread":
                continue
            if prim.kind == "semaphore" and never_blocks(facts, prim.name):
                continue      # (every take finds one of its initial permits: it never spins)
            waits = waits_together(b, i)
            end = release_point(k, facts.cfg, b.label, waits[-1], ins)
            inside = _between(facts, b.label, end)
            out.append(Wait(ins, b.label, inside, _WAITS[ins.judged_as], False, False))
    return out


def _between(facts: Facts, label: str, end) -> frozenset[str]:
    """The blocks from the wait to its release point (what structuring puts in the loop)."""
    if end is None or end == UNPAIRED:
        return frozenset({label})
    end_label = end[0]
    inside, todo = set(), [label]
    while todo:
        x = todo.pop()
        if x in inside:
            continue
        inside.add(x)
        if x != end_label:
            todo.extend(facts.cfg.succs[x])
    return frozenset(inside)


# ---- who can end a wait ------------------------------------------------------------------------------

def _same_warp_release(facts: Facts, wait: Wait) -> tuple[Instr, str] | None:
    """A write that can end the wait, made outside its loop after a possible split, by another lane
    of the waiter's warp: (the write, who makes it). None when every such write is safe."""
    k = facts.k
    target = wait.site.ref.name
    waiters = word_keys(facts, wait.label, wait.site)
    if waiters is None:
        return None
    for b, _, ins in k.instructions():
        if ins.ref is None or ins.ref.name != target or b.label not in facts.cfg.reachable:
            continue
        if ins.ref.field != wait.site.ref.field:     # another field of a record: other bytes, never the word
            continue
        if not (ins.judged_as in wait.releases or ins.op.split(".")[0] in wait.releases):
            continue
        if ins is wait.site or b.label in wait.inside or _before(facts, ins, wait.site) \
                or id(ins) in _section_releases(facts) or facts.apart_in_warps(wait.label, b.label):
            continue
        writers = word_keys(facts, b.label, ins)
        if writers is None:
            continue
        who = _lane_of_same_warp(facts, waiters, writers)
        if who is not None:
            return ins, who
    return None


def word_keys(facts: Facts, label: str, ins: Instr):
    """(rows, keys or None, symbolic part) of the instances of an operation on a location: a key
    names the word (a shared one with its block); None keys when the index is unknown."""
    inst = facts.instances(label)
    if inst is None:
        return None
    array = facts.k.array(ins.ref.name)
    prim = facts.k.prim(ins.ref.name) if array is None else None
    if prim is not None:            # the same keys as channels.py's (computed once)
        found = slot_keys(facts, prim, label, ins.ref.index)
        return (inst.thread, None, None) if found is None else (inst.thread, found[1], found[2])
    col = facts.value(ins.ref.index, label)
    if col is None:
        return inst.thread, None, None
    values, symbolic = col
    if array is not None and array.space == "shared":
        values = per_block(facts, inst.thread, values)
    return inst.thread, values, symbolic


def _section_releases(facts: Facts) -> set[int]:
    """The posts that end a semaphore section (`acquire s { ... }`, or `wait s` ... `post s` in one
    thread): structuring runs them inside the poster's own polling loop, before its warp
    reconverges, as a mutex's unlock."""
    if "section_releases" not in facts.memo:
        found = set()
        for b in facts.k.blocks:
            for i, ins in enumerate(b.instrs):
                if ins.judged_as == "sem.wait" and id(ins) in lock_like(facts):
                    end = release_point(facts.k, facts.cfg, b.label, i, ins)
                    if end not in (None, UNPAIRED):
                        found.add(id(facts.cfg.blocks[end[0]].instrs[end[1]]))
        facts.memo["section_releases"] = found
    return facts.memo["section_releases"]


def _before(facts: Facts, write: Instr, wait: Instr) -> bool:
    """Does the write come before the wait, on a path to it that never comes back? Then the
    writer makes it before it can be held up at any reconvergence point the waiter spins before."""
    w, s = facts.where[id(write)], facts.where[id(wait)]
    return facts.reaches(w, s) and not facts.reaches(s, w)


def _lane_of_same_warp(facts: Facts, waiters, writers) -> str | None:
    """Describe a lane of a waiter's warp whose write can end its wait, or None. Where the words
    (a channel's slot, a semaphore's or latch's instance, an array element) are known, only a
    write to the waiter's own word counts, and only another lane's: a thread that waits for
    its own later post waits for itself, which the counts and the schedule report (E0705, E0720)."""
    warps = facts.threads.columns["gwarp"]
    lanes = facts.threads.columns["laneid"]
    (wait_rows, wait_keys, wait_sym), (write_rows, write_keys, write_sym) = waiters, writers
    if wait_keys is None or write_keys is None or wait_sym != write_sym:
        # unknown indices: another lane of a waiting warp that writes is enough
        writing: dict[int, set[int]] = {}
        for u in write_rows:
            writing.setdefault(warps[u], set()).add(u)
        for t in wait_rows:
            others = writing.get(warps[t], set()) - {t}
            if others:
                return "another lane of the same warp"
        return None
    by_word: dict[tuple[int, int], list[int]] = {}
    for u, key in zip(write_rows, write_keys):
        found = by_word.setdefault((key, warps[u]), [])
        if len(found) < 2 and u not in found:
            found.append(u)
    t_ = facts.threads
    for t, key in zip(wait_rows, wait_keys):
        for u in by_word.get((key, warps[t]), ()):
            if u != t:
                return (f"lane {lanes[u]} of the same warp ({t_.describe(u)}, for the waiting "
                        f"{t_.describe(t)})")
    return None
