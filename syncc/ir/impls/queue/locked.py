"""`locked`: a ring of `capacity` slots guarded by the target's default primitives: counting
semaphores for its free slots (`q.space`, `capacity` at first) and its values (`q.items`, 0),
and a mutex each over the tail and the head (`q.tail`, `q.head`), whose positions are
`q.ends[2i]` and `q.ends[2i + 1]`:

    put q[i] = v:   wait q.space[i]
                    critical q.tail[i] { t = q.ends[2i]; q.data[iC + t] = v; q.ends[2i] = (t + 1) % C }
                    post q.items[i]
    get q[i]:       wait q.items[i]
                    critical q.head[i] { h = q.ends[2i + 1]; v = q.data[iC + h]; q.ends[2i + 1] = (h + 1) % C }
                    post q.space[i]

A get's acquire of `items` follows the release of every put before the one that posted it (the
tail mutex orders the puts), so it sees the slot it reads written. Its parts are ordinary
semaphores and mutexes, so the hazard checks judge them as any others.
"""
from __future__ import annotations

from ....core.types import BOOL, I32
from ...nodes import Array, Prim, Ref, imm
from ..entry import entry
from .base import QueueImplementation, add_data, affine


class Locked(QueueImplementation):
    about = entry("queue", "locked", "shared global", "thread",
                  "a ring of `capacity` slots: counting semaphores for its free slots and its values, "
                  "a mutex each for the tail and the head", "seed 001 section 4 (semaphores); docs/design/queues.md")

    @classmethod
    def declare(cls, sync, parts, instances, params):
        b = sync.b
        add_data(sync, parts, instances)
        b.add_array(Array(parts.part("ends"), parts.placement, I32, (instances * 2,), "state", 0))
        chosen = []
        for role, kind, count in (("space", "semaphore", parts.capacity), ("items", "semaphore", 0),
                                  ("tail", "mutex", None), ("head", "mutex", None)):
            choice = sync.default_implementation(kind, parts.placement, "thread", instances=instances)
            b.prims.append(Prim(parts.part(role), kind, parts.dims, parts.placement, "thread", choice.impl,
                                choice.params, None, count, (), parts.span))
            chosen.append(f"`{parts.part(role)}` ({kind}, {choice.impl})")
        return f"locked — a ring guarded by the target's default primitives: {', '.join(chosen)}"

    @classmethod
    def put(cls, sync, parts, index, value, span):
        b = sync.b
        b.emit("sem.wait", (), (Ref(parts.part("space"), index),), span, queue="put")
        _take_slot(sync, parts, index, "tail", span,
                   lambda slot: b.emit("st", (), (Ref(parts.part("data"), slot), value), span))
        b.emit("sem.post", (), (Ref(parts.part("items"), index),), span)

    @classmethod
    def get(cls, sync, parts, index, span):
        b = sync.b
        b.emit("sem.wait", (), (Ref(parts.part("items"), index),), span, queue="get")
        # assigned before the section too: combine_warps may run the section for each lane of a warp
        # in a loop, and the value must be defined on every path out of it
        got = b.reg(parts.elem, "got")
        b.assign(got, imm(0, parts.elem), span)
        _take_slot(sync, parts, index, "head", span,
                   lambda slot: b.emit("ld", (got,), (Ref(parts.part("data"), slot),), span))
        b.emit("sem.post", (), (Ref(parts.part("space"), index),), span)
        return got

    @classmethod
    def tryput(cls, sync, parts, index, value, dest, span):
        """One attempt: true (and the value stored) where `q.space` had a permit."""
        b = sync.b
        ok = sync.cx.exprs.emit_value(dest, "sem.trywait", BOOL, Ref(parts.part("space"), index), span=span,
                                      queue="put")

        def store():
            _take_slot(sync, parts, index, "tail", span,
                       lambda slot: b.emit("st", (), (Ref(parts.part("data"), slot), value), span))
            b.emit("sem.post", (), (Ref(parts.part("items"), index),), span)
        sync.only_where(ok, store, span, "tryput")
        return ok

    @classmethod
    def tryget(cls, sync, parts, index, got, span):
        """One attempt: where `q.items` had a permit, the head's value into `got` (else it stays 0)."""
        b = sync.b
        b.assign(got, imm(0, parts.elem), span)
        ok = b.op("sem.trywait", BOOL, Ref(parts.part("items"), index), hint="took", span=span, queue="get")

        def take():
            _take_slot(sync, parts, index, "head", span,
                       lambda slot: b.emit("ld", (got,), (Ref(parts.part("data"), slot),), span))
            b.emit("sem.post", (), (Ref(parts.part("space"), index),), span)
        sync.only_where(ok, take, span, "tryget")
        return ok


def _take_slot(sync, parts, index, end: str, span, use) -> None:
    """Under the `end` mutex: the slot that end points at, `use(slot)`, and the end moved on."""
    b = sync.b
    lock = Ref(parts.part(end), index)
    region = sync.new_region()
    b.emit("mutex.lock", (), (lock,), span, region=region)
    at = affine(b, index, 2, 0 if end == "tail" else 1, span)
    now = b.op("ld", I32, Ref(parts.part("ends"), at), hint=end, span=span)
    use(b.op("add", I32, affine(b, index, parts.capacity, 0, span), now, hint="slot", span=span))
    following = b.op("add", I32, now, imm(1), hint="next", span=span)
    wrapped = b.op("rem", I32, following, imm(parts.capacity), hint="next", span=span)
    b.emit("st", (), (Ref(parts.part("ends"), at), wrapped), span)
    b.emit("mutex.unlock", (), (lock,), span, region=region)
