"""`syncc bench paper --only fermi_queue`: cycles per value through each queue implementation on
fermi-sim. The section checks every value was taken exactly once before it counts cycles; here the
table's shape, and the one trend that follows from what the implementations do (not from
timing): a `ring` operation is one atomic and one polled word, a `locked` one two semaphore
operations and a lock's acquire and release, so the ring takes fewer cycles per value at every
shape. `spsc` and `tinylock` are measured only where one thread puts into and one takes from
each queue."""
from __future__ import annotations

from helpers import ROOT
from syncc.bench import fermi_queue
from syncc.bench.core import Context


def test_every_shape_and_implementation_is_measured_and_the_ring_is_cheaper(tmp_path):
    (table,) = fermi_queue.run(Context(ROOT, tmp_path, quick=True, log=lambda s: None))
    assert table.columns == ["shape", "values", "ring cycles/value", "locked cycles/value", "spsc cycles/value",
                             "tinylock cycles/value", "locked / ring", "ring / tinylock"]
    assert [r[0] for r in table.rows] == list(fermi_queue.SHAPES)
    for shape, values, ring, locked, spsc, tinylock, ratio, versus in table.rows:
        assert values >= 512 and 0 < ring < locked, shape
        assert abs(ratio - locked / ring) < 1e-9
        for impl, cycles in (("spsc", spsc), ("tinylock", tinylock)):
            assert (cycles > 0) == fermi_queue.measured(shape, impl), (shape, impl)    # NaN where not measured
        if fermi_queue.measured(shape, "tinylock"):
            assert abs(versus - ring / tinylock) < 1e-9
