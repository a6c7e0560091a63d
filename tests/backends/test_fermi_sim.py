"""The simulator's semantics, one behaviour per test, on hand-written SASS (docs/fermi.md).

Each program's expected result is computed here in Python, from what the program
means, not from a run: the SIMT stack's order (fall-through lanes first), the lock
unit (lowest lane wins, bits 1024 words apart alias), barriers, atomics, ITS
scheduling, and the verdicts for programs that cannot finish.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from helpers import syncc as run_syncc
from simkit import simulate
from syncc.backends.sim.machine import FermiConfig
from syncc.backends.sim.trace import TraceRecorder

PARAMS = """        MOV R20, c [0x0] [0x20];
        MOV R21, c [0x0] [0x24];
        MOV R22, c [0x0] [0x28];
        S2R R0, SR_Tid_X;
"""


def test_listing1_atomic_add_counts_every_thread():
    run = simulate("""
.kernel atomic_add
.launch grid(1) block(64)
.shared word: i32[1] at 0x0 = zeros
        MOV R0, RZ;
        SSY done;
again:  LDSLK P0, R1, [R0];
   @P0  IADD R4, R1, 0x1;
   @P0  STSUL [R0], R4;
  @!P0  BRA again;
        NOP.S;
done:   EXIT;
""")
    assert run.status == "finished"
    assert run.shared("word")[0] == 64


def test_divergent_branch_runs_the_fall_through_lanes_first_and_reconverges():
    run = simulate(""".kernel ifelse
.launch grid(1) block(32)
.param out: global i32[32] = zeros
.param order: global i32[32] = zeros
.param ticket: global i32[1] = zeros
""" + PARAMS + """
        ISCADD R1, R0, R20, 0x2;
        ISCADD R2, R0, R21, 0x2;
        MOV32I R6, 0x1;
        LOP.AND R4, R0, 0x1;
        ISETP.EQ.AND P0, pt, R4, RZ, pt;
        SSY join;
  @P0   BRA even;
        IMUL R5, R0, 0x3;
        ATOM.ADD R7, [R22], R6;
        ST [R2], R7;
        ST [R1], R5;
        NOP.S;
even:   SHL R5, R0, 0x1;
        ATOM.ADD R7, [R22], R6;
        ST [R2], R7;
        ST [R1], R5;
        NOP.S;
join:   VOTE.ALL R8, P1, pt;
        ISCADD R9, R0, R22, 0x2;
        EXIT;
""")
    assert run.status == "finished"
    tid = np.arange(32)
    assert (run.arrays["out"] == np.where(tid % 2 == 0, 2 * tid, 3 * tid)).all()
    # odd lanes fall through and take tickets 0..15 in lane order; even lanes jump and come after
    assert (run.arrays["order"] == np.where(tid % 2 == 1, tid // 2, 16 + tid // 2)).all()


def test_break_leaves_a_loop_and_every_lane_meets_at_the_break_target():
    run = simulate(""".kernel brk
.launch grid(1) block(32)
.param count: global i32[32] = zeros
.param ballot: global u32[32] = zeros
""" + PARAMS + """
        MOV R1, RZ;
        PBK done;
loop:   ISETP.GE.AND P0, pt, R1, R0, pt;
   @P0  BRK;
        IADD R1, R1, 0x1;
        BRA loop;
done:   VOTE.ALL R2, P1, pt;
        ISCADD R3, R0, R20, 0x2;
        ST [R3], R1;
        ISCADD R3, R0, R21, 0x2;
        ST [R3], R2;
        EXIT;
""")
    assert run.status == "finished"
    assert (run.arrays["count"] == np.arange(32)).all()
    assert (run.arrays["ballot"] == 0xFFFFFFFF).all()


def test_exited_lanes_leave_the_stack_and_the_rest_reconverge():
    run = simulate(""".kernel early
.launch grid(1) block(32)
.param ballot: global u32[32] = zeros
""" + PARAMS + """
        ISETP.LT.U32.AND P0, pt, R0, 0x10, pt;
        SSY join;
  @!P0  BRA late;
        EXIT;
late:   NOP.S;
join:   VOTE.ANY R2, P1, pt;
        ISCADD R3, R0, R20, 0x2;
        ST [R3], R2;
        EXIT;
""")
    assert run.status == "finished"
    assert (run.arrays["ballot"][:16] == 0).all()
    assert (run.arrays["ballot"][16:] == 0xFFFF0000).all()


LISTING2 = """.kernel intra_warp
.launch grid(1) block({threads})
.shared mutex: i32[1] at 0x0 = zeros
.shared count: i32[1] at 0x4 = zeros
        MOV R0, RZ;
        MOV32I R6, 0x4;
        SSY after;
retry:  SSY conv;
cas:    LDSLK P0, R2, [R0];
   @P0  ISETP.EQ.U32.AND P1, pt, R2, RZ, pt;
   @P0  SEL R3, R2, 0x1, !P1;
   @P0  STSUL [R0], R3;
  @!P0  BRA cas;
        ISETP.EQ.AND.S P2, pt, R2, RZ, pt;
conv:
  @!P2  BRA retry;
        NOP.S;
after:  LDS R5, [R6];
        IADD R5, R5, 0x1;
        STS [R6], R5;
unlock: LDSLK P0, RZ, [R0];
   @P0  STSUL [R0], RZ;
  @!P0  BRA unlock;
        EXIT;
"""


def test_listing2_spin_lock_in_one_warp_is_a_simt_deadlock():
    run = simulate(LISTING2.format(threads=32))
    assert run.status == "livelock"
    assert run.kind == "simt-deadlock"
    finding = run.outcome.diagnosis.primary
    assert "lanes 1-31" in finding.message and "lane 0 of the same warp" in finding.message
    assert "reconvergence point 0x0060" in finding.message


def test_the_same_lock_works_for_one_thread_per_warp():
    run = simulate(LISTING2.format(threads=1))
    assert run.status == "finished"
    assert run.shared("count")[0] == 1


def test_a_thread_waiting_for_a_bit_it_holds_through_an_aliasing_word_is_an_alias_deadlock():
    text = """.kernel self_alias
.launch grid(1) block(1)
.shared_bytes 0x2000
        LDSLK P0, RZ, [0x0];
wait:   LDSLK P1, RZ, [0x{far:x}];
  @!P1  BRA wait;
        EXIT;
"""
    run = simulate(text.format(far=4096))          # word 1024: the same bit as word 0
    assert run.kind == "alias-deadlock"
    assert "itself holds that bit" in run.outcome.diagnosis.primary.message
    assert simulate(text.format(far=4100)).status == "finished"       # word 1025: another bit
    small = simulate(text.format(far=1024), FermiConfig(lock_bits=256))   # 256 bits: word 256 aliases
    assert small.kind == "alias-deadlock"
    assert simulate(text.format(far=1024)).status == "finished"


def test_an_aliased_bit_held_across_the_block_barrier_deadlocks():
    # seed 000 §4.4.2: warp 0 takes word 0 before the barrier; warp 1 must take word 1024
    # (the same bit) before it can reach the barrier, where warp 0 waits for it
    run = simulate(""".kernel alias_barrier
.launch grid(1) block(64)
.shared_bytes 0x2000
        S2R R0, SR_Tid_X;
        ISETP.NE.AND P0, pt, R0, RZ, pt;
        ISETP.NE.AND P2, pt, R0, 0x20, pt;
  @!P0  LDSLK P1, RZ, [0x0];
        SSY ready;
  @P2   BRA skip;
take:   LDSLK P1, RZ, [0x1000];
  @!P1  BRA take;
skip:   NOP.S;
ready:  BAR.RED.POPC RZ, RZ;
        EXIT;
""")
    assert run.kind == "alias-deadlock"
    message = run.outcome.diagnosis.primary.message
    assert "warp 1" in message and "warp 0 lane 0" in message and "waits at a barrier" in message


def test_a_named_barrier_that_counts_an_exited_warp_is_a_barrier_deadlock():
    run = simulate(""".kernel bar_dead
.launch grid(1) block(64)
        S2R R0, SR_Tid_X;
        ISETP.GE.U32.AND P0, pt, R0, 0x20, pt;
  @P0   EXIT;
        BAR.SYNC 0x1, 0x40;
        EXIT;
""")
    assert run.status == "deadlock"
    assert run.kind == "barrier-deadlock"
    assert "barrier 1 for 64 threads, but only 32 have arrived" in run.outcome.diagnosis.primary.message


def test_named_barriers_chain_warps_like_listing12():
    run = simulate(""".kernel warp_barr
.launch grid(1) block(128)
.param out: global i32[128] = zeros
.shared a: i32[160] at 0x0 = zeros
""" + PARAMS + """
        SHR.U32 R1, R0, 0x5;
        ISCADD R2, R0, RZ, 0x2;
        ISETP.EQ.AND P0, pt, R1, RZ, pt;
  @!P0  IADD R3, R1, -0x1;
  @!P0  BAR.SYNC R3, 0x40;
        LDS R4, [R2];
        IADD R4, R4, R0;
        STS [R2+0x80], R4;
        BAR.ARV R1, 0x40;
        ISCADD R5, R0, R20, 0x2;
        ST [R5], R4;
        EXIT;
""")
    assert run.status == "finished"
    ref = np.zeros(160, dtype=np.int64)
    for t in range(128):
        ref[t + 32] = ref[t] + t
    assert (run.arrays["out"] == ref[32:160]).all()


def test_global_atomics_from_many_blocks():
    run = simulate(""".kernel atoms
.launch grid(8) block(64)
.param sum: global i32[1] = zeros
.param top: global i32[1] = fill(-1000)
.param low: global u32[1] = fill(4000000000)
""" + PARAMS + """
        S2R R1, SR_CTAid_X;
        ISCADD R2, R1, R0, 0x6;
        MOV32I R3, 0x1;
        ATOM.ADD R4, [R20], R3;
        IADD R5, R2, -0x100;
        ATOM.MAX.S32 R4, [R21], R5;
        RED.MIN.U32 [R22], R2;
        EXIT;
""")
    assert run.status == "finished"
    assert run.arrays["sum"][0] == 512
    assert run.arrays["top"][0] == 511 - 256
    assert run.arrays["low"][0] == 0


def test_a_cas_lock_between_blocks_serializes_a_global_counter():
    run = simulate(""".kernel blocks_lock
.launch grid(6) block(32)
.param lock: global i32[1] = zeros
.param count: global i32[1] = zeros
""" + PARAMS + """
        ISETP.NE.AND P0, pt, R0, RZ, pt;
  @P0   EXIT;
        MOV32I R3, 0x1;
spin:   ATOM.CAS R4, [R20], RZ, R3;
        ISETP.NE.AND P1, pt, R4, RZ, pt;
  @P1   BRA spin;
        MEMBAR.GL;
        LD.CG R5, [R21];
        IADD R5, R5, 0x1;
        ST [R21], R5;
        MEMBAR.GL;
        ATOM.EXCH RZ, [R20], RZ;
        EXIT;
""")
    assert run.status == "finished"
    assert run.arrays["count"][0] == 6
    assert run.arrays["lock"][0] == 0


def test_vote_gives_the_ballot_of_the_active_lanes():
    run = simulate(""".kernel votes
.launch grid(1) block(32)
.param ballot: global u32[32] = zeros
.param flags: global i32[32] = zeros
""" + PARAMS + """
        LOP.AND R1, R0, 0x1;
        ISETP.NE.AND P0, pt, R1, RZ, pt;
        VOTE.ANY R2, P1, P0;
        VOTE.ALL RZ, P2, P0;
        SEL R3, RZ, 0x1, !P1;
        SEL R4, RZ, 0x2, !P2;
        LOP.OR R3, R3, R4;
        ISCADD R5, R0, R20, 0x2;
        ST [R5], R2;
        ISCADD R5, R0, R21, 0x2;
        ST [R5], R3;
        EXIT;
""")
    assert (run.arrays["ballot"] == 0xAAAAAAAA).all()
    assert (run.arrays["flags"] == 1).all()      # ANY is true (R3 = 1), ALL is false (R4 = 0)


ITS = """.kernel livelock
.launch grid(1) block(4)
.its
.param flag: global i32[4] = [1, 0, 0, 0]
""" + PARAMS + """
        ISCADD R2, R0, R20, 0x2;
loop:   LD.CV R3, [R2];
        ISETP.NE.AND P0, pt, R3, RZ, pt;
  @P0   BRA out;
{sync}
        BRA loop;
out:    ISETP.LT.U32.AND P1, pt, R0, 0x3, pt;
        MOV32I R4, 0x1;
  @P1   ST [R2+0x4], R4;
{sync}
        EXIT;
"""


def test_its_spinning_split_starves_its_own_warp_as_seed003_listing_3_3():
    run = simulate(ITS.format(sync=""), FermiConfig(its=True))
    assert run.status == "livelock"
    assert run.kind == "livelock"
    assert "never scheduled" in run.outcome.diagnosis.primary.message


def test_its_warpsync_on_the_spin_path_lets_the_other_split_run_as_listing_3_6():
    run = simulate(ITS.format(sync="        WARPSYNC 0xffffffff;"), FermiConfig(its=True))
    assert run.status == "finished"
    assert (run.arrays["flag"] == 1).all()


def test_out_of_bounds_shared_access_is_a_located_fault():
    run = simulate(""".kernel oob
.launch grid(1) block(32)
.shared a: i32[32] at 0x0
        S2R R0, SR_Tid_X;
        ISCADD R1, R0, RZ, 0x3;
        LDS R2, [R1];
        EXIT;
""")
    assert run.status == "fault"
    assert run.outcome.fault.kind == "memory"
    assert "past the block's 128 bytes of shared memory" in run.outcome.fault.message
    assert run.outcome.fault.pc == 0x10


def test_a_uniform_branch_that_splits_the_warp_is_an_error():
    run = simulate(""".kernel bad_uniform
.launch grid(1) block(32)
        S2R R0, SR_Tid_X;
        ISETP.LT.U32.AND P0, pt, R0, 0x4, pt;
  @P0   BRA.U next;
next:   EXIT;
""")
    assert run.status == "fault"
    assert "BRA.U" in run.outcome.fault.message and "disagree" in run.outcome.fault.message


def test_running_past_the_last_instruction_is_an_error():
    run = simulate(""".kernel off_the_end
.launch grid(1) block(32)
        MOV R0, RZ;
""")
    assert run.status == "fault" and "ran off the end" in run.outcome.fault.message


CHAIN = """.kernel chain
.launch grid(1) block(512)
.param init: global i32[32] = range
.param out: global i32[512] = zeros
.shared a: i32[512] at 0x0
""" + PARAMS + """
        SHR.U32 R3, R0, 0x5;
        SHL R4, R0, 0x2;
        LDSLK P0, RZ, [R4];
        LOP.AND R6, R0, 0x1f;
        ISCADD R6, R6, R20, 0x2;
        LD R1, [R6];
        BAR.RED.POPC RZ, RZ;
        ISETP.EQ.AND P0, pt, R3, RZ, pt;
  @P0   BRA.U fire;
wait:   LDSLK P1, R1, [R4+-0x80];
  @!P1  BRA wait;
fire:   IADD R2, R1, R0;
        STSUL [R4], R2;
  @!P0  STSUL [R4+-0x80], R1;
        ISCADD R7, R0, R21, 0x2;
        ST [R7], R2;
        EXIT;
"""


def _chain_reference():
    ref = np.zeros(512, dtype=np.int64)
    for i in range(512):
        ref[i] = (i if i < 32 else ref[i - 32]) + i
    return ref


@pytest.mark.parametrize("policy", ["lrr", "gto", "adversarial", "random:7"])
def test_listing13_chain_is_right_and_repeatable_under_every_policy(policy):
    first = simulate(CHAIN, FermiConfig(policy=policy))
    second = simulate(CHAIN, FermiConfig(policy=policy))
    assert first.status == "finished"
    assert (first.arrays["out"] == _chain_reference()).all()
    assert (first.outcome.cycles, first.outcome.warp_instructions) == \
        (second.outcome.cycles, second.outcome.warp_instructions)


def test_a_run_that_never_repeats_stops_at_the_cycle_budget():
    run = simulate(""".kernel forever
.launch grid(1) block(32)
loop:   S2R R0, SR_ClockLo;
        BRA loop;
""", FermiConfig(max_cycles=20_000))
    assert run.status == "budget"
    assert run.kind == "budget"


def test_blocks_beyond_what_fits_wait_for_room_on_an_sm():
    run = simulate(""".kernel many
.launch grid(100) block(256)
.param out: global i32[25600] = zeros
""" + PARAMS + """
        S2R R1, SR_CTAid_X;
        ISCADD R2, R1, R0, 0x8;
        ISCADD R3, R2, R20, 0x2;
        ST [R3], R1;
        EXIT;
""")
    assert run.status == "finished"
    assert (run.arrays["out"] == np.repeat(np.arange(100), 256)).all()
    sms = {sm for _, sm, _, _ in run.outcome.stats.blocks}
    assert sms == set(range(15))
    # an SM holds min(8 blocks, 1536 threads, 48 warps, 32768 registers) worth of these blocks
    per_sm = min(8, 1536 // 256, 48 // 8, 32768 // (run.kernel.registers * 256))
    starts = sorted(start for _, _, start, _ in run.outcome.stats.blocks)
    assert per_sm < 100 / 15
    assert starts[15 * per_sm - 1] == 0 and starts[15 * per_sm] > 0


def test_local_memory_holds_a_value_per_thread():
    run = simulate(""".kernel spill
.launch grid(1) block(32)
.local_bytes 0x8
.param out: global i32[32] = zeros
""" + PARAMS + """
        IMUL R1, R0, 0x7;
        STL [0x4], R1;
        MOV R1, RZ;
        LDL R2, [0x4];
        ISCADD R3, R0, R20, 0x2;
        ST [R3], R2;
        EXIT;
""")
    assert (run.arrays["out"] == 7 * np.arange(32)).all()


def test_the_trace_has_a_track_per_warp_and_barrier_spans(tmp_path):
    recorder = TraceRecorder()
    run = simulate(CHAIN, observer=recorder)
    assert run.status == "finished"
    path = tmp_path / "chain.json"
    recorder.write(str(path))
    events = json.loads(path.read_text())["traceEvents"]
    names = {e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    assert len(names) == 16 and "chain block (0, 0, 0) warp 15" in names
    spans = [e for e in events if e.get("ph") == "X"]
    assert sum(1 for e in spans if e["name"] == "barrier 0") == 16
    assert sum(1 for e in spans if e["name"] == "warp") == 16
    # each warp holds its slots' bits from the start; warps 1-15 spin for their predecessor's,
    # and get them in chain order
    holds = [e for e in spans if e["name"] == "holds lock bits"]
    assert len(holds) == 16
    waits = {e["tid"] % 1000: e for e in spans if e["name"] == "waits for a lock bit"}
    assert set(range(2, 16)) <= set(waits) and 0 not in waits
    ends = [waits[w]["ts"] + waits[w]["dur"] for w in range(2, 16)]
    assert ends == sorted(ends) and len(set(ends)) == len(ends)
    assert all(waits[w]["args"]["instruction"] == "LDSLK P1, R1, [R4+-0x80];" for w in range(2, 16))


def test_progress_shows_cycles_and_instructions_then_erases_itself():
    import io

    from syncc.backends.sim.trace import Progress
    stream = io.StringIO()
    progress = Progress(stream, every=0.0)
    run = simulate(CHAIN, FermiConfig(check_every=64), observer=progress)
    assert run.status == "finished"
    text = stream.getvalue()
    assert "fermi-sim: chain: cycle" in text and "warp-instructions" in text
    progress.done()
    assert stream.getvalue().endswith("\r" + " " * 78 + "\r")


def test_seeded_adversarial_policy_is_validated():
    assert FermiConfig(policy="adversarial:12").check() is None
    assert FermiConfig(policy="random:-3").check() is None
    for bad in ("adversarial:", "adversarial:1.5", "adversarial-1", "pct:4"):
        assert "unknown scheduling policy" in FermiConfig(policy=bad).check()


def test_global_allocations_are_packed_with_a_gap_whatever_the_capacity():
    """Each allocation starts at the next ALIGN boundary past the end of the one before and a gap
    (so a word past an array's end faults), never past the array's spare capacity: 24 arrays
    take 24 arrays' room, not 2**24 words (as they did when the capacity was the next start)."""
    from syncc.backends.sim.memory import ALIGN, GLOBAL_BASE, GlobalMemory
    gmem = GlobalMemory()
    bases = [gmem.allocate(f"a{i}", np.arange(i % 5 + 1, dtype=np.int32)) for i in range(24)]
    for (a, b), i in zip(zip(bases, bases[1:]), range(24)):
        past = a + 4 * (i % 5 + 1)                         # the byte just past array i
        assert b % ALIGN == 0 and past + ALIGN <= b < past + 2 * ALIGN, (i, a, b)   # a gap of ALIGN bytes
    assert len(gmem.words) < 2 * (bases[-1] - GLOBAL_BASE) // 4 + 64
    words = (bases[1] - GLOBAL_BASE) // 4
    assert gmem.valid[:1].all() and not gmem.valid[1:words].any()   # the gap holds nothing
    assert (gmem.read_back(bases[7], 3) == [0, 1, 2]).all()


def test_the_lock_unit_counts_each_warps_bits_as_they_are_taken_and_given_back():
    """LockHolders keeps, beside bit → holder, how many bits each warp holds (observers ask at
    every instruction); the count follows every way the table changes."""
    from syncc.backends.sim.memory import LockHolders
    held = LockHolders({3: (7, 0, 0x10, 3), 9: (7, 1, 0x10, 9), 4: (2, 5, 0x18, 4)})
    assert (held.held_by(7), held.held_by(2), held.held_by(1)) == (2, 1, 0)
    held[5] = (1, 0, 0x20, 5)
    held[4] = (7, 3, 0x10, 4)                     # taken again by another warp: 2 loses it
    assert (held.held_by(7), held.held_by(2), held.held_by(1)) == (3, 0, 1)
    assert held.pop(3) == (7, 0, 0x10, 3) and held.pop(3, None) is None
    del held[9]
    assert (held.held_by(7), held.held_by(1), dict(held)) == (1, 1, {5: (1, 0, 0x20, 5), 4: (7, 3, 0x10, 4)})
    with pytest.raises(KeyError):
        held.pop(3)


@pytest.mark.parametrize("args, says", [
    ((), "engine: the compiled core"),
    (("--engine", "reference"), "engine: the reference engine (asked for with --engine reference)"),
    (("--its",), "engine: the compiled core"),
])
def test_stats_say_which_engine_ran_and_why(args, says):
    r = run_syncc("run", "examples/wavefront.sync", "--stats", *args)   # short on either engine
    assert r.code == 0, r.err
    assert says in r.out + r.err


def test_global_memory_writers_given_for_later_are_read_in_order():
    """A finished compiled launch leaves its writers to be read when asked (writers_later): the
    later launch's win, and what was written directly meanwhile stays unless overwritten."""
    from syncc.backends.sim.memory import GlobalMemory
    mem = GlobalMemory()
    mem.writers_later(lambda: {1: (0, 0, 8), 2: (0, 1, 8)})
    mem.writers_later(lambda: {2: (5, 3, 16)})
    assert mem.writer == {1: (0, 0, 8), 2: (5, 3, 16)}
    mem.writer[3] = (7, 0, 24)
    mem.writers_later(lambda: {1: (9, 9, 32)})
    assert mem.writer == {1: (9, 9, 32), 2: (5, 3, 16), 3: (7, 0, 24)}
