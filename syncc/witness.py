"""`syncc explain --witness`: for each ordering the compiler inserted, a run that goes wrong without it.

    report = find_witnesses("examples/counter.sync", runs=20)
    print(format_witnesses(report))

An ordering is a fence (or an acquire/release on the operation itself) that
insert_fences added, or a `__syncwarp` that prevent_livelock added under
`--its`; each has a key (`Remark.key`). For each one, the program is compiled
again with that ordering alone left out (`PassContext.omit`, hazard checks off:
the mutant is an experiment) and its host block runs on the Fermi simulator
under seeded adversarial schedules with the weak memory model on the same seed
(`adversarial:S`, `weak:S`), S = 1, 2, ... until a run goes wrong: a `check`
fails, a value the program prints differs from the complete program's, or the
run cannot finish (a deadlock, a livelock, or a budget 20 times the complete
program's cycles). The witness is that run: its seed, what went wrong, and the
last instructions issued from the ordering's source line before it ended. When
no run goes wrong in N, the report says so: the ordering may guard against
something this machine model does not do, or something rarer.

The complete program runs first on each seed a mutant is tried with, so a
failure that the complete program shares is not taken for a witness.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from .driver import Compilation, Defines, compile_file

BUDGET_FACTOR = 20          # a mutant's cycle budget, in multiples of the complete program's longest launch
MIN_BUDGET = 200_000


@dataclass
class Run:
    ok: bool
    printed: list[str]
    problem: str | None = None          # the first error of a run that went wrong, as `CODE: message`
    cycles: int = 0                     # the longest launch
    excerpt: list[str] = field(default_factory=list)


@dataclass
class Witness:
    kernel: str
    topic: str                          # fence | syncwarp
    what: str                           # the remark: what was inserted and why
    line: int | None
    col: int | None
    tried: int = 0                      # runs made without the ordering
    seed: int | None = None             # the first that went wrong
    run: Run | None = None
    note: str | None = None             # why there is no verdict (the mutant did not compile, ...)

    @property
    def found(self) -> bool:
        return self.seed is not None


@dataclass
class WitnessReport:
    path: str
    its: bool
    runs: int
    baseline: Run | None
    witnesses: list[Witness]
    note: str | None = None


class _LineTail:
    """The last instructions issued from some source lines (the simulator's `issued` hook)."""
    wants_issues = True

    def __init__(self, line: int | None, keep: int = 6):
        self.line = line
        self.tail: deque = deque(maxlen=keep)

    def issued(self, w, d, now) -> None:
        loc = d.ins.loc
        if loc is not None and loc[0] == self.line:
            from .backends.sim import lanes as L
            self.tail.append(f"cycle {now:>9,}  {w.name}  {L.describe(w.active)}  0x{w.pc:04x} `{d.ins}`")


def _simulate(comp: Compilation, seed: int, its: bool, max_cycles: int, line: int | None = None) -> Run:
    from .backends.sim.machine import FermiConfig
    from .runtime.run import run_program
    config = FermiConfig(policy=f"adversarial:{seed}", memory=f"weak:{seed}", its=its, max_cycles=max_cycles)
    printed: list[str] = []
    before = len(comp.sink.items)
    tail = _LineTail(line) if line is not None else None
    observer = None
    if tail is not None:
        from .backends.sim.trace import Observers
        observer = Observers([tail])
    outcome = run_program(comp, write=printed.append, config=config, observer=observer)
    errors = [d for d in comp.sink.items[before:] if d.is_error]
    del comp.sink.items[before:]                 # the compilation is reused for the next seed
    cycles = max((o.cycles for _, o, *_ in outcome.runs), default=0)
    problem = None if outcome.ok else f"{errors[0].code}: {errors[0].message}" if errors else "the run stopped"
    return Run(outcome.ok, printed, problem, cycles, list(tail.tail) if tail else [])


def find_witnesses(path: str, defines: Defines | None = None, its: bool = False, runs: int = 20,
                   opt: int = 2, stdlib: tuple[str, ...] = (), first_seed: int = 1,
                   comp: Compilation | None = None) -> WitnessReport:
    """Compile `path` for fermi-sim (`its`: with independent thread scheduling), unless `comp` is
    that compilation already, then look for a witness of each ordering the compiler inserted in
    up to `runs` seeded runs."""
    if comp is None:
        comp = compile_file(path, defines, "fermi-sim", opt, its=its, stdlib=stdlib)
    if not comp.ok or comp.context is None:
        return WitnessReport(path, its, runs, None, [], "the program does not compile: run `syncc check`")
    if comp.module is None or comp.module.host is None:
        return WitnessReport(path, its, runs, None, [], "the program has no host block: nothing to run")
    orderings = list(dict.fromkeys(r for r in comp.context.remarks if r.key is not None))
    baseline = _simulate(comp, first_seed, its, 50_000_000)
    if not baseline.ok:
        return WitnessReport(path, its, runs, baseline, [],
                             f"the complete program does not run correctly under seed {first_seed}: "
                             f"{baseline.problem}")
    budget = max(MIN_BUDGET, BUDGET_FACTOR * baseline.cycles)
    complete: dict[int, Run] = {first_seed: baseline}
    out = []
    for r in orderings:
        w = Witness(r.kernel, r.topic, r.message, r.span.line if r.span else None, r.span.col if r.span else None)
        mutant = compile_file(path, defines, "fermi-sim", opt, its=its, hazards=False, omit=frozenset([r.key]),
                              stdlib=stdlib)
        if not mutant.ok:
            w.note = "the program does not compile without it"
            out.append(w)
            continue
        for seed in range(first_seed, first_seed + runs):
            if seed not in complete:
                complete[seed] = _simulate(comp, seed, its, 50_000_000)
            ref = complete[seed]
            if not ref.ok:
                continue                          # not a witness: the complete program fails here too
            w.tried += 1
            run = _simulate(mutant, seed, its, budget)
            if not run.ok or run.printed != ref.printed:
                if run.ok:
                    run.problem = "it printed " + "; ".join(run.printed) + " instead of " + "; ".join(ref.printed)
                w.seed = seed
                w.run = _simulate(mutant, seed, its, budget, w.line)   # again, keeping the excerpt
                w.run.problem = run.problem
                break
        out.append(w)
    return WitnessReport(path, its, runs, baseline, out)


def format_witnesses(report: WitnessReport) -> str:
    mode = "fermi-sim --its" if report.its else "fermi-sim"
    head = (f"{report.path}: witnesses ({mode}; each inserted ordering left out alone, then up to "
            f"{report.runs} runs under adversarial:S scheduling and weak:S memory, S = 1, 2, ...)")
    lines = [head]
    if report.note:
        lines.append(f"  {report.note}")
        return "\n".join(lines) + "\n"
    if not report.witnesses:
        lines.append("  the compiler inserted no ordering: nothing to witness")
    for kernel in dict.fromkeys(w.kernel for w in report.witnesses):
        lines.append(f"  kernel {kernel}")
        for w in (x for x in report.witnesses if x.kernel == kernel):
            where = f"{w.line}:{w.col}" if w.line is not None else ""
            lines.append(f"    {where:<8} {w.what}")
            if w.note:
                lines.append(f"             {w.note}")
            elif w.found:
                lines.append(f"             without it: run {w.tried} (seed {w.seed}) goes wrong: {w.run.problem}")
                for x in w.run.excerpt:
                    lines.append(f"               {x}")
            else:
                lines.append(f"             without it: no run went wrong in {w.tried}")
    found = sum(w.found for w in report.witnesses)
    lines.append(f"  {found} of {len(report.witnesses)} orderings have a witness")
    return "\n".join(lines) + "\n"
