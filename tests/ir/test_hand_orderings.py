"""Orderings for hand-written synchronization (issue 39; analysis/hand_sync.py, passes/hand_fences.py).

A lock, barrier or publication written by hand with atomics and `load_cg` gets the fences it owes,
whatever the shape of its loop, and `syncc explain` lists each one; a loop that only hands out work
items, or a one-shot claim, owes none. The programs are tests/hazards/clean/hand_*.sync (each checks
its own result) and small ones written here."""
from __future__ import annotations

import re

import pytest

from helpers import ROOT, syncc

CLEAN = ROOT / "tests" / "hazards" / "clean"
ROLE = re.compile(r"hand-written synchronization: (acquire|release|store-load)[^:]*?`(\w+)`")


def orderings(path, target="fermi-sim") -> list[tuple[str, str]]:
    """(role, the sync word or written word) of each hand-written ordering `explain` lists."""
    r = syncc("explain", str(path), "--target", target)
    assert r.code == 0, r.err
    return sorted(ROLE.findall(r.out))


# each program: the orderings it owes, as (role, word)
SHAPES = {
    "hand_publication": [("acquire", "flag"), ("release", "flag")],
    "hand_ttas_flag": [("acquire", "lk"), ("release", "lk")],
    "hand_ticket_lock": [("acquire", "serving"), ("release", "serving")],
    "hand_lock_helper": [("acquire", "lk"), ("release", "lk")],
    "hand_lock_in_branch": [("acquire", "lk"), ("release", "lk")],
    "hand_xf_barrier": [("acquire", "flag_in"), ("acquire", "flag_out"), ("release", "flag_in"),
                        ("release", "flag_out"), ("store-load", "flag_in")],
    "hand_sense_barrier": [("acquire", "count"), ("acquire", "sense"), ("release", "count")],
    "hand_plain_poll": [("acquire", "flag"), ("acquire", "ready"), ("release", "flag"), ("release", "ready")],
    "lock_without_fences": [("acquire", "lockword")],           # its release fence is written
    "plain_store_release": [("release", "lockword")],
    "last_block_no_fence": [("acquire", "count"), ("release", "count")],
}


@pytest.mark.parametrize("name", sorted(SHAPES))
@pytest.mark.parametrize("target", ["ptx", "fermi-sim"])
def test_each_shape_gets_its_orderings(name, target):
    assert orderings(CLEAN / f"{name}.sync", target) == sorted(SHAPES[name])


LOCK = """\
kernel k(lockword: global i32[LOCKS], sum: global i32[64], x: global i32[128]) launch grid(2) block(64) {
    if WHO {
        let e = INDEX
        while atomic_cas(lockword[e], 0, 1) != 0 { }
        sum[gtid % 64] += x[gtid]
        lockword[e] = 0
    }
}
"""


@pytest.mark.parametrize("who,index,locks", [("tid == 0 && bid == 0", "0", 1), ("true", "gtid", 128),
                                             ("tid == 0", "0", 1), ("true", "gtid % 64", 64),
                                             ("tid == 0", "x[gtid] & 1", 2)])
def test_a_hand_lock_is_accepted_and_fenced_at_both_ends(tmp_path, who, index, locks):
    """Once refused with E0710 (even a lock one thread takes): now fenced, whoever takes it."""
    path = tmp_path / "k.sync"
    path.write_text(LOCK.replace("WHO", who).replace("INDEX", index).replace("LOCKS", str(locks)))
    for target in ("ptx", "fermi-sim"):
        assert orderings(path, target) == [("acquire", "lockword"), ("release", "lockword")]


def test_a_lock_indexed_in_its_loop_is_released_by_the_same_word(tmp_path):
    path = tmp_path / "k.sync"
    path.write_text(LOCK.replace("let e = INDEX\n        ", "").replace("[e]", "[gtid % 64]")
                    .replace("WHO", "true").replace("LOCKS", "64"))
    assert orderings(path, "ptx") == [("acquire", "lockword"), ("release", "lockword")]


NO_ORDERING = {
    # a persistent loop taking work items from a counter: nothing is published through it
    "work_counter": """\
kernel k(next: global i32[1], x: global i32[256], y: global i32[256]) launch grid(2) block(32) {
    while true {
        let i = atomic_add(next[0], 1)
        if i >= 256 { break }
        y[i] = x[i] * 2
    }
}
""",
    # a one-shot claim (a BFS's visited flag): the winner writes, nobody waits on the flag
    "claim": """\
kernel k(visited: global i32[64], owner: global i32[64], x: global i32[128]) launch grid(2) block(64) {
    let v = x[gtid] & 63
    if atomic_cas(visited[v], 0, 1) == 0 { owner[v] = gtid }
}
""",
    # an append buffer: the atomic's value is an index, not a decision
    "append": """\
kernel k(count: global i32[1], out: global i32[128], x: global i32[128]) launch grid(2) block(64) {
    if x[gtid] > 50 { out[atomic_add(count[0], 1)] = x[gtid] }
}
""",
}


@pytest.mark.parametrize("name", sorted(NO_ORDERING))
def test_no_ordering_where_nothing_is_published(tmp_path, name):
    path = tmp_path / "k.sync"
    path.write_text(NO_ORDERING[name])
    assert orderings(path, "ptx") == []


def test_a_plain_load_a_spin_polls_is_read_as_load_cg():
    """A plain load in a spin could be read once, before the loop (LLVM hoisted `ld.global` out of
    `while flag[0] == 0 { }`): syncc reads it as `load_cg`, and says so."""
    r = syncc("explain", str(CLEAN / "hand_plain_poll.sync"), "--target", "ptx")
    assert sorted(re.findall(r"the plain load of `(\w+)` this loop polls is read as `load_cg`", r.out)) == ["flag", "ready"]
    ptx = syncc("build", str(CLEAN / "hand_plain_poll.sync"), "--target", "ptx", "-o", "-").out
    assert "ld.relaxed.gpu.global" in ptx
    # a shared word's poll is strong too: ptxas dropped a spin on a weak `ld.shared` (H200,
    # 2026-11-29: the waiting warp went on at once and read the value before it was written)
    assert "ld.relaxed.cta.shared" in ptx


def test_unsafe_no_fences_leaves_them_out():
    with_fences = syncc("build", str(CLEAN / "hand_publication.sync"), "--target", "ptx", "-o", "-")
    without = syncc("build", str(CLEAN / "hand_publication.sync"), "--target", "ptx", "-o", "-", "--unsafe-no-fences")
    assert with_fences.out.count("fence.acq_rel") == 2 and without.out.count("fence.acq_rel") == 0


def test_a_witness_shows_the_release_going_wrong_without_it():
    """`explain --witness` leaves each inserted ordering out alone and runs the program: the
    publication's release fence has a witness (the simulator's stores reach L2 out of order)."""
    r = syncc("explain", str(CLEAN / "hand_publication.sync"), "--target", "fermi-sim", "--witness", "--runs", "4")
    assert r.code == 0, r.err
    witnesses = r.out[r.out.index("witnesses"):].splitlines()
    release = next(i for i, line in enumerate(witnesses) if "release before" in line)
    assert "goes wrong" in witnesses[release + 1], r.out


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(n for n in SHAPES if n.startswith("hand_")))
def test_each_shape_runs_correctly_under_adversarial_schedules(name):
    for seed in (1, 2, 3):
        r = syncc("run", str(CLEAN / f"{name}.sync"), "--policy", f"adversarial:{seed}")
        assert r.code == 0, (seed, r.err[-2000:])
