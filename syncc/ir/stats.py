"""Counts over the IR that the fence figures and their tests use.

    stats = fence_stats(module)      # after every pass

`fences` are explicit fence instructions; `ordered` the loads, stores and
atomics that carry acquire or release themselves (PTX's ld.acquire,
st.release, atom.acq_rel), which order memory without a fence; `sync_ops` the
operations that synchronize: atomics, lock-bit operations, barriers, warp
syncs, and loads and stores of primitive state. A polling loop's `deferred`
acquire fence (PTX) is not counted: it stands for the acquire its polls are
counted for, and the back end keeps one or the other. The naive placement, a fence
on each side of every synchronizing operation, is 2 × sync_ops. The counts are
static (instructions in the code), not executions.
"""
from __future__ import annotations

from dataclasses import dataclass

from .nodes import Module

ORDERS = ("acquire", "release", "acq_rel", "sc")


@dataclass(frozen=True)
class FenceStats:
    fences: int
    cta_fences: int
    ordered: int
    sync_ops: int

    @property
    def naive(self) -> int:
        return 2 * self.sync_ops


def fence_stats(module: Module) -> FenceStats:
    fences = cta = ordered = sync = 0
    for k in module.kernels:
        state = {a.name for a in k.arrays if a.kind == "state"}
        for _, _, ins in k.instructions():
            group = ins.info.group
            if ins.op == "fence":
                if ins.attr("deferred"):
                    continue
                fences += 1
                cta += ins.attr("scope") == "cta"
                continue
            if ins.attr("order") in ORDERS:
                ordered += 1
            if group in ("atomic", "lockbit", "barrier", "mbarrier") or ins.op == "warp.sync" or \
                    group == "memory" and ins.ref is not None and ins.ref.name in state:
                sync += 1
    return FenceStats(fences, cta, ordered, sync)
