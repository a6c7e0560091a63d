"""Checks on collective operations: everyone they wait for must reach them.

    E0704  a barrier under control flow that splits the threads it waits for
    E0707  an operation of a @warp primitive where only part of a warp may be
    E0704 / E0707  a barrier (a warp meeting) inside a `when` body: each thread runs the body inside
           its polling loop when its inputs come, so the ones served first meet without the others

A block barrier (`barrier`, `sync b` of a @block barrier, any operation on a
@block primitive, which the leader spreads with bar.sync 0) needs every thread
of the block: no branch between it and the kernel's start may depend on the
thread (divergence at most BLOCK). A named barrier counts whole warps (WARP).
A grid barrier needs every thread of the grid (GRID). A @warp primitive's
operations are the warp's, as a party: the warp must not be split (WARP).
The compiler's own leader branches (elect, tid == 0) are not counted.

Code inlined from a function is reported at the call to fix: the outermost call under the
branch that splits the threads (or inside the @thread section), with a note at the
operation inside the function.
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ..context import PassContext
from ..inlined import inlined_calls
from ..impls.registry import implementation
from ..nodes import Branch, Instr, Kernel
from ..analysis.uniformity import BLOCK, GRID, THREAD, WARP
from ..analysis.facts import Facts, explained_reads
from .held import UNLOCKS, held

CODES = ("E0704", "E0707")      # what it reports (tests/ir/test_hazard_checks.py)

_ARRAY_WORD = {GRID: "the grid", BLOCK: "the block", WARP: "the warp"}
# where a condition of divergence level L may take another value
_ONE_TO_THE_NEXT = {BLOCK: "one block to the next", WARP: "one warp to the next", THREAD: "one thread to the next"}


def check_collectives(facts: Facts, ctx: PassContext) -> None:
    k = facts.k
    told = set()
    inside, _ = held(facts, kinds=("mutex", "rwlock", "semaphore"))
    splits = None
    for b, _, ins in k.instructions():
        if b.label not in facts.cfg.reachable:
            continue
        need = _needs(k, ins)
        if need is None or ins.span in told or _ends_a_judged_hold(facts, b.label, ins, inside):
            continue
        level, what = need
        if ctx.target.stack_based and _meets_lanes_only(k, ins):
            continue        # `syncwarp()` does nothing where a warp's lanes run in lockstep (Fermi)
        section = _thread_section(facts, ins, inside)
        if section is not None:
            told.add(ins.span)
            span, notes, what_here = _at_call(ins, what, inlined_calls(section.site.span))
            if _once(told, ins, span):
                _report_in_section(facts, section, what, span, notes, what_here, ctx)
            continue
        split = facts.divergence(b.label)
        if split <= level or ins.op == "warp.sync" and _met_on_every_arm(facts, b.label):
            continue
        told.add(ins.span)
        if splits is None:
            splits = _splitting_branches(facts)
        branch = _outermost(splits.get(b.label, ()), level)
        span, notes, what_here = _at_call(ins, what, inlined_calls(branch.span) if branch is not None else ())
        if not _once(told, ins, span):
            continue
        notes += _why_split(facts, branch, level)
        if level == WARP and "@warp " in what:
            ctx.sink.error("E0707", f"{what_here} runs where the lanes of a warp may have split: the warp acts as one "
                           "party, so all of its lanes must reach it together", span, notes=notes,
                           help="move it out of the branch, or make the condition the same for the whole warp "
                                "(e.g. test `warp`, not `lane`)")
        else:
            ctx.sink.error("E0704", f"{what_here} is under control flow that differs between the threads of "
                           f"{_ARRAY_WORD[level]} (it changes from {_ONE_TO_THE_NEXT[split]}): threads that skip it "
                           "leave the others waiting forever", span, notes=notes,
                           help=f"move it out of the branch or loop, or make the condition the same for all of "
                                f"{_ARRAY_WORD[level]}")
    _collective_in_when(facts, ctx)


def _ends_a_judged_hold(facts: Facts, label: str, ins: Instr, inside) -> bool:
    """A release (`unlock`, `post`) of what the party took where its threads were no less split
    than here (the end of `critical m { }` or `acquire s { }`, or an `unlock` as uniform as its
    `lock`): the acquire was judged, and the release adds nothing to say. A `post` with no wait
    before it (a producer's), or a release more split than its acquire, is judged itself."""
    if ins.op not in UNLOCKS or ins.ref is None:
        return False
    key = facts.value_key(ins.ref.index)
    here = facts.divergence(label)
    return any(h.prim == ins.ref.name and h.value == key and facts.divergence(facts.where[id(h.site)][0]) >= here
               for h in inside.get(id(ins), ()))


def _met_on_every_arm(facts: Facts, label: str) -> bool:
    """A `syncwarp()` under a branch that splits the warp is legal when every lane meets the warp
    as often as every other before the sides join: for each branch that splits the warp around
    `label`, every path through either arm passes the same number (at least one) of full-mask
    `syncwarp()`s. A full-mask `syncwarp()` only on one side, or once on one side and twice on the
    other, waits for lanes that never come (or pairs with the wrong meeting)."""
    cfg = facts.cfg
    for x in cfg.labels:
        term = cfg.blocks[x].term
        if not isinstance(term, Branch) or x not in cfg.reachable or facts.is_party_branch(x) \
                or facts.uni.level(term.cond) <= WARP:
            continue
        join = cfg.ipdom(x)
        if not any(label in cfg.reach([s], join) for s in (term.if_true, term.if_false)):
            continue
        counts = [_meetings(cfg, s, join) for s in (term.if_true, term.if_false)]
        if None in counts or len(counts[0]) != 1 or counts[0] != counts[1] or counts[0] == {0}:
            return False
    return True


def _meetings(cfg, start: str, join) -> set[int] | None:
    """How many full-mask `syncwarp()`s a lane passes on the paths from `start` to `join`, one
    number per path; None when a path goes round a loop or ends the thread before `join`."""
    memo: dict[str, frozenset] = {}
    on_path: set[str] = set()

    def count(x: str) -> frozenset | None:
        if x == join:
            return frozenset([0])
        if x in memo:
            return memo[x]
        succs = cfg.succs[x]
        if x in on_path or not succs:
            return None
        on_path.add(x)
        here = sum(i.op == "warp.sync" and i.attr("party") is None and getattr(i.args[0], "value", None)
                   == 0xFFFFFFFF for i in cfg.blocks[x].instrs)
        out: set[int] = set()
        for succ in succs:
            after = count(succ)
            if after is None:
                return None
            out |= {here + n for n in after}
        on_path.discard(x)
        memo[x] = frozenset(out)
        return memo[x]

    found = count(start)
    return None if found is None else set(found)


def _once(told: set, ins: Instr, span) -> bool:
    """Report a call once, however many collectives inside it are reached."""
    if span is ins.span:
        return True
    if span in told:
        return False
    told.add(span)
    return True


def _thread_section(facts: Facts, ins: Instr, inside):
    """The section of a @thread mutex, rwlock or semaphore that a collective is inside, if any."""
    return next((h for h in inside.get(id(ins), ()) if facts.k.prim(h.prim).granularity == "thread"), None)


def _report_in_section(facts: Facts, section, what: str, span, notes, what_here: str, ctx: PassContext) -> None:
    """A collective inside the section of a @thread mutex, rwlock or semaphore: the lanes of a warp
    go in one at a time (or a few), so the lane inside waits at the collective for lanes that wait
    for it to leave. Stack-based reconvergence hides it on Fermi; under independent thread
    scheduling it deadlocks (seed 003 section 3.2). A `syncwarp()` or a @warp operation there is
    E0707, a barrier E0704."""
    prim = facts.k.prim(section.prim)
    code = "E0707" if what.startswith(("@warp", "`syncwarp()`")) else "E0704"
    ctx.sink.error(code, f"{what_here} is inside the section of the @thread {prim.kind} `{section.prim}`, which the "
                   "threads of a warp enter a few at a time: the ones inside wait here for the ones that wait "
                   "for them to leave", span,
                   notes=[*notes, Note(f"`{section.prim}` is held from here", section.site.span)],
                   help="meet before taking it or after releasing it, or declare it @warp so the warp enters "
                        "as one party")


def _splitting_branches(facts: Facts) -> dict[str, list[tuple[int, Branch]]]:
    """For each block, the branches it depends on whose condition varies: (level, branch).
    The compiler's own leader branches are not counted (as in Facts.divergence)."""
    cfg, out = facts.cfg, {}
    for label in cfg.labels:
        term = cfg.blocks[label].term
        if not isinstance(term, Branch) or label not in cfg.reachable or facts.is_party_branch(label):
            continue
        level = facts.uni.level(term.cond)
        if level == GRID:
            continue
        join, seen, todo = cfg.ipdom(label), set(), list(cfg.succs[label])
        while todo:
            x = todo.pop()
            if x == join or x in seen:
                continue
            seen.add(x)
            out.setdefault(x, []).append((level, term))
            todo.extend(cfg.succs[x])
    return out


def _outermost(branches, level: int) -> Branch | None:
    """The outermost branch (in calls: the one inlined through the fewest) that splits the threads
    wider than `level`."""
    splitting = [term for split, term in branches if split > level]
    return min(splitting, key=lambda term: len(inlined_calls(term.span)), default=None)


def _thread_free(facts: Facts, index) -> bool:
    """Is an index computed from constants, parameters, block indices and the launch shape only (it
    may still vary where it is assigned under a branch the threads disagree on: a loop counter)?"""
    for ins in facts.sources(index):
        if ins.op == "sreg" and not ins.attr("reg").startswith(("ctaid", "nctaid", "ntid")):
            return False
        if ins.info.group not in ("arith", "special"):
            return False
    return True


def _why_split(facts: Facts, branch: Branch | None, level: int) -> list[Note]:
    """Where a condition read from memory could be the same for everyone and is not: a shared word
    read between the same two block barriers as a store to it, or a global word read without
    `load_cg` (analysis/uniformity.py)."""
    if branch is None:
        return []
    uni = facts.uni
    for load in facts.sources(branch.cond):
        if load.op != "ld" or load.ref.name not in uni.written or uni.level(load.dests[0]) <= level:
            continue
        array = facts.k.array(load.ref.name)
        if array is None or array.kind == "state" or not _thread_free(facts, load.ref.index):
            continue
        if array.space == "shared" and level >= BLOCK:
            at = uni.writer_beside(load, "block")
            if at is not None:
                store = facts.cfg.blocks[at[0]].instrs[at[1]]
                explained_reads(facts).add(id(load))
                return [Note(f"the condition reads `{array.name}` here, and a store to it can run between the "
                             "same two barriers, so threads can read different values", load.span),
                        Note("the store: put a `barrier` between it and the read", store.span)]
        if array.space == "global" and level == GRID:
            at = uni.writer_beside(load, "grid")
            store = facts.cfg.blocks[at[0]].instrs[at[1]] if at is not None else None
            if store is not None:
                explained_reads(facts).add(id(load))
                return [Note(f"the condition reads `{array.name}` here, and a store to it can run between the "
                             "same two grid barriers, so threads can read different values", load.span),
                        Note("the store: put a grid barrier's `sync` between it and the read", store.span)]
            if load.attr("cache") != "cg":
                return [Note(f"the condition reads `{array.name}` here through L1, which can hold a stale copy "
                             "(Fermi's is not coherent): read it with `load_cg` to have the grid agree", load.span)]
    return []


def _at_call(ins: Instr, what: str, outer: tuple) -> tuple:
    """(where to report, notes, what to call it) for a collective: the operation itself, or, when it
    was inlined from a function called below `outer` (the calls the cause was inlined through), the
    outermost such call, with a note at the operation inside the function."""
    calls = inlined_calls(ins.span)
    if len(calls) <= len(outer) or calls[:len(outer)] != outer:
        return ins.span, _callers(calls), what
    call, name = calls[len(outer)]
    inner = calls[-1][1]
    via = "".join(f", called from `{n}`" for _, n in reversed(calls[len(outer):-1]))
    the = "the " + what[2:] if what.startswith("a ") else what
    return call, [Note(f"{the} inside `{inner}`{via}", ins.span), *_callers(outer)], \
        f"this call of `{name}`, which reaches {what},"


def _callers(calls: tuple) -> list[Note]:
    """Where the function the report lies in was called (it is inlined at each call)."""
    return [Note(f"in this call of `{calls[-1][1]}`", calls[-1][0])] if calls else []


def _meets_lanes_only(k: Kernel, ins: Instr) -> bool:
    """`syncwarp()`, or the `sync` of a `@warp` barrier `using syncwarp`: a meeting of a warp's
    lanes and nothing more, which compiles to nothing on Fermi."""
    if ins.op == "warp.sync":
        return True
    prim = k.prim(ins.ref.name) if ins.op == "prim.sync" and ins.ref is not None else None
    return prim is not None and implementation(prim).meets_lanes_only


def _needs(k: Kernel, ins: Instr) -> tuple[int, str] | None:
    """(the widest divergence allowed, what the operation is) for a collective operation. A
    @warp/@block statement is judged at its operations, not at the meetings the compiler added
    around them (party=sync). A release is one too (the party meets before its leader releases),
    judged where it ends no hold that was judged already (_ends_a_judged_hold)."""
    if ins.attr("party") is not None:
        return None
    if ins.op == "warp.sync":       # the program's syncwarp() (judged only inside a @thread section)
        return WARP, "`syncwarp()`"
    if ins.op == "bar.sync" and len(ins.args) == 1:
        return BLOCK, "a block barrier"
    if ins.op in ("bar.sync", "bar.arrive"):
        return WARP, "a named barrier"
    if ins.info.group != "prim" or ins.ref is None:
        return None
    prim = k.prim(ins.ref.name)
    if prim is None:
        return None
    if prim.granularity == "grid":
        return GRID, f"the grid barrier `{prim.name}`" if ins.op == "prim.sync" else f"`{_stmt(ins)} {prim.name}`"
    key = ins.attr("queue") or ins.op
    if key == "queue.await":            # an mbarrier queue's wait: the put's or the get's
        key = "queue.reserve" if prim.name.endswith(".space") else "queue.claim"
    queue = _QUEUE_STMT.get(key)
    if queue is not None and prim.granularity in ("warp", "block"):    # name the statement and the queue
        return (BLOCK if prim.granularity == "block" else WARP), \
            queue.format(prim.granularity, prim.name.rsplit(".", 1)[0])
    if prim.granularity == "block":
        return BLOCK, f"`{_stmt(ins)}` on the @block {prim.kind} `{prim.name}`"
    if prim.granularity == "warp":
        if implementation(prim).named_barriers(prim):
            return WARP, f"the named barrier `{prim.name}`"
        return WARP, f"@warp {prim.kind} `{prim.name}`"
    return None


# A queue's operations as the statements a program writes (impls/queue/ring_party.py), by op or by
# the `queue=` of a latch operation
_QUEUE_STMT = {"queue.reserve": "`put` on the @{} queue `{}`", "queue.claim": "`get` on the @{} queue `{}`",
               "queue.tryreserve": "`tryput` on the @{} queue `{}`", "queue.tryclaim": "`tryget` on the @{} queue `{}`",
               "queue.next": "`for` loop over the @{} queue `{}`", "close": "`close` of the @{} queue `{}`",
               "for": "end of a `for` loop over the @{} queue `{}`", "queue.publish": "`put` on the @{} queue `{}`",
               "queue.free": "`get` on the @{} queue `{}`"}


def _stmt(ins: Instr) -> str:
    return ins.op.split(".")[1]


# ---- E0704 / E0707: a meeting inside a `when` body ------------------------------------------------

def _collective_in_when(facts: Facts, ctx: PassContext) -> None:
    """A `when` body runs inside its polling loop, lane by lane as the inputs come (structure.py):
    a barrier or warp meeting there is reached by the threads served so far, while the others
    still poll for values that may come only from threads held at the meeting."""
    from ..analysis.wait_regions import is_collective
    k = facts.k
    ends = {}
    for b, i, ins in k.instructions():
        if ins.op == "region.end":
            ends[ins.attr("region")] = (b.label, i)
    told = set()
    for b, i, ins in k.instructions():
        region = ins.attr("region")
        if ins.op != "chan.get" or region is None or region in told or region not in ends:
            continue
        prim = k.prim(ins.ref.name)
        if prim is None or prim.granularity != "thread":
            continue
        told.add(region)
        end = ends[region]
        for label in _between(facts, (b.label, i), end):
            for j, meet in enumerate(facts.cfg.blocks[label].instrs):
                if not is_collective(k, meet) or meet.attr("party") == "sync" and meet.op == "warp.sync" \
                        or (label, j) <= (b.label, i) and label == b.label or label == end[0] and j >= end[1]:
                    continue
                warp = meet.op == "warp.sync" or meet.ref is not None and k.prim(meet.ref.name) is not None \
                    and k.prim(meet.ref.name).granularity == "warp" and k.prim(meet.ref.name).count is None
                code = "E0707" if warp else "E0704"
                what = "this warp meeting" if warp else "this barrier"
                ctx.sink.error(code, f"{what} is inside the body of a `when` on `{prim.name}`, which each thread "
                               "runs inside its polling loop as soon as its inputs come: the threads served first "
                               "meet here without the ones still polling, whose inputs may come only after it",
                               meet.span, notes=[Note("the `when` is here", ins.span)],
                               help="move it after the `when` (or before it), so that every thread reaches it "
                                    "whatever the order its inputs come in")
                break
            else:
                continue
            break


def _between(facts: Facts, start: tuple[str, int], end: tuple[str, int]) -> list[str]:
    """The blocks on paths from `start` to `end` (both included)."""
    seen, todo = [], [start[0]]
    while todo:
        x = todo.pop()
        if x in seen:
            continue
        seen.append(x)
        if x != end[0]:
            todo.extend(facts.cfg.succs[x])
    return seen
