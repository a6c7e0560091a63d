"""Running .sass text on the simulator, for tests: assemble, launch with the header's arrays, return
what happened.

    run = simulate(TEXT)                      # the first kernel, arrays as its header gives them
    run.outcome.status, run.arrays["out"], run.shared("count")
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from syncc.backends.fermi.asm import assemble
from syncc.backends.sim.machine import FermiConfig
from syncc.backends.sim.simulator import init_values
from syncc.runtime.sim import SimLauncher, SimStopped
from syncc.core.source import SourceFile


@dataclass
class Run:
    outcome: object
    arrays: dict
    kernel: object

    def shared(self, name: str, block=(0, 0, 0)) -> np.ndarray:
        a = self.kernel.shared_array(name)
        words = self.outcome.shared_after[block]
        return words[a.offset // 4: a.offset // 4 + a.length].view(np.int32).reshape(a.dims)

    @property
    def status(self) -> str:
        return self.outcome.status

    @property
    def kind(self) -> str | None:
        d = self.outcome.diagnosis
        return d.kind if d is not None else None


def simulate(text: str, config: FermiConfig | None = None, arrays: dict | None = None, observer=None,
             kernel: str | None = None, path: str = "test.sass") -> Run:
    program = assemble(SourceFile(path, text))
    k = program.kernel(kernel) if kernel else program.kernels[0]
    given = dict(arrays or {})
    args = []
    for p in k.params:
        if p.kind == "array":
            if p.name not in given:
                dtype = np.uint32 if p.elem == "u32" else np.int32
                given[p.name] = init_values(p.init, p.length).view(dtype).reshape(p.dims)
            args.append(given[p.name])
        elif p.kind == "scalar":
            args.append(given.get(p.name, p.init.value if p.init else 0))
    launcher = SimLauncher(program, config or FermiConfig(), observer, keep_shared=True)
    try:
        outcome = launcher(k.name, args, k.grid or (1, 1, 1), k.block)
    except SimStopped as e:
        outcome = e.outcome
    return Run(outcome, given, k)


def load_compiled_core() -> bool:
    """Load the compiled core into this process by one small launch (from numba's disk cache, or
    compiled into it when the cache is empty, about 14 s); False when numba is missing."""
    from pathlib import Path

    from syncc.backends.sim import core
    if core.load()[0] is None:
        return False
    listing = Path(__file__).resolve().parent.parent / "examples" / "sass" / "listing01_atomic_add.sass"
    run = simulate(listing.read_text())
    assert run.status == "finished" and run.outcome.stats.engine == "compiled", run.status
    return True


def assert_engines_agree(ref: Run, comp: Run, names: tuple[str, ...]) -> None:
    """The compiled core wrote the reference engine's bits into each array of `names`, in the same
    cycles, instructions and stalls (the engines' differential tests)."""
    for name in names:
        np.testing.assert_array_equal(comp.arrays[name].view(np.uint8), ref.arrays[name].view(np.uint8))
    r, c = ref.outcome, comp.outcome
    assert (r.cycles, r.warp_instructions, r.stats.stalls) == (c.cycles, c.warp_instructions, c.stats.stalls)
