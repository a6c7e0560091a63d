"""The IR's text form: print → parse → print is the identity after every pass of every
example and hazard-free program, on both targets; and docs/ir.md names every operation
and every pass."""
from __future__ import annotations

import re

import pytest

from helpers import EXAMPLES, ROOT
from syncc.driver import compile_file
from syncc.ir.ops import OPS
from syncc.ir.parser import parse_ir
from syncc.ir.pipeline import PASS_NAMES
from syncc.ir.printer import print_module
from syncc.ir.verify import verify_module

DOC = (ROOT / "docs" / "ir.md").read_text()


class EveryPass(str):
    """A `dump_after` that names every pass: one compilation dumps the module after each of them.
    The pipeline is deterministic, so these are the modules that one compilation per pass, each
    dumping after that pass, would give; and the tests verify after every pass anyway
    (conftest.py), which is all that naming a pass adds besides the dump."""

    def __eq__(self, other):
        return other in PASS_NAMES

    __hash__ = str.__hash__


def stages(path, target):
    """(pass, module) after every pass."""
    seen = []
    comp = compile_file(str(path), target=target, dump_after=EveryPass("every pass"),
                        dump=lambda n, m: seen.append((n, m)))
    assert comp.ir is not None
    return seen


@pytest.mark.parametrize("target", ["ptx", "fermi-sim"])
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_print_parse_print(path, target):
    for name, module in stages(path, target):
        text = print_module(module)
        again = parse_ir(text)
        assert print_module(again) == text, f"after {name}"
        stage = "lowered" if PASS_NAMES.index(name) < PASS_NAMES.index("structure") else \
            "structured" if PASS_NAMES.index(name) < PASS_NAMES.index("expand_primitives") else "expanded"
        verify_module(again, stage, name)


def test_the_doc_names_every_operation():
    missing = [op for op in OPS if not re.search(rf"[` ]{re.escape(op)}[` ]", DOC)]
    assert not missing, f"docs/ir.md does not mention: {missing}"


def test_the_doc_has_a_section_per_pass():
    assert [m for m in re.findall(r"^### (\w+)$", DOC, re.M)] == PASS_NAMES


def test_float_immediates_read_back_as_the_same_value():
    """A float immediate prints as the shortest decimal of its value (the specials with a sign) and
    reads back bit for bit: -0.0, a subnormal, an f32 that is not a short decimal, inf and NaN."""
    import math
    import struct
    from syncc.core.types import F32, F64
    from syncc.ir.nodes import imm
    values = [(-0.0, F32), (1e-40, F32), (1 / 3, F32), (1 / 3, F64), (5e-324, F64), (math.inf, F32),
              (-math.inf, F64), (math.nan, F32), (3.4028234663852886e38, F32)]
    body = "".join(f"  %v{i}: {t} = mov {imm(v, t)}\n" for i, (v, t) in enumerate(values))
    text = ("module \"t\"\nkernel @k() grid(1, 1, 1) block(1, 1, 1) {\nentry:\n" + body + "  ret\n}\n")
    module = parse_ir(text)
    got = [ins.args[0] for ins in module.kernels[0].blocks[0].instrs]
    for (v, t), g in zip(values, got):
        want = imm(v, t)
        assert g.type == t and struct.pack("<d", g.value) == struct.pack("<d", want.value) or \
            (math.isnan(g.value) and math.isnan(want.value)), (v, t, g)
    assert print_module(module).count("+inf:f32") == 1 and "+nan:f32" in print_module(module)


def test_an_array_sized_at_launch_reads_back(tmp_path):
    """`@x: global f32[n]` (a size the launch gives) and `bounds.check %i, %len` print and read back
    after every pass."""
    path = tmp_path / "sized.sync"
    path.write_text("kernel k(n: i32, x: global f32[n][2], m: u32, y: global i32[m]) launch grid(2) block(32) {\n"
                    "    if gtid < n { x[gtid][1] = f32(y[tid]) }\n}\n")
    for name, module in stages(path, "ptx"):
        text = print_module(module)
        assert "@x: global f32[n][2]" in text and "@y: global i32[m]" in text
        assert print_module(parse_ir(text)) == text, f"after {name}"
    assert re.search(r"bounds\.check %[\w.]+, %[\w.]+ array=x", text) and re.search(r"bounds\.check %[\w.]+, %[\w.]+ "
                                                                                   r"array=y", text), text
