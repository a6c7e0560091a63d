"""Every implementation of every primitive kind, at every placement and granularity it
supports, in every statement form (tests/matrix_programs.py), compiles through every
pass on both machine models at -O0 and -O2: no diagnostics (the programs are correct),
and the IR verifier, which runs after each pass, content."""
from __future__ import annotations

import pytest

from matrix_programs import programs
from syncc.driver import compile_file

PROGRAMS = list(programs())


def test_the_matrix_covers_every_implementation():
    from syncc.ir.impls.registry import IMPLEMENTATIONS
    named = {name.split("-")[1] for name, _ in PROGRAMS}
    assert named == {impl.name for impl in IMPLEMENTATIONS}
    assert len(PROGRAMS) > 100


@pytest.mark.parametrize("name, source", PROGRAMS, ids=[name for name, _ in PROGRAMS])
def test_program_compiles_everywhere(name, source, tmp_path):
    path = tmp_path / f"{name}.sync"
    path.write_text(source)
    for target in ("ptx", "fermi-sim"):
        for opt in (0, 2):
            comp = compile_file(str(path), target=target, opt=opt)
            problems = [f"{d.code} {d.message}" for d in comp.diagnostics]
            assert not problems and comp.ir is not None, f"{target} -O{opt}:\n{source}\n{problems}"
