"""Loops that retry a single attempt until it succeeds: waits written by hand.

    while !got { if trywait s for 8 { got = true } }
    while true { if tryput q = v { break } }
    var done = false; while !done { done = tryput q = v }

A loop whose every way out passes a success of its one attempt (`trywait`, `trywait ... for`,
a queue's `tryput` or `tryget`, `trylock`) takes what the attempt takes exactly as the
blocking operation would, at least once each time the loop runs: it can only end once an
attempt has had its permit, slot or value. So the analyses count it as that blocking wait
(docs/language.md, "Bounded `trywait`": a retry loop "is judged as a wait"), each execution of
the loop one wait, with its instances those of the block that enters the loop.

That every exit follows a success is a forward dataflow over the loop's blocks: a state says
whether this execution of the loop has already seen a successful attempt, and which boolean
registers, where true (or false), imply that it has (the attempt's own result; `got = true`
set only on its success edge; `!`, `&&`, `||` of those; a flag that starts false before the
loop: false implies anything). An exit edge, or a `return` inside the loop, where success is
not known refuses the loop: it may end without taking anything (a bounded number of rounds,
`while x < 10`), and then it is no wait.

At `@warp` and `@block` the leader makes the attempt for its party and the members learn its
answer: a `@warp` semaphore's by a vote (`vote.any` of the flag, false in the other lanes), the
others through a shared word the leader stores and every member loads once the party has met
(`_told`). The dataflow follows both, so a party's retry loop is its party's wait too.
"""
from __future__ import annotations

from ...core.prebuilt import dataclass
from ..nodes import Branch, Imm, Instr, Reg, Return
from ..analysis.facts import Facts, Loop

# a single attempt, as the analyses read it (a queue's try is its semaphore's) → what ends its failures
ATTEMPTS = {"sem.trywait": "sem.post", "sem.tryfor": "sem.post", "mutex.trylock": "mutex.unlock"}


@dataclass(frozen=True)
class Retry:
    """A loop that retries `attempt` until it succeeds."""
    loop: Loop
    attempt: Instr
    label: str             # the attempt's block
    entry: str             # the block that enters the loop: one instance per execution of it
    after: frozenset[str]  # blocks of the loop reached only after a success, none of which can lead
                           # to another attempt: they run at most once each time the loop runs
    once: bool             # no attempt follows a success: each time it runs, the loop takes one


def retries(facts: Facts) -> list[Retry]:
    """Every loop of the kernel that goes round until its one attempt succeeds (memoized)."""
    if "retries" not in facts.memo:
        facts.memo["retries"] = [r for lp in facts.loops if (r := _retry(facts, lp)) is not None]
    return facts.memo["retries"]


def _retry(facts: Facts, loop: Loop) -> Retry | None:
    if loop.head in facts.space.counted:
        return None                # a counted loop ends however its attempts fare
    cfg = facts.cfg
    attempts = [(label, ins) for label in loop.blocks for ins in cfg.blocks[label].instrs
                if ins.judged_as in ATTEMPTS]
    if len(attempts) != 1:
        return None                # (several attempts: which one's success ends it?)
    label, attempt = attempts[0]
    if attempt.attr("party") is not None or facts.loop_of(label) != loop:
        return None                # (a party's attempt marked as such); an attempt in an inner loop
    prim = facts.k.prim(attempt.ref.name)
    if prim is None:
        return None
    entries = [x for x in cfg.preds[loop.head] if x not in loop.blocks and x in cfg.reachable]
    if len(entries) != 1 or cfg.blocks[entries[0]].term.targets != (loop.head,):
        return None
    # a @warp/@block party's attempt is its leader's, and the members learn its answer (told below)
    told = _told(facts, loop, attempt) if prim.granularity != "thread" else {}
    states = _success_states(facts, loop, attempt, entries[0], told)
    if states is None:
        return None
    after = frozenset(x for x, state in states.items() if state is None)
    once = label not in _after_success(facts, loop, attempt, states, told)
    if not once:
        after = frozenset()       # a success can be followed by another attempt: how often each runs is not known
    return Retry(loop, attempt, label, entries[0], after, once)


def _after_success(facts: Facts, loop: Loop, attempt: Instr, states: dict, told: dict) -> set[str]:
    """The loop's blocks a thread can reach after this execution's success, without leaving the
    loop: from each edge on which success becomes known, with the branch's condition known,
    following boolean constants (`got = true`, `!got`) so that a test they decide takes one way."""
    cfg = facts.cfg
    start: list[tuple[str, dict]] = []
    for x, state in states.items():
        if state is None:
            continue
        out = state
        for ins in cfg.blocks[x].instrs:
            out = _step(out, ins, attempt, told)
        term = cfg.blocks[x].term
        for (target, edge), value in zip(_edges(out, term), (True, False)):
            if edge is None and target in loop.blocks and isinstance(term, Branch) and isinstance(term.cond, Reg):
                start.append((target, {term.cond.name: value}))
    seen: dict[str, dict] = {}
    todo = start
    while todo:
        x, env = todo.pop()
        if x in seen:
            joined = {k: v for k, v in seen[x].items() if env.get(k) == v}
            if joined == seen[x]:
                continue
            env = joined
        seen[x] = env
        known = dict(env)
        for ins in cfg.blocks[x].instrs:
            _propagate(known, ins)
        term = cfg.blocks[x].term
        targets = term.targets
        if isinstance(term, Branch):
            cond = term.cond.value if isinstance(term.cond, Imm) else known.get(getattr(term.cond, "name", None))
            if cond is not None:
                targets = (term.if_true if cond else term.if_false,)
        todo.extend((t, known) for t in targets if t in loop.blocks)
    return set(seen)


def _propagate(known: dict, ins: Instr) -> None:
    """Boolean constants through one instruction: what `mov` and `not` make of known values."""
    value = None
    if ins.op in ("mov", "not") and ins.dests:
        a = ins.args[0]
        value = a.value if isinstance(a, Imm) else known.get(a.name) if isinstance(a, Reg) else None
        if value is not None and ins.op == "not":
            value = not value
    for d in ins.dests:
        known.pop(d.name, None)
    if value is not None:
        known[ins.dests[0].name] = bool(value)


# ---- the dataflow --------------------------------------------------------------------------------
# A state is None (success already seen: every register implies it) or a dict register name →
# (true implies success, false implies success) for the registers known to say something.

def leaves_only_after(facts: Facts, loop: Loop, label: str) -> bool:
    """Can the loop (entered once, from one block) end only after block `label` has run in this
    execution of it? The same dataflow, with reaching `label` as the success: `var done = false;
    while !done { if try() { ...; done = true } }` runs the body of its `if` before it ends."""
    if loop.head in facts.space.counted or label not in loop.blocks:
        return False
    cfg = facts.cfg
    entries = [x for x in cfg.preds[loop.head] if x not in loop.blocks and x in cfg.reachable]
    if len(entries) != 1 or cfg.blocks[entries[0]].term.targets != (loop.head,):
        return False
    return _success_states(facts, loop, None, entries[0], {}, reached=label) is not None


def _success_states(facts: Facts, loop: Loop, attempt: Instr | None, entry: str, told: dict,
                    reached: str | None = None) -> dict | None:
    """The state at the start of each block of the loop, or None when the loop can end (or its
    thread return) without a success (an attempt's, or reaching block `reached`)."""
    cfg = facts.cfg
    start = {name: flags for name, flags in _entering(facts, loop, entry).items() if any(flags)}
    states: dict[str, object] = {loop.head: start}
    todo = [loop.head]
    while todo:
        label = todo.pop()
        state = None if label == reached else states[label]
        for ins in cfg.blocks[label].instrs:
            state = _step(state, ins, attempt, told)
        term = cfg.blocks[label].term
        if isinstance(term, Return):
            if state is not None:
                return None        # a thread can leave without a success
            continue
        for target, edge in _edges(state, term):
            if target not in loop.blocks:
                if edge is not None:
                    return None    # an exit where no attempt needs to have succeeded
                continue
            if target in states:
                joined = _join(states[target], edge)
                if joined == states[target]:
                    continue
                states[target] = joined
            else:
                states[target] = edge
            todo.append(target)
    return states


def _entering(facts: Facts, loop: Loop, entry: str) -> dict[str, tuple[bool, bool]]:
    """What the registers say as the loop is entered: a flag every definition of which that can
    reach the entry sets to a constant (false implies anything when true, and true when false).
    A definition inside the loop reaching the entry (from an earlier execution) says nothing."""
    out = {}
    for ins in (i for x in loop.blocks for i in facts.cfg.blocks[x].instrs):
        for d in ins.dests:
            if d.name in out:
                continue
            values = _reaching_constants(facts, loop, entry, d.name)
            if values is not None:
                out[d.name] = (values == {False}, values == {True})
    return out


def _reaching_constants(facts: Facts, loop: Loop, entry: str, name: str) -> set | None:
    """The constants the definitions of `name` reaching the end of `entry` give it, or None when
    one of them is not a constant, lies inside the loop, or the register may be undefined."""
    cfg, found, seen = facts.cfg, set(), set()
    todo = [entry]
    while todo:
        x = todo.pop()
        if x in seen:
            continue
        seen.add(x)
        d = next((i for i in reversed(cfg.blocks[x].instrs) if any(r.name == name for r in i.dests)), None)
        if d is not None:
            if x in loop.blocks or d.op != "mov" or not isinstance(d.args[0], Imm):
                return None
            found.add(bool(d.args[0].value))
            continue
        if x == cfg.entry:
            return None
        todo.extend(cfg.preds[x])
    return found


def _told(facts: Facts, loop: Loop, attempt: Instr) -> dict[str, str]:
    """How a party's leader tells its members the answer of its attempt (ir/lower/sync.py,
    impls/queue/ring_party.py): array name → "ne0" where every store to it inside the loop is the
    attempt's flag as an integer (`cvt`: nonzero on success), "ge0" where it is the ticket taken or
    -1 (`select took, ticket, -1`: a ticket is never negative). A member's `ld` of it after the
    party meets reads the leader's answer. (A `@warp` semaphore's members vote instead: `_step`.)"""
    flag = attempt.dests[0].name if attempt.dests else None
    defs: dict[str, list[Instr]] = {}
    stores: dict[str, list[Instr]] = {}
    for x in loop.blocks:
        for ins in facts.cfg.blocks[x].instrs:
            for d in ins.dests:
                defs.setdefault(d.name, []).append(ins)
            if ins.op == "st":
                stores.setdefault(ins.ref.name, []).append(ins)

    def kind(v) -> str | None:
        found = defs.get(v.name, []) if isinstance(v, Reg) else []
        if len(found) != 1:
            return None
        d = found[0]
        if d.op == "cvt" and isinstance(d.args[0], Reg) and d.args[0].name == flag and all(
                i is attempt or i.op == "mov" and isinstance(i.args[0], Imm) and not i.args[0].value
                for i in defs.get(flag, [])):
            return "ne0"
        if (d.op == "select" and isinstance(d.args[0], Reg) and d.args[0].name == flag and len(attempt.dests) > 1
                and isinstance(d.args[1], Reg) and d.args[1].name == attempt.dests[1].name
                and isinstance(d.args[2], Imm) and d.args[2].value == -1 and defs.get(flag) == [attempt]):
            return "ge0"
        return None
    out = {}
    for name, sts in stores.items():
        kinds = {kind(st.args[1]) for st in sts}
        if len(kinds) == 1 and None not in kinds:
            out[name] = kinds.pop()
    return out


def _step(state, ins: Instr, attempt: Instr, told: dict | None = None):
    if state is None:
        return None
    if not ins.dests:
        return state

    def says(a) -> tuple[bool, bool]:
        if isinstance(a, Imm):
            return (not a.value, bool(a.value))
        return state.get(a.name, (False, False)) if isinstance(a, Reg) else (False, False)

    if ins is attempt:
        flags = (True, False)      # its result: true only when it took what it tried for
    elif ins.op == "mov":
        flags = says(ins.args[0])
    elif ins.op == "not":
        t, f = says(ins.args[0])
        flags = (f, t)
    elif ins.op in ("and", "or") and ins.dests[0].type.name == "bool":
        (ta, fa), (tb, fb) = says(ins.args[0]), says(ins.args[1])
        flags = (ta or tb, fa and fb) if ins.op == "and" else (ta and tb, fa or fb)
    elif ins.op == "vote.any" and told is not None:
        flags = (says(ins.args[0])[0], False)      # some lane's flag: the leader's, for its party
    elif ins.op == "ld" and told and ins.attr("uniform") and ins.ref.name in told:
        out = {k: v for k, v in state.items() if k != ins.dests[0].name}
        out[("told", ins.dests[0].name)] = told[ins.ref.name]
        return out
    elif ins.op in ("cmp.ne", "cmp.ge") and isinstance(ins.args[0], Reg) and isinstance(ins.args[1], Imm) \
            and ins.args[1].value == 0 and state.get(("told", ins.args[0].name)) == ins.op[4:] + "0":
        flags = (True, False)                      # the member's reading of its leader's success
    else:
        flags = (False, False)
    out = {k: v for k, v in state.items() if all(k != d.name and k != ("told", d.name) for d in ins.dests)}
    if any(flags):
        out[ins.dests[0].name] = flags
    return out


def _edges(state, term):
    """(target, the state along the edge) for each edge out of a block ending in `term`."""
    if not isinstance(term, Branch) or state is None:
        return [(t, state) for t in term.targets]
    flags = state.get(term.cond.name, (False, False)) if isinstance(term.cond, Reg) else (False, False)
    return [(term.if_true, None if flags[0] else state), (term.if_false, None if flags[1] else state)]


def _join(a, b):
    if a is None:
        return b
    if b is None:
        return a
    told = {k: a[k] for k in a.keys() & b.keys() if isinstance(k, tuple) and a[k] == b[k]}
    return told | {k: (a[k][0] and b[k][0], a[k][1] and b[k][1]) for k in a.keys() & b.keys()
                   if not isinstance(k, tuple) and ((a[k][0] and b[k][0]) or (a[k][1] and b[k][1]))}
