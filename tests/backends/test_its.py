"""Independent thread scheduling on the simulator (`--its`) against what an H100 does.

The references are runs on an NVIDIA H100 (2026-11-24): bench/its's programs say in their first
line whether they finished there, and bench/experiments/README.md records that nested ticket
locks finish while a `__syncwarp` closing both polling loops hangs. The SASS tests pin each rule
of the model (docs/fermi.md, "Independent thread scheduling"): a convergence barrier does not
wait for a lane that yields or sleeps, and waits for one that spins without yielding; a
WARPSYNC meets only lanes waiting with the same mask."""
from __future__ import annotations

import re

import pytest
from helpers import ROOT, syncc
from simkit import simulate

from syncc.backends.fermi.emit import build_fermi_sass
from syncc.backends.sim.machine import FermiConfig
from syncc.driver import compile_file

ITS_PROGRAMS = sorted((ROOT / "bench" / "its").glob("*.sync"))
H100 = re.compile(r"^// H100 \([\d-]+\): (finishes|cannot finish)$", re.MULTILINE)


@pytest.mark.parametrize("path", ITS_PROGRAMS, ids=lambda p: p.stem)
def test_a_warp_split_spin_ends_as_it_did_on_an_h100(path):
    (expected,) = H100.findall(path.read_text())
    r = syncc("run", str(path.relative_to(ROOT)), "--its", "--unsafe-skip-hazard-checks", "--max-cycles", "3000000")
    assert r.code == (0 if expected == "finishes" else 3), r.err[-2000:]


# One warp. Lane 0 spins on flag[0] inside a convergence region; lanes 1-31 wait at its BSYNC,
# and lane 1 sets the flag only after it: the spin ends only if the barrier lets lanes 1-31 go.
SPIN_IN_REGION = """
.kernel spin_in_region
.launch grid(1) block(32)
.its
.shared flag: i32[1] at 0x0 = [0]
.shared done: i32[1] at 0x4 = [0]
        S2R R0, SR_LaneId;
        ISETP.EQ.AND P0, pt, R0, RZ, pt;
        BSSY B0, join;
  @!P0  BRA join;
spin:
        {WAIT}
        LDS R1, [0x0];
        ISETP.EQ.AND P1, pt, R1, RZ, pt;
  @P1   BRA spin;
join:
        BSYNC B0;
        ISETP.EQ.AND P2, pt, R0, 0x1, pt;
        MOV R2, 0x1;
  @P2   STS [0x0], R2;
        EXIT;
"""


@pytest.mark.parametrize("wait", ["YIELD;", "NANOSLEEP 0x40;"])
def test_a_convergence_barrier_does_not_wait_for_a_lane_that_yields(wait):
    r = simulate(SPIN_IN_REGION.replace("{WAIT}", wait), FermiConfig(its=True))
    assert r.status == "finished"
    assert r.shared("flag").tolist() == [1]


def test_a_convergence_barrier_waits_for_a_lane_that_spins_without_yielding():
    r = simulate(SPIN_IN_REGION.replace("{WAIT}", "NOP;"), FermiConfig(its=True, max_cycles=200_000))
    assert r.status == "livelock" and r.shared("flag").tolist() == [0]


MEETINGS = """
.kernel meetings
.launch grid(1) block(32)
.its
.shared seen: i32[32] at 0x0
        S2R R0, SR_LaneId;
        ISETP.LT.AND P0, pt, R0, 0x10, pt;
        MOV32I R1, {LOW};
        MOV32I R2, 0xffffffff;
  @P0   BRA low;
        WARPSYNC R2;
        BRA out;
low:
        WARPSYNC R1;
out:
        SHL R3, R0, 0x2;
        MOV R4, 0x1;
        STS [R3], R4;
        EXIT;
"""


def test_a_warpsync_meets_the_lanes_waiting_with_the_same_mask():
    # lanes 0-15 meet among themselves (mask 0xffff); lanes 16-31 need all 32 lanes at a
    # WARPSYNC of mask 0xffffffff, and lanes 0-15 have gone on and exited: exited lanes count
    r = simulate(MEETINGS.replace("{LOW}", "0xffff"), FermiConfig(its=True))
    assert r.status == "finished" and r.shared("seen").tolist() == [1] * 32


def test_lanes_waiting_with_another_mask_do_not_complete_a_meeting():
    # lanes 0-15 wait for all 32 lanes with a mask of 0xfffffffe, lanes 16-31 with 0xffffffff:
    # neither meeting completes, though every lane waits at a WARPSYNC
    r = simulate(MEETINGS.replace("{LOW}", "0xfffffffe"), FermiConfig(its=True, max_cycles=100_000))
    assert r.kind == "deadlock" and r.shared("seen").tolist() == [0] * 32


def _its_sass(source: str, tmp_path) -> str:
    path = tmp_path / "k.sync"
    path.write_text(source)
    comp = compile_file(str(path), None, "fermi-sim", its=True)
    assert comp.ok, [str(d) for d in comp.diagnostics]
    return "\n".join(str(i) for i in build_fermi_sass(comp.ir, its=True).kernels[0].instrs)


def test_polling_loops_yield_and_compute_loops_do_not(tmp_path):
    sass = _its_sass("""
kernel k(flag: global i32[32], data: global i32[32], out: global i32[32]) launch grid(1) block(32) {
    var s = 0
    for i in 0 .. data[tid] { s += data[i] }
    while load_cg(flag[tid]) == 0 { nanosleep(100) }
    out[tid] = s
}
""", tmp_path)
    assert "NANOSLEEP" in sass and "BRA.U" not in sass
    # each yield opens a polling loop: the program's, and the wait of the run-time bounds check of
    # `data[i]` (i runs to a bound read from data) on its fault record; the compute loop has none
    lines = sass.splitlines()
    heads = [n for n, line in enumerate(lines) if "YIELD" in line]
    assert len(heads) == 2 and all("LD.CG" in "\n".join(lines[n:n + 4]) for n in heads)


def test_a_vote_of_a_whole_warp_party_meets_first(tmp_path):
    sass = _its_sass("""
kernel k(hits: global i32[4]) launch grid(1) block(128) {
    mutex m in shared @warp using tas
    var done = false
    while !done {
        if trylock m {
            if lane == 0 { hits[warp] += 1 }
            unlock m
            done = true
        }
    }
}
""", tmp_path)
    lines = sass.splitlines()
    votes = [n for n, line in enumerate(lines) if "VOTE.ANY RZ" in line]
    assert votes and all("WARPSYNC" in lines[n - 1] for n in votes)


# Two warps meet at a block barrier. Warp 0 comes in two splits (lane 0 sleeps first), warp 1
# last; after the barrier every thread records its id. Both splits of warp 0 are released at
# the same address and must run on together: a lane left out of the warp's active lanes would
# skip the store.
BARRIER_SPLITS = """
.kernel barrier_splits
.launch grid(1) block(64)
.its
.shared seen: i32[64] at 0x0
        S2R R0, SR_Tid_X;
        ISETP.EQ.AND P0, pt, R0, RZ, pt;
        ISETP.GE.AND P1, pt, R0, 0x20, pt;
  @P0   NANOSLEEP {FIRST};
  @P1   NANOSLEEP {SECOND};
        BAR.RED.POPC RZ, RZ;
        IADD R2, R0, 0x1;
        SHL R1, R0, 0x2;
        STS [R1], R2;
        EXIT;
"""


@pytest.mark.parametrize("first,second", [("0x100", "0x400"), ("0x400", "0x100"), ("0x100", "0x100")])
def test_every_lane_released_by_a_block_barrier_runs_on(first, second):
    r = simulate(BARRIER_SPLITS.replace("{FIRST}", first).replace("{SECOND}", second), FermiConfig(its=True))
    assert r.status == "finished"
    assert r.shared("seen").tolist() == list(range(1, 65))


# Generated programs of the oracle's seed-1 batch (tests/oracle) that an H100 finished with correct
# results (2026-11-24) and the --its simulator once did not: splits of one warp released by a
# block barrier at the same address (named barriers, grid barriers, a latch, a block semaphore).
H100_FINISHED = [117, 119, 137, 143, 148, 169, 175, 188, 191, 20, 114, 145]


@pytest.mark.parametrize("index", H100_FINISHED)
def test_generated_programs_the_h100_finished_finish_under_its(index, tmp_path):
    from oracle.generate import program_seed, program_text
    path = tmp_path / f"gen_1_{index:04d}.sync"
    path.write_text(program_text(program_seed(1, index)))
    for policy in ("lrr", "adversarial:1"):
        r = syncc("run", str(path), "--its", "--policy", policy, "--max-cycles", "20000000")
        assert r.code == 0, (policy, r.err[-1500:])


@pytest.mark.parametrize("policy", ["adversarial:1", "adversarial:2"])
def test_the_grid_barriers_of_primitives_finish_under_its(policy):
    # barrier_xf once lost a lane's load after the block barrier that opens the barrier: the lane
    # then gathered with the wrong round and the blocks waited for each other for ever
    r = syncc("run", "examples/primitives.sync", "--its", "--policy", policy, "-D", "BLOCKS=4", "-D", "ITERS=3")
    assert r.code == 0, r.err[-1500:]
