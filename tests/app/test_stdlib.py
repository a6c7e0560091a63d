"""The stdlib modules: each checks, builds for ptx, fermi-sass and cuda, is explained, and its
CUDA header compiles with nvcc (where installed) and works on a GPU (marker `gpu`).
Also top-level declarations, which the stdlib is made of (docs/stdlib.md)."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from helpers import ROOT, STDLIB, no_gpu, syncc
from syncc.driver import check_file, compile_file
from syncc.frontend.vending import is_library, operations

LIBRARIES = [p for p in STDLIB if is_library(check_file(str(p)).module)]
DOC = (ROOT / "docs" / "stdlib.md").read_text()


def rel(path) -> str:
    return str(path.relative_to(ROOT))


def test_the_primitive_modules_are_libraries():
    names = {p.stem for p in LIBRARIES}
    assert {"mutex", "semaphore", "barrier", "channel"} <= names


@pytest.mark.parametrize("path", LIBRARIES, ids=lambda p: p.stem)
@pytest.mark.parametrize("target", ["ptx", "fermi-sass", "cuda"])
def test_every_operation_builds(path, target):
    module = check_file(str(path)).module
    r = syncc("build", rel(path), "--target", target)
    assert r.code == 0, r.err
    for info in module.prims.values():
        for op in operations(info, info.impl):
            name = f"{info.decl.name.text}__{op.name}"
            if target == "cuda":
                assert re.search(rf"__device__ \S+ {op.name}\(", r.out), (name, "missing")
            elif target == "ptx":
                assert f".entry {name}(" in r.out, name
            else:
                assert f"kernel {name}" in r.out or name in r.out, name


@pytest.mark.parametrize("path", LIBRARIES, ids=lambda p: p.stem)
def test_every_operation_comes_from_its_declaration(path):
    """An operation is built as a syntax tree at its declaration (no text is rendered and parsed
    again), so every source location of its code lies inside the declaration it vends."""
    comp = compile_file(str(path))
    assert comp.ok and comp.vended
    declared = {v.kernel: v.prim.decl.span for v in comp.vended}
    for k in comp.ir.kernels:
        decl = declared[k.name]
        located = [i.span for b in k.blocks for i in (*b.instrs, b.term) if i.span is not None]
        assert located, k.name
        for span in located:
            assert decl.start <= span.start and span.end <= decl.end, (k.name, span.line, span.col, decl.line)


def test_vending_leaves_out_the_passes_that_need_the_whole_kernel(monkeypatch):
    """A library's operations' kernels run the pipeline without the rows marked `whole_kernel`
    (ir/pipeline.py), which frontend/vending.py explains, one by one."""
    from syncc import frontend
    from syncc.ir import pipeline
    ran = []

    def spy(row):
        def run(k, ctx):
            ran.append((row.name, ctx.vending))
            return row.run(k, ctx)
        return row._replace(run=run)
    monkeypatch.setattr(pipeline, "PASSES", [spy(row) for row in pipeline.PASSES])
    comp = compile_file(str(ROOT / "stdlib" / "mutex.sync"))
    assert comp.ok and comp.vended
    skipped = {row.name for row in pipeline.PASSES if row.whole_kernel}
    assert {vending for _, vending in ran} == {True}
    assert {name for name, _ in ran} == set(pipeline.PASS_NAMES[1:]) - skipped
    explained = re.findall(r"^  \* (\w+)(?: and (\w+))?:", frontend.vending.__doc__, re.M)
    assert {name for pair in explained for name in pair if name} == skipped


@pytest.mark.parametrize("path", LIBRARIES, ids=lambda p: p.stem)
def test_explain_describes_every_declaration(path):
    module = check_file(str(path)).module
    r = syncc("explain", rel(path))
    assert r.code == 0, r.err
    for name, info in module.prims.items():
        line = info.decl.span.line
        assert re.search(rf"^\s+{line}:1\s+{info.kind} `{name}`", r.out, re.M), name
        assert f"kernel {name}__" in r.out


@pytest.mark.parametrize("path", LIBRARIES, ids=lambda p: p.stem)
def test_every_declaration_is_documented(path):
    module = check_file(str(path)).module
    row = next(line for line in DOC.splitlines() if f"`std.{path.stem}`" in line)
    for name in module.prims:
        assert f"`{name}`" in row, f"docs/stdlib.md does not list std.{path.stem}'s `{name}`"


def test_the_ticket_mutex_header():
    r = syncc("build", "stdlib/mutex.sync", "--target", "cuda")
    assert "namespace syncc_mutex {" in r.out
    body = r.out[r.out.index("struct ticket {"):]
    body = body[: body.index("};")]
    assert "int32_t* next;   // global, 1 i32, first value 0" in body
    assert "template <class Body>\n    __device__ void critical(Body&& body) const" in body
    # take a ticket, poll `serving` with acquire, run the body, release with the add
    order = ["atom.relaxed.gpu.global.add.u32", "ld.acquire.gpu.global.u32", "body();",
             "atom.release.gpu.global.add.u32", "__syncwarp(r_lanes);"]
    at = [body.index(s) for s in order]
    assert at == sorted(at), at
    assert "try_critical" not in body        # a ticket cannot be given back


def test_an_abandonable_mutex_has_try_critical():
    r = syncc("build", "stdlib/mutex.sync", "--target", "cuda")
    tas = r.out[r.out.index("struct tas {"):]
    tas = tas[: tas.index("};")]
    assert "__device__ bool try_critical(Body&& body) const" in tas
    assert "return syncc_result;" in tas


def test_a_ring_queue_has_put_many():
    """A @thread ring queue's type puts an array with one reservation: `put_many(values, k)` takes k
    tickets with one atomic, then fills each slot; the counted and @warp queues have none (E0426)."""
    r = syncc("build", "stdlib/queue.sync", "--target", "cuda")
    types = {}
    for name in ("stream", "local", "stages", "lanes", "link"):
        body = r.out[r.out.index(f"struct {name} {{"):]
        types[name] = body[: body.index("\n};")]
    for name in ("stream", "local"):
        elem = "int32_t" if name == "stream" else "uint32_t"
        assert f"__device__ void put_many(const {elem}* values, int32_t k) const" in types[name]
        many = types[name][types[name].index("put_many("):]
        many = many[: many.index("\n    }")]
        assert many.count("atom.") == 1 and "add.u32" in many       # one atomic takes every ticket
        assert "r_syncc_many = k;" in many and "a_syncc_values = values;" in many
    for name in ("stages", "lanes", "link"):
        assert "put_many" not in types[name]


def _example() -> str:
    return re.search(r"```cuda\n(.*?)```", DOC, re.S).group(1)


needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")


def _headers(tmp_path) -> list[str]:
    includes = []
    for path in LIBRARIES:
        r = syncc("build", rel(path), "--target", "cuda", "-o", str(tmp_path / f"{path.stem}.cuh"))
        assert r.code == 0, r.err
        includes.append(f'#include "{path.stem}.cuh"')
    return includes


@needs_nvcc
def test_the_headers_and_the_documented_example_compile(tmp_path):
    includes = _headers(tmp_path)
    (tmp_path / "all.cu").write_text("\n".join(includes) + "\n" + _example().replace('#include "mutex.cuh"', ""))
    p = subprocess.run(["nvcc", "-arch=sm_90", "-std=c++17", "-Werror", "all-warnings", "-c", "all.cu"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-4000:]


# ---- top-level declarations --------------------------------------------------------------

SHARED_LOCK = """
const N = 4
mutex locks[N] in global @thread using ticket      // every kernel of the file may use it

kernel add(total: global i32[N]) launch grid(3) block(64) {
    critical locks[tid % N] { total[tid % N] = total[tid % N] + 1 }
}
kernel twice(total: global i32[N]) launch grid(2) block(32) {
    critical locks[0] { total[0] = total[0] + 2 }
}
host {
    let total = zeros(i32, N)
    launch add(total)
    launch twice(total)
    check total[0] == 3 * 16 + 2 * 2 * 32
    check total[1] == 3 * 16
}
"""


def test_kernels_use_a_top_level_declaration(tmp_path):
    src = tmp_path / "shared_lock.sync"
    src.write_text(SHARED_LOCK)
    r = syncc("run", str(src), "--target", "fermi-sim")
    assert r.code == 0, r.err + r.out
    r = syncc("explain", str(src))
    assert "kernel add" in r.out and "kernel twice" in r.out
    assert r.out.count("3:1      mutex `locks` (global @thread): ticket") == 2


def test_a_top_level_named_barrier_must_fit_the_kernel(tmp_path):
    src = tmp_path / "bar.sync"
    src.write_text("barrier b(128) in shared @warp\nkernel k() launch grid(1) block(64) { sync b }\n")
    r = syncc("check", str(src))
    assert r.code == 1
    assert "error[E0405]: the named barrier `b` of 128 threads cannot fill in a block of 64" in r.err


def test_a_program_imports_a_primitive_module(tmp_path):
    src = tmp_path / "uses.sync"
    src.write_text("import std.mutex\nimport std.hash\n"
                   "kernel k(a: global u32[32]) launch grid(1) block(32) {\n"
                   "    mutex m in shared @thread\n    critical m { a[tid] = hash.mix32(u32(tid)) }\n}\n")
    r = syncc("check", str(src))
    assert r.code == 0, r.err


def test_a_library_is_a_file_of_declarations_only(tmp_path):
    src = tmp_path / "prog.sync"
    src.write_text("mutex m in global @thread\nkernel k() { critical m { } }\n")
    assert not is_library(check_file(str(src)).module)
    r = syncc("build", str(src), "--target", "ptx")
    assert r.code == 0 and ".entry k(" in r.out and "m__critical" not in r.out


# ---- on a GPU ---------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
@needs_nvcc
def test_the_vended_types_keep_their_invariants_on_the_gpu(tmp_path):
    """tests/gpu/vended_stress.cu: ≥ 100 000 operations per vended type, checked on the host."""
    _headers(tmp_path)
    shutil.copy(ROOT / "tests" / "gpu" / "vended_stress.cu", tmp_path)
    (tmp_path / "counter.cu").write_text(_example())
    for name in ("vended_stress", "counter"):
        p = subprocess.run(["nvcc", "-arch=sm_90", "-std=c++17", "-o", name, f"{name}.cu"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stderr[-4000:]
        run = subprocess.run([str(tmp_path / name)], capture_output=True, text=True, timeout=300)
        print(run.stdout)
        assert run.returncode == 0, run.stdout + run.stderr


def _impl_rows():
    """(kind, impl, placements or None, granularities or None, the row) of each implementation
    table in docs/stdlib.md: a `| impl |` table under a kind's heading, or the barriers' table."""
    kinds = {"Mutexes": "mutex", "Semaphores": "semaphore", "Barriers": "barrier", "Channels": "channel",
             "Reader-writer locks": "rwlock", "Latches": "latch"}
    kind, header = None, None
    for line in DOC.splitlines():
        if line.startswith("## "):
            kind, header = kinds.get(line[3:]), None
        elif kind and line.startswith("| ") and header is None:
            header = [cell.strip() for cell in line.strip("|").split("|")]
        elif kind and header and line.startswith("|") and not line.startswith("| ---"):
            cells = dict(zip(header, (cell.strip() for cell in line.strip("|").split("|"))))
            impl = cells["impl"].strip("`")
            split = lambda column: set(cells[column].split(", ")) if column in cells else None  # noqa: E731
            yield kind, impl, split("placements"), split("granularities"), line
        elif not line.startswith("|"):
            header = None


# target → what a row of the tables says where the implementation is that target's default
_SAYS_DEFAULT = {"ptx": ("PTX default", "both targets"), "fermi": ("Fermi default", "both targets")}


def test_the_implementation_tables_are_the_registry():
    """Each documented implementation exists with the placements and granularities it lists, and
    where a row says it is a target's default ("the PTX default", "on both targets"), it is the
    default there (somewhere) and nowhere else."""
    from syncc.ir.impls.registry import CATALOGUE, DEFAULTS
    rows = list(_impl_rows())
    assert {kind for kind, *_ in rows} >= {"mutex", "semaphore", "barrier", "channel", "rwlock"}
    for kind, impl, placements, grans, row in rows:
        entry = CATALOGUE[kind][impl]
        assert placements in (None, set(entry.placements)), row
        assert grans in (None, set(entry.granularities)), row
        said = {target for target, words in _SAYS_DEFAULT.items() if any(w in row for w in words)}
        if said:
            default_on = {key[0] for key, (name, _) in DEFAULTS.items() if key[1] == kind and name == impl}
            assert said == default_on, row
