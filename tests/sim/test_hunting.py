"""hunt:SEED (simulator.Scheduler, docs/fermi.md "hunt:SEED") and loads performed early
(weakmem.py): the buggy programs of tests/sim/buggy fail under it, their correct neighbours
(the missing fence put back) never do, and its preemptions fall on synchronization points only.

References are independent of the simulator: each program's own check (a value read before it
was published, an increment lost), and which instructions synchronize (by their opcodes).
"""
from __future__ import annotations

import pytest
from helpers import ROOT, syncc

from syncc.backends.fermi.asm import assemble
from syncc.backends.sim.execute import decode, sync_points
from syncc.backends.sim.machine import FermiConfig
from syncc.core.source import SourceFile

BUGGY = ROOT / "tests" / "sim" / "buggy"

# each buggy program, and the line that puts its missing fence back (its correct neighbour)
FIXES = {
    "publish_no_reader_fence.sync": ("while load_cg(flag[other]) == 0 { }",
                                     "while load_cg(flag[other]) == 0 { }\n        fence gpu"),
    "lock_no_acquire_fence.sync": ("while atomic_cas(lockword[0], 0, 1) != 0 { }",
                                   "while atomic_cas(lockword[0], 0, 1) != 0 { }\n            fence gpu"),
    "ticket_no_release_fence.sync": ("            atomic_exch(serving[0], t + 1)",
                                     "            fence gpu\n            atomic_exch(serving[0], t + 1)"),
    "lock_plain_store_take.sync": ("while load_cg(lockword[0]) != 0 { }\n            lockword[0] = 1",
                                   "while atomic_cas(lockword[0], 0, 1) != 0 { }"),
}


@pytest.mark.parametrize("name", sorted(FIXES))
def test_a_buggy_program_is_exposed_under_hunting_schedules(name):
    # as written: syncc would insert the missing ordering (passes/hand_fences.py)
    runs = [syncc("run", str(BUGGY / name), "--unsafe-skip-hazard-checks", "--unsafe-no-fences",
                  "--policy", f"hunt:{seed}") for seed in (1, 2, 3, 4)]
    assert any(r.code == 1 and "E0901" in r.err for r in runs), [r.err[-300:] for r in runs]


@pytest.mark.parametrize("name", sorted(FIXES))
def test_its_correct_neighbour_never_fails(name, tmp_path):
    old, new = FIXES[name]
    text = (BUGGY / name).read_text()
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new))
    for policy in ("hunt:1", "hunt:2", "hunt:3", "hunt:4", "adversarial:1", "adversarial:2"):
        r = syncc("run", str(path), "--unsafe-skip-hazard-checks", "--unsafe-no-fences", "--policy", policy)
        assert r.code == 0, (policy, r.out, r.err)


def test_a_hunting_seed_repeats_its_run_exactly():
    args = ["run", str(BUGGY / "ticket_no_release_fence.sync"), "--unsafe-skip-hazard-checks", "--unsafe-no-fences",
            "--policy", "hunt:7", "--stats"]
    a, b = syncc(*args), syncc(*args)
    assert a.out == b.out and "cycles" in a.out


LISTING = """
.kernel points
.launch grid(1) block(32)
.param x: global i32[1] = zeros
        MOV R1, c [0x0] [0x20];
        LD R2, [R1];
        IADD R2, R2, 0x1;
        LD.CG R3, [R1];
        IADD R3, R3, 0x1;
        ATOM.ADD R4, [R1], R3;
        IADD R4, R4, 0x1;
spin:
        LD.CG R5, [R1];
        ISETP.EQ.AND P0, pt, R5, RZ, pt;
  @P0   BRA spin;
        IADD R5, R5, 0x1;
        MEMBAR.GL;
        ST [R1], R4;
        EXIT;
"""


def test_hunting_preempts_at_synchronization_points_only():
    kernel = assemble(SourceFile("points.sass", LISTING)).kernels[0]
    code = decode(kernel, {}, 11)
    listing = [(d.ins.name, p) for d, p in zip(code, sync_points(code))]
    assert listing == [("MOV", False), ("LD", False), ("IADD", False),     # a load through L1: not a poll
                       ("LD.CG", False), ("IADD", True),                    # right after a load from L2
                       ("ATOM.ADD", False), ("IADD", True),                 # right after an atomic
                       ("LD.CG", False), ("ISETP.EQ.AND", False), ("BRA", False),   # a polling loop: not in it,
                       ("IADD", True),                                      # but where it ends
                       ("MEMBAR.GL", False), ("ST", False), ("EXIT", False)]   # not before a release


def test_hunt_is_a_seeded_policy():
    assert FermiConfig(policy="hunt:3").check() is None
    assert "hunt:SEED" in FermiConfig(policy="hunt").check()
