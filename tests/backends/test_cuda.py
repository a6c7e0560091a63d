"""`--target cuda`: the CUDA C++ header compiles with nvcc, without a warning, for every
example and for every implementation of every primitive (skipped without nvcc)."""
from __future__ import annotations

import subprocess

import pytest

from helpers import EXAMPLES, ROOT, syncc
from matrix_programs import programs
from syncc.backends.cuda import build_cuda
from syncc.backends.ptx.tools import find_tool
from syncc.driver import compile_file

pytestmark = pytest.mark.skipif(find_tool("nvcc") is None, reason="nvcc is not on PATH")


def nvcc(cu, tmp_path):
    p = subprocess.run([find_tool("nvcc"), "-arch=sm_90", "-std=c++17", "-Werror", "all-warnings", "-c", str(cu),
                        "-o", str(tmp_path / "t.o")], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert p.returncode == 0, p.stderr[-4000:]


def test_the_examples_compile_together(tmp_path):
    includes = []
    for path in EXAMPLES:
        r = syncc("build", str(path.relative_to(ROOT)), "--target", "cuda", "-o", str(tmp_path / f"{path.stem}.cuh"))
        assert r.code == 0, r.err
        includes.append(f'#include "{path.stem}.cuh"')
    cu = tmp_path / "all.cu"
    cu.write_text("\n".join(includes) + "\nint main() { return 0; }\n")
    nvcc(cu, tmp_path)


def test_every_implementation_compiles(tmp_path):
    includes = []
    for n, (name, source) in enumerate(programs()):
        src = tmp_path / f"m{n}.sync"
        src.write_text(source)
        comp = compile_file(str(src), target="ptx", opt=n % 3 and 2)
        assert comp.ir is not None, (name, comp.diagnostics)
        (tmp_path / f"m{n}.cuh").write_text(build_cuda(comp.ir))
        includes.append(f'#include "m{n}.cuh"')
    cu = tmp_path / "matrix.cu"
    cu.write_text("\n".join(includes) + "\nint main() { return 0; }\n")
    nvcc(cu, tmp_path)


def test_the_header_says_what_a_launch_needs():
    r = syncc("build", "examples/hashtable.sync", "--target", "cuda")
    assert "namespace syncc_hashtable {" in r.out
    assert "__global__ void insert(uint32_t* __restrict__ a_keys" in r.out
    assert "constexpr int32_t insert_bucket_word_init = 0;   // bucket.word: state, 64 i32" in r.out
    assert "atom.acquire.gpu.global.cas.b32" in r.out and "atom.release.gpu.global.exch.b32" in r.out
