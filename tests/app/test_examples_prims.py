"""examples/primitives.sync (seed 001 §6): it runs and verifies itself on the simulator, its
checks catch broken primitives, and it runs at full scale on a GPU (marker `gpu`)."""
from __future__ import annotations

import pytest

from helpers import ROOT, no_gpu, syncc
from syncc.driver import check_file

EXAMPLE = ROOT / "examples" / "primitives.sync"
SMALL = ["-D", "BLOCKS=4", "-D", "ITERS=3"]


def run(*args: str, path=EXAMPLE):
    return syncc("run", str(path), *args)


def test_each_kernel_uses_the_paper_implementation():
    module = check_file(str(EXAMPLE)).module
    got = {name: [(p.kind, p.placement, p.granularity, p.impl.name) for p in k.prims]
           for name, k in module.kernels.items()}
    assert got == {
        "barrier_atomic": [("barrier", "global", "grid", "atomic")],
        "barrier_xf": [("barrier", "global", "grid", "xf")],
        "barrier_hierarchical": [("barrier", "global", "grid", "hierarchical")],
        "mutex_tas": [("mutex", "global", "block", "tas")],
        "mutex_backoff": [("mutex", "global", "block", "backoff")],
        "mutex_ticket": [("mutex", "global", "block", "ticket")],
        "sem_spin": [("semaphore", "global", "block", "spin")],
        "sem_backoff": [("semaphore", "global", "block", "backoff")],
        "sem_sleeping": [("semaphore", "global", "block", "sleeping")],
    }
    assert all(k.block == (128, 1, 1) and k.grid is None for k in module.kernels.values())


@pytest.mark.parametrize("defines", [
    [],                                          # the defaults of the small sizes below
    ["-D", "SEM_COUNT=1"],                       # a semaphore that is a mutex
    ["-D", "SEM_COUNT=10"],                      # more permits than blocks: all 4 get in at once
    ["-D", "CHECK=false"],                       # what the benchmark runs
], ids=["count2", "count1", "count10", "nocheck"])
def test_runs_and_verifies_itself_on_the_simulator(defines):
    r = run(*SMALL, *defines)
    assert r.code == 0, r.err + r.out
    assert "blocks: 4 operations per kind: 12" in r.out


def in_kernel(source: str, kernel: str, old: str, new: str) -> str:
    """`source` with `old` replaced by `new` inside one kernel only."""
    start = source.index(f"kernel {kernel}(")
    end = min(i for i in (source.find("\nkernel ", start + 1), source.find("\nhost ", start + 1)) if i > 0)
    body = source[start:end]
    assert old in body, f"{kernel} has no {old!r}"
    return source[:start] + body.replace(old, new) + source[end:]


BROKEN = [
    # a grid barrier left out: the blocks that arrive first read a round another block has not written
    *[(f"barrier_{b}", "        sync b\n", "", f"{b} barrier: a block passed before every block arrived")
      for b in ("atomic", "xf", "hierarchical")],
    # no lock at all: two blocks inside lose increments of the plain counter (the race check
    # sees it before it runs: E0731, two blocks storing to the counter with nothing between)
    *[(f"mutex_{m}", "critical m {", "if true {", "error[E0731]") for m in ("tas", "backoff", "ticket")],
    # one permit too many: the holders of the first round see one more than the count inside
    *[(f"sem_{s}", "semaphore s(SEM_COUNT)", "semaphore s(SEM_COUNT + 1)",
       f"{s} semaphore: the peak of holders is not its count") for s in ("spin", "backoff", "sleeping")],
]


@pytest.mark.parametrize("kernel, old, new, message", BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_primitive_fails_its_check(tmp_path, kernel, old, new, message):
    broken = tmp_path / "broken.sync"
    broken.write_text(in_kernel(EXAMPLE.read_text(), kernel, old, new))
    r = run(*SMALL, path=broken)
    assert r.code == 1 and ("E0901" in r.err or "E0731" in r.err) and message in r.err, r.err + r.out


def test_a_semaphore_that_admits_too_few_never_finishes(tmp_path):
    """Its count is never reached, so the first round's holders wait for ever: the simulator
    finds that nothing can change and stops the run (exit 3)."""
    broken = tmp_path / "broken.sync"
    broken.write_text(in_kernel(EXAMPLE.read_text(), "sem_spin", "semaphore s(SEM_COUNT)",
                                "semaphore s(SEM_COUNT - 1)"))
    r = run(*SMALL, "-D", "SEM_COUNT=3", path=broken)
    assert r.code == 3 and "sem_spin" in r.err, r.err + r.out


def test_checks_clean_at_gpu_scale():
    r = syncc("check", str(EXAMPLE), "--target", "ptx", "-D", "BLOCKS=1056", "-D", "ITERS=50")
    assert r.code == 0 and "warning" not in r.err, r.err


def test_gpu_scale_is_too_large_for_fermi():
    """The host block launches the grid-barrier kernels with grid(BLOCKS): 1056 blocks of 128 threads
    are resident at once on an H100, not on a GTX480 (15 SMs × 8 blocks), so the launch's shape,
    not only the declared one, is checked (E0708, at the launch)."""
    r = syncc("check", str(EXAMPLE), "--target", "fermi-sim", "-D", "BLOCKS=1056", "-D", "ITERS=50")
    assert r.code == 1 and "E0708" in r.err and "this launch runs 1056 blocks" in r.err, r.err
    assert "launch barrier_atomic(done, seen, early, ITERS) grid(BLOCKS)" in r.err, r.err


@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
@pytest.mark.parametrize("per_sm", [1, 8])
@pytest.mark.parametrize("count", [1, 2, 10, 120])
def test_runs_on_the_gpu_at_scale(per_sm, count):
    """One and eight blocks per SM (132 and 1056 on an H100): every block is resident at once,
    which the grid barriers need (the launcher checks the occupancy and launches cooperatively)."""
    from syncc.runtime.gpu import device
    blocks = device().sms * per_sm
    r = syncc("run", str(EXAMPLE), "--target", "gpu", "--timeout", "60", "-D", f"BLOCKS={blocks}",
              "-D", "ITERS=50", "-D", f"SEM_COUNT={count}")
    assert r.code == 0, r.err + r.out
    assert f"blocks: {blocks} operations per kind: {blocks * 50}" in r.out
