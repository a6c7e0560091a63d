"""The Fermi SASS emitter: safe IR (after every pass, for the FERMI target) → `SassKernel`s.

    program = build_fermi_sass(module)             # Fermi: SSY / .S reconvergence
    program = build_fermi_sass(module, its=True)   # Volta-style: BSSY / BSYNC, WARPSYNC

Guarantee: each kernel of the module becomes a SassKernel that computes, per
thread, what its IR computes, in which the lanes that every divergent branch
splits (those that do not return) meet again at its join (reconverge.py),
whose registers are R0–R62 and P0–P6 (spills in local memory), and whose
header (launch shape, parameters in constant-bank order, shared arrays, shared
and local bytes, source file) is what the simulator needs to run it. A
program the emitter cannot handle (64-bit integers) is a CompileError with
located diagnostics (E0801); a shape it does not expect from the passes is an
EmitterError (an internal error).

The steps, one file each (docs/fermi.md, "From IR to SASS"), in this order:

    legalize.py     check_kernel (E0801), then IR → IR: shared atomics as seed 000
                    Listing 1's lock-bit loop, division by a register, nanosleep, orderings
    ifconvert.py    IR → IR: short arms become guarded (predicated) instructions
    reconverge.py   find_regions: each divergent branch's join and region (on the IR,
                    with the uniformity computed before if-conversion)
    select.py       each IR instruction → SASS on virtual registers, with its source line
    optimize.py     folding, copy propagation, shared subexpressions, loop-invariant motion
    yields.py       ITS flavour: YIELD at the head of each loop that polls memory
    reconverge.py   place_reconvergence: SSY / .S (BSSY / BSYNC) on the regions' edges
    layout.py       merge_blocks, order_blocks
    regalloc.py     R0–R62 and P0–P6, spills to local memory and to registers
    layout.py       lay_out: branches, .S, addresses
"""
from __future__ import annotations

from ....core.diagnostics import CompileError, Diagnostic
from ....ir.nodes import Kernel, Module
from ....ir.uniformity import WARP, Uniformity
from ....ir.abi import kernel_abi
from ..program import Init, SassKernel, SassParam, SassProgram, SharedArray
from .ifconvert import if_convert
from .layout import lay_out, merge_blocks, order_blocks
from .legalize import check_kernel, legalize
from .machine import EmitterError
from .optimize import optimize
from .reconverge import find_regions, place_reconvergence
from .regalloc import allocate
from .select import Selector
from .yields import insert_yields

__all__ = ["build_fermi_sass", "check_module", "emit_kernel", "EmitterError"]


def check_module(module: Module) -> list[Diagnostic]:
    """What the emitter refuses in a program (E0801), without emitting anything."""
    return [d for k in module.kernels for d in check_kernel(k)]


def build_fermi_sass(module: Module, its: bool = False) -> SassProgram:
    problems = check_module(module)
    if problems:
        raise CompileError(problems)
    return SassProgram([emit_kernel(k, module.source, its) for k in module.kernels], module.source)


def emit_kernel(k: Kernel, source: str | None = None, its: bool = False) -> SassKernel:
    ir = legalize(k, its)                                 # IR → IR: what Fermi lacks
    uniform = Uniformity(ir)                              # before if-conversion merges the arms away
    ir = if_convert(ir)                                   # IR → IR: short arms become guarded code
    regions = find_regions(ir, lambda b: uniform.level(b.term.cond) > WARP, its)
    mf = Selector(ir, lambda r: uniform.level(r) <= WARP, its, source).run()   # SASS on virtual registers
    optimize(mf)                                          # fold, propagate, share, hoist
    if its:
        insert_yields(mf)                                 # polling loops let other splits run
    place_reconvergence(mf, regions, its)                 # SSY / .S (or BSSY / BSYNC)
    merge_blocks(mf)
    order_blocks(mf)
    allocate(mf)                                          # R0-R62, P0-P6, spills
    instrs = lay_out(mf, its)                             # order, branches, addresses
    return SassKernel(k.name, tuple(instrs), k.grid, k.block, params(k), shared_arrays(k),
                      shared_bytes(k), mf.local_bytes, (), (), source, its)


def params(k: Kernel) -> tuple[SassParam, ...]:
    out = []
    for p in kernel_abi(k).params:
        if p.kind == "state":
            out.append(SassParam(p.name, "state", p.elem.name, p.dims, Init("fill", p.init or 0), p.per))
        else:
            out.append(SassParam(p.name, p.kind, p.elem.name, p.dims))
    return tuple(out)


def shared_arrays(k: Kernel) -> tuple[SharedArray, ...]:
    return tuple(SharedArray(a.name, a.elem.name, a.dims, 4 * a.offset)
                 for a in sorted((a for a in k.arrays if a.space == "shared"), key=lambda a: a.offset or 0))


def shared_bytes(k: Kernel) -> int:
    return max((4 * (a.offset + a.length) for a in k.arrays if a.space == "shared"), default=0)
