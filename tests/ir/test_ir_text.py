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
