"""What a failed bounds check does, as IR the back ends compile: compares, one branch, and a cold
path that records the failure and stops the kernel. A work pool's inner put that finds its slot
full is such a check too (`bounds.check %full len=1 queue=q capacity=C`, impls/queue/pool.py),
which the runtime reports as E0425 instead of E0913.

    kernel = expand_bounds_checks(kernel)               # the Fermi back end, before its own work
    kernel = with_fault_record(kernel)                  # the PTX back end, which expands each check itself
    sites = check_sites(kernel)                         # site → CheckSite, for the runtime's message
    kernel = drop_proven_checks(kernel, (grid, block))  # a launcher's build for one launch shape

First, in each basic block, every `bounds.check %i array=A len=N site=S` (passes/bounds.py) moves
up to just after the instruction that computes its index, over arithmetic, loads, stores and
atomics but nothing that waits or meets (a check that fails a few accesses earlier stops the
same erroneous thread, and no thread gets past a wait it would not have reached), so that the
checks of a block's accesses stand together. Each run of adjacent checks then becomes

        %u1 = cvt %i1;  %in1 = cmp.lt %u1, N1       ; the index's 32 bits, unsigned: -1 is past the end
        %u2 = cvt %i2;  %in2 = cmp.lt %u2, N2
        %in = and %in1, %in2
        br %in, ok, fail
    fail:                                           ; laid out next: a split warp runs it first
        %site = select %in1, S2, S1;  %index = select %in1, %u2, %u1       ; the first that failed
        %old = atom.cas @bounds.claim[0], 0, 1      ; the first failing thread of the launch wins
        %lost = cmp.ne %old, 0
        br %lost, wait, record
    record:                                         ; the winner: what, where, who
        st @bounds.fault[F_SITE], %site;  st @bounds.fault[F_INDEX], %index
        st @bounds.fault[F_BLOCK..], ctaid.x, .y, .z;  st @bounds.fault[F_THREAD..], tid.x, .y, .z
        fence sc scope=sys;  st @bounds.fault[F_DONE], 1;  fence sc scope=sys
        trap
    wait:                                           ; the others: until the record is whole
        %done = ld @bounds.fault[F_DONE] order=acquire scope=sys
        br %done != 0, stop, wait
    stop:
        trap
    ok:
        ... the accesses

Each group has a path of its own: one path shared by the kernel's groups would be a block where
their lanes meet, which ptxas brackets with a convergence barrier (BSSY at the kernel's start,
BSYNC there, seen on sm_90), and which Fermi's reconvergence regions could not nest around.

So no thread runs an access past a failed check, and the record is whole and visible to the
host before any failing thread traps (the first fence orders the record before its done word,
for a host that reads it while the kernel still runs; the second makes the done word visible
before the trap). The threads that fail after the first wait for its done word rather than
trap at once, which could end the launch before the record is written; their loop reads
memory, so no compiler may take it for an endless loop without effects and move the winner's
stores before the branch that separates them (ptxas did, on an H200, with a bare spin). The
winner's block comes right after the branch that lets the others go: on Fermi the lanes a
branch does not take run first (docs/fermi.md), so a warp whose lanes disagree records and
traps before its other lanes go on. No path of it comes back, so the lanes that pass a check
stay together where they would without it (analysis/uniformity.py). The instructions of a group have
its first check's span, so a Fermi trap is at a check's source line.
"""
from __future__ import annotations

from ..core.prebuilt import dataclass
from ..core.source import Span
from ..core.types import BOOL, I32, U32
from .abi import F_BLOCK, F_DONE, F_INDEX, F_SITE, F_THREAD, FAULT_CLAIM, FAULT_RECORD, FAULT_WORDS
from .builder import KernelBuilder
from .nodes import Array, Instr, Kernel, Ref, imm
from .analysis.ranges import Ranges

# what a check may move up over: nothing that waits, meets or orders
_MOVABLE = ("arith", "special", "memory", "atomic")


@dataclass(frozen=True)
class CheckSite:
    """What the runtime says of a failed check: the array or primitive, its length, where."""
    site: int
    array: str
    length: int | None     # None: the launch gives it (the message then has no count)
    span: Span | None
    permits: bool = False  # a semaphore operation's number of permits k, checked as the index k - 1
    queue: str | None = None    # a work pool's inner put (impls/queue/pool.py): its queue, whose slot was full
    capacity: int | None = None


def check_sites(k: Kernel) -> dict[int, CheckSite]:
    return {ins.attr("site"): CheckSite(ins.attr("site"), ins.attr("array"), ins.attr("len"), ins.span,
                                        bool(ins.attr("permits")), ins.attr("queue"), ins.attr("capacity"))
            for _, _, ins in k.instructions() if ins.op == "bounds.check"}


def with_fault_record(k: Kernel) -> Kernel:
    """The kernel with the claim word and the record its bounds checks write on a failure (abi.py:
    the last state arrays), where it has checks; for a back end that compiles each check itself
    (PTX: a branch to a failure path that stalls, ptx/codegen.KernelCodegen._bounds_check)."""
    if not any(ins.op == "bounds.check" for _, _, ins in k.instructions()):
        return k
    b = KernelBuilder.thaw(k)
    _add_record(b)
    return b.freeze()


def _add_record(b: KernelBuilder) -> None:
    for name, words in ((FAULT_CLAIM, 1), (FAULT_RECORD, FAULT_WORDS)):     # (abi.py: the last state arrays)
        if b.prim(name) is None and all(a.name != name for a in b.arrays):
            b.add_array(Array(name, "global", U32, (words,), kind="state", init=0))


def expand_bounds_checks(k: Kernel) -> Kernel:
    """The kernel with its bounds checks gathered, compared and branched on, and a failure path
    for each group of adjacent checks (the Fermi back end)."""
    if not any(ins.op == "bounds.check" for _, _, ins in k.instructions()):
        return k
    b = KernelBuilder.thaw(k)
    _add_record(b)
    for label in list(b.order):
        b.code[label] = _gathered(b.code[label])
        while True:
            code = b.code[label]
            at = next((n for n, ins in enumerate(code) if ins.op == "bounds.check"), None)
            if at is None:
                break
            end = at
            while end < len(code) and code[end].op == "bounds.check":
                end += 1
            label = _expand(b, label, at, end)
    return b.freeze()


def _gathered(code: list[Instr]) -> list[Instr]:
    """The block's instructions with each check moved up to just after the definition of its index
    (and of its length, one the launch gives), over movable instructions only (checks keep their
    order)."""
    out: list[Instr] = []
    for ins in code:
        at = len(out)
        if ins.op == "bounds.check":
            while at > 0 and out[at - 1].info.group in _MOVABLE and \
                    not any(a in out[at - 1].dests for a in ins.args):
                at -= 1
        out.insert(at, ins)
    return out


def _expand(b: KernelBuilder, label: str, at: int, end: int) -> str:
    """Expand the checks at [at, end) of block `label`; the label of the block that goes on after them."""
    code = b.code[label]
    checks, rest = code[at:end], code[end:]
    b.span_now = checks[0].span
    fail = b.new_block("bounds.fail", after=label)
    b.code[label] = code[:at]
    rest_term = b.terms[label]
    b.terms[label] = None
    b.at(label)
    tests = []
    for check in checks:
        index = b.op("cvt", U32, check.args[0], hint="bounds.index")
        length = b.op("cvt", U32, check.args[1], hint="bounds.len") if len(check.args) > 1 else \
            imm(check.attr("len"), U32)
        tests.append((b.op("cmp.lt", BOOL, index, length, hint="bounds.in"), index, check))
    inside = tests[0][0]
    for t, _, _ in tests[1:]:
        inside = b.op("and", BOOL, inside, t, hint="bounds.in")
    ok_label = b.fresh("bounds.ok")     # (named now, placed after the path)
    b.branch(inside, ok_label, fail)

    b.at(fail)           # which check failed: the first whose test is false
    site, index = imm(tests[-1][2].attr("site"), U32), tests[-1][1]
    for t, u, check in reversed(tests[:-1]):
        site = b.op("select", U32, t, site, imm(check.attr("site"), U32), hint="bounds.site")
        index = b.op("select", U32, t, index, u, hint="bounds.index")
    last = _build_path(b, fail, site, index)
    b.order.insert(b.order.index(last) + 1, ok_label)
    b.code[ok_label], b.terms[ok_label] = rest, rest_term
    b.span_now = None
    return ok_label


def _build_path(b: KernelBuilder, fail: str, site, index) -> str:
    """The failure path from block `fail` (the current one, which computed `site` and `index`): its
    blocks right after it; the last of them."""
    record = b.new_block("bounds.record", after=fail)
    wait = b.new_block("bounds.wait", after=record)
    stop = b.new_block("bounds.stop", after=wait)
    old = b.op("atom.cas", U32, Ref(FAULT_CLAIM, imm(0)), imm(0, U32), imm(1, U32), hint="bounds.old",
               order="relaxed", scope="gpu")
    b.branch(b.op("cmp.ne", BOOL, old, imm(0, U32), hint="bounds.lost"), wait, record)

    b.at(record)
    b.emit("st", (), (_word(F_SITE), site))
    b.emit("st", (), (_word(F_INDEX), index))
    for base, sreg in ((F_BLOCK, "ctaid"), (F_THREAD, "tid")):
        for n, axis in enumerate("xyz"):
            value = b.op("sreg", U32, hint=f"bounds.{sreg}", reg=f"{sreg}.{axis}")
            b.emit("st", (), (_word(base + n), value))
    b.emit("fence", (), (), order="sc", scope="sys")
    b.emit("st", (), (_word(F_DONE), imm(1, U32)))
    b.emit("fence", (), (), order="sc", scope="sys")
    b.emit("trap")
    b.ret()

    b.at(wait)
    done = b.op("ld", U32, _word(F_DONE), hint="bounds.done", order="acquire", scope="sys")
    b.branch(b.op("cmp.ne", BOOL, done, imm(0, U32), hint="bounds.seen"), stop, wait)

    b.at(stop)
    b.emit("trap")
    b.ret()
    return stop


def _word(n: int) -> Ref:
    return Ref(FAULT_RECORD, imm(n, I32))



def drop_proven_checks(k: Kernel, shape: tuple) -> Kernel:
    """The kernel without the bounds checks that one launch shape, (grid, block), proves: the
    checks of indices that depend on the grid (`bid`, `gtid`) and not on data, where the grid is
    small enough. For a launcher that knows the launch it makes (runtime/gpu.py); the kernel is
    then right for that shape only."""
    if not any(ins.op == "bounds.check" for _, _, ins in k.instructions()):
        return k
    ranges = Ranges(k, shape=shape)
    dropped = set()
    for blk in k.blocks:
        for _, ins, state in ranges.walk(blk.label):
            if ins.op == "bounds.check" and state is not None and len(ins.args) == 1:
                lo, hi = ranges.value(ins.args[0], state)
                if 0 <= lo <= hi < ins.attr("len"):
                    dropped.add(id(ins))
            elif ins.op == "bounds.check" and state is not None:
                # a length the launch gives, the check's own operand: the index tested below it on the
                # way here and, in this shape, never negative (`if gtid < n`: gtid cannot wrap here)
                if ranges.value(ins.args[0], state)[0] >= 0 and ranges.below(ins.args[0], ins.args[1], state):
                    dropped.add(id(ins))
    if not dropped:
        return k
    b = KernelBuilder.thaw(k)
    for label in b.order:
        b.code[label] = [ins for ins in b.code[label] if id(ins) not in dropped]
    return b.freeze()
