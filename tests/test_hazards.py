"""The hazard corpus: tests/hazards/*.sync are buggy programs, one per hazard of
design.md §5. Each marks the lines where syncc must report, `// expect: CODE`,
and `syncc check` (with the file's `// syncc-args:`) must report exactly those
codes at exactly those lines: no more, no fewer. tests/hazards/clean/*.sync are
their correct neighbours, which must draw no diagnostic at all."""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from helpers import ROOT, syncc

CORPUS = sorted((ROOT / "tests" / "hazards").glob("*.sync"))
CLEAN = sorted((ROOT / "tests" / "hazards" / "clean").glob("*.sync"))
EXPECT = re.compile(r"//\s*expect:\s*([EW]\d{4}(?:\s*,\s*[EW]\d{4})*)")
ARGS = re.compile(r"^\s*//\s*syncc-args:(.*)$", re.M)


def expected(path: Path) -> list[tuple[int, str]]:
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        m = EXPECT.search(line)
        if m:
            out += [(n, code.strip()) for code in m.group(1).split(",")]
    return sorted(out)


def reported(path: Path) -> tuple[int, list[tuple[int, str]], str]:
    text = path.read_text()
    args = [w for m in ARGS.finditer(text) for w in shlex.split(m.group(1))]
    run = syncc("check", str(path.relative_to(ROOT)), "--error-format=json", *args)
    records = [json.loads(line) for line in run.err.splitlines() if line.startswith("{")]
    return run.code, sorted((r["line"], r["code"]) for r in records), run.err


def test_the_corpus_covers_the_hazards():
    assert len(CORPUS) >= 80 and len(CLEAN) >= 45      # (issue 14 added 53 and 34, MANIFEST.md)
    codes = {code for path in CORPUS for _, code in expected(path)}
    # design.md §5, issues 3 and 14: every hazard analysis has at least one program
    for code in ("E0701", "W0702", "E0703", "E0704", "E0705", "E0706", "E0707", "E0708", "E0709", "E0710",
                 "E0711", "W0712", "E0713", "W0714", "E0715", "E0717", "E0719", "E0720", "E0721", "E0722"):
        assert code in codes, f"no program in tests/hazards expects {code}"


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_hazard_is_reported_where_expected(path):
    want = expected(path)
    assert want, f"{path.name} marks no `// expect:` line"
    code, got, err = reported(path)
    assert got == want, f"{path.name}: expected {want}, got {got}\n{err}"
    errors = any(c.startswith("E") for _, c in want)
    assert code == (1 if errors else 0)


@pytest.mark.parametrize("path", CLEAN, ids=lambda p: p.stem)
def test_correct_program_draws_nothing(path):
    code, got, err = reported(path)
    assert code == 0 and not got, f"{path.name}: expected no diagnostics, got {got}\n{err}"
