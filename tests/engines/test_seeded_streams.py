"""The compiled core's Mersenne Twister draws what CPython's random.Random draws, so that a
seeded policy (`random:SEED`, `adversarial:SEED`) names the same schedule on both engines."""
from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba", reason="numba is not installed: no compiled core")
from syncc.backends.sim.core import engine as E


@pytest.mark.parametrize("seed", [0, 1, 7, 7919 * 3 + 5, 2**40 + 3])
def test_draws_match_cpython_random(seed):
    ref = random.Random(seed)
    MT = np.zeros((2, E.MT_WORDS + 1), np.int64)       # stream 1, so that the row index matters
    MT[1] = ref.getstate()[1]
    for i in range(3000):                                # several twists of the 624-word state
        n = (i * 7919) % 5000 + 1
        if i % 4 == 0:
            assert E.mt_random(MT, 1) == ref.random()
        elif i % 4 == 1:
            assert E.mt_below(MT, 1, n) == ref.randrange(n)
        elif i % 4 == 2:
            assert E.mt_below(MT, 1, 2000) + 1 == ref.randint(1, 2000)
        else:
            items = list(range(n % 40 + 1))
            assert items[E.mt_below(MT, 1, len(items))] == ref.choice(items)
    assert tuple(MT[1].tolist()) == ref.getstate()[1]     # and the state, index included
    assert not MT[0].any()


def test_powers_of_two_and_one():
    ref = random.Random(11)
    MT = np.array([ref.getstate()[1]], np.int64)
    for n in [1, 2, 64, 2**31, 2**32 - 1, 3, 2**16 + 1] * 50:
        assert E.mt_below(MT, 0, n) == ref.randrange(n)


@pytest.mark.parametrize("seed", [0, 1, 7, 12345 * 7919 + 7, 2**32 - 1, 2**32, 2**40 + 3, -5, 3**90])
def test_seeding_is_cpythons(seed):
    """mt_seed sets the state random.Random(seed) starts from (the bridge seeds each scheduler's
    stream in the core rather than copying 625 words out of a Random per scheduler and launch)."""
    MT = np.zeros((2, E.MT_WORDS + 1), np.int64)
    E.mt_seed(MT, 1, E.seed_key(seed))
    assert tuple(MT[1].tolist()) == random.Random(seed).getstate()[1]
    assert not MT[0].any()
