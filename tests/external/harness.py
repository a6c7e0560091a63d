"""Other people's tests, translated into syncc (tests/external/<suite>/*.sync; README.md says how).

Each case is one `.sync` file whose header says where it came from and what its suite says of it:

    // external: Dat3M benchmarks/opencl/benchmarks/caslock.cl -DACQ2RX
    // verdict: assert            (the suite's own: correct | race | assert | nonterm)
    // syncc-args: --target ptx   (optional, as in tests/hazards)
    // sim: ok                    (optional: what the program's own checks show on the simulator)
    // pending: scoped atomics    (optional: not yet expressible; the case is listed but not run)

and marks the lines where syncc reports with `// expect: CODE` (as tests/hazards does), or
`// expect-ptx: CODE` / `// expect-fermi: CODE` where only one target reports. This module reads
those headers; test_external.py pins syncc's verdicts to them and matrix.py counts them.
"""
from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
VERDICTS = ("correct", "race", "assert", "nonterm")
TARGETS = {"ptx": "ptx", "fermi": "fermi-sim"}         # the matrix's columns → `--target`
SIM_OUTCOMES = ("ok", "wrong", "hang")

_HEADER = re.compile(r"^\s*//\s*(external|verdict|sim|pending):\s*(.*?)\s*$", re.M)
_EXPECT = re.compile(r"//\s*expect(?:-(ptx|fermi))?:\s*([EW]\d{4}(?:\s*,\s*[EW]\d{4})*)")


@dataclass(frozen=True)
class Case:
    path: Path
    suite: str                      # the folder: dat3m, scor, gpuverify, cccl
    source: str                     # repository path and flags it was translated from
    verdict: str                    # the suite's
    sim: str | None                 # the simulator outcome it pins, if any
    pending: str | None             # why it cannot be checked yet
    expect: dict[str, list[tuple[int, str]]] = field(default_factory=dict)   # target → (line, code)

    @property
    def name(self) -> str:
        return f"{self.suite}/{self.path.stem}"

    @property
    def buggy(self) -> bool:
        return self.verdict != "correct"

    def rejected(self, target: str) -> bool:
        return any(code.startswith("E") for _, code in self.expect[target])


def read_case(path: Path) -> Case:
    text = path.read_text()
    head = {key: value for key, value in _HEADER.findall(text)}
    if "external" not in head or head.get("verdict") not in VERDICTS:
        raise ValueError(f"{path}: needs `// external: SOURCE` and `// verdict: {'|'.join(VERDICTS)}`")
    if head.get("sim") not in (None, *SIM_OUTCOMES):
        raise ValueError(f"{path}: `// sim:` is one of {', '.join(SIM_OUTCOMES)}")
    expect: dict[str, list[tuple[int, str]]] = {t: [] for t in TARGETS}
    for n, line in enumerate(text.splitlines(), 1):
        for only, codes in _EXPECT.findall(line):
            for target in ([only] if only else TARGETS):
                expect[target] += [(n, c.strip()) for c in codes.split(",")]
    return Case(path, path.parent.name, head["external"], head["verdict"], head.get("sim"),
                head.get("pending"), {t: sorted(v) for t, v in expect.items()})


def cases() -> list[Case]:
    return [read_case(p) for p in sorted(HERE.glob("*/*.sync"))]


def only_target(text: str) -> str | None:
    """The one target a case's `// syncc-args: --target T` names (matrix key), or None for both."""
    m = re.search(r"//\s*syncc-args:.*--target\s+(\S+)", text)
    if m is None:
        return None
    return "ptx" if m.group(1) == "ptx" else "fermi"


def check(run_cli_capture, case: Case, target: str) -> tuple[int, list[tuple[int, str]], str]:
    """`syncc check` of a case for one target: exit code, (line, code) of each diagnostic, stderr.
    `run_cli_capture(*args) -> (code, out, err)` runs the command line (in-process in the tests)."""
    code, _, err = run_cli_capture("check", str(case.path), "--target", TARGETS[target], "--error-format=json",
                                   *extra_args(case.path.read_text()))
    records = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    return code, sorted((r["line"], r["code"]) for r in records), err


HANGS = ("E0904", "E0905", "E0906", "E0907", "E0908", "E0909", "E0910")


def extra_args(text: str) -> list[str]:
    """A case's `// syncc-args:` without its `--target` (the harness chooses the target)."""
    args = [w for m in re.finditer(r"^\s*//\s*syncc-args:(.*)$", text, re.M) for w in shlex.split(m.group(1))]
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a == "--target":
            skip = True
        elif not a.startswith("--target="):
            out.append(a)
    return out


def targets_of(case: Case) -> list[str]:
    only = only_target(case.path.read_text())
    return [only] if only else list(TARGETS)


def sim_args(case: Case, seed: int, max_cycles: int = 3_000_000, target: str | None = None) -> list[str]:
    """`syncc run` arguments that run a case as written on the simulator, its hazard checks skipped
    (so that a rejected case shows what it does): Fermi, or independent thread scheduling (as on the
    GPUs ptx is for) for `target` ptx or a case checked for ptx only. The policy's seed draws both
    the schedule and the weak memory's delays."""
    ptx = target == "ptx" if target else targets_of(case) == ["ptx"]
    its = ["--its"] if ptx else []
    return ["run", str(case.path), "--target", "fermi-sim", *its, "--unsafe-skip-hazard-checks",
            "--policy", f"adversarial:{seed}", "--max-cycles", str(max_cycles), *extra_args(case.path.read_text())]


def outcome(code: int, err: str) -> str:
    """ok, wrong (its own checks failed, or a fault) or hang, from a `syncc run`'s exit and stderr."""
    if code == 0:
        return "ok"
    return "hang" if any(f"error[{h}]" in err for h in HANGS) else "wrong"
