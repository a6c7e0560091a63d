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
