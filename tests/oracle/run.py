"""The oracle's runner: generate (and mutate) a batch, judge every program on every target, and
count the verdicts.

    python -m tests.oracle.run --seed 1 --count 200 --mutants 200 --out results/oracle --jobs 2

From the repository root, so that `syncc` is this checkout's. Writes into --out:

    programs/         every program of the batch (gen_*, mut_*, seed_*)
    results.jsonl     one line per program and target: the check, each run, the verdict
    findings/         each program whose verdict is neither accepted-ok nor rejected-bad, with a
                      .json beside it: the verdicts, why, and the commands that reproduce them
    summary.json      the counts per target, per kind of program, and the batch's statistics
    gpu/              with --gpu: the programs accepted for ptx and run_gpu.sh to run them on a GPU

Each (program, target) runs in a process of its own, --jobs at a time, and is stopped after
--timeout seconds of wall-clock time (verdict `timeout`, which is not a hang verdict).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import re
import shutil
import sys
import time
from collections import Counter
from multiprocessing.connection import wait
from pathlib import Path

from .generate import batch_prefix, program_seed, program_text
from .judge import FALSE_POSITIVE, SOUNDNESS, TARGETS, VERDICTS, Program, Settings, frontend_errors, judge

KEEP = ("accepted-ok", "rejected-bad", "accepted-stopped")   # verdicts that need no second look
ERRORS = ("frontend-error", "compile-error", "internal-error", "run-error", "rejected-unrunnable", "timeout")


def build_batch(seed: int, count: int, mutants: int, out: Path, queues: bool = False,
                shapes: bool = False, scans: bool = False, sizes: bool = False,
                hand: bool = False) -> tuple[list[Program], dict]:
    """The batch's programs, written under out/programs, and what making them cost (`queues`:
    the generated ones from the queue motifs, named genq_...; `shapes`: from the motifs of retry
    loops, indices near their bounds and waits by block index, named gens_...; `scans`: mostly
    running sums over the grid, named genc_...; `sizes`: kernels that declare ranges of grids and
    sizes, with checks that hold across them, named genn_..., sizes.py; `hand`: hand-written locks,
    publications and barriers, named genh_..., hand.py)."""
    folder = out / "programs"
    folder.mkdir(parents=True, exist_ok=True)
    programs = []
    for i in range(count):
        path = folder / f"{batch_prefix(queues, shapes, scans, sizes, hand)}_{seed}_{i:04d}.sync"
        path.write_text(program_text(program_seed(seed, i), queues, shapes, scans, sizes, hand))
        programs.append(Program(path.stem, str(path), "generated"))
    stats: dict = {}
    if mutants and hand:        # mutants of the batch's own programs, locks skipped among them
        from .mutate import HAND_OPERATORS, Seed, make_mutants
        own = [Seed(p.name, p.path, Path(p.path).read_text(), {}) for p in programs]
        made, stats = make_mutants(seed, mutants, folder, include_seeds=False, seeds=own,
                                   operators=HAND_OPERATORS)
        programs += made
    elif mutants:
        from .mutate import make_mutants
        made, stats = make_mutants(seed, mutants, folder)
        programs += made
    return programs, stats


def run_batch(programs: list[Program], targets: list[str], settings: Settings, jobs: int, timeout: float,
              progress=print) -> list[dict]:
    """Every program judged on every target: front-end errors here, the rest in worker processes."""
    results: list[dict] = []
    tasks = []
    for p in programs:
        errors = frontend_errors(p)
        if errors:
            results += [{"program": p.name, "target": t, "verdict": "frontend-error", "errors": errors[:4]}
                        for t in targets]
        else:
            tasks += [(p, t) for t in targets if t in own_targets(p)]
    results += _run_tasks(tasks, settings, jobs, timeout, progress)
    return results


_PINNED = re.compile(r"^\s*//\s*syncc-args:.*--target[ =](\S+)", re.M)
_MODEL = {"ptx": "ptx", "sass": "ptx", "cuda": "ptx", "gpu": "ptx", "fermi-sim": "fermi", "fermi-sass": "fermi"}


def own_targets(p: Program) -> set[str]:
    """The machine models a program is for: the one its `// syncc-args: --target` names (a Fermi-only
    correct neighbour of the hazard corpus, and the mutants made of it), else both."""
    found = _PINNED.search(Path(p.path).read_text())
    return {_MODEL.get(found.group(1), "ptx")} if found else set(TARGETS)


def _run_tasks(tasks, settings: Settings, jobs: int, timeout: float, progress) -> list[dict]:
    """A fork per task, at most `jobs` at once, each stopped after `timeout` seconds."""
    ctx = mp.get_context("fork")
    pending = list(reversed(tasks))
    running: dict = {}          # process -> (task, pipe, start)
    results: list[dict] = []
    done = 0
    while pending or running:
        while pending and len(running) < jobs:
            task = pending.pop()
            receive, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_worker, args=(task, settings, send), daemon=True)
            proc.start()
            send.close()
            running[proc] = (task, receive, time.monotonic())
        # wake when a worker answers or dies, or at the first deadline (a fixed tick left up to
        # 50 ms between one task's end and the next one's start, and most tasks take less)
        first_deadline = min(start for _, _, start in running.values()) + timeout
        wait([r for _, r, _ in running.values()] + [p.sentinel for p in running],
             max(0.0, first_deadline - time.monotonic()))
        for proc in list(running):
            (program, target), receive, start = running[proc]
            result = None
            if receive.poll():
                try:
                    result = receive.recv()
                except EOFError:
                    result = {"program": program.name, "target": target, "verdict": "internal-error",
                              "traceback": f"the worker died (exit code {proc.exitcode})"}
            elif not proc.is_alive():
                result = {"program": program.name, "target": target, "verdict": "internal-error",
                          "traceback": f"the worker died (exit code {proc.exitcode})"}
            elif time.monotonic() - start > timeout:
                proc.kill()
                result = {"program": program.name, "target": target, "verdict": "timeout",
                          "seconds": round(time.monotonic() - start, 1)}
            if result is None:
                continue
            proc.join()
            receive.close()
            del running[proc]
            results.append(result)
            done += 1
            progress(f"[{done}/{len(tasks)}] {program.name} {target}: {result['verdict']} "
                     f"({result.get('seconds', '?')} s)")
    return results


def _worker(task, settings: Settings, send) -> None:
    program, target = task
    send.send(judge(program, target, settings))
    send.close()


# ---- reporting ----------------------------------------------------------------------------------

def summarize(programs: list[Program], results: list[dict], targets: list[str], stats: dict, seconds: float) -> dict:
    kinds = {p.name: p.kind for p in programs}
    per_target = {t: Counter() for t in targets}
    per_kind = {t: {} for t in targets}
    for r in results:
        per_target[r["target"]][r["verdict"]] += 1
        per_kind[r["target"]].setdefault(kinds[r["program"]], Counter())[r["verdict"]] += 1
    table = {}
    for t in targets:
        c = per_target[t]
        table[t] = {"programs": sum(c.values()),
                    "accepted": sum(v for k, v in c.items() if k.startswith("accepted")),
                    "accepted-hang": c["accepted-hang"], "accepted-wrong": c["accepted-wrong"],
                    "accepted-fault": c["accepted-fault"],
                    "rejected": sum(v for k, v in c.items() if k.startswith("rejected")),
                    "rejected-ok": c["rejected-ok"], "rejected-bad": c["rejected-bad"],
                    "changed-result": c["changed-result"],
                    "errors": sum(c[k] for k in ERRORS)}
    return {"date": time.strftime("%Y-%m-%d"), "seconds": round(seconds, 1), "programs": len(programs),
            "kinds": dict(Counter(kinds.values())), "mutation": stats, "table": table,
            "verdicts": {t: dict(sorted(per_target[t].items())) for t in targets},
            "verdicts_by_kind": {t: {k: dict(sorted(v.items())) for k, v in per_kind[t].items()} for t in targets}}


def shape_of(program: Program, result: dict) -> str:
    """What a verdict is about, in a few words: the mutation of a mutant; for a generated
    program, the title of the piece (motif) the first error, or the failing run, points into."""
    if program.kind != "generated":
        return program.mutation or f"seed {program.origin}"
    lines = Path(program.path).read_text().splitlines()
    at = None
    errors = result.get("check", {}).get("errors") or []
    if errors and errors[0].get("line"):
        at = errors[0]["line"]
    else:
        failing = [r for r in result.get("runs", []) if r["status"] != "ok"]
        if failing and failing[0].get("line"):
            at = failing[0]["line"]
    if at is None:
        return "; ".join(l[3:] for l in lines if l.startswith("// k"))
    for i in range(min(at, len(lines)) - 1, -1, -1):
        text = lines[i].strip()
        if text.startswith("// ") and lines[i].startswith("    //"):
            return text[3:]
        if text.startswith("kernel "):
            break
    return "; ".join(l[3:] for l in lines if l.startswith("// k"))


def shape_key(shape: str) -> str:
    """A shape without the details that vary from program to program, to count alike ones."""
    shape = re.sub(r" using \w+(\([^)]*\))?", "", shape)
    shape = re.sub(r"\(line \d+\)|\bline \d+", "", shape)
    shape = re.sub(r"\d+", "N", shape)
    return re.sub(r"\s+", " ", shape).strip()


def triage(programs: list[Program], results: list[dict]) -> list[dict]:
    """The findings grouped by target, verdict, the first code and the shape."""
    by_name = {p.name: p for p in programs}
    groups: dict = {}
    for r in results:
        if r["verdict"] in KEEP or r["verdict"] == "changed-result":
            continue
        p = by_name[r["program"]]
        codes = r.get("check", {}).get("codes") or []
        failing = [x for x in r.get("runs", []) if x["status"] != "ok"]
        code = codes[0] if codes else (failing[0].get("code") if failing else "")
        warned = r.get("check", {}).get("warnings") or []
        if warned:
            code = f"{code} (warned {', '.join(warned)})".strip()
        key = (r["target"], r["verdict"], code or "", shape_key(shape_of(p, r)) if p.kind == "generated"
               else f"{p.kind}: {p.mutation.split(':')[0] or p.origin}")
        groups.setdefault(key, []).append(p.name)
    return [{"target": t, "verdict": v, "code": c, "shape": s, "count": len(names), "programs": names}
            for (t, v, c, s), names in sorted(groups.items())]


def write_outputs(out: Path, programs: list[Program], results: list[dict], settings: Settings, summary: dict) -> None:
    by_program: dict[str, list[dict]] = {}
    for r in results:
        by_program.setdefault(r["program"], []).append(r)
    with open(out / "results.jsonl", "w") as f:
        for r in sorted(results, key=lambda r: (r["program"], r["target"])):
            f.write(json.dumps(r, default=str) + "\n")
    findings = out / "findings"
    if findings.exists():
        shutil.rmtree(findings)
    findings.mkdir()
    for p in programs:
        rs = by_program.get(p.name, [])
        if all(r["verdict"] in KEEP for r in rs):
            continue
        shutil.copy(p.path, findings / Path(p.path).name)
        record = {"program": p.name, "kind": p.kind, "origin": p.origin, "mutation": p.mutation,
                  "defines": p.defines, "verdicts": {r["target"]: r["verdict"] for r in rs},
                  "shape": {r["target"]: shape_of(p, r) for r in rs if r["verdict"] not in KEEP},
                  "reproduce": reproduce(p, rs, settings, findings / Path(p.path).name), "results": rs}
        (findings / f"{p.name}.json").write_text(json.dumps(record, indent=1, default=str))
    summary["triage"] = triage(programs, results)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))


def reproduce(p: Program, results: list[dict], settings: Settings, path: Path) -> list[str]:
    """Command lines (from the repository root) that show each verdict again."""
    lines = []
    defines = " ".join(p.define_args())
    for r in results:
        target = r["target"]
        check_target = TARGETS[target][0]
        lines.append(f"python -m syncc check {path} --target {check_target} {defines}".rstrip())
        failing = [x for x in r.get("runs", []) if x["status"] != "ok"] or r.get("runs", [])[:1]
        for x in failing[:1]:
            if x.get("machine"):
                lines.append(f"# the run below was made on a simulator with the {x['machine']} (tests/oracle/judge.py "
                             "ptx_residency), which `syncc run` has no option for")
            flags = ["--its"] if TARGETS[target][1] else []
            if not r.get("check", {}).get("accepted", True):
                flags.append("--unsafe-skip-hazard-checks")
            flags += [f"--policy {x['policy']}", f"--max-cycles {x['max_cycles']}"]
            lines.append(f"python -m syncc run {path} {' '.join(flags)} {defines}".rstrip())
    return lines


def print_table(summary: dict, write=print) -> None:
    cols = list(next(iter(summary["table"].values())))
    write("| target | " + " | ".join(cols) + " |")
    write("|---" * (len(cols) + 1) + "|")
    for t, row in summary["table"].items():
        write(f"| {t} | " + " | ".join(str(row[c]) for c in cols) + " |")
    for t, verdicts in summary["verdicts"].items():
        write(f"{t}: " + ", ".join(f"{k} {v}" for k, v in verdicts.items()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Generate, mutate and judge a batch of syncc programs.")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=20, help="generated programs")
    ap.add_argument("--mutants", type=int, default=0, help="mutants of the seed programs")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--target", choices=["ptx", "fermi", "both"], default="both")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=600.0, help="wall-clock seconds per program and target")
    ap.add_argument("--max-cycles", type=int, default=Settings.max_cycles, help="cycle budget per launch")
    ap.add_argument("--policies", default=",".join(Settings.policies))
    ap.add_argument("--gpu", action="store_true", help="also write out/gpu: the accepted-for-ptx programs and run_gpu.sh")
    ap.add_argument("--queues", action="store_true",
                    help="generate from the queue motifs (motifs.queue_stream and a few others): a batch of its own")
    ap.add_argument("--shapes", action="store_true",
                    help="generate from the motifs of retry loops, indices near their bounds and waits by block "
                         "index (motifs.retry_wait ... block_order): a batch of its own")
    ap.add_argument("--scans", action="store_true",
                    help="generate mostly running sums over the grid (motifs.scan_sums): a batch of its own")
    ap.add_argument("--sizes", action="store_true",
                    help="generate kernels that declare ranges of grids and sizes (sizes.py), run here at the "
                         "host's first configuration; tests.oracle.declared runs them across the ranges")
    ap.add_argument("--hand", action="store_true",
                    help="generate hand-written spin locks, flag publications and counting barriers "
                         "(hand.py): a batch of its own")
    ap.add_argument("--gpu-only", action="store_true",
                    help="only write out/gpu, from `syncc check --target ptx` alone: no simulator, no verdicts")
    args = ap.parse_args(argv)
    targets = ["ptx", "fermi"] if args.target == "both" else [args.target]
    settings = Settings(policies=tuple(args.policies.split(",")), max_cycles=args.max_cycles,
                        min_cycles=min(Settings.min_cycles, args.max_cycles))
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    _warm_up()
    if args.queues + args.shapes + args.scans + args.sizes + args.hand > 1:
        ap.error("--queues, --shapes, --scans, --sizes and --hand are batches of their own: give one")
    programs, stats = build_batch(args.seed, args.count, args.mutants, args.out, args.queues, args.shapes,
                                  args.scans, args.sizes, args.hand)
    if args.gpu_only:
        return write_gpu_only(args.out / "gpu", programs, settings)
    print(f"{len(programs)} programs ({args.count} generated, {len(programs) - args.count} from the mutator); "
          f"targets {', '.join(targets)}; {args.jobs} jobs", flush=True)
    results = run_batch(programs, targets, settings, args.jobs, args.timeout, progress=_flush_print)
    summary = summarize(programs, results, targets, stats, time.monotonic() - started)
    write_outputs(args.out, programs, results, settings, summary)
    if args.gpu:
        from .gpu import write_gpu_batch
        n = write_gpu_batch(args.out / "gpu", programs, results)
        print(f"gpu batch: {n} programs in {args.out / 'gpu'} (sh {args.out / 'gpu' / 'run_gpu.sh'})")
    print_table(summary)
    bad = [r for r in results if r["verdict"] in SOUNDNESS]
    fp = [r for r in results if r["verdict"] in FALSE_POSITIVE]
    print(f"soundness findings: {len(bad)}; candidate false positives: {len(fp)}; "
          f"{summary['seconds']} s; findings in {args.out / 'findings'}")
    return 0


def write_gpu_only(folder: Path, programs: list[Program], settings: Settings) -> int:
    """The GPU batch of a new compiler for the same programs, in minutes rather than half an hour:
    which programs go is the ptx check's decision alone, so the simulator is not needed (the
    batch's expected.tsv then says `unjudged`). Use it where only code generation changed."""
    from .gpu import write_gpu_batch
    from .judge import check_only
    results = []
    for p in programs:
        result = {"program": p.name, "target": "ptx", "verdict": "unjudged"}
        if frontend_errors(p):
            result["check"] = {"accepted": False}
        else:
            result.update(check_only(p, "ptx", settings))
        results.append(result)
    n = write_gpu_batch(folder, programs, results)
    print(f"gpu batch: {n} of {len(programs)} programs accepted for ptx, in {folder} (sh {folder / 'run_gpu.sh'})")
    return 0


def _flush_print(line: str) -> None:
    print(line, flush=True)


def _warm_up() -> None:
    """Import syncc and build its parser once, so each forked worker starts with them."""
    import tempfile

    from syncc.driver import check_file
    with tempfile.NamedTemporaryFile("w", suffix=".sync", delete=False) as f:
        f.write("const A = 1\n")
    check_file(f.name)
    os.unlink(f.name)


assert set(KEEP) <= set(VERDICTS)

if __name__ == "__main__":
    sys.exit(main())
