"""Every compilation the tests run verifies the IR after every pass (what --verify-each does)."""
from pathlib import Path

import pytest

from syncc.ir import context

context.VERIFY_EACH_DEFAULT = True

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def compiled_core():
    """The simulator's compiled core, loaded into this process (from numba's disk cache, or
    compiled there when the cache is empty) by one small launch, for a test that forks workers
    which launch kernels: they inherit it instead of each loading it again (about 0.6 s of CPU
    a worker; 35 s each on a fresh clone)."""
    from simkit import simulate
    from syncc.backends.sim import core
    if core.load()[0] is not None:
        run = simulate((ROOT / "examples" / "sass" / "listing01_atomic_add.sass").read_text())
        assert run.status == "finished", run.status
