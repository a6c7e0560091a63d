"""What lowering and every pass share: the target, the optimization level, where
diagnostics go, and the remarks `syncc explain` prints (what was chosen, inserted
or restructured, and why, each at a source location)."""
from __future__ import annotations

from dataclasses import field

from ..core.diagnostics import DiagnosticSink
from ..core.prebuilt import dataclass
from ..core.source import Span
from .machine_model import PTX, MachineModel


# What a PassContext's `verify_each` is when not given: False, except in the test suite
# (tests/conftest.py), where every compilation verifies the IR between all passes.
VERIFY_EACH_DEFAULT = False


@dataclass(frozen=True)
class Remark:
    kernel: str
    topic: str          # implementation | structure | fence | syncwarp | lockbits | init | elide | combine |
                        # barrier | bounds | undecided
    message: str
    span: Span | None = None
    key: tuple | None = None    # an ordering the compiler inserted: what `omit` names to leave it out


@dataclass
class PassContext:
    target: MachineModel = PTX
    opt: int = 2
    sink: DiagnosticSink = field(default_factory=DiagnosticSink)
    remarks: list[Remark] = field(default_factory=list)
    # False only to measure what fence minimization saves (bench/fences.py): every ordering
    # point becomes an explicit fence, in every thread of a party, even where an atomic or a
    # barrier would carry it.
    minimize_fences: bool = True
    # False only for the GPU tests that show the stress tests can fail (--unsafe-no-fences): no
    # ordering at all, not on fences nor on atomics and loads. A program compiled so is wrong.
    fences: bool = True
    # False only to show what prevent_livelock prevents (--unsafe-no-syncwarp, with the simulator's
    # --its): no __syncwarp on the polling loops. A program compiled so may livelock.
    syncwarp: bool = True
    # False only for the oracle (tests/oracle): skip check_hazards, so that a program the analyses
    # reject can still be run on the simulator or a GPU to see whether the hazard is real
    # (--unsafe-skip-hazard-checks). A program compiled so has no guarantee.
    hazards: bool = True
    # False only to measure what the run-time bounds checks cost (--unsafe-no-bounds-checks, `syncc
    # bench gpu --bounds both`): insert_bounds_checks adds none. A program compiled so can write
    # next to its arrays when an index is wrong.
    bounds_checks: bool = True
    # The keys (Remark.key) of orderings to leave out, one at a time, for `syncc explain --witness`:
    # each such compilation runs under adversarial schedules to show what that ordering prevents.
    omit: frozenset = frozenset()
    # kernel name → the launch shapes the host block uses (launches.py); the hazard checks run
    # once per distinct shape
    launches: dict = field(default_factory=dict)
    # kernel name → what its header declares it supports (core/configs.py's Supported): the
    # runtime refuses a launch outside it, and guard_configurations makes the kernel refuse one
    supports: dict = field(default_factory=dict)
    # kernel name → what check_hazards saw (passes/hazards.py's Checked): the kernel and the shapes
    # it passed, so that a launch whose shape is known only at run time is checked before it runs
    checked: dict = field(default_factory=dict)
    # Verify the IR after every pass, not only after lowering and at the end (--verify-each;
    # the test suite turns VERIFY_EACH_DEFAULT on for every compilation it runs).
    verify_each: bool = field(default_factory=lambda: VERIFY_EACH_DEFAULT)
    # True for a library's vended operations (driver.vend_library): each is one call of a C++
    # member function, so what a kernel would set up once or keep in registers (an mbarrier
    # queue's barriers and counts) is the type's state, initialized by its `init()`.
    vending: bool = False

    def remark(self, kernel: str, topic: str, message: str, span: Span | None = None,
               key: tuple | None = None) -> None:
        self.remarks.append(Remark(kernel, topic, message, span, key))
