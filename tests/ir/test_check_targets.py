"""`syncc check` for both machine models, and the analyses behind the hazard corpus's newer
programs: uniformity through barriers (uniformity.py), spans of inlined code (ir/lower/).

The programs themselves, clean and buggy, are tests/hazards/ (test_hazards.py); this file
pins the command line's report and the analyses' answers on small kernels."""
from __future__ import annotations

import json

import pytest

from helpers import ROOT, syncc
from syncc.driver import check_file
from syncc.ir.context import PassContext
from syncc.ir.inlined import inlined_calls
from syncc.ir.lower import lower_program
from syncc.ir.parser import parse_ir
from syncc.ir.printer import print_module
from syncc.ir.analysis.uniformity import BLOCK, GRID, THREAD, Uniformity
from syncc.ir.machine_model import PTX

SPIN = """kernel increment(lockword: global i32[1], counter: global i32[1]) launch grid(1) block(64) {
    while atomic_cas(lockword[0], 0, 1) != 0 { }
    fence gpu
    counter[0] += 1
    fence gpu
    atomic_exch(lockword[0], 0)
}
"""

DIVERGENT = """kernel stage(a: global i32[256]) launch grid(1) block(256) {
    shared buf: i32[256]
    buf[tid] = a[tid]
    if tid < 64 { barrier }
    a[tid] = buf[255 - tid]
}
"""


def write(tmp_path, text: str, name: str = "k.sync") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def records(run) -> list[dict]:
    return [json.loads(line) for line in run.err.splitlines() if line.startswith("{")]


# ---- syncc check: both machine models ---------------------------------------------------------------

def test_check_reports_each_target_finding_with_its_target(tmp_path):
    path = write(tmp_path, SPIN)
    run = syncc("check", path, "--color", "never")
    assert run.code == 1
    assert f"{path}:2:11: warning[W0702]: " in run.err and f"{path}:2:11: error[E0701]: " in run.err
    w0702, e0701 = run.err.split("\n\n")[:2]
    assert w0702.splitlines()[-2] == "note: on ptx (ptx, sass, cuda, gpu): sm_70+, independent thread scheduling"
    assert e0701.splitlines()[-2] == "note: on fermi (fermi-sim, fermi-sass): stack-based reconvergence"
    assert run.err.endswith("syncc: 1 file checked for ptx and fermi: 1 error, 1 warning\n")


def test_check_json_says_the_targets(tmp_path):
    path = write(tmp_path, SPIN)
    got = {(r["code"], tuple(r["targets"])) for r in records(syncc("check", path, "--error-format=json"))}
    assert got == {("W0702", ("ptx",)), ("E0701", ("fermi",))}


def test_a_finding_alike_on_both_targets_is_reported_once(tmp_path):
    path = write(tmp_path, DIVERGENT)
    run = syncc("check", path, "--color", "never")
    assert run.err.count("error[E0704]") == 1
    assert "note: on both ptx and fermi\n" in run.err
    (record,) = records(syncc("check", path, "--error-format=json"))
    assert record["targets"] == ["ptx", "fermi"]


def test_a_named_target_checks_that_one_only(tmp_path):
    path = write(tmp_path, SPIN)
    for target, code, model in (("ptx", "W0702", "ptx"), ("fermi-sim", "E0701", "fermi"),
                                ("sass", "W0702", "ptx"), ("fermi-sass", "E0701", "fermi")):
        run = syncc("check", path, "--target", target, "--color", "never")
        assert f"[{code}]" in run.err and "note: on " not in run.err, run.err
        assert run.err.rstrip().endswith("syncc: 1 file checked: " + ("1 error" if code[0] == "E" else "1 warning"))
        (record,) = records(syncc("check", path, "--target", target, "--error-format=json"))
        assert (record["code"], record["targets"]) == (code, [model])


def test_front_end_findings_are_reported_once_for_both(tmp_path):
    path = write(tmp_path, "kernel k(a: global i32[4]) launch grid(1) block(4) {\n    a[0] = nope\n}\n")
    run = syncc("check", path, "--color", "never")
    assert run.err.count("error[E0101]") == 1 and "note: on" not in run.err
    (record,) = records(syncc("check", path, "--error-format=json"))
    assert record["targets"] == ["ptx", "fermi"]


def test_a_clean_file_is_clean_for_both(tmp_path):
    run = syncc("check", str(ROOT / "examples" / "counter.sync"))
    assert run.code == 0 and run.err == "syncc: 1 file checked for ptx and fermi: no problems\n"


def test_only_check_checks_both(tmp_path):
    """`explain` and `build` keep `--target ptx` as their default, `run` keeps fermi-sim."""
    path = write(tmp_path, SPIN)
    run = syncc("explain", path, "--error-format=json")
    assert {(r["code"], tuple(r["targets"])) for r in records(run)} == {("W0702", ("ptx",))}
    run = syncc("build", path, "--emit", "ir", "--error-format=json")
    assert {(r["code"], tuple(r["targets"])) for r in records(run)} == {("W0702", ("ptx",))}
    run = syncc("run", path, "--error-format=json")
    assert {(r["code"], tuple(r["targets"])) for r in records(run)} == {("E0701", ("fermi",))}


# ---- uniformity through barriers ----------------------------------------------------------------------

def lowered(tmp_path, text: str):
    comp = check_file(write(tmp_path, text))
    assert comp.ok, comp.diagnostics
    (k,) = lower_program(comp.module, PassContext(PTX)).kernels
    return k


def load_levels(k) -> dict[int, int]:
    """The level of each load's destination, by source line."""
    u = Uniformity(k)
    return {ins.span.line: u.level(ins.dests[0]) for _, _, ins in k.instructions() if ins.op == "ld"}


SHARED_FLAG = """kernel k(out: global i32[256]) launch grid(2) block(256) {
    shared flag: i32[2]
    if tid == 0 { flag[0] = bid }
    let early = flag[0]
    barrier
    let late = flag[0]
    let mine = flag[tid % 2]
    out[tid] = early + late + mine
}
"""


@pytest.mark.parametrize("text, line, level", [
    (SHARED_FLAG, 4, THREAD),          # read between the same two barriers as the store
    (SHARED_FLAG, 6, BLOCK),           # past the barrier: every thread of the block reads the same
    (SHARED_FLAG, 7, THREAD),          # at an index that varies
])
def test_a_shared_word_read_past_a_barrier_is_block_uniform(tmp_path, text, line, level):
    assert load_levels(lowered(tmp_path, text))[line] == level


LOOP = """kernel k(out: global i32[64]) launch grid(1) block(64) {
    shared flag: i32[1]
    for i in 0 .. 4 {
        let v = flag[0]
        out[tid] = v
        BARRIER_A
        if tid == 0 { flag[0] = i }
        BARRIER_B
    }
}
"""


@pytest.mark.parametrize("a, b, level", [
    ("barrier", "barrier", BLOCK),     # a barrier on each side of the store, around the loop too
    ("barrier", "", THREAD),           # the store late in one round, the read early in the next
    ("", "barrier", THREAD),           # the read and the store in one interval
])
def test_a_loop_wraps_the_intervals_around(tmp_path, a, b, level):
    k = lowered(tmp_path, LOOP.replace("BARRIER_A", a).replace("BARRIER_B", b))
    assert load_levels(k)[4] == level


def test_a_store_in_another_branch_of_the_same_interval_counts(tmp_path):
    k = lowered(tmp_path, """kernel k(out: global i32[64]) launch grid(1) block(64) {
    shared flag: i32[1]
    barrier
    if tid == 0 { flag[0] = 1 } else { out[tid] = flag[0] }
}
""")
    assert load_levels(k)[4] == THREAD


GRID_FLAG = """kernel k(x: global i32[256], flag: global i32[1]) launch grid(4) block(64) {
    barrier round in global @grid
    if gtid == 0 { flag[0] = 7 }
    sync round
    x[gtid] = load_cg(flag[0]) + flag[0]
    sync round
}
"""


def test_a_global_word_read_past_l1_across_a_grid_barrier_is_grid_uniform(tmp_path):
    k = lowered(tmp_path, GRID_FLAG)
    u = Uniformity(k)
    loads = [ins for _, _, ins in k.instructions() if ins.op == "ld" and ins.ref.name == "flag"]
    assert sorted((ins.attr("cache") == "cg", u.level(ins.dests[0])) for ins in loads) == \
        [(False, THREAD), (True, GRID)]     # a plain load may hit a stale L1 line (Fermi)


def test_a_block_barrier_does_not_separate_a_global_word(tmp_path):
    k = lowered(tmp_path, GRID_FLAG.replace("sync round", "barrier"))
    assert all(level == THREAD for level in load_levels(k).values())


# ---- inlined code keeps its calls ------------------------------------------------------------------

HELPERS = """fn settle(v: i32) -> i32 {
    barrier
    return v
}
fn twice(v: i32) -> i32 {
    return settle(v) + settle(v + 1)
}
kernel k(a: global i32[64]) launch grid(1) block(64) {
    a[tid] = twice(tid)
}
"""


def test_inlined_instructions_say_which_calls_they_came_through(tmp_path):
    k = lowered(tmp_path, HELPERS)
    bars = [ins for _, _, ins in k.instructions() if ins.op == "bar.sync"]
    chains = [[(span.line, span.col, name) for span, name in inlined_calls(ins.span)] for ins in bars]
    assert chains == [[(9, 14, "twice"), (6, 12, "settle")], [(9, 14, "twice"), (6, 24, "settle")]]
    assert all(ins.span.line == 2 for ins in bars)
    store = next(ins for _, _, ins in k.instructions() if ins.op == "st")
    assert inlined_calls(store.span) == ()


def test_the_text_form_of_inlined_code_reads_back(tmp_path):
    comp = check_file(write(tmp_path, HELPERS))
    module = lower_program(comp.module, PassContext(PTX))
    text = print_module(module)
    assert print_module(parse_ir(text)) == text


def test_e0704_says_why_a_condition_read_from_memory_varies(tmp_path):
    """The read and the store in one barrier interval, or a global word read through L1: the notes
    point at what to change."""
    run = syncc("check", "tests/hazards/flag_read_before_barrier.sync", "--error-format=json")
    (record,) = records(run)
    assert [n["message"].split(",")[0] for n in record["notes"][:2]] == [
        "the condition reads `is_last` here", "the store: put a `barrier` between it and the read"]
    plain = (ROOT / "tests/hazards/clean/grid_solver_converges.sync").read_text()
    path = write(tmp_path, plain.replace("load_cg(delta[it])", "delta[it]"))
    found = records(syncc("check", path, "--target", "ptx", "--error-format=json"))
    assert {r["code"] for r in found} == {"E0704"}
    assert all("read it with `load_cg`" in r["notes"][0]["message"] for r in found)


LANE_MEETING = """kernel halves(x: global i32[64], out: global i32[64]) launch grid(1) block(64) {
    barrier lanes in shared @warp using syncwarp
    x[tid] = tid
    if lane < 16 { sync lanes }
    out[tid] = x[tid ^ 1]
}
"""


def test_a_lane_meeting_split_by_lane_is_for_ptx_only(tmp_path):
    """A @warp barrier `using syncwarp` compiles to nothing on Fermi, whose warps run in lockstep,
    as `syncwarp()` does: split by a lane test it is E0707 for ptx (the high half never meets the
    warp, and its reads race with the other lanes' stores: E0732) and nothing for fermi."""
    r = syncc("check", write(tmp_path, LANE_MEETING), "--error-format=json")
    found = [json.loads(line) for line in r.err.splitlines() if line.startswith("{")]
    assert sorted((d["code"], d["line"], tuple(d["targets"])) for d in found) == [
        ("E0707", 4, ("ptx",)), ("E0732", 5, ("ptx",))], r.err
