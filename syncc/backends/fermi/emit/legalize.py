"""IR → IR rewrites for what Fermi does not have, before instruction selection.

Guarantee: afterwards the kernel is still valid IR (the verifier's "expanded"
stage), and every instruction left has a direct SASS translation in select.py:

  * a shared-memory atomic is the LDSLK / op / STSUL retry loop of seed 000
    Listing 1: `try` the word's lock bit, and only on the path where it was
    taken compute the new value and store it with STSUL, which frees the bit,
    then branch back while it was not taken. The op and the release sit inside
    the retry path, before the back branch (if-conversion predicates them), so
    a lane never holds a bit while it waits at a reconvergence point. On the
    program's own arrays (not a primitive's state), a compare-and-swap or an
    exchange of a 32-bit integer first tests the word with a plain load and
    skips the loop where it would change nothing (test and test-and-set); an
    add, sub, or or xor of 0 is the plain load alone; a plain store to a shared
    word that atomics also access is an exchange (its STSUL would otherwise be
    undone by an atomic's write-back of what it read);
  * integer division and remainder by a register are a shift-and-subtract
    routine (32 rounds of one loop, with selects; signed operands through
    their magnitudes). Division by a constant stays: select.py makes it shifts
    (powers of two) or a multiply-high sequence;
  * `nanosleep t` is a delay loop on the clock (SR_ClockLo), t cycles (in the
    ITS flavour it stays: NANOSLEEP, which lets the warp's other splits run);
  * an `order=` on a load, store or atomic (Fermi's carry none) becomes fences
    around it: a release before, an acquire after, MEMBAR at its scope;
  * a run-time bounds check is its compare, branch and failure path (ir/faults.py,
    first, so that the path's ordered loads are legalized too): the path's blocks
    follow the check's, where a warp whose lanes disagree runs them first, and it
    ends in `trap` (BPT.TRAP).

  * atomic_min / atomic_max of an f32 word in global memory (Fermi's ATOM has no float min or
    max), atomic_add / sub / min / max / exch of an f64 word, and atomic_min / max / and / or /
    xor of an i64 or u64 word (Fermi's 64-bit atomics are ATOM.CAS/ADD/EXCH.64), is a
    compare-and-swap loop: read the word, compute the new value from the operand, ATOM.CAS it in
    while the word still holds the bits read (a 64-bit word's: its two words, through a u64
    bitcast and compare), else retry from what the CAS returned;
  * a shared 64-bit word's atomic is the same lock-bit loop as a 32-bit one's: selection's LDSLK
    and STSUL name the pair's low word, whose bit guards both (the high word is read after the
    LDSLK and stored before the STSUL);
  * integer division and remainder of 64-bit values are the division loop at 64 bits, by a
    constant too.

  * f32 and f64 division is left to selection, divisor a register or not: float_rounding.py's routines.

64-bit values (f64, i64, u64) live in register pairs (select.py; f64 `/` and sqrt are
float_rounding.py's sequences). `check_kernel` reports E0801 at the first use, in each kernel, of a
record with a field that is not 32 bits, and of a 64-bit operation selection has no sequence for
(none that the language can write today: `selectable64` is the guard).
"""
from __future__ import annotations

from ....core.diagnostics import Diagnostic, Severity
from ....core.types import BOOL, F32, F64, I32, I64, U32, U64
from ....ir.builder import KernelBuilder
from ....ir.faults import expand_bounds_checks
from ....ir.nodes import Imm, Instr, Kernel, Ref, Reg, imm

ACQUIRES = ("acquire", "acq_rel", "sc")
RELEASES = ("release", "acq_rel", "sc")

# atom.X on shared memory: the new value from the old one (and the operands)
_RMW = {"atom.add": "add", "atom.sub": "sub", "atom.and": "and", "atom.or": "or", "atom.xor": "xor",
        "atom.min": "min", "atom.max": "max"}


# ---- what cannot be emitted ---------------------------------------------------------

def check_kernel(k: Kernel) -> list[Diagnostic]:
    """E0801 for a kernel that uses 64-bit values where the emitter has no code for them, or records
    with fields that are not 32 bits (one diagnostic, at the first use)."""
    for a in (*(p for p in k.params if not isinstance(p, Reg)), *k.arrays):
        narrow = [f for f in a.elem.fields if f.type.bits != 32] if a.elem.kind == "record" else ()
        if narrow:
            f = narrow[0]
            return [Diagnostic(Severity.ERROR, "E0801", f"a record field of {f.type} is not supported on Fermi "
                               f"SASS: `{a.name}` holds `{a.elem.name}` records, whose field `{f.name}` is {f.type} "
                               "(the simulated Fermi's memory is 32-bit words)", a.span or _first_use(k, a) or k.span,
                               help="give a record in kernels compiled for `--target fermi-sass` / `fermi-sim` "
                                    "32-bit fields only (i32, u32, f32; a flag as an i32); the PTX targets take any")]

    for b in k.blocks:
        for ins in b.instrs:
            types = [getattr(v, "type", None) for v in (*ins.dests, *ins.args,
                                                         *(a.index for a in ins.args if isinstance(a, Ref)))]
            if ins.ref is not None and k.array(ins.ref.name) is not None:
                types.append(k.array(ins.ref.name).elem)
            wide = next((t for t in types if _wide(t)), None)
            if wide is not None and not selectable64(ins):
                return [_e0801(f"`{ins.op}` on {wide}", ins.span or k.span)]
    return []


def _wide(t) -> bool:
    """A 64-bit scalar type: f64, i64 or u64 (a register pair)."""
    return t is not None and getattr(t, "kind", "") != "record" and getattr(t, "bits", 0) == 64


def selectable64(ins: Instr) -> bool:
    """Whether selection has code for this instruction on 64-bit values: a load or store of a 64-bit
    array (global, or a plain shared one), an atomic on a global 64-bit word (ATOM.CAS/ADD/EXCH.64, or
    a loop of CAS), division (f64: float_rounding.py's sequences; integers: this file's loop), the
    clock, a shift (select.shift64) or a template (select.TEMPLATES)."""
    from .select import LONG, TEMPLATES, template_key
    if ins.op in ("ld", "st", "div", "rem", "sqrt"):
        return True
    if ins.op == "sreg" and ins.attr("reg") == "clock":
        return True
    if ins.info.group in ("atomic", "lockbit"):     # (a shared 64-bit word: its low word's lock bit)
        return True
    key = template_key(ins)
    if ins.op in ("shl", "shr") and key[1] in LONG:
        return True
    return key in TEMPLATES


def _first_use(k: Kernel, p) -> object | None:
    """The span of the first instruction that reads or writes parameter p (a register or an array)."""
    for b in k.blocks:
        for ins in b.instrs:
            refs = {a.name for a in ins.args if isinstance(a, Ref)}
            used = any(a == p for a in ins.args) if isinstance(p, Reg) else p.name in refs
            if used and ins.span is not None:
                return ins.span
    return None


def _e0801(what: str, span) -> Diagnostic:
    return Diagnostic(Severity.ERROR, "E0801", f"{what}: not supported on Fermi SASS (the emitter has no "
                      "instruction sequence for it; 64-bit values live in register pairs, docs/fermi.md)", span,
                      help="use a 32-bit type (i32, u32, f32) for this part in kernels compiled for `--target "
                           "fermi-sass` / `fermi-sim` (the PTX targets support all 64-bit types)")


# ---- the rewrites ------------------------------------------------------------------

def legalize(k: Kernel, its: bool = False) -> Kernel:
    """The rewrites above, in one walk over the blocks (check_kernel first: 64-bit stays as it is)."""
    k = expand_bounds_checks(k)
    locked = _atomic_shared_arrays(k)
    if not any(_needs(k, ins, its, locked) for _, _, ins in k.instructions()):
        return k
    b = KernelBuilder.thaw(k)
    for label in [blk.label for blk in k.blocks]:
        code, term = b.code[label], b.terms[label]
        if not any(_needs(k, ins, its, locked) for ins in code):
            continue
        b.code[label], b.terms[label] = [], None
        b.at(label)
        last = [label]          # where new blocks go, to keep the order readable
        for ins in code:
            if not _needs(k, ins, its, locked):
                b.code[b.current].append(ins)
                continue
            b.span_now = ins.span
            _Rewriter(b, k, ins, last, locked).run()
            b.span_now = None
        b.terminate(term)
    return b.freeze()


def _atomic_shared_arrays(k: Kernel) -> frozenset[str]:
    """The program's own shared arrays of 32-bit integers that an atomic accesses somewhere in the
    kernel. (A primitive's state words are its expansion's, which never stores to a word plainly
    while an atomic may act on it, nor spins on an atomic that the test below would help: its
    waiters are structured. Left as they are, they keep the costs seed 000 measured, Table 2.)"""
    found = set()
    for _, _, ins in k.instructions():
        a = k.accessed(ins.ref) if ins.info.group == "atomic" and ins.ref is not None else None
        if a is not None and a.space == "shared" and a.elem in (I32, U32) and a.kind != "state":
            found.add(a.name)
    return frozenset(found)


def _locked_store(k: Kernel, ins: Instr, locked: frozenset[str]) -> bool:
    """A plain store to a shared word that atomics also access: an exchange's lock-bit loop on
    Fermi, since an atomic's STSUL writes back what its LDSLK read (a compare-and-swap that fails
    stores the old value), and would undo a plain store made between the two."""
    if ins.op != "st" or ins.ref is None:
        return False
    a = k.accessed(ins.ref)
    return a is not None and a.name in locked and ins.ref.field is None


def _needs(k: Kernel, ins: Instr, its: bool = False, locked: frozenset[str] = frozenset()) -> bool:
    if ins.op == "nanosleep":
        return not its
    if _integer_division(ins):
        return True                                 # (an f32 quotient is select.py's: float_rounding.py)
    if ins.info.group in ("memory", "atomic") and ins.attr("order") not in (None, "relaxed"):
        return True
    if ins.info.group == "atomic":
        a = k.accessed(ins.ref)
        return a is not None and (a.space == "shared" or _float_min_max(ins, a))
    return _locked_store(k, ins, locked)


def _reads_only(ins: Instr, elem) -> bool:
    """An integer add, sub, or or xor of 0: the old value, and the word unchanged."""
    return ins.reads_only and elem in (I32, U32) and bool(ins.dests)


def _integer_division(ins: Instr) -> bool:
    """Integer division or remainder that becomes the shift-and-subtract loop: by a register, and every
    64-bit one (select.py divides 32-bit integers by a constant with multiply-high)."""
    t = ins.dests[0].type if ins.op in ("div", "rem") else None
    return t is not None and t not in (F32, F64) and (not isinstance(ins.args[1], Imm) or t.bits == 64)


def _float_min_max(ins: Instr, a) -> bool:
    """An atomic Fermi has no instruction for, done as a compare-and-swap loop: min/max of an f32
    word, every read-modify-write of an f64 word (Fermi's 64-bit atomics are CAS, ADD and EXCH, on
    integers), and min/max/and/or/xor of an i64 or u64 word."""
    return (a.elem == F32 and ins.op in ("atom.min", "atom.max")) \
        or (a.elem == F64 and ins.op in ("atom.add", "atom.sub", "atom.min", "atom.max", "atom.exch")) \
        or (a.elem in (I64, U64) and ins.op in ("atom.min", "atom.max", "atom.and", "atom.or", "atom.xor"))


class _Rewriter:
    def __init__(self, b: KernelBuilder, k: Kernel, ins: Instr, last: list[str], locked: frozenset[str]):
        self.b, self.k, self.ins, self.last, self.locked = b, k, ins, last, locked

    def block(self, hint: str) -> str:
        label = self.b.new_block(hint, after=self.last[0])
        self.last[0] = label
        return label

    def emit(self, op, dests=(), args=(), **attrs) -> Instr:
        return self.b.emit(op, dests, args, self.ins.span, **attrs)

    def op(self, op, t, *args, hint="t", **attrs) -> Reg:
        return self.b.op(op, t, *args, hint=hint, span=self.ins.span, **attrs)

    def run(self) -> None:
        ins = self.ins
        order = ins.attr("order")
        if order not in (None, "relaxed"):
            scope = ins.attr("scope") or ("cta" if self._space() == "shared" else "gpu")
            if order in RELEASES:
                self.emit("fence", order="acq_rel", scope=scope)
            self.ins = ins = ins.with_attrs(order=None, scope=None)
            self.dispatch()
            if order in ACQUIRES:
                self.emit("fence", order="acq_rel", scope=scope)
            return
        self.dispatch()

    def _space(self) -> str | None:
        a = self.k.accessed(self.ins.ref) if self.ins.ref is not None else None
        return a.space if a is not None else None

    def dispatch(self) -> None:
        ins = self.ins
        if ins.op == "nanosleep":
            self.nanosleep()
        elif _integer_division(ins):
            self.divide()
        elif ins.info.group == "atomic" and self._space() == "shared":
            self.shared_atomic()
        elif _locked_store(self.k, ins, self.locked):
            self.ins = Instr("atom.exch", (), ins.args, (), ins.span)
            self.shared_atomic()
        elif ins.info.group == "atomic" and _float_min_max(ins, self.k.accessed(ins.ref)):
            self.compare_and_swap()
        else:
            self.b.code[self.b.current].append(ins)

    # seed 000 Listing 1: LDSLK P0, R1, [R0]; @P0 op; @P0 STSUL [R0], R4; @!P0 BRA back
    def shared_atomic(self) -> None:
        ins, b = self.ins, self.b
        ref, array = ins.ref, self.k.accessed(ins.ref)
        elem, own = array.elem, array.name in self.locked      # (the program's array: the rewrites below)
        if own and _reads_only(ins, elem):          # an atomic read: a plain load is one
            self.emit("ld", ins.dests, (ref,))
            return
        seen = self._test_first(ins, elem) if own else None
        retry, apply, test, done = self.block("atomic.retry"), self.block("atomic.apply"), \
            self.block("atomic.test"), self.block("atomic.done")
        b.jump(retry)
        b.at(retry)
        ok, old = b.reg(BOOL, "locked"), b.reg(elem, "old")
        self.emit("lockbit.try", (ok, old), (ref,))
        b.branch(ok, apply, test)
        b.at(apply)
        if ins.op == "atom.exch":
            new = ins.args[1]
        elif ins.op == "atom.cas" and elem == F64:      # the bits compared, as ATOM.CAS.64 and PTX's cas.b64
            same = self.op("cmp.eq", BOOL, self.op("bitcast", U64, old, hint="bits"),
                           self.op("bitcast", U64, ins.args[1], hint="bits"), hint="same")
            new = self.op("select", elem, same, ins.args[2], old, hint="new")
        elif ins.op == "atom.cas":
            same = self.op("cmp.eq", BOOL, old, ins.args[1], hint="same")
            new = self.op("select", elem, same, ins.args[2], old, hint="new")
        else:
            new = self.op(_RMW[ins.op], elem, old, ins.args[1], hint="new")
        self.emit("lockbit.release", (), (ref, new))
        b.jump(test)
        b.at(test)
        b.branch(ok, done, retry)
        b.at(done)
        if ins.dests:
            self.emit("mov", (ins.dests[0],), (old,))
        if seen is not None:
            b.jump(seen[1])
            b.at(seen[1])

    def _test_first(self, ins: Instr, elem) -> tuple[Reg, str] | None:
        """Test, then lock: a compare-and-swap whose word does not hold the value compared, or an
        exchange whose word holds the value it would store, changes nothing, so a plain load (LDS,
        no lock bit) that sees so stands for it (the atomic read the word then). Spinning on such
        an atomic by hand then takes no lock bit while the word says no, and warps that spin on one
        word no longer keep taking its bit in step while its holder waits to store to it (the
        livelock the simulator proves, E0909). (None: the atomic always runs; else the old value's
        register and the block after both paths.)"""
        if ins.op not in ("atom.cas", "atom.exch") or elem not in (I32, U32) or not ins.dests:
            return None
        b = self.b
        seen = self.op("ld", elem, ins.ref, hint="seen")
        compared = ins.args[1]
        would = self.op("cmp.eq" if ins.op == "atom.cas" else "cmp.ne", BOOL, seen, compared, hint="would")
        lock, after = self.block("atomic.lock"), self.block("atomic.after")
        skip = self.block("atomic.skip")
        b.branch(would, lock, skip)
        b.at(skip)
        self.emit("mov", (ins.dests[0],), (seen,))
        b.jump(after)
        b.at(lock)
        return seen, after

    def compare_and_swap(self) -> None:
        """atom.min/max of an f32 global word, and atom.add/sub/min/max/exch of an f64 one: ATOM.CAS
        the new value in until the word has not changed since it was read. The CAS compares bits
        (of an f64: both words), so a NaN or a -0.0 in the word is no trouble; the old value is the
        one the successful CAS returned."""
        ins, b = self.ins, self.b
        ref, v = ins.ref, ins.args[1]
        elem = self.k.array(ref.name).elem
        bits = U64 if elem.bits == 64 else U32
        seen = b.reg(elem, "seen")
        self.emit("ld", (seen,), (ref,))
        retry, done = self.block("cas.retry"), self.block("cas.done")
        b.jump(retry)
        b.at(retry)
        new = v if ins.op == "atom.exch" else self.op(_RMW[ins.op], elem, seen, v, hint="new")
        old = self.op("atom.cas", elem, ref, seen, new, hint="old")
        same = self.op("cmp.eq", BOOL, self.op("bitcast", bits, old, hint="bits"),
                       self.op("bitcast", bits, seen, hint="bits"), hint="same")
        self.emit("mov", (seen,), (old,))
        b.branch(same, done, retry)
        b.at(done)
        if ins.dests:
            self.emit("mov", (ins.dests[0],), (seen,))

    def divide(self) -> None:
        """Shift-and-subtract division of 32- or 64-bit magnitudes, then the signs (C's truncation; the
        most negative value divided by -1 wraps to itself, remainder 0; x / 0 is all ones, x % 0 is x)."""
        ins = self.ins
        d, (x, y) = ins.dests[0], ins.args
        signed = d.type.signed
        wide = d.type.bits == 64
        st, ut = (I64, U64) if wide else (I32, U32)
        if signed:
            xneg = self.op("cmp.lt", BOOL, x, imm(0, st), hint="xneg")
            yneg = self.op("cmp.lt", BOOL, y, imm(0, st), hint="yneg")
            n = self.op("cvt", ut, self.op("abs", st, x, hint="xabs"), hint="n")
            m = self.op("cvt", ut, self.op("abs", st, y, hint="yabs"), hint="m")
        else:
            n, m = x, y
        q, r = self.unsigned_divide(n, m, ut)
        if not signed:
            self.emit("mov", (d,), (q if ins.op == "div" else r,))
            return
        if ins.op == "div":
            sq = self.op("cvt", st, q, hint="q")
            self.emit("select", (d,), (self.op("xor", BOOL, xneg, yneg, hint="qneg"), self.op("neg", st, sq), sq))
        else:
            sr = self.op("cvt", st, r, hint="r")
            self.emit("select", (d,), (xneg, self.op("neg", st, sr), sr))

    def unsigned_divide(self, n, m, ut=U32) -> tuple[Reg, Reg]:
        """The quotient and remainder of n / m, unsigned (of type ut, 32 or 64 bits): one round a bit,
        from the top."""
        b = self.b
        q, r, i = b.reg(ut, "quot"), b.reg(ut, "rest"), b.reg(ut, "bit")
        self.emit("mov", (q,), (imm(0, ut),))
        self.emit("mov", (r,), (imm(0, ut),))
        self.emit("mov", (i,), (imm(ut.bits - 1, ut),))
        loop, done = self.block("divide"), self.block("divide.done")
        b.jump(loop)
        b.at(loop)
        top = self.op("shr", ut, n, i, hint="top")
        bit = self.op("and", ut, top, imm(1, ut), hint="top")
        self.emit("or", (r,), (self.op("shl", ut, r, imm(1, ut), hint="rest"), bit))
        fits = self.op("cmp.ge", BOOL, r, m, hint="fits")
        self.emit("select", (r,), (fits, self.op("sub", ut, r, m, hint="rest"), r))
        self.emit("or", (q,), (q, self.op("select", ut, fits, self.op("shl", ut, imm(1, ut), i, hint="one"),
                                          imm(0, ut), hint="one")))
        more = self.op("cmp.ne", BOOL, i, imm(0, ut), hint="more")
        self.emit("sub", (i,), (i, imm(1, ut)))
        b.branch(more, loop, done)
        b.at(done)
        return q, r

    def nanosleep(self) -> None:
        """Wait until SR_ClockLo has advanced by the operand (taken as cycles)."""
        b = self.b
        delay = self.ins.args[0]
        if isinstance(delay, Imm):
            delay = imm(int(delay.value), U32)
        elif delay.type != U32:
            delay = self.op("cvt", U32, delay, hint="delay")
        start = self.op("sreg", U32, hint="start", reg="clock")
        wait, done = self.block("sleep"), self.block("sleep.done")
        b.jump(wait)
        b.at(wait)
        now = self.op("sreg", U32, hint="now", reg="clock")
        more = self.op("cmp.lt", BOOL, self.op("sub", U32, now, start, hint="slept"), delay, hint="more")
        b.branch(more, wait, done)
        b.at(done)
