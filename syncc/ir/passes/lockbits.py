"""Lock-bit allocation and shared-memory layout, for targets with a lock unit (Fermi).

Guarantee: afterwards every shared array has a word offset (an array of 64-bit elements two words
an element, from an even word), and no two words
whose lock bits can be held at the same time share a bit. The lock unit has
`lock_bits` bits (1024), and word addresses `lock_word_stride` (1024) apart
share one (seed 000 §3.1).

Two kinds of array take lock bits. A lock-bit primitive's words (LDSLK/STSUL:
a tinylock mutex or channel) hold their bits for as long as the lock is held or
the slot is empty. A shared array used with atomics holds a bit only for the
few instructions of one atomic, because on Fermi a shared-memory atomic is an
LDSLK/op/STSUL loop. The layout puts the held arrays first, from word 0, then
the atomic ones, then the rest, so that as long as they fit in the 1024 bits no
two share one: no thread waits on a bit it holds through an aliasing address,
nor reaches a barrier holding a bit another thread needs (the alias deadlocks
of seed 000 §4.4.2). Held bits beyond 1024 are E0713, naming the primitives;
an atomic array that must share bits with held ones is W0714, because its
atomics then wait whenever the aliasing lock is held.
"""
from __future__ import annotations

from dataclasses import replace

from ...core.diagnostics import Note
from ..context import PassContext
from ..nodes import Array, Kernel


def allocate_lock_bits(k: Kernel, ctx: PassContext) -> Kernel:
    target = ctx.target
    if target.lock_bits is None:
        return k
    shared = [a for a in k.arrays if a.space == "shared"]
    held_names = {ins.ref.name for _, _, ins in k.instructions() if ins.info.group == "lockbit"}
    atomic_names = {ins.ref.name for _, _, ins in k.instructions() if ins.info.group == "atomic"} - held_names
    held = [a for a in shared if a.name in held_names]
    brief = [a for a in shared if a.name in atomic_names]
    rest = [a for a in shared if a.name not in held_names | atomic_names]
    offset, placed = 0, {}
    for a in held + brief + rest:
        words = 2 if getattr(a.elem, "bits", 32) == 64 else 1     # a 64-bit element: two aligned words
        offset += offset % words
        placed[a.name] = offset
        offset += a.words * words
    # the words the held arrays, then the atomic ones, reach from word 0 (a 64-bit array's padding word
    # included): past lock_bits, two of them would share a bit
    held_words = max((placed[a.name] + _span_words(a) for a in held), default=0)
    if held_words > target.lock_bits:
        _too_many(k, held, held_words, ctx)
    elif max((placed[a.name] + _span_words(a) for a in held + brief), default=0) > target.lock_bits:
        _aliasing(k, held, brief, placed, ctx)
    arrays = tuple(replace(a, offset=placed[a.name]) if a.name in placed else a for a in k.arrays)
    users = held + brief
    if users:
        used = min(target.lock_bits, sum(a.length for a in users))
        spans = ", ".join(f"`{_owner(a)}` words {placed[a.name]}..{placed[a.name] + _span_words(a) - 1}"
                          for a in users)
        ctx.remark(k.name, "lockbits", f"lock bits: {spans} (bit = word mod {target.lock_word_stride}; "
                   f"{used} of {target.lock_bits} used)", _span(k, users[0]))
    return replace(k, arrays=arrays)


def _span_words(a: Array) -> int:
    """The words an array's lock bits are counted over: an element's each, or, for a 64-bit element,
    the two it spans (its low word's bit guards the pair, and the high word's bit is skipped)."""
    return a.length * (2 if getattr(a.elem, "bits", 32) == 64 else 1)


def _lock_words(a: Array, placed: dict) -> list[int]:
    """The words whose lock bits an array's elements use: each element's (a 64-bit one's low word)."""
    step = 2 if getattr(a.elem, "bits", 32) == 64 else 1
    return [placed[a.name] + step * i for i in range(a.length)]


def _owner(a: Array) -> str:
    return a.name.split(".")[0] if a.kind == "state" else a.name


def _span(k: Kernel, a: Array):
    if a.kind == "state":
        prim = k.prim(_owner(a))
        return prim.span if prim else k.span
    return a.span or k.span


def _too_many(k: Kernel, held: list[Array], words: int, ctx: PassContext) -> None:
    owners = ", ".join(f"`{_owner(a)}` ({a.length})" for a in held)
    ctx.sink.error("E0713", f"this block needs {words} lock bits but an SM has {ctx.target.lock_bits}: {owners}; "
                   f"words {ctx.target.lock_word_stride} apart would share a bit, and a thread holding one would "
                   "wait forever for the other (alias deadlock, seed 000 §4.4.2)", _span(k, held[0]),
                   notes=[Note(f"`{_owner(a)}` takes {a.length}", _span(k, a)) for a in held[1:]],
                   help="use fewer slots per block (a larger grid of smaller blocks), or `using flag` / "
                        "`using ticket` for some of them")


def _aliasing(k: Kernel, held: list[Array], brief: list[Array], placed: dict, ctx: PassContext) -> None:
    stride, bits = ctx.target.lock_word_stride, ctx.target.lock_bits
    held_bits = {w % stride for a in held for w in _lock_words(a, placed)}
    for a in brief:
        shared = [w for w in _lock_words(a, placed) if w % stride in held_bits]
        if not shared:
            continue
        owners = ", ".join(f"`{_owner(h)}`" for h in held)
        ctx.sink.warning("W0714", f"the shared atomics on `{a.name}` use lock bits on Fermi, and {len(shared)} of "
                         f"its words share a bit with {owners} (only {bits} bits): such an atomic waits while "
                         "the aliasing lock is held, and deadlocks if its holder waits for this thread",
                         _span(k, a), notes=[Note(f"`{_owner(h)}` holds its bits", _span(k, h)) for h in held],
                         help="use fewer lock-bit slots per block, or plain loads and stores under the "
                              "primitive instead of atomics")
