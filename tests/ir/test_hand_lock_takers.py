"""E0710 and a hand-written lock that only one thread takes (issue 39: "refused although
correct"). A lock element that at most one thread of the launch takes has no other holder to see
the section's accesses out of order, so it owes no fence; an element two threads take does (E0710),
and where the analyses cannot tell who takes which element they keep asking for the fences."""
from __future__ import annotations

import pytest

from helpers import syncc as run_syncc

PROGRAM = """\
kernel k(lockword: global i32[LOCKS], sum: global i32[64], x: global i32[128]) launch grid(2) block(64) {
    if WHO {
        let e = INDEX
        while atomic_cas(lockword[e], 0, 1) != 0 { }
        sum[gtid % 64] += x[gtid]
        lockword[e] = 0
    }
}
"""

CASES = {
    # (who takes, which element, elements): accepted?
    "one_thread_of_the_launch": ("tid == 0 && bid == 0", "0", 1, True),
    "each_thread_its_own_element": ("true", "gtid", 128, True),
    "one_thread_a_block_own_element": ("tid == 0", "bid", 2, True),
    "one_thread_a_block_one_element": ("tid == 0", "0", 1, False),
    "two_blocks_an_element": ("true", "gtid % 64", 64, False),
    "element_from_data": ("tid == 0", "x[gtid] & 1", 2, False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_lock_one_thread_takes_owes_no_fence(tmp_path, case):
    who, index, locks, accepted = CASES[case]
    path = tmp_path / "k.sync"
    path.write_text(PROGRAM.replace("WHO", who).replace("INDEX", index).replace("LOCKS", str(locks)))
    for target in ("ptx", "fermi-sim"):
        r = run_syncc("check", str(path), "--target", target)
        if accepted:
            assert r.code == 0, (target, r.err)
        else:
            assert r.code == 1 and "error[E0710]" in r.err, (target, r.err)


def test_a_lock_indexed_in_its_loop_is_still_a_hand_written_lock(tmp_path):
    """The index written out in the spin loop's condition and again at the release (two registers,
    one computed in the loop) is the same lock: E0710 as for a `let` (it used to go unseen)."""
    path = tmp_path / "k.sync"
    path.write_text(PROGRAM.replace("let e = INDEX\n        ", "").replace("[e]", "[gtid % 64]")
                    .replace("WHO", "true").replace("LOCKS", "64"))
    r = run_syncc("check", str(path), "--target", "ptx")
    assert r.code == 1 and r.err.count("error[E0710]") == 2, r.err
