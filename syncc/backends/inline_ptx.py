"""The synchronization instructions, as inline PTX with exactly the ordering and scope the
passes decided: the PTX back end's and the CUDA back end's (which embeds the same sequences in
C++), so it sits beside them rather than in either.

LLVM drops orderings it is given on some atomics (docs/references.md: `atomicrmw ...
syncscope("device") acquire` came out as a plain `atom.global.add.u32`), so every
operation that synchronizes (an atomic, a load or store with an ordering, a fence,
a barrier, a warp sync, activemask, nanosleep) is written as inline PTX here. Each
is `asm sideeffect` with a memory clobber, so LLVM moves no memory access across
it; barriers and warp syncs are also `convergent`, so no transformation makes
them conditional on more threads' paths than the program did.

Plain loads and stores stay LLVM loads and stores, which LLVM may optimize: a
program that polls memory uses `load_cg` (an L1-bypassing load, here inline PTX)
or a primitive, whose polls carry an ordering.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core.types import ScalarType

# atomic operation → (PTX operation, how its type is written: bits / unsigned / signed-aware)
ATOMIC = {
    "atom.add": ("add", "u"), "atom.sub": ("add", "u"), "atom.exch": ("exch", "b"), "atom.cas": ("cas", "b"),
    "atom.min": ("min", "s"), "atom.max": ("max", "s"), "atom.and": ("and", "b"), "atom.or": ("or", "b"),
    "atom.xor": ("xor", "b"),
}
# the .sem of atom: sc is not one; an sc atomic is a fence.sc and an acq_rel atomic
SEM = {None: ".relaxed", "relaxed": ".relaxed", "acquire": ".acquire", "release": ".release",
       "acq_rel": ".acq_rel", "sc": ".acq_rel"}


@dataclass(frozen=True)
class Asm:
    text: str
    constraints: str
    convergent: bool = False


def ptx_type(t: ScalarType, style: str) -> str:
    """.b32/.u32/.s32/.f32/...; bool in memory is one byte. A float is .f32/.f64 where the
    operation computes with it (add), else its bits (.b32: exch, cas, loads and stores)."""
    bits = 8 if t.bits == 1 else t.bits
    if t.is_float:
        return f".f{bits}" if style == "u" else f".b{bits}"
    if style == "b" and bits >= 32:
        return f".b{bits}"
    if style == "s" and t.signed:
        return f".s{bits}"
    return f".u{bits}"


def reg_constraint(t: ScalarType, computed: bool = False) -> str:
    """The register an operand travels in: `f`/`d` for a float the instruction computes with,
    else an integer register (a float as its bits)."""
    if computed and t.is_float:
        return "d" if t.bits == 64 else "f"
    return "l" if t.bits == 64 else "r"


def _space(space: str) -> str:
    return ".global" if space == "global" else ".shared"


def atomic(op: str, elem: ScalarType, space: str, order: str | None, scope: str | None) -> Asm:
    name, style = ATOMIC[op]
    r = reg_constraint(elem, computed=name == "add")
    sem = SEM[order]
    scope = f".{scope or ('cta' if space == 'shared' else 'gpu')}"
    text = f"atom{sem}{scope}{_space(space)}.{name}{ptx_type(elem, style)} $0, [$1], $2"
    if order == "sc":
        text = f"fence.sc{scope}; {text}"
    if name == "cas":
        return Asm(text + ", $3;", f"={r},l,{r},{r},~{{memory}}")
    return Asm(text + ";", f"={r},l,{r},~{{memory}}")


# atomics that have a no-return form: `red` (add, min, max and the bitwise ops; relaxed or release)
REDUCIBLE = {"add", "min", "max", "and", "or", "xor"}


def reduction(op: str, elem: ScalarType, space: str, order: str | None, scope: str | None) -> Asm | None:
    """`red` for an atomic whose old value nobody reads, where PTX has one: the thread need not
    wait for the old value (a lock's release is one such: measured on an H100, a ticket's
    `red.release` hands over 1.2 M times a second where `atom.release` hands over 0.95 M)."""
    name, style = ATOMIC[op]
    if name not in REDUCIBLE or order not in (None, "relaxed", "release"):
        return None
    scope = f".{scope or ('cta' if space == 'shared' else 'gpu')}"
    return Asm(f"red{SEM[order]}{scope}{_space(space)}.{name}{ptx_type(elem, style)} [$0], $1;",
               f"l,{reg_constraint(elem, computed=name == 'add')},~{{memory}}")


def load(elem: ScalarType, space: str, order: str | None, scope: str | None, cache: str | None) -> Asm:
    r = reg_constraint(elem)
    t = ptx_type(elem, "b" if elem.is_float else "u")
    if order is None and cache == "cg":
        # A polling load must be strong: ptxas may hoist a weak `ld.global.cg` out of a loop that
        # has nothing else in it (seen on an H100: a `while load_cg(x) < n {}` that never waited),
        # and drops a spin on a weak `ld.shared` altogether (seen on an H200: the waiting warp went
        # on at once). A relaxed load at gpu scope is read where every SM's writes meet (L2), as
        # .cg was; a shared word's, at cta scope.
        order, scope = "relaxed", "gpu" if space == "global" else "cta"
    if order is not None:            # ld.acquire: no cache operator with an ordering
        sem = ".relaxed" if order == "relaxed" else ".acquire"
        return Asm(f"ld{sem}.{scope}{_space(space)}{t} $0, [$1];", f"={r},l,~{{memory}}")
    cop = ".volatile" if cache == "volatile" else ""
    return Asm(f"ld{_space(space)}{cop}{t} $0, [$1];", f"={r},l,~{{memory}}")


def store(elem: ScalarType, space: str, order: str, scope: str | None) -> Asm:
    r = reg_constraint(elem)
    sem = ".relaxed" if order == "relaxed" else ".release"
    t = ptx_type(elem, "b" if elem.is_float else "u")
    return Asm(f"st{sem}.{scope}{_space(space)}{t} [$0], $1;", f"l,{r},~{{memory}}")


def fence(order: str, scope: str) -> Asm:
    """`fence.acquire` is PTX ISA 8.6 on sm_90 (SPLIT_FENCES); every other order is fenced acq_rel or sc."""
    sem = {"sc": "sc", "acquire": "acquire"}.get(order, "acq_rel")
    return Asm(f"fence.{sem}.{scope};", "~{memory}")


# A polling loop's acquire: on every poll (`ld.acquire`, which waits for its load and invalidates
# L1 each time), or, where the architecture has a one-way acquire fence, relaxed polls and one
# `fence.acquire` when the loop ends (an L1 invalidate: 10 cycles on an H100, against 670 for
# any fence that releases). expand_primitives marks both forms `deferred`; the back end keeps one.
SPLIT_FENCES = {"sm_90": "8.6"}       # architecture → the PTX ISA version that has fence.acquire


def deferred_order(ins_order: str | None, deferred: bool, split: bool) -> str | None:
    """The ordering a `deferred` poll carries: relaxed where the loop's fence acquires for it."""
    return "relaxed" if deferred and split else ins_order


BARRIER_SYNC = Asm("barrier.sync $0;", "r,~{memory}", convergent=True)
# A block barrier at id 0 is what __syncthreads() is: `.aligned`, which tells ptxas that every
# thread of the block runs this one instruction (the hazard checks prove it: E0704), so it
# reconverges the warp before it instead of testing for a split warp and taking a slow path
# there (measured on an H100: 4-12% of a block mutex's hand-overs, more with a clean poll loop)
BARRIER_SYNC_ALIGNED = Asm("barrier.sync.aligned $0;", "n,~{memory}", convergent=True)
BARRIER_SYNC_COUNT = Asm("barrier.sync $0, $1;", "r,r,~{memory}", convergent=True)
BARRIER_ARRIVE = Asm("barrier.arrive $0, $1;", "r,r,~{memory}", convergent=True)
WARP_SYNC = Asm("bar.warp.sync $0;", "r,~{memory}", convergent=True)
ACTIVEMASK = Asm("activemask.b32 $0;", "=r", convergent=True)
NANOSLEEP = Asm("nanosleep.u32 $0;", "r,~{memory}")

# An `mbarrier` queue's stages. arrive releases and a completed wait acquires, at cta scope (the
# defaults). A wait is polled: `try_wait` (sm_90) lets the hardware suspend the thread for a while
# before it answers, `test_wait` (sm_80) answers at once; both answer true once the phase of the
# given parity has completed. sm_70 and sm_75 have no mbarrier: there the 64-bit word is two
# 32-bit ones, the arrivals still missing and (phase << 16 | count), and an arrive that finds
# itself the last restores the count and moves the phase on, with release. That is right for a
# queue's stages, where no arrival of a phase can come before its waiters saw the phase before
# end (each side waits for the other's phase before it arrives again).
MBARRIER_WAIT = {"sm_90": "try", "sm_80": "test", "sm_86": "test", "sm_87": "test", "sm_89": "test"}


def mbar_init(native: bool) -> Asm:
    if native:
        return Asm("mbarrier.init.shared.b64 [$0], $1;", "l,r,~{memory}")
    return Asm("st.shared.u32 [$0], $1; st.shared.u32 [$0+4], $1;", "l,r,~{memory}")


def mbar_arrive(native: bool) -> Asm:
    if native:
        return Asm("{ .reg .b64 st; mbarrier.arrive.shared.b64 st, [$0]; }", "l,~{memory}")
    return Asm("{ .reg .u32 o, h; .reg .pred l; atom.acq_rel.cta.shared.add.u32 o, [$0], 0xffffffff; "
               "setp.eq.u32 l, o, 1; @l ld.relaxed.cta.shared.u32 h, [$0+4]; @l and.b32 h, h, 65535; "
               "@l st.relaxed.cta.shared.u32 [$0], h; @l red.release.cta.shared.add.u32 [$0+4], 65536; }",
               "l,~{memory}")


def mbar_test(how: str | None) -> Asm:
    """`how`: try, test, or None (no mbarrier: the two words above)."""
    if how is None:
        return Asm("{ .reg .u32 h; .reg .pred p; ld.acquire.cta.shared.u32 h, [$1+4]; shr.u32 h, h, 16; "
                   "and.b32 h, h, 1; setp.ne.u32 p, h, $2; selp.u32 $0, 1, 0, p; }", "=r,l,r,~{memory}")
    return Asm(f"{{ .reg .pred p; mbarrier.{how}_wait.parity.shared.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }}",
               "=r,l,r,~{memory}")


def bounds_record(site: int, words: tuple[int, int, int, int, int]) -> Asm:
    """The failure path of a run-time bounds check (passes/bounds.py, ir/faults.py), entered by a
    thread whose index failed: the first such thread of the launch takes the claim word and writes
    the record, and fences it at system scope before and after its done word, for a host that
    reads it while the kernel runs. $0: the index's 32 bits; $1, $2: the claim word and the record
    (abi.py: F_DONE, F_SITE, F_INDEX, F_BLOCK, F_THREAD words). The thread then stalls
    (bounds_stall): it does not trap, because ptxas structures a kernel around a path that never
    comes back, and a correct program that waits inside critical sections hung on an H100 and an
    H200 at -O2 with a trap there (tests/hazards/clean/ring_conditional_post.sync)."""
    done, f_site, f_index, f_block, f_thread = (4 * w for w in words)
    return Asm(
        "{ .reg .pred %won; .reg .b32 %old, %t;\n\t"
        "atom.global.cas.b32 %old, [$1], 0, 1;\n\t"
        "setp.eq.u32 %won, %old, 0;\n\t"
        f"@%won st.global.u32 [$2+{f_site}], {site};\n\t"
        f"@%won st.global.u32 [$2+{f_index}], $0;\n\t"
        + "".join(f"@%won mov.u32 %t, %{reg};\n\t@%won st.global.u32 [$2+{at}], %t;\n\t"
                  for at, reg in ((f_block, "ctaid.x"), (f_block + 4, "ctaid.y"), (f_block + 8, "ctaid.z"),
                                  (f_thread, "tid.x"), (f_thread + 4, "tid.y"), (f_thread + 8, "tid.z")))
        + "@%won fence.sc.sys;\n\t"
        f"@%won st.global.u32 [$2+{done}], 1;\n\t"
        "@%won fence.sc.sys; }",
        "r,l,l,~{memory}")


# What the claim word never holds (0 before a launch, 1 once a check failed): a failed check's
# thread waits for it, so it stops there, in a loop ptxas cannot prove endless.
BOUNDS_NEVER = 2


def bounds_stall() -> Asm:
    """One round of a failed check's stall: a long sleep, then the claim word ($1), read past
    every cache, into $0. The loop around it (codegen._bounds_check) runs until the word holds
    BOUNDS_NEVER, that is for ever: the host sees the record and reports the failure, and the
    kernel stays where it is until the process ends, as a hung one does."""
    return Asm("nanosleep.u32 1000000;\n\tld.volatile.global.u32 $0, [$1];", "=r,l,~{memory}")
