"""A target is one entry in syncc/backend_table.py (docs/architecture.md, "A target"): a toy one,
added here in a few lines and nowhere else, is checked, built and run by the command line and the
Python API. Also the launchers of today's entries, and what a machine model without
implementation defaults of its own says."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import syncc
from helpers import ROOT, syncc as cli
from syncc.backend_table import BACKENDS, Backend
from syncc.driver import compile_file
from syncc.ir.impls.registry import NoDefault
from syncc.ir.machine_model import PTX
from syncc.ir.printer import print_module

# ptx's machine under another name, taking ptx's implementation defaults
TOY = replace(PTX, name="toy", title="a toy machine", defaults_of="ptx", brief="a toy machine")

FILL = """kernel fill(a: global i32[4]) launch grid(1) block(4) {
    a[tid] = tid
}

host {
    var a = zeros(i32, 4)
    launch fill(a)
    print "a:", a
}
"""

# W0702 on a machine with independent thread scheduling (ptx, toy), E0701 on Fermi's stack
SPIN = """kernel increment(lockword: global i32[1], counter: global i32[1]) launch grid(1) block(64) {
    while atomic_cas(lockword[0], 0, 1) != 0 { }
    fence gpu
    counter[0] += 1
    fence gpu
    atomic_exch(lockword[0], 0)
}
"""


class ToyLauncher:
    """Runs a launch by writing 7 into every array it is given."""

    def __init__(self, comp, options):
        self.kernels = {k.name for k in comp.ir.kernels}
        self.runs = []

    def __call__(self, name, args, grid, block, span):
        assert name in self.kernels
        for a in args:
            if isinstance(a, np.ndarray):
                a[...] = 7
        self.runs.append((name, grid, block))


@pytest.fixture
def toy(monkeypatch):
    """The toy target: the one entry (its back end and launcher would be its package)."""
    monkeypatch.setitem(BACKENDS, "toy", Backend(
        "toy", TOY, "a toy target", launch=ToyLauncher,
        build=lambda comp, options: "".join(f"toy kernel {k.name}\n" for k in comp.ir.kernels)))


def write(tmp_path, text: str, name: str = "k.sync") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_toy_target_builds(toy):
    r = cli("build", "examples/wavefront.sync", "--target", "toy")
    assert (r.code, r.out) == (0, "toy kernel nw\n"), r.err


def test_check_checks_every_machine_model_of_the_table(toy, tmp_path):
    r = cli("check", "examples/wavefront.sync")
    assert (r.code, r.err) == (0, "syncc: 1 file checked for ptx, fermi and toy: no problems\n")
    path = write(tmp_path, SPIN)
    r = cli("check", path, "--color", "never")
    assert r.code == 1 and r.err.endswith("checked for ptx, fermi and toy: 1 error, 1 warning\n"), r.err
    w0702, e0701 = r.err.split("\n\n")[:2]
    assert "warning[W0702]" in w0702 and w0702.splitlines()[-2] == "note: on ptx and toy"
    assert "error[E0701]" in e0701
    assert e0701.splitlines()[-2] == "note: on fermi (fermi-sim, fermi-sass): stack-based reconvergence"
    r = cli("check", path, "--target", "toy", "--color", "never", "--error-format", "json")
    assert r.code == 0 and '"code": "W0702"' in r.err and '"targets": ["toy"]' in r.err, r.err


def test_a_finding_for_the_toy_model_alone_names_its_targets(toy):
    from syncc.backend_table import machine_models
    from syncc.driver import found_on
    assert found_on(["toy"], machine_models()) == "on toy (toy): a toy machine"
    assert found_on(["ptx", "fermi", "toy"], machine_models()) == "on all of ptx, fermi and toy"


def test_a_toy_target_runs_the_host_block(toy, tmp_path):
    r = cli("run", write(tmp_path, FILL), "--target", "toy")
    assert (r.code, r.out) == (0, "a: [7 7 7 7]\n"), r.err


def test_the_api_compiles_for_a_toy_target_and_launches_on_it(toy, tmp_path):
    prog = syncc.compile(write(tmp_path, FILL), target="toy")
    assert prog.default_target == "toy"
    a = np.zeros(4, np.int32)
    prog.fill(a)
    assert a.tolist() == [7, 7, 7, 7]
    assert prog.launcher("toy", 10.0).runs == [("fill", (1, 1, 1), (4, 1, 1))]
    lines = []
    prog.run(write=lines.append)
    assert lines == ["a: [7 7 7 7]"]


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.sync")), ids=lambda p: p.stem)
def test_a_model_that_takes_ptx_defaults_compiles_as_ptx(toy, path):
    """The toy model is ptx's machine: every example compiles to the same IR (its remarks name the
    model), so nothing on the way looks a model up by its name alone."""
    ptx, toy_ = compile_file(str(path), target="ptx"), compile_file(str(path), target="toy")
    assert ptx.ok and toy_.ok
    assert print_module(toy_.ir) == print_module(ptx.ir)
    assert [r.message.replace("toy", "ptx") for r in toy_.context.remarks] == [r.message for r in ptx.context.remarks]


def test_a_model_without_defaults_says_so(monkeypatch, tmp_path):
    """A new kind of machine with no `default(...)` rows and no defaults_of: choosing an
    implementation for a primitive declared without `using` is a NoDefault naming the model, the
    kind and the place (not a KeyError); a program that needs no default compiles."""
    bare = replace(PTX, name="bare", title="a machine of a new kind")
    monkeypatch.setitem(BACKENDS, "bare", Backend("bare", bare, "a new kind of machine"))
    locked = "mutex m in global @thread\nkernel k(c: global i32[1]) launch grid(1) block(32) {\n    BODY\n}\n"
    for body in ("critical m { c[0] += 1 }", "if trylock m { c[0] += 1\n unlock m }"):
        with pytest.raises(NoDefault, match=r"`bare` has no default mutex in global memory at @thread") as info:
            compile_file(write(tmp_path, locked.replace("BODY", body)), target="bare")
        assert not isinstance(info.value, KeyError)
    assert compile_file(write(tmp_path, FILL), target="bare").ok
    assert compile_file(write(tmp_path, locked.replace("BODY", "critical m { c[0] += 1 }")
                              .replace("@thread", "@thread using ticket")), target="bare").ok


class FakeGpuLauncher:
    """Stands in for runtime/gpu.py's GpuLauncher (no GPU here): records how it was made and called."""
    made: list = []
    leaves_kernels_running = True

    def __init__(self, module, timeout=10.0, arch=None, line_info=False):
        self.made.append((tuple(k.name for k in module.kernels), timeout, line_info))
        self.calls = []

    def __call__(self, name, args, grid, block, span=None):
        self.calls.append((name, grid, block))
        for a in args:
            if isinstance(a, np.ndarray):
                a[...] = 1


@pytest.fixture
def fake_gpu(monkeypatch):
    from syncc.runtime import gpu
    FakeGpuLauncher.made = []
    monkeypatch.setattr(gpu, "GpuLauncher", FakeGpuLauncher)
    return FakeGpuLauncher.made


def test_the_gpu_entry_makes_the_gpu_launcher(fake_gpu, tmp_path):
    """The command line's and the API's runs on "gpu" go through its entry's launcher, made at the
    first launch with the timeout and --line-info given."""
    path = write(tmp_path, FILL)
    r = cli("run", path, "--target", "gpu", "--timeout", "3", "--line-info")
    assert (r.code, r.out) == (0, "a: [1 1 1 1]\n"), r.err
    assert fake_gpu == [(("fill",), 3.0, True)]
    prog = syncc.compile(path)
    assert prog.default_target == "gpu"
    a = np.zeros(4, np.int32)
    prog.fill(a, timeout=5.0)
    assert a.tolist() == [1, 1, 1, 1] and fake_gpu[-1] == (("fill",), 5.0, False)
    assert prog.launcher("gpu", 5.0).calls == [("fill", (1, 1, 1), (4, 1, 1))]
    prog.run(write=lambda s: None, timeout=7.0)
    assert fake_gpu[-1] == (("fill",), 7.0, False)
    with pytest.raises(ValueError, match="sim_config is for launches on the simulator"):
        prog.fill(a, sim_config=object())


def test_a_program_that_launches_nothing_never_makes_a_launcher(fake_gpu, tmp_path):
    r = cli("run", write(tmp_path, 'host {\n    print "no kernels"\n}\n'), "--target", "gpu")
    assert (r.code, r.out, fake_gpu) == (0, "no kernels\n", []), r.err


def test_the_simulator_entry_says_what_it_cannot_run_before_the_host_block_starts(tmp_path):
    wide = "struct Wide { key: i32, big: i64 }\n" + FILL.replace("i32", "Wide").replace("a[tid] = tid", "a[tid].key = tid") \
        .replace("    launch", '    print "before"\n    launch')        # a record's 64-bit field: E0801 on Fermi
    r = cli("run", write(tmp_path, wide), "--target", "fermi-sim")
    assert r.code == 1 and r.out == "" and "error[E0801]" in r.err, (r.out, r.err)
