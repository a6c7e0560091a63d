"""Runs one compiled kernel under many seeded schedules, on both cores, and returns what each
run left in its arrays (for tests/ir/test_primitive_properties.py).

The program is compiled once, in this process; the worker processes are forked from it, so
they share the compiled program (and the simulator's compiled core, loaded here by the first
schedule) and only seeds and result arrays cross between processes.
"""
from __future__ import annotations

import gc
import multiprocessing
import os

import numpy as np

from syncc.backends.sim.machine import FermiConfig

_JOB: dict = {}          # what the forked workers run: set before the pool forks


def policies(count: int, first: int = 0) -> list[str]:
    """`count` schedules, alternately seeded adversarial (ranks and preemptions) and random."""
    return [f"{'adversarial' if i % 2 == 0 else 'random'}:{first + i // 2}" for i in range(count)]


def _run(policy: str):
    prog, kernel, make_args, config = _JOB["prog"], _JOB["kernel"], _JOB["args"], _JOB["config"]
    arrays = make_args()
    getattr(prog, kernel)(*arrays, sim_config=config.with_(policy=policy))
    return [a for a in arrays if isinstance(a, np.ndarray)]


def _free_cores() -> int:
    """The cores this process may fill: all of them, or its share when pytest-xdist runs a worker
    per core (a pool there only adds forks, about 4 s of the suite's CPU, and takes no core that
    another worker is not already using)."""
    cores = len(os.sched_getaffinity(0))
    return max(1, cores // int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))


def run_schedules(prog, kernel: str, make_args, count: int, config: FermiConfig | None = None,
                  first: int = 0) -> list[list[np.ndarray]]:
    """The arrays after each of `count` runs of `prog.kernel(*make_args())`, one run per policy of
    policies(count, first). A run that cannot finish raises syncc.RunError in the caller."""
    _JOB.update(prog=prog, kernel=kernel, args=make_args, config=config or FermiConfig(sms=4))
    names = policies(count, first)
    workers = min(_free_cores(), 4)
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [_run(p) for p in names]
    # The first schedule runs here, before the fork: it loads the simulator's compiled core
    # (numba's cache) into this process once, and the workers inherit it; else every worker of
    # every call loaded it again, about 0.6 s of CPU each.
    first_run = _run(names[0])
    # gc.freeze: a worker's inherited heap (the compiled programs, the test session) is never
    # garbage; the collector need not rescan it while each launch makes its own (about 20% of a
    # short kernel's CPU)
    with multiprocessing.get_context("fork").Pool(workers, initializer=gc.freeze) as pool:
        return [first_run] + pool.map(_run, names[1:], chunksize=max(1, count // (4 * workers)))
