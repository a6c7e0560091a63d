"""E0726 in launches of many blocks: an access every block makes alike is judged on the first
block's threads (analysis/space.py `same_in_every_block`), one whose index or guard reaches a
block index on the whole launch (its sampled blocks past 2^17 threads), and an index from data
whatever the launch is left to the run-time check without listing its instances."""
from __future__ import annotations

import pytest

from helpers import syncc as run_syncc

HEADER = "kernel k(a: global i32[4096], d: global i32[64]) launch grid(GRID) block(64) {\n"
HOST = "}\nhost {\n    let a = zeros(i32, 4096)\n    let d = zeros(i32, 64)\n    launch k(a, d)\n}\n"

CASES = {
    # the same in every block: the first block's threads find it
    "shared_rows": ("    shared buf: i32[64]\n    for r in 0 .. 2 { buf[r * 32 + tid] = r }\n",
                    "thread 32 of block 0 (with r = 1) uses element 64 of the shared array `buf`"),
    # an index from the block index: the launch's blocks
    "block_index": ("    a[bid * 64 + tid] = 1\n", "uses element 4096 of the array `a`"),
    # a guard on the block index: only the last block runs it
    "last_block_guard": ("    shared buf: i32[64]\n    if bid == GRID - 1 { buf[tid + 1] = 1 }\n",
                         "thread 63 of block LAST uses element 64 of the shared array `buf`"),
}


@pytest.mark.parametrize("grid", [4, 4096])
@pytest.mark.parametrize("case", sorted(CASES))
def test_an_index_past_the_end_is_found_at_any_grid(tmp_path, case, grid):
    body, expected = CASES[case]
    if case == "block_index" and grid == 4:
        pytest.skip("four blocks stay inside `a`")
    path = tmp_path / "k.sync"
    path.write_text((HEADER + body + HOST).replace("GRID", str(grid)))
    r = run_syncc("check", str(path), "--target", "ptx")
    assert r.code == 1, r.err
    assert "error[E0726]" in r.err and expected.replace("LAST", str(grid - 1)) in r.err, r.err


def test_an_index_from_data_is_left_to_the_run_time_check(tmp_path):
    path = tmp_path / "k.sync"
    path.write_text((HEADER + "    let i = d[tid]\n    a[i] = 1\n" + HOST).replace("GRID", "4096"))
    r = run_syncc("check", str(path), "--target", "ptx")
    assert r.code == 0, r.err
    r = run_syncc("explain", str(path), "--target", "ptx")
    assert "bounds" in r.out.lower(), r.out
