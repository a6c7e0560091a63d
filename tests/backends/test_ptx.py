"""The PTX back end: every example, stdlib module and matrix program compiles to PTX that
ptxas assembles, for the oldest architecture the ptxas at hand supports (sm_70 where it
still does; CUDA 13 dropped it, so then sm_75) and for sm_90.

Skipped, with the reason, where no ptxas is found (PATH, or the cuda-tools extra)."""
from __future__ import annotations

import pytest

from helpers import EXAMPLES, ROOT, STDLIB, syncc
from matrix_programs import programs
from syncc.backends.ptx import build_ptx
from syncc.backends.ptx.tools import ToolError, find_tool, ptxas_archs, run_tool
from syncc.driver import compile_file

needs_ptxas = pytest.mark.skipif(find_tool("ptxas") is None,
                                 reason="ptxas is not on PATH and the cuda-tools extra is not installed")


def archs() -> list[str]:
    have = ptxas_archs()
    oldest = "sm_70" if "sm_70" in have else "sm_75"
    return [oldest, "sm_90"]


def assemble(ptx: str, arch: str, tmp_path) -> None:
    path = tmp_path / f"k_{arch}.ptx"
    path.write_text(ptx)
    try:
        run_tool("ptxas", [f"-arch={arch}", str(path), "-o", str(tmp_path / "k.cubin")])
    except ToolError as e:
        pytest.fail(f"{e}\n--- PTX ---\n{ptx}")


@needs_ptxas
@pytest.mark.parametrize("path", EXAMPLES + STDLIB, ids=lambda p: str(p.relative_to(ROOT)))
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_example_assembles(path, opt, tmp_path):
    for arch in archs():
        r = syncc("build", str(path.relative_to(ROOT)), "--target", "ptx", "--arch", arch, opt)
        assert r.code == 0, r.err
        # 8.0, but 8.6 exactly where a polling loop ends with sm_90's fence.acquire
        split = arch == "sm_90" and "fence.acquire." in r.out
        assert f".target {arch}" in r.out and f".version {'8.6' if split else '8.0'}\n" in r.out
        assemble(r.out, arch, tmp_path)


PROGRAMS = list(programs())


@needs_ptxas
@pytest.mark.parametrize("name, source", PROGRAMS, ids=[n for n, _ in PROGRAMS])
def test_every_implementation_assembles(name, source, tmp_path):
    src = tmp_path / f"{name}.sync"
    src.write_text(source)
    comp = compile_file(str(src), target="ptx", opt=0)
    assert comp.ir is not None, comp.diagnostics
    for arch in archs():
        assemble(build_ptx(comp.ir, arch).text, arch, tmp_path)


@pytest.mark.parametrize("elem, negates", [("u32", False), ("i32", True), ("u64", False), ("i64", True)])
def test_abs_of_an_unsigned_value_is_the_value(elem, negates, tmp_path):
    """abs(x) of an unsigned x is x (not x negated when its top bit is set, as a signed compare
    would make it): docs/language.md §10."""
    src = tmp_path / "abs.sync"
    src.write_text(f"kernel k(a: global {elem}[32], x: {elem}) launch grid(1) block(32) {{ a[tid] = abs(x) }}\n")
    comp = compile_file(str(src), target="ptx", opt=0)
    text = build_ptx(comp.ir, "sm_90").text
    text = text[text.index(".entry"):]
    assert ("abs.s" in text or "neg.s" in text or "selp" in text) == negates, text


FLOATS = ROOT / "tests" / "gpu" / "float_ops.sync"


@needs_ptxas
@pytest.mark.parametrize("opt", [0, 2])
def test_floats_assemble_and_keep_ieee_rounding(opt, tmp_path):
    """tests/gpu/float_ops.sync (every float operation, conversion and atomic) assembles; each
    operation is the correctly rounded one (`.rn`, so ptxas fuses nothing into an fma the program
    did not write), a float to an integer saturates, and f32 min/max atomics are a CAS loop."""
    comp = compile_file(str(FLOATS), target="ptx", opt=opt)
    assert comp.ir is not None, comp.diagnostics
    for arch in archs():
        text = build_ptx(comp.ir, arch).text
        assemble(text, arch, tmp_path)
    for instruction in ("add.rn.f32", "mul.rn.f32", "div.rn.f32", "sqrt.rn.f32", "fma.rn.f32", "add.rn.f64",
                        "div.rn.f64", "sqrt.rn.f64", "fma.rn.f64", "cvt.rzi.s32.f32", "cvt.rn.f32.f64",
                        "atom.relaxed.gpu.global.cas.b32", "add.f32", "add.f64", "min.f32", "max.f64"):
        assert instruction in text, instruction
    assert "mad.f32" not in text and ".ftz" not in text
    # `atomics`' unread atomic_add is a reduction; at -O2 so is `binned`'s float-add critical section
    assert text.count("red.relaxed.gpu.global.add.f32") == (2 if opt == 2 else 1)


def test_float_comparisons_are_ordered_but_not_equal_is_unordered(tmp_path):
    """NaN compares false except `!=` (docs/language.md §5)."""
    src = tmp_path / "cmp.sync"
    src.write_text("kernel k(a: global f32[32], b: global bool[6][32]) launch grid(1) block(32) {\n"
                   "    let x = a[tid]\n    let y = a[31 - tid]\n"
                   "    b[0][tid] = x == y\n    b[1][tid] = x != y\n    b[2][tid] = x < y\n"
                   "    b[3][tid] = x <= y\n    b[4][tid] = x > y\n    b[5][tid] = x >= y\n}\n")
    comp = compile_file(str(src), target="ptx", opt=0)
    text = build_ptx(comp.ir, "sm_90").text
    text = text[text.index(".entry"):]
    for pred in ("eq", "neu", "lt", "le", "gt", "ge"):
        assert f"setp.{pred}.f32" in text, pred


SCOPED = [ROOT / "tests" / "golden" / "ptx" / "scoped_atomics.sync",
          *sorted((ROOT / "tests" / "hazards" / "clean").glob("scoped_*.sync"))]


@needs_ptxas
@pytest.mark.parametrize("path", SCOPED, ids=lambda p: p.stem)
def test_scoped_atomics_assemble(path, tmp_path):
    """`atom`/`red` with `.cta`, `.gpu` and `.sys` on global and shared words (docs/targets.md)."""
    for arch in archs():
        r = syncc("build", str(path.relative_to(ROOT)), "--target", "ptx", "--arch", arch)
        assert r.code == 0, r.err
        assemble(r.out, arch, tmp_path)
