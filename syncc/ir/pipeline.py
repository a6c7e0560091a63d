"""The compiler's passes, in order: one flat list, with the IR verifier between them.

    module = compile_module(checked, ctx, dump_after="structure")

Each pass is a function (Kernel, PassContext) -> Kernel in syncc/ir/passes/,
whose docstring states what it guarantees. `--dump-after NAME` prints the IR
after the pass of that name (or after `lower`).

PASSES is the one list of the passes and their names; the command line reads the names
(PASS_NAMES) only when a command needs them, so that it imports no pass on the way to `check`.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

from .context import PassContext
from .analysis.launches import launch_shapes
from .lower import lower_program
from .nodes import Kernel, Module
from .passes.bounds import insert_bounds_checks
from .passes.elide import combine_warps, elide_locks
from .passes.expand import expand_primitives
from .passes.fences import insert_fences
from .passes.hand_fences import order_hand_sync
from .passes.hazards import check_hazards
from .passes.guard import guard_configurations
from .passes.initialize import initialize_shared_state
from .passes.livelock import prevent_livelock
from .passes.lockbits import allocate_lock_bits
from .passes.simplify import simplify_cfg
from .passes.structure import structure
from .passes.unroll import unroll_lock_loops
from .passes.unroll_counted import unroll_counted_loops
from .verify import verify_kernel

Pass = Callable[[Kernel, PassContext], Kernel]


class PassRow(NamedTuple):
    name: str
    run: Pass
    stage: str               # the IR stage it leaves
    min_opt: int             # the least -O at which it runs
    # It needs the caller's whole kernel: a library's vended operations (PassContext.vending) leave
    # it out, because the library cannot see the kernel that calls them (frontend/vending.py says
    # what each one would need)
    whole_kernel: bool = False


PASSES: list[PassRow] = [
    PassRow("unroll_lock_loops", unroll_lock_loops, "lowered", 0),
    PassRow("check_hazards", check_hazards, "lowered", 0, whole_kernel=True),
    PassRow("guard_configurations", guard_configurations, "lowered", 0, whole_kernel=True),
    PassRow("insert_bounds_checks", insert_bounds_checks, "lowered", 0, whole_kernel=True),
    PassRow("elide_locks", elide_locks, "lowered", 2, whole_kernel=True),
    PassRow("combine_warps", combine_warps, "lowered", 2, whole_kernel=True),
    PassRow("structure", structure, "structured", 0),
    PassRow("insert_fences", insert_fences, "structured", 0),
    PassRow("order_hand_sync", order_hand_sync, "structured", 0),
    PassRow("prevent_livelock", prevent_livelock, "structured", 0),
    PassRow("expand_primitives", expand_primitives, "expanded", 0),
    PassRow("initialize_shared_state", initialize_shared_state, "expanded", 0, whole_kernel=True),
    PassRow("allocate_lock_bits", allocate_lock_bits, "expanded", 0),
    PassRow("unroll_counted_loops", unroll_counted_loops, "expanded", 2),
    PassRow("simplify_cfg", simplify_cfg, "expanded", 0),
]
# what `--dump-after` and `syncc opt -p` take: lowering, then every pass, in order
PASS_NAMES = ["lower"] + [row.name for row in PASSES]


def runs(row: PassRow, ctx: PassContext) -> bool:
    """Does the pass run in this compilation? At its -O and above, except the hazard checks under
    --unsafe-skip-hazard-checks, and a pass that needs the whole kernel when a library's operations
    are compiled (ctx.vending)."""
    if ctx.opt < row.min_opt or row.name == "check_hazards" and not ctx.hazards:
        return False
    return not (ctx.vending and row.whole_kernel)


def compile_module(checked, ctx: PassContext, dump_after: str | None = None,
                   dump: Callable[[str, Module], None] | None = None) -> Module | None:
    """Lower a checked program and run every pass that runs for ctx (`runs`).

    The verifier checks the IR after the last pass (whose stage promises the
    most) and after a dumped one; with ctx.verify_each (--verify-each, and
    always in the test suite) after lowering and after every pass. A pass that reports an error stops the pipeline
    after it has seen every kernel (so one run reports all the kernels'
    problems): None is returned."""
    module = lower_program(checked, ctx)
    ctx.launches = launch_shapes(checked)
    ctx.supports = {name: info.supports for m in checked.with_imports() for name, info in m.kernels.items()
                    if info.supports is not None}
    if ctx.verify_each or dump_after == "lower":
        for k in module.kernels:
            verify_kernel(k, "lowered", "lower")
    if dump_after == "lower" and dump:
        dump("lower", module)
    last = [row.name for row in PASSES if ctx.opt >= row.min_opt][-1]
    for row in PASSES:
        if not runs(row, ctx):
            continue
        name, run, stage = row.name, row.run, row.stage
        errors = ctx.sink.error_count
        kernels = tuple(run(k, ctx) for k in module.kernels)
        if ctx.sink.error_count > errors:
            return None
        if ctx.verify_each or name in (last, dump_after):
            for old, k in zip(module.kernels, kernels):
                if k is not old or stage != "lowered":     # an unchanged kernel was verified at this stage
                    verify_kernel(k, stage, name)
        module = Module(kernels, module.source)
        if dump_after == name and dump:
            dump(name, module)
    return module


def run_passes(module: Module, names: list[str], ctx: PassContext) -> Module | None:
    """Run the named passes, in the order given, on IR read from text (`syncc opt`): the input is
    verified at the stage each pass expects, and the result after each. None after an error."""
    stage_before, stage = {}, "lowered"
    for row in PASSES:
        stage_before[row.name], stage = stage, row.stage
    table = {row.name: (row.run, row.stage) for row in PASSES}
    for name in names:
        run, after = table[name]
        for k in module.kernels:
            verify_kernel(k, stage_before[name], "reading")
        errors = ctx.sink.error_count
        kernels = tuple(run(k, ctx) for k in module.kernels)
        if ctx.sink.error_count > errors:
            return None
        for k in kernels:
            verify_kernel(k, after, name)
        module = Module(kernels, module.source)
    return module
