"""Snapshot tests of diagnostics as users see them.

Each tests/diagnostics/NAME.sync is checked with `syncc check
tests/diagnostics/NAME.sync` from the repository root (plus the flags of a
`// syncc-args: ...` line, if it has one); its stderr must equal
tests/diagnostics/NAME.stderr exactly. Where tests/diagnostics/NAME.json
exists, the stderr of the same command with `--error-format=json` (one JSON
object per line) must equal it too.

After a deliberate change to a message, rewrite the expected files with

    SYNCC_UPDATE_SNAPSHOTS=1 python -m pytest tests/core/test_diagnostic_snapshots.py

and review the diff before committing it. To add a JSON snapshot for a case,
create an empty NAME.json and run the update.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from helpers import ROOT, syncc, syncc_args

DIR = ROOT / "tests" / "diagnostics"
CASES = sorted(DIR.glob("*.sync"))
JSON_CASES = [p for p in CASES if p.with_suffix(".json").exists()]
UPDATE = os.environ.get("SYNCC_UPDATE_SNAPSHOTS") == "1"


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch):
    """The snapshots are of the default setup: colour left to the terminal."""
    monkeypatch.delenv("NO_COLOR", raising=False)


def command(path: Path) -> list[str]:
    extra = syncc_args(path.read_text(encoding="utf-8"))
    return ["check", str(path.relative_to(ROOT)), *extra]


def compare(expected_path: Path, actual: str) -> None:
    """Assert that `actual` is the snapshot, or rewrite the snapshot in update mode."""
    rel = expected_path.relative_to(ROOT)
    if UPDATE:
        old = expected_path.read_text(encoding="utf-8") if expected_path.exists() else None
        if old == actual:
            pytest.skip(f"SYNCC_UPDATE_SNAPSHOTS=1: {rel} unchanged")
        expected_path.write_text(actual, encoding="utf-8")
        pytest.skip(f"SYNCC_UPDATE_SNAPSHOTS=1: rewrote {rel}; review the diff")
    assert expected_path.exists(), f"{rel} is missing; create it with SYNCC_UPDATE_SNAPSHOTS=1"
    expected = expected_path.read_text(encoding="utf-8")
    assert actual == expected, (
        f"stderr differs from {rel} (run with SYNCC_UPDATE_SNAPSHOTS=1 to rewrite it after a deliberate change)")


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_stderr_snapshot(path):
    run = syncc(*command(path))
    assert run.out == ""
    assert "\x1b[" not in run.err
    has_errors = re.search(r"^\S+: error\[E\d{4}\]", run.err, re.M) is not None
    assert run.code == (1 if has_errors else 0), f"exit status {run.code}:\n{run.err}"
    compare(path.with_suffix(".stderr"), run.err)


@pytest.mark.parametrize("path", JSON_CASES, ids=[p.stem for p in JSON_CASES])
def test_json_snapshot(path):
    run = syncc(*command(path), "--error-format=json")
    lines = run.err.splitlines()
    assert lines, "no diagnostics"
    for line in lines:
        record = json.loads(line)             # one whole object per line
        assert {"severity", "code", "message", "file", "line", "column", "notes", "help",
                "rendered"} <= record.keys()
    # The human rendering inside the JSON is the same text as without --error-format=json.
    human = syncc(*command(path)).err
    for line in lines:
        assert json.loads(line)["rendered"] + "\n" in human
    compare(path.with_suffix(".json"), run.err)


def test_every_snapshot_has_its_source():
    orphans = [p.name for p in sorted(DIR.glob("*.stderr")) + sorted(DIR.glob("*.json"))
               if not p.with_suffix(".sync").exists()]
    assert not orphans, f"expected files without a .sync: {orphans}"
    assert len(CASES) >= 20 and len(JSON_CASES) >= 2


# ---- colour ---------------------------------------------------------------------------

BAD = DIR / "unknown_name_typo.sync"


def test_color_always_colours(monkeypatch):
    run = syncc("check", str(BAD.relative_to(ROOT)), "--color=always")
    assert run.code == 1
    assert "\x1b[1;31merror[E0101]\x1b[0m" in run.err
    assert "\x1b[1;32mhelp\x1b[0m" in run.err


def test_no_color_wins_over_color_always(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    run = syncc("check", str(BAD.relative_to(ROOT)), "--color=always")
    assert run.code == 1
    assert "error[E0101]" in run.err
    assert "\x1b" not in run.err


def test_no_colour_when_not_a_terminal():
    run = syncc("check", str(BAD.relative_to(ROOT)))          # --color=auto, stderr is not a tty
    assert "error[E0101]" in run.err and "\x1b" not in run.err


def test_json_is_never_coloured():
    run = syncc("check", str(BAD.relative_to(ROOT)), "--color=always", "--error-format=json")
    assert "\x1b" not in json.loads(run.err.splitlines()[0])["rendered"]
