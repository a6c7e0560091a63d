"""Seed 000 Figure 4 / Table 2 on the simulator: the five schemes of Table 1.

The five kernels of `examples/chain.sync` each run once (the simulator is deterministic). For
each: the kernel's cycles, and the reduction phase's, from the first instruction of warp 0's
`put` (the phase starts when the first value is ready) to the last instruction of the last
warp's `put`; each as a speed relative to atom_lock beside the paper's Table 2, with whether
it is within ±25% and whether the ranking is the paper's.
"""
from __future__ import annotations

import numpy as np

from .core import Context, Plot, Table

PAPER = {"atom_lock": 1.0, "warp_barr": 2.6, "shrd_lock": 0.8, "tiny_lock": 4.0, "warp_vote": 2.0}
TOLERANCE = 0.25


class PhaseClock:
    """Per (warp, source line): the first and last cycle an instruction of that line issued."""
    wants_issues = True

    def __init__(self):
        self.first: dict[tuple[int, int], int] = {}
        self.last: dict[tuple[int, int], int] = {}

    def __getattr__(self, name):            # the other observer hooks: nothing to do
        return lambda *args: None

    def issued(self, w, d, now) -> None:
        loc = d.ins.loc
        if loc is not None:
            key = (w.uid, loc[0])
            self.first.setdefault(key, now)
            self.last[key] = now


def measure(path, config=None, bounds_checks: bool = True) -> dict[str, tuple[int, int]]:
    """scheme → (kernel cycles, reduction-phase cycles)."""
    import syncc
    from ..backends.sim.machine import FermiConfig
    from ..runtime.sim import SimLauncher
    source = path.read_text().splitlines()
    program = syncc.compile(str(path), target="fermi-sim", sim_config=config,
                            bounds_checks=bounds_checks)._fermi_program()
    out = {}
    for k in program.kernels:
        start = next(i for i, line in enumerate(source) if line.startswith(f"kernel {k.name}("))
        put_line = next(i + 1 for i in range(start, len(source)) if source[i].lstrip().startswith("put "))
        clock = PhaseClock()
        launcher = SimLauncher(program, config or FermiConfig(), clock)
        outcome = launcher(k.name, [np.arange(32, dtype=np.int32), np.zeros(512, np.int32)], (1, 1, 1),
                           (512, 1, 1))
        begin = min(t for (_, line), t in clock.first.items() if line == put_line)
        end = max(t for (_, line), t in clock.last.items() if line == put_line)
        out[k.name] = (outcome.cycles, end - begin)
    return out


def ranking(speeds: dict[str, float]) -> list[str]:
    return sorted(speeds, key=speeds.get, reverse=True)


def run(ctx: Context):
    result = measure(ctx.path("examples/chain.sync"), bounds_checks=ctx.bounds != "off")
    base_kernel, base_phase = result["atom_lock"]
    speeds = {name: base_phase / phase for name, (_, phase) in result.items()}
    table = Table("table2", "Seed 000 Table 2: the five schemes of Listing 10 on fermi-sim (speed vs atom_lock)",
                  ["scheme", "kernel cycles", "kernel speed", "reduction cycles", "speed", "paper",
                   "off by", "within 25%"])
    for name, (cycles, phase) in result.items():
        off = speeds[name] / PAPER[name] - 1
        table.rows.append([name, cycles, base_kernel / cycles, phase, speeds[name], PAPER[name],
                           f"{off:+.0%}", "yes" if abs(off) <= TOLERANCE else "no"])
    ours, paper = ranking(speeds), ranking(PAPER)
    table.notes.append(f"ranking: {' > '.join(ours)} ({'the paper' + chr(39) + 's' if ours == paper else 'paper: ' + ' > '.join(paper)})")
    plot = Plot("table2", "Seed 000 Table 2: speed vs atom_lock", "scheme (paper's order)", "speed (×)",
                {"fermi-sim": [(i, speeds[n]) for i, n in enumerate(PAPER)],
                 "paper": [(i, v) for i, v in enumerate(PAPER.values())]})
    return [table, plot]
