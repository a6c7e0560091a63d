"""Lock elision and warp combining (-O2; off at -O0).

elide_locks guarantees: a @thread critical section whose body is one
read-modify-write of one memory word (`x[i] = x[i] + e`, or -, &, |, ^, min,
max; `e` not computed from the word) becomes that one native atomic, with
acq_rel ordering at the word's scope (on Fermi: a fence on each side of it),
so it orders memory as the lock and unlock did, when every use of its mutex is
such a section: then mutual exclusion on each word is what the atomics give,
and the program order of each thread is unchanged. The atomics are relaxed
when nothing can tell in which order the sections ran: no instruction but the
section's own reads the word's old or new value, and nothing else in the kernel
touches the words' arrays. Then no thread can learn that another's section came
before its own, so no thread can rely on the ordering a lock would give, and the
atomic is the one `atomicAdd` would be (the host sees the words after the launch).
A mutex with any other use (another section, `lock`/`unlock`, `trylock`) keeps
its lock in every section, since a section made an atomic would not exclude one
that still takes the lock.
A mutex left with no operations is dropped.
A float word's section becomes the float atomic (an add's `atom.add.f32`, which flushes a
subnormal operand or result to zero where the section's add would not: docs/ir.md says so).

combine_warps guarantees: a @thread critical section whose lock is the same
for every lane of a warp (its index is warp-uniform), and whose body neither
waits, meets a barrier nor uses warp operations, is entered once per warp: the
warp's lowest active lane acquires, then each active lane runs its body in
lane order, one at a time (a __syncwarp between turns orders their memory),
and the leader releases. Mutual exclusion holds (the warp holds the lock and
its lanes take turns) and each thread's program order is kept; the lock sees
one acquisition per warp instead of one per lane.
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from ...core.types import BOOL, I32, U32
from ..builder import KernelBuilder
from ..analysis.cfg import CFG
from ..context import PassContext
from ..nodes import Branch, Instr, Kernel, Reg, imm
from ..analysis.regions import encloses, isolate
from ..analysis.uniformity import WARP, Uniformity

class Rmw(NamedTuple):
    """A critical section's one read-modify-write `x[i] = x[i] ∘ operand`."""
    load: Instr
    store: Instr
    op: str              # the atomic's: add, sub, and, ...
    operand: object
    producer: Instr      # the arithmetic that makes the new value from the loaded one


_ATOMIC_FOR = {"add": "add", "sub": "sub", "and": "and", "or": "or", "xor": "xor", "min": "min", "max": "max"}
_COMMUTES = {"add", "and", "or", "xor", "min", "max"}
_NOT_IN_COMBINED = {"barrier", "warp", "prim", "lockbit", "mbarrier"}


def _regions(k: Kernel) -> dict[int, tuple[tuple[str, int], tuple[str, int]]]:
    """region id → (its mutex.lock, its mutex.unlock) for @thread critical sections."""
    locks, unlocks = {}, {}
    for b in k.blocks:
        for i, ins in enumerate(b.instrs):
            region = ins.attr("region")
            if region is None or ins.op not in ("mutex.lock", "mutex.unlock") \
                    or k.prim(ins.ref.name).granularity != "thread":
                continue
            if ins.op == "mutex.lock":
                locks[region] = (b.label, i)
            elif ins.op == "mutex.unlock":
                unlocks[region] = (b.label, i)
    return {r: (locks[r], unlocks[r]) for r in locks if r in unlocks}


# ---- elision ------------------------------------------------------------------------------

def elide_locks(k: Kernel, ctx: PassContext) -> Kernel:
    changed = False
    new_code = {b.label: list(b.instrs) for b in k.blocks}
    elidable = _elidable(k, new_code)
    silent = _silent(k, [(new_code[label][i].ref.name, rmw) for (label, i), _, rmw in elidable])
    for (label, i), j, section in elidable:
        code = new_code[label]
        lock, unlock = code[i], code[j]
        order = "relaxed" if lock.ref.name in silent else "acq_rel"
        load, store = section.load, section.store
        body = [ins for ins in code[i + 1:j] if ins is not load and ins is not store]
        array = k.array(load.ref.name)
        scope = "cta" if array.space == "shared" else "gpu"
        op = f"atom.{section.op}"
        if not ctx.fences or order == "relaxed":
            rmw = [Instr(op, load.dests, (load.ref, section.operand), (("order", "relaxed"), ("scope", scope)),
                         store.span)]
        elif ctx.target.ordered_atomics and ctx.minimize_fences:
            rmw = [Instr(op, load.dests, (load.ref, section.operand), (("order", "acq_rel"), ("scope", scope)),
                         store.span)]
        else:     # the lock's acquire and release, as fences around a relaxed atomic
            fence = Instr("fence", (), (), (("order", "acq_rel"), ("scope", scope)), store.span)
            rmw = [fence, Instr(op, load.dests, (load.ref, section.operand), (("order", "relaxed"), ("scope", scope)),
                                store.span), fence]
        before = [ins for ins in body if _index(ins, code) < _index(load, code)]
        after = [ins for ins in body if ins not in before]
        new_code[label] = code[:i] + before + rmw + after + code[j + 1:]
        changed = True
        why = " (nothing reads the word's old or new value, or touches its array, elsewhere: no thread can tell " \
              "which section came first)" if order == "relaxed" else ""
        ctx.remark(k.name, "elide", f"the critical section on `{lock.ref.name}` is one atomic {section.op} on "
                   f"`{load.ref.name}`: the lock is elided for {op} with {order} ordering (-O2){why}",
                   lock.span.to(unlock.span) if lock.span and unlock.span else lock.span)
    if not changed:
        return k
    out = replace(k, blocks=tuple(replace(b, instrs=tuple(new_code[b.label])) for b in k.blocks))
    used = {ins.ref.name for _, _, ins in out.instructions() if ins.info.group == "prim"}
    return replace(out, prims=tuple(p for p in out.prims if p.name in used or p.kind != "mutex"))


def _elidable(k: Kernel, code: dict[str, list[Instr]]) -> list[tuple]:
    """((label, lock's index), unlock's index, its Rmw) of each section to elide, last first:
    sections in one block that are one atomic, of mutexes with no other use."""
    found = []
    for (label, i), (end_label, j) in (ends for _, ends in sorted(_regions(k).items(), reverse=True)):
        rmw = _single_rmw(k, code[label][i + 1:j]) if label == end_label else None
        if rmw is not None:
            found.append(((label, i), j, rmw))
    covered = {id(x) for (label, i), j, _ in found for x in (code[label][i], code[label][j])}
    kept = {ins.ref.name for _, _, ins in k.instructions()
            if ins.info.group == "prim" and ins.ref is not None and id(ins) not in covered}
    return [f for f in found if code[f[0][0]][f[0][1]].ref.name not in kept]


def _silent(k: Kernel, sections: list[tuple[str, Rmw]]) -> set[str]:
    """The mutexes whose elided sections need no ordering: for every one of them, the loaded
    word is read only by the operation that makes the new value, which only the store reads,
    and no other instruction of the kernel touches the arrays those sections update."""
    by_mutex: dict[str, list[Rmw]] = {}
    for mutex, rmw in sections:
        by_mutex.setdefault(mutex, []).append(rmw)
    readers: dict[str, list[Instr]] = {}
    touching: dict[str, list[Instr]] = {}
    for _, _, ins in k.instructions():
        for r in ins.reads:
            readers.setdefault(r.name, []).append(ins)
        if ins.ref is not None:
            touching.setdefault(ins.ref.name, []).append(ins)
    for b in k.blocks:                        # a branch on the value reads it too
        if isinstance(b.term, Branch) and isinstance(b.term.cond, Reg):
            readers.setdefault(b.term.cond.name, []).append(b.term)
    out = set()
    for mutex, rmws in by_mutex.items():
        own = {id(x) for r in rmws for x in (r.load, r.store)}
        if any(id(x) not in own for a in {r.load.ref.name for r in rmws} for x in touching.get(a, ())):
            continue
        if all(all(x is r.producer for x in readers.get(r.load.dests[0].name, ()))
               and all(x is r.store for x in readers.get(r.producer.dests[0].name, ()))
               for r in rmws):
            out.add(mutex)
    return out


def _index(ins: Instr, code: list[Instr]) -> int:
    return next(n for n, x in enumerate(code) if x is ins)


def _single_rmw(k: Kernel, body: list[Instr]) -> Rmw | None:
    """The read-modify-write, when `body` is pure arithmetic around one x = x ∘ e."""
    memory = [ins for ins in body if ins.info.group not in ("arith", "special")]
    if len(memory) != 2 or memory[0].op != "ld" or memory[1].op != "st" or memory[0].ref != memory[1].ref:
        return None
    load, store = memory
    if load.attr("cache") is not None:
        return None
    loaded = load.dests[0]
    value = store.args[1]
    tainted = {loaded.name}
    producer = None
    for ins in body[body.index(load) + 1:body.index(store)]:
        if any(isinstance(a, Reg) and a.name in tainted for a in ins.args):
            tainted.update(d.name for d in ins.dests)
        if value in ins.dests:
            producer = ins
        if isinstance(load.ref.index, Reg) and load.ref.index in ins.dests:
            return None      # the index changes between the load and the store
    if producer is None or producer.op not in _ATOMIC_FOR or producer.dests[0] != value:
        return None
    a, b = producer.args
    if a == loaded and not (isinstance(b, Reg) and b.name in tainted):
        return Rmw(load, store, _ATOMIC_FOR[producer.op], b, producer)
    if b == loaded and producer.op in _COMMUTES and not (isinstance(a, Reg) and a.name in tainted):
        return Rmw(load, store, _ATOMIC_FOR[producer.op], a, producer)
    return None


# ---- warp combining ----------------------------------------------------------------------

def combine_warps(k: Kernel, ctx: PassContext) -> Kernel:
    while True:
        regions = _regions(k)
        if not regions:
            return k
        uniform = Uniformity(k)
        cfg = CFG(k)
        for region, (start, end) in sorted(regions.items()):
            lock = k.block_map()[start[0]].instrs[start[1]]
            if uniform.level(lock.ref.index) > WARP or not encloses(cfg, *start, *end) \
                    or not _combinable(k, cfg, start, end):
                continue
            k = _combine(k, start, end, ctx)
            break
        else:
            return k


def _combinable(k: Kernel, cfg: CFG, start, end) -> bool:
    blocks = k.block_map()
    label, i = start
    end_label, j = end
    if label == end_label:
        body = list(blocks[label].instrs[i + 1:j])
    else:
        inside, todo = set(), list(cfg.succs[label])
        while todo:
            x = todo.pop()
            if x not in inside and x != end_label:
                inside.add(x)
                todo.extend(cfg.succs[x])
        body = list(blocks[label].instrs[i + 1:]) + list(blocks[end_label].instrs[:j])
        body += [ins for x in inside for ins in blocks[x].instrs]
    return all(ins.info.group not in _NOT_IN_COMBINED for ins in body)


def _combine(k: Kernel, start, end, ctx: PassContext) -> Kernel:
    b = KernelBuilder.thaw(k)
    pre, entry, exit_, after, lock, unlock = isolate(b, start, end, hint="combined")
    b.at(pre)
    b.span_now = lock.span
    mask = b.op("activemask", U32, hint="lanes")
    leader = b.op("elect", BOOL, hint="leader")
    acquire = b.new_block("combined.acquire", after=pre)
    go = b.new_block("combined.go", after=acquire)
    b.branch(leader, acquire, go)
    b.at(acquire)
    b.emit("mutex.lock", (), lock.args, lock.span, party="warp")
    b.jump(go)
    b.at(go)
    b.emit("warp.sync", (), (mask,))
    turn = b.reg(I32, "turn")
    b.assign(turn, imm(0))
    head = b.new_block("combined.turn", after=go)
    pick = b.new_block("combined.pick", after=head)
    nxt = b.new_block("combined.next", after=exit_)
    done = b.new_block("combined.done", after=nxt)
    b.jump(head)
    b.at(head)
    b.branch(b.op("cmp.lt", BOOL, turn, imm(32), hint="more"), pick, done)
    b.at(pick)
    lane = b.op("sreg", I32, hint="lane", reg="laneid")
    b.branch(b.op("cmp.eq", BOOL, lane, turn, hint="mine"), entry, nxt)
    b.at(exit_)
    b.jump(nxt)
    b.at(nxt)
    b.emit("warp.sync", (), (mask,))
    b.emit("add", (turn,), (turn, imm(1)))
    b.jump(head)
    b.at(done)
    release = b.new_block("combined.release", after=done)
    b.branch(leader, release, after)
    b.at(release)
    b.emit("mutex.unlock", (), unlock.args, unlock.span, party="warp")
    b.jump(after)
    ctx.remark(k.name, "combine", f"the critical section on `{lock.ref.name}` is taken once per warp: its lowest "
               "active lane acquires, then the lanes run their sections in lane order (-O2)", lock.span)
    return b.freeze()
