"""The hazard checks run once per launch shape, and skip a launch that differs from a shape
already checked only in arguments no check can see (ir/checks/data_params.py). These tests pin
which parameters those are, and that skipping changes no finding and no remark anywhere."""
from __future__ import annotations

import pytest
from helpers import ROOT

from syncc.driver import compile_file
from syncc.ir.checks.data_params import data_only_params
from syncc.ir.passes import hazards

KERNEL = """kernel k(out: global i32[64], p: i32) launch grid(1) block(64) {{
    channel c[64]: i32 in shared @thread
    {body}
}}
host main {{
    let out = zeros(i32, 64)
    launch k(out, 7)
}}
"""


def params_seen(tmp_path, body: str) -> frozenset[int]:
    path = tmp_path / "k.sync"
    path.write_text(KERNEL.format(body=body))
    comp = compile_file(str(path), hazards=False)
    assert comp.ok, [d.message for d in comp.sink.items]
    return data_only_params(comp.ir.kernel("k"))


@pytest.mark.parametrize("body", [
    "out[tid] = p",
    "out[tid] = p * 2 + tid",
    "put c[tid] = p - 1\n    out[tid] = c[tid]",
    "let q = max(p, tid)\n    out[tid] = q",
])
def test_a_parameter_that_only_reaches_stored_values_is_data(tmp_path, body):
    assert params_seen(tmp_path, body) == {1}


@pytest.mark.parametrize("body", [
    "out[p] = 1",                                        # an index
    "out[(p + tid) % 64] = 1",                           # an index, through arithmetic
    "if p > 3 { out[tid] = 1 }",                         # a branch
    "for i in 0 .. p { out[tid] = i }",                  # a loop bound
    "let q = p < tid\n    if q { put c[tid] = 1 }\n    out[tid] = 0",  # a comparison, then a branch
    "put c[p % 64] = 1\n    out[tid] = 0",               # a channel slot
])
def test_a_parameter_a_check_can_see_is_not(tmp_path, body):
    assert params_seen(tmp_path, body) == set()


def findings(path: str, monkeypatch, skip: bool) -> tuple:
    if not skip:
        monkeypatch.setattr(hazards, "_same_findings", lambda *a: False)
    comp = compile_file(path, target="fermi-sim")
    out = ([(d.code, d.span, d.message, tuple(n.message for n in d.notes)) for d in comp.sink.items],
           # remarks as `syncc explain` shows them: each once (a shape checked again repeats its own)
           list(dict.fromkeys((r.kernel, r.topic, r.message, r.span) for r in (comp.context.remarks if comp.context else ()))))
    monkeypatch.undo()
    return out


PROGRAMS = sorted((ROOT / "tests" / "hazards").glob("*.sync")) + sorted((ROOT / "examples").glob("*.sync"))


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_skipping_a_launch_with_only_data_arguments_changes_nothing(path, monkeypatch):
    assert findings(str(path), monkeypatch, True) == findings(str(path), monkeypatch, False)


@pytest.mark.parametrize("grid, block", [((1, 1, 1), (32, 32, 1)), ((3, 2, 2), (5, 3, 2)), ((2, 1, 1), (65, 1, 1)),
                                         ((7, 5, 3), (33, 2, 1)), ((4096, 4, 1), (64, 2, 2))])
def test_thread_columns_follow_their_definitions(grid, block):
    """The rows' columns (built a block at a time, checks/space.py) are each row's indices; a
    launch too large to enumerate keeps a sample of whole blocks."""
    from syncc.ir.analysis.space import Shape, Threads
    t = Threads(Shape(grid, block))
    bx, by, _ = block
    gx, gy, _ = grid
    nt = bx * by * block[2]
    nwarps = -(-nt // 32)
    local = t.columns["tid"]
    which = t.columns["block"]
    assert local == list(range(nt)) * len(t.block_ids)
    assert which == [b for b in t.block_ids for _ in range(nt)]
    assert t.columns["tid.x"] == [x % bx for x in local]
    assert t.columns["tid.y"] == [(x // bx) % by for x in local]
    assert t.columns["tid.z"] == [x // (bx * by) for x in local]
    assert t.columns["laneid"] == [x % 32 for x in local]
    assert t.columns["warp"] == [x // 32 for x in local]
    assert t.columns["ctaid.x"] == [b % gx for b in which]
    assert t.columns["ctaid.y"] == [(b // gx) % gy for b in which]
    assert t.columns["ctaid.z"] == [b // (gx * gy) for b in which]
    assert t.columns["gwarp"] == [b * nwarps + x // 32 for b, x in zip(which, local)]
