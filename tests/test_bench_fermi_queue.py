"""`syncc bench paper --only fermi_queue`: cycles per value through each queue implementation on
fermi-sim. The section checks every value was taken exactly once before it counts cycles; here the
table's shape, and the one trend that follows from what the implementations do (not from
timing): a `ring` operation is one atomic and one polled word, a `locked` one two semaphore
operations and a lock's acquire and release, so the ring takes fewer cycles per value at every
shape."""
from __future__ import annotations

from helpers import ROOT
from syncc.bench import fermi_queue
from syncc.bench.core import Context


def test_every_shape_and_implementation_is_measured_and_the_ring_is_cheaper(tmp_path):
    (table,) = fermi_queue.run(Context(ROOT, tmp_path, quick=True, log=lambda s: None))
    assert table.columns == ["shape", "values", "ring cycles/value", "locked cycles/value", "locked / ring"]
    assert [r[0] for r in table.rows] == list(fermi_queue.SHAPES)
    for shape, values, ring, locked, ratio in table.rows:
        assert values >= 512 and 0 < ring < locked, shape
        assert abs(ratio - locked / ring) < 1e-9
