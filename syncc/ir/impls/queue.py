"""Queue implementations. A queue never reaches expansion as itself: lowering (ir/lower_queue.py)
builds each `put` and `get` from primitives every pass already knows, so the hazard checks judge a
queue's waits exactly as they judge those primitives'.

    locked    a ring of `capacity` slots with two counting semaphores, `space` (its free slots,
              `capacity` at first) and `items` (its stored values, 0 at first), and two mutexes,
              one for the tail and one for the head:
                  put:  wait space; critical tail { data[tail % cap] = v; tail += 1 }; post items
                  get:  wait items; critical head { v = data[head % cap]; head += 1 }; post space
              A get's acquire of `items` follows the release of every put before the one that
              posted it (the tail mutex orders the puts), so it sees the slot it reads written.
"""
from __future__ import annotations

from .entry import Expansion, default, entry


class Locked(Expansion):
    about = entry("queue", "locked", "shared global", "thread",
                  "a ring of `capacity` slots: counting semaphores for its free slots and its values, "
                  "a mutex each for the tail and the head", "seed 001 section 4 (semaphores); docs/design/queues.md")
    defaults = default("ptx fermi", "shared @thread, global @thread",
                       "the one queue implementation so far: built from semaphores and mutexes, so every "
                       "hazard check judges its waits as theirs")

    @classmethod
    def operations(cls):
        return {}           # lowering builds puts and gets from the parts' operations


IMPLEMENTATIONS = (Locked,)
