"""Golden tests: each tests/golden/**/*.sync (a program) or *.ir (IR text, for one pass
with `syncc opt`) holds `RUN: syncc ...` lines and FileCheck `CHECK:` lines that the
command's output (stdout, then stderr) must match, in comments (`//` or `;`). An
`EXIT: N` line sets the expected exit status (default 0)."""
import pytest

from helpers import ROOT, filecheck, run_lines, syncc

GOLDEN = sorted([*(ROOT / "tests" / "golden").rglob("*.sync"), *(ROOT / "tests" / "golden").rglob("*.ir")])


@pytest.mark.parametrize("path", GOLDEN, ids=[str(p.relative_to(ROOT / "tests" / "golden")) for p in GOLDEN])
def test_golden(path):
    commands, expected_exit = run_lines(path)
    assert commands, f"{path} has no RUN line"
    for args in commands:
        result = syncc(*args)
        output = result.out + result.err
        assert result.code == expected_exit, f"syncc {' '.join(args)} exited {result.code}:\n{output}"
        problem = filecheck(path, output)
        assert problem is None, problem


def test_there_are_golden_files():
    assert len(GOLDEN) >= 1
