"""What a queue implementation is: the class a `using` names, which answers every question the
compiler asks of a queue, and the parts lowering builds it from.

A queue never reaches expansion as itself. Lowering (ir/lower/queue.py) asks the class for its
parts and for each operation's IR, built on the queue's two sides, `q.space` and `q.items`
(package docstring); the sides are implementations of their own (`PARTS`), expanded like any
semaphore. The front end asks the class's catalogue entry (`about`): whether the queue closes,
counts its own sides, needs a constant index or whole warps, and can be vended. The cost model
(choose.py) asks whether it may stand in for a default queue that one party a side serves.
"""
from __future__ import annotations

from math import prod

from ....core.prebuilt import dataclass
from ....core.types import I32, ScalarType
from ...nodes import Array, Imm, Ref, imm
from ..base import Emitter
from ..entry import Expansion


@dataclass(frozen=True)
class QueueParts:
    name: str               # the queue's name in the IR (its parts are `name.space`, ...)
    capacity: int
    elem: ScalarType
    dims: tuple[int, ...]
    impl: str               # the implementation's catalogue name
    placement: str
    writers: int            # the `close`s that close it
    span: object
    granularity: str = "thread"     # who puts and gets: a thread, or a warp or block as one party
    members: int = 1                # values per slot: one per member of the party (ring_party.py)
    wide: bool = False              # a @thread ring whose slot is one 64-bit word: value and sequence word
    pool: bool = False              # a work pool's queue: puts inside its own `for` loops (frontend/pools.py)

    def part(self, role: str) -> str:
        return f"{self.name}.{role}"


class QueueImplementation(Expansion):
    """A queue as `using` names it: one class per implementation, its catalogue entry in `about`
    (with the flags the front end reads: counted, closable, constant_index, whole_warps, vendable),
    its target defaults in `defaults`, and its lowering:

        declare(sync, parts, instances, params) -> str     its parts added to the kernel (`params`: the
                                     implementation's parameters); what `syncc explain` says of them
        put(sync, parts, index, value, span)
        put_range(sync, parts, index, source, lo, hi, span)   `put q[i] = source[lo .. hi]` (ring only)
        get(sync, parts, index, span) -> the register holding the value
        tryput(sync, parts, index, value, dest, span) -> the bool register: did it store
        tryget(sync, parts, index, got, span) -> the bool register: did it take (the value into `got`)
        close(sync, parts, index, span)
        for_each(sync, parts, index, var, body, span)
        inner_put(sync, parts, index, value, span)        a work pool's put inside its own loop

    `sync` is lowering's SyncLowering (its builder `sync.b`, its helpers for parties and for
    conditional code, `sync.default_implementation` for the target's defaults). An operation the
    front end refuses for this implementation (E0418) never reaches its method. The cost model
    reads `choice_rank` and `chosen_because` (choose.py)."""
    defaults = ()
    sides: type[Expansion] | None = None   # the class of its two parts; None: the target's own semaphores
    choice_rank: int | None = None      # where the cost model may choose it: lower is tried first
    chosen_because: str | None = None   # what `syncc explain` says when the cost model chose it

    @classmethod
    def operations(cls):
        return {}

    @classmethod
    def wide(cls, granularity: str, elem: ScalarType, target) -> bool:
        """Does each slot hold its value and sequence word in one 64-bit word?"""
        return False

    @classmethod
    def fits_one_party_a_side(cls, k, parts: QueueParts, target) -> bool:
        """May the cost model use it for `parts`, a default queue of kernel `k` that one party a
        side serves (only asked where `choice_rank` is set)?"""
        return False

    @classmethod
    def declare(cls, sync, parts: QueueParts, instances: int, params: dict) -> str:
        raise NotImplementedError

    @classmethod
    def put(cls, sync, parts: QueueParts, index, value, span) -> None:
        raise NotImplementedError

    @classmethod
    def get(cls, sync, parts: QueueParts, index, span):
        raise NotImplementedError

    @classmethod
    def put_range(cls, sync, parts: QueueParts, index, source: str, lo, hi, span) -> None:
        """`put q[i] = source[lo .. hi]`: the hi - lo values with one reservation (the front end lets
        it reach only a @thread `ring` queue: E0426)."""
        raise AssertionError(f"a range put on a {parts.impl} queue reached lowering")

    @classmethod
    def inner_put(cls, sync, parts: QueueParts, index, value, span) -> None:
        raise AssertionError(f"a work pool's put on a {parts.impl} queue reached lowering")

    @classmethod
    def tryput(cls, sync, parts: QueueParts, index, value, dest, span):
        raise AssertionError(f"`tryput` on a {parts.impl} queue reached lowering")

    @classmethod
    def tryget(cls, sync, parts: QueueParts, index, got, span):
        raise AssertionError(f"`tryget` on a {parts.impl} queue reached lowering")

    @classmethod
    def close(cls, sync, parts: QueueParts, index, span) -> None:
        raise AssertionError(f"`close` on a {parts.impl} queue reached lowering")

    @classmethod
    def for_each(cls, sync, parts: QueueParts, index, var, body, span) -> None:
        raise AssertionError(f"`for v in` a {parts.impl} queue reached lowering")


def add_data(sync, parts: QueueParts, instances: int) -> None:
    """The queue's slots, `q.data`: `capacity` per instance, each holding a value per member."""
    sync.b.add_array(Array(parts.part("data"), parts.placement, parts.elem,
                           (instances * parts.capacity * parts.members,), "state", None))


def party_members(b, granularity: str) -> int:
    """Values per slot: 1 for a thread, 32 for a warp, the block's threads for a block (1024, the
    most a block has, where the kernel does not fix its block)."""
    if granularity == "thread":
        return 1
    if granularity == "warp":
        return 32
    return prod(b.block) if b.block is not None else 1024


def member_slot(sync, parts: QueueParts, index, ticket, span) -> Ref:
    """This member's value in the slot of `ticket`: q.data[(iC + t % C) M + m] (q.data[iC + t % C]
    where a slot holds one value)."""
    b = sync.b
    slot = ring_slot(b, parts, index, ticket, span)
    if parts.members == 1:
        return Ref(parts.part("data"), slot)
    member = sync.cx.builtin("lane" if parts.granularity == "warp" else "tid")
    at = b.op("add", I32, b.op("mul", I32, slot, imm(parts.members), hint="group", span=span), member,
              hint="member", span=span)
    return Ref(parts.part("data"), at)


def ring_slot(b, parts: QueueParts, index, ticket, span):
    """The slot of `ticket` in `q.data`: iC + t % C."""
    within = b.op("rem", I32, ticket, imm(parts.capacity), hint="slot", span=span)
    base = affine(b, index, parts.capacity, 0, span)
    if isinstance(base, Imm) and base.value == 0:
        return within
    return b.op("add", I32, base, within, hint="slot", span=span)


def affine(b, index, scale: int, offset: int, span):
    """index * scale + offset in lowering, folded where the index is a constant."""
    if isinstance(index, Imm):
        return imm(index.value * scale + offset)
    scaled = index if scale == 1 else b.op("mul", I32, index, imm(scale), hint="at", span=span)
    return scaled if offset == 0 else b.op("add", I32, scaled, imm(offset), hint="at", span=span)


def expanded_affine(em: Emitter, index, scale: int, offset: int):
    """index * scale + offset in an expansion, folded where the index is a constant."""
    if isinstance(index, Imm):
        return imm(index.value * scale + offset)
    return em.op("add", I32, em.op("mul", I32, index, imm(scale), hint="at"), imm(offset), hint="at")
