"""Which operands always hold the same value: a small value numbering.

    values = Values(kernel)
    values.same(a, b)      # `m[warp % 4]` locked and `m[warp % 4]` unlocked: one instance

Lowering computes an index each time the program writes it, so `lock m[warp % 4]`
and `unlock m[warp % 4]` name different registers. Two operands are the same
value when they are the same immediate, or registers each assigned once by the
same pure operation (arithmetic, a special register) on operands that are the
same value; arithmetic on constants folds to its result. A register assigned more than once, or loaded from memory, is the
same value only as itself.
"""
from __future__ import annotations

from ...core import floats
from ..fold import fold
from ..nodes import Imm, Instr, Kernel, Reg, imm

_PURE = ("arith", "special")
_FOLDS = ("add", "sub", "mul", "min", "max", "and", "or", "xor", "neg")


class Values:
    def __init__(self, k: Kernel):
        defs: dict[str, list[Instr]] = {}
        for _, _, ins in k.instructions():
            for d in ins.dests:
                defs.setdefault(d.name, []).append(ins)
        self.single = {name: found[0] for name, found in defs.items() if len(found) == 1}
        self.cache: dict[str, object] = {}

    def key(self, v, depth: int = 8):
        """A key equal for operands that always hold the same value."""
        if isinstance(v, Imm):
            # a float by its bits (0.0 and -0.0 differ; a NaN is itself)
            return ("imm", floats.bits(v.value, v.type)) if v.type.is_float else ("imm", int(v.value))
        if not isinstance(v, Reg):
            return ("other", v)
        if v.name in self.cache:
            return self.cache[v.name]
        d = self.single.get(v.name)
        if d is None or depth == 0 or d.info.group not in _PURE:
            key = ("reg", v.name)
        elif d.op in ("mov", "cvt"):
            key = self.key(d.args[0], depth - 1)
        else:
            args = tuple(self.key(a, depth - 1) for a in d.args)
            key = (d.op, d.attrs, args)
            if d.op in _FOLDS and all(a[0] == "imm" for a in args) and d.dests[0].type.is_int:
                # constants fold (an unrolled loop's `3 - i` in the round where i is 1)
                key = ("imm", imm(fold(d.op, d.dests[0].type, [a[1] for a in args]), d.dests[0].type).value)
        self.cache[v.name] = key
        return key

    def same(self, a, b) -> bool:
        return a == b or self.key(a) == self.key(b)
