"""The Python side of the compiled core: it builds the machine as flat arrays from a Simulator,
runs the engine, answers its events with the reference's own code, and writes the state back.

    status, repeat = advance(sim, until)      # as Simulator.advance, on the compiled engine

The Simulator's objects stay the record of the run, and the bridge uses only their public
names (simulator.Simulator's docstring lists them). A block's end and the launch of the next
blocks are the reference's `finish_block` (the new warps' registers, predicates and local memory
are views into the engine's arrays, so nothing is copied for them); livelock checks are its
`quiet_check`; a fault's message is its own; observers' hooks are called from the engine's event
log (replay.py). Whenever the run stops (finished, deadlock, budget, livelock, a fault) `export`
writes every other part of the state into the objects (weak memory's as weakmem.WeakMemory
lists it), so that diagnosis, `--stats`, `keep_shared` and the reference engine itself go on
from exactly where the engine stopped.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from .. import lanes as L
from ..execute import InstructionError, Trap
from ..its import ItsState, bra_u_splits, stack_op_in_its, sync_in_its
from ..machine import HUNT_EVERY, PREEMPT_CYCLES, PREEMPT_EVERY
from ..memory import GLOBAL_BASE, LockHolders, MemoryFault
from ..warp import BlockBarrier, StackOverflow
from ..weakmem import HISTORY, LOAD_TABLE, PendingStore, WeakMemory
from . import engine as E
from .layout import (
    OP, OPS, REASONS,
    W_UID, W_PC, W_ACTIVE, W_EXITED, W_READY, W_LAST, W_ISSUED, W_REASON, W_WAIT, W_STORES, W_SP,
    W_SCHED, W_BLOCK, W_SM, W_INDEX, W_COLS,
    W_PRESENT, W_CURRENT, W_YIELDED, W_NSPLITS, W_NBSYNC, W_NWARPSYNC, W_NSLEEP, W_SEQ, WAITING,
    ITS_ROWS, CONVERGENCE_BARRIERS, SP_SEQ, BW_COLS,
    G_NOW, G_WI, G_TI, G_LAST_CHANGE, G_CHECK_AT, G_SM, G_PENDING, G_EVENT_ARG, G_LIVE_BLOCKS, G_UNTIL,
    G_NEXT_DRAIN, G_SEQ, G_HITS, G_MISSES, G_LASTW, G_LASTPC, G_LOGGED, G_COLS,
    INF,
    EV_FINISHED, EV_DEADLOCK, EV_BUDGET, EV_CHECK, EV_BLOCK_DONE, EV_ERROR, EV_GROW, EV_LOG,
    N_FREE, N_HEAP,
    C_SCHEDULERS, C_POLICY, C_WEAK, C_SEED, C_SHARED_LAT, C_SHARED_REPLAY, C_LOCK_REPLAY, C_GLOBAL_LAT,
    C_GSTORE_LAT, C_L1_LAT, C_L1_LINES, C_SM_JITTER, C_STORE_JITTER, C_STRAGGLER_EVERY,
    C_STRAGGLER_DELAY, C_ATOMIC_LAT, C_ATOMIC_OCC, C_MEMBAR_CTA, C_MEMBAR_GL, C_BRANCH, C_STACK,
    C_BARRIER_LAT, C_NAMED_BARRIERS, C_BANKS, C_LOCK_BITS, C_SHARED_BYTES, C_LOCAL_BYTES, C_SMS,
    C_BLOCK_X, C_BLOCK_Y, C_GLOBAL_BASE, C_NGLOBAL, C_PREEMPT_EVERY, C_PREEMPT_CYCLES, C_TRACE,
    C_LOG_ROOM, C_CLOCK_MHZ, C_ITS, C_HUNT, C_COLS,
    POLICY, P_RANDOM, P_RANKED, MT_WORDS,
    B_LIVE, B_BASE, B_SM, B_X, B_Z, B_NWARPS, B_COLS,
    BAR_PRESENT, BAR_EXPECTED, BAR_ARRIVED, BAR_POPC, BAR_ALL, BAR_ANY, BAR_STORES, BAR_NWAIT,
    BAR_STAMP, BAR_COLS,
    S_N, S_LAST, S_WAKE, S_PREEMPT, S_COLS,
    TRACE_EVENTS, TRACE_ISSUES, L_COLS,
    E_OFF_END, E_BRA_U, E_BAR_ID, E_SYNC_EMPTY, E_OVERFLOW, E_SHARED, E_GLOBAL, E_TRAP,
    E_NEEDS_ITS, E_STACK_IN_ITS, E_SYNC_IN_ITS, E_ITS_BRA_U,
    MAX_STACK, SSY, PBK, DIV, encode,
)
from .replay import replay

FIELDS = [
    "G", "cfg", "T", "slots",                                              # the clock; the launch; the code
    "W", "regs", "preds", "local", "stack", "sb",                          # warps, by slot
    "SCH", "SW", "SMB", "B", "BW", "BAR", "BARW",                          # schedulers, SMs, blocks, barriers
    "MT", "RANK", "RMIN",                                                  # seeded policies' streams and ranks
    "shared", "lockfree", "holder", "swriter",                             # shared memory and the lock unit
    "gwords", "gvalid", "gwriter", "l2free",                               # global memory
    "HK", "HV", "POOL", "FREE", "HEAP", "NUM", "qcount",                   # weak memory's store queues
    "l1words", "l1line", "l1stamp", "l1count", "floor", "smlast", "observed",   # L1, fences
    "hv", "ht", "hs", "hn", "lfloor", "lword", "ltime",                    # early loads: histories, bounds
    "hfirst",                                                              # hunt:SEED's unfenced stores
    "stat_issues", "stat_lanes", "stat_cycles", "stalls", "ERR",           # statistics; the last fault
    "LANES", "WORDS", "IDX", "VALUES", "FLAGS", "SORTED", "BANKS", "LINES",   # scratch rows
    "LOG",                                                                 # events for observers
    "ITS_SPLITS", "ITS_BSYNC", "ITS_BSYNC_SEQ", "ITS_WARPSYNC", "ITS_SLEEP", "ITS_BARRIERS",   # ITS warps
]
POOL_ROWS = 1 << 12             # queued stores to start with (EV_GROW doubles them)
LOG_ROWS = 1 << 14              # events between two replays (EV_LOG)
State = namedtuple("State", FIELDS)
KIND_NAME = {SSY: "SSY", PBK: "PBK", DIV: "DIV"}
_HOOKS = ("issued", "diverged", "barrier_wait", "barrier_released", "warp_finished")   # replay.py's


def unsupported(sim) -> str | None:
    """Why this launch runs on the reference engine (None: the compiled core runs it)."""
    c = sim.config
    if _policy(c.policy) not in POLICY:
        return f"the scheduling policy `{c.policy}` runs on the reference engine"
    for d in sim.code:
        if d.ins.op not in OP:
            return f"`{d.ins.op}` runs on the reference engine"
        if d.ins.op in ("ATOM", "RED") and "F32" in d.ins.mods and "ADD" not in d.ins.mods:
            return f"`{d.ins.name}` runs on the reference engine (which reports it: only ADD has .F32)"
        if d.ins.op in ("ATOM", "RED") and "64" in d.ins.mods \
                and (not {"CAS", "ADD", "EXCH"} & set(d.ins.mods) or d.ins.op == "RED"):
            return f"`{d.ins.name}` runs on the reference engine (which reports it: only CAS, ADD and EXCH have .64)"
    return None


class Core:
    """One launch on the compiled engine."""

    def __init__(self, sim):
        self.sim = sim
        c, k = sim.config, sim.kernel
        sms, wpb = c.sms, sim.warps_per_block
        grid = sim.grid
        blocks = grid[0] * grid[1] * grid[2]
        nblocks = max(1, min(blocks, sms * c.max_blocks_per_sm))
        nslots = nblocks * wpb
        waiters = sim.threads_per_block if c.its else wpb    # at one barrier: a warp each, or a split
        swords = c.shared_bytes_per_sm // 4
        nglobal = len(sim.gmem.words)
        code = encode(sim)
        cfg = np.zeros(C_COLS, dtype=np.int64)
        weak = isinstance(sim.mem, WeakMemory)
        hunting = c.policy.startswith("hunt:")
        values = {C_SCHEDULERS: c.schedulers, C_POLICY: POLICY[_policy(c.policy)], C_WEAK: weak,
                  C_SEED: sim.mem.seed if weak else 0, C_SHARED_LAT: c.shared_latency,
                  C_SHARED_REPLAY: c.shared_replay, C_LOCK_REPLAY: c.lock_replay, C_GLOBAL_LAT: c.global_latency,
                  C_GSTORE_LAT: c.global_store_latency, C_L1_LAT: c.l1_latency, C_L1_LINES: c.l1_lines,
                  C_SM_JITTER: c.sm_store_jitter, C_STORE_JITTER: c.store_jitter,
                  C_STRAGGLER_EVERY: sim.mem.straggler_every if weak else c.straggler_every,
                  C_STRAGGLER_DELAY: c.straggler_delay,
                  C_ATOMIC_LAT: c.atomic_latency, C_ATOMIC_OCC: c.atomic_occupancy,
                  C_MEMBAR_CTA: c.membar_cta_latency, C_MEMBAR_GL: c.membar_gl_latency, C_BRANCH: c.branch_latency,
                  C_STACK: c.stack_latency, C_BARRIER_LAT: c.barrier_latency, C_NAMED_BARRIERS: c.named_barriers,
                  C_BANKS: c.shared_banks, C_LOCK_BITS: c.lock_bits,
                  C_SHARED_BYTES: k.shared_bytes, C_LOCAL_BYTES: k.local_bytes, C_SMS: sms,
                  C_BLOCK_X: sim.block_shape[0], C_BLOCK_Y: sim.block_shape[1],
                  C_GLOBAL_BASE: GLOBAL_BASE, C_NGLOBAL: nglobal,
                  C_PREEMPT_EVERY: HUNT_EVERY if hunting else PREEMPT_EVERY, C_PREEMPT_CYCLES: PREEMPT_CYCLES,
                  C_HUNT: hunting,
                  C_TRACE: _tracing(sim.observer), C_LOG_ROOM: c.named_barriers * waiters + 4,
                  C_CLOCK_MHZ: c.clock_mhz, C_ITS: c.its}
        for col, v in values.items():
            cfg[col] = v
        G = np.zeros(G_COLS, dtype=np.int64)
        G[G_SM] = -1
        G[G_NEXT_DRAIN] = INF
        G[G_LASTW] = G[G_PENDING] = -1
        i64 = np.int64
        self.S = State(
            G=G, cfg=cfg, T=code.T, slots=code.slots,
            W=np.zeros((nslots, W_COLS), i64), regs=np.zeros((nslots, 64, 32), np.uint32),
            preds=np.zeros((nslots, 9, 32), np.bool_),
            local=np.zeros((nslots, max(1, k.local_bytes // 4), 32), np.uint32),
            stack=np.zeros((nslots, MAX_STACK), i64), sb=np.zeros((nslots, 73), i64),
            SCH=np.zeros((sms * c.schedulers, S_COLS), i64), SW=np.zeros((sms * c.schedulers, nslots), i64),
            MT=np.zeros((sms * c.schedulers, MT_WORDS + 1), i64), RANK=np.full(nslots, np.nan),
            RMIN=np.full(sms * c.schedulers, np.inf),
            SMB=np.zeros(sms, i64), B=np.zeros((nblocks, B_COLS), i64), BW=np.zeros((nblocks, wpb), i64),
            BAR=np.zeros((nblocks, c.named_barriers, BAR_COLS), i64),
            BARW=np.zeros((nblocks, c.named_barriers, waiters, BW_COLS), i64),
            shared=np.zeros((sms, swords), np.uint32), lockfree=np.ones((sms, c.lock_bits), np.uint8),
            holder=np.full((sms, c.lock_bits, 4), -1, i64), swriter=np.zeros((sms, swords, 3), i64),
            gwords=sim.gmem.words, gvalid=sim.gmem.valid, gwriter=np.zeros((max(1, nglobal), 3), i64),
            stat_issues=np.zeros(len(sim.code), i64), stat_lanes=np.zeros(len(sim.code), i64),
            stat_cycles=np.zeros(len(sim.code), i64), stalls=np.zeros(len(REASONS), i64),
            l2free=np.zeros(max(1, nglobal), i64), HK=np.full(4 * POOL_ROWS, -1, i64),
            HV=np.zeros((4 * POOL_ROWS, 2), i64), POOL=np.zeros((POOL_ROWS, 8), i64),
            FREE=np.arange(POOL_ROWS - 1, -1, -1, dtype=i64), HEAP=np.zeros((POOL_ROWS, 4), i64),
            NUM=np.array([POOL_ROWS, 0, 0], i64), qcount=np.zeros(sms, i64),
            l1words=np.zeros((sms, c.l1_lines, 32), np.uint32),
            l1line=np.full((sms, c.l1_lines), -1, i64), l1stamp=np.zeros((sms, c.l1_lines), i64),
            l1count=np.zeros(sms, i64),
            floor=np.zeros(nslots, i64), smlast=np.zeros(nslots, i64), observed=np.zeros(nslots, i64),
            hv=sim.mem.hv if weak else np.zeros((1, HISTORY), i64),
            ht=sim.mem.ht if weak else np.zeros((1, HISTORY), i64),
            hs=sim.mem.hs if weak else np.zeros((1, HISTORY), i64),
            hn=sim.mem.hn if weak else np.zeros(1, i64),
            lfloor=np.zeros((nslots, 32), i64), lword=np.full((nslots, 32, LOAD_TABLE), -1, i64),
            ltime=np.zeros((nslots, 32, LOAD_TABLE), i64), hfirst=np.full(nslots, INF, i64),
            ERR=np.zeros(8, i64), LANES=np.zeros(32, i64), WORDS=np.zeros(32, i64), IDX=np.zeros(32, i64),
            VALUES=np.zeros(32, i64), FLAGS=np.zeros(32, np.bool_), SORTED=np.zeros(32, i64),
            BANKS=np.zeros(max(32, c.shared_banks), i64), LINES=np.zeros(32, i64),
            LOG=np.zeros((LOG_ROWS + cfg[C_LOG_ROOM] if cfg[C_TRACE] else 1, L_COLS), i64),
            **_its_arrays(nslots if c.its else 1))
        for word, (uid, lane, pc) in sim.gmem.writer.items():
            self.S.gwriter[word] = (uid + 1, lane, pc)
        for word, t in sim.l2_free.items():
            self.S.l2free[word] = t
        self.S.SCH[:, S_LAST] = -1                           # Scheduler.last before its first pick
        self.retired_ranks: dict[int, dict[int, float]] = {}   # scheduler → uid → rank, of finished warps
        for sm in sim.sms:
            for k, sched in enumerate(sm.schedulers):
                s = sm.index * c.schedulers + k
                self.S.SCH[s, S_PREEMPT] = sched.preemptions
                if sched.seed is not None:         # a fresh stream: no pick has drawn from it yet
                    E.mt_seed(self.S.MT, s, E.seed_key(sched.seed))
                self.retired_ranks[s] = dict(sched.priority)
                self.S.RMIN[s] = min(sched.priority.values(), default=np.inf)
        for sm in sim.sms:                                  # shared memory lives in the engine's array
            sm.shared.words = self.S.shared[sm.index]
        self.free_blocks = list(range(nblocks - 1, -1, -1))
        self.block_of: dict[int, object] = {}               # block slot → ThreadBlock
        self.slot_of: dict[int, int] = {}                   # id(ThreadBlock) → block slot
        self.warp_at: dict[int, object] = {}                # warp slot → Warp
        self.retired: dict[str, dict[int, int]] = {"sm_floor": {}, "sm_last": {}, "observed": {}}

    def advance(self, until: int) -> tuple[str, tuple | None]:
        """Simulator.advance on this engine (module-level `advance`)."""
        return advance(self.sim, until)

    def replay_log(self) -> None:
        """Call the observers' hooks for the events the engine logged since the last replay."""
        G = self.S.G
        rows = self.S.LOG[:G[G_LOGGED]].tolist()
        G[G_LOGGED] = 0
        replay(self.sim, self.warp_at, rows)

    # ---- blocks
    def bind_new_blocks(self) -> None:
        """Give every block the reference launched since the last call its slot in the arrays."""
        sim, S = self.sim, self.S
        for sm in sim.sms:
            for block in sm.blocks:
                if id(block) not in self.slot_of:
                    self._bind(block)
            S.SMB[sm.index] = len(sm.blocks)
        S.G[G_LIVE_BLOCKS] = sim.live_blocks

    def _bind(self, block) -> None:
        sim, S = self.sim, self.S
        b = self.free_blocks.pop()
        self.slot_of[id(block)] = b
        self.block_of[b] = block
        wpb = sim.warps_per_block
        S.B[b] = 0
        S.B[b, B_LIVE], S.B[b, B_BASE], S.B[b, B_SM] = block.live, block.base, block.sm.index
        S.B[b, B_X:B_Z + 1] = block.index
        S.B[b, B_NWARPS] = len(block.warps)
        S.BAR[b] = 0
        nsched = sim.config.schedulers
        for k, w in enumerate(block.warps):
            slot = b * wpb + k
            S.BW[b, k] = slot
            self.warp_at[slot] = w
            S.regs[slot] = w.regs
            S.preds[slot] = w.preds
            w.use_registers(S.regs[slot], S.preds[slot])
            if w.local is not None:
                S.local[slot, :w.local.shape[0]] = w.local
                w.local = S.local[slot, :w.local.shape[0]]
            S.W[slot] = 0
            row = S.W[slot]
            row[W_UID], row[W_PC], row[W_ACTIVE] = w.uid, w.pc, L.compact(w.active)
            row[W_READY], row[W_LAST], row[W_REASON] = w.ready_at, w.last_issue, REASONS.index(w.stall_reason)
            row[W_SM], row[W_INDEX], row[W_BLOCK] = block.sm.index, w.index, b
            row[W_PRESENT], row[W_WAIT] = L.compact(w.present), WAITING.index(w.waiting)
            if w.its is not None:
                self._import_its(slot, w.its)
            s = block.sm.index * nsched + block.sm.schedulers.index(w.scheduler)
            row[W_SCHED] = s
            S.SW[s, S.SCH[s, S_N]] = slot
            S.SCH[s, S_N] += 1
            S.SCH[s, S_WAKE] = min(S.SCH[s, S_WAKE], _ticks(w.scheduler.wake))   # the reference's ready_by
            S.sb[slot] = 0
            S.RANK[slot] = np.nan                            # a new warp: adversarial:SEED ranks it when seen
            S.floor[slot] = S.smlast[slot] = S.observed[slot] = 0
            S.lfloor[slot], S.lword[slot], S.ltime[slot] = 0, -1, 0
            S.hfirst[slot] = INF

    def _import_its(self, slot: int, st: ItsState) -> None:
        """An ITS warp's state into the ITS_* rows of its slot."""
        S, row = self.S, self.S.W[slot]
        seq = {pc: k + 1 for k, pc in enumerate(st.splits)}            # the dict's order
        for k, pc in enumerate(st.order):
            S.ITS_SPLITS[slot, k] = (pc, L.compact(st.splits[pc]), seq[pc])
        S.ITS_BARRIERS[slot] = [L.compact(m) for m in st.barriers]
        S.ITS_BSYNC_SEQ[slot] = 0
        k = 0
        for j, (n, waits) in enumerate(st.bsync.items()):
            S.ITS_BSYNC_SEQ[slot, n] = len(seq) + 1 + j
            for pc, m in waits.items():
                S.ITS_BSYNC[slot, k] = (n, pc, L.compact(m))
                k += 1
        for j, (pc, m, need) in enumerate(st.warpsync):
            S.ITS_WARPSYNC[slot, j] = (pc, L.compact(m), L.compact(need))
        for j, (t, pc, m) in enumerate(st.sleeping):
            S.ITS_SLEEP[slot, j] = (t, pc, L.compact(m))
        row[W_CURRENT], row[W_YIELDED] = st.current, L.compact(st.yielded)
        row[W_NSPLITS], row[W_NBSYNC] = len(st.order), k
        row[W_NWARPSYNC], row[W_NSLEEP] = len(st.warpsync), len(st.sleeping)
        row[W_SEQ] = len(seq) + len(st.bsync)

    def _export_its(self, slot: int) -> ItsState:
        S, row = self.S, self.S.W[slot]
        st = ItsState(0)
        splits = S.ITS_SPLITS[slot, :row[W_NSPLITS]].tolist()
        st.order = [pc for pc, _, _ in splits]
        st.splits = {pc: L.expand(m) for pc, m, _ in sorted(splits, key=lambda r: r[SP_SEQ])}
        st.current, st.yielded = int(row[W_CURRENT]), L.expand(int(row[W_YIELDED]))
        st.barriers = [L.expand(m) for m in S.ITS_BARRIERS[slot].tolist()]
        waits = S.ITS_BSYNC[slot, :row[W_NBSYNC]].tolist()
        order = S.ITS_BSYNC_SEQ[slot].tolist()
        st.bsync = {}
        for n in sorted((n for n in range(CONVERGENCE_BARRIERS) if order[n]), key=order.__getitem__):
            st.bsync[n] = {pc: L.expand(m) for b, pc, m in waits if b == n}
        st.warpsync = [(pc, L.expand(m), L.expand(need))
                       for pc, m, need in S.ITS_WARPSYNC[slot, :row[W_NWARPSYNC]].tolist()]
        st.sleeping = [(t, pc, L.expand(m)) for t, pc, m in S.ITS_SLEEP[slot, :row[W_NSLEEP]].tolist()]
        return st

    def block_done(self, b: int) -> None:
        """The engine's block b has no warp left: export its warps, then let the reference finish
        it (and launch the next blocks on its SM)."""
        sim, S = self.sim, self.S
        block = self.block_of.pop(b)
        del self.slot_of[id(block)]
        self.sync_clock()
        for k in range(S.B[b, B_NWARPS]):
            slot = S.BW[b, k]
            w = self.warp_at.pop(slot)
            self._export_warp(slot, w)
            if not np.isnan(S.RANK[slot]):
                self.retired_ranks[int(S.W[slot, W_SCHED])][w.uid] = float(S.RANK[slot])
            w.use_registers(w.regs.copy(), w.preds.copy())   # the slot is reused: keep its last values
            if w.local is not None:
                w.local = w.local.copy()
            for name, column in (("sm_floor", S.floor), ("sm_last", S.smlast), ("observed", S.observed)):
                if column[slot]:
                    self.retired[name][w.uid] = int(column[slot])
        block.live = 0
        self.free_blocks.append(b)
        # the engine's schedulers are the truth: the reference appends the new warps to them
        self._export_schedulers(block.sm.index)
        sim.finish_block(block)
        self.bind_new_blocks()

    # ---- the clock and counters
    def sync_clock(self) -> None:
        """Write the engine's clock and instruction counts into the Simulator."""
        sim, G = self.sim, self.S.G
        sim.now, sim.warp_instructions, sim.thread_instructions = int(G[G_NOW]), int(G[G_WI]), int(G[G_TI])
        sim.last_change = int(G[G_LAST_CHANGE])

    # ---- writing the state back into the reference's objects
    def export(self, finished: bool = False, writers: bool = True) -> None:
        """Write the state back into the Simulator's objects (the engine stopped). A `finished`
        launch has no warp or block left, and nothing reads its schedulers or the SMs' lock units
        and shared-memory writers again: only what the outcome is made of is written back (the
        clock, counters, statistics, who wrote each global word, and the memory model's stores
        still in flight, which Simulator.run lands). Without `writers` (for a fingerprint, which
        reads none) who last wrote each word is left for export_writers."""
        sim, S = self.sim, self.S
        self.sync_clock()
        G = S.G
        if G[G_LASTW] >= 0:                               # the engine issued: where a fault is reported
            sim.last_warp, sim.last_pc = self.warp_at.get(int(G[G_LASTW])), int(G[G_LASTPC])
        st = sim.stats
        st.issues, st.lanes, st.cycles = S.stat_issues.tolist(), S.stat_lanes.tolist(), S.stat_cycles.tolist()
        st.stalls = {REASONS[k]: int(v) for k, v in enumerate(S.stalls) if v}
        if not finished:
            self._export_machine()
        if writers:
            self.export_writers(finished)
        busy = np.flatnonzero(S.l2free)
        sim.l2_free = dict(zip(busy.tolist(), S.l2free[busy].tolist()))
        if isinstance(sim.mem, WeakMemory):
            self._export_weak(sim.mem)

    def export_writers(self, finished: bool = False) -> None:
        """Who last wrote each global word and, in a launch that goes on, each shared word: what a
        diagnosis and the outcome name (the costliest part of an export in a large grid)."""
        sim, S = self.sim, self.S
        rows = S.gwriter[:len(sim.gmem.words)]
        if finished:                                # the engine never writes these rows again
            sim.gmem.writers_later(lambda: _writers(rows))
        else:
            sim.gmem.writer.update(_writers(rows))
            for sm in sim.sms:
                sm.shared.writer = _writers(S.swriter[sm.index])

    def _export_machine(self) -> None:
        """The warps, schedulers, SMs and blocks of a launch that stopped before its end."""
        sim, S = self.sim, self.S
        for slot, w in self.warp_at.items():
            self._export_warp(slot, w)
        if S.cfg[C_POLICY] in (P_RANDOM, P_RANKED):
            self._export_seeded()
        for sm in sim.sms:
            self._export_schedulers(sm.index)
            shared = sm.shared
            free = S.lockfree[sm.index]
            shared.free = int.from_bytes(np.packbits(free, bitorder="little").tobytes(), "little")
            shared.holder = LockHolders((int(b), tuple(int(x) for x in S.holder[sm.index, b]))
                                        for b in np.flatnonzero(S.holder[sm.index, :, 0] >= 0))
        for b, block in self.block_of.items():
            block.live = int(S.B[b, B_LIVE])
            bars = []
            for bar_id in range(sim.config.named_barriers):
                row = S.BAR[b, bar_id]
                if row[BAR_PRESENT]:
                    bar = BlockBarrier(int(row[BAR_EXPECTED]), int(row[BAR_ARRIVED]), [], int(row[BAR_POPC]),
                                       bool(row[BAR_ALL]), bool(row[BAR_ANY]), int(row[BAR_STORES]))
                    for k in range(row[BAR_NWAIT]):
                        slot, dest, _, pc, lanes = (int(x) for x in S.BARW[b, bar_id, k])
                        bar.waiting.append((self.warp_at[slot], None if dest < 0 else dest,
                                            _reduction(sim, pc), L.expand(lanes) if lanes else None, pc))
                    bars.append((int(row[BAR_STAMP]), bar_id, bar))
            block.barriers = {bar_id: bar for _, bar_id, bar in sorted(bars)}

    def _export_warp(self, slot: int, w) -> None:
        S = self.S
        row = S.W[slot]
        w.pc, w.active, w.exited = int(row[W_PC]), L.expand(int(row[W_ACTIVE])), L.expand(int(row[W_EXITED]))
        w.ready_at = _time(row[W_READY])
        w.last_issue, w.issued, w.stores_done_at = int(row[W_LAST]), int(row[W_ISSUED]), int(row[W_STORES])
        w.stall_reason = REASONS[row[W_REASON]]
        w.waiting = WAITING[row[W_WAIT]]
        if w.its is not None:
            w.its = self._export_its(slot)
        w.sb = S.sb[slot].tolist()
        w.stack = [(KIND_NAME[e & 3], L.expand(int(e >> 2) & 0xFFFFFFFF), int(e >> 34))
                   for e in S.stack[slot, :row[W_SP]].tolist()]

    def _export_schedulers(self, sm_index: int) -> None:
        S, sm = self.S, self.sim.sms[sm_index]
        n = len(sm.schedulers)
        for k, sched in enumerate(sm.schedulers):
            s = sm_index * n + k
            sched.warps = [self.warp_at[int(x)] for x in S.SW[s, :S.SCH[s, S_N]]]
            sched.last, sched.wake = int(S.SCH[s, S_LAST]), _time(S.SCH[s, S_WAKE])

    def _export_seeded(self) -> None:
        """A seeded policy's state: each scheduler's stream, preemptions left and ranks (of every
        warp it ever ranked: the reference's rank table never shrinks). Only a whole export needs
        it: finishing a block and launching the next read none of it."""
        S, n = self.S, self.sim.config.schedulers
        ranked = S.cfg[C_POLICY] == P_RANKED
        live = {}                                      # scheduler → uid → rank, of the bound warps
        if ranked:
            for x, w in self.warp_at.items():          # finished warps of live blocks keep theirs too
                if not np.isnan(S.RANK[x]):
                    live.setdefault(int(S.W[x, W_SCHED]), {})[w.uid] = float(S.RANK[x])
        for sm in self.sim.sms:
            for k, sched in enumerate(sm.schedulers):
                s = sm.index * n + k
                sched.rng.setstate((3, tuple(S.MT[s].tolist()), None))
                sched.preemptions = int(S.SCH[s, S_PREEMPT])
                if ranked:
                    sched.priority = {**self.retired_ranks[s], **live.get(s, {})}

    def _export_weak(self, mem) -> None:
        S = self.S
        nglobal = len(self.sim.gmem.words)
        mem.queues = [{} for _ in mem.queues]
        for h in np.flatnonzero(S.HK >= 0).tolist():
            sm, x = divmod(int(S.HK[h]), nglobal)
            r, q = int(S.HV[h, 0]), []
            while r >= 0:
                q.append(PendingStore(*S.POOL[r, :7].tolist()))
                r = int(S.POOL[r, 7])
            mem.queues[sm][x] = q
        for sm, cache in enumerate(mem.l1):
            cache.clear()
            slots = np.flatnonzero(S.l1line[sm] >= 0)
            for q in slots[np.argsort(S.l1stamp[sm, slots], kind="stable")].tolist():
                cache[int(S.l1line[sm, q])] = S.l1words[sm, q].copy()
        mem.heap = [tuple(e) for e in S.HEAP[:S.NUM[N_HEAP]].tolist()]
        mem.next_drain = _time(S.G[G_NEXT_DRAIN])
        mem.seq = int(S.G[G_SEQ])
        mem.hits, mem.misses = int(S.G[G_HITS]), int(S.G[G_MISSES])
        for name, column in (("sm_floor", S.floor), ("sm_last", S.smlast), ("observed", S.observed)):
            table = dict(self.retired[name])
            for slot, w in self.warp_at.items():
                if column[slot]:
                    table[w.uid] = int(column[slot])
            setattr(mem, name, table)
        mem.first = {w.uid: int(S.hfirst[slot]) for slot, w in self.warp_at.items() if S.hfirst[slot] != INF}
        mem.ld_floor, mem.ld_words, mem.ld_times = {}, {}, {}   # of the live warps: only theirs are read
        for slot, w in self.warp_at.items():
            mem.ld_floor[w.uid] = S.lfloor[slot].copy()
            mem.ld_words[w.uid], mem.ld_times[w.uid] = S.lword[slot].copy(), S.ltime[slot].copy()

    def land_stores(self) -> None:
        """The run stopped: the stores in flight land here, before the export, rather than one by
        one in Python after it (Simulator.run's flush, which then finds none). A launch of short
        kernels spent about a fifth of its time exporting and landing them."""
        if self.S.cfg[C_WEAK]:
            E.land_stores(self.S)

    # ---- more room for weak memory's queues
    def grow(self) -> None:
        """Double the pool of queued stores, the heap and the hash of queues (dropping tombstones)."""
        S = self.S
        old = S.POOL.shape[0]
        rows = 2 * old
        pool = np.zeros((rows, 8), np.int64)
        pool[:old] = S.POOL
        free = np.zeros(rows, np.int64)
        spare = np.concatenate([np.arange(rows - 1, old - 1, -1), S.FREE[:S.NUM[N_FREE]]])
        free[:len(spare)] = spare
        heap = np.zeros((rows, 4), np.int64)
        heap[:old] = S.HEAP
        HK, HV = np.full(4 * rows, -1, np.int64), np.zeros((4 * rows, 2), np.int64)
        mask, used = 4 * rows - 1, 0
        for h in np.flatnonzero(S.HK >= 0).tolist():
            key = int(S.HK[h])
            g = (key * 0x9E3779B1) & mask                  # engine.qslot's probe
            while HK[g] != -1:
                g = (g + 1) & mask
            HK[g], HV[g] = key, S.HV[h]
            used += 1
        num = np.array([len(spare), used, S.NUM[N_HEAP]], np.int64)
        self.S = S._replace(POOL=pool, FREE=free, HEAP=heap, HK=HK, HV=HV, NUM=num)

    # ---- faults: the reference's exceptions, from the engine's ERR
    def raise_error(self) -> None:
        sim, S = self.sim, self.S
        code, lane, addr, why = (int(x) for x in S.ERR[:4])
        w = self.warp_at.get(int(S.G[G_LASTW]))
        if code == E_OFF_END:
            raise InstructionError(sim.ran_off_end(self.warp_at[int(S.ERR[4])], addr))
        if code == E_BRA_U:
            raise InstructionError(sim.bra_u_disagrees(w, addr, L.expand(lane), L.expand(why)))
        if code == E_BAR_ID:
            raise InstructionError(sim.no_such_barrier(w, addr))
        if code == E_SYNC_EMPTY:
            raise InstructionError(sim.sync_without_stack(w))
        if code == E_NEEDS_ITS:
            raise InstructionError(sim.needs_its(OPS[why], addr))
        if code == E_STACK_IN_ITS:
            raise InstructionError(stack_op_in_its(OPS[why], addr))
        if code == E_SYNC_IN_ITS:
            raise InstructionError(sync_in_its(addr))
        if code == E_ITS_BRA_U:
            raise InstructionError(bra_u_splits(w, addr))
        if code == E_OVERFLOW:
            raise StackOverflow(w.overflow_message())
        if code == E_TRAP:
            raise Trap(lane)
        if code == E_GLOBAL:
            sim.gmem.raise_fault(np.array([addr]), np.array([why]), [lane])
        space = "shared" if code == E_SHARED else "local"
        raise MemoryFault(space, addr, lane, sim.bad_address_reason(space, addr))


def _its_arrays(slots: int) -> dict[str, np.ndarray]:
    """An ITS warp's rows (layout.ITS_ROWS each; one unused slot when the launch is not ITS)."""
    i64 = np.int64
    return dict(ITS_SPLITS=np.zeros((slots, ITS_ROWS, 3), i64), ITS_BSYNC=np.zeros((slots, ITS_ROWS, 3), i64),
                ITS_BSYNC_SEQ=np.zeros((slots, CONVERGENCE_BARRIERS), i64),
                ITS_WARPSYNC=np.zeros((slots, ITS_ROWS, 3), i64), ITS_SLEEP=np.zeros((slots, ITS_ROWS, 3), i64),
                ITS_BARRIERS=np.zeros((slots, CONVERGENCE_BARRIERS), i64))


def _writers(rows: np.ndarray) -> dict[int, tuple[int, int, int]]:
    """word → (warp uid, lane, pc) of its last writer, from rows of (uid + 1, lane, pc) in which
    0 is nobody (so that the arrays start as zeros, which costs nothing until a page is written)."""
    written = np.flatnonzero(rows[:, 0])
    who = rows[written]
    return dict(zip(written.tolist(), zip((who[:, 0] - 1).tolist(), who[:, 1].tolist(), who[:, 2].tolist())))


def _reduction(sim, pc: int) -> str | None:
    """The reduction modifier of the BAR before `pc`, as the reference keeps it."""
    mods = sim.code[(pc - 8) >> 3].ins.mods
    return mods[1] if len(mods) > 1 else None


def _tracing(observer) -> int:
    """What the engine logs for the observer (layout.TRACE_*): nothing, or the events of its
    hooks, or those and every instruction issued."""
    subs = getattr(observer, "observers", None)
    subs = subs if isinstance(subs, list) else [observer] if observer is not None else []
    if any(getattr(o, "wants_issues", False) for o in subs):
        return TRACE_ISSUES
    return TRACE_EVENTS if any(hasattr(o, h) for o in subs for h in _HOOKS) else 0


def _policy(policy: str) -> str:
    """The policy's name in POLICY: `random:7` is `random:SEED`."""
    head, seeded, _ = policy.partition(":")
    return f"{head}:SEED" if seeded else policy


def _ticks(t) -> int:
    return INF if t == float("inf") else int(t)


def _time(t) -> int | float:
    return float("inf") if t >= INF else int(t)


def advance(sim, until: int, fingerprints: bool = True) -> tuple[str, tuple | None]:
    """Simulator.advance on the compiled engine (the first call binds the launched blocks)."""
    core = sim.core
    G = core.S.G                        # (grow replaces other arrays of core.S, never G)
    core.bind_new_blocks()
    G[G_UNTIL] = until
    sim.start_checks()
    G[G_CHECK_AT] = sim.check_at
    while True:
        event = E.advance(core.S)
        if G[G_LOGGED]:                 # observers see the events before what follows them
            core.replay_log()
        if event == EV_GROW:
            core.grow()
            continue
        if event == EV_LOG:
            continue
        if event == EV_BLOCK_DONE:
            core.block_done(int(G[G_EVENT_ARG]))
            continue
        if event == EV_CHECK:
            core.sync_clock()
            quiet = fingerprints and sim.now - sim.last_change > sim.config.quiet_cycles
            if quiet:
                core.export(writers=False)
            repeat = sim.quiet_check(fingerprints)
            G[G_CHECK_AT] = sim.check_at
            if repeat is not None:
                core.export_writers()   # the diagnosis names them
                return "livelock", repeat
            if sim.now > until:
                core.land_stores()
                core.export()
                return "budget", None
            continue
        core.land_stores()
        core.export(finished=event == EV_FINISHED)
        if event == EV_ERROR:
            core.raise_error()
        return {EV_FINISHED: "finished", EV_DEADLOCK: "deadlock", EV_BUDGET: "budget"}[event], None
