"""Lock elision (-O2) keeps mutual exclusion: a critical section that is one read-modify-write
becomes one atomic only when every use of its mutex becomes one. A section left with the lock
and one made an atomic would no longer exclude each other (the atomic lands between the other
section's load and store, and an update is lost), so a mutex with any other use keeps its lock
everywhere. Each program runs on the simulator under several schedules against a count
computed here."""
from __future__ import annotations

import numpy as np
import pytest

import syncc
from syncc.backends.sim.machine import FermiConfig
from syncc.driver import compile_file

BLOCKS, THREADS, ROUNDS = 8, 64, 20
POLICIES = ["lrr", "gto", "random:1", "adversarial:1"]


def program(other: str) -> str:
    """Even blocks add 1 to x[0] in a section elision can make an atom.add; odd blocks use the
    same mutex for `other`, which adds 1 to x[0] too, some other way."""
    return f"""
kernel mix(x: global i32[2], rounds: i32) launch grid({BLOCKS}) block({THREADS}) {{
    mutex m in global @thread
    for r in 0 .. rounds {{
        if bid % 2 == 0 {{
            critical m {{ x[0] = x[0] + 1 }}
        }} else {{
            {other}
        }}
    }}
}}
"""


OTHERS = {
    "a section that is not one atomic": "critical m { x[0] = x[0] * 3 - 2 * x[0] + 1 }",
    "a section on two words": "critical m { x[0] = x[0] + 1\n x[1] = x[1] + 1 }",
    "lock and unlock": "lock m\n x[0] = x[0] + 1\n unlock m",
    "a trylock": "var done = false\n while !done { if trylock m { x[0] = x[0] + 1\n unlock m\n done = true } }",
}


def elided(path) -> list[str]:
    comp = compile_file(str(path), target="fermi-sim")
    assert comp.ok, [d.message for d in comp.sink.items]
    return [r.message for r in comp.context.remarks if r.topic == "elide"]


@pytest.mark.parametrize("other", OTHERS, ids=lambda s: s.replace(" ", "-"))
def test_a_mutex_with_another_use_keeps_its_lock_and_loses_no_update(tmp_path, other):
    path = tmp_path / "mix.sync"
    path.write_text(program(OTHERS[other]))
    assert elided(path) == []
    for policy in POLICIES:
        prog = syncc.compile(str(path), target="fermi-sim", sim_config=FermiConfig(policy=policy))
        x = np.zeros(2, np.int32)
        prog.mix(x, ROUNDS)
        assert x[0] == BLOCKS * THREADS * ROUNDS, f"{policy}: {BLOCKS * THREADS * ROUNDS - x[0]} updates lost"


def test_a_mutex_whose_every_section_is_one_atomic_is_elided(tmp_path):
    path = tmp_path / "all.sync"
    path.write_text(program("critical m { x[1] = x[1] - 2 }"))
    assert len(elided(path)) == 2
    for policy in POLICIES:
        prog = syncc.compile(str(path), target="fermi-sim", sim_config=FermiConfig(policy=policy))
        x = np.zeros(2, np.int32)
        prog.mix(x, ROUNDS)
        half = BLOCKS // 2 * THREADS * ROUNDS
        assert x.tolist() == [half, -2 * half], policy


def elided_orders(tmp_path, body: str, after: str = "") -> list[str]:
    path = tmp_path / "count.sync"
    path.write_text(f"""
kernel count(x: global i32[4], seen: global i32[{2 * THREADS}]) launch grid(2) block({THREADS}) {{
    mutex m in global @thread
    var old = 0
    {body}
    {after}
}}
""")
    return [("relaxed" if "relaxed ordering" in r else "acq_rel") for r in elided(path)]


def test_an_elided_atomic_nobody_can_observe_is_relaxed(tmp_path):
    """Nothing reads the word's old or new value, or its array, outside the sections: no thread
    can tell whose section came first, so the atomic needs no ordering (atomicAdd's)."""
    assert elided_orders(tmp_path, "critical m { x[0] = x[0] + 1 }") == ["relaxed"]
    assert elided_orders(tmp_path, "let i = tid % 4\n critical m { x[i] = x[i] + tid }") == ["relaxed"]


@pytest.mark.parametrize("body, after", [
    ("critical m { old = x[0]\n x[0] = old + 1 }", "seen[gtid] = old"),        # the old value is used
    ("critical m { x[0] = x[0] + 1 }", "seen[gtid] = x[1]"),                    # the array is read elsewhere
    ("critical m { x[0] = x[0] + 1 }", "if tid == 0 { x[3] = 7 }"),            # and written
    ("critical m { old = x[0]\n x[0] = old + 1 }", "if old > 3 { seen[gtid] = 1 }"),   # a branch reads it
])
def test_an_elided_atomic_someone_can_observe_keeps_the_locks_ordering(tmp_path, body, after):
    assert elided_orders(tmp_path, body, after) == ["acq_rel"]


@pytest.mark.parametrize("target", ["ptx", "fermi-sim"])
def test_a_relaxed_elided_atomic_carries_no_fence(target):
    """bench/programs/counter.sync's sections become atomicAdd's own instruction: a `red.relaxed`
    on PTX, an atomic with no MEMBAR around it on Fermi."""
    from syncc.backends.ptx import build_ptx
    from syncc.ir.stats import fence_stats
    comp = compile_file("bench/programs/counter.sync", target=target)
    assert comp.ok and fence_stats(comp.ir).fences == 0
    if target == "ptx":
        text = build_ptx(comp.ir, "sm_90").text
        assert "red.relaxed.gpu.global.add" in text and "acq_rel" not in text and "fence." not in text
