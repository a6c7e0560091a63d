"""Fence insertion: acquire after every successful wait, release before every release.

Guarantee: afterwards every operation that acquires a primitive (a poll that
succeeds, a lock, a wait, a get) is ordered before the memory operations that
follow it, and every release (unlock, post, put, signal) after the memory
operations before it, at the narrowest scope that covers the primitive: cta
for shared memory, gpu for global memory.

Where the target's atomics and loads carry an ordering (PTX, sm_70+), the
ordering is an attribute of the primitive's own operation (`order=acquire
scope=gpu`) and expansion puts it on the atomic: no separate fence. Elsewhere
(Fermi) an explicit `fence` goes at the start of the critical section, or
after a leader's acquire, and before each release.

No ordering is added where nothing needs it: named barriers (bar.sync and
bar.arrive order memory themselves), a @thread lock-bit channel on Fermi (the
value travels in the word whose bit is the lock), and @block primitives beyond
their leader's acquire and release, because the block barrier that follows the
acquire and precedes the release spreads the ordering to the whole block.
"""
from __future__ import annotations

from ..builder import KernelBuilder
from ..context import PassContext
from ..nodes import Instr, Kernel, Prim

ACQUIRE = {"mutex.poll", "mutex.trylock", "mutex.lock", "sem.poll", "sem.trywait", "sem.wait",
           "chan.poll", "chan.get", "chan.await"}
RELEASE = {"mutex.unlock", "sem.post", "chan.put", "chan.signal"}


def scope_of(prim: Prim) -> str:
    return "cta" if prim.placement == "shared" else "gpu"


def needs_ordering(prim: Prim, target) -> bool:
    if prim.impl == "namedbar":
        return False
    if prim.kind == "barrier":
        return prim.granularity == "grid"
    if target.lock_bits and prim.impl == "tinylock" and prim.kind == "channel" and prim.granularity == "thread":
        return False
    return True


def insert_fences(k: Kernel, ctx: PassContext) -> Kernel:
    b = KernelBuilder.thaw(k)
    ordered = ctx.target.ordered_atomics
    fenced_bodies: dict[str, str] = {}     # critical-section block → scope of the fence at its start
    told: set[str] = set()
    for label in list(b.order):
        out: list[Instr] = []
        for ins in b.code[label]:
            prim = k.prim(ins.ref.name) if ins.info.group == "prim" and ins.ref is not None else None
            role = _role(ins, prim)
            if prim is None or role is None or not needs_ordering(prim, ctx.target):
                out.append(ins)
                continue
            scope = scope_of(prim)
            if ordered:
                out.append(ins.with_attrs(order=role, scope=scope))
            elif role == "release":
                out.append(Instr("fence", (), (), (("order", "acq_rel"), ("scope", scope)), ins.span))
                out.append(ins)
            elif role == "acq_rel":        # a grid barrier: order both ways
                out.append(Instr("fence", (), (), (("order", "acq_rel"), ("scope", scope)), ins.span))
                out.append(ins)
                out.append(Instr("fence", (), (), (("order", "acq_rel"), ("scope", scope)), ins.span))
            elif ins.attr("body") is not None:   # a poll: fence where its loop's body begins
                fenced_bodies.setdefault(ins.attr("body"), scope)
                out.append(ins)
            elif ins.op in ("mutex.trylock", "sem.trywait"):
                out.append(ins.with_attrs(order="acquire", scope=scope))   # expansion fences the success path
            else:                            # a leader's blocking acquire
                out.append(ins)
                out.append(Instr("fence", (), (), (("order", "acq_rel"), ("scope", scope)), ins.span))
            if prim.name not in told:
                told.add(prim.name)
                how = "carried by its own atomics and loads" if ordered else "with explicit fences"
                ctx.remark(k.name, "fence", f"`{prim.name}`: acquire after each successful wait and release at "
                           f"each release, at {scope} scope ({prim.placement} memory), {how}", prim.span)
        b.code[label] = out
    for label, scope in fenced_bodies.items():
        first = b.code[label][0].span if b.code[label] else None
        b.code[label].insert(0, Instr("fence", (), (), (("order", "acq_rel"), ("scope", scope)), first))
    return b.freeze()


def _role(ins: Instr, prim: Prim | None) -> str | None:
    if prim is None:
        return None
    if ins.op in ACQUIRE:
        return "acquire"
    if ins.op in RELEASE:
        return "release"
    if ins.op in ("prim.sync", "prim.arrive") and prim.granularity == "grid":
        return "acq_rel"
    return None
