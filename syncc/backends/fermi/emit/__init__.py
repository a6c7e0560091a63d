"""The Fermi SASS emitter: safe IR (after every pass, for the FERMI target) → `SassKernel`s.

    program = build_fermi_sass(module)             # Fermi: SSY / .S reconvergence
    program = build_fermi_sass(module, its=True)   # Volta-style: BSSY / BSYNC, WARPSYNC

Guarantee: each kernel of the module becomes a SassKernel that computes, per
thread, what its IR computes, in which the lanes that every divergent branch
splits (those that do not return) meet again at its join (reconverge.py),
whose registers are R0–R62 and P0–P6 (spills in local memory), and whose
header (launch shape, parameters in constant-bank order, shared arrays, shared
and local bytes, source file) is what the simulator needs to run it. A
program the emitter cannot handle (64-bit integers) is a DiagnosticsError with
located diagnostics (E0801); a shape it does not expect from the passes is an
EmitterError (an internal error).

The steps are one table, `STEPS` in steps.py (docs/fermi.md, "From IR to
SASS"): legalize, uniformity, if_convert, find_regions on the IR; select
(IR → SASS on virtual registers); optimize, insert_yields (ITS),
place_reconvergence, merge_blocks, order_blocks, allocate on the machine
code; lay_out (addresses, branches). The machine-code verifier (verify.py)
runs after each step from select on; `dump_after` shows the code after one
(`syncc build --target fermi-sass --dump-after STEP`).
"""
from __future__ import annotations

from typing import Callable

from ....core.diagnostics import Diagnostic, DiagnosticsError
from ....ir import context
from ....ir.abi import kernel_abi
from ....ir.nodes import Kernel, Module
from ..program import Init, SassKernel, SassParam, SassProgram, SharedArray
from .legalize import check_kernel
from .mcode import EmitterError
from .emission import Emission
from .steps import STEP_NAMES, run_steps

__all__ = ["build_fermi_sass", "check_module", "emit_kernel", "EmitterError", "STEP_NAMES"]

Dump = Callable[[str, str], None]      # (step, the code after it as text)


def check_module(module: Module) -> list[Diagnostic]:
    """What the emitter refuses in a program (E0801), without emitting anything."""
    return [d for k in module.kernels for d in check_kernel(k)]


def build_fermi_sass(module: Module, its: bool = False, dump_after: str | None = None,
                     dump: Dump | None = None, verify_each: bool | None = None) -> SassProgram:
    """`verify_each`: verify the machine code after every step (None: as the IR passes do by
    default, ir.context.VERIFY_EACH_DEFAULT)."""
    problems = check_module(module)
    if problems:
        raise DiagnosticsError(problems)
    if verify_each is None:
        verify_each = context.VERIFY_EACH_DEFAULT
    return SassProgram([emit_kernel(k, module.source, its, dump_after, dump, verify_each)
                        for k in module.kernels], module.source)


def emit_kernel(k: Kernel, source: str | None = None, its: bool = False, dump_after: str | None = None,
                dump: Dump | None = None, verify_each: bool = False) -> SassKernel:
    e = Emission(k, its, source)
    run_steps(e, dump_after, dump, verify_each)
    return SassKernel(k.name, tuple(e.instrs), k.grid, k.block, params(k), shared_arrays(k),
                      shared_bytes(k), e.mf.local_bytes, (), (), source, its)


def params(k: Kernel) -> tuple[SassParam, ...]:
    out = []
    for p in kernel_abi(k).params:
        if p.kind in ("state", "fault"):     # (the simulator reads the fault record by its name)
            elem = p.elem if p.elem.kind == "record" else p.elem.name    # (a queue's records: sized by it)
            out.append(SassParam(p.name, "state", elem, p.dims, Init("fill", p.init or 0), p.per))
        else:
            # (an array of records keeps its RecordType: the launcher lays host records out by it)
            out.append(SassParam(p.name, p.kind, p.elem if p.elem.kind == "record" else p.elem.name, p.dims))
    return tuple(out)


def shared_arrays(k: Kernel) -> tuple[SharedArray, ...]:
    return tuple(SharedArray(a.name, a.elem if a.elem.kind == "record" else a.elem.name, a.dims, 4 * a.offset)
                 for a in sorted((a for a in k.arrays if a.space == "shared"), key=lambda a: a.offset or 0))


def shared_bytes(k: Kernel) -> int:
    return max((4 * (a.offset + a.words * (2 if getattr(a.elem, "bits", 32) == 64 else 1))
                for a in k.arrays if a.space == "shared"), default=0)
