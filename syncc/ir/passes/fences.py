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
after a leader's acquire, and before each release; a put's fence goes between
the store of its value and the store or atomic that marks the slot full (the
put's expansion places it), since a fence before the whole put would leave the
value itself unordered; a get's or a poll's goes between seeing the slot full and
the load of its value, for the same reason (that load may otherwise be performed
first).

No ordering is added where nothing needs it: the give-back of an all-or-nothing
nest's failed round (structure.py; the round ran nothing under the levels it took),
named barriers (bar.sync and
bar.arrive order memory themselves), a @thread lock-bit channel on Fermi (the
value travels in the word whose bit is the lock), and @block primitives beyond
their leader's acquire and release, because the block barrier that follows the
acquire and precedes the release spreads the ordering to the whole block.
"""
from __future__ import annotations

from ..builder import KernelBuilder
from ..impls.registry import expansion
from ..context import PassContext
from ..nodes import Instr, Kernel, Prim

ACQUIRE = {"mutex.poll", "mutex.trylock", "mutex.lock", "sem.poll", "sem.trywait", "sem.tryfor", "sem.wait",
           "chan.poll", "chan.get", "chan.await", "rw.poll", "rw.lock", "latch.poll", "latch.wait"}
RELEASE = {"mutex.unlock", "sem.post", "chan.put", "chan.signal", "rw.unlock", "latch.arrive"}
TRIES = ("mutex.trylock", "sem.trywait", "sem.tryfor")     # expansion fences the path where the try succeeded
# Where the fence goes inside the operation (the channel's expansion places it): a fence before a put
# or after a get would leave the slot's value itself unordered. A get's load of the value may
# otherwise be performed before the poll that saw the slot full (the value from before the put).
_IN_EXPANSION = {"chan.put": "between the value's store and the slot's publication",
                 "chan.get": "between seeing the slot full and loading its value",
                 "chan.poll": "between seeing the slot full and loading its value"}


def scope_of(prim: Prim) -> str:
    return "cta" if prim.placement == "shared" else "gpu"


def needs_ordering(prim: Prim, target, minimize: bool = True) -> bool:
    return not minimize or not expansion(prim, target).orders_memory(prim, target)


# What each ordering prevents, said at the operation that gets it (for `syncc explain`).
_WHY = {
    ("acquire", "mutex"): "the critical section cannot read memory older than the previous holder's writes",
    ("release", "mutex"): "the critical section's writes are visible before the next holder enters",
    ("acquire", "semaphore"): "the guarded code cannot read memory older than what the last poster wrote",
    ("release", "semaphore"): "the guarded code's writes are visible before the permit is returned",
    ("acquire", "channel"): "what the consumer reads after the slot is full is what the producer wrote",
    ("release", "channel"): "the value and the producer's earlier writes are visible before the slot reads full",
    ("acquire", "rwlock"): "the section cannot read memory older than the last writer's writes",
    ("release", "rwlock"): "the section's writes (a writer's) are visible before the next writer enters, and its "
                           "reads are done before one can",
    ("acquire", "latch"): "what the parties wrote before counting down is visible after the wait",
    ("release", "latch"): "this party's writes are visible before its count-down does",
    ("acq_rel", "barrier"): "writes before the grid barrier are visible to every thread after it",
    ("release", "barrier"): "writes before the `arrive` are visible to every thread after the other blocks' `wait`",
    ("acquire", "barrier"): "reads after the `wait` see what every block wrote before its `arrive`",
}
# A `ring` queue's operations (impls/queue/ring_side.py, ops.py queue.*), by ordering and the side they act on
_WHY_QUEUE = {
    ("acquire", "space"): "the put writes its slot only after the get that last used the slot has read it",
    ("release", "items"): "the value and the producer's earlier writes are visible before the slot reads full",
    ("acquire", "items"): "the get reads the value its put published, and sees what the producer wrote before",
    ("release", "space"): "the get has read the slot before a later put may write it again",
}
_WHAT = {"acquire": "acquire", "release": "release", "acq_rel": "acquire and release"}


def _why(ins: Instr, role: str, prim: Prim) -> str:
    if ins.op.startswith("queue."):
        return _WHY_QUEUE[(role, prim.name.rsplit(".", 1)[-1])]
    return _WHY[(role, prim.kind)]


def insert_fences(k: Kernel, ctx: PassContext) -> Kernel:
    if not ctx.fences:              # --unsafe-no-fences: the tests that show what fences prevent
        return k
    b = KernelBuilder.thaw(k)
    ordered = ctx.target.ordered_atomics and ctx.minimize_fences
    fenced_bodies: dict[str, str] = {}     # critical-section block → scope of the fence at its start
    told: set[tuple] = set()
    for label in list(b.order):
        out: list[Instr] = []
        for ins in b.code[label]:
            prim = k.prim(ins.ref.name) if ins.info.group == "prim" and ins.ref is not None else None
            role = _role(ins, prim)
            if not ctx.minimize_fences and ins.attr("party") == "sync":
                out += [ins, Instr("fence", (), (), (("order", "acq_rel"), ("scope", "gpu")), ins.span)]
                continue       # unminimized: every member of a party fences, not just its leader
            # a give-back of an all-or-nothing nest's failed round (structure.py) releases what the
            # round took before it ran any code under it but index arithmetic: nothing to publish
            if prim is None or role is None or not needs_ordering(prim, ctx.target, ctx.minimize_fences) \
                    or ins.attr("giveback") is not None:
                out.append(ins)
                continue
            key = ordering_key("fence", k.name, ins.span, role, prim.name)
            if key in ctx.omit:             # a witness run: this ordering left out
                out.append(ins)
                continue
            scope = scope_of(prim)
            fence = Instr("fence", (), (), (("order", "acq_rel"), ("scope", scope)), ins.span)
            if ordered:
                out.append(ins.with_attrs(order=role, scope=scope))
                how = f"{role} at {scope} scope on the operation itself, no separate fence"
            elif ins.op == "mutex.trylock" and ins.attr("body") is not None:
                # an inner level of an all-or-nothing nest (structure.py): the fence where the loop's
                # body begins, after its last take, is its outermost level's poll's ordering
                out.append(ins)
                continue
            elif ins.op in _IN_EXPANSION:  # the slot's own value must be ordered too, not only what is around it
                out.append(ins.with_attrs(fence=scope))
                how = f"fence.{scope} {_IN_EXPANSION[ins.op]}"
            elif role == "release":
                out += [fence, ins]
                how = f"fence.{scope} before it"
            elif role == "acq_rel":        # a grid barrier: order both ways
                out += [fence, ins, fence]
                how = f"fence.{scope} before and after it"
            elif ins.attr("body") is not None:   # a poll: fence where its loop's body begins
                fenced_bodies.setdefault(ins.attr("body"), scope)
                out.append(ins)
                how = f"fence.{scope} where the polling loop's body begins"
            elif ins.judged_as in TRIES:
                out.append(ins.with_attrs(order="acquire", scope=scope))   # expansion fences the success path
                how = f"fence.{scope} when the attempt succeeds"
            else:                            # a leader's blocking acquire
                out += [ins, fence]
                how = f"fence.{scope} after it"
            if key not in told:
                told.add(key)
                ctx.remark(k.name, "fence", f"{_WHAT[role]} `{prim.name}` at `{ins.op}` ({how}): "
                           f"{_why(ins, role, prim)}", ins.span, key)
        b.code[label] = out
    for label, scope in fenced_bodies.items():
        first = b.code[label][0].span if b.code[label] else None
        b.code[label].insert(0, Instr("fence", (), (), (("order", "acq_rel"), ("scope", scope)), first))
    return b.freeze()


def ordering_key(topic: str, kernel: str, span, *what) -> tuple:
    """What names one inserted ordering (`PassContext.omit`, `Remark.key`): the pass, the kernel,
    the source position and what it orders, so it survives recompiling the same program."""
    return (topic, kernel, span.line if span else None, span.col if span else None, *what)


def _role(ins: Instr, prim: Prim | None) -> str | None:
    if prim is None:
        return None
    if ins.judged_as in ACQUIRE:
        return "acquire"
    if ins.judged_as in RELEASE:
        return "release"
    if prim.kind == "barrier" and prim.granularity == "grid":
        return _GRID_ROLES.get(ins.op)
    return None


# a grid barrier: `sync` orders both ways; its split phase releases at `arrive` and acquires at `wait`
_GRID_ROLES = {"prim.sync": "acq_rel", "prim.arrive": "release", "prim.wait": "acquire"}
