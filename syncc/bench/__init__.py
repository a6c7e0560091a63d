"""`syncc bench`: the benchmark suites, each a list of sections run in one process.

    syncc bench paper            # seed papers on the Fermi simulator (deterministic cycles)
    syncc bench gpu              # generated code beside hand-written baselines on a GPU

A section is a module of this package with `run(ctx) -> list[Table | Plot]`; SUITES lists
them in the order they run. Results go to a folder named by device and date (report.py):
a table on the terminal, one CSV per table and one PNG per plot.
"""
from __future__ import annotations

SUITES: dict[str, list[str]] = {
    "paper": ["figure4", "wavefront", "seed001", "seed003", "fermi_queue"],
    "gpu": ["gpu_barrier", "gpu_jacobi", "gpu_counter", "gpu_mutex", "gpu_semaphore", "gpu_nw", "gpu_queue", "gpu_reduction", "gpu_scan"],
}
