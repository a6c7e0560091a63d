"""Waits that too few providers can end: counting over the launch.

    E0705  a semaphore waited on more often than its permits and every post that can run allow;
           a latch counted down fewer times than its count; a semaphore or latch whose every post
           or count-down comes after a wait that can never end (so none ever comes)
           (a hand-written counting barrier: counting_barriers.py)
    E0721  a named barrier whose threads per phase, counted over the launch, differ from its count
           (an element of a block that only `arrive`s reach, and no `sync`, holds no one up)

Counts are taken over the instances of each operation (analysis/space.py): every thread of the launch
and every round of a counted loop, a party (@warp, @block) counted once. Waits must be counted
exactly (no condition on data decides who waits) and posts at most (conditions on data count
as if they all ran); where neither can be counted, `syncc explain` says so.
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ..context import PassContext
from ..nodes import Imm, Instr
from ..analysis.facts import Facts
from ..analysis.permits import amounts, weigh
from .held import _same_threads, lock_like
from .retries import retries
from .waitfor import _PARTY_COLUMN, Blocking, blocking_operations, reported_waits, section_waits

CODES = ("E0705", "E0721")      # what it reports (tests/ir/test_hazard_checks.py)


def check_counts(facts: Facts, ctx: PassContext) -> None:
    blocking = blocking_operations(facts)
    sections = section_waits(facts)
    reported = reported_waits(facts)
    if blocking or sections:
        never_provided(facts, blocking + sections, reported, ctx)
        _more_than_ever_there(facts, blocking + sections, reported, ctx)
        _counts(facts, blocking, reported, ctx)
    _named_barrier_counts(facts, ctx)


# ---- E0705: nothing can ever provide ------------------------------------------------------------

def never_provided(facts: Facts, blocking: list[Blocking], reported: set, ctx: PassContext) -> None:
    """Semaphores and latches that no thread can ever post or count down: their counts start
    too low, and every post (count-down) comes after a wait that can never end. A fixed point:
    a primitive is *live* when it starts with a permit (a latch: never), or some post of it is
    reachable from the kernel's start through waits on live primitives only."""
    k = facts.k
    kinds = ("semaphore", "latch")
    waits = [w for w in blocking if w.kind in kinds]
    if not waits:
        return
    gate = _gates(facts)
    live = {p.name for p in k.prims if p.kind == "semaphore" and (p.count or 0) > 0}
    providers = {w.site.ref.name: w.providers for w in waits}
    changed = True
    while changed:
        changed = False
        for name, provs in providers.items():
            if name in live:
                continue
            if any(_reachable_through(facts, label, ins, gate, live) for label, ins in provs):
                live.add(name)        # (a latch counted down too few times: _counts says how many)
                changed = True
    for w in waits:
        name = w.site.ref.name
        if name in live or id(w.site) in reported:
            continue
        prim = k.prim(name)
        reported.add(id(w.site))
        blockers = sorted({i.ref.name for lbl, ins in w.providers for i in _first_blockers(facts, lbl, ins, gate, live)})
        if len(blockers) > 1 and name in blockers:
            blockers.remove(name)
        queue, role = queue_part(name)
        if not w.providers:
            why = "nothing in this kernel posts it" if prim.kind == "semaphore" else "nothing counts it down"
        elif blockers:
            why = (f"every {'post' if prim.kind == 'semaphore' else 'count-down'} of it comes after a wait on "
                   + ", ".join(f"`{queue_part(b)[0]}`" for b in blockers) + ", which can never end either")
        else:
            why = "it is counted down fewer times than its count"
        start = (f"`{name}` starts with {prim.count or 0} permits and " if prim.kind == "semaphore" else
                 f"the latch `{name}` opens after {prim.count} count-downs, and ")
        help = ("post (count down) before anyone waits for it, from a thread that does not wait first, "
                "or give it an initial count")
        if role == "closed":       # a queue's `close`s are its latch's count-downs
            start = f"`{queue}` closes after {prim.count} `close`{'s' if prim.count != 1 else ''}, and "
            why = why.replace("counts it down", "closes it").replace("count-down", "`close`").replace(
                "counted down", "closed")
            help = "close the queue in each thread that puts into it, after its last `put`"
        elif role in _QUEUE_WORDS:     # its free slots (puts wait) or its values (gets wait)
            full, provide, verb = _QUEUE_WORDS[role]
            start = f"`{queue}` {full(prim.count or 0)} and "
            why = why.replace("nothing in this kernel posts it", f"{provide} `{queue}`").replace(
                "every post of it", f"every {verb}")
            help = f"{provide} `{queue}` once for every value that waits for it, from threads that do not wait first"
        ctx.sink.error("E0705", f"{w.what} never ends: {start}{why}", w.site.span,
                       notes=[Note(f"`{queue}` is declared here", prim.span)], help=help)


def queue_part(name: str) -> tuple[str, str | None]:
    """(the queue, which part) for a queue's semaphore or latch (`q.space`: its free slots, `q.items`:
    its values, `q.closed`: its close count); (name, None) for a primitive of the program's own.
    (A program's names have no dot: a dotted name is a part lowering made.)"""
    queue, _, role = name.rpartition(".")
    return (queue, role) if queue else (name, None)


# a queue's counting semaphore → (how full it starts, who posts it, what posting it is)
_QUEUE_WORDS = {"space": (lambda c: f"is full after {c} `put`{'s' if c != 1 else ''}", "nothing in this kernel "
                          "takes a value from", "`get` of it"),
                "items": (lambda c: "starts empty", "nothing in this kernel puts a value into", "`put` into it")}


def _reachable_through(facts: Facts, label: str, ins: Instr, gate, live) -> bool:
    """Can a thread reach `ins` from the kernel's start passing only waits on live primitives?"""
    return _path_avoiding(facts, label, ins, gate, live)


def _gates(facts: Facts) -> dict[str, list[tuple[int, Instr]]]:
    """block label → (position, wait) of the waits that hold a thread up in that block before
    the position: each @thread semaphore or latch wait where it stands, and each loop retrying
    an attempt until it succeeds (retries.py) at the start of the blocks its exits lead to (only
    a success gets a thread there), where nothing else leads."""
    gate: dict[str, list[tuple[int, Instr]]] = {}
    for b, i, ins in facts.k.instructions():
        if ins.judged_as in ("sem.wait", "latch.wait") and ins.attr("party") is None:
            gate.setdefault(b.label, []).append((i, ins))
    for r in retries(facts):
        for _, out in r.loop.exits:
            if all(p in r.loop.blocks for p in facts.cfg.preds[out]):
                gate.setdefault(out, []).append((-1, r.attempt))
    return gate


def _first_blockers(facts: Facts, label: str, ins: Instr, gate, live) -> list[Instr]:
    """The waits on primitives not live that lie on some path to `ins` (for the message)."""
    index = facts.where[id(ins)][1]
    out = []
    for x, found in gate.items():
        for at, w in found:
            if w.ref.name in live or w is ins or w in out:
                continue
            if x == label and at < index or facts.reaches((x, at), (label, index)):
                out.append(w)
    return out


def _path_avoiding(facts: Facts, label: str, ins: Instr, gate, live) -> bool:
    """Is there a path from the entry to `ins` through no wait on a dead primitive?"""
    cfg = facts.cfg
    index = facts.where[id(ins)][1]

    def blocked(x, upto=None):
        if any(w.ref.name not in live and (upto is None or at < upto) for at, w in gate.get(x, ())):
            return True
        # a @warp/@block party's leader waits for everyone: the lanes that skip its branch meet it after
        return upto is None and facts.is_party_branch(x) and any(
            w.ref.name not in live for _, w in gate.get(cfg.blocks[x].term.if_true, ()))

    seen, todo = set(), [cfg.entry]
    while todo:
        x = todo.pop()
        if x in seen:
            continue
        seen.add(x)
        if x == label:
            if not blocked(x, index):
                return True
            continue
        if blocked(x):
            continue
        todo.extend(cfg.succs[x])
    return False


# ---- E0705: more permits at once than a semaphore ever has ----------------------------------------

def _more_than_ever_there(facts: Facts, waits: list[Blocking], reported: set, ctx: PassContext) -> None:
    """A wait for k permits at once (`wait s(k)`, `acquire s(k)`) where k is more than the semaphore
    can ever hold: its initial count and every post that is not the end of a section (`acquire`'s
    post gives back what its wait took, so it never raises the count above that)."""
    if not facts.threads.every_block:
        return
    for w in waits:
        ins = w.site
        if w.kind != "semaphore" or id(ins) in reported or _one_permit(ins) or not ins.info.permits:
            continue
        prim = facts.k.prim(ins.ref.name)
        free = [(label, p) for label, p in w.providers if not _gives_back(facts, p)]
        posts = per_instance(facts, prim, free, upper=True)
        need = amounts(facts, w.label, ins, upper=False)
        col = facts.value(ins.ref.index, w.label)
        inst = facts.instances(w.label)
        if posts is None or need is None or col is None or col[1] or inst is None:
            continue
        for n, row in enumerate(inst.thread):
            key = col[0][n] if prim.placement == "global" else (facts.threads.columns["block"][row], col[0][n])
            most = (prim.count or 0) + posts.get(key, 0)
            k = weigh(need, n)
            if k > most:
                reported.add(id(ins))
                ctx.sink.error("E0705", f"{w.what} never ends: it takes {k} permits at once, and "
                               f"{instance_name(facts, prim, key)} never has more than {most} (it starts with "
                               f"{prim.count or 0}, and {_at_most(posts.get(key, 0))} more are posted, besides "
                               "the permits sections give back)", ins.span,
                               notes=[Note(f"`{prim.name}` is declared here", prim.span)],
                               help="take at most as many permits as the semaphore can have, or declare it with more")
                break


def _gives_back(facts: Facts, post: Instr) -> bool:
    """Does the post give back what a wait of the same thread took (`acquire`'s end, or a `post s(k)`
    after a `wait s(k)` of the same instance and the same k, which holds.lock_like reads as a hold)?"""
    if post.attr("region") is not None:
        return True
    at, key = facts.where[id(post)], facts.value_key(post.ref.index)
    return any(i.judged_as == "sem.wait" and id(i) in lock_like(facts) and i.ref.name == post.ref.name
               and facts.value_key(i.ref.index) == key and i.permits == post.permits
               and facts.reaches(facts.where[id(i)], at) and _same_threads(facts, facts.where[id(i)][0], at[0])
               for _, _, i in facts.k.instructions())


# ---- E0705: counts ---------------------------------------------------------------------------------

def _counts(facts: Facts, blocking: list[Blocking], reported: set, ctx: PassContext) -> None:
    """A semaphore whose waits outnumber its permits plus every post that can run; a latch
    counted down fewer times than its count while someone waits for it."""
    t = facts.threads
    if not t.every_block:
        facts.undecided(ctx, f"whether semaphores and latches are posted enough: the launch has {t.shape.blocks} "
                        "blocks, more than the analyses enumerate", facts.k.span)
        return
    by_prim: dict[str, list[Blocking]] = {}
    for w in blocking:
        if w.kind in ("semaphore", "latch") and id(w.site) not in reported:
            by_prim.setdefault(w.site.ref.name, []).append(w)
    for name, waits in by_prim.items():
        prim = facts.k.prim(name)
        posts = per_instance(facts, prim, waits[0].providers, upper=True)
        if posts is None:
            facts.undecided(ctx, f"how many times `{name}` is {'posted' if prim.kind == 'semaphore' else 'counted down'}"
                            ": an index or a loop around it depends on data", prim.span)
            continue
        if prim.kind == "latch":
            waiting = per_instance(facts, prim, [(w.label, w.site) for w in waits], upper=False)
            if waiting is None:
                continue
            bad = [key for key in waiting if waiting[key] and posts.get(key, 0) < prim.count]
            if not bad:
                continue
            key = bad[0]
            got = posts.get(key, 0)
            w = waits[0]
            reported.add(id(w.site))
            ctx.sink.error("E0705", f"{w.what} never ends: the latch opens after {prim.count} count-downs, and "
                           f"{instance_name(facts, prim, key)} is counted down {got} time{'s' if got != 1 else ''} at most",
                           w.site.span, notes=[Note(f"`{name}` is declared here", prim.span)] +
                           [Note("counted down here", ins.span) for _, ins in w.providers[:1]],
                           help=f"count it down {prim.count} times (once per party), or declare it with the "
                                "count of the parties that count down")
            continue
        waiting = per_instance(facts, prim, [(w.label, w.site) for w in waits], upper=False)
        if waiting is None:
            continue
        w0 = waits[0]
        for key, n in waiting.items():
            supply = (prim.count or 0) + posts.get(key, 0)
            if n > supply:
                w = waits[0]
                reported.add(id(w.site))
                queue, role = queue_part(name)
                short = n - supply
                if role == "space":
                    why = (f"{instance_name(facts, prim, key, queue)} holds {prim.count} value"
                           f"{'s' if prim.count != 1 else ''}, {n} are put into it and "
                           f"{_at_most(posts.get(key, 0))} taken out, so {short} `put`{'s never end' if short != 1 else ' never ends'}")
                    help = "take out every value that is put (a consumer for each), or give the queue more capacity"
                elif role == "items":
                    why = (f"{n} values are taken from {instance_name(facts, prim, key, queue)}, and "
                           f"{_at_most(posts.get(key, 0))} {'is' if posts.get(key, 0) == 1 else 'are'} put into it, so {short} "
                           f"`get`{'s never end' if short != 1 else ' never ends'}")
                    help = "put one value for every `get`, or let the consumers stop when the queue is closed (`for v in q`)"
                else:
                    if any(not _one_permit(w.site) for w in waits) or any(not _one_permit(i) for _, i in w0.providers):
                        why = (f"the waits on {instance_name(facts, prim, key)} take {n} permits in all, but it starts with "
                               f"{prim.count or 0} and is posted {_at_most(posts.get(key, 0))} more, so "
                               f"{short} permit{'s are' if short != 1 else ' is'} never there for a waiter")
                    else:
                        why = (f"{instance_name(facts, prim, key)} is waited on {n} times, but it starts with "
                               f"{prim.count or 0} permit{'s' if prim.count != 1 else ''} and is posted "
                               f"{_times(posts.get(key, 0))} at most, so {short} "
                               f"wait{'s never end' if short != 1 else ' never ends'}")
                    help = ("post once for every wait that is not given back (a producer posts, a consumer waits), "
                            "or give the semaphore more initial permits")
                ctx.sink.error("E0705", f"{w.what} can never end for every waiter: {why}", w.site.span,
                               notes=[Note(f"`{queue}` is declared here", prim.span)], help=help)
                break


def _one_permit(ins: Instr) -> bool:
    """Does the operation take or give one permit (no `(k)`)?"""
    k = ins.permits
    return isinstance(k, Imm) and k.value == 1


def _at_most(n: int) -> str:
    return "none" if n == 0 else f"at most {n}"


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def never_blocks(facts: Facts, name: str) -> bool:
    """Can no wait on the semaphore `name` ever wait? True when, counted over the launch (at
    most, per instance), it is taken no more often than its initial permits: each wait then
    finds one of those, whatever the posts do (a thread that fills its own queue to capacity and
    then drains it). Tries count as takes; a loop retrying one until it succeeds, once each time
    it runs. False where the takes cannot be counted. A work pool's inner puts (`queue.push`,
    impls/queue/pool.py) do not count: they take a slot only from an item a worker took, and a
    seed that then finds no room waits for workers outside its warp, which never wait
    (the workers of its own warp are still behind it, and put nothing)."""
    memo = facts.memo.setdefault("never_blocks", {})
    if name not in memo:
        prim = facts.k.prim(name)
        known = prim is not None and prim.kind == "semaphore" and facts.threads.every_block
        # a loop retrying an attempt until it succeeds takes once each time it runs (retries.py)
        entry = {id(r.attempt): r.entry for r in retries(facts) if r.once}
        takes = [(entry.get(id(i), b.label), i) for b, _, i in facts.k.instructions()
                 if i.judged_as in ("sem.wait", "sem.trywait", "sem.tryfor") and i.ref.name == name
                 and i.op != "queue.push" and b.label in facts.cfg.reachable] if known else []
        per = per_instance(facts, prim, takes, upper=True) if known else None
        memo[name] = per is not None and all(n <= (prim.count or 0) for n in per.values())
    return memo[name]


def per_instance(facts: Facts, prim, sites, upper: bool) -> dict | None:
    """instance key → how many times the parties run `sites` (largest count when upper, else the
    smallest possible); None when it cannot be counted. A semaphore's operation counts its permits
    (`wait s(k)` counts k: analysis/permits.py, the most k can be when upper, else the least).
    For the smallest, a site that cannot be counted (data decides who runs it, or the instance
    it waits on) counts as running no time: the others' count is still one no run goes below
    (a `get` that 8 threads run is not excused by a `for v in q` loop the launch never enters)."""
    t = facts.threads
    per: dict = {}
    party = _PARTY_COLUMN[prim.granularity]
    for label, ins in sites:
        inst = facts.instances(label)
        col = facts.value(ins.ref.index, label) if inst is not None else None
        amount = amounts(facts, label, ins, upper) if prim.kind == "semaphore" else 1
        if inst is None or not inst.counted or not upper and not inst.exact or col is None or col[1] \
                or amount is None:
            if upper:
                return None
            continue
        seen = set()
        for n, row in enumerate(inst.thread):
            who = row if party is None else t.columns[party][row]
            rounds = tuple(v[n] for v in inst.iters.values())
            if (who, rounds) in seen:
                continue
            seen.add((who, rounds))
            key = col[0][n] if prim.placement == "global" else (t.columns["block"][row], col[0][n])
            per[key] = per.get(key, 0) + weigh(amount, n)
    return per


def instance_name(facts: Facts, prim, key, name: str | None = None) -> str:
    """`s[3]` of block 1: the instance `key` of `prim` (shown as `name`: a queue for its parts)."""
    name = name or prim.name
    if isinstance(key, tuple) and facts.shape.blocks == 1:
        key = key[1]
    if isinstance(key, tuple):
        block, index = key
        return f"`{name}{'' if prim.instances == 1 else f'[{index}]'}` of block {block}"
    return f"`{name}{'' if prim.instances == 1 else f'[{key}]'}`"


# ---- E0721: named barrier counts ----------------------------------------------------------------

def _named_barrier_counts(facts: Facts, ctx: PassContext) -> None:
    k, t = facts.k, facts.threads
    for prim in k.prims:
        if prim.kind != "barrier" or prim.granularity != "warp" or prim.count is None:
            continue
        sites = [(b.label, i) for b, _, i in k.instructions()
                 if i.op in ("prim.sync", "prim.arrive") and i.ref.name == prim.name and b.label in facts.cfg.reachable]
        arrivals: dict[tuple, dict[int, int]] = {}     # (block, element) → thread row → arrivals
        waited: set[tuple] = set()                     # the (block, element)s some `sync` reaches
        exact = True
        for label, ins in sites:
            inst = facts.instances(label)
            col = facts.value(ins.ref.index, label)
            if inst is None or col is None or col[1] or not inst.exact or not inst.counted:
                exact = False
                facts.undecided(ctx, f"how many threads reach the named barrier `{prim.name}` in each phase: a "
                                "condition, index or loop around it depends on data", ins.span)
                break
            for row, element in zip(inst.thread, col[0]):
                per = arrivals.setdefault((t.columns["block"][row], element), {})
                per[row] = per.get(row, 0) + 1
                if ins.op == "prim.sync":
                    waited.add((t.columns["block"][row], element))
        if not exact or not arrivals:
            continue
        for (block, element), per in sorted(arrivals.items()):
            if (block, element) not in waited:
                continue          # only `arrive`s, which never wait: no phase holds anyone up
            rounds = set(per.values())
            threads = len(per)
            total = sum(per.values())
            if len(rounds) == 1:
                bad = threads != prim.count
                got = f"{threads} threads arrive"
            else:
                bad = total % prim.count != 0
                got = f"{total} arrivals in all"
            if not bad:
                continue
            label, ins = sites[0]
            where = f" in block {block}" if facts.shape.blocks > 1 else ""
            name = prim.name + ("" if prim.instances == 1 else f"[{element}]")
            fewer = threads < prim.count if len(rounds) == 1 else total < prim.count
            ctx.sink.error("E0721", f"the named barrier `{name}` counts {prim.count} threads, but {got}{where}: "
                           + ("the ones that arrive wait for threads that never come" if fewer else
                              "the first to arrive make up a phase and pass, and the rest wait for arrivals "
                              "that never come (or pass with the wrong partners)"),
                           ins.span, notes=[Note(f"`{prim.name}` is declared with {prim.count} threads here",
                                                 prim.span)],
                           help=f"declare it with the number of threads that `sync` or `arrive` on it "
                                f"({threads if len(rounds) == 1 else total}), or make that many arrive")
            break
