"""What the simulator reports as it runs: a Chrome trace for Perfetto, and progress on a terminal.

    trace = TraceRecorder()
    Simulator(..., observer=Observers([trace, Progress(sys.stderr)])).run()
    trace.write("nw.json")        # open it in https://ui.perfetto.dev or chrome://tracing

The trace has one process per SM and one track per warp (named by block and
warp). A warp's track shows its lifetime; the time it waits at a barrier; the
time it spins for a lock bit (from an LDSLK that gets no bit to the one that
gets some: "waits for a lock bit"); the time it holds lock bits (from taking
the first to freeing the last: its critical sections and the slots it keeps
full); and the `.region`s of a hand-written .sass file. One counter per SM
shows how many lock bits are taken. Time is in cycles, shown as microseconds
(1 cycle = 1 µs in the viewer).

An observer is any object with some of these methods; the simulator calls the
ones it has: block_started(block, now), block_finished(block, now),
warp_finished(warp, now), barrier_wait(warp, now, id),
barrier_released(warp, now, id), diverged(warp, now, pc), issued(warp, code,
now) (every instruction: only when `wants_issues` is true), progress(sim). A hook
gets the warp as it is at that moment: on the compiled core, a view of it built from the
core's event log (core/replay.py) whose pc, active lanes, instruction count and lock bits
(`lock_bits_held()`, `lock_bits_taken()`) are the event's.
"""
from __future__ import annotations

import json
import sys
import time

from ..fermi.isa import INSTR_BYTES


class Observers:
    """Several observers as one."""

    def __init__(self, observers):
        self.observers = [o for o in observers if o is not None]
        self.wants_issues = any(getattr(o, "wants_issues", False) for o in self.observers)

    def __getattr__(self, name):
        targets = [getattr(o, name) for o in self.observers if hasattr(o, name)]

        def call(*args):
            for t in targets:
                t(*args)
        if not name.startswith("__"):
            self.__dict__[name] = call       # a hook is called per instruction: look it up once
        return call


class TraceRecorder:
    wants_issues = True

    def __init__(self, label: str = "syncc fermi-sim"):
        self.label = label
        self.events: list[dict] = []
        self.launch = 0                      # a trace can hold several launches, one after another
        self.offset = 0                      # cycles of the earlier launches
        self.end = 0
        self._open: dict[int, tuple] = {}    # warp uid → (region index, start)
        self._bar: dict[int, tuple] = {}     # warp uid → (barrier id, start)
        self._named: set = set()
        self._regions: list | None = None
        self._kernel = None
        self._lock_count: dict[int, int] = {}
        self._locks: dict[int, _LockState] = {}      # warp uid → its lock bits, as the trace follows them

    # ---- per launch
    def start_launch(self, kernel) -> None:
        self.offset = self.end
        self.launch += 1
        self._kernel = kernel
        n = len(kernel.instrs)
        index = [None] * n
        for r_i, r in enumerate(sorted(kernel.regions, key=lambda r: r.end - r.start, reverse=True)):
            for a in range(r.start, r.end, INSTR_BYTES):
                if 0 <= a // INSTR_BYTES < n:
                    index[a // INSTR_BYTES] = r        # the innermost region wins
        self._regions = index
        self._open.clear()
        self._bar.clear()
        self._locks.clear()
        self.events.append({"name": f"launch {self.launch}: {kernel.name}", "ph": "i", "s": "g",
                            "ts": self.offset, "pid": 0, "tid": 0})

    def _ts(self, now: int) -> int:
        t = self.offset + now
        self.end = max(self.end, t)
        return t

    def _track(self, w) -> tuple[int, int]:
        pid, tid = w.sm.index, w.uid + 1000 * self.launch
        if (pid, tid) not in self._named:
            self._named.add((pid, tid))
            if (pid, -1) not in self._named:
                self._named.add((pid, -1))
                self.events.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": f"SM {pid}"}})
            self.events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                                "args": {"name": f"{self._kernel.name} {w.name}"}})
        return pid, tid

    def _span(self, w, name: str, start: int, end: int, args: dict | None = None) -> None:
        pid, tid = self._track(w)
        event = {"name": name, "ph": "X", "ts": self._ts(start), "dur": max(1, end - start), "pid": pid, "tid": tid}
        if args:
            event["args"] = args
        self.events.append(event)

    # ---- simulator hooks
    def block_started(self, block, now) -> None:
        for w in block.warps:
            self._track(w)

    def block_finished(self, block, now) -> None:
        pass

    def warp_finished(self, w, now) -> None:
        self._close_region(w, now)
        self._settle(w, now, finished=True)
        self._span(w, "warp", self._start_of(w), now, {"instructions": w.issued})

    def _start_of(self, w) -> int:
        return w.block.started

    def barrier_wait(self, w, now, bar_id) -> None:
        self._bar[w.uid] = (bar_id, now)

    def barrier_released(self, w, at, bar_id) -> None:
        held = self._bar.pop(w.uid, None)
        if held:
            self._span(w, f"barrier {bar_id}", held[1], at)

    def diverged(self, w, now, pc) -> None:
        pass

    def issued(self, w, d, now) -> None:
        uid = w.uid                                  # (called for every instruction: read once)
        state = self._locks.get(uid)
        if state is not None and state.pending is not None:
            self._settle(w, now)
        op = d.ins.op
        if op in ("LDSLK", "STSUL"):                 # its effect is seen at the warp's next issue
            if state is None:
                state = self._locks[uid] = _LockState()
            state.pending = (op, now, w.lock_bits_held(), d.ins)
        regions = self._regions
        i = w.pc // INSTR_BYTES
        region = regions[i] if regions and 0 <= i < len(regions) else None
        open_ = self._open.get(uid)
        if open_ is not None:
            if open_[0] is region:
                return
            self._close_region(w, now)
        if region is not None:
            self._open[uid] = (region, now)

    def _settle(self, w, now, finished: bool = False) -> None:
        """The effect of the warp's last LDSLK or STSUL: a wait starts or ends, a hold starts or ends."""
        state = self._locks.get(w.uid)
        if state is None:
            return
        if state.pending is not None:
            op, at, before, ins = state.pending
            state.pending = None
            held = w.lock_bits_held()
            self._lock_counter(w, at + 1)
            if op == "LDSLK":
                if held > before and state.wait is not None:
                    start, first = state.wait
                    self._span(w, "waits for a lock bit", start, at, _where(first))
                    state.wait = None
                elif held <= before and state.wait is None:
                    state.wait = (at, ins)
            if before == 0 and held > 0:
                state.hold = (at, ins)
            elif before > 0 and held == 0 and state.hold is not None:
                self._span(w, "holds lock bits", state.hold[0], at + 1, _where(state.hold[1]))
                state.hold = None
        if finished:
            if state.wait is not None:
                self._span(w, "waits for a lock bit", state.wait[0], now, _where(state.wait[1]))
            if state.hold is not None:
                self._span(w, "holds lock bits", state.hold[0], now, _where(state.hold[1]))
            self._locks.pop(w.uid, None)

    def _close_region(self, w, now) -> None:
        open_ = self._open.pop(w.uid, None)
        if open_ is not None:
            region, start = open_
            args = {"source line": region.loc[0]} if region.loc else None
            self._span(w, f"{region.kind} {region.label}", start, now, args)

    def _lock_counter(self, w, now) -> None:
        taken = w.lock_bits_taken()
        if self._lock_count.get(w.sm.index) != taken:
            self._lock_count[w.sm.index] = taken
            self.events.append({"name": "lock bits taken", "ph": "C", "ts": self._ts(now), "pid": w.sm.index,
                                "args": {"taken": taken}})

    def progress(self, sim) -> None:
        pass

    # ---- output
    def json(self) -> dict:
        return {"traceEvents": self.events, "displayTimeUnit": "ns",
                "otherData": {"generator": self.label, "time unit": "1 µs in the viewer = 1 simulated cycle"}}

    def write(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.json(), f)


class _LockState:
    """What the trace knows of one warp's lock bits."""
    __slots__ = ("pending", "wait", "hold")

    def __init__(self):
        self.pending = None          # (op, cycle, bits held before, instruction): not yet seen to act
        self.wait = None             # (start, the LDSLK): spinning for a bit
        self.hold = None             # (start, the LDSLK that took the first bit)


def _where(ins) -> dict:
    out = {"address": f"0x{ins.addr:04x}", "instruction": str(ins)}
    if ins.loc is not None:
        out["source line"] = ins.loc[0]
    return out


class Progress:
    """A one-line progress indicator on a terminal: cycles, instructions, speed."""

    def __init__(self, stream=None, every: float = 0.5):
        self.stream = stream or sys.stderr
        self.every = every
        self.t0 = time.perf_counter()
        self.last = self.t0
        self.shown = False

    def progress(self, sim) -> None:
        t = time.perf_counter()
        if t - self.last < self.every:
            return
        self.last = t
        rate = sim.warp_instructions / max(1e-9, t - self.t0)
        self.stream.write(f"\r  fermi-sim: {sim.kernel.name}: cycle {sim.now:,}, {sim.warp_instructions:,} "
                          f"warp-instructions ({rate:,.0f}/s)   ")
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * 78 + "\r")
            self.stream.flush()
            self.shown = False
