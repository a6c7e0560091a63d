"""Make a kernel refuse a launch outside the configurations its header declares it supports.

Guarantee: a kernel whose header declares the grids or the values of integer parameters it
supports (`launch grid(1 .. 65536)`, `n: i32 in 1 .. 4097`; core/configs.py) runs none of its
body in a launch outside them. Its new entry block compares the grid's sizes and those parameters
with what it declares (right after the entry block, where lowering computes the built-in values),
and in a launch outside every thread returns there, before its first
access or wait. The comparison reads only what is the same in every thread of a launch, so all
threads leave together and none waits for one that left.

The hazard checks ran for the declared configurations (passes/hazards.py), and the launchers of
`syncc run` and the Python API refuse a launch outside them before it is made
(runtime/launch_check.py, E0607); this guard is for the code others launch: the PTX and the CUDA
header of `syncc build`. A launch it turns away does nothing, and the CUDA header's
`NAME_supports(...)` says beforehand whether a launch is inside.
"""
from __future__ import annotations

from ...core.types import BOOL, I32
from ..builder import KernelBuilder
from ..analysis.launches import DeclaredConfiguration
from ..context import PassContext
from ..nodes import Kernel, Reg, imm


def guard_configurations(k: Kernel, ctx: PassContext) -> Kernel:
    supports = ctx.supports.get(k.name)
    if supports is None:
        return k
    b = KernelBuilder.thaw(k)
    entry = b.order[0]
    body = b.terms[entry].target             # lowering's entry block ends in `jmp body` (its built-in values)
    guard = b.new_block("guard", after=entry)
    b.terms[entry] = None
    b.at(entry)
    b.jump(guard)
    b.at(guard)
    b.span_now = k.span
    checks = [(b.op("sreg", I32, hint=f"nbid.{axis}", reg=f"nctaid.{axis}"), allowed)
              for axis, allowed in zip("xyz", supports.grid or ())]
    checks += [(k.params[position], allowed) for position, allowed in supports.params]   # (integer scalars)
    inside = None
    for value, allowed in checks:
        ok = _within(b, value, allowed)
        inside = ok if inside is None else b.op("and", BOOL, inside, ok, hint="inside")
    refused = b.new_block("refused", after=guard)
    b.branch(inside, body, refused)
    b.at(refused)
    b.ret()
    covered = sum(isinstance(s.where, DeclaredConfiguration) for s in ctx.launches.get(k.name, ()))
    ctx.remark(k.name, "guard", f"the hazard analyses covered the {supports.count} configurations the header "
                                f"declares with {covered} of them (docs/targets.md says how they are chosen); a "
                                f"launch outside returns at the kernel's start", k.span)
    return b.freeze()


def _within(b: KernelBuilder, value: Reg, allowed) -> Reg:
    t = value.type
    if allowed.listed is not None:
        ok = None
        for v in allowed.listed:
            eq = b.op("cmp.eq", BOOL, value, imm(v, t), hint="is")
            ok = eq if ok is None else b.op("or", BOOL, ok, eq, hint="is")
        return ok
    low = b.op("cmp.ge", BOOL, value, imm(allowed.lo, t), hint="from")
    high = b.op("cmp.lt", BOOL, value, imm(allowed.hi, t), hint="below") if allowed.hi - 1 < t.range[1] else None
    return low if high is None else b.op("and", BOOL, low, high, hint="within")
