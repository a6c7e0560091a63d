"""What the engines' tests share: every launch a run makes, run again on both engines and compared."""
from __future__ import annotations

import copy

import syncc.runtime.sim as launcher
from syncc.runtime.sim import recording_launches


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


def against_the_reference_run(run, what: str, report, reported) -> int:
    """As on_both_engines, for a `run()` that launches on the reference engine: the reference's
    side of each launch is the run `run()` made of it (with keep_shared, which only keeps shared
    memory), read by `reported(sim, outcome, gmem)`, rather than a second run of the same launch
    from the same memory; the compiled core's side is `report(*launch, "compiled")` as before. A
    launch whose run raised is run again on the reference with `report`, as on_both_engines does."""
    real = launcher.Simulator
    launches: list[list] = []            # [launch, its reference report or None]

    class Recording(real):
        def __init__(self, kernel, config, grid, block, gmem, params, observer=None, keep_shared=False):
            assert config.engine == "reference", "run() launches on the reference engine"
            self._entry = [(kernel, config, grid, block, copy.deepcopy(gmem), list(params)), None]
            launches.append(self._entry)
            super().__init__(kernel, config, grid, block, gmem, params, observer, True)

        def run(self):
            outcome = super().run()
            self._entry[1] = reported(self, outcome, self.gmem)
            return outcome

    launcher.Simulator = Recording
    try:
        run()
    finally:
        launcher.Simulator = real
    compiled = 0
    for launch, slow in launches:
        if slow is None:
            _, slow = report(*launch, "reference")
        ran_on, fast = report(*launch, "compiled")
        for key in slow:
            assert fast[key] == slow[key], f"{what}: `{launch[0].name}` differs in {key}"
        compiled += ran_on == "compiled"
    return compiled
