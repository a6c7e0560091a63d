"""Shared test helpers: run the syncc CLI in-process, and FileCheck its output."""
from __future__ import annotations

import io
import os
import re
import shlex
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

from syncc.cli import run_cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.sync"))
STDLIB = sorted((ROOT / "stdlib").rglob("*.sync"))


SYNCC_ARGS = re.compile(r"^\s*//\s*syncc-args:(.*)$", re.M)


def syncc_args(text: str) -> list[str]:
    """The arguments a test program asks for in its `// syncc-args: ...` lines, split as a shell would."""
    return [w for m in SYNCC_ARGS.finditer(text) for w in shlex.split(m.group(1))]


def no_gpu() -> str | None:
    """Why the GPU tests cannot run here, or None when cupy sees a CUDA device."""
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "no CUDA device"
    except Exception as e:        # noqa: BLE001 - any reason means no GPU here
        return f"no GPU: {type(e).__name__}: {e}"
    return None


@dataclass
class Run:
    code: int
    out: str
    err: str


def syncc(*args: str) -> Run:
    """Run `syncc ARGS` in this process, from the repository root, without colour."""
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = run_cli(list(args))
    finally:
        os.chdir(cwd)
    return Run(code, out.getvalue(), err.getvalue())


def filecheck(check_file: Path, text: str) -> str | None:
    """None when `text` matches the CHECK lines of `check_file`, else FileCheck's report."""
    from filecheck.matcher import Matcher
    from filecheck.options import parse_argv_options

    with tempfile.NamedTemporaryFile("w", suffix=".out", delete=False, encoding="utf-8") as f:
        f.write(text)
    report = io.StringIO()
    try:
        opts = parse_argv_options(["filecheck", str(check_file), "--input-file", f.name])
        with redirect_stderr(report), redirect_stdout(report):
            code = Matcher.from_opts(opts).run()
    finally:
        os.unlink(f.name)
    return None if code == 0 else report.getvalue() or f"filecheck exited {code}"


_RUN = re.compile(r"^\s*(?://|;)\s*RUN:\s*(.*)$", re.M)         # `//` in programs, `;` in IR text
_EXIT = re.compile(r"^\s*(?://|;)\s*EXIT:\s*(\d+)\s*$", re.M)


def run_lines(path: Path) -> tuple[list[list[str]], int]:
    """The `// RUN: syncc ...` commands of a golden file (with %s for its path) and its expected exit."""
    text = path.read_text(encoding="utf-8")
    rel = str(path.relative_to(ROOT))
    commands = []
    for line in _RUN.findall(text):
        words = line.split()
        assert words and words[0] == "syncc", f"{path}: RUN lines start with `syncc`"
        commands.append([rel if w == "%s" else w for w in words[1:]])
    m = _EXIT.search(text)
    return commands, int(m.group(1)) if m else 0


def markdown_table(text: str, header: str) -> list[list[str]]:
    """The rows (cells stripped) of the markdown table whose header line starts with `header`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def mathlib_inputs(name: str):
    """The f64 arguments the math library is tested at (seed 3): 300 spread over the function's
    domain, 100 where it is most delicate (near 1 for a log, near 0 otherwise)."""
    import numpy as np
    rng = np.random.default_rng(3)
    if name.startswith("log"):
        return np.concatenate([np.abs(rng.integers(1, 0x7FF0000000000000, 300, dtype=np.int64).view(np.float64)),
                               1 + rng.uniform(-0.3, 0.42, 100)])
    span = (-745, 709) if name == "exp" else (-1074, 1023)
    return np.concatenate([rng.uniform(*span, 300), rng.uniform(-1, 1, 100)])
