"""Run-time bounds checks: no access outside an array or a primitive's instances.

Guarantee: afterwards every instruction that addresses an element of one of the program's
arrays or an instance of one of its primitives by a register index (`ld`, `st`, the atomics,
every primitive operation; an immediate index the front end has checked) runs only where that
index lies in 0 .. length − 1 (the index is linear, row-major, so it is the whole array that
is guarded, not each dimension). A primitive's own state that lowering lays out (a queue's
slots and ends) is indexed by syncc's code from an index the primitive's operation has
checked first, and is not checked again. Where the value ranges (analysis/ranges.py) prove it for every launch the kernel can get,
nothing is added; elsewhere a `bounds.check %i array=NAME len=N site=S` goes right before the
access, with the access's span. An array whose size the launch gives (`global f32[n]`) is
checked against a length operand computed from the parameters just before (`bounds.check %i,
%len`), unless it is one-dimensional, sized by an i32 parameter `n`, and the index is never
negative and was tested below `n` on every path to the access, neither assigned since (the
value ranges' `below` pairs): `if i < n { x[i] }`. The back ends expand each check into an unsigned compare and
a branch to a cold path where the first failing thread of the launch records the site, the
index, its block and its thread (the record is the kernel's two last state arrays,
abi.FAULT_CLAIM and abi.FAULT_RECORD) and stops, so that no access after a failed check runs:
on Fermi it traps (ir/faults.py), in PTX every failing thread stalls at its check for good and
the host reports the record (backends/ptx/codegen.py says why not a trap). A check the ranges make redundant (the same index checked
before, not assigned since) is not inserted: an access bounds its index for what follows it.

A semaphore operation's number of permits that is a register (`wait s(k)`), where the ranges do
not prove it at least 1, is checked the same way: `%m = sub %k, 1` and `bounds.check %m array=s
len=2147483647 site=S permits=1` (k in 1 .. 2^31 - 1), which the runtime reports as a number
of permits below one rather than an index (runtime/faults.py).

It runs right after the hazard analyses, at every -O, so that a program stops at the same
access at -O0 and at -O2 (the lock of an elided critical section keeps its index's check), and
before the passes that match patterns: a check is neither memory nor a wait, so lock elision,
warp combining and structuring read around it (a `when`'s inputs keep polling together, their
checks running once before the loop). `bounds_checks=False` in the pass context
(`--unsafe-no-bounds-checks`) leaves every check out: a program compiled so can write next to
its arrays when an index is wrong. `syncc explain` lists each check inserted and what the
ranges knew of its index.
"""
from __future__ import annotations

from ...core.types import I32
from ..builder import KernelBuilder
from ..context import PassContext
from ..nodes import Instr, Kernel, Ref, Reg, imm
from ..analysis.ranges import Ranges, ref_length


def insert_bounds_checks(k: Kernel, ctx: PassContext) -> Kernel:
    if not ctx.bounds_checks or not any(_indexed(ins) or _counted(ins) for _, _, ins in k.instructions()):
        return k
    ranges = Ranges(k)
    site = 1 + max((ins.attr("site") for _, _, ins in k.instructions() if ins.op == "bounds.check"), default=-1)
    b = KernelBuilder.thaw(k)
    for blk in k.blocks:
        code = []
        for _, ins, state in ranges.walk(blk.label):
            if state is not None and _counted(ins) and ranges.value(ins.permits, state)[0] < 1:
                # k permits, k at least 1: k - 1 in 0 .. 2^31 - 2, one unsigned compare as an index's
                less = b.reg(I32, "permits")
                code.append(Instr("sub", (less,), (ins.permits, imm(1)), (), ins.span))
                code.append(Instr("bounds.check", (), (less,), (("array", ins.ref.name), ("len", PERMITS_LEN),
                                                                ("site", site), ("permits", 1)), ins.span))
                lo, hi = ranges.value(ins.permits, state)
                ctx.remark(k.name, "bounds", f"the number of permits of `{ins.ref.name.split('.')[0]}` is checked at "
                           f"run time: it must be at least 1, and the value ranges give {lo}..{hi}", ins.span)
                site += 1
            if state is not None and _indexed(ins) and not _own_state(k, ins.ref.name) and _sized(k, ins.ref.name):
                if _below_its_length(k, ranges, ins.ref, state):
                    code.append(ins)
                    continue
                length = _length_operand(b, k.array(ins.ref.name), code, ins.span)
                code.append(Instr("bounds.check", (), (ins.ref.index, length),
                                  (("array", ins.ref.name), ("site", site)), ins.span))
                ctx.remark(k.name, "bounds", f"the index of `{ins.ref.name}` is checked at run time against the "
                           "length its launch gives", ins.span)
                site += 1
            elif state is not None and _indexed(ins) and not _own_state(k, ins.ref.name):
                n = ref_length(k, ins.ref.name)
                lo, hi = ranges.value(ins.ref.index, state)
                if n is not None and not 0 <= lo <= hi < n:
                    code.append(Instr("bounds.check", (), (ins.ref.index,),
                                      (("array", ins.ref.name), ("len", n), ("site", site)), ins.span))
                    ctx.remark(k.name, "bounds", _remark(ins.ref.name, n, lo, hi), ins.span)
                    site += 1
            code.append(ins)
        b.code[blk.label] = code
    return b.freeze() if site else k


# a permits check's length: k - 1 must lie below it, so k in 1 .. 2^31 - 1
PERMITS_LEN = 0x7FFF_FFFF


def _counted(ins: Instr) -> bool:
    """A semaphore operation whose number of permits is a register (`wait s(k)`)."""
    return ins.info.permits and isinstance(ins.permits, Reg)


def _indexed(ins: Instr) -> bool:
    """An access by a register index (an immediate one the front end checked)."""
    return ins.info.ref and bool(ins.args) and isinstance(ins.args[0], Ref) and isinstance(ins.args[0].index, Reg)


def _below_its_length(k: Kernel, ranges: Ranges, ref: Ref, state) -> bool:
    """An index into a one-dimensional array sized by an i32 parameter `n`, never negative here and
    tested below `n` on the way here (`if i < n { x[i] }`, `while i < n { x[i] ... }`), neither
    assigned since: inside, whatever the launch gives."""
    a = k.array(ref.name)
    if len(a.dims) != 1:
        return False
    n = next((p for p in k.params if isinstance(p, Reg) and p.name == a.dims[0]), None)
    if n is None or n.type != I32 or not isinstance(ref.index, Reg) or ref.index.type != I32:
        return False
    return ranges.value(ref.index, state)[0] >= 0 and ranges.below(ref.index, n, state)


def _sized(k: Kernel, name: str) -> bool:
    a = k.array(name)
    return a is not None and a.sized


def _length_operand(b: KernelBuilder, a, code: list, span):
    """An array's length, from the scalar parameters that size it, as an i32 operand (the
    multiplications appended to `code`)."""
    regs = {p.name: p for p in b.params if isinstance(p, Reg)}
    total = None
    for d in a.dims:
        v = imm(d) if isinstance(d, int) else regs[d]
        if v.type != I32:
            w = b.reg(I32, "len")
            code.append(Instr("cvt", (w,), (v,), (), span))
            v = w
        if total is None:
            total = v
        else:
            w = b.reg(I32, "len")
            code.append(Instr("mul", (w,), (total, v), (), span))
            total = w
    return total


def _own_state(k: Kernel, name: str) -> bool:
    a = k.array(name)
    return a is not None and a.kind == "state"


def _remark(name: str, n: int, lo: int, hi: int) -> str:
    shown = name.split(".")[0]
    return (f"the index of `{shown}` is checked at run time: it must lie in 0..{n - 1}, and the value ranges "
            f"give {lo}..{hi}")
