"""What the engines' tests share: every launch a run makes, run again on both engines and compared."""
from __future__ import annotations

import copy
import functools
import gc

import syncc.runtime.sim as launcher
from syncc.backends.sim.simulator import Simulator
from syncc.backends.sim.trace import Observers, TraceRecorder
from syncc.runtime.sim import recording_launches


class HookLog:
    """Every hook call, with what an observer reads of the warp at that moment."""
    wants_issues = True

    def __init__(self):
        self.calls: list[tuple] = []

    def _warp(self, w) -> tuple:
        return (w.uid, w.pc, w.active, w.issued)

    def issued(self, w, d, now):
        self.calls.append(("issued", now, self._warp(w), d.ins.addr, w.lock_bits_held(), w.lock_bits_taken()))

    def diverged(self, w, now, pc):
        self.calls.append(("diverged", now, self._warp(w), pc))

    def barrier_wait(self, w, now, bar_id):
        self.calls.append(("barrier_wait", now, self._warp(w), bar_id))

    def barrier_released(self, w, at, bar_id):
        self.calls.append(("barrier_released", at, self._warp(w), bar_id))

    def warp_finished(self, w, now):
        self.calls.append(("warp_finished", now, self._warp(w), w.name, w.sm.index, w.block.started,
                           w.lock_bits_held(), w.lock_bits_taken()))

    def block_started(self, block, now):
        self.calls.append(("block_started", now, block.index, block.sm.index))

    def block_finished(self, block, now):
        self.calls.append(("block_finished", now, block.index, block.sm.index))


def watching(observer=None):
    """A Chrome trace recorder and a HookLog (beside `observer`, if any) as one observer, and a
    function that returns what the two saw."""
    trace, log = TraceRecorder(), HookLog()
    others = getattr(observer, "observers", [observer])
    return Observers([trace, log, *others]), lambda: {"calls": log.calls, "trace": trace.json()}


def observed(kernel, config, grid, block, gmem, params, engine: str) -> tuple[str, dict]:
    """One launch with watching()'s observers: the engine it ran on, and the status, the cycles and
    what the observers saw."""
    observer, seen = watching()
    sim = Simulator(kernel, config.with_(engine=engine), grid, block, copy.deepcopy(gmem), params,
                    observer=observer)
    o = sim.run()
    return sim.engine, {"status": o.status, "cycles": o.cycles, **seen()}


def collector_paused(compare):
    """`compare` with Python's cyclic collector paused. What a comparison holds for its whole length
    (two runs' observations: a trace and a hook log of every instruction, millions of small objects,
    none of them garbage) is what each full collection would traverse again: about 12 s of
    tests/engines' CPU. Garbage cycles made meanwhile go at the first collection after it."""
    @functools.wraps(compare)
    def paused(*args, **kwargs):
        enabled = gc.isenabled()
        gc.disable()
        try:
            return compare(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()
    return paused


@collector_paused
def on_both_engines(run, what: str, report) -> int:
    """Record every launch `run()` makes, run each again on both engines with
    `report(*launch, engine)` → (the engine it ran on, {name: value}), and require every value to
    be equal; the number of launches the compiled core ran."""
    compiled = 0
    with recording_launches() as launches:
        run()
    for launch in launches:
        ran_on, fast = report(*launch, "compiled")
        _, slow = report(*launch, "reference")
        for key in slow:
            assert fast[key] == slow[key], f"{what}: `{launch[0].name}` differs in {key}"
        compiled += ran_on == "compiled"
    return compiled


@collector_paused
def against_the_reference_run(run, what: str, report, reported, observe: bool = False) -> int:
    """As on_both_engines, for a `run()` that launches on the reference engine: the reference's
    side of each launch is the run `run()` made of it (with keep_shared, which only keeps shared
    memory), read by `reported(sim, outcome, gmem)`, rather than a second run of the same launch
    from the same memory; the compiled core's side is `report(*launch, "compiled")` as before. A
    launch whose run raised is run again on the reference with `report`, as on_both_engines does.

    With `observe`, watching()'s observers also watch the reference's run, and each launch is run
    once more on the compiled core with its own (`observed`): what they saw must be equal too. One
    reference run serves both comparisons (observers only watch: the compiled core's run without
    them must still report what the watched reference run did)."""
    real = launcher.Simulator
    launches: list[list] = []            # [launch, its reference report or None, what its observers saw]

    class Recording(real):
        def __init__(self, kernel, config, grid, block, gmem, params, observer=None, keep_shared=False):
            assert config.engine == "reference", "run() launches on the reference engine"
            self._entry = [(kernel, config, grid, block, copy.deepcopy(gmem), list(params)), None, None]
            launches.append(self._entry)
            self._watched = None
            if observe:
                observer, self._watched = watching(observer)
            super().__init__(kernel, config, grid, block, gmem, params, observer, True)

        def run(self):
            outcome = super().run()
            self._entry[1] = reported(self, outcome, self.gmem)
            if self._watched is not None:
                self._entry[2] = {"status": outcome.status, "cycles": outcome.cycles, **self._watched()}
            return outcome

    launcher.Simulator = Recording
    try:
        run()
    finally:
        launcher.Simulator = real
    compiled = 0
    for launch, slow, slow_seen in launches:
        if slow is None:
            _, slow = report(*launch, "reference")
        ran_on, fast = report(*launch, "compiled")
        for key in slow:
            assert fast[key] == slow[key], f"{what}: `{launch[0].name}` differs in {key}"
        if observe:
            if slow_seen is None:
                _, slow_seen = observed(*launch, "reference")
            _, fast_seen = observed(*launch, "compiled")
            for key in slow_seen:
                assert fast_seen[key] == slow_seen[key], f"{what}: `{launch[0].name}` is observed differently: {key}"
        compiled += ran_on == "compiled"
    return compiled
