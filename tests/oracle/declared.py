"""The guarantee over declared configurations: every program a batch accepted, its kernels made to
declare a range of grids, checked over that range, and run at grids across it.

    python -m tests.oracle.declared --batch results/oracle --ranges 5,70 --out results/decl

For each program of the batch whose verdict on a target is `accepted-ok` and each range end H,
every kernel header's `grid(...)` becomes `grid(1 .. H)` (language.md §8) and every `launch` takes
a grid its host block computes. `syncc check` judges the declaration for the target: a range of at
most 16 grids value by value, a larger one at the picks of docs/targets.md ("Configurations a
kernel declares"). A declaration it rejects is `declared-rejected` (a grid in the range has a
hazard, or the kernel's generated checks need its own grid: not judged). A declaration it accepts
is run on the simulator at grids across the range: both ends, their neighbours and points drawn
between. At run time the launch checks judge each grid again (runtime/launch_check.py), so:

- `refused` at a grid inside an accepted range is a **premise** finding: the covering set missed a
  hazard the grid's own check sees (what the built code, launched by others, would not survive);
- a hang, a fault, an internal error or a timeout is a soundness finding, as in launch_shapes.py;
- `ok`, `other-result` (the generated checks expect the declared grid) and `stopped` are fine.

A program that declares its own ranges (the size batch, sizes.py: `n: i32 in 1 .. 200`, `r: i32 in
[1, 2, 4]`, `grid(1 .. 9)`, and a host block that starts with its configuration, `let oracle_grid
= 3`, `let n = 57`, ...) is checked as it is, once per target, and run at configurations across its
declaration: for the grid and each size, both ends, their neighbours and points drawn between (a
list: every value), combined into a bounded set (configurations(): the whole product when it is
small, else every corner, every pick of each dimension at least once, and draws up to --configs).
Its checks hold at every configuration, so there `other-result` is `wrong` (a soundness finding,
or a generator bug to triage), and `outside` (E0607: a configuration the runner took outside the
declaration) is the runner's bug. The rows of those runs carry the configuration.

    python -m tests.oracle.declared --batch results/o23s --out results/o23s/declared --gpu results/o23s/gpu

--gpu writes the configurations accepted for ptx (one program a configuration) into a GPU batch
(gpu.py: run_gpu.sh, expected.tsv); --gpu-only does that from the ptx check alone, no simulator.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import subprocess
import sys
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .launch_shapes import accepted_programs, run_one, with_runtime_grid

FINDINGS = ("premise", "hang", "fault", "internal", "timeout", "wrong", "outside")
_HEADER_GRID = re.compile(r"\bgrid\(([^()]*)\)")
_KERNEL = re.compile(r"^kernel\s")


def with_declared_grid(text: str, hi: int) -> str:
    """The program with each kernel header's grid (or, where it has none, its `launch` line) a range
    1 .. hi; the host block's launches are left to with_runtime_grid."""
    out, in_header = [], False
    for line in text.splitlines():
        if _KERNEL.match(line):
            in_header = True
        if in_header:
            if _HEADER_GRID.search(line):
                line = _HEADER_GRID.sub(f"grid(1 .. {hi})", line, count=1)
            elif re.search(r"\blaunch\b", line) and "block(" in line:
                line = line.replace("launch ", f"launch grid(1 .. {hi}) ", 1)
            if "{" in line:
                in_header = False
        out.append(line)
    return "\n".join(out) + "\n"


def grids_to_run(hi: int, rng: random.Random, draws: int = 2) -> list[int]:
    """Both ends of 1 .. hi, their neighbours, and points drawn between."""
    return picks(1, hi, rng, draws)


def picks(lo: int, hi: int, rng: random.Random, draws: int = 2) -> list[int]:
    """Both ends of the range lo .. hi (half-open), their neighbours, and points drawn between."""
    chosen = {lo, lo + 1, hi - 2, hi - 1} | {rng.randrange(lo, hi) for _ in range(draws)}
    return sorted(v for v in chosen if lo <= v < hi)


# ---- programs that declare their own ranges (the size batch) -------------------------------------

_RANGE = re.compile(r"\b(\w+)\s*:\s*i32\s+in\s+(?:(-?\d+)\s*\.\.\s*(-?\d+)|\[([^\]]*)\])")
_GRID_RANGE = re.compile(r"\bgrid\(\s*(\d+)\s*\.\.\s*(\d+)\s*\)")
_CONFIG_LET = re.compile(r"^(\s*)let (\w+) = (-?\d+)\s*$")


def declared_dimensions(text: str) -> dict[str, range | tuple[int, ...]]:
    """What a program's configuration lines may take: {host name: a range, or a list's values}. The host's
    first `let NAME = INT` lines name the dimensions: `oracle_grid` the kernels' declared grid
    range, any other a scalar parameter of that name declared `in lo .. hi` or `in [a, b]`. Empty
    for a program whose host block does not start with a configuration."""
    declared: dict = {}
    for header in re.findall(r"^kernel\s[^{]*", text, re.M):
        for name, lo, hi, values in _RANGE.findall(header):
            declared[name] = range(int(lo), int(hi)) if values == "" else tuple(int(v) for v in values.split(","))
        for lo, hi in _GRID_RANGE.findall(header):
            old = declared.get("oracle_grid", range(int(lo), int(hi)))
            declared["oracle_grid"] = range(max(old.start, int(lo)), min(old.stop, int(hi)))   # every kernel's
    dims = {}
    for name in configuration_lines(text):
        if name not in declared:
            return {}
        dims[name] = declared[name]
    return dims if "oracle_grid" in dims else {}


def configuration_lines(text: str) -> dict[str, int]:
    """The host block's first `let NAME = INT` lines (after its comments): {name: value}."""
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.startswith("host"))
    except StopIteration:
        return {}
    out = {}
    for line in lines[start + 1:]:
        if line.strip().startswith("//"):
            continue
        m = _CONFIG_LET.match(line)
        if m is None:
            break
        out[m.group(2)] = int(m.group(3))
    return out


def with_configuration(text: str, config: dict[str, int]) -> str:
    """The program with its host's configuration lines set to `config`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("host"))
    for i in range(start + 1, len(lines)):
        if lines[i].strip().startswith("//"):
            continue
        m = _CONFIG_LET.match(lines[i])
        if m is None:
            break
        if m.group(2) in config:
            lines[i] = f"{m.group(1)}let {m.group(2)} = {config[m.group(2)]}"
    return "\n".join(lines) + "\n"


def dimension_picks(dims: dict[str, range | tuple[int, ...]], rng: random.Random) -> dict[str, list[int]]:
    """Each dimension's values to run: a range's ends, their neighbours and draws; a list whole."""
    return {name: picks(taken.start, taken.stop, rng) if isinstance(taken, range) else sorted(set(taken))
            for name, taken in dims.items()}


def configurations(chosen: dict[str, list[int]], rng: random.Random, limit: int = 24) -> list[dict[str, int]]:
    """A bounded set of configurations from each dimension's picks: their whole product when it
    has at most `limit`; else every corner (each dimension at its least or greatest pick), each
    pick of each dimension at least once (the others at ends drawn), and draws from the product
    up to `limit` (more than `limit` only where the corners and picks alone need it)."""
    names = list(chosen)
    product = [dict(zip(names, values)) for values in itertools.product(*(chosen[n] for n in names))]
    if len(product) <= limit:
        return product
    ends = {n: sorted({min(chosen[n]), max(chosen[n])}) for n in names}
    out = [dict(zip(names, values)) for values in itertools.product(*(ends[n] for n in names))]
    for n in names:
        for v in chosen[n]:
            if not any(c[n] == v for c in out):
                out.append({m: v if m == n else rng.choice(ends[m]) for m in names})
    for _ in range(4 * limit):
        if len(out) >= limit:
            break
        c = rng.choice(product)
        if c not in out:
            out.append(c)
    return sorted(out, key=lambda c: [c[n] for n in names])


def check(path: Path, target: str, timeout: float) -> tuple[str, list[str]]:
    command = [sys.executable, "-m", "syncc", "check", str(path), "--target",
               "ptx" if target == "ptx" else "fermi-sim", "--error-format", "json"]
    try:
        p = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", []
    codes = []
    for line in p.stderr.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            if record.get("severity") == "error":
                codes.append(record.get("code"))
    if p.returncode == 101:
        return "internal", codes
    return ("accepted" if p.returncode == 0 else "declared-rejected"), codes


def judge(name: str, text: str, hi: int, target: str, out: Path, args, seed: int) -> list[dict]:
    """The declared program's check for the target, then its runs at grids across the range."""
    declared = with_declared_grid(text, hi)
    stem = f"{name}_r{hi}_{target}"
    probe = out / "programs" / f"{stem}.sync"
    probe.write_text(with_runtime_grid(declared, 1))
    verdict, codes = check(probe, target, args.timeout)
    rows = [{"program": name, "range": hi, "target": target, "grid": None, "verdict": verdict, "codes": codes}]
    if verdict != "accepted":
        return rows
    for grid in grids_to_run(hi, random.Random(seed)):
        path = out / "programs" / f"{stem}_g{grid}.sync"
        path.write_text(with_runtime_grid(declared, grid))
        if getattr(args, "gpu_only", False):
            rows.append({"program": name, "range": hi, "target": target, "grid": grid, "verdict": "unjudged",
                         "path": str(path)})
            continue
        run_verdict, command = run_one(path, target, args.max_cycles, args.timeout)
        rows.append({"program": name, "range": hi, "target": target, "grid": grid,
                     "verdict": "premise" if run_verdict == "refused" else run_verdict, "command": command,
                     "path": str(path)})
    return rows


def judge_sized(name: str, text: str, target: str, out: Path, args, seed: int) -> list[dict]:
    """A program that declares its own ranges: its check for the target as it is, then its runs at
    configurations across the declaration (none with --gpu-only: their rows say `unjudged`)."""
    stem = f"{name}_{target}"
    probe = out / "programs" / f"{stem}.sync"
    probe.write_text(text)
    verdict, codes = check(probe, target, args.timeout)
    rows = [{"program": name, "range": "declared", "target": target, "grid": None, "verdict": verdict, "codes": codes}]
    if verdict != "accepted":
        return rows
    rng = random.Random(seed)
    chosen = configurations(dimension_picks(declared_dimensions(text), rng), rng, getattr(args, "configs", 12))
    for i, config in enumerate(chosen):
        path = out / "programs" / f"{stem}_c{i}.sync"
        path.write_text(with_configuration(text, config))
        row = {"program": name, "range": "declared", "target": target, "grid": config["oracle_grid"],
               "configuration": config, "path": str(path)}
        if getattr(args, "gpu_only", False):
            row["verdict"] = "unjudged"
        else:
            run_verdict, row["command"] = run_one(path, target, args.max_cycles, args.timeout)
            row["verdict"] = SIZED_VERDICTS.get(run_verdict, run_verdict)
            if "E0607" in run_verdict:
                row["verdict"] = "outside"
        rows.append(row)
    return rows


# a size program's checks hold at every configuration it declares: what a run says, as a verdict
SIZED_VERDICTS = {"refused": "premise", "other-result": "wrong"}


def is_finding(row: dict) -> bool:
    """A row to look at: a soundness or premise finding; of a size program's run, anything but ok
    (a run-time bounds check that stops it, a launch refused for its arrays: the generator's bug)."""
    if row["verdict"] in FINDINGS:
        return True
    return row.get("configuration") is not None and row["verdict"] not in ("ok", "unjudged")


def to_gpu(folder: Path, rows: list[dict]) -> int:
    """The configurations run (or, with --gpu-only, written) for ptx, as a GPU batch (gpu.py): one
    program a configuration, the simulator's verdict in expected.tsv."""
    from .gpu import write_gpu_batch
    from .judge import Program
    runs = [r for r in rows if r["target"] == "ptx" and r.get("path")]
    programs = [Program(Path(r["path"]).stem, r["path"], "generated") for r in runs]
    results = [{"program": Path(r["path"]).stem, "target": "ptx", "verdict": r["verdict"], "check": {"accepted": True}}
               for r in runs]
    return write_gpu_batch(folder, programs, results)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", required=True,
                    help="an oracle run's --out (its programs/ and results.jsonl; without results.jsonl, "
                         "every program of programs/ on every target)")
    ap.add_argument("--ranges", default="5,70", help="the ends H of the declared ranges 1 .. H")
    ap.add_argument("--targets", default="fermi,ptx")
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--max-cycles", type=int, default=4_000_000)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--limit", type=int, default=0, help="at most this many programs (0: all)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--configs", type=int, default=12,
                    help="configurations a program that declares its own ranges runs at, at most (beyond its corners "
                         "and each dimension's picks)")
    ap.add_argument("--gpu", type=Path, help="also write the configurations run for ptx into this folder as a GPU batch")
    ap.add_argument("--gpu-only", action="store_true",
                    help="no simulator: the ptx check alone decides, and --gpu gets every configuration it accepts")
    args = ap.parse_args(argv)
    if args.gpu_only and args.gpu is None:
        ap.error("--gpu-only needs --gpu FOLDER")
    batch, out = Path(args.batch), Path(args.out)
    (out / "programs").mkdir(parents=True, exist_ok=True)
    targets = args.targets.split(",")
    if args.gpu_only:
        targets = ["ptx"]
    if (batch / "results.jsonl").exists():
        accepted = accepted_programs(batch)
    else:
        accepted = {p.stem: set(targets) for p in (batch / "programs").glob("*.sync")}
    names = sorted(accepted)[: args.limit or None]
    texts = {name: (batch / "programs" / f"{name}.sync").read_text() for name in names}
    work = []
    for name in names:
        ranges = [None] if declared_dimensions(texts[name]) else [int(h) for h in args.ranges.split(",")]
        work += [(name, hi, target) for hi in ranges for target in targets if target in accepted[name]]

    partial = out / "results.partial.jsonl"          # each program's rows as it finishes
    partial.write_text("")
    lock = threading.Lock()
    done = [0]

    def one(w):
        name, hi, target = w
        seed = args.seed * 7919 + zlib.crc32(f"{name} {hi} {target}".encode())
        if hi is None:
            rows = judge_sized(name, texts[name], target, out, args, seed)
        else:
            rows = judge(name, texts[name], hi, target, out, args, seed)
        with lock:
            done[0] += 1
            with open(partial, "a") as f:
                f.writelines(json.dumps(row) + "\n" for row in rows)
            verdicts = sorted({row["verdict"] for row in rows[1:]}) or [rows[0]["verdict"]]
            print(f"[{done[0]}/{len(work)}] {name} {'declared' if hi is None else f'1 .. {hi}'} {target}: "
                  f"{len(rows) - 1} runs, {', '.join(verdicts)}", flush=True)
        return rows

    with ThreadPoolExecutor(args.jobs) as pool:
        rows = [row for rs in pool.map(one, work) for row in rs]
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        counts.setdefault(row["target"], {}).setdefault(row["verdict"], 0)
        counts[row["target"]][row["verdict"]] += 1
    findings = [row for row in rows if is_finding(row)]
    with open(out / "results.jsonl", "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    declarations = sum(row["grid"] is None for row in rows)
    sized = sorted({row["program"] for row in rows if row["range"] == "declared"})
    summary = {"programs": len(names), "sized_programs": len(sized), "declarations": declarations,
               "runs": len(rows) - declarations, "counts": counts, "findings": findings}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    for target, c in sorted(counts.items()):
        print(target, " ".join(f"{k} {v}" for k, v in sorted(c.items())))
    print(f"{len(names)} programs ({len(sized)} declaring their own ranges), {declarations} declarations, "
          f"{len(rows) - declarations} runs, {len(findings)} findings")
    if args.gpu is not None:
        n = to_gpu(args.gpu, rows)
        print(f"gpu batch: {n} configurations in {args.gpu} (sh {args.gpu / 'run_gpu.sh'})")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
