"""A spent cycle budget is E0910, never a deadlock or livelock: every example, run with a budget
below the length its own full run measured, stops with E0910 (exit status 3) and says how far it
got; with the budget above that length, it finishes.

The simulator reports a deadlock (E0905–E0908) or livelock (E0909) only from proof: no warp can
issue, or the machine came back to a state it was in before (tests/backends/test_fermi_sim.py and the
diagnostics tests show those). These tests pin the other side: a run that is merely long is
never called stuck.
"""
import pytest

from helpers import ROOT, syncc
from syncc.backends.sim.machine import FermiConfig
from syncc.driver import compile_file, parse_define
from syncc.runtime.run import run_program

STUCK_VERDICTS = {"E0905", "E0906", "E0907", "E0908", "E0909"}
# the examples at sizes that keep a full run short; each still takes several launches or
# thousands of cycles
EXAMPLES = {
    "barrier": {}, "chain": {}, "counter": {}, "hashtable": {}, "histogram": {}, "primitives": {},
    "sortedlist": {}, "wavefront": {}, "wavefront_tiled": {"TILE": "7", "TILES": "2"}, "ring": {"ITEMS": "512"},
    "queue": {"ITEMS": "512"}, "pipeline": {"BLOCKS": "2", "TILES": "4"},
    "jacobi": {"ROUNDS": "4"}, "reduction": {}, "bfs": {}, "hash": {}, "scan": {"N": "3000"}, "task": {},
}


def _run(name: str, its: bool, max_cycles: int):
    defines = {k: (parse_define(f"{k}={v}")[1], f"{k}={v}") for k, v in EXAMPLES[name].items()}
    comp = compile_file(str(ROOT / "examples" / f"{name}.sync"), defines, "fermi-sim", 2, its=its)
    assert comp.ok, [str(d) for d in comp.diagnostics]
    before = len(comp.sink.items)
    outcome = run_program(comp, write=lambda s: None, config=FermiConfig(max_cycles=max_cycles, its=its))
    return outcome, [d for d in comp.sink.items[before:] if d.is_error]


def test_every_example_is_listed():
    assert {p.stem for p in (ROOT / "examples").glob("*.sync")} == set(EXAMPLES)


@pytest.mark.parametrize("its", [False, True], ids=["fermi", "its"])
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_a_budget_below_the_real_length_is_E0910(name, its):
    full, errors = _run(name, its, 50_000_000)
    assert full.ok, [str(d) for d in errors]
    longest = max(o.cycles for _, o, *_ in full.runs)
    short, errors = _run(name, its, longest // 2)
    assert not short.ok and short.deadlock          # did not finish: exit status 3
    codes = [d.code for d in errors]
    assert codes[:1] == ["E0910"], codes
    assert not STUCK_VERDICTS & set(codes)
    message = errors[0].message
    assert f"did not finish within {longest // 2} cycles" in message
    assert "does not show that it cannot finish" in message


def test_the_cli_says_how_far_the_run_got():
    r = syncc("run", "examples/wavefront.sync", "--target", "fermi-sim", "--max-cycles", "20000")
    assert r.code == 3, r.err
    assert "error[E0910]" in r.err and "E0905" not in r.err
    assert "it reached cycle 20001" in r.err
    assert "more block(s) finished and" in r.err            # what the cycles after the budget changed
    assert "help: raise the budget with --max-cycles" in r.err


def test_a_run_that_would_finish_just_after_the_budget_says_when():
    full, _ = _run("barrier", False, 50_000_000)
    cycles = full.runs[0][1].cycles
    short, errors = _run("barrier", False, cycles - 100)      # the diagnosis window runs it to the end
    assert errors[0].code == "E0910"
    notes = " ".join(n.message for n in errors[0].notes)
    assert f"it finished at cycle {cycles}" in notes
