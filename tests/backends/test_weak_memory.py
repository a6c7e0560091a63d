"""The simulator's weak memory model (syncc/backends/sim/weakmem.py, docs/fermi.md "The memory
model"): what a missing fence or a cached load breaks shows on the simulator, what the fences
and LD.CG protect does not break, and `--memory sc` is the old sequentially consistent machine.

References are independent of the simulator: the litmus shapes' allowed outcomes (by the
model's rules), the stress programs' own counts (a lost update is a count below what the
threads added), and a hand-written SASS kernel whose two reads of one word must differ.
"""
import subprocess
import sys

import pytest
from helpers import ROOT, syncc
from simkit import simulate

from syncc.backends.sim.machine import FermiConfig

STALE = """
.kernel stale
.launch grid(2) block(32)
.param x: global i32[1] = zeros
.param flag: global i32[1] = zeros
.param out: global i32[2] = zeros
        S2R R0, SR_LaneId;
        ISETP.NE.AND P0, pt, R0, RZ, pt;
  @P0   EXIT;
        MOV R1, c [0x0] [0x20];
        MOV R2, c [0x0] [0x24];
        MOV R3, c [0x0] [0x28];
        S2R R4, SR_CTAid_X;
        ISETP.NE.AND P1, pt, R4, RZ, pt;
  @P1   BRA reader;
        MOV32I R5, 0x1;                 // block 0: x = 1, fence, flag = 1
        ST [R1], R5;
        MEMBAR.GL;
        ST [R2], R5;
        EXIT;
reader:                                 // block 1: cache x's line, wait for the flag, fence, read x twice
        LD R6, [R1];
spin:
        LD.CG R7, [R2];
        ISETP.EQ.AND P2, pt, R7, RZ, pt;
  @P2   BRA spin;
        MEMBAR.GL;
        LD R8, [R1];                    // through L1: the line cached before
        LD.CG R9, [R1];                 // from L2
        ST [R3], R8;
        ST [R3+0x4], R9;
        EXIT;
"""


def test_l1_is_not_coherent_and_ld_cg_reads_l2():
    run = simulate(STALE)
    assert run.status == "finished"
    assert run.arrays["out"].tolist() == [0, 1]          # stale through L1 even after the fences; fresh via .CG


def test_sequential_consistency_on_request():
    run = simulate(STALE, FermiConfig(memory="sc"))
    assert run.arrays["out"].tolist() == [1, 1]


def test_a_seed_repeats_its_run_exactly():
    a = syncc("run", "tests/gpu/channel_stress.sync", "-D", "BLOCKS=4", "-D", "THREADS=64", "-D", "ROUNDS=1",
              "--unsafe-no-fences", "--memory", "weak:5", "--stats")
    b = syncc("run", "tests/gpu/channel_stress.sync", "-D", "BLOCKS=4", "-D", "THREADS=64", "-D", "ROUNDS=1",
              "--unsafe-no-fences", "--memory", "weak:5", "--stats")
    assert a.out == b.out and "cycles" in a.out


def test_bad_memory_option_is_a_usage_error():
    r = syncc("run", "examples/counter.sync", "--memory", "tso")
    assert r.code == 2 and "unknown memory model `tso`" in r.err


@pytest.fixture(scope="module")
def litmus():
    """bench/litmus.py on 12 seeds of 128 instances: its table, one row per shape. (MP with the
    writer's `fence cta` shows its weak outcome in a few seeds only: a poll that reads the flag
    late delays its reader, and x must reach L2 after the reader's fence.)"""
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "litmus.py"), "--seeds", "12", "--instances", "128"],
                         capture_output=True, text=True, check=True, cwd=ROOT).stdout
    rows = {}
    for line in out.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = (cells[3] == "yes", int(cells[4]), int(cells[5]))
    return rows


def test_litmus_outcomes_are_the_models(litmus):
    assert len(litmus) == 11
    for shape, (allowed, seen, runs) in litmus.items():
        assert runs == 12 * 128, shape
        if not allowed:
            assert seen == 0, f"{shape}: the model forbids its weak outcome, yet it was seen {seen} times"
    # what fences exist for shows: stores reordered (MP, also with a block-scope fence), store buffering,
    # and a reader's loads performed early: a missing acquire (the writer fenced, the reader not)
    for shape in ("MP", "MP + fence cta (writer)", "SB", "MP + fence gpu (writer only)"):
        assert litmus[shape][1] > 0, shape


@pytest.mark.parametrize("program,defines,unfenced_shows", [
    ("mutex_stress.sync", ["BLOCKS=8", "THREADS=32", "ITER=2"], "tas: [ "),
    # the get's acquire sits between its poll of the flag and the value's load (a load may be performed
    # early): under adversarial:1 without it, the @thread and @warp flag channels saw 36 and 48 values
    # from before their payload (2026-11-29)
    ("channel_stress.sync", ["BLOCKS=8", "THREADS=64", "ROUNDS=1"], "global @thread flag violations: "),
])
def test_stress_programs_break_without_fences_and_hold_with_them(program, defines, unfenced_shows):
    args = [f"tests/gpu/{program}"] + [x for d in defines for x in ("-D", d)]
    broken = syncc("run", *args, "--unsafe-no-fences")
    assert broken.code != 0                               # the program's own check (or a hang) says so
    line = next(x for x in broken.out.splitlines() if x.startswith(unfenced_shows))
    if program == "mutex_stress.sync":                    # 8 × 32 × 2 increments of 1 and of 2
        assert line.split("[")[1].split("]")[0].split() != ["512", "1024"]
    else:
        assert int(line.rsplit(":", 1)[1]) > 0
    for seed in (1, 2, 3):
        ok = syncc("run", *args, "--policy", f"adversarial:{seed}")
        assert ok.code == 0, ok.out + ok.err


@pytest.mark.parametrize("gran", ["thread", "warp", "block"])
def test_a_ring_queue_loses_values_without_fences_and_keeps_them_with_them(tmp_path, gran):
    """The ring's publication must not overtake the value's store, nor a put's store the get's read
    of the slot: without the fences the stress program's own check finds a value lost or doubled,
    with the ring's threads putting one by one or as @warp and @block parties (whose members'
    stores the leader's publication must carry). (The `locked` queue reads its slots with LD.CG
    under a lock taken by atomics, and the simulator showed no failure of it without fences; the
    H100 shows one, tests/gpu/README.md.)"""
    path = tmp_path / f"queue_{gran}.sync"
    path.write_text((ROOT / "tests/gpu/queue_stress.sync").read_text().replace("global @thread", f"global @{gran}"))
    args = [str(path), "-D", "BLOCKS=8", "-D", "THREADS=64", "-D", "PER=8", "-D", "CAP=8"]
    assert f"(global @{gran}, capacity 8): ring" in syncc("explain", *args, "--target", "fermi-sim").out
    broken = syncc("run", *args, "--unsafe-no-fences")
    assert broken.code == 1 and "E0901" in broken.err and "lost or taken twice" in broken.err
    for seed in (1, 2, 3):
        ok = syncc("run", *args, "--policy", f"adversarial:{seed}")
        assert ok.code == 0, ok.out + ok.err


def test_an_spsc_queue_between_blocks_loses_values_without_fences(tmp_path):
    """One producer thread and one consumer thread per queue between blocks (`spsc`, no ticket):
    without the publication's release and the poll's acquire, the weak memory shows a value read
    before it arrived (tests/gpu/queue_pairs_stress.sync's kernel between blocks)."""
    args = ["tests/gpu/queue_pairs_stress.sync", "-D", "BLOCKS=4", "-D", "PER=16"]
    assert syncc("run", *args).code == 0
    broken = [syncc("run", *args, "--unsafe-no-fences", "--memory", f"weak:{seed}") for seed in (1, 2, 3)]
    assert any(r.code == 1 and "spsc between blocks: a value was lost" in r.err for r in broken), \
        [r.err[-300:] for r in broken]


def test_sc_memory_hides_the_missing_fence():
    r = syncc("run", "tests/gpu/channel_stress.sync", "-D", "BLOCKS=8", "-D", "THREADS=64", "-D", "ROUNDS=1",
              "--unsafe-no-fences", "--memory", "sc")
    assert r.code == 0 and "global @thread flag violations: 0" in r.out


L1_FULL = """
.kernel l1_full
.launch grid(1) block(32)
.param a: global i32[96] = range
.param out: global i32[32] = zeros
        S2R R0, SR_LaneId;
        MOV R1, c [0x0] [0x20];
        MOV R2, c [0x0] [0x24];
        LD R3, [R1];                    // line A (a[0..31])
        LD R4, [R1+0x80];               // line B (a[32..63]): L1 of two lines is full, A filled first
        ISETP.LT.U32.AND P0, pt, R0, 0x10, pt;
        ISCADD R5, R0, R1, 0x2;         // lanes 0-15: &a[lane], in line A (a hit)
  @!P0  IADD R5, R5, 0x100;             // lanes 16-31: &a[64 + lane], in line C (a miss that evicts A)
        LD R6, [R5];
        ISCADD R7, R0, R2, 0x2;
        ST [R7], R6;
        EXIT;
"""


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_line_evicted_by_a_later_fill_of_the_same_access_was_read_first(engine):
    """One LD hits line A and misses line C in a full L1 that evicts A to make room: A's lanes
    get A's words (as the lines are served one after another), not a fault or C's words."""
    run = simulate(L1_FULL, FermiConfig(l1_lines=2, engine=engine))
    assert run.status == "finished"
    assert run.arrays["out"].tolist() == list(range(16)) + list(range(80, 96))
