"""Reader-writer locks, latches and bounded `trywait` on the Fermi simulator, against
references computed here: readers overlap, writers are alone, no thread passes a latch
before its parties counted down, and `trywait s for n` gives up without a trace."""
from __future__ import annotations

import numpy as np
import pytest

import syncc
from syncc.backends.sim.machine import FermiConfig

# who a party is, and which of its threads acts for it in the occupancy bookkeeping
_PARTY = {"thread": "gtid", "warp": "bid * nwarps + warp", "block": "bid"}
_LEAD = {"thread": "true", "warp": "lane == 0", "block": "tid == 0"}
ROUNDS, GRID, BLOCK = 4, 4, 64


def _compile(tmp_path, source: str, policy: str = "lrr", name: str = "p", hazards: bool = True):
    path = tmp_path / f"{name}.sync"
    path.write_text(source)
    return syncc.compile(str(path), target="fermi-sim", sim_config=FermiConfig(policy=policy), hazards=hazards)


def rw_source(impl: str, placement: str, gran: str, writer_mode: str = "write") -> str:
    """Each party reads or writes `rwl` ROUNDS times. Inside, `occ` counts readers (1) and writers
    (1000) with atomics: a writer that finds anyone, or a reader that finds a writer, counts a
    violation in stats[1]; stats[0] is the most readers seen inside at once; a reader that finds
    the two data words unequal saw a write half done (stats[2])."""
    s = "bid" if placement == "shared" else "0"      # a shared lock guards its own block's data
    return f"""
kernel rw(data: global i32[{GRID}][2], occ: global i32[{GRID}], stats: global i32[{GRID}][4])
    launch grid({GRID}) block({BLOCK})
{{
    rwlock rwl in {placement} @{gran} using {impl}
    let s = {s}
    let lead = {_LEAD[gran]}
    for r in 0 .. {ROUNDS} {{
        if ({_PARTY[gran]} + r) % 4 == 0 {{
            {writer_mode} rwl {{
                if lead {{
                    let before = atomic_add(occ[s], 1000)
                    if before != 0 {{ atomic_add(stats[s][1], 1) }}
                    data[s][0] = data[s][0] + 1
                    data[s][1] = data[s][1] + 1
                    atomic_sub(occ[s], 1000)
                }}
            }}
        }} else {{
            read rwl {{
                if lead {{
                    let before = atomic_add(occ[s], 1)
                    if before >= 1000 {{ atomic_add(stats[s][1], 1) }}
                    atomic_max(stats[s][0], before + 1)
                    if data[s][0] != data[s][1] {{ atomic_add(stats[s][2], 1) }}
                    atomic_sub(occ[s], 1)
                }}
            }}
        }}
    }}
}}
"""


def writes_expected(placement: str, gran: str) -> list[int]:
    """Write sections per data row, counted sequentially."""
    per_block = {"thread": BLOCK, "warp": BLOCK // 32, "block": 1}[gran]
    rows = [0] * GRID
    for b in range(GRID):
        for p in range(per_block):
            party = {"thread": b * BLOCK + p, "warp": b * (BLOCK // 32) + p, "block": b}[gran]
            for r in range(ROUNDS):
                if (party + r) % 4 == 0:
                    rows[b if placement == "shared" else 0] += 1
    return rows


def run_rw(tmp_path, source, policy="lrr", hazards=True):
    prog = _compile(tmp_path, source, policy, hazards=hazards)
    data = np.zeros((GRID, 2), np.int32)
    occ = np.zeros(GRID, np.int32)
    stats = np.zeros((GRID, 4), np.int32)
    prog.rw(data, occ, stats)
    return data, occ, stats


RW_CASES = [(impl, placement, gran) for impl in ("counter", "ticket")
            for placement, gran in (("global", "thread"), ("global", "warp"), ("global", "block"),
                                    ("shared", "thread"), ("shared", "warp"))]


@pytest.mark.parametrize("impl, placement, gran", RW_CASES, ids=["-".join(c) for c in RW_CASES])
def test_rwlock_readers_overlap_and_writers_are_alone(tmp_path, impl, placement, gran):
    data, occ, stats = run_rw(tmp_path, rw_source(impl, placement, gran))
    rows = writes_expected(placement, gran)
    assert data[:, 0].tolist() == rows and data[:, 1].tolist() == rows     # no write lost
    assert occ.tolist() == [0] * GRID
    assert stats[:, 1].tolist() == [0] * GRID, "a writer was inside with someone else"
    assert stats[:, 2].tolist() == [0] * GRID, "a reader saw a write half done"
    assert stats[:, 0].max() >= 2, "readers never overlapped"


@pytest.mark.parametrize("impl", ["counter", "ticket"])
@pytest.mark.parametrize("policy", ["gto", "adversarial", "random:7"])
def test_rwlock_under_other_schedules(tmp_path, impl, policy):
    data, _, stats = run_rw(tmp_path, rw_source(impl, "global", "thread"), policy)
    assert data[:, 0].tolist() == writes_expected("global", "thread")
    assert stats[:, 1].tolist() == [0] * GRID and stats[:, 2].tolist() == [0] * GRID
    assert stats[:, 0].max() >= 2


def test_the_occupancy_check_sees_writers_that_only_take_the_read_lock(tmp_path):
    """The bookkeeping above can fail: with writers taking `read`, a writer meets readers. (The race
    check refuses the program, E0730: it runs with the checks skipped.)"""
    source = rw_source("counter", "global", "thread", writer_mode="read")
    with pytest.raises(syncc.CompileError, match="E0730"):
        _compile(tmp_path, source)
    _, _, stats = run_rw(tmp_path, source, hazards=False)
    assert stats[:, 1].sum() > 0


# ---- latches -------------------------------------------------------------------------------------

def latch_source(placement: str, gran: str, count: int, counters: str) -> str:
    """Parties for which `counters` holds count down after a delay that grows with their index;
    every thread waits, then reads how many arrived (atomically) and one arriver's data word."""
    return f"""
kernel latch_k(arrived: global i32[{GRID}], seen: global i32[{GRID * BLOCK}], peek: global i32[{GRID * BLOCK}],
               data: global i32[{GRID * BLOCK}], junk: global i32[1])
    launch grid({GRID}) block({BLOCK})
{{
    latch gate({count}) in {placement} @{gran} using counter
    let s = {"bid" if placement == "shared" else "0"}
    let party = {_PARTY[gran]}
    if {counters} {{
        for i in 0 .. (party % 8) * 4 {{ atomic_add(junk[0], 1) }}
        data[gtid] = gtid + 1
        if {_LEAD[gran]} {{ atomic_add(arrived[s], 1) }}
        count_down gate
    }}
    wait gate
    seen[gtid] = atomic_add(arrived[s], 0)
    peek[gtid] = data[{"bid * ntid" if placement == "shared" else "0"} + (tid * 7) % {BLOCK // 2}]
}}
"""


LATCH_CASES = [("global", "thread", GRID * BLOCK // 2, "gtid % 2 == 0"),
               ("global", "warp", GRID * 2, "true"),
               ("global", "block", GRID, "true"),
               ("shared", "thread", BLOCK, "true"),
               ("shared", "warp", BLOCK // 32, "true")]


@pytest.mark.parametrize("placement, gran, count, counters", LATCH_CASES,
                         ids=[f"{p}-{g}" for p, g, _, _ in LATCH_CASES])
@pytest.mark.parametrize("policy", ["lrr", "random:5"])
def test_no_thread_passes_a_latch_before_its_parties_counted_down(tmp_path, placement, gran, count, counters,
                                                                 policy):
    prog = _compile(tmp_path, latch_source(placement, gran, count, counters), policy)
    arrived = np.zeros(GRID, np.int32)
    seen, peek, data = (np.zeros(GRID * BLOCK, np.int32) for _ in range(3))
    prog.latch_k(arrived, seen, peek, data, np.zeros(1, np.int32))
    per_latch = count                   # every count-down is one arrival of one party
    assert seen.min() >= per_latch, "a thread passed the latch before every party arrived"
    # the arrivers' writes before counting down are visible after the wait
    if counters == "true":
        assert (peek != 0).all()


def test_a_latch_that_too_few_parties_count_down_hangs_and_is_diagnosed(tmp_path):
    """The checker counts the count-downs (E0705); compiled without it, the simulator shows the hang."""
    src = latch_source("global", "thread", GRID * BLOCK // 2 + 1, "gtid % 2 == 0")
    with pytest.raises(syncc.api.CompileError) as refused:
        _compile(tmp_path, src)
    assert "E0705" in str(refused.value) and "counted down" in str(refused.value)
    path = tmp_path / "p.sync"
    prog = syncc.compile(str(path), target="fermi-sim", sim_config=FermiConfig(policy="lrr"), hazards=False)
    with pytest.raises(syncc.api.RunError):
        prog.latch_k(*(np.zeros(n, np.int32) for n in (GRID, GRID * BLOCK, GRID * BLOCK, GRID * BLOCK, 1)))


# ---- trywait s for n -----------------------------------------------------------------------------

def trywait_source(impl: str, placement: str) -> str:
    return f"""
kernel tries(res: global i32[8], n: i32) launch grid(1) block(32) {{
    semaphore s(0) in {placement} @thread using {impl}
    if tid == 0 {{
        res[0] = i32(trywait s for 1)      // no permit: false
        res[1] = i32(trywait s for n)      // still none, n attempts: false
        post s                             // one permit: a failed try left nothing behind to take it
        res[2] = i32(trywait s for 3)      // true
        res[3] = i32(trywait s)            // false: it was the only one
        post s
        post s
        res[4] = i32(trywait s for 2)      // true
        res[5] = i32(trywait s)            // true
        res[6] = i32(trywait s for 4)      // false
        res[7] = i32(trywait s for (tid - 1))   // -1 at run time: no attempt at all, false
    }}
}}
"""


TRY_CASES = [("spin", "global"), ("spin", "shared"), ("backoff", "global"), ("backoff", "shared"),
             ("sleeping", "global")]


@pytest.mark.parametrize("impl, placement", TRY_CASES, ids=["-".join(c) for c in TRY_CASES])
def test_bounded_trywait_gives_up_without_a_trace_and_takes_a_permit_when_there_is_one(tmp_path, impl, placement):
    prog = _compile(tmp_path, trywait_source(impl, placement))
    cycles = {}
    for n in (1, 41):
        res = np.full(8, -1, np.int32)
        cycles[n] = prog.tries(res, n).cycles
        assert res.tolist() == [0, 0, 1, 0, 1, 1, 0, 0]
    # forty more attempts, each at least a memory round trip (and a sleep with backoff)
    assert cycles[41] - cycles[1] > 40 * 20, "more attempts took hardly longer"


def test_bounded_trywait_waits_out_a_post_from_another_warp(tmp_path):
    src = """
kernel late(res: global i32[2], junk: global i32[1]) launch grid(1) block(64) {
    semaphore s(0) in global @thread using backoff
    if tid == 32 {
        for i in 0 .. 20 { atomic_add(junk[0], 1) }
        post s
    }
    if tid == 0 {
        res[0] = i32(trywait s for 1000)
        res[1] = i32(trywait s)
    }
}
"""
    prog = _compile(tmp_path, src)
    res = np.full(2, -1, np.int32)
    prog.late(res, np.zeros(1, np.int32))
    assert res.tolist() == [1, 0]


# ---- trywait s for T us: bounded by time ----------------------------------------------------------

_ONE = {"thread": "tid", "warp": "warp", "block": "0"}       # the party's own semaphore


def timed_source(impl: str, placement: str, gran: str) -> str:
    return f"""
kernel timed(res: global i32[64][4], t: i32) launch grid(1) block(64) {{
    semaphore s[64](0) in {placement} @{gran} using {impl}
    let me = {_ONE[gran]}
    res[tid][0] = i32(trywait s[me] for t us)        // no permit: false, after t microseconds
    post s[me]                                       // (the party's leader posts once for it)
    res[tid][1] = i32(trywait s[me] for 1 ns)        // a permit: the first attempt takes it
    res[tid][2] = i32(trywait s[me] for 1 ns)        // none left: one attempt, then the time is up
    res[tid][3] = i32(trywait s[me] for (t - 1000) ms)   // -998 ms and less at run time: one attempt
}}
"""


@pytest.mark.parametrize("impl, placement", TRY_CASES, ids=["-".join(c) for c in TRY_CASES])
@pytest.mark.parametrize("gran", ["thread", "warp", "block"])
def test_trywait_bounded_by_time_gives_up_when_the_time_is_up(tmp_path, impl, placement, gran):
    """The simulator's timer counts cycles at the configured clock (1401 MHz): waiting t µs takes
    at least t × 1401 cycles and not much more, and a permit is taken by the first attempt that
    finds one (every thread of a party gets its leader's answer)."""
    if placement == "shared" and gran == "block":
        pytest.skip("a shared semaphore is not contended across blocks (E0402)")
    prog = _compile(tmp_path, timed_source(impl, placement, gran))
    cycles = {}
    for t in (2, 12):
        res = np.full((64, 4), -1, np.int32)
        cycles[t] = prog.timed(res, t).cycles
        assert res.tolist() == [[0, 1, 0, 0]] * 64
    for t, c in cycles.items():
        assert c >= t * 1401, f"{t} us took only {c} cycles"
    extra = cycles[12] - cycles[2]     # (each wait ends at the first attempt past its time)
    assert 10 * 1401 - 1000 <= extra < 10 * 1401 + 4000, f"10 us more took {extra} cycles"


def test_trywait_bounded_by_time_waits_out_a_post_from_another_warp(tmp_path):
    src = """
kernel late(res: global i32[2], junk: global i32[1]) launch grid(1) block(64) {
    semaphore s(0) in global @thread
    if tid == 32 {
        for i in 0 .. 20 { atomic_add(junk[0], 1) }
        post s
    }
    if tid == 0 {
        res[0] = i32(trywait s for 100 us)
        res[1] = i32(trywait s for 1 us)
    }
}
"""
    prog = _compile(tmp_path, src)
    res = np.full(2, -1, np.int32)
    cycles = prog.late(res, np.zeros(1, np.int32)).cycles
    assert res.tolist() == [1, 0]
    assert cycles < 100 * 1401, "it waited the whole time for a permit that came early"


@pytest.mark.parametrize("bound, message", [
    ("for 5 tries", "`tries` is not a unit of time"),
    ("for 0 us", "needs a time from 1 ns to 4 s"),
    ("for 5 s", "`s` is not a unit of time"),
    ("for 4001 ms", "needs a time from 1 ns to 4 s"),
])
def test_a_time_bound_needs_a_unit_and_a_time_the_timer_can_count(tmp_path, bound, message):
    path = tmp_path / "bad.sync"
    path.write_text("kernel k(out: global i32[32]) launch grid(1) block(32) {\n"
                    "    semaphore s(1) in global @thread\n"
                    f"    out[tid] = i32(trywait s {bound})\n}}\n")
    with pytest.raises(syncc.CompileError) as e:
        syncc.compile(str(path), target="fermi-sim")
    assert "E0306" in str(e.value) and message in str(e.value)
