"""What a stuck run says about the queues its warps wait on (docs/language.md "Queues").

A `ring` queue `q` keeps, per instance i, a tail and a head ticket counter (`q.ends[2i]`,
`q.ends[2i + 1]`: the puts and the gets that have taken a ticket), a sequence word per slot
(`q.seq`: 2r while the slot is empty for round r, 2r + 1 while it holds round r's value) and,
where it closes, a latch of the closes still to come (`q.closed.count`). When a finding names
one of those words as what a warp waits for, `queue_notes` adds the queue's occupancy and which
side the waiter is on, read from memory at the stop: a put waits for a get to empty its slot, a
get for a put to fill it, and a `for` loop's get for either a put or the last close.
"""
from __future__ import annotations

import re

_WORD = re.compile(r"`(?P<queue>[A-Za-z_][\w]*)\.(?P<part>seq|closed\.count)(?P<index>(\[\d+\])*)`")


def queue_notes(sim, findings) -> None:
    """Add to each finding that waits on a queue's word a note on that queue (once per finding)."""
    for f in findings:
        m = _WORD.search(f.message)
        if m is None:
            continue
        note = describe(sim, m.group("queue"), m.group("part"), _flat(m.group("index")),
                        f.warp.block if f.warp is not None else None)
        if note:
            f.notes.append((note, None))


def describe(sim, queue: str, part: str, index: int, block) -> str | None:
    ends, seq = _read(sim, f"{queue}.ends", block), _read(sim, f"{queue}.seq", block)
    if ends is None or seq is None or len(ends) < 2:
        return None
    instances = len(ends) // 2
    cap = len(seq) // instances
    i = index // cap if part == "seq" else index
    tail, head = ends[2 * i], ends[2 * i + 1]
    name = f"`{queue}" + (f"[{i}]" if instances > 1 else "") + "`" + \
        (f" of block {block.index}" if _shared(sim, queue) and block is not None else "")
    text = (f"queue {name}: {tail} put{'s' if tail != 1 else ''} and {head} get{'s' if head != 1 else ''} "
            f"have taken a ticket; {_inside(seq[i * cap:(i + 1) * cap])} of its {cap} slots hold a value")
    closes = _read(sim, f"{queue}.closed.count", block)
    if closes is not None:
        left = closes[i]
        text += "; closed" if left <= 0 else f"; {left} close{'s' if left != 1 else ''} still to come"
    if part == "seq":
        word = seq[index]
        waiter = ("a put waiting for a get to take the value in the slot" if word % 2 else
                  "a get waiting for a put to fill the slot" + (" (or a `for` loop's get, for the last close)"
                                                                if closes is not None else ""))
        text += f"; the slot waited on ({index % cap}) is {'full' if word % 2 else 'empty'} for round " \
                f"{word // 2}: {waiter}"
    return text


def _inside(words) -> int:
    return sum(1 for w in words if w % 2)


def _flat(index: str) -> int:
    nums = [int(x) for x in re.findall(r"\d+", index)]
    return nums[-1] if nums else 0        # (a queue's state arrays are one-dimensional)


def _shared(sim, name: str) -> bool:
    return any(a.name == f"{name}.seq" for a in getattr(sim.kernel, "shared", ()))


def _read(sim, name: str, block) -> list[int] | None:
    """The words of the array `name` (global, or shared in `block`), as signed ints."""
    for a in sim.gmem.allocations:
        if a.name == name:
            return [_signed(int(w)) for w in sim.gmem.read_back(a.base, a.words)]
    if block is None:
        return None
    for a in sim.kernel.shared:
        if a.name == name:
            start = (block.base + a.offset) // 4
            return [_signed(int(w)) for w in block.sm.shared.words[start:start + a.length]]
    return None


def _signed(v: int) -> int:
    return v - (1 << 32) if v >= 1 << 31 else v
