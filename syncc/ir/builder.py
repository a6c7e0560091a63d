"""Building kernels: a mutable workspace that lowering and passes fill, then freeze.

    b = KernelBuilder.thaw(kernel)        # or KernelBuilder(name, ...) for a new one
    b.at(label)
    x = b.op("add", I32, a, imm(1))       # a new register holding a + 1
    b.branch(cond, "then", "else")
    kernel = b.freeze()
"""
from __future__ import annotations

from dataclasses import replace
from math import prod

from ..core.types import BOOL, I32, U32, ScalarType
from ..core.source import Span
from .ops import OPS
from .nodes import Array, Block, Branch, Instr, Jump, Kernel, Prim, RecordValue, Ref, Reg, Return, Terminator, imm


class KernelBuilder:
    def __init__(self, name: str, params=(), arrays=(), prims=(), grid=None, block=None, span: Span | None = None):
        self.name = name
        self.params = list(params)
        self.arrays: list[Array] = list(arrays)
        self.prims: list[Prim] = list(prims)
        self.grid, self.block, self.span = grid, block, span
        self.coresident = False
        self.order: list[str] = []
        self.code: dict[str, list[Instr]] = {}
        self.terms: dict[str, Terminator | None] = {}
        self.current: str | None = None
        self._taken: set[str] | None = set()
        self._source: Kernel | None = None
        self.counters: dict[str, int] = {}    # hint → the next suffix to try
        self.span_now: Span | None = None    # given to what is emitted without a span of its own

    # ---- from and to frozen kernels
    @classmethod
    def thaw(cls, k: Kernel) -> "KernelBuilder":
        b = cls(k.name, k.params, k.arrays, k.prims, k.grid, k.block, k.span)
        b.coresident = k.coresident
        for blk in k.blocks:
            b.order.append(blk.label)
            b.code[blk.label] = list(blk.instrs)
            b.terms[blk.label] = blk.term
        b._source = k          # the names it uses are collected when a fresh one is first needed
        return b

    def freeze(self) -> Kernel:
        blocks = []
        for label in self.order:
            term = self.terms.get(label)
            if term is None:
                raise ValueError(f"block {label} of @{self.name} has no terminator")
            blocks.append(Block(label, tuple(self.code[label]), term))
        return Kernel(self.name, tuple(self.params), tuple(self.arrays), tuple(self.prims), self.grid, self.block,
                      tuple(blocks), self.span, self.coresident)

    # ---- names
    @property
    def taken(self) -> set[str]:
        """Every register and block name in use."""
        if self._source is not None:
            k, self._source = self._source, None
            self._taken = {p.name for p in k.params if isinstance(p, Reg)}
            self._taken |= {d.name for _, _, ins in k.instructions() for d in ins.dests}
            self._taken |= set(k.block_map())
        return self._taken

    def fresh(self, hint: str) -> str:
        """`hint`, or `hint.1`, `hint.2`, ...: the first not taken (a counter per hint keeps it linear)."""
        hint = hint or "t"
        taken = self.taken
        name, n = hint, self.counters.get(hint, 0)
        if n:
            name = f"{hint}.{n}"
        while name in taken:
            n += 1
            name = f"{hint}.{n}"
        self.counters[hint] = n + 1
        taken.add(name)
        return name

    def reg(self, type: ScalarType, hint: str = "t") -> Reg:
        if type.kind == "record":          # one register per field (nodes.RecordValue)
            return RecordValue({f.name: Reg(self.fresh(f"{hint}.{f.name}"), f.type) for f in type.fields}, type)
        return Reg(self.fresh(hint), type)

    # ---- blocks
    def new_block(self, hint: str, after: str | None = None) -> str:
        label = self.fresh(hint)
        if after is not None and after in self.order:
            self.order.insert(self.order.index(after) + 1, label)
        else:
            self.order.append(label)
        self.code[label] = []
        self.terms[label] = None
        return label

    def at(self, label: str) -> None:
        self.current = label

    @property
    def open(self) -> bool:
        """Is there a current block still waiting for its terminator?"""
        return self.current is not None and self.terms.get(self.current) is None

    # ---- instructions
    def emit(self, op: str, dests=(), args=(), span: Span | None = None, **attrs) -> Instr:
        if any(isinstance(v, RecordValue) for v in (*dests, *args)):
            return self._emit_record(op, tuple(dests), tuple(args), span, attrs)
        if not self.open:   # code after a return/break: keep it, in a block nothing reaches
            self.at(self.new_block("dead"))
        ins = Instr(op, tuple(dests), tuple(args), tuple((k, v) for k, v in attrs.items() if v is not None),
                    span or self.span_now)
        self.code[self.current].append(ins)
        return ins

    def _emit_record(self, op: str, dests, args, span, attrs) -> Instr:
        """A whole record moved (`mov`), loaded (`ld` of @a[i] into a RecordValue) or stored (`st` of
        one to @a[i]): one instruction per field; the last is returned. An operation whose value is
        one operand per field (a channel's put and get: ops.OpInfo.fields) stays one instruction,
        the record's fields in its place, in the record's order."""
        if OPS[op].fields:
            return self.emit(op, fieldwise(dests), fieldwise(args), span, **attrs)
        if op == "mov" and len(dests) == 1 and len(args) == 1:
            pairs = [((dests[0][f],), (args[0][f],)) for f in dests[0]]
        elif op == "ld" and len(dests) == 1 and len(args) == 1 and isinstance(args[0], Ref):
            pairs = [((d,), (Ref(args[0].name, args[0].index, f),)) for f, d in dests[0].items()]
        elif op == "st" and not dests and len(args) == 2 and isinstance(args[0], Ref):
            pairs = [((), (Ref(args[0].name, args[0].index, f), v)) for f, v in args[1].items()]
        else:
            raise ValueError(f"`{op}` does not take a whole record")
        last = None
        for d, a in pairs:
            last = self.emit(op, d, a, span, **attrs)
        return last

    def op(self, op: str, type: ScalarType, *args, hint: str = "t", span: Span | None = None, **attrs) -> Reg:
        dest = self.reg(type, hint)
        self.emit(op, (dest,), args, span, **attrs)
        return dest

    def assign(self, dest: Reg, value, span: Span | None = None) -> None:
        self.emit("mov", (dest,), (value,), span)

    # ---- the party of a @warp primitive (lowering and expansion both make one)
    def warp_party(self, builtin, span: Span | None = None, **meeting) -> tuple:
        """(mask, is-leader): every lane the warp has meets (`warp.sync` with the `meeting`
        attributes) and lane 0 leads. The whole warp takes part (E0707 rejects a split one), so the
        party is never `activemask`'s choice: with independent thread scheduling, lanes that have all
        met need not run the next instruction together (on an H100, after a polling loop of some of
        the lanes, `activemask` gave part of the warp, and two lanes each led a party and took a
        `@warp` mutex: docs/ptx.md, "Who acts for a warp"). `builtin(name)`: tid, lane, ... as
        registers. party=leader marks the branch as the compiler's own, which hazard checks do not
        count as divergence."""
        mask = self.warp_lanes(builtin, span)
        self.emit("warp.sync", (), (mask,), span, **meeting)
        return mask, self.op("cmp.eq", BOOL, builtin("lane"), imm(0), hint="leader", span=span, party="leader")

    def warp_lanes(self, builtin, span: Span | None = None):
        """The mask of the lanes this thread's warp has: all 32, but in a last warp the block fills
        only partly."""
        if self.block is not None and prod(self.block) % 32 == 0:
            return imm(0xFFFFFFFF, U32)
        rest = self.op("sub", I32, builtin("ntid"), self.op("mul", I32, builtin("warp"), imm(32), span=span),
                       hint="rest", span=span)
        partial = self.op("sub", U32, self.op("shl", U32, imm(1, U32), self.op("cvt", U32, rest, span=span),
                                              span=span), imm(1, U32), span=span)
        whole = self.op("cmp.ge", BOOL, rest, imm(32), span=span)
        return self.op("select", U32, whole, imm(0xFFFFFFFF, U32), partial, hint="lanes", span=span)

    # ---- terminators
    def terminate(self, term: Terminator) -> None:
        if not self.open:
            self.at(self.new_block("dead"))
        self.terms[self.current] = term
        self.current = None

    def jump(self, target: str, span: Span | None = None) -> None:
        self.terminate(Jump(target, span or self.span_now))

    def branch(self, cond, if_true: str, if_false: str, span: Span | None = None) -> None:
        self.terminate(Branch(cond, if_true, if_false, span or self.span_now))

    def ret(self, span: Span | None = None) -> None:
        self.terminate(Return(span or self.span_now))

    # ---- declarations
    def add_array(self, array: Array) -> Array:
        self.arrays.append(array)
        return array

    def prim(self, name: str) -> Prim | None:
        return next((p for p in self.prims if p.name == name), None)

    def replace_targets(self, label: str, old: str, new: str) -> None:
        term = self.terms[label]
        if isinstance(term, Jump) and term.target == old:
            self.terms[label] = replace(term, target=new)
        elif isinstance(term, Branch):
            self.terms[label] = replace(term, if_true=new if term.if_true == old else term.if_true,
                                        if_false=new if term.if_false == old else term.if_false)

    def drop_unreachable(self) -> None:
        seen, todo = set(), [self.order[0]]
        while todo:
            label = todo.pop()
            if label in seen:
                continue
            seen.add(label)
            term = self.terms.get(label)
            if term is not None:
                todo.extend(term.targets)
        self.order = [label for label in self.order if label in seen]


    def rename(self, names: dict[str, Reg], labels=None) -> None:
        """Replace every read of the registers named in `names` (operands, indices, branch conditions),
        in the blocks `labels` (all, when None)."""
        def sub(v):
            if type(v) is Reg:
                return names.get(v.name, v)
            if type(v) is Ref and type(v.index) is Reg and v.index.name in names:
                return replace(v, index=names[v.index.name])
            return v
        for label in self.order if labels is None else labels:
            code = self.code[label]
            for n, ins in enumerate(code):
                args = tuple(sub(a) for a in ins.args)
                if args != ins.args:
                    code[n] = replace(ins, args=args)
            term = self.terms[label]
            if type(term) is Branch and type(term.cond) is Reg and term.cond.name in names:
                self.terms[label] = replace(term, cond=names[term.cond.name])

__all__ = ["KernelBuilder", "Branch", "Jump", "Return"]


def fieldwise(values) -> tuple:
    """`values` with each RecordValue among them replaced by its fields' operands, in the record's order."""
    out = []
    for v in values:
        if isinstance(v, RecordValue):
            out.extend(v[f.name] for f in v.type.fields)
        else:
            out.append(v)
    return tuple(out)
