"""Every examples/sass listing runs to the outcome its header and examples/sass/README.md
promise, under every scheduling policy; each expected result is computed here from what the
listing means (a count, a serial loop, Needleman–Wunsch), not from an earlier run."""
from __future__ import annotations

import pytest

from helpers import ROOT, syncc
from simkit import simulate
from syncc.backends.sim.machine import FermiConfig

EXAMPLES = ROOT / "examples" / "sass"
POLICIES = ["lrr", "gto", "adversarial", "random:7"]


def run(name: str, policy: str = "lrr"):
    path = EXAMPLES / name
    return simulate(path.read_text(encoding="utf-8"), FermiConfig(policy=policy), path=str(path))


@pytest.mark.parametrize("policy", POLICIES)
def test_listing1_shared_atomic_add_counts_64(policy):
    r = run("listing01_atomic_add.sass", policy)
    assert r.status == "finished" and r.shared("word").tolist() == [64]


def test_listing2_spin_lock_inside_one_warp_is_a_simt_deadlock():
    r = run("listing02_intra_warp_deadlock.sass")
    assert r.kind == "simt-deadlock"
    assert r.shared("counter").tolist() == [0] and r.shared("mutex").tolist() == [1]
    first = r.outcome.diagnosis.primary
    assert "lanes 1-31" in first.message and "lane 0" in first.message


@pytest.mark.parametrize("policy", POLICIES)
def test_listing3_one_thread_per_warp_takes_the_spin_lock_in_turn(policy):
    r = run("listing03_atomic_spin_lock.sass", policy)
    assert r.status == "finished"
    assert r.shared("counter").tolist() == [8] and r.shared("mutex").tolist() == [0]


@pytest.mark.parametrize("policy", POLICIES)
def test_listing4_tiny_lock_mutex_of_128_threads(policy):
    r = run("listing04_tiny_lock.sass", policy)
    assert r.status == "finished" and r.shared("counter").tolist() == [1000 + 128]


@pytest.mark.parametrize("policy", POLICIES)
def test_listing6_channels_carry_every_value(policy):
    r = run("listing06_channel.sass", policy)
    expected = list(range(100, 132))
    assert r.status == "finished"
    assert r.shared("chan").tolist() == expected and r.shared("out").tolist() == expected


@pytest.mark.parametrize("policy", POLICIES)
def test_listing8_critical_section_serializes_every_lane(policy):
    r = run("listing08_critical_section.sass", policy)
    order = r.shared("order").tolist()
    assert r.status == "finished" and r.shared("counter").tolist() == [64]
    assert sorted(order) == list(range(64))
    for warp in (0, 1):       # a warp's lanes win the bit lowest first
        mine = [t for t in order if t // 32 == warp]
        assert mine == sorted(mine)


@pytest.mark.parametrize("policy", POLICIES)
def test_listing9_warp_shared_lock_appends_whole_warps(policy):
    r = run("listing09_warp_lock.sass", policy)
    slots = r.shared("slots").tolist()
    assert r.status == "finished" and r.shared("next").tolist() == [128]
    runs = [slots[32 * k: 32 * k + 32] for k in range(4)]
    assert sorted(run[0] // 32 for run in runs) == [0, 1, 2, 3]
    assert all(run == list(range(run[0], run[0] + 32)) and run[0] % 32 == 0 for run in runs)


@pytest.mark.parametrize("policy", POLICIES)
def test_listing13_chain_is_listing10s_serial_loop(policy):
    r = run("listing13_chain.sass", policy)
    a = [0] * 512
    for t in range(512):
        a[t] = (t if t < 32 else a[t - 32]) + t
    assert r.status == "finished" and r.shared("A").tolist() == a


def test_listing15_wavefront_is_needleman_wunsch():
    r = run("listing15_wavefront.sass")
    ref = r.arrays["ref"].tolist()
    gap = r.kernel.param("k").init.value
    s = [[0] * 8 for _ in range(8)]
    for i in range(8):
        for j in range(8):
            s[i][j] = (-(i + j) * gap if i == 0 or j == 0 else
                       max(s[i - 1][j - 1] + ref[i][j], max(s[i - 1][j], s[i][j - 1]) - gap))
    assert r.status == "finished" and r.arrays["score"].tolist() == s


def test_alias_deadlock_is_explained_with_the_two_words():
    r = run("alias_deadlock.sass")
    assert r.kind == "alias-deadlock"
    assert "`b[0]`" in r.outcome.diagnosis.primary.message and "`a[0]`" in r.outcome.diagnosis.primary.message


def test_its_listing_3_3_livelocks_and_3_6_completes():
    stuck = run("its_livelock_3_3.sass")
    assert stuck.kind == "livelock" and stuck.shared("flag").tolist() == [1, 0, 0, 0]
    assert "never scheduled" in stuck.outcome.diagnosis.primary.message
    fixed = run("its_syncwarp_3_6.sass")
    assert fixed.status == "finished" and fixed.shared("flag").tolist() == [1, 1, 1, 1]


@pytest.mark.parametrize("policy", POLICIES)
def test_its_listing_3_3_with_a_yield_in_its_spin_completes(policy):
    r = run("its_yield_3_3.sass", policy)
    assert r.status == "finished" and r.shared("flag").tolist() == [1, 1, 1, 1]


def test_syncc_run_prints_the_arrays_and_exits_3_on_a_hang():
    ok = syncc("run", str(EXAMPLES / "listing01_atomic_add.sass"))
    assert ok.code == 0 and ok.out.strip() == "word = [64]"
    hang = syncc("run", str(EXAMPLES / "listing02_intra_warp_deadlock.sass"))
    assert hang.code == 3 and "error[E0905]" in hang.err
    assert "listing02_intra_warp_deadlock.sass:38:9" in hang.err      # the .sass line of the spinning LDSLK
