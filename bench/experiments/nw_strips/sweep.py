"""Needleman–Wunsch strip pipelines on the GPU: every configuration given, checked against the
Rodinia-style baseline's matrix, timed as medians of launches (issue 18, part 3).

    python bench/experiments/nw_strips/sweep.py N:FILE:NAME=V,NAME=V[:one] ...

FILE is relative to the repository root; a block owns B (default 1) times ROWS rows (default 128,
32 for FILE nw_one_warp.sync), which sets the grid; `one` launches the first strip alone (its
time has no waits between strips; the matrix is not checked).
"""
from __future__ import annotations

import statistics
import tempfile
import sys
from pathlib import Path

import numpy as np

import syncc
from syncc.bench.core import Context
from syncc.bench.gpu_common import baseline, cupy, graph_of, time_launches, timed, warm_up
from syncc.bench.gpu_nw import PENALTY, bordered

ROOT = Path(__file__).resolve().parents[3]


def optimize_llvm(level: int, combine: bool) -> None:
    """EXPERIMENT: compile with NVPTX's code generator at `level` (its straight-line scalar passes,
    which split constant offsets out of addresses, run from 1 up), after instcombine if asked."""
    import llvmlite.binding as llvm
    from syncc.backends.ptx import target
    llvm_ = target._llvm()
    tm = llvm_.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(
        cpu="sm_90", features="+ptx80", opt=level)

    def emit_ptx(module_text: str, arch: str) -> str:
        mod = llvm_.parse_assembly(module_text)
        pb = llvm_.create_pass_builder(tm, llvm_.create_pipeline_tuning_options(speed_level=2))
        fpm = llvm_.create_new_function_pass_manager()
        fpm.add_sroa_pass()
        if combine:
            fpm.add_instruction_combine_pass()
        for fn in mod.functions:
            if not fn.is_declaration:
                fpm.run(fn, pb)
        return tm.emit_assembly(mod)
    target.emit_ptx = emit_ptx


def main(specs: list[str]) -> None:
    if specs and specs[0].startswith("--llvm="):
        level, combine = specs.pop(0).split("=")[1].split(",")
        optimize_llvm(int(level), combine == "ic")
        print(f"LLVM: code generation at {level}, instcombine {combine == 'ic'}")
    cp = cupy()
    module = baseline(Context(root=ROOT, out=Path(tempfile.mkdtemp())), "nw_rodinia")
    fn = module.get_function("nw_tile_diagonal")
    warm_up()
    done: dict[int, tuple] = {}
    table = []
    for spec in specs:
        n_text, file, *rest = spec.split(":")
        n = int(n_text)
        defines = {"N": n}
        for kv in (rest[0].split(",") if rest and rest[0] else []):
            k, v = kv.split("=")
            defines[k] = int(v)
        if n not in done:
            for k in list(done):
                done.pop(k)
            cp.get_default_memory_pool().free_all_blocks()
            refm = cp.asarray(np.random.default_rng(n).integers(-10, 11, size=(n, n), dtype=np.int32))
            theirs = bordered(cp, n)
            tiles = n // 16

            def rodinia(stream, refm=refm, theirs=theirs, n=n, tiles=tiles):
                for d in range(2 * tiles - 1):
                    fn((min(d, 2 * tiles - 2 - d) + 1,), (16,), (refm, theirs, np.int32(n), np.int32(PENALTY),
                                                                  np.int32(d)), stream=stream)
            t_base = statistics.median(time_launches(graph_of(rodinia), 5))
            done[n] = (refm, theirs, t_base)
        refm, theirs, t_base = done[n]
        try:
            prog = syncc.compile(str(ROOT / file), defines=defines, target="ptx")
        except syncc.CompileError as e:
            print(f"{spec}: does not compile\n{e}")
            continue
        ours = bordered(cp, n)
        rows = defines.get("B", 1) * (32 if file.endswith("nw_one_warp.sync") else 128)
        one = rest[1:] == ["one"]
        times = timed(prog, "nw_strips", [refm, ours, PENALTY], (1 if one else n // rows, 1, 1), None, 7)
        bad = -1 if one else int((ours != theirs).sum())
        t = statistics.median(times)
        table.append((spec, t_base * 1e3, t * 1e3, t_base / t, min(times) * 1e3, max(times) * 1e3, bad))
        print(f"{spec:48s} base {t_base * 1e3:7.3f} ms  syncc {t * 1e3:7.3f} ms  {t_base / t:5.2f}x"
              f"  [{min(times) * 1e3:.3f}..{max(times) * 1e3:.3f}]  bad {bad}", flush=True)
    print("\nspec | baseline ms | syncc ms | speed-up | min | max | bad cells")
    for r in table:
        print(f"{r[0]} | {r[1]:.3f} | {r[2]:.3f} | {r[3]:.2f} | {r[4]:.3f} | {r[5]:.3f} | {r[6]}")


if __name__ == "__main__":
    main(sys.argv[1:])
