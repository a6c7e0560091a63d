"""The machines syncc compiles for.

A MachineModel says what the passes must know: whether a warp reconverges on a
stack (Fermi: SIMT deadlock is possible) or schedules threads independently
(sm_70 and later: livelock is possible, and `__syncwarp` prevents it), how
many lock bits an SM has and which word addresses share one, how many named
barriers a block has, and how many blocks can be resident at once (for grid
barriers). The cost model that picks an implementation for a primitive
declared without `using` is derived from the implementations' registry
(syncc/ir/impls/registry.py); docs/targets.md explains it in prose.
"""
from __future__ import annotations

from ..core.prebuilt import dataclass


@dataclass(frozen=True)
class MachineModel:
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
    mbarrier: bool = False          # shared-memory mbarriers (PTX; the back end stands in for them before sm_80)
    # 64-bit loads and stores: a @thread ring's slot holds its 32-bit value and sequence word in one
    # word, so a get's poll brings the value and a put's publication stores it (impls/queue/ring.py)
    wide_slots: bool = False
    # the back end leaves a small counted loop as a loop (the PTX path: LLVM runs SROA and
    # instcombine only, and ptxas seldom unrolls), so the compiler writes its rounds out at -O2
    # (passes/unroll_counted.py), which puts a round's loads in flight together
    unroll_counted_loops: bool = False
    # the model whose implementation defaults this one takes (None: its own rows, by its name): a
    # new model of a machine syncc already knows (a cluster-aware sm_90, say) names the old one
    defaults_of: str | None = None
    # what its findings depend on, in a few words: `syncc check` notes a finding for this model alone
    # "on NAME (its targets): BRIEF"
    brief: str = ""

    @property
    def stack_based(self) -> bool:
        """Does a warp reconverge on a stack (so a lane spinning on a lock its own warp holds deadlocks)?"""
        return not self.its

    def co_resident_blocks(self, threads_per_block: int) -> int:
        """Blocks that can be resident at once, from thread and block limits (registers and
        shared memory can lower it further: the runtime checks occupancy before a launch)."""
        per_sm = min(self.max_blocks_per_sm, max(1, self.max_threads_per_sm // max(1, threads_per_block)))
        return self.sms * per_sm


PTX = MachineModel("ptx", "PTX for sm_70 to sm_90, independent thread scheduling", its=True, lock_bits=None,
             sms=132, max_blocks_per_sm=32, max_threads_per_sm=2048, ordered_atomics=True, mbarrier=True,
             wide_slots=True, unroll_counted_loops=True, brief="sm_70+, independent thread scheduling")
FERMI = MachineModel("fermi", "Fermi SASS, GTX480-class: stack-based reconvergence, lock bits", its=False,
               lock_bits=1024, lock_word_stride=1024, sms=15, max_blocks_per_sm=8, max_threads_per_sm=1536,
               ordered_atomics=False, brief="stack-based reconvergence")

# The simulator's --its mode: Fermi's lock bits and limits, with independent thread scheduling (so
# prevent_livelock inserts __syncwarp, and SIMT deadlock is not a hazard)
FERMI_ITS = MachineModel("fermi", "Fermi SASS with independent thread scheduling (the simulator's --its mode)", its=True,
                   lock_bits=1024, lock_word_stride=1024, sms=15, max_blocks_per_sm=8, max_threads_per_sm=1536,
                   ordered_atomics=False)

# The models with implementation defaults of their own (ir/impls/: `default("ptx", ...)` rows), by the
# name the rows give. The targets name their models in backend_table.py; a new model that takes
# another's defaults (defaults_of) needs no place here.
TARGETS = {"ptx": PTX, "fermi": FERMI}

