"""What each primitive kind accepts, and what an implementation `using` can name declares.

The rules of docs/language.md ("Primitives") are data here, so the checker,
the docs and the lowering read one table. An implementation lists the
placements and granularities it supports and its parameters (all integers,
with defaults). The implementations themselves are registered with their
expansions in syncc/ir/impls/ (registry.py); the front end, the lower layer,
does not import them: the driver hands the checker the registry's catalogue.
Which implementation a primitive gets when no `using` is written is the
target's choice (docs/targets.md), not the front end's.
"""
from __future__ import annotations

from ..core.prebuilt import dataclass


GRANULARITIES = ("thread", "warp", "block", "grid")
PLACEMENTS = ("shared", "global")


@dataclass(frozen=True)
class KindRule:
    granularities: tuple[str, ...]
    arg: str | None          # name of the one positional argument, if the kind takes one
    arg_required: bool
    carries_values: bool     # channels hold typed slots
    summary: str


KINDS: dict[str, KindRule] = {
    "mutex": KindRule(("thread", "warp", "block"), None, False, False,
                      "mutual exclusion: one holder at a time"),
    "semaphore": KindRule(("thread", "warp", "block"), "count", True, False,
                          "at most `count` holders at a time"),
    "barrier": KindRule(("warp", "block", "grid"), "count", False, False,
                        "every participant waits until all have arrived"),
    "channel": KindRule(("thread", "warp", "block"), None, False, True,
                        "write-once slots: one producer puts, consumers wait and get"),
    "rwlock": KindRule(("thread", "warp", "block"), None, False, False,
                       "many readers at once, or one writer"),
    "latch": KindRule(("thread", "warp", "block"), "count", True, False,
                      "single use: opens once `count` parties have counted down"),
    "queue": KindRule(("thread", "warp", "block"), "capacity", True, True,
                      "bounded first-in first-out stream: a put waits while it is full, a get takes "
                      "the oldest value and waits while it is empty"),
    "scan": KindRule(("block",), None, False, True,
                     "a running sum over the grid: each block takes a tile, and each thread gets the sum of "
                     "the values given before its own, in tile order"),
}


@dataclass(frozen=True)
class ImplParam:
    name: str
    default: int


@dataclass(frozen=True)
class Implementation:
    kind: str
    name: str
    placements: tuple[str, ...]
    granularities: tuple[str, ...]
    params: tuple[ImplParam, ...]
    summary: str
    source: str                 # where in the seed papers it comes from
    abandonable: bool = False   # a waiter may give up (so `trylock`/`trywait` exist): no ticket taken
    permits: bool = False       # a semaphore that takes or gives several permits at once (`wait s(k)`)
    lock_bits: bool = False     # uses Fermi lock bits (emulated with a shared flag on PTX)
    # a barrier at @warp: True when it must be given a thread count (a named barrier), False when
    # it cannot take one (the lanes of one warp); None where a count is the kind's usual argument
    warp_count: bool | None = None
    # a queue whose sides count their own operations instead of taking tickets: one party a side
    # (E0725), `put` and `get` only (E0418), declared in the kernel that uses it (E0409)
    counted: bool = False
    # a queue that `close` and `for v in q` may be used on (E0418)
    closable: bool = False
    # a queue that takes a range put, `put q = src[lo .. hi]`, at @thread: many tickets at once (E0426)
    ranges: bool = False
    # a queue named by a constant index only: its lanes count each instance in a register (E0418)
    constant_index: bool = False
    # a queue whose kernel's block must be whole warps: one arrival a lane completes a stage (E0409)
    whole_warps: bool = False
    # a counted queue a library may declare outside a kernel, to vend it to C++ callers, who owe
    # it one party a side (docs/stdlib.md)
    vendable: bool = False


MAX_NAMED_BARRIERS = 15  # 16 per block; barrier 0 serves `barrier`
