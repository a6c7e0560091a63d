"""The emitter's steps, in order: one table, name → function (docs/fermi.md, "From IR to SASS").

    e = Emission(kernel, its, source)
    run_steps(e)                                  # e.instrs: the kernel's SASS
    run_steps(e, "select", dump)                  # and dump("select", text) after that step

Each step moves one kernel's `Emission` on. The first four work on the IR
(`ir`), `select` makes the machine code (`mf`, on virtual registers), the
next ones rewrite it, and `lay_out` turns it into the kernel's instructions
(`instrs`). A step's docstring is what it guarantees; the machine-code
verifier (verify.py) checks the code at the end, and with verify_each after
every step from `select` on, and the IR's verifier the IR that `legalize` and
`if_convert` rewrote, so a step that breaks it is an internal error naming
that step.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ....ir.analysis.uniformity import WARP, Uniformity
from ....ir.verify import verify_kernel
from .dump import emission_text
from .emission import Emission
from .ifconvert import if_convert
from .layout import lay_out, merge_blocks, order_blocks
from .legalize import legalize
from .optimize import optimize
from .reconverge import find_regions, place_reconvergence
from .regalloc import allocate
from .select import Selector
from .verify import Stage, verify_function, verify_instructions
from .yields import insert_yields


def _legalize(e: Emission) -> None:
    """IR → IR with only what Fermi has: shared atomics as seed 000 Listing 1's lock-bit loop,
    integer division by a register, nanosleep, orderings, bounds checks as a compare, a branch and a
    trapping path."""
    e.ir = legalize(e.kernel, e.its)


def _uniformity(e: Emission) -> None:
    """Which values every lane of a warp agrees on, computed before if-conversion merges the arms away."""
    e.uniform = Uniformity(e.ir)


def _if_convert(e: Emission) -> None:
    """IR → IR: short arms become guarded (predicated) instructions."""
    e.ir = if_convert(e.ir)


def _find_regions(e: Emission) -> None:
    """Each divergent branch's join and region, nested (on the IR, with the uniformity from before
    if-conversion)."""
    e.regions = find_regions(e.ir, lambda b: e.uniform.level(b.term.cond) > WARP, e.its)


def _select(e: Emission) -> None:
    """Each IR instruction → SASS on virtual registers, with its source line."""
    e.mf = Selector(e.ir, lambda r: e.uniform.level(r) <= WARP, e.its, e.source).run()


def _optimize(e: Emission) -> None:
    """Folding, copy propagation, shared subexpressions, loop-invariant motion: same results, fewer
    instructions."""
    optimize(e.mf)


def _insert_yields(e: Emission) -> None:
    """ITS flavour: a YIELD at the head of each loop that polls memory, so other splits run (nothing
    on Fermi)."""
    if e.its:
        insert_yields(e.mf)


def _place_reconvergence(e: Emission) -> None:
    """Every divergent branch runs in a region opened by SSY and closed by .S (ITS: BSSY / BSYNC),
    so its lanes meet again at its join."""
    place_reconvergence(e.mf, e.regions, e.its)


def _merge_blocks(e: Emission) -> None:
    """No empty jump-only blocks and no straight-line pairs of blocks; every block an SSY names is kept."""
    merge_blocks(e.mf)


def _order_blocks(e: Emission) -> None:
    """Lanes that leave a loop's region fall into their .S, so the SIMT stack does not deepen per
    iteration."""
    order_blocks(e.mf)


def _allocate(e: Emission) -> None:
    """Physical registers: R0–R62 and P0–P6, spills to local memory and to registers."""
    allocate(e.mf)


def _lay_out(e: Emission) -> None:
    """The kernel's instructions: instruction i at address 8·i, branches and .S resolved, every
    target an instruction's address, no path falling off the end."""
    e.instrs = lay_out(e.mf, e.its)


@dataclass(frozen=True)
class Step:
    name: str
    run: Callable[[Emission], None]

    @property
    def guarantee(self) -> str:
        return " ".join(self.run.__doc__.split())


STEPS: tuple[Step, ...] = (
    Step("legalize", _legalize),
    Step("uniformity", _uniformity),
    Step("if_convert", _if_convert),
    Step("find_regions", _find_regions),
    Step("select", _select),
    Step("optimize", _optimize),
    Step("insert_yields", _insert_yields),
    Step("place_reconvergence", _place_reconvergence),
    Step("merge_blocks", _merge_blocks),
    Step("order_blocks", _order_blocks),
    Step("allocate", _allocate),
    Step("lay_out", _lay_out),
)
STEP_NAMES = tuple(s.name for s in STEPS)


def run_steps(e: Emission, dump_after: str | None = None,
              dump: Callable[[str, str], None] | None = None, verify_each: bool = False) -> None:
    """Every step in order and `dump(name, text)` after the step named `dump_after`. The verifier
    checks the code after the last step and a dumped one; with `verify_each` (--verify-each, and
    always in the test suite) after every step that has machine code or rewrote the IR, as the
    IR's verifier does between passes (it costs about a tenth of the emitter's time)."""
    done: set[str] = set()
    for step in STEPS:
        ir = e.ir
        step.run(e)
        done.add(step.name)
        if not (verify_each or step is STEPS[-1] or step.name == dump_after):
            continue
        stage = Stage(e.kernel.name, step.name, e.its, frozenset(done))
        if e.instrs is not None:
            verify_instructions(e.instrs, stage)
        elif e.mf is not None:
            verify_function(e.mf, stage)
        elif e.ir is not ir:        # a step that rewrote the IR: the IR's own verifier
            verify_kernel(e.ir, "expanded", step.name)
        if step.name == dump_after and dump is not None:
            dump(step.name, emission_text(e, step.name))
