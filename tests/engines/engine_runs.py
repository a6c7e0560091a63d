"""What the engines' tests share: every launch a run makes, run again on both engines and compared."""
from __future__ import annotations

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
