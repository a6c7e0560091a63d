"""What the emitter's steps (steps.py) pass along: one kernel and what has been made of it so far."""
from __future__ import annotations

from dataclasses import dataclass

from ....ir.nodes import Kernel
from ....ir.analysis.uniformity import Uniformity
from ..isa import Instruction
from .mcode import MFunction
from .reconverge import ReconvergenceRegion


@dataclass(eq=False)
class Emission:
    """One kernel on its way to SASS: what the steps so far have made of it."""
    kernel: Kernel
    its: bool = False                       # the ITS flavour: BSSY / BSYNC, WARPSYNC, YIELD
    source: str | None = None
    ir: Kernel | None = None
    uniform: Uniformity | None = None
    regions: list[ReconvergenceRegion] | None = None
    mf: MFunction | None = None
    instrs: list[Instruction] | None = None
