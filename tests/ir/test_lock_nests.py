"""Nested locks on one @thread mutex array, on a stack-based GPU (issue 36): which nests structuring
takes all-or-nothing (ir/analysis/lock_nests.py, asked alike by passes/structure.py and checks/locks.py),
and what the checker says about the others (E0701). The programs that show them running are in
tests/hazards (MANIFEST.md, issue 36), tests/properties/nest.sync and the golden tests."""
from __future__ import annotations

import json

import pytest

from helpers import ROOT, syncc
from syncc.ir.analysis.cfg import CFG
from syncc.ir.analysis.lock_nests import nest_at, nest_of
from syncc.ir.parser import parse_ir


def kernel(body: str, impl: str = "ttas", decls: str = ""):
    (k,) = parse_ir(f"""module "t"
kernel @k(@a: global i32[64], @x: global i32[16]) grid(1, 1, 1) block(64, 1, 1) {{
  mutex @m[16] global thread impl={impl}
  mutex @g[16] global thread impl={impl}
{decls}entry:
  %tid: i32 = sreg tid.x
  %i: i32 = rem %tid, 15:i32
{body}
  ret
}}
""").kernels
    return k


def nest(body: str, **kw):
    k = kernel(body, **kw)
    cfg = CFG(k)
    first = next(j for j, ins in enumerate(k.blocks[0].instrs) if ins.op == "mutex.lock")
    return nest_at(k, cfg, "entry", first)


ORDERED = """  mutex.lock @m[%i] region=1
  %j: i32 = add %i, 1:i32
  mutex.lock @m[%j] region=2
  st @x[%i], 1:i32
  mutex.unlock @m[%j] region=2
  st @x[%j], 2:i32
  mutex.unlock @m[%i] region=1"""


def test_a_critical_right_inside_a_critical_is_a_nest():
    n = nest(ORDERED)
    assert n is not None and len(n.locks) == 2
    k = kernel(ORDERED)
    inner = n.locks[1]
    assert nest_of(k, CFG(k), "entry", inner) == n


def test_loads_between_the_locks_are_part_of_a_round():
    n = nest(ORDERED.replace("  %j: i32 = add %i, 1:i32", "  %v: i32 = ld @a[%i]\n  %j: i32 = rem %v, 16:i32"))
    assert n is not None


@pytest.mark.parametrize("between", ["  st @x[%i], 0:i32", "  %o: i32 = atom.add @x[%i], 1:i32",
                                     "  fence acq_rel scope=gpu", "  mutex.lock @g[%i]\n  mutex.unlock @g[%i]"])
def test_what_a_round_could_not_run_again_between_the_locks_makes_no_nest(between):
    assert nest(ORDERED.replace("  %j: i32 = add %i, 1:i32", "  %j: i32 = add %i, 1:i32\n" + between)) is None


def test_locks_of_two_arrays_are_no_nest():
    assert nest(ORDERED.replace("@m[%j]", "@g[%j]")) is None


def test_releases_not_innermost_first_are_no_nest():
    body = """  mutex.lock @m[%i]
  %j: i32 = add %i, 1:i32
  mutex.lock @m[%j]
  st @x[%i], 1:i32
  mutex.unlock @m[%i]
  mutex.unlock @m[%j]"""
    assert nest(body) is None
    assert nest(body.replace("  mutex.unlock @m[%i]\n  mutex.unlock @m[%j]",
                             "  mutex.unlock @m[%j]\n  mutex.unlock @m[%i]")) is not None


def test_three_levels_are_one_nest():
    body = """  mutex.lock @m[%i] region=1
  %j: i32 = add %i, 1:i32
  mutex.lock @m[%j] region=2
  %l: i32 = add %i, 2:i32
  mutex.lock @m[%l] region=3
  st @x[%i], 1:i32
  mutex.unlock @m[%l] region=3
  mutex.unlock @m[%j] region=2
  mutex.unlock @m[%i] region=1"""
    n = nest(body)
    assert n is not None and len(n.locks) == 3


# ---- what the checker says on Fermi ---------------------------------------------------------------

def check(tmp_path, source: str, target: str = "fermi-sim"):
    path = tmp_path / "nest.sync"
    path.write_text(source)
    run = syncc("check", str(path), "--error-format=json", "--target", target)
    return [json.loads(line) for line in run.err.splitlines() if line.startswith("{")]


NEST = """kernel k(a: global i32[64], b: global i32[64], hits: global i32[16]) launch grid(1) block(64) {{
    mutex node[16] in global @thread{using}
    let x = a[tid]
    let y = b[tid]
    if {guard} {{
        critical node[min(x, y)] {{
            {between}critical node[max(x, y)] {{
                hits[x] += 1
            }}
        }}
    }}
}}
"""


@pytest.mark.parametrize("using", ["", " using tas", " using ttas", " using backoff"])
def test_an_ordered_nest_whose_lock_can_be_given_back_is_accepted(tmp_path, using):
    assert check(tmp_path, NEST.format(using=using, guard="x != y", between="")) == []


@pytest.mark.parametrize("using", [" using ticket", " using mcs2"])
def test_an_ordered_nest_of_locks_that_queue_is_e0701_naming_them(tmp_path, using):
    (d,) = check(tmp_path, NEST.format(using=using, guard="x != y", between=""))
    assert d["code"] == "E0701" and f"a {using.split()[-1]} lock queues every thread" in d["message"]
    assert "backoff, tas, ttas" in d["help"]


def test_work_between_the_locks_is_e0701_saying_how_to_write_it(tmp_path):
    (d,) = check(tmp_path, NEST.format(using="", guard="x != y", between="hits[0] += 1\n            "))
    assert d["code"] == "E0701" and "still holding its first" in d["message"]
    assert "nothing between the locks but arithmetic and loads" in d["help"]


def test_a_nest_in_no_proven_order_is_e0701_for_the_livelock_and_e0703(tmp_path):
    got = check(tmp_path, NEST.format(using="", guard="true", between=""))
    assert sorted(d["code"] for d in got) == ["E0701", "E0703"]
    assert "potential livelock" in next(d for d in got if d["code"] == "E0701")["message"]


@pytest.mark.parametrize("guard", ["x != y && lane == 0", "x != y && tid % 32 == 5"])
@pytest.mark.parametrize("using", ["", " using ticket"])
def test_one_lane_per_warp_is_not_refused(tmp_path, guard, using):
    """Where one lane of each warp takes elements of the array, no warp-mate can poll for the one
    it holds: accepted, whether or not the nest is taken all-or-nothing."""
    source = NEST.format(using=using, guard=guard, between="hits[0] += 1\n            ")
    assert check(tmp_path, source) == []


def test_two_lanes_per_warp_are_refused(tmp_path):
    source = NEST.format(using=" using ticket", guard="x != y && lane < 2", between="")
    assert [d["code"] for d in check(tmp_path, source)] == ["E0701"]


def test_ptx_is_unchanged(tmp_path):
    for using in ("", " using ticket"):
        assert check(tmp_path, NEST.format(using=using, guard="x != y", between=""), "ptx") == []


def test_the_remark_says_the_nest_is_taken_all_or_nothing():
    r = syncc("explain", str((ROOT / "tests/hazards/clean/nested_thread_locks.sync").relative_to(ROOT)),
              "--target", "fermi-sim")
    assert r.code == 0
    assert "the 2 nested locks on `node` (lines 13, 14) are taken all-or-nothing" in r.out
