"""Queues: each implementation one class that answers the front end, lowering, the cost model
and vending (base.py, QueueImplementation), and the implementations of a queue's two sides.

Every queue `q` of capacity C has, per instance i, two counting semaphores, and every operation
is built on them, so every hazard check judges a queue's waits as those semaphores' (the model
of docs/design/queues.md):

    q.space[i]   C permits at first: the queue's free slots
    q.items[i]   0 permits at first: the values stored
    q.data       the slots, C per instance

So a `get` that no `put` can serve is a semaphore wait that no post can end (E0705), a `put`
made while holding a lock the consumer needs is a hold across a wait (E0720), and so on.

    locked.py      `locked`: the sides are the target's default semaphores, with a mutex each
                   over the tail and the head
    ring.py        `ring`, the default: a sequence word per slot and a ticket counter per side;
                   its sides (ring_side.py) are the queue's own operations (ops.py, queue.*);
                   ring_party.py: a @warp or @block party's puts and gets
    counted.py     queues whose sides count their own tickets, one party a side: `spsc` and
                   Fermi's `tinylock`
    mbarrier.py    `mbarrier` (ptx): stages of 32 values, one producer and one consumer warp
    choose.py      the cost model: a counted queue for a default one that one party a side serves

A new queue implementation is one class (and, if its sides are new, their class, its `sides`),
named in IMPLEMENTATIONS below.
"""
from __future__ import annotations

from .counted import Spsc, TinyLockQueue
from .locked import Locked
from .mbarrier import Mbarrier
from .ring import Ring

IMPLEMENTATIONS = (Locked, Ring, Mbarrier, Spsc, TinyLockQueue)
# the implementations of the queues' parts, which `using` cannot name
PARTS = tuple(q.sides for q in IMPLEMENTATIONS if q.sides is not None)
