"""Static hazard analyses, on the lowered IR, before anything is restructured.

Guarantee: a program that passes has none of the hazards below that syncc can
see; each is a documented diagnostic (docs/diagnostics.md) pointing at the
operation, with notes at the other end of the problem and a fix.

    checks/waits.py     E0701 SIMT deadlock (stack-based), W0702 livelock (ITS)
    checks/locks.py     E0701 nested @thread locks (stack-based), E0703 lock-order cycle,
                        E0715 unpaired lock/unlock, E0717 trylock that cannot give up
    checks/lock_scope.py  E0709 shared mutex across blocks, E0719 party-varying index,
                        E0722 MCS nested deeper than its queue nodes
    checks/barriers.py  E0704 barrier under divergence, E0707 warp operation under
                        divergence (or in a section, or a `when` body)
    checks/residency.py E0708 grid barrier beyond co-residency, E0727 a wait only another block
                        can end beyond co-residency
    checks/phases.py    E0723 a grid barrier's `arrive` and `wait` that do not alternate
    checks/channels.py  E0705 wait with no producer (or, for a slot chosen by data, a slot of the
                        channel with none), E0706 slot with two producers
    checks/waitfor.py   E0720 a wait for threads that wait for this one (a hold they need, a
                        ring of channel waits)
    checks/counts.py    E0705 semaphore or latch that can never be posted enough (a queue's `put` and
                        `get` too, and a loop retrying an attempt until it succeeds: retries.py),
                        E0721 named barrier reached by too many or too few
    checks/closes.py    E0705 a `for` loop over a queue closed too few times, E0724 one closed
                        too many times or put into after a thread's own close
    checks/queue_parties.py  E0725 an `mbarrier` queue with more than one producer or consumer
                        warp in a block
    checks/schedule.py  E0705 / E0720 waits left waiting when the threads' known sequences of
                        posts, puts, count-downs and barriers run together, each as far as it can
    checks/bounds.py    E0726 an index outside its array or primitive, for a thread that runs it
    checks/memory.py    E0709 fence too narrow, E0710 lock without fences,
                        E0711 fence after the release, E0712 last block without a fence

The checks run once for each shape the kernel is launched with (its declared shape and every
`launch` of the host block, ir/launches.py): a finding that only a launch's shape causes gets
a note at that launch. A launch that differs from a checked shape only in arguments no check
can see (checks/data_params.py) is not checked again. Lock bits (E0713, W0714) are checked
where they are laid out, in allocate_lock_bits.

The IR is returned unchanged but for one flag: a kernel with a wait that only another block can
end is marked `coresident` (checks/residency.py), so that the runtime launches it with every
block resident at once, as it does a kernel with a grid barrier.
"""
from __future__ import annotations

from dataclasses import replace

from ...core.diagnostics import Diagnostic, DiagnosticSink, Note
from ..checks.barriers import check_collectives
from ..checks.bounds import check_bounds
from ..checks.channels import check_channels
from ..checks.closes import check_closes
from ..checks.queue_parties import check_queue_parties
from ..checks.residency import check_residency, coresident
from ..analysis.facts import Facts, declared_shape
from ..checks.counts import check_counts
from ..checks.data_params import data_only_params
from ..checks.lock_scope import check_lock_scope
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
          check_channels, check_waits, check_waits_for, check_counts, check_closes, check_queue_parties, check_schedule, check_memory_order)


def check_hazards(k: Kernel, ctx: PassContext) -> Kernel:
    shapes = list(ctx.launches.get(k.name) or [declared_shape(k)])
    seen: dict[tuple, Diagnostic] = {}
    checked: list[Shape] = []
    data_only = data_only_params(k) if len(shapes) > 1 else frozenset()
    needs_coresidency = False
    for shape in shapes:
        if any(_same_findings(shape, done, data_only) for done in checked):
            continue
        checked.append(shape)
        sink = DiagnosticSink()
        facts = run_checks(k, shape, replace(ctx, sink=sink))
        needs_coresidency |= coresident(facts)
        for d in sink.items:
            key = (d.code, d.span, d.message)
            if key in seen:
                continue
            if shape.where is not None and d.span != shape.where:
                d = replace(d, notes=d.notes + (Note(f"for this launch: {_describe(shape)}", shape.where),))
            seen[key] = d
            ctx.sink.add(d)
    return replace(k, coresident=True) if needs_coresidency else k


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
