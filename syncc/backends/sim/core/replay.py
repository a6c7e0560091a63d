"""The compiled core's event log, replayed into the simulator's observers (trace.py's hooks).

    replay(sim, warp_at, rows)     # rows of the engine's LOG; warp_at: warp slot → Warp

The engine appends a row per event while it runs (layout.LOG_*); the bridge replays the rows,
in order, before it answers any other event, so observers are called in the reference engine's
order: an instruction's `issued` before what it caused (a divergence, a barrier wait and the
releases it triggers, the warp finishing), all of it before its block's `block_finished`.

An observer is given a `WarpAt`: the warp as it was at the event for what the log records (its
pc, active lanes, instructions issued, and for `issued` and `warp_finished` the lock bits it
holds and its SM's taken); anything else is read from the warp's record, which the engine
writes back only when it stops.
"""
from __future__ import annotations

from .. import lanes as L
from .layout import (
    LOG_ISSUED, LOG_DIVERGED, LOG_BARRIER_WAIT, LOG_BARRIER_RELEASED, LOG_WARP_FINISHED,
    L_KIND, L_NOW, L_SLOT, L_PC, L_ACTIVE, L_ISSUED, L_ARG, L_HELD, L_TAKEN,
)


class WarpAt:
    """A warp as an event saw it (the reference hands observers the live Warp)."""
    __slots__ = ("row", "warp", "uid")

    def __init__(self, warp, row):
        self.warp, self.row = warp, row
        self.uid = warp.uid          # every hook reads it, most more than once: not via __getattr__

    @property
    def pc(self) -> int:
        return self.row[L_PC]

    @property
    def active(self) -> int:
        return L.expand(self.row[L_ACTIVE])

    @property
    def issued(self) -> int:
        return self.row[L_ISSUED]

    def __getattr__(self, name):
        return getattr(self.warp, name)

    def lock_bits_held(self) -> int:
        return self._checked(self.row[L_HELD])

    def lock_bits_taken(self) -> int:
        return self._checked(self.row[L_TAKEN])

    @staticmethod
    def _checked(n: int) -> int:
        if n < 0:
            raise RuntimeError("the compiled core logs lock bits only for `issued` and `warp_finished`")
        return n


# each event but LOG_ISSUED (replay() calls `issued` itself), as the reference engine calls its hook
_HOOK = {
    LOG_DIVERGED: lambda obs, w, row: obs.diverged(w, row[L_NOW], row[L_ARG]),
    LOG_BARRIER_WAIT: lambda obs, w, row: obs.barrier_wait(w, row[L_NOW], row[L_ARG]),
    LOG_BARRIER_RELEASED: lambda obs, w, row: obs.barrier_released(w, row[L_NOW], row[L_ARG]),
    LOG_WARP_FINISHED: lambda obs, w, row: obs.warp_finished(w, row[L_NOW]),
}


def replay(sim, warp_at: dict, rows: list) -> None:
    obs, code = sim.observer, sim.code
    issued = None                        # most rows are instructions issued: their hook, looked up once
    for row in rows:
        w = WarpAt(warp_at[row[L_SLOT]], row)
        if row[L_KIND] == LOG_ISSUED:
            if issued is None:
                issued = obs.issued
            issued(w, code[row[L_PC] >> 3], row[L_NOW])
        else:
            _HOOK[row[L_KIND]](obs, w, row)
