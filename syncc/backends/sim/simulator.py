"""The cycle-level Fermi simulator: blocks on SMs, warps on schedulers, one instruction per
scheduler per cycle, and a verdict at the end.

    sim = Simulator(kernel, config, grid, block, gmem, params)
    outcome = sim.run()           # Outcome: finished / deadlock / livelock / budget / fault, cycles, stats

Each cycle every busy SM lets each of its schedulers issue one warp-instruction
from a warp whose next instruction is ready (its operands have arrived: the
scoreboard). The scheduling policy picks among ready warps (`lrr` loose round
robin, `gto` greedy-then-oldest, `adversarial` youngest first,
`adversarial:SEED` seeded ranks with a few preemptions, `random:SEED`).
Instructions take effect when they issue, so memory is sequentially consistent
in issue order; latencies only decide when dependants may issue. When no warp
can issue, the clock jumps to the next cycle when one can (an event-driven
skip), and when none ever can, the run is a deadlock.

Every `check_every` instructions the simulator fingerprints the whole machine
state (memories, lock bits, every warp's registers, stack and address, and the
timing state relative to now). The same fingerprint twice means the machine is
in a loop it can never leave: a livelock, which diagnose.py then explains.
"""
from __future__ import annotations

import hashlib
import random
from array import array
from dataclasses import dataclass, field
from operator import attrgetter

import numpy as np

from . import lanes as L
from .execute import Env, InstructionError, Kind, Trap, bound_semantics, decode, operand_value, sync_points
from ..fermi.isa import INSTR_BYTES, PT, RZ, Instruction, Pred
from .its import ItsState, its_issue, release_waiting, select_split, sync_in_its
from .machine import HUNT_EVERY, HUNT_PREEMPTIONS, PREEMPT_CYCLES, PREEMPT_EVERY, PREEMPTIONS, FermiConfig
from .memory import GlobalMemory, MemoryFault, SharedMemory
from ..fermi.program import SassKernel
from .warp import DIV, PBK, SSY, BlockBarrier, StackOverflow, ThreadBlock, Warp
from .weakmem import memory_model

INF = float("inf")
CBANK_SHAPE = (0x8, 0xC, 0x10, 0x14, 0x18, 0x1C)


@dataclass
class Fault:
    """What stopped a run that could not go on: where, and why."""
    kind: str                  # deadlock | livelock | budget | memory | trap | error
    message: str
    warp: Warp | None = None
    pc: int | None = None
    lanes: int = 0


@dataclass
class Outcome:
    status: str                          # finished | deadlock | livelock | budget | fault
    cycles: int
    warp_instructions: int
    thread_instructions: int
    fault: Fault | None = None
    diagnosis: object = None             # diagnose.Diagnosis, for deadlock/livelock/budget
    stats: "Stats | None" = None
    shared_after: dict | None = None     # block index → shared words at its end, or at the stop (keep_shared)

    @property
    def ok(self) -> bool:
        return self.status == "finished"


@dataclass
class Stats:
    """Counters the run keeps for `--stats`: per instruction address and per stall reason."""
    issues: list[int]                    # per instruction: warp-instructions issued
    lanes: list[int]                     # per instruction: thread-instructions
    cycles: list[int]                    # per instruction: warp-cycles spent up to and in its issue
    stalls: dict[str, int] = field(default_factory=dict)   # reason → warp-cycles
    blocks: list[tuple[tuple, int, int, int]] = field(default_factory=list)   # (block, sm, start, end)
    engine: str = "reference"            # which engine ran the launch: compiled | reference
    engine_note: str | None = None       # why the reference engine ran when the compiled core was asked for


_READY_AT = attrgetter("ready_at")


class Scheduler:
    """One warp scheduler of an SM: its warps, in the order they arrived, and a policy. `pick` is
    the policy's method, chosen once here rather than by name at every pick.

    `wake` is the earliest cycle at which one of its warps can issue, as far as is known: a pick
    that finds no ready warp sets it to the least `ready_at` of its warps, and the two events that
    make a warp ready without its own issue (a block starting, a barrier releasing) lower it. The
    main loop does not ask a scheduler to pick before its `wake`: a pick that finds nothing
    changes nothing else (no policy state, no random draw), so skipping it changes no result."""
    __slots__ = ("warps", "last", "policy", "seed", "_rng", "priority", "preemptions", "pick", "wake", "every",
                 "points")

    def __init__(self, policy: str, where: int = 0):
        self.warps: list[Warp] = []
        self.wake = 0
        self.last = -1
        self.policy = policy
        self.seed = int(policy.split(":")[1]) if policy.startswith("random:") else None   # rng's seed
        self.priority: dict[int, float] = {}      # adversarial:SEED: warp uid → its rank (higher first)
        self.preemptions = 0
        self.every = PREEMPT_EVERY
        self.points = None        # hunt:SEED: per instruction, whether it is a synchronization point
        if policy.startswith(("adversarial:", "hunt:")):
            # one stream per scheduler (`where` numbers them), so that SMs do not move in lockstep
            self.seed = int(policy.split(":")[1]) * 7919 + where
            self.policy = "adversarial:SEED"
            hunting = policy.startswith("hunt:")
            self.preemptions = HUNT_PREEMPTIONS if hunting else PREEMPTIONS
            self.every = HUNT_EVERY if hunting else PREEMPT_EVERY
        self._rng: random.Random | None = None
        self.pick = {"lrr": self._pick_lrr, "gto": self._pick_gto, "adversarial": self._pick_youngest,
                     "adversarial:SEED": self._pick_by_priority}.get(self.policy, self._pick_random)

    @property
    def rng(self) -> random.Random | None:
        """A seeded policy's stream (None for the others), made when first asked for: seeding one
        costs more than a short launch's picks, and most schedulers of a small grid never pick."""
        if self._rng is None and self.seed is not None:
            self._rng = random.Random(self.seed)
        return self._rng

    def _pick_lrr(self, now: int) -> Warp | None:
        warps = self.warps
        n = len(warps)
        start = self.last + 1
        for i in range(n):
            k = (start + i) % n
            w = warps[k]
            if w.ready_at <= now:
                self.last = k
                return w
        return self._none_ready()

    def _pick_gto(self, now: int) -> Warp | None:
        warps = self.warps
        if 0 <= self.last < len(warps) and warps[self.last].ready_at <= now:
            return warps[self.last]
        for k, w in enumerate(warps):          # oldest first: warps are kept in arrival order
            if w.ready_at <= now:
                self.last = k
                return w
        return self._none_ready()

    def _pick_youngest(self, now: int) -> Warp | None:
        warps = self.warps
        for k in range(len(warps) - 1, -1, -1):    # youngest first, always: the old starve
            if warps[k].ready_at <= now:
                return warps[k]
        return self._none_ready()

    def _pick_random(self, now: int) -> Warp | None:
        ready = [w for w in self.warps if w.ready_at <= now]
        if ready:
            return self.rng.choice(ready)
        return self._none_ready()

    def _pick_by_priority(self, now: int) -> Warp | None:
        """Seeded adversarial scheduling, after PCT (Burckhardt et al., ASPLOS 2010): every warp
        gets a random rank when it arrives and the highest-ranked ready warp always issues, so
        the others starve for as long as it can go on. At a few random moments (at most
        PREEMPTIONS per run, each with chance 1/PREEMPT_EVERY per issue) the warp about to issue
        is preempted instead: it drops below every other warp and stalls for up to PREEMPT_CYCLES,
        which is how a lock holder gets stuck inside its critical section while the others run.
        hunt:SEED preempts only a warp at a synchronization point (`points`, execute.sync_points),
        more often (1/HUNT_EVERY) and up to HUNT_PREEMPTIONS times."""
        rank, rng = self.priority, self.rng
        while True:
            best, best_rank = None, None
            for w in self.warps:
                if w.ready_at <= now:
                    r = rank.get(w.uid)
                    if r is None:
                        r = rank[w.uid] = rng.random()
                    if best is None or r > best_rank:
                        best, best_rank = w, r
            if best is None:
                return self._none_ready()
            if not self.preemptions or (self.points is not None and not self._at_point(best)) \
                    or rng.randrange(self.every):
                return best
            self.preemptions -= 1
            rank[best.uid] = min(rank.values()) - 1.0
            best.ready_at = now + rng.randint(1, PREEMPT_CYCLES)

    def _at_point(self, w: Warp) -> bool:
        i = w.pc >> 3
        return i < len(self.points) and self.points[i]

    def _none_ready(self) -> None:
        """A pick found no warp ready: sleep until the first one will be."""
        self.wake = min(map(_READY_AT, self.warps), default=INF)

    def ready_by(self, cycle) -> None:
        """A warp of this scheduler may issue from `cycle` on."""
        if cycle < self.wake:
            self.wake = cycle

    def remove(self, w: Warp) -> None:
        k = self.warps.index(w)
        del self.warps[k]
        if self.last >= k:
            self.last -= 1


class SM:
    __slots__ = ("index", "shared", "schedulers", "blocks", "warps", "threads", "registers", "turn")

    def __init__(self, index: int, config: FermiConfig):
        self.index = index
        self.shared = SharedMemory(config.shared_bytes_per_sm, config.lock_bits)
        self.schedulers = [Scheduler(config.policy, index * config.schedulers + k) for k in range(config.schedulers)]
        self.blocks: list[ThreadBlock] = []
        self.warps = 0
        self.threads = 0
        self.registers = 0
        self.turn = 0


class Simulator:
    """One launch on the machine: `run()` simulates it on the engine its configuration asks for
    and gives the Outcome.

    The reference engine is this class (with execute.py, its.py and weakmem.py). The compiled
    core (core/) runs a launch on arrays and uses the reference's objects as the record of the
    run, through these public names and nothing else:

    - read when it builds its arrays: `config`, `kernel`, `grid`, `block_shape`,
      `warps_per_block`, `threads_per_block`, `code` and `env` (the decoded instructions and the constant bank),
      `gmem`, `mem` (the memory model), `sms` (their schedulers, blocks and shared memory),
      `l2_free`, `observer`;
    - written back whenever it stops: the clock `now`, `warp_instructions`,
      `thread_instructions`, `last_change`, `stats`, `l2_free`, `gmem`'s writers, `mem`'s state
      (weakmem.WeakMemory says which), and `last_warp` / `last_pc`, the warp that issued last
      and the address it issued from (where a fault is reported); and, unless the launch
      finished, every warp, scheduler, block and shared memory (a finished launch has none
      left that anything reads);
    - the reference's own steps, so that both engines do them with one code:
      `finish_block(block)` (a block's last warp is done: free its SM's room, record it, launch
      the next blocks there; the core then takes the new blocks from `sms` and `live_blocks`),
      `start_checks()` / `check_at` / `quiet_check()` (the checks for a quiet machine and its
      livelock fingerprint), and the messages of a run-time error (`ran_off_end`,
      `bra_u_disagrees`, `no_such_barrier`, `sync_without_stack`, `needs_its`,
      `bad_address_reason`; an ITS warp's are its.py's). An ITS warp's `its` (its.ItsState) is
      read and written whole.

    `engine` says which engine ran the launch and `core` is the compiled core's launch (None
    on the reference engine); `_choose_engine` sets both."""

    def __init__(self, kernel: SassKernel, config: FermiConfig, grid: tuple[int, int, int],
                 block: tuple[int, int, int], gmem: GlobalMemory, params: list[int], observer=None,
                 keep_shared: bool = False):
        self.kernel, self.config, self.gmem = kernel, config, gmem
        self.grid, self.block_shape = tuple(grid), tuple(block)
        self.threads_per_block = block[0] * block[1] * block[2]
        self.warps_per_block = -(-self.threads_per_block // 32)
        self.now = 0
        self.l2_free: dict[int, int] = {}
        cbank = dict(zip(CBANK_SHAPE, (*block, *grid)))
        for i, v in enumerate(params):
            cbank[0x20 + 4 * i] = v & 0xFFFFFFFF
        self.mem = memory_model(self)      # global memory between warps: weak or SC (weakmem.py)
        self.env = Env(cbank, config, self)
        units = {"alu": config.alu_latency, "mul": config.mul_latency, "s2r": config.s2r_latency,
                 "vote": config.vote_latency, "shared": config.shared_latency, "global": config.global_latency,
                 "local": config.local_latency, "atomic": config.atomic_latency}
        # their semantics are bound when the reference engine runs (advance)
        self.code = decode(kernel, units, config.alu_latency)
        self.sms = [SM(i, config) for i in range(config.sms)]
        if config.policy.startswith("hunt:"):
            points = sync_points(self.code)
            for sm in self.sms:
                for sched in sm.schedulers:
                    sched.points = points
        self._busy_from = [config.sms] * (config.sms + 1)   # [i]: the first SM from i on with a block
        self.pending = [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]
        self.pending.reverse()
        self.next_block = 0
        self.live_blocks = 0
        self.uids = 0
        n = len(self.code)
        self.stats = Stats([0] * n, [0] * n, [0] * n)
        self.warp_instructions = 0
        self.thread_instructions = 0
        if observer is not None and not hasattr(observer, "observers"):
            from .trace import Observers   # one observer with only some of the hooks
            observer = Observers([observer])
        self.observer = observer           # trace and progress hooks: see trace.py
        self._trace_issues = bool(observer is not None and getattr(observer, "wants_issues", False))
        self._hooks = self._trace_issues                # per-issue hooks: a trace, or a diagnosis watch
        self.watch = None                  # set_watch: the diagnosis window records spinning
        self._seen: dict[bytes, tuple[int, int]] = {}
        self.warps: list[Warp] = []        # every warp launched, for diagnosis
        self.keep_shared = keep_shared
        self.shared_after: dict[tuple, np.ndarray] = {}   # block index → its shared words at its end
        self.last_warp: Warp | None = None   # the warp that issued last (a fault's place) ...
        self.last_pc = 0                     # ... and the address it issued from
        self.last_change = 0               # the last cycle a store changed a value, a warp exited, a barrier opened
        self.core = None                   # the compiled core's launch (core/bridge.Core), when it runs it

    # ---- launching blocks
    def _fits(self, sm: SM) -> bool:
        c, k = self.config, self.kernel
        regs = max(1, k.registers) * 32 * self.warps_per_block
        return (len(sm.blocks) < c.max_blocks_per_sm and sm.warps + self.warps_per_block <= c.max_warps_per_sm
                and sm.threads + self.threads_per_block <= c.max_threads_per_sm
                and sm.registers + regs <= c.registers_per_sm)

    def check_launch(self) -> str | None:
        """Why no block of this launch can run on an SM at all (None: it can)."""
        c, k = self.config, self.kernel
        if self.threads_per_block > 1024:
            return f"a block of {self.threads_per_block} threads is more than Fermi's 1024"
        if self.threads_per_block > c.max_threads_per_sm or self.warps_per_block > c.max_warps_per_sm:
            return f"a block of {self.threads_per_block} threads does not fit an SM"
        regs = max(1, k.registers) * 32 * self.warps_per_block
        if regs > c.registers_per_sm:
            return (f"a block needs {regs} registers ({k.registers} per thread) but an SM has "
                    f"{c.registers_per_sm}")
        if k.shared_bytes > c.shared_bytes_per_sm:
            return f"a block needs {k.shared_bytes} bytes of shared memory but an SM has {c.shared_bytes_per_sm}"
        return None

    def _launch_blocks(self, sm: SM) -> None:
        while self.pending and self._fits(sm):
            base = sm.shared.place(self.kernel.shared_bytes)
            if base is None:
                return
            self._start_block(sm, self.pending.pop(), base)

    def _start_block(self, sm: SM, index: tuple[int, int, int], base: int) -> None:
        k = self.kernel
        bx, by, _ = self.block_shape
        linear = index[0] + self.grid[0] * (index[1] + self.grid[1] * index[2])
        block = ThreadBlock(index, linear, sm, base, self.threads_per_block)
        block.started = self.now
        self._init_shared(sm, base)
        for wi in range(self.warps_per_block):
            t = np.arange(32 * wi, 32 * wi + 32, dtype=np.uint32)
            tid = np.stack([t % bx, (t // bx) % by, t // (bx * by)]).astype(np.uint32)
            threads = min(32, self.threads_per_block - 32 * wi)
            w = Warp(self.uids, block, wi, threads, tid, k.local_bytes // 4, self.uids)
            if self.config.its:
                w.its = ItsState(w.present)
            self.uids += 1
            w.ready_at = self.now
            w.last_issue = self.now - 1
            sched = sm.schedulers[sm.turn % len(sm.schedulers)]
            sm.turn += 1
            w.scheduler = sched
            sched.warps.append(w)
            sched.ready_by(self.now)
            block.warps.append(w)
            self.warps.append(w)
        block.live = len(block.warps)
        sm.blocks.append(block)
        if len(sm.blocks) == 1:
            self._occupancy_changed()
        sm.warps += self.warps_per_block
        sm.threads += self.threads_per_block
        sm.registers += max(1, k.registers) * 32 * self.warps_per_block
        self.live_blocks += 1
        if self.observer:
            self.observer.block_started(block, self.now)

    def _occupancy_changed(self) -> None:
        """An SM got its first block or lost its last: advance's cycle visits the SMs with blocks
        through _busy_from, in SM order, and reads it afresh after each SM (a block started during
        the cycle on a later SM is visited in that cycle, as a loop over every SM would)."""
        busy_from = [len(self.sms)] * (len(self.sms) + 1)
        for i in range(len(self.sms) - 1, -1, -1):
            busy_from[i] = i if self.sms[i].blocks else busy_from[i + 1]
        self._busy_from = busy_from

    def _init_shared(self, sm: SM, base: int) -> None:
        words = sm.shared.words
        size = -(-self.kernel.shared_bytes // 4)
        words[base // 4: base // 4 + size] = 0
        for a in self.kernel.shared:
            if a.init is None:
                continue
            start = (base + a.offset) // 4
            words[start:start + a.length] = init_values(a.init, a.length).view(np.uint32)

    def _finish_warp(self, w: Warp) -> None:
        self.last_change = self.now
        w.waiting = "done"
        w.ready_at = INF
        w.active = 0
        w.scheduler.remove(w)
        block = w.block
        block.live -= 1
        if self.observer:
            self.observer.warp_finished(w, self.now)
        # a block barrier waits only for warps that have not exited
        for bar_id, bar in list(block.barriers.items()):
            self._maybe_release(block, bar_id, bar)
        if block.live == 0:
            self.finish_block(block)

    def finish_block(self, block: ThreadBlock) -> None:
        """The block's last warp is done: keep its shared memory (keep_shared), free its room on
        the SM, record it in the stats, tell the observer, and launch the next blocks on its SM.
        Both engines finish a block with this."""
        sm = block.sm
        if self.keep_shared:
            self._keep_shared(sm, block)
        sm.blocks.remove(block)
        if not sm.blocks:
            self._occupancy_changed()
        sm.shared.release(block.base)
        sm.warps -= self.warps_per_block
        sm.threads -= self.threads_per_block
        sm.registers -= max(1, self.kernel.registers) * 32 * self.warps_per_block
        self.live_blocks -= 1
        block.finished = self.now
        self.stats.blocks.append((block.index, sm.index, block.started, self.now))
        if self.observer:
            self.observer.block_finished(block, self.now)
        self._launch_blocks(sm)

    # ---- the main loop
    def run(self) -> Outcome:
        problem = self.check_launch()
        if problem:
            return self._outcome("fault", Fault("launch", problem))
        self._choose_engine()
        if self.observer is not None and hasattr(self.observer, "start_launch"):
            self.observer.start_launch(self.kernel)
        self._distribute()
        try:
            if self.engine == "compiled":
                status, repeat = self.core.advance(self.config.max_cycles)
            else:
                status, repeat = self.advance(self.config.max_cycles, fingerprints=True)
        except MemoryFault as e:
            return self._fault("memory", str(e), e.lane)
        except Trap as e:
            return self._fault("trap", "BPT.TRAP stopped the kernel", e.lane)
        except (InstructionError, StackOverflow) as e:
            return self._fault("error", str(e))
        finally:
            self.mem.flush()                   # whatever stopped the run, the stores in flight land
        if status == "finished":
            return self._outcome("finished")
        if status == "deadlock":
            return self._deadlock()
        if status == "livelock":
            return self._livelock(repeat)
        return self._budget()

    def _choose_engine(self) -> None:
        """The compiled core runs the launch when the configuration asks for it and it can; else
        the reference engine does, and `engine_note` says why."""
        self.engine, self.engine_note = "reference", None
        self.stats.engine, self.stats.engine_note = "reference", None
        if self.config.engine != "compiled":
            return
        from . import core
        bridge, why = core.load()
        why = why or bridge.unsupported(self)
        if why:
            self.engine_note = self.stats.engine_note = why
            return
        self.engine = self.stats.engine = "compiled"
        self.core = bridge.Core(self)

    def advance(self, until: int, fingerprints: bool = False) -> tuple[str, tuple | None]:
        """Simulate until every block has finished ("finished"), nothing can ever issue again
        ("deadlock"), the state repeats ("livelock", with the cycle and instruction count of its
        first occurrence; only with `fingerprints`), or the clock passes `until` ("budget")."""
        config = self.config
        self.code = bound_semantics(self.code, self.env)   # the compiled core never needs them
        self.start_checks()
        sms = self.sms
        nsms = len(sms)
        mem = self.mem
        while self.live_blocks:
            now = self.now
            if mem.next_drain <= now:
                mem.drain(now)
            issued = 0
            soonest = INF            # the least wake of a scheduler that did not issue
            i = self._busy_from[0]
            while i < nsms:                  # the SMs with blocks, in order (_occupancy_changed)
                for sched in sms[i].schedulers:
                    wake = sched.wake
                    if wake <= now:
                        w = sched.pick(now)
                        if w is not None:
                            self.issue(w, now)
                            issued += 1
                            continue
                        wake = sched.wake     # the pick found none ready and set it
                    if wake < soonest:
                        soonest = wake
                i = self._busy_from[i + 1]
            if issued:
                self.now = now + 1
                if self.warp_instructions >= self.check_at:
                    repeat = self.quiet_check(fingerprints)
                    if repeat is not None:
                        return "livelock", repeat
            else:
                # no scheduler issued, so each was asked or is asleep: `soonest` is the next issue
                if soonest == INF:
                    return "deadlock", None
                self.now = int(soonest)
            if self.now > until:
                return "budget", None
        return "finished", None

    def start_checks(self) -> None:
        """Each advance counts its checks for a quiet machine afresh."""
        self.check_at = self.warp_instructions + self.config.check_every
        self.samples = 0

    def quiet_check(self, fingerprints: bool) -> tuple[int, int] | None:
        """`check_at` instructions were issued: if nothing has changed memory for a while,
        fingerprint the state (a repeat: the (cycle, instructions) it was first seen, a livelock),
        at spacings that vary so that some pair of samples falls a whole number of periods apart."""
        config = self.config
        self.check_at = self.warp_instructions + config.check_every
        if fingerprints and self.now - self.last_change > config.quiet_cycles:
            repeat = self._fingerprint()
            if repeat is not None:
                return repeat
            self.samples += 1
            self.check_at = self.warp_instructions + 97 + (self.samples * 7919) % 1999
        elif self._seen:
            self._seen.clear()
        if self.observer:
            self.observer.progress(self)
        return None

    def _distribute(self) -> None:
        """Hand out the first blocks breadth first (one per SM per round), as Fermi's GigaThread
        engine does, then fill each SM as far as it goes."""
        progress = True
        while self.pending and progress:
            progress = False
            for sm in self.sms:
                if self.pending and self._fits(sm):
                    base = sm.shared.place(self.kernel.shared_bytes)
                    if base is not None:
                        self._start_block(sm, self.pending.pop(), base)
                        progress = True

    # ---- issuing one instruction
    def issue(self, w: Warp, now: int) -> None:
        """Issue the warp's next instruction at cycle `now`: apply it to the active lanes whose
        guard holds, move the warp on (or park it at a barrier), and compute when it may issue
        again. The fast path is an ordinary instruction of a SIMT-stack warp."""
        if w.waiting is not None:    # ITS sleep: the first sleeper's time has come (a warp at a barrier,
            w.waiting = None         # a convergence wait or done has ready_at = INF and is never picked)
            select_split(w, now)
        pc = w.pc
        i = pc >> 3
        code = self.code
        if i >= len(code) or pc & 7:
            raise InstructionError(self.ran_off_end(w, pc))
        d = code[i]
        self.last_warp, self.last_pc = w, pc
        stats = self.stats
        gap = now - w.last_issue
        stats.cycles[i] += gap
        if gap > 1:                                  # the warp waited: why, and for how long
            stalls = stats.stalls
            ready_at = w.ready_at
            waited = gap - 1 if ready_at == INF else min(gap - 1, max(0, ready_at - w.last_issue - 1))
            if waited:
                stalls[w.stall_reason] = stalls.get(w.stall_reason, 0) + waited
            if gap - 1 > waited:
                stalls["not selected"] = stalls.get("not selected", 0) + gap - 1 - waited
        w.last_issue = now
        m = w.active
        if d.guard is not None:
            g = L.of_array(w.p[d.guard])
            m &= (~g if d.guard_neg else g)
        if self._hooks:
            if self.watch is not None:
                self.watch.before(w, d, m)
            if self._trace_issues:
                self.observer.issued(w, d, now)
        stats.issues[i] += 1
        n = m.bit_count()
        stats.lanes[i] += n
        self.warp_instructions += 1
        self.thread_instructions += n
        w.issued += 1
        if d.kind is Kind.OP and w.its is None:
            latency = d.run(w, m) if m else None
            w.pc = pc + INSTR_BYTES
            if d.membar:
                self._next(w, now, latency or 1, "memory barrier")
                return
            if d.writes:
                ready = now + (latency if latency is not None else d.latency)
                sb = w.sb
                for slot in d.writes:
                    sb[slot] = ready
            if d.sync:
                self._sync(w)
                self._next(w, now, self.config.stack_latency, "stack")
                return
            ready = now + 1
            sb = w.sb
            for slot in code[w.pc >> 3].deps if (w.pc >> 3) < len(code) else ():
                if sb[slot] > ready:
                    ready = sb[slot]
            w.ready_at = ready
            w.stall_reason = "dependency"
            return
        if w.its is None:
            self._simt_control(w, d, m, now)
        else:
            self._its_step(w, d, m, now)

    def _next(self, w: Warp, now: int, delay: int, reason: str) -> None:
        """The warp may issue again `delay` cycles from now, or later if an operand is not ready."""
        ready = now + delay
        w.stall_reason = reason if delay > 1 else "dependency"
        code = self.code
        nxt = w.pc >> 3
        if nxt < len(code):
            sb = w.sb
            for slot in code[nxt].deps:
                if sb[slot] > ready:
                    ready = sb[slot]
                    w.stall_reason = "dependency"
        w.ready_at = ready

    # ---- control instructions of a SIMT-stack warp: a method per kind, from _SIMT_CONTROL. Each
    # moves the warp on and returns (delay, reason) for _next, or None when the warp now waits at a
    # barrier or has finished
    def _simt_control(self, w: Warp, d, m: int, now: int) -> None:
        """A control instruction of a SIMT-stack warp (a branch, the stack, EXIT, a barrier): its
        kind's step, then `.S` and when the warp may issue again."""
        step = self._SIMT_CONTROL[d.kind](self, w, d, m, now)
        if step is None:
            return
        delay, reason = step
        if d.sync:
            self._sync(w)
            delay, reason = max(delay, self.config.stack_latency), "stack"
        self._next(w, now, delay, reason)

    def _bra(self, w: Warp, d, m: int, now: int) -> tuple[int, str]:
        """BRA: all active lanes jump, or none do, or the warp diverges: the jumping lanes wait on
        the stack (DIV) while the others go on."""
        pc, active = w.pc, w.active
        if m == active:
            w.pc = d.target
            return self.config.branch_latency, "branch"
        if m == 0:
            w.pc = pc + INSTR_BYTES
            return 1, "branch"
        if d.ins.has("U"):
            raise InstructionError(self.bra_u_disagrees(w, pc, m, active & ~m))
        w.push(DIV, m, d.target)
        w.active = active & ~m
        w.pc = pc + INSTR_BYTES
        if self.observer:
            self.observer.diverged(w, now, pc)
        return self.config.branch_latency, "branch"

    def _ssy_pbk(self, w: Warp, d, m: int, now: int) -> tuple[int, str]:
        """SSY / PBK: push where the active lanes reconverge / go after a BRK (whatever the guard)."""
        pc = w.pc
        w.push(SSY if d.kind is Kind.SSY else PBK, w.active, d.target)
        w.pc = pc + INSTR_BYTES
        return self.config.stack_latency, "stack"

    def _exit(self, w: Warp, d, m: int, now: int) -> tuple[int, str] | None:
        """EXIT: the guarded lanes are done; with no active lane left the warp resumes the stack's
        next path, or finishes when the stack has none."""
        w.pc = w.pc + INSTR_BYTES
        if m:
            w.exited |= m
            w.active &= ~m
            if not w.active:
                if not w.pop():
                    self._finish_warp(w)
                    return None
                return self.config.stack_latency, "stack"
        return 1, "dependency"

    def _brk(self, w: Warp, d, m: int, now: int) -> tuple[int, str]:
        """BRK: the guarded lanes leave for the nearest PBK entry; with no active lane left the
        warp resumes the stack's next path."""
        w.pc = w.pc + INSTR_BYTES
        if m:
            w.leave(m, until_break=True)
            if not w.active:
                w.pop()
                return self.config.stack_latency, "stack"
        return 1, "dependency"

    def _bar(self, w: Warp, d, m: int, now: int) -> tuple[int, str] | None:
        """BAR: the warp arrives at a block barrier and waits there, unless it only arrives (ARV)."""
        w.pc = w.pc + INSTR_BYTES
        if m and self._barrier(w, d, m, now):      # a barrier whose guard no lane passes is not reached
            if d.sync:
                self._sync(w)
            return None                             # waits: ready_at set when released
        return 1, "dependency"

    def _its_only(self, w: Warp, d, m: int, now: int) -> None:
        """BSSY, BSYNC, BREAK, WARPSYNC, YIELD, NANOSLEEP: none exists without ITS."""
        raise InstructionError(self.needs_its(d.ins.op, w.pc))

    # kind → its step: plain functions, called with self (a class-level table binds nothing per
    # simulator or per call); OP never comes here
    _SIMT_CONTROL = {**dict.fromkeys(Kind, _its_only), Kind.BRA: _bra, Kind.SSY: _ssy_pbk, Kind.PBK: _ssy_pbk,
                     Kind.EXIT: _exit, Kind.BRK: _brk, Kind.BAR: _bar}

    # ---- every instruction of an ITS warp
    def _its_step(self, w: Warp, d, m: int, now: int) -> None:
        """Issue any instruction of an ITS warp for its current split (its.py moves the split on and
        runs the control instructions), then choose the split to run next."""
        pc = w.pc
        delay, reason = 1, "dependency"
        kind = d.kind
        if kind is Kind.OP:                          # inline, not a method: most instructions are OPs
            latency = d.run(w, m) if m else None
            if d.membar:
                delay, reason = latency or 1, "memory barrier"
            elif d.writes:
                ready = now + (latency if latency is not None else d.latency)
                for slot in d.writes:
                    w.sb[slot] = ready
            its_issue(self, w, d, m, now)
        elif kind is Kind.BAR and m:
            self._its_bar(w, d, m, now)
        else:
            delay = its_issue(self, w, d, m, now)
            reason = "branch"
        if d.sync:
            raise InstructionError(sync_in_its(pc))
        if not select_split(w, now):
            self._its_idle(w, now)
            return
        self._next(w, now, delay, reason)

    def _its_bar(self, w: Warp, d, m: int, now: int) -> None:
        """BAR of an ITS warp: the current split arrives and only its lanes wait (ARV: go on)."""
        pc = w.pc
        split = w.its.splits.get(pc, 0)
        w.its.leave(split, pc)
        w.pc = pc + INSTR_BYTES                     # where the split goes on
        self._barrier(w, d, m, now, lanes=split)
        release_waiting(self, w)                    # a convergence barrier stops waiting for these lanes

    def _its_idle(self, w: Warp, now: int) -> None:
        """No split of an ITS warp is ready: it finishes, sleeps until its first sleeper wakes, or
        waits until a barrier or a convergence releases lanes."""
        if not (w.present & ~w.exited):
            self._finish_warp(w)
        elif w.its.sleeping:                         # every ready lane sleeps: wake the first
            w.waiting, w.ready_at, w.stall_reason = "sleep", max(now + 1, w.its.next_wake()), "sleep"
        else:
            w.waiting, w.ready_at = "sync", INF      # every live lane waits

    def _sync(self, w: Warp) -> None:
        """`.S`: the active lanes are done with this path; resume the next one from the stack."""
        if not w.stack:
            raise InstructionError(self.sync_without_stack(w))
        w.pop()

    # ---- what a run-time error says (both engines)
    @staticmethod
    def ran_off_end(w: Warp, pc: int) -> str:
        return f"{w.name} ran off the end of the kernel (address 0x{pc:x})"

    @staticmethod
    def bra_u_disagrees(w: Warp, pc: int, jump: int, stay: int) -> str:
        return (f"BRA.U at 0x{pc:x}: the lanes of {w.name} disagree "
                f"({L.describe(jump)} jump, {L.describe(stay)} do not)")

    def no_such_barrier(self, w: Warp, bar_id: int) -> str:
        return f"barrier {bar_id} at 0x{w.pc - INSTR_BYTES:x}: a block has {self.config.named_barriers}"

    @staticmethod
    def needs_its(op: str, pc: int) -> str:
        return f"{op} at 0x{pc:x} needs independent thread scheduling (run with --its)"

    @staticmethod
    def sync_without_stack(w: Warp) -> str:
        return f"`.S` at 0x{w.pc - INSTR_BYTES:x} with an empty SIMT stack in {w.name}"

    def bad_address_reason(self, space: str, addr: int) -> str:
        """Why a shared or local address faults (it is misaligned or past the end)."""
        if space == "shared":
            size = self.kernel.shared_bytes
            return "not aligned to 4 bytes" if addr & 3 else f"past the block's {size} bytes of shared memory"
        return "not aligned" if addr & 3 else f"past the {self.kernel.local_bytes} bytes of local memory per thread"

    # ---- barriers
    def _barrier(self, w: Warp, d, m: int, now: int, lanes: int | None = None) -> bool:
        """Arrive at a barrier; True when the warp must wait. A warp counts as 32 threads; in ITS
        mode `lanes` (a split) arrive and count one thread each, and only they wait."""
        ins: Instruction = d.ins
        mode = ins.mods[0]
        ops = list(ins.operands)
        dest = None
        pred = None
        if mode == "RED":
            dest = ops.pop(0).n
        if ops and isinstance(ops[-1], Pred):
            pred = ops.pop()
        ids = [int(operand_value(o, w, self.env)[L.lowest(w.active) if w.active else 0]) for o in ops]
        bar_id = ids[0] if ids else 0
        count = ids[1] if len(ids) > 1 else None
        block = w.block
        if not 0 <= bar_id < self.config.named_barriers:
            raise InstructionError(self.no_such_barrier(w, bar_id))
        bar = block.barriers.get(bar_id)
        if bar is None:
            bar = block.barriers[bar_id] = BlockBarrier(count if count is not None else 0)
        if count is not None:
            bar.expected = count
        arriving = w.active if lanes is None else lanes
        bar.arrived += 32 if lanes is None else lanes.bit_count()
        self.mem.arrive(w, bar)
        if pred is not None or mode == "RED":
            values = w.p[pred.n] if pred is not None else w.p[PT]
            if pred is not None and pred.neg:
                values = ~values
            votes = L.of_array(np.asarray(values)) & arriving
            bar.popc += votes.bit_count()
            bar.all_true &= votes == arriving
            bar.any_true |= votes != 0
        if mode == "ARV":
            if lanes is not None:
                w.its.add(lanes, w.pc)
            self._maybe_release(block, bar_id, bar)
            return False
        if lanes is None:
            w.waiting = "bar"
            w.ready_at = INF
            w.stall_reason = "barrier"
        bar.waiting.append((w, dest, ins.mods[1] if len(ins.mods) > 1 else None, lanes, w.pc))
        if self.observer:
            self.observer.barrier_wait(w, now, bar_id)
        self._maybe_release(block, bar_id, bar)
        return True

    def _maybe_release(self, block: ThreadBlock, bar_id: int, bar: BlockBarrier) -> None:
        if self.config.its:
            expected = bar.expected or sum((x.present & ~x.exited).bit_count() for x in block.warps if not x.done)
        else:
            expected = bar.expected or 32 * sum(1 for x in block.warps if not x.done)
        if bar.arrived < expected:
            return
        del block.barriers[bar_id]
        self.last_change = self.now
        at = self.now + self.config.barrier_latency
        for w, dest, red, lanes, pc in bar.waiting:
            self.mem.released(w, bar)
            if lanes is not None:                   # ITS: the split goes on after the barrier; it may
                w.its.add(lanes, pc)                # join the split the warp runs now, so the warp's
                select_split(w, self.now)           # active lanes are chosen again
            w.waiting = None
            w.ready_at = at
            w.scheduler.ready_by(at)
            if dest is not None and dest != RZ:
                value = {"POPC": bar.popc, "AND": int(bar.all_true), "OR": int(bar.any_true)}.get(red, bar.popc)
                put = w.r[dest]
                if lanes is None:
                    put[:] = value
                else:
                    put[L.to_array(lanes)] = value
            if self.observer:
                self.observer.barrier_released(w, at, bar_id)

    # ---- endings
    def _keep_shared(self, sm, block) -> None:
        start = block.base // 4
        self.shared_after[block.index] = sm.shared.words[start:start + -(-self.kernel.shared_bytes // 4)].copy()

    def _outcome(self, status: str, fault: Fault | None = None, diagnosis=None) -> Outcome:
        if self.keep_shared:                 # a run that stops early: the blocks still live, as they are
            for sm in self.sms:
                for block in sm.blocks:
                    self._keep_shared(sm, block)
        return Outcome(status, self.now, self.warp_instructions, self.thread_instructions, fault, diagnosis,
                       self.stats, self.shared_after)

    def _fault(self, kind: str, message: str, lane: int | None = None) -> Outcome:
        w = self.last_warp
        pc = w.pc if w is not None and w.last_issue != self.now else self.last_pc
        return self._outcome("fault", Fault(kind, message, w, pc, L.LANE[lane] if lane is not None else 0))

    def _deadlock(self) -> Outcome:
        from .diagnose import diagnose_deadlock
        return self._outcome("deadlock", diagnosis=diagnose_deadlock(self))

    def _budget(self) -> Outcome:
        from .diagnose import diagnose_stuck
        return self._outcome("budget", diagnosis=diagnose_stuck(self, "budget"))

    def _livelock(self, repeat: tuple[int, int]) -> Outcome:
        from .diagnose import diagnose_stuck
        return self._outcome("livelock", diagnosis=diagnose_stuck(self, "livelock", repeat))

    # ---- livelock detection
    def _fingerprint(self) -> tuple[int, int] | None:
        """Hash the machine state; (cycle, instructions) of an earlier identical state, or None."""
        h = hashlib.blake2b(digest_size=16)
        now = self.now
        # registers past the kernel's highest are never written (no instruction writes a register
        # it does not name), so they are left out: most of a warp's 8 KB, most of the hashing
        regs = max(1, self.kernel.registers)
        # of an SM's shared memory only its blocks' words: the rest is never read (an access past a
        # block's words faults) and changes only when a block starts there, which changes the warps
        shared_words = -(-self.kernel.shared_bytes // 4)
        h.update(self.gmem.words.tobytes())
        for sm in self.sms:
            if not sm.blocks:
                continue
            words = sm.shared.words
            for block in sm.blocks:
                h.update(words[block.base // 4: block.base // 4 + shared_words].tobytes())
            h.update(sm.shared.free.to_bytes(sm.shared.lock_bits // 8 + 1, "little"))
            for s in sm.schedulers:
                h.update(repr((s.last, [w.uid for w in s.warps], s.preemptions, sorted(s.priority.items()))).encode())
                if s.rng is not None:             # its 625 words as bytes: repr made most of a fingerprint
                    version, twister, gauss = s.rng.getstate()
                    h.update(array("I", twister).tobytes())
                    h.update(repr((version, gauss)).encode())
            for block in sm.blocks:
                h.update(repr(sorted((k, b.arrived, b.expected, [x[0].uid for x in b.waiting])
                                     for k, b in block.barriers.items())).encode())
                for w in block.warps:
                    if w.done:
                        continue
                    h.update(w.regs[:regs].tobytes())
                    h.update(w.preds.tobytes())
                    if w.local is not None:
                        h.update(w.local.tobytes())
                    # the scoreboard as (slot, cycles until ready) of the slots not ready yet: most are
                    h.update(repr((w.uid, w.pc, w.active, w.exited, w.stack, w.waiting, _rel(w.ready_at, now),
                                   [(k, x - now) for k, x in enumerate(w.sb) if now < x < INF],
                                   _rel(w.stores_done_at, now), w.its and w.its.key(now))).encode())
        h.update(repr(sorted((k, v - now) for k, v in self.l2_free.items() if v > now)).encode())
        h.update(repr(self.mem.key(now)).encode())
        key = h.digest()
        seen = self._seen.get(key)
        if seen is not None:
            return seen
        if len(self._seen) > 100_000:
            self._seen.clear()
        self._seen[key] = (now, self.warp_instructions)
        return None

    # ---- observing a run
    def set_watch(self, watch) -> None:
        """Install a watch (None removes it): its `before(warp, decoded, mask)` runs before each
        issue and its `lock_failed(warp, failed)` after each lock take that fails (diagnose.Watch)."""
        self.watch = watch
        self._hooks = watch is not None or self._trace_issues

    # ---- hooks the executors call
    def lock_failed(self, w: Warp, failed: list) -> None:
        if self.watch is not None:
            self.watch.lock_failed(w, failed)


def _rel(t, now: int):
    return 0 if t == INF or t <= now else t - now


def init_values(init, n: int) -> np.ndarray:
    """The first values of an n-word array (program.Init), as int64 wrapped to 32 bits."""
    if init is None or init.kind == "zeros":
        v = np.zeros(n, dtype=np.int64)
    elif init.kind == "fill":
        v = np.full(n, init.value, dtype=np.int64)
    elif init.kind == "range":
        v = np.arange(n, dtype=np.int64)
    else:
        vals = list(init.values)[:n]
        v = np.array(vals + [0] * (n - len(vals)), dtype=np.int64)
    return (v & 0xFFFFFFFF).astype(np.uint32)
