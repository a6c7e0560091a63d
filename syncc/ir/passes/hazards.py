"""Static hazard analyses, on the lowered IR, before anything is restructured.

Guarantee: a program that passes has none of the hazards that the checks below can
see; each is a documented diagnostic (docs/diagnostics.md) pointing at the
operation, with notes at the other end of the problem and a fix.

Each check is one module of checks/, run in the order of CHECKS below: its docstring says what
it finds, and its CODES what it reports (tests/ir/test_hazard_checks.py keeps them true, and every
code documented and in the hazard corpus). The checks read the analyses of ir/analysis/ (Facts:
the control flow, the launch's threads and instances, uniformity, values, ranges) and report
through the sink.

The checks run once for each shape the kernel is launched with (its declared shape and every
`launch` of the host block, ir/analysis/launches.py): a finding that only a launch's shape causes gets
a note at that launch. A launch that differs from a checked shape only in arguments no check
can see (checks/data_params.py) is not checked again. Lock bits (E0713, W0714) are checked
where they are laid out, in allocate_lock_bits.

The IR is returned unchanged but for one flag: a kernel with a wait that only another block can
end is marked `coresident` (checks/residency.py), so that the runtime launches it with every
block resident at once, as it does a kernel with a grid barrier.

A launch whose grid, block or scalar arguments are known only at run time (a host block's computed
`grid(g)`, a launch from the Python API) is checked when it is made: `check_launch` runs the same
checks on the kernel as they saw it (kept in ctx.checked) for that shape, once per shape that
could find something new, and the runtime refuses the launch with the findings.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from ...core.diagnostics import Diagnostic, DiagnosticSink, Note, Severity
from ..checks.atomic_scope import check_atomic_scope
from ..checks.barriers import check_collectives
from ..checks.bounds import check_bounds
from ..checks.channels import check_channels
from ..checks.closes import check_closes
from ..checks.counting_barriers import check_counting_barriers
from ..checks.drains import check_drained_gets
from ..checks.queue_parties import check_queue_parties
from ..checks.range_puts import check_range_puts
from ..checks.races import check_races
from ..checks.residency import check_residency, coresident
from ..analysis.facts import Facts, declared_shape
from ..analysis.launches import DeclaredConfiguration
from ..checks.counts import check_counts
from ..checks.data_params import data_only_params
from ..checks.lock_scope import check_lock_scope
from ..checks.lost_wakeups import check_lost_wakeups
from ..checks.locks import check_locks
from ..checks.memory import check_memory_order
from ..checks.phases import check_phases
from ..checks.schedule import check_schedule
from ..analysis.space import Shape
from ..checks.waitfor import check_waits_for
from ..checks.waits import check_waits
from ..context import PassContext
from ..nodes import Kernel

CHECKS = (check_bounds, check_collectives, check_residency, check_phases, check_locks, check_lock_scope,
          check_channels, check_waits, check_waits_for, check_drained_gets, check_counts,
          check_counting_barriers, check_closes,
          check_queue_parties, check_range_puts, check_schedule, check_memory_order,
          check_atomic_scope, check_races, check_lost_wakeups)


@dataclass
class Checked:
    """A kernel as check_hazards saw it, and the launch shapes it has been checked for: `passed`
    (nothing found), `refused` (shape → what was found, the errors among it)."""
    kernel: Kernel
    data_only: frozenset | None       # checks/data_params.py's, worked out when first needed
    passed: dict = field(default_factory=dict)        # (grid, block) → the shapes of it that passed
    refused: dict = field(default_factory=dict)
    coresident: set = field(default_factory=set)     # shapes whose launch needs every block resident

    def passes(self, shape: Shape, facts: Facts) -> bool:
        """Record a shape the checks found nothing in; does its launch need every block resident?"""
        self.passed.setdefault((shape.grid, shape.block), []).append(shape)
        if coresident(facts):
            self.coresident.add(shape)
        return shape in self.coresident


@dataclass(frozen=True)
class LaunchVerdict:
    errors: tuple = ()           # the diagnostics (errors first) that refuse the launch
    coresident: bool = False     # the launch needs every block resident at once


def check_hazards(k: Kernel, ctx: PassContext) -> Kernel:
    shapes = list(ctx.launches.get(k.name) or [declared_shape(k)])
    seen: dict[tuple, Diagnostic] = {}
    checked: list[Shape] = []
    data_only = data_only_params(k) if len(shapes) > 1 else None
    needs_coresidency = False
    for shape in shapes:
        if any(_same_findings(shape, done, data_only) for done in checked):
            continue
        checked.append(shape)
        sink = DiagnosticSink()
        facts = run_checks(k, shape, replace(ctx, sink=sink))
        needs_coresidency |= coresident(facts)
        if not sink.has_errors:
            ctx.checked.setdefault(k.name, Checked(k, data_only)).passes(shape, facts)
        for d in sink.items:
            # one report per problem: the declared configurations say it once, at the first that has it
            key = (d.code, d.span) if isinstance(shape.where, DeclaredConfiguration) else (d.code, d.span, d.message)
            if key in seen:
                continue
            if isinstance(shape.where, DeclaredConfiguration):
                d = replace(d, notes=d.notes + (Note(f"for a configuration the kernel declares it supports: "
                                                     f"{_describe(shape)}{_arguments(k, shape)}", shape.where.span),))
            elif shape.where is not None and d.span != shape.where:
                d = replace(d, notes=d.notes + (Note(f"for this launch: {_describe(shape)}", shape.where),))
            seen[key] = d
            ctx.sink.add(d)
    return replace(k, coresident=True) if needs_coresidency else k


def check_launch(ctx: PassContext, name: str, shape: Shape) -> LaunchVerdict:
    """The hazard checks for one launch of kernel `name` with `shape` (its grid, block and scalar
    arguments, known at run time): nothing to say where a shape already checked would find the
    same (_same_findings); else the checks run, once per new shape (what they find is kept)."""
    record = ctx.checked.get(name)
    if record is None:
        return LaunchVerdict()          # never checked: hazards skipped (--unsafe-skip-hazard-checks)
    if record.data_only is None:
        record.data_only = data_only_params(record.kernel)
    for done in record.passed.get((shape.grid, shape.block), ()):
        if _same_findings(shape, done, record.data_only):
            return LaunchVerdict(coresident=done in record.coresident)
    key = (shape.grid, shape.block, shape.args)
    if key not in record.refused:
        sink = DiagnosticSink()
        facts = run_checks(record.kernel, shape, replace(ctx, sink=sink))
        if sink.has_errors:
            note = Note(f"for this launch: {_describe(shape)}{_arguments(record.kernel, shape)}, given at run "
                        "time (every new launch configuration is checked before it runs)", shape.where)
            record.refused[key] = tuple(replace(d, notes=d.notes + (note,)) for d in sink.sorted()
                                        if d.severity is Severity.ERROR)
        else:
            return LaunchVerdict(coresident=record.passes(shape, facts))
    return LaunchVerdict(errors=record.refused[key])


def _arguments(k: Kernel, shape: Shape) -> str:
    names = [p.name.split(".")[0] for p in k.params]
    given = ", ".join(f"{names[i]} = {v}" for i, v in shape.args if i < len(names))
    return f" with {given}" if given else ""


def run_checks(k: Kernel, shape: Shape, ctx: PassContext) -> Facts:
    """Every check on the kernel as launched with `shape`; what they found out (Facts)."""
    kernel = replace(k, grid=shape.grid, block=shape.block)
    facts = Facts(kernel, ctx.target, shape)
    for check in CHECKS:
        check(facts, ctx)
    return facts


def _same_findings(shape: Shape, done: Shape, data_only: frozenset[int]) -> bool:
    """Would `shape` find what `done` found? Yes when it has the same grid and block and its
    constant arguments differ only in parameters no check can see (`data_only`: data_params.py)."""
    if (shape.grid, shape.block) != (done.grid, done.block):
        return False
    a, b = dict(shape.args), dict(done.args)
    return {n for n in a.keys() | b.keys() if a.get(n) != b.get(n)} <= data_only


def _describe(shape: Shape) -> str:
    def dims(t):
        while len(t) > 1 and t[-1] == 1:
            t = t[:-1]
        return ", ".join(map(str, t))
    return f"grid({dims(shape.grid)}) block({dims(shape.block)})"
