"""emit/optimize.py: what folding, copy propagation, sharing and hoisting do to real kernels
(the SASS lines pinned), and that they keep what the kernels compute."""
from __future__ import annotations

import re

import numpy as np

import syncc
from helpers import ROOT


def sass_of(kernel: str, path: str = "examples/chain.sync") -> list[str]:
    text = syncc.compile(str(ROOT / path), target="fermi-sim").fermi_sass()
    body = text.split(f".kernel {kernel}\n", 1)[1].split("\n.kernel ", 1)[0]
    return [m.group(1).strip() for m in re.finditer(r"/\*[0-9a-f]{4}\*/\s+(.*);", body)]


def loop_of(lines: list[str], opcode: str) -> list[str]:
    """The instructions from the first `opcode` to the backward branch that returns to it."""
    start = next(i for i, line in enumerate(lines) if opcode in line)
    for j in range(start, len(lines)):
        m = re.search(r"BRA(\.U)? 0x([0-9a-f]+)$", lines[j])
        if m and int(m.group(2), 16) <= 8 * start:
            return lines[int(m.group(2), 16) // 8: j + 1]
    raise AssertionError(f"no loop around {opcode}")


def test_the_warp_vote_spin_is_listing9s_three_instructions():
    assert [line.split()[0] for line in loop_of(sass_of("warp_vote"), "LDSLK P1")] == \
        ["LDSLK", "VOTE.ANY", "@!P0"]


def test_the_tiny_lock_spin_loads_its_address_before_the_loop():
    loop = loop_of(sass_of("tiny_lock"), "LDSLK P0")
    assert not any(line.startswith(("SHL", "ISCADD", "IADD")) for line in loop), loop


def test_thread_index_over_32_is_one_unsigned_shift():
    lines = sass_of("warp_vote")
    assert any(re.fullmatch(r"SHR\.U32 R\d+, R\d+, 0x5", x) for x in lines[:3])
    # the same quotient in `put` is not computed again: one SR_Tid_X read, one shift of it by 5
    assert sum(1 for x in lines if "SR_Tid_X" in x) == 1
    assert sum(1 for x in lines if re.fullmatch(r"SHR(\.U32)? R\d+, R\d+, 0x5", x)) == 2   # tid/32, (tid-32)/32


def test_elect_reads_the_lanes_below():
    # combine_warps elects the lowest active lane of the lanes that reached a @thread section
    lines = sass_of("k", "tests/golden/ir/combine_warps/one_lock_per_warp.sync")
    assert any("SR_LanemaskLt" in x for x in lines)
    assert not any(x.startswith("SHL") and ", 0x1" in x for x in lines)


def test_a_warp_party_is_led_by_lane_0_without_a_vote():
    # a @warp primitive's party is the whole warp: lane 0 leads, no VOTE builds a mask for it
    lines = sass_of("warp_vote")
    put = lines[next(i for i, x in enumerate(lines) if x.startswith("STS ")):]
    assert not any(x.startswith("VOTE") for x in put), put
    assert any(re.fullmatch(r"ISETP\.EQ\.AND P\d, pt, R\d+, RZ, pt", x) for x in put), put


def test_optimized_kernels_still_compute_listing10():
    prog = syncc.compile(str(ROOT / "examples" / "chain.sync"), target="fermi-sim")
    ref = [0] * 512
    for t in range(512):
        ref[t] = (t if t < 32 else ref[t - 32]) + t
    for name in prog.kernels:
        out = np.zeros(512, np.int32)
        getattr(prog, name)(np.arange(32, dtype=np.int32), out)
        assert out.tolist() == ref, name


def test_a_register_assigned_twice_is_left_alone(tmp_path):
    path = tmp_path / "twice.sync"
    path.write_text("""kernel twice(out: global i32[64]) launch grid(1) block(64) {
    var x = tid
    if tid % 2 == 0 { x = x * 3 }
    let y = x
    out[tid] = y + x
}
""")
    prog = syncc.compile(str(path), target="fermi-sim")
    out = np.zeros(64, np.int32)
    prog.twice(out)
    assert out.tolist() == [2 * (t * 3 if t % 2 == 0 else t) for t in range(64)]
