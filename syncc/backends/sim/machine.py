"""The simulated machine's parameters: a GTX480-class Fermi, in one frozen dataclass.

    config = FermiConfig()                                  # the defaults below
    config = FermiConfig(lock_bits=256, policy="gto")       # another lock unit, another scheduler

Limits are NVIDIA's for compute capability 2.0 (and GPGPU-Sim's tested GTX480
configuration). Cycles are SM core cycles, in which each of the two warp
schedulers can issue one warp-instruction. Latencies start from docs/references.md
(shared ≈ 26, ALU dependent issue ≈ 11 core cycles, global 400–800 shader
clocks ≈ 200–400 core cycles); lock_replay, membar_cta_latency and
barrier_latency were then calibrated so that the five schemes of seed 000's
Table 1 relate as in its Figure 4 (docs/fermi.md, "Calibration against seed
000's Figure 4", says how).
"""
from __future__ import annotations

from dataclasses import replace

from ...core.prebuilt import dataclass

POLICIES = ("lrr", "gto", "adversarial")     # and "random:SEED", "adversarial:SEED", "hunt:SEED"
PREEMPTIONS, PREEMPT_EVERY, PREEMPT_CYCLES = 8, 64, 2000      # adversarial:SEED (simulator.Scheduler)
HUNT_PREEMPTIONS, HUNT_EVERY = 32, 2         # hunt:SEED: its preemptions, at synchronization points only
HUNT_STRAGGLER_EVERY = 2                     # and its weak memory's stragglers: one store in 2 (weakmem.py)


@dataclass(frozen=True)
class FermiConfig:
    # ---- the chip
    sms: int = 15
    schedulers: int = 2                 # warp schedulers per SM (warps alternate between them)
    max_blocks_per_sm: int = 8
    max_warps_per_sm: int = 48
    max_threads_per_sm: int = 1536
    registers_per_sm: int = 32768
    shared_bytes_per_sm: int = 48 * 1024
    shared_banks: int = 32
    named_barriers: int = 16            # per block, barrier 0 included
    lock_bits: int = 1024               # per SM; a word's bit is (address >> 2) mod lock_bits
    clock_mhz: int = 1401               # the shader clock: SR_GlobalTimerLo is cycles × 1000 / clock_mhz ns
    # ---- scheduling
    policy: str = "lrr"                 # lrr | gto | adversarial | adversarial:SEED | hunt:SEED | random:SEED
    its: bool = False                   # independent thread scheduling (per-lane addresses)
    # ---- global memory (weakmem.py)
    memory: str = "weak"                # weak | weak:SEED | sc (sequentially consistent)
    l1_lines: int = 128                 # per SM: 16 KB of 128-byte lines (Fermi's default split)
    l1_latency: int = 35                # a load that hits L1
    sm_store_jitter: int = 16           # a store reaches its own SM's other warps 1..1+this cycles later
    store_jitter: int = 300             # and L2 global_store_latency ± half of this later,
    straggler_every: int = 8            # one store in this many (by its hash) later still,
    straggler_delay: int = 4000         # by up to this many cycles
    # ---- latencies (cycles until a result can be used) and occupancies
    alu_latency: int = 11
    mul_latency: int = 11
    s2r_latency: int = 20
    vote_latency: int = 11
    shared_latency: int = 26
    shared_replay: int = 2              # extra cycles per extra transaction (a bank conflict)
    lock_replay: int = 0                # extra cycles per extra lock-unit transaction (lanes on one lock bit)
    lsu_occupancy: int = 1              # cycles one shared transaction holds the SM's load/store unit
    global_latency: int = 300
    global_store_latency: int = 300     # until a store is visible at L2 (what MEMBAR.GL waits for)
    local_latency: int = 35             # L1 hit
    atomic_latency: int = 300           # a global atomic: to L2 and back
    atomic_occupancy: int = 8           # cycles one atomic holds its address at L2
    membar_cta_latency: int = 24
    membar_gl_latency: int = 40         # on top of waiting for the warp's outstanding stores
    branch_latency: int = 8             # a taken or divergent branch: fetch from the new address
    stack_latency: int = 2              # SSY/PBK push, a pop at .S/BRK/EXIT
    barrier_latency: int = 70           # from the last arrival to the release of the waiters
    # ---- how it is simulated (not what): the compiled core, where it can run a launch, or the
    # Python reference engine (core/ and simulator.py; the same cycles either way)
    engine: str = "compiled"            # compiled | reference
    # ---- budgets
    max_cycles: int = 50_000_000        # a run that has not finished by then is stopped and explained
    check_every: int = 4096             # issued instructions between checks for a quiet machine
    quiet_cycles: int = 20_000          # no value changed for this long: fingerprint the state (livelock?)

    def with_(self, **changes) -> "FermiConfig":
        return replace(self, **changes)

    def check(self) -> str | None:
        """What is wrong with this configuration, in words (None: nothing)."""
        if self.policy not in POLICIES and not _is_seeded(self.policy):
            return (f"unknown scheduling policy `{self.policy}`: expected lrr, gto, adversarial, "
                    "adversarial:SEED, hunt:SEED or random:SEED")
        if self.memory not in ("sc", "weak") and not _is_seeded(self.memory, ("weak",)):
            return f"unknown memory model `{self.memory}`: expected weak, weak:SEED or sc"
        if self.lock_bits <= 0 or self.lock_bits & (self.lock_bits - 1):
            return f"lock_bits must be a power of two, not {self.lock_bits}"
        if self.sms < 1 or self.schedulers < 1:
            return "an SM count and a scheduler count of at least 1 are needed"
        return None


def _is_seeded(policy: str, heads=("random", "adversarial", "hunt")) -> bool:
    head, _, seed = policy.partition(":")
    return head in heads and seed.lstrip("-").isdigit()
