"""The IR verifier, run after lowering and after every pass.

It checks structure (labels, branch targets, operation arity), that every
reference names a declared array or primitive of a fitting kind, operand and
result types, that every register is assigned on every path before it is
read, and what the stage promises: after `structure`, no blocking wait is
left for the @thread primitives; after `expand_primitives`, no primitive
operation is left at all. A failure is a bug in syncc, not in the program.
"""
from __future__ import annotations

from ..core.types import BOOL, I32, U32, ScalarType
from .nodes import Array, Branch, Imm, Instr, Kernel, Module, Prim, Ref, Reg, read_regs
from .ops import BLOCKING_PRIM, FLOAT_ONLY, INTEGER_ONLY, OPS

STAGES = ("lowered", "structured", "expanded")
_OPERANDS = (Reg, Imm, Ref)

# prim op prefix → the primitive kind it applies to
_KIND_OF = {"mutex": "mutex", "sem": "semaphore", "chan": "channel", "prim": "barrier", "rw": "rwlock",
            "latch": "latch", "queue": "semaphore", "scan": "scan"}     # (a queue's operations act on its two semaphores)


class IRVerifyError(Exception):
    def __init__(self, kernel: str, problems: list[str], after: str | None = None):
        where = f" after {after}" if after else ""
        super().__init__(f"kernel @{kernel}{where}: " + "; ".join(problems[:8])
                         + (f" (and {len(problems) - 8} more)" if len(problems) > 8 else ""))
        self.problems = problems


def verify_module(module: Module, stage: str = "lowered", after: str | None = None) -> None:
    for k in module.kernels:
        verify_kernel(k, stage, after)


def verify_kernel(k: Kernel, stage: str = "lowered", after: str | None = None) -> None:
    problems: list[str] = []
    _Checker(k, stage, problems).run()
    if problems:
        raise IRVerifyError(k.name, problems, after)


class _Checker:
    def __init__(self, k: Kernel, stage: str, problems: list[str]):
        self.k, self.stage, self.problems = k, stage, problems
        self.labels = [b.label for b in k.blocks]

    def bad(self, where, what: str) -> None:
        if isinstance(where, tuple):           # (block, index, instruction): formatted only on failure
            label, i, ins = where
            where = f"{label}[{i}] {ins.op}"
        self.problems.append(f"{where}: {what}")

    def run(self) -> None:
        k = self.k
        if not k.blocks:
            self.bad("kernel", "has no blocks")
            return
        if len(set(self.labels)) != len(self.labels):
            self.bad("kernel", "block labels repeat")
        names = [a.name for a in k.arrays] + [p.name for p in k.params if isinstance(p, Array)] + \
            [p.name for p in k.prims]
        if len(set(names)) != len(names):
            self.bad("kernel", "array or primitive names repeat")
        self.arrays = {a.name: a for a in k.arrays}
        self.arrays.update((p.name, p) for p in k.params if isinstance(p, Array))
        self.prims = {p.name: p for p in k.prims}
        for b in k.blocks:
            for i, ins in enumerate(b.instrs):
                self.instr((b.label, i, ins), ins)
            for target in b.term.targets:
                if target not in self.labels:
                    self.bad(b.label, f"branches to unknown block `{target}`")
            if isinstance(b.term, Branch):
                self.operand_type(f"{b.label} br", b.term.cond, BOOL)
        self.assigned_before_use()

    # ---- one instruction
    def instr(self, where, ins: Instr) -> None:
        info = OPS.get(ins.op)
        if info is None:
            self.bad(where, "unknown operation")
            return
        more = self.more_fields(ins) if info.fields else 0     # a record's fields beyond one value
        results = info.results + (more if info.results else 0)
        operands = info.operands + (more if not info.results else 0) if info.operands is not None else None
        if len(ins.dests) != results:
            self.bad(where, f"defines {len(ins.dests)} registers, not {results}")
        for d in ins.dests:
            if type(d) is not Reg:
                self.bad(where, "defines something that is not a register")
                return
        for a in ins.args:
            if type(a) not in _OPERANDS:
                self.bad(where, "has an operand that is not a register, immediate or reference")
                return
        if info.permits and operands is not None and len(ins.args) == operands + 1:
            self.operand_type(where, ins.args[-1], I32)      # how many permits
        elif operands is not None and len(ins.args) != operands:
            self.bad(where, f"takes {operands} operands, not {len(ins.args)}")
        if ins.op == "bar.sync" and len(ins.args) not in (1, 2):
            self.bad(where, "takes a barrier id and an optional thread count")
        if info.group == "warp" and info.operands is None and len(ins.args) not in (1, 2):
            self.bad(where, "takes a value and an optional mask of the lanes that take part")
        if ins.op == "bounds.check":
            self.bounds_check(where, ins)
        if ins.op == "region.end" and self.stage == "expanded":
            self.bad(where, "region.end left after expansion")
        if info.group == "prim":
            if self.stage == "expanded":
                self.bad(where, "primitive operation left after expansion")
            elif self.stage == "structured" and ins.op in BLOCKING_PRIM:
                prim = self.prims.get(ins.ref.name) if ins.ref else None
                if prim is not None and prim.granularity == "thread" and ins.attr("party") is None:
                    self.bad(where, "blocking wait on a @thread primitive left after structuring")
        if info.ref:
            self.reference(where, ins, info.group)
        for a in ins.args[1:]:
            if isinstance(a, Ref):
                self.bad(where, "a reference may only be the first operand")
        self.types(where, ins, info.group)

    def bounds_check(self, where, ins: Instr) -> None:
        self.operand_type(where, ins.args[0] if ins.args else None, I32)
        # (array= names what the index addresses, for messages: an elided lock's mutex is gone)
        name, n, site = ins.attr("array"), ins.attr("len"), ins.attr("site")
        if not isinstance(name, str):
            self.bad(where, "needs array=NAME")
        if len(ins.args) == 2:               # the length as an operand: a size the launch gives
            self.operand_type(where, ins.args[1], I32)
            if n is not None or not isinstance(site, int) or site < 0:
                self.bad(where, "with a length operand: no len=, and site=S (S >= 0)")
        elif len(ins.args) != 1 or not isinstance(n, int) or n < 1 or not isinstance(site, int) or site < 0:
            self.bad(where, "needs len=N (N >= 1) and site=S (S >= 0)")

    def reference(self, where, ins: Instr, group: str) -> None:
        ref = ins.ref
        if ref is None:
            self.bad(where, "needs @array[index] or @primitive[index] first")
            return
        self.operand_type(where, ref.index, I32)
        target = self.arrays.get(ref.name) or self.prims.get(ref.name)
        if target is None:
            self.bad(where, f"@{ref.name} is not declared")
        elif group in ("memory", "atomic", "lockbit", "mbarrier") and not isinstance(target, Array):
            self.bad(where, f"@{ref.name} is a primitive, not an array")
        elif group == "prim":
            kind = _KIND_OF[ins.op.split(".")[0]]
            if not isinstance(target, Prim) or target.kind != kind:
                self.bad(where, f"@{ref.name} is not a {kind}")
        if group == "lockbit" and isinstance(target, Array) and target.space != "shared":
            self.bad(where, f"lock bits exist only in shared memory, @{ref.name} is {target.space}")
        if group == "mbarrier" and isinstance(target, Array) and (target.space != "shared" or target.elem.bits != 64):
            self.bad(where, f"an mbarrier is a 64-bit word in shared memory, @{ref.name} is not")
        is_record = isinstance(target, Array) and target.elem.kind == "record"
        if ref.field is not None and not (is_record and target.elem.field(ref.field) is not None):
            self.bad(where, f"@{ref.name} has no record field `{ref.field}`")
        elif is_record and ref.field is None and group not in ("check",):
            self.bad(where, f"@{ref.name} holds records: an access names a field")

    def more_fields(self, ins: Instr) -> int:
        """How many operands (results) an operation on a channel of records has beyond a scalar
        channel's one value: its record's fields less one (ops.OpInfo.fields)."""
        prim = self.prims.get(ins.ref.name) if ins.ref is not None else None
        return len(prim.elem.fields) - 1 if prim is not None and prim.elem.kind == "record" else 0

    def elem_of(self, ins: Instr) -> ScalarType | None:
        if ins.ref is None:
            return None
        target = self.arrays.get(ins.ref.name) or self.prims.get(ins.ref.name)
        if target is not None and ins.ref.field is not None:
            f = target.elem.field(ins.ref.field) if target.elem.kind == "record" else None
            return f.type if f is not None else None
        return target.elem if target is not None else None

    def types(self, where, ins: Instr, group: str) -> None:
        op, args, dests = ins.op, ins.args, ins.dests
        if group == "arith" and dests:
            d = dests[0].type
            operand = _type(args[0]) if args else d
            if operand is not None and ((op in INTEGER_ONLY or op == "not") and operand.is_float or
                                        op in FLOAT_ONLY and not operand.is_float):
                self.bad(where, f"`{op}` does not take {operand}")
            if op.startswith("cmp."):
                if d != BOOL or len(args) != 2 or _type(args[0]) != _type(args[1]):
                    self.bad(where, "compares two values of one type into a bool")
            elif op == "select":
                if _type(args[0]) != BOOL or _type(args[1]) != d or _type(args[2]) != d:
                    self.bad(where, "selects between two values of the result's type on a bool")
            elif op == "bitcast":
                src = _type(args[0])
                if src is not None and (src.bits != d.bits or BOOL in (src, d)):
                    self.bad(where, f"bitcast {src} to {d}: the same width, no bools")
            elif op in ("shl", "shr"):
                if _type(args[0]) != d:
                    self.bad(where, "shifts a value of the result's type")
            elif op not in ("cvt", "popc", "bitcast"):
                for a in args:
                    self.operand_type(where, a, d)
        elif op in ("ld", "atom.add", "atom.sub", "atom.exch", "atom.min", "atom.max", "atom.and", "atom.or",
                    "atom.xor", "atom.cas", "chan.get", "chan.read") and dests:
            elem = self.elem_of(ins)
            if elem is not None and elem.kind == "record":        # one register per field
                for d, f in zip(dests, elem.fields):
                    self.operand_type(where, d, f.type)
                return
            if elem is not None and dests[0].type != elem:
                self.bad(where, f"defines {dests[0].type} from an element of {elem}")
            for a in args[1:]:
                if elem is not None:
                    self.operand_type(where, a, elem)
        elif op in ("st", "chan.put", "lockbit.release"):
            elem = self.elem_of(ins)
            if elem is not None and elem.kind == "record" and op == "chan.put":
                for a, f in zip(args[1:], elem.fields):
                    self.operand_type(where, a, f.type)
                return
            if elem is not None and len(args) == 2:
                self.operand_type(where, args[1], elem)
        elif op in ("vote.any", "vote.all", "ballot"):
            self.operand_type(where, args[0], BOOL)
            for a in args[1:]:
                self.operand_type(where, a, U32)

    def operand_type(self, where, a, want: ScalarType) -> None:
        t = _type(a)
        if t is not None and t != want:
            self.bad(where, f"{a} is {t}, expected {want}")

    # ---- every register assigned on every path before it is read
    def assigned_before_use(self) -> None:
        """Must-assigned dataflow: a block starts with what every reachable predecessor assigned."""
        k = self.k
        entry = k.blocks[0].label
        reachable = _reachable(k)
        preds: dict[str, list[str]] = {b.label: [] for b in k.blocks}
        for b in k.blocks:
            if b.label in reachable:
                for t in b.term.targets:
                    preds.setdefault(t, []).append(b.label)
        params = {p.name for p in k.params if isinstance(p, Reg)}
        every = params | {d.name for _, _, ins in k.instructions() for d in ins.dests}
        defs = {b.label: {d.name for ins in b.instrs for d in ins.dests} for b in k.blocks}
        out = {label: set(every) for label in reachable}

        def block_in(label: str) -> set[str]:
            if label == entry:
                return set(params)
            return set.intersection(*(out[p] for p in preds[label])) if preds[label] else set()

        changed = True
        while changed:
            changed = False
            for b in k.blocks:
                if b.label in reachable:
                    new = block_in(b.label) | defs[b.label]
                    if new != out[b.label]:
                        out[b.label], changed = new, True
        for b in k.blocks:
            if b.label not in reachable:
                continue
            cur = block_in(b.label)
            for i, ins in enumerate(b.instrs):
                for r in ins.reads:
                    if r.name not in cur:
                        self.bad((b.label, i, ins), f"%{r.name} may be read before it is assigned")
                cur.update(d.name for d in ins.dests)
            if isinstance(b.term, Branch):
                for r in read_regs((b.term.cond,)):
                    if r.name not in cur:
                        self.bad(f"{b.label} br", f"%{r.name} may be read before it is assigned")


def _type(a) -> ScalarType | None:
    if isinstance(a, (Reg, Imm)):
        return a.type
    return None


def _reachable(k: Kernel) -> set[str]:
    blocks = k.block_map()
    seen, todo = set(), [k.blocks[0].label]
    while todo:
        label = todo.pop()
        if label in seen or label not in blocks:
            continue
        seen.add(label)
        todo.extend(blocks[label].term.targets)
    return seen
