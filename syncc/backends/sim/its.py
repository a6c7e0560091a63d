"""Independent thread scheduling (`--its`): every lane has its own address; the warp runs one
split (the ready lanes at one address) at a time.

The scheduler is greedy, as seed 003 observed on Volta: it keeps running the
current split until that split blocks (BSYNC, WARPSYNC, a block barrier),
exits, sleeps or yields; after a divergent branch the lanes that fall through go
on (as on Fermi), and the lanes that jump queue. Only then does the next queued
split run. Splits that reach the same address merge. So a split that spins on a
flag which another split of its own warp would set spins for ever (seed 003
Listing 3.3) unless its loop yields: ptxas puts a YIELD in every loop that
polls memory (and so does syncc's ITS flavour), and a WARPSYNC on the spin path
(Listing 3.6) makes the spinning lanes wait for the others.

A convergence barrier waits only for lanes that can still come by running: it
never makes a deadlock, and it gives the forward progress an H100 gives. The
SASS ptxas makes of nested ticket locks has a lane leave the inner polling loop
and meet that loop's BSYNC while warp-mates still poll for a lock it holds, and
it finishes; so do a `__syncwarp` on one side of a branch whose other side
waits at the join, and a block barrier under a guard that leaves lanes of a
warp out. So a lane that executes YIELD or NANOSLEEP is *yielded* until it next
reaches a BSYNC or WARPSYNC or exits, and a BSYNC goes on when every unexited
lane of its barrier has arrived, is yielded, or waits elsewhere (at a WARPSYNC,
a block barrier, another BSYNC); the lanes it did not wait for leave the
barrier. A lane that reaches a BSYNC Bn it is not (or no longer) part of goes
straight on: it was let through, or the barrier has been set again for a later
region by lanes that went ahead. A WARPSYNC waits for
every lane of its mask, yielded or not, as on the H100 (a `__syncwarp` in both
loops of nested ticket locks hangs there).

    BSSY Bn, t    Bn = the lanes of the current split
    BSYNC Bn      lanes of Bn wait until every unexited lane of Bn is here, yielded or waiting
                  elsewhere, then go on; other lanes go straight on
    BREAK Bn      the guarded lanes leave Bn
    WARPSYNC m    each lane waits until every unexited lane of its m waits at a WARPSYNC with the
                  same mask (at any address, as PTX's bar.warp.sync); then they go on
    YIELD         the split is yielded and queues behind the others
    NANOSLEEP t   the split is yielded and sleeps t cycles; the others run meanwhile
"""
from __future__ import annotations

from . import lanes as L
from .execute import InstructionError, Kind, operand_value
from .findings import Finding, where
from ..fermi.isa import INSTR_BYTES


class ItsState:
    __slots__ = ("barriers", "bsync", "current", "order", "sleeping", "splits", "warpsync", "yielded")

    def __init__(self, lanes: int):
        self.splits: dict[int, int] = {0: lanes}     # address → ready lanes there
        self.order: list[int] = [0]                  # addresses of splits, in the order they run
        self.current = 0
        self.barriers = [0] * 16                     # B0..B15: the lanes expected at BSYNC
        self.bsync: dict[int, dict[int, int]] = {}   # barrier → {address of its BSYNC → waiting lanes}
        self.warpsync: list[tuple[int, int, int]] = []   # (address, lanes waiting, mask they need)
        self.yielded = 0                             # lanes that yielded since they last waited
        self.sleeping: list[tuple[int, int, int]] = []   # (cycle it wakes, address, lanes), NANOSLEEP

    def key(self, now: int = 0):
        """For fingerprints (times relative to `now`)."""
        return (sorted(self.splits.items()), self.order, self.current, self.barriers,
                sorted((b, sorted(d.items())) for b, d in self.bsync.items()), self.warpsync, self.yielded,
                [(t - now, pc, m) for t, pc, m in self.sleeping])

    def wake(self, now: int) -> None:
        """Sleepers whose time has come are ready again."""
        if self.sleeping:
            due = [x for x in self.sleeping if x[0] <= now]
            if due:
                self.sleeping = [x for x in self.sleeping if x[0] > now]
                for _, pc, lanes in due:
                    self.add(lanes, pc)

    def next_wake(self) -> int | None:
        return min(t for t, _, _ in self.sleeping) if self.sleeping else None

    def move(self, lanes: int, pc: int, to: int) -> None:
        """`lanes` of the split at `pc` go to `to` (merging with a split there)."""
        if lanes:
            self.leave(lanes, pc)
            self.add(lanes, to)

    def add(self, lanes: int, to: int) -> None:
        """`lanes` are ready at `to`."""
        if not lanes:
            return
        if to in self.splits:
            self.splits[to] |= lanes
        else:
            self.splits[to] = lanes
            self.order.append(to)

    def leave(self, lanes: int, pc: int) -> None:
        """`lanes` stop being ready at `pc` (they wait, or exited)."""
        rest = self.splits.get(pc, 0) & ~lanes
        if rest:
            self.splits[pc] = rest
        elif pc in self.splits:
            del self.splits[pc]
            self.order.remove(pc)


def its_issue(sim, w, d, m: int, now: int) -> int:
    """Issue the control instruction `d` (or advance after an ordinary one) for the current split
    of an ITS warp; returns the delay before the warp may issue again."""
    step = _ISSUE.get(d.kind)
    if step is None:
        raise InstructionError(stack_op_in_its(d.ins.op, w.pc))
    st: ItsState = w.its
    pc = w.pc
    delay = step(sim, w, d, m, now, st, pc, st.splits.get(pc, 0))
    return 1 if delay is None else delay


# Each kind's step: (sim, warp, decoded, guarded lanes, now, its state, pc, the split at pc) → the
# delay before the warp may issue again (None: 1).

def _advance(sim, w, d, m, now, st, pc, split):
    """An ordinary instruction, or a block barrier the split has arrived at: the split goes on."""
    st.move(split, pc, pc + INSTR_BYTES)
    st.current = pc + INSTR_BYTES


def _branch(sim, w, d, m, now, st, pc, split):
    taken, nxt = m, pc + INSTR_BYTES
    if taken and taken != split and d.ins.has("U"):
        raise InstructionError(bra_u_splits(w, pc))
    st.move(taken, pc, d.target)
    st.move(split & ~taken, pc, nxt)
    st.current = nxt if split & ~taken else d.target     # fall-through lanes go on, as on Fermi
    return sim.config.branch_latency if taken == split else 1


def _bssy(sim, w, d, m, now, st, pc, split):
    st.barriers[d.ins.operands[0].n] = split
    _advance(sim, w, d, m, now, st, pc, split)


def _bsync(sim, w, d, m, now, st, pc, split):
    n = d.ins.operands[0].n
    members = split & st.barriers[n]
    st.leave(split, pc)
    st.yielded &= ~split
    if members:
        waits = st.bsync.setdefault(n, {})
        waits[pc] = waits.get(pc, 0) | members
    if split & ~members:                 # not (or no longer) in Bn: nothing to wait for
        st.add(split & ~members, pc + INSTR_BYTES)
        st.current = pc + INSTR_BYTES
    release_waiting(sim, w)


def _break(sim, w, d, m, now, st, pc, split):
    st.barriers[d.ins.operands[0].n] &= ~m
    _advance(sim, w, d, m, now, st, pc, split)
    release_waiting(sim, w)


def _warpsync(sim, w, d, m, now, st, pc, split):
    # each lane waits for the lanes of its own mask (a split may hold lanes of several meetings
    # that reached this address together)
    values = operand_value(d.ins.operands[0], w, sim.env)
    groups: dict[int, int] = {}
    for lane in L.lanes(split):
        need = int(values[lane])
        groups[need] = groups.get(need, 0) | L.LANE[lane]
    st.leave(split, pc)
    st.yielded &= ~split
    for need, lanes in groups.items():
        st.warpsync.append((pc, lanes, L.expand(need)))
    release_waiting(sim, w)


def _yield(sim, w, d, m, now, st, pc, split):
    nxt = pc + INSTR_BYTES
    st.yielded |= split
    st.move(split, pc, nxt)
    if nxt in st.order:
        st.order.remove(nxt)
        st.order.append(nxt)
    st.current = st.order[0]
    release_waiting(sim, w)


def _nanosleep(sim, w, d, m, now, st, pc, split):
    nxt = pc + INSTR_BYTES
    if m:
        cycles = int(operand_value(d.ins.operands[0], w, sim.env)[L.lowest(m)])
        st.yielded |= m
        st.leave(m, pc)
        st.sleeping.append((now + max(1, cycles), nxt, m))
    st.move(split & ~m, pc, nxt)
    st.current = nxt
    release_waiting(sim, w)


def _exit(sim, w, d, m, now, st, pc, split):
    w.exited |= m
    st.yielded &= ~m
    st.leave(m, pc)
    st.move(split & ~m, pc, pc + INSTR_BYTES)
    st.current = pc + INSTR_BYTES
    release_waiting(sim, w)


_ISSUE = {Kind.OP: _advance, Kind.BAR: _advance, Kind.BRA: _branch, Kind.BSSY: _bssy, Kind.BSYNC: _bsync,
          Kind.BREAK: _break, Kind.WARPSYNC: _warpsync, Kind.YIELD: _yield, Kind.NANOSLEEP: _nanosleep,
          Kind.EXIT: _exit}


# ---- what a run-time error of an ITS warp says (both engines)
def stack_op_in_its(op: str, pc: int) -> str:
    return (f"{op} at 0x{pc:x} is stack-based reconvergence (SSY/PBK/BRK); "
            "in ITS mode the kernel must use BSSY/BSYNC (compile it with --its)")


def bra_u_splits(w, pc: int) -> str:
    return f"BRA.U at 0x{pc:x}: the lanes of {w.name} disagree"


def sync_in_its(pc: int) -> str:
    return f"`.S` at 0x{pc:x}: stack-based reconvergence does not exist in ITS mode"


def release_waiting(sim, w) -> None:
    """Let waiting lanes go on where everything they wait for has arrived (or exited)."""
    st: ItsState = w.its
    live = w.present & ~w.exited
    changed = True
    released = False
    while changed:
        changed = False
        ready = 0
        for m in st.splits.values():
            ready |= m
        for n, waits in list(st.bsync.items()):
            arrived = 0
            for m in waits.values():
                arrived |= m
            if st.barriers[n] & live & ~arrived & ready & ~st.yielded:
                continue                         # a lane that can still come by running
            del st.bsync[n]
            st.barriers[n] &= ~arrived           # yielded lanes still in it pass its BSYNC alone
            for pc, m in waits.items():
                st.add(m & live, pc + INSTR_BYTES)
            changed = released = True
        arrived: dict[int, int] = {}             # a meeting is the lanes waiting with one mask value
        for _, m, need in st.warpsync:
            arrived[need] = arrived.get(need, 0) | m
        done = [x for x in st.warpsync if not (x[2] & live & ~arrived[x[2]])]
        if done:
            st.warpsync = [x for x in st.warpsync if x not in done]
            for pc, m, _ in done:
                st.add(m & live, pc + INSTR_BYTES)
            changed = released = True
    if released:
        sim.last_change = sim.now


def select_split(w, now: int | None = None) -> bool:
    """Make the warp's current split its active lanes (waking sleepers due by `now`); False when no
    lane is ready."""
    st: ItsState = w.its
    if now is not None:
        st.wake(now)
    if st.current not in st.splits:
        if not st.order:
            w.active = 0
            return False
        st.current = st.order[0]
    w.pc = st.current
    w.active = st.splits[st.current]
    return True


def its_starvation(sim, watch) -> list:
    """Warps whose ready splits never ran during the diagnosis window while another split of the
    same warp kept spinning (seed 003 §3.2)."""
    out = []
    for w in sim.warps:
        st = w.its
        if st is None or w.done:
            continue
        ran = watch.pcs.get(w.uid)
        if not ran:
            continue
        starved = [(pc, m) for pc, m in st.splits.items() if pc not in ran]
        if not starved:
            continue
        spin = [(pc, m) for pc, m in st.splits.items() if pc in ran]
        spin_lanes = 0
        for _, m in spin:
            spin_lanes |= m
        loop = sorted(ran)
        pc0, m0 = starved[0]
        out.append(Finding(
            "livelock",
            f"livelock: {L.describe(spin_lanes)} of {w.name} spin in 0x{loop[0]:04x}..0x{loop[-1]:04x} while "
            f"{L.describe(m0)} of the same warp, ready at {where(sim, pc0)}, {_verb(m0, 'is', 'are')} never scheduled: independent "
            "thread scheduling keeps running the spinning split", w, loop[0], spin_lanes,
            [(f"{L.describe(m)} {_verb(m, 'waits', 'wait')} to run at {where(sim, pc)}", pc) for pc, m in starved],
            "let the spin yield (YIELD or NANOSLEEP in the loop, as ptxas and syncc's ITS code do) or put a "
            "__syncwarp (WARPSYNC) on the spin path, so the spinning lanes wait for the others (seed 003 "
            "Listing 3.6)"))
    return out


def its_deadlock(sim, w):
    """A warp all of whose live lanes wait (BSYNC/WARPSYNC) for lanes that will never come."""
    st: ItsState = w.its
    if st.splits or st.sleeping:
        return None
    live = w.present & ~w.exited
    notes = []
    for n, waits in st.bsync.items():
        for pc, m in waits.items():
            missing = st.barriers[n] & live & ~m
            notes.append((f"{L.describe(m)} wait at BSYNC B{n} (0x{pc:04x}) for {L.describe(missing)}", pc))
    for pc, m, need in st.warpsync:
        notes.append((f"{L.describe(m)} wait at WARPSYNC 0x{pc:04x} for {L.describe(need & live & ~m)}", pc))
    if not notes:                # no lane waits at a BSYNC or WARPSYNC: a barrier's finding explains it
        return None
    pc = notes[0][1]
    return Finding("deadlock", f"deadlock: every live lane of {w.name} waits for lanes of its own warp that wait "
                   "elsewhere", w, pc, live, notes,
                   "every lane a BSYNC or WARPSYNC waits for must reach it or exit")


def _verb(mask: int, one: str, many: str) -> str:
    return one if len(L.lanes(mask)) == 1 else many


__all__ = ["ItsState", "bra_u_splits", "its_deadlock", "its_issue", "its_starvation", "release_waiting",
           "select_split", "stack_op_in_its", "sync_in_its"]
