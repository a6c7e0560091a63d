"""What each primitive kind accepts, and the implementations `using` can name.

The rules of docs/language.md ("Primitives") are data here, so the checker,
the docs and later the lowering read one table. An implementation lists the
placements and granularities it supports and its parameters (all integers,
with defaults). Which implementation a primitive gets when no `using` is
written is the target's choice (docs/targets.md), not the front end's.
"""
from __future__ import annotations

from dataclasses import dataclass

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
    lock_bits: bool = False     # uses Fermi lock bits (emulated with a shared flag on PTX)


def _impl(kind, name, placements, grans, summary, source, params=(), **props):
    return Implementation(kind, name, tuple(placements.split()), tuple(grans.split()),
                          tuple(ImplParam(n, d) for n, d in params), summary, source, **props)


_BACKOFF = (("min_delay", 32), ("max_delay", 1024))

IMPLEMENTATIONS: tuple[Implementation, ...] = (
    # mutexes
    _impl("mutex", "tas", "global shared", "thread warp block",
          "test-and-set: spin on atomic compare-and-swap", "seed 003 Listing 4.2; seed 001 Algorithm 1",
          abandonable=True),
    _impl("mutex", "ttas", "global", "thread warp block",
          "test-and-test-and-set: poll with L1-bypassing loads, then CAS", "seed 003 Listing 4.4",
          abandonable=True),
    _impl("mutex", "ticket", "global shared", "thread warp block",
          "fetch-and-add ticket lock: fair, first come first served; `delay`: ns a waiter sleeps per "
          "waiter ahead of it between polls (proportional backoff; 0 polls without sleeping)",
          "seed 001 Algorithm 3; seed 003 Listing 4.7; Mellor-Crummey & Scott 1991 (proportional backoff)",
          (("delay", 0),)),
    _impl("mutex", "mcs", "global", "thread",
          "MCS queue lock: each waiter spins on its own node", "seed 003 Listing 4.10"),
    _impl("mutex", "mcs2", "global", "thread",
          "MCS with two queue nodes per thread, for lock coupling", "seed 003 section 4.2.2"),
    _impl("mutex", "backoff", "global shared", "thread warp block",
          "spin lock with growing delay between attempts", "seed 001 Algorithm 2", _BACKOFF, abandonable=True),
    _impl("mutex", "tinylock", "shared", "thread warp",
          "Fermi lock bits (LDSLK/STSUL), no mutex word; a warp shares one bit at @warp",
          "seed 000 Listings 4 and 9", abandonable=True, lock_bits=True),
    # semaphores
    _impl("semaphore", "spin", "global shared", "thread warp block",
          "spin on a lock-protected counter", "seed 001 Algorithm 4", abandonable=True),
    _impl("semaphore", "backoff", "global shared", "thread warp block",
          "spin semaphore with backoff in wait", "seed 001 Algorithm 4", _BACKOFF, abandonable=True),
    _impl("semaphore", "sleeping", "global", "thread warp block",
          "fetch-and-add count plus tickets: at most two atomics per operation",
          "seed 001 Algorithm 5"),
    # barriers
    _impl("barrier", "bar", "shared", "warp block",
          "hardware barriers: bar.sync 0 for a block, named bar.sync/bar.arrive with a count",
          "seed 000 Listing 12"),
    _impl("barrier", "syncwarp", "shared", "warp",
          "__syncwarp: the lanes of one warp meet", "seed 003 Listing 3.6"),
    _impl("barrier", "atomic", "global", "grid",
          "sense-reversing barrier on one atomic counter", "seed 001 section 5.1"),
    _impl("barrier", "xf", "global", "grid",
          "Xiao-Feng barrier: one flag per block, a master block gathers and releases",
          "seed 001 section 5.1"),
    _impl("barrier", "flip", "global", "grid",
          "one counter whose top bit flips each round: one atomic per block, nothing reset",
          "cooperative groups' grid.sync; syncc"),
    _impl("barrier", "hierarchical", "global", "grid",
          "blocks meet in groups of 8 first, then one block per group meets the other groups", "syncc"),
    # channels
    _impl("channel", "tinylock", "shared", "thread warp",
          "one Fermi lock bit per slot: the producer holds it until it puts",
          "seed 000 Listings 6, 8, 13 and 15", lock_bits=True),
    _impl("channel", "atomlock", "shared global", "thread warp",
          "one spin-lock word per slot (at @warp, one per warp)", "seed 000 Listings 11 and 14"),
    _impl("channel", "flag", "shared global", "thread warp block",
          "data plus a ready flag, written with release and read with acquire",
          "seed 002 producer-consumer"),
    _impl("channel", "namedbar", "shared", "warp",
          "producer warp bar.arrive, consumer warp bar.sync on a named barrier",
          "seed 000 Listing 12"),
    # reader-writer locks
    _impl("rwlock", "counter", "global shared", "thread warp block",
          "one word: readers add 1 (and back out if a writer holds bit 31), a writer CASes 0 to bit 31; "
          "reader-preferring, writers can starve", "Courtois, Heymans & Parnas 1971 (readers' priority); syncc"),
    _impl("rwlock", "ticket", "global shared", "thread warp block",
          "reader-writer ticket lock: one ticket counter for both; a writer waits for every earlier ticket, "
          "a reader only for earlier writers; fair (FIFO)", "Mellor-Crummey & Scott 1991, section 2.2"),
    # latches
    _impl("latch", "counter", "global shared", "thread warp block",
          "an atomic decrement to count down; waiters poll (past L1 in global memory) until zero",
          "C++20 std::latch; syncc"),
)


def implementations(kind: str) -> dict[str, Implementation]:
    return {i.name: i for i in IMPLEMENTATIONS if i.kind == kind}


MAX_NAMED_BARRIERS = 15  # 16 per block; barrier 0 serves `barrier`
