"""The code after an emitter step as text, for `syncc build --target fermi-sass --dump-after STEP`.

Before `select` the kernel is IR (printed as `--emit ir` prints it); from `select` to `allocate`
it is machine code in blocks, on virtual registers (%r7, %p2) until `allocate`; after `lay_out`
it is SASS as the printer writes it, without the header.
"""
from __future__ import annotations

from ....ir.printer import print_kernel as print_ir_kernel
from ..printer import instruction_line
from .emission import Emission
from .mcode import CondBr, Exit, Goto, Label, MBlock, MFunction, MTerm, Sync, VMem


def emission_text(e: Emission, step: str) -> str:
    if e.instrs is not None:
        return f"// @{e.kernel.name} after {step}: SASS\n" + "".join(instruction_line(i) + "\n" for i in e.instrs)
    if e.mf is not None:
        return f"// @{e.kernel.name} after {step}: machine code\n" + function_text(e.mf)
    return f"; @{e.kernel.name} after {step}: IR\n" + print_ir_kernel(e.ir)


def function_text(mf: MFunction) -> str:
    return "".join(_block_text(b) for b in mf.blocks)


def _block_text(b: MBlock) -> str:
    kind = "" if b.kind == "code" else f"{'':<24}// {b.kind}"
    lines = [f"{b.label}:{kind}"]
    for ins in b.instrs:
        lines.append(f"        {_guard_text(ins.guard)}" + ".".join((ins.op, *ins.mods)) + (".S" if ins.sync else "")
                     + " " + ", ".join(map(_operand, ins.ops)))
    lines.append(f"        {_term_text(b.term)}")
    return "\n".join(lines) + "\n"


def _guard_text(guard) -> str:
    """`@!%p3 ` on a virtual predicate (a (V, negated) pair), `@P0 ` once allocated."""
    if guard is None:
        return ""
    if isinstance(guard, tuple):
        return f"@{'!' if guard[1] else ''}{guard[0]!r} "
    return f"@{guard} "


def _operand(o) -> str:
    if isinstance(o, Label):
        return o.name
    if isinstance(o, VMem):
        base = "RZ" if o.base is None else repr(o.base)
        return f"[{base}{'+' if o.offset >= 0 else '-'}0x{abs(o.offset):x}]"
    return str(o)            # physical operands print as SASS; virtual ones (%r7, -%r2) by their repr


def _condition(t: CondBr) -> str:
    p = repr(t.cond) if not isinstance(t.cond, int) else f"P{t.cond}"
    return ("!" if t.neg else "") + p


_TERMS = {
    Goto: lambda t: f"-> {t.target}",
    CondBr: lambda t: f"-> {t.if_true} if {_condition(t)} else {t.if_false}{' (uniform)' if t.uniform else ''}",
    Exit: lambda t: "-> exit",
    Sync: lambda t: f"-> .S, continue at {t.target}",
}


def _term_text(t: MTerm | None) -> str:
    return "-> (no terminator)" if t is None else _TERMS[type(t)](t)
