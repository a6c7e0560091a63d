"""The contended counter on a GPU: every thread of 132 × 256 takes one lock and increments
one plain word, as many times as makes a launch last about 5 ms (docs/references.md: libcu++
binary_semaphore ≈ 0.84 M ops/s, raw atomicAdd ≈ 18 G).

syncc's kernels (bench/programs/counter.sync, one per mutex implementation) run at -O2, where
the compiler may elide the lock into an atomic, and at -O0, the lock as written, beside the
hand-written TAS, TTAS, ticket, libcu++ binary_semaphore and raw atomicAdd of
bench/baselines/locks.cu, all in one run. Every count is checked. Goal (issue 7): -O2 at least
20× binary_semaphore.
"""
from __future__ import annotations

import numpy as np

from .core import BenchError, Context, Table
from .gpu_common import baseline, best, cupy, fresh_lock, program, time_launches, timed

GRID, BLOCK = 132, 256
MAX_ITERS = 4096
BASELINES = ["binary_semaphore", "ticket", "ttas", "tas", "atomic_add"]
SYNCC = ["ticket", "ttas", "tas", "backoff", "mcs", "mcs2"]


def iterations(once: float) -> int:
    """Locks per thread so that a launch lasts about 5 ms (one, for a lock that takes longer with
    one): fast kernels would otherwise time the launch, not the counter."""
    return max(1, min(MAX_ITERS, int(5e-3 / max(once, 1e-6))))


def run(ctx: Context):
    cp = cupy()
    repeats = 2 if ctx.quick else 5
    threads = GRID * BLOCK
    module = baseline(ctx, "locks")
    state, count = cp.zeros(64, cp.int32), cp.zeros(1, cp.int32)
    rate: dict[str, float] = {}
    rounds: dict[str, int] = {}           # locks per thread in a timed launch
    for name in BASELINES:
        fn = module.get_function(f"counter_{name}")
        before = fresh_lock(module, name, state, count)

        def launch(s, n, fn=fn):
            fn((GRID,), (BLOCK,), (state, count, np.int32(n)), stream=s)
        n = iterations(best(time_launches(lambda s: launch(s, 1), 1, before)))
        t = time_launches(lambda s: launch(s, n), repeats, before)
        if int(count.get()[0]) != threads * n:
            raise BenchError(f"baseline counter_{name} counted {int(count.get()[0])}, not {threads * n}")
        rate[f"hand-written {name}"] = threads * n / best(t)
        rounds[f"hand-written {name}"] = n
        ctx.log(f"   counter: hand-written {name}: {rate[f'hand-written {name}'] / 1e6:,.2f} M ops/s ({n} each)")
    for opt in (2, 0):
        prog = program(ctx, "bench/programs/counter.sync", opt=opt)
        for name in SYNCC:
            kernel = f"counter_{name}"
            n = iterations(best(timed(prog, kernel, [np.zeros(1, np.int32), 1], (GRID, 1, 1), None, 1)))
            out = np.zeros(1, np.int32)
            t = timed(prog, kernel, [out, n], (GRID, 1, 1), None, repeats)
            expected = threads * n * (repeats + 1)   # the count adds up over the warm-up and timed launches
            if int(out[0]) != expected:
                raise BenchError(f"syncc {kernel} -O{opt} counted {int(out[0])}, not {expected}")
            rate[f"syncc {name} -O{opt}"] = threads * n / best(t)
            rounds[f"syncc {name} -O{opt}"] = n
            ctx.log(f"   counter: syncc {name} -O{opt}: {rate[f'syncc {name} -O{opt}'] / 1e6:,.2f} M ops/s ({n} each)")
    base = rate["hand-written binary_semaphore"]
    table = Table("gpu_counter", f"Contended counter, {GRID} × {BLOCK} threads each taking the lock `locks` "
                  "times (ratio to libcu++ binary_semaphore, same run)",
                  ["kernel", "locks", "M ops/s", "× binary_semaphore"])
    for name, r in sorted(rate.items(), key=lambda kv: -kv[1]):
        table.rows.append([name, rounds[name], r / 1e6, r / base])
    o2 = max(v for k, v in rate.items() if k.endswith("-O2"))
    o0 = max(v for k, v in rate.items() if k.endswith("-O0"))
    table.notes.append(f"goal: -O2 ≥ 20× binary_semaphore: best -O2 {o2 / base:.1f}× "
                       f"({'met' if o2 / base >= 20 else 'missed'}); best plain lock (-O0) {o0 / base:.2f}×")
    return [table]
