"""Compiling to PTX: syncc's time beside NVIDIA's compilers, measured in the same run.

    python bench/ptx.py [--runs 200] [--process-runs 20] [--csv results.csv]

1. in-process, warm: examples/wavefront.sync from source to PTX (parse, check, lower,
   every pass, LLVM, NVPTX), median; beside it the same run's front end alone, and,
   where cupy is installed, NVRTC compiling the hand-written CUDA equivalent
   (bench/baselines/wavefront.cu) to PTX in the same process;
2. whole process: `syncc build examples/wavefront.sync --target ptx` beside
   `nvcc -ptx bench/baselines/wavefront.cu`, medians, interleaved.

Ratios are the figures; absolute times depend on the machine.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from syncc.backends.ptx import build_ptx  # noqa: E402
from syncc.driver import check_file, compile_file  # noqa: E402
from syncc.ir.checks.schedule import _RUNS  # noqa: E402
from timing import header, median_ms, report  # noqa: E402

SOURCE = ROOT / "examples" / "wavefront.sync"
CUDA = ROOT / "bench" / "baselines" / "wavefront.cu"


def to_ptx():
    # a compile as of a program not seen before: check_schedule keeps its recent runs, keyed on a
    # launch's events, to answer the second target of one `syncc check`; in this loop it would
    # answer every compile after the first (about 2.5 ms of work skipped)
    _RUNS.clear()
    comp = compile_file(str(SOURCE))
    return build_ptx(comp.ir, "sm_90").text


def nvrtc():
    """NVRTC through cupy, when it is there (it needs a CUDA installation, not a GPU)."""
    try:
        from cupy.cuda import compiler
    except Exception:        # noqa: BLE001
        return None
    code = CUDA.read_text()

    def run():
        compiler.compile_using_nvrtc(code, options=("-arch=compute_90",), filename="wavefront.cu")
    try:
        run()
    except Exception:        # noqa: BLE001
        return None
    return run


def in_process(runs: int) -> list[tuple[str, float, str]]:
    fns = {"syncc": to_ptx, "front": lambda: check_file(str(SOURCE))}
    rtc = nvrtc()
    if rtc is not None:
        fns["nvrtc"] = rtc
    ms = median_ms(fns, runs, warmup=10)
    rows = [("wavefront.sync to PTX, in-process (parse ... NVPTX)", ms["syncc"], ""),
            ("parse + check of the same file", ms["front"], "baseline"),
            ("ratio to PTX / front end", ms["syncc"] / ms["front"], "x")]
    if "nvrtc" in ms:
        rows += [("NVRTC: the hand-written CUDA to PTX, in-process", ms["nvrtc"], "baseline"),
                 ("ratio syncc / NVRTC", ms["syncc"] / ms["nvrtc"], "x")]
    return rows


def process(runs: int) -> list[tuple[str, float, str]]:
    nvcc = shutil.which("nvcc")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}   # as installed
    with tempfile.TemporaryDirectory() as tmp:
        cmds = {"syncc": [sys.executable, "-m", "syncc", "build", str(SOURCE), "--target", "ptx", "-o",
                          os.path.join(tmp, "s.ptx")]}
        if nvcc:
            cmds["nvcc"] = [nvcc, "-ptx", "-arch=sm_90", str(CUDA), "-o", os.path.join(tmp, "n.ptx")]
        for argv in cmds.values():
            subprocess.run(argv, cwd=ROOT, env=env, check=True, capture_output=True)
        times = {n: [] for n in cmds}
        for _ in range(runs):
            for n, argv in cmds.items():
                t = time.perf_counter()
                subprocess.run(argv, cwd=ROOT, env=env, check=True, capture_output=True)
                times[n].append(time.perf_counter() - t)
    ms = {n: statistics.median(ts) * 1000 for n, ts in times.items()}
    rows = [("syncc build --target ptx (whole process)", ms["syncc"], "")]
    if "nvcc" in ms:
        rows += [("nvcc -ptx of the hand-written CUDA", ms["nvcc"], "baseline"),
                 ("ratio syncc / nvcc", ms["syncc"] / ms["nvcc"], "x")]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--process-runs", type=int, default=20)
    ap.add_argument("--csv", type=Path)
    args = ap.parse_args()
    print(header())
    report(in_process(args.runs) + process(args.process_runs), args.csv)

if __name__ == "__main__":
    main()
