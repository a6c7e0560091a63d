"""Every compilation the tests run verifies the IR after every pass (what --verify-each does).

Under xdist (pyproject.toml: `-n auto --dist worksteal`) the simulator's compiled core is loaded
once for the whole session before any worker needs it: the controller starts one process that
loads it, compiling it into numba's disk cache when the cache is empty (a fresh clone: about
14 s of one core), and each worker's first launch on the core waits for that process and then
reads the cache, instead of every worker compiling the same code at the same time.

The collection puts first the files that never simulate (COMPILE_ONLY): the first worker runs
them while the core compiles (the second, which starts half way down the list, waits, and the
loading process has its core). The files of the longest tests (LONGEST) come next, so that the
session ends on short tests; worksteal gives a worker that runs out half of the other's pending.
"""
import fcntl
import gc
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from syncc.ir import context

context.VERIFY_EACH_DEFAULT = True

ROOT = Path(__file__).resolve().parent.parent

# Test files none of whose tests launches a kernel on the simulator, in this process or another
# (they compile, check, print and parse): the collection runs them first, while the compiled core
# is being loaded. A file that starts simulating only waits for the core (it stays correct).
COMPILE_ONLY = (
    "test_ptx.py", "test_robustness.py", "test_ir_text.py", "test_cuda.py", "test_fences.py",
    "test_targets_doc.py", "test_launch_shapes.py", "test_pipeline_fuzz.py", "test_pipeline_matrix.py",
    "test_grammar.py", "test_sass_asm.py", "test_golden.py", "test_registry.py", "test_language_doc.py",
    "test_check_targets.py", "test_ranges.py", "test_prebuilt.py", "test_lock_nests.py",
    "test_diagnostic_snapshots.py", "test_checker.py", "test_readme.py", "test_layers.py",
    "test_statement_breaks.py", "test_sass.py", "test_smoke.py", "test_handlers.py", "test_hazard_checks.py",
)

_LOAD_CORE = ("import sys; sys.path.insert(0, sys.argv[1]); import simkit; simkit.load_compiled_core()")
_CORE_LOCK = "syncc_core_lock"          # workerinput key: the lock file the loading process holds


# The files whose tests take the most CPU (together about 70% of the suite's; the longest test,
# a queue property under 500 schedules, about 22 s): run right after COMPILE_ONLY, in this
# order, so that the last tests of the session are short ones and the workers finish together.
LONGEST = ("test_primitive_properties.py", "test_engines.py", "test_traces.py", "test_oracle.py",
           "test_sim_budget.py", "test_elision.py")


def _place(item) -> tuple[int, int]:
    name = item.path.name
    if name in COMPILE_ONLY:
        return 0, 0
    if name in LONGEST:
        return 1, LONGEST.index(name)
    return 2, 0


def pytest_collection_modifyitems(session, config, items):
    """COMPILE_ONLY files first, then LONGEST, then the rest, each in collection order (a stable
    sort: every worker collects the same order, as xdist requires)."""
    items.sort(key=_place)


def pytest_collection_finish(session):
    """Take what the session keeps to its end (the modules imported, the items collected) out of
    the cyclic collector's scans: a full collection rescanned all of it, again and again, in tests
    that simulate (the reference engine and the launch set-up make many objects). Objects made
    later are collected as usual. About 7-10% of the CPU of test_engines/test_traces tests."""
    gc.freeze()


def _workers(config) -> bool:
    n = getattr(config.option, "numprocesses", None)
    return bool(n) and getattr(config.option, "dist", "no") != "no"


def pytest_configure(config):
    if hasattr(config, "workerinput"):
        _wait_for_the_core(config.workerinput.get(_CORE_LOCK))
    elif _workers(config):
        _start_loading_the_core(config)


def _start_loading_the_core(config) -> None:
    """In the xdist controller: start the process that loads (or compiles) the compiled core,
    holding an exclusive lock on a file until it exits."""
    fd, path = tempfile.mkstemp(prefix="syncc-core-", suffix=".lock")
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        proc = subprocess.Popen([sys.executable, "-c", _LOAD_CORE, str(ROOT / "tests")], cwd=ROOT,
                                pass_fds=(fd,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    except OSError:
        os.close(fd)
        os.unlink(path)
        return
    os.close(fd)              # the child's copy of the descriptor holds the lock until it exits
    config._syncc_core = (path, proc)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """xdist: tell each worker which lock to wait on."""
    core = getattr(node.config, "_syncc_core", None)
    if core is not None:
        node.workerinput[_CORE_LOCK] = core[0]


def pytest_unconfigure(config):
    core = getattr(config, "_syncc_core", None)
    if core is not None:
        path, proc = core
        if proc.poll() is None:          # a session that ended first (--collect-only, -x): numba
            proc.kill()                  # writes each cache file whole, so none is left half written
        proc.wait()
        os.unlink(path)


def _wait_for_the_core(path: str | None) -> None:
    """In a worker: the first launch on the compiled core first waits until the loading process
    has finished (it then reads numba's cache); launches on the reference engine never wait."""
    if path is None:
        return
    from syncc.backends.sim import core
    bridge, _ = core.load()
    if bridge is None:
        return
    engine = bridge.E
    advance = engine.advance

    def first_advance(state):
        engine.advance = advance
        with open(path, "rb") as f:
            fcntl.flock(f.fileno(), fcntl.LOCK_SH)
        return advance(state)
    engine.advance = first_advance


@pytest.fixture(scope="session")
def compiled_core():
    """The simulator's compiled core, loaded into this process, for a test that forks workers
    which launch kernels: they inherit it instead of each loading it again (about 0.6 s of CPU
    a worker; 14 s each when numba's cache is empty)."""
    from simkit import load_compiled_core
    load_compiled_core()
