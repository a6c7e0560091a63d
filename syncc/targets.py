"""The machines syncc compiles for, and the cost model that picks default implementations.

A Target says what the passes must know: whether a warp reconverges on a
stack (Fermi: SIMT deadlock is possible) or schedules threads independently
(sm_70 and later: livelock is possible, and `__syncwarp` prevents it), how
many lock bits an SM has and which word addresses share one, how many named
barriers a block has, and how many blocks can be resident at once (for grid
barriers). docs/targets.md explains the cost model below in prose.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Target:
    name: str                       # ptx | fermi
    title: str
    its: bool                       # independent thread scheduling (sm_70+)
    lock_bits: int | None           # lock bits per SM; None: no lock unit (emulated with shared flags)
    lock_word_stride: int = 1024    # word addresses this far apart share a lock bit
    named_barriers: int = 16        # per block, barrier 0 included
    sms: int = 1                    # streaming multiprocessors
    max_blocks_per_sm: int = 8
    max_threads_per_sm: int = 1536
    ordered_atomics: bool = False   # atomics and loads can carry acquire/release (else fences are emitted)
    defaults: dict = field(default_factory=dict, compare=False)
    # (kind, placement, granularity) → (implementation, parameters it gets when it is the default)
    default_params: dict = field(default_factory=dict, compare=False)

    @property
    def stack_based(self) -> bool:
        """Does a warp reconverge on a stack (so a lane spinning on a lock its own warp holds deadlocks)?"""
        return not self.its

    def co_resident_blocks(self, threads_per_block: int) -> int:
        """Blocks that can be resident at once, from thread and block limits (registers and
        shared memory can lower it further: the runtime checks occupancy before a launch)."""
        per_sm = min(self.max_blocks_per_sm, max(1, self.max_threads_per_sm // max(1, threads_per_block)))
        return self.sms * per_sm


# ---- the cost model: (kind, placement, granularity, named?) → implementation and why --------------

Choice = tuple[str, str]   # (implementation, reason)

_COMMON: dict[tuple[str, str, str], Choice] = {
    ("barrier", "shared", "block"): ("bar", "the hardware block barrier, bar.sync 0"),
    ("semaphore", "global", "thread"): ("sleeping", "seed 001: the sleeping (fetch-and-add) semaphore is the fastest "
                                                   "in almost all cases, with at most two atomics per operation"),
    ("semaphore", "global", "warp"): ("sleeping", "as for @thread: at most two atomics per operation"),
    ("semaphore", "global", "block"): ("sleeping", "seed 001 Table 5: best semaphore for blocks"),
    ("semaphore", "shared", "thread"): ("spin", "shared-memory counters are cheap to spin on within a block"),
    ("semaphore", "shared", "warp"): ("spin", "shared-memory counters are cheap to spin on within a block"),
    ("channel", "global", "thread"): ("flag", "data plus a ready flag with release/acquire: one store and one "
                                             "polling load per message"),
    ("channel", "global", "warp"): ("flag", "one flag per warp of slots, set after the warp's stores"),
    ("channel", "global", "block"): ("flag", "one flag per block of slots, set by thread 0 after a block barrier"),
    **{("latch", placement, gran): ("counter", "the only latch: one atomic decrement per party, waiters poll")
       for placement in ("global", "shared") for gran in ("thread", "warp", "block") if (placement, gran) !=
       ("shared", "block")},
}

_PTX: dict[tuple[str, str, str], Choice] = {
    **_COMMON,
    ("barrier", "global", "grid"): ("flip", "one atomic per block on one counter, as cooperative groups' grid.sync: "
                                            "1.15 µs at 132 blocks and 2.39 µs at 1056 on an H100, as grid.sync "
                                            "(1.15, 2.37), where xf takes 2.96 and 6.76 (`syncc bench gpu`)"),
    ("mutex", "global", "thread"): ("ticket", "measured on H100 (docs/references.md): ticket 0.93 M ops/s vs TAS 0.02 M "
                                             "under full contention; fair; seed 003 finds it scales best"),
    ("mutex", "global", "warp"): ("ticket", "one ticket per warp; fair between warps"),
    ("mutex", "global", "block"): ("ticket", "one ticket per block; fair between blocks; a waiter sleeps 100 ns "
                                            "per block ahead of it between polls, which holds 0.91-0.96 M hand-overs/s "
                                            "from 132 to 1056 blocks on an H100 where polling without sleeping "
                                            "falls from 1.00 to 0.83 M (`syncc bench gpu`, 2026-11-22)"),
    ("mutex", "shared", "thread"): ("ticket", "fair, and one atomic per acquisition"),
    ("mutex", "shared", "warp"): ("ticket", "fair between the warps of a block"),
    ("channel", "shared", "thread"): ("flag", "no lock bits after Fermi: a ready flag per slot, with cta-scope "
                                             "release/acquire"),
    ("channel", "shared", "warp"): ("flag", "a ready flag per warp of slots; named barriers are limited to 16"),
    **{("rwlock", placement, gran): ("ticket", "fair as the ticket mutex is (docs/references.md: tickets scale under "
                                               "contention on H100), and no writer starves behind a stream of readers")
       for placement, gran in (("global", "thread"), ("global", "warp"), ("global", "block"), ("shared", "thread"),
                               ("shared", "warp"))},
}

_FERMI: dict[tuple[str, str, str], Choice] = {
    **_COMMON,
    ("barrier", "global", "grid"): ("xf", "seed 001: the Xiao-Feng barrier is the fastest grid barrier on both GPUs "
                                          "it measured (Table 5); one flag per block, no contended atomic"),
    ("mutex", "global", "thread"): ("backoff", "seed 001 Table 5: on Fermi the spin lock with backoff overtakes "
                                              "fetch-and-add beyond a few blocks"),
    ("mutex", "global", "warp"): ("backoff", "seed 001 Table 5, per warp"),
    ("mutex", "global", "block"): ("backoff", "seed 001 Table 5: best mutex for blocks on Fermi at scale"),
    ("mutex", "shared", "thread"): ("tinylock", "seed 000: lock bits need no mutex word and one load and one store "
                                               "per acquisition; 4.0x the atomic spin lock"),
    ("mutex", "shared", "warp"): ("tinylock", "seed 000 Listing 9: one lock bit shared by the warp"),
    **{("rwlock", placement, gran): ("counter", "fewest atomics: a reader adds and a writer CASes one word, "
                                                "where the ticket lock takes two per write; seed 001 finds every "
                                                "extra atomic costly on Fermi, whose atomic unit serializes a "
                                                "contended line")
       for placement, gran in (("global", "thread"), ("global", "warp"), ("global", "block"), ("shared", "thread"),
                               ("shared", "warp"))},
    ("channel", "shared", "thread"): ("tinylock", "seed 000 Table 2: tiny_lock is the fastest scheme (4.0x atom_lock)"),
    ("channel", "shared", "warp"): ("namedbar", "seed 000 Table 2: warp_barr (2.6x) beats warp_vote (2.0x) for "
                                               "warp-to-warp channels"),
}

PTX = Target("ptx", "PTX for sm_70 to sm_90, independent thread scheduling", its=True, lock_bits=None,
             sms=132, max_blocks_per_sm=32, max_threads_per_sm=2048, ordered_atomics=True, defaults=_PTX,
             default_params={("mutex", "global", "block"): ("ticket", {"delay": 100})})
FERMI = Target("fermi", "Fermi SASS, GTX480-class: stack-based reconvergence, lock bits", its=False,
               lock_bits=1024, lock_word_stride=1024, sms=15, max_blocks_per_sm=8, max_threads_per_sm=1536,
               ordered_atomics=False, defaults=_FERMI)

# The simulator's --its mode: Fermi's lock bits and limits, with independent thread scheduling (so
# prevent_livelock inserts __syncwarp, and SIMT deadlock is not a hazard)
FERMI_ITS = Target("fermi", "Fermi SASS with independent thread scheduling (the simulator's --its mode)", its=True,
                   lock_bits=1024, lock_word_stride=1024, sms=15, max_blocks_per_sm=8, max_threads_per_sm=1536,
                   ordered_atomics=False, defaults=_FERMI)

TARGETS = {"ptx": PTX, "fermi": FERMI}


# Locks a thread can try once and give up on, best first, for a mutex used with `trylock`
_TRYABLE = {"ptx": ("ttas", "tas", "backoff"), "fermi": ("tinylock", "backoff", "tas", "ttas")}


def default_implementation(target: Target, kind: str, placement: str, granularity: str,
                           named: bool = False, tried: bool = False, instances: int = 1) -> Choice:
    """The implementation a primitive gets when its declaration says no `using`. `tried`: the
    program uses `trylock` on it, so the waiter must be able to give up (no ticket, no queue).
    `instances`: its slots, for a channel whose default needs a named barrier per warp of them."""
    from .frontend.catalogue import implementations
    if kind == "barrier" and granularity == "warp":
        return ("bar", "a named barrier (bar.sync/bar.arrive with a thread count)") if named else \
            ("syncwarp", "the lanes of one warp meet: __syncwarp")
    choice = target.defaults.get((kind, placement, granularity))
    if choice is None:
        raise KeyError(f"no default {kind} in {placement} memory at @{granularity} for {target.name}")
    catalogue = implementations(kind)
    groups = -(-instances // 32)
    if choice[0] == "namedbar" and groups > target.named_barriers - 1:
        return "tinylock", (f"{groups} warps of slots need more named barriers than the {target.named_barriers - 1} "
                            "a block can spare, so one lock bit per warp with a vote (seed 000 Listing 9: "
                            "warp_vote, 2.0x atom_lock)")
    if tried and not catalogue[choice[0]].abandonable:
        for name in _TRYABLE[target.name]:
            impl = catalogue[name]
            if placement in impl.placements and granularity in impl.granularities:
                return name, (f"`trylock` is used on it and a {choice[0]} lock cannot give up a try, so "
                              f"{name}, the first of {', '.join(_TRYABLE[target.name])} that fits")
    return choice
