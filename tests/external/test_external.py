"""Other people's tests (tests/external/README.md): syncc's verdict on each translated case is the
one its `// expect:` lines pin, for each target it is checked for, and a case that pins `// sim:`
does that on the simulator (its hazard checks skipped, one adversarial schedule on weak memory)."""
from __future__ import annotations

import pytest

from helpers import syncc
from external.harness import Case, cases, check, outcome, sim_args, targets_of

CASES = cases()


def _cli(*args):
    r = syncc(*args)
    return r.code, r.out, r.err


def _id(case: Case) -> str:
    return case.name


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_syncc_verdict_is_the_pinned_one(case):
    if case.pending:
        pytest.skip(f"not yet expressible: {case.pending}")
    for target in targets_of(case):
        code, got, err = check(_cli, case, target)
        want = case.expect[target]
        assert got == want, f"{case.name} ({target}): expected {want}, got {got}\n{err}"
        assert code == (1 if case.rejected(target) else 0), err


SIMULATED = [c for c in CASES if c.sim and not c.pending]


@pytest.mark.slow
@pytest.mark.parametrize("case", SIMULATED, ids=_id)
def test_simulator_outcome_is_the_pinned_one(case):
    r = syncc(*sim_args(case, seed=1))
    assert outcome(r.code, r.err) == case.sim, r.err[-3000:]
