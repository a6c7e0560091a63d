"""What each instruction does to a warp's lanes: decoding SASS into small executable records.

    code = decode(kernel, latencies, 1) # one Decoded per instruction, in address order
    code = bound_semantics(code, env)   # with what each ordinary instruction does, for this launch
    latency = code[i].run(warp, mask)   # ordinary instructions: apply to the lanes of `mask`

The semantics are one table, SEMANTICS, from opcode to a factory that turns an
Instruction into a function of (warp, lane mask). Those functions work on whole
rows of 32 lanes with numpy and write back only the lanes of the mask; they
return None, or the cycles until their result is ready when that depends on
what happened (bank and lock-bit conflicts, the L2 queue of an atomic).
Control flow (BRA, SSY, PBK, BRK, EXIT, BAR, the ITS instructions) is not here:
its `kind` tells the simulator's issue loop what to do with the warp.

Constant-bank operands are resolved when the semantics are bound (they are fixed
for a launch), so binding happens once per launch, and only on the reference
engine: the compiled core reads the decoded records but never runs them.
"""
from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field, replace
from enum import Enum
from fractions import Fraction
from typing import Callable

import numpy as np

from . import lanes as L
from ..fermi.isa import CARRY, F2F_ROUND, FCMP, PT, RZ, CondCode, ConstBankWord, Instruction, Mem, Pred, SassImm, SassReg, Special
from .memory import MemoryFault
from ..fermi.program import SassKernel

U32 = np.uint32
I32 = np.int32
F32 = np.float32
F64 = np.float64
MASK32 = 0xFFFFFFFF
SIGN32 = U32(0x80000000)
NAN32 = U32(0x7FFFFFFF)             # the NaN every float instruction writes (the GPU's canonical one)
NAN64 = np.uint64(0x7FFFFFFFFFFFFFFF)   # the NaN every binary64 instruction writes


class Trap(Exception):
    """BPT.TRAP ran in some lane: the kernel stops there (a failed bounds check records why first)."""

    def __init__(self, lane: int):
        super().__init__(f"BPT.TRAP stopped the kernel (lane {lane})")
        self.lane = lane


class InstructionError(Exception):
    """Something an instruction cannot do at run time (BRA.U that splits the warp, running off
    the end, a warp-level instruction the simulated machine lacks): reported at the instruction."""


@dataclass
class Env:
    """What decoding needs to know about the launch."""
    cbank: dict[int, int]                  # constant bank 0: byte offset → value
    config: object
    sim: object                            # the Simulator (memories, the clock)
    patterns: dict = field(default_factory=dict)   # shared-access patterns (see Pattern)


class Kind(Enum):
    """What the issue loop does with an instruction: OP runs its semantics (SEMANTICS); every
    other kind is control flow or a barrier the loop handles itself (CONTROL)."""
    OP = "op"
    BRA = "bra"
    SSY = "ssy"
    PBK = "pbk"
    BRK = "brk"
    EXIT = "exit"
    BAR = "bar"
    WARPSYNC = "warpsync"
    BSSY = "bssy"
    BSYNC = "bsync"
    BREAK = "break"
    YIELD = "yield"
    NANOSLEEP = "nanosleep"


@dataclass(frozen=True)
class Decoded:
    ins: Instruction
    kind: Kind
    run: Callable | None                   # op: (warp, mask) -> latency or None
    guard: int | None                      # predicate row, or None: always
    guard_neg: bool
    sync: bool
    reads: tuple[int, ...]                 # scoreboard slots read (registers, then 64 + predicate)
    writes: tuple[int, ...]                # scoreboard slots written
    unit: str                              # the functional unit (its latency: FermiConfig)
    membar: bool                           # a memory barrier: the warp waits until it completes
    target: int = -1                       # branch/SSY/PBK/BSSY target address
    latency: int = 1                       # cycles until its results can be used (its unit's, FermiConfig)
    deps: tuple[int, ...] = ()             # slots it must wait for: what it reads, and writes (WAW)


def sync_points(code: list) -> list[bool]:
    """Per instruction: is it where hunt:SEED may preempt a warp? Where a polling loop (a loop back
    over an atomic or a load from L2) ends: the lock just taken, the flag just seen; and right
    after an atomic or a load from L2 outside such a loop (a ticket taken, a flag read). Not inside
    a polling loop, whose every turn would spend the preemptions; not before a store or a fence:
    holding a writer there lets its earlier stores land, which hides a missing release fence.
    """
    def polls(d) -> bool:
        return d.ins.op == "ATOM" or (d.ins.op == "LD" and bool({"CG", "CV"} & set(d.ins.mods)))

    n = len(code)
    in_loop, ends = [False] * n, [False] * n
    for i, d in enumerate(code):
        t = d.target >> 3 if d.ins.op == "BRA" and d.target is not None and d.target >= 0 else n
        if t <= i and any(polls(code[k]) for k in range(t, i + 1)):
            for k in range(t, i + 1):
                in_loop[k] = True
            if i + 1 < n:
                ends[i + 1] = True
    return [ends[i] or (not in_loop[i] and i > 0 and polls(code[i - 1])) for i, d in enumerate(code)]


# ---- operands ----------------------------------------------------------------------------

def immediate(o, env: Env) -> int:
    """The value of an immediate operand: a SassImm's, or a constant-bank word's as this launch's
    bank holds it. The compiled core reads its immediates through this too (core/layout.py)."""
    if isinstance(o, SassImm):
        return o.value
    if isinstance(o, ConstBankWord):
        return env.cbank.get(o.offset, 0) if o.bank == 0 else 0     # unwritten constant memory reads 0
    raise TypeError(o)


def _unsigned(o, env: Env):
    """A function of the warp giving the operand as uint32 (a row or a scalar)."""
    if isinstance(o, SassReg):
        n = o.n
        if o.neg:
            return lambda w: np.negative(w.r[n])
        if o.inv:
            return lambda w: np.invert(w.r[n])
        return lambda w: w.r[n]
    c = U32(immediate(o, env) & MASK32)
    return lambda w: c


def _signed(o, env: Env):
    if isinstance(o, SassReg):
        n = o.n
        if o.neg:
            return lambda w: np.negative(w.s[n])
        if o.inv:
            return lambda w: np.invert(w.s[n])
        return lambda w: w.s[n]
    v = immediate(o, env) & MASK32
    c = I32(v - (1 << 32) if v & 0x80000000 else v)
    return lambda w: c


def _pred(o: Pred):
    n = o.n
    if o.neg:
        return lambda w: ~w.p[n]
    return lambda w: w.p[n]


def put_reg(w, d: int, value, m: int) -> None:
    if m == w.present:
        np.copyto(w.r[d], value, casting="unsafe")
    else:
        np.copyto(w.r[d], value, casting="unsafe", where=L.to_array(m))


def put_pred(w, d: int, value, m: int) -> None:
    if m == w.present:
        np.copyto(w.p[d], value)
    else:
        np.copyto(w.p[d], value, where=L.to_array(m))


def _nothing(w, m):
    return None


def _to_reg(ins: Instruction, compute):
    """An instruction whose first operand is a register written with compute(w)."""
    d = ins.operands[0].n
    if d == RZ:
        return _nothing

    def run(w, m):
        put_reg(w, d, compute(w), m)
    return run


# ---- arithmetic -----------------------------------------------------------------------------

def _ufunc(ins: Instruction, fn, a, b, signed: bool = False):
    """Rd = fn(a, b) for a numpy ufunc: straight into the register when every lane is active
    (one numpy call), through a temporary and a masked copy otherwise."""
    d = ins.operands[0].n
    if d == RZ:
        return _nothing

    def run(w, m):
        out = w.s[d] if signed else w.r[d]
        if m == w.present:
            fn(a(w), b(w), out=out)
        else:
            np.copyto(out, fn(a(w), b(w)), casting="unsafe", where=L.to_array(m))
    return run


def _mov(ins, env):
    b = _unsigned(ins.operands[1], env)
    return _to_reg(ins, b)


def _iadd(ins, env):
    if "CC" in ins.mods or "X" in ins.mods:
        return _iadd_carry(ins, env)
    a, b = _unsigned(ins.operands[1], env), _unsigned(ins.operands[2], env)
    return _ufunc(ins, np.add, a, b)


def _addend(o, env):
    """An IADD source as the 33-bit addend of a sum with carry: -R is ~R + 1 (so -0 carries), ~R is ~R."""
    if isinstance(o, SassReg):
        n, neg, inv = o.n, o.neg, o.inv
        if neg or inv:
            one = np.uint64(neg)
            return lambda w: np.invert(w.r[n]).astype(np.uint64) + one
        return lambda w: w.r[n].astype(np.uint64)
    c = np.uint64(immediate(o, env) & MASK32)
    return lambda w: c


def _iadd_carry(ins, env):
    """IADD.CC and IADD.X: the 33-bit sum of the addends (plus the carry flag with .X); Rd gets its low
    word and, with .CC, the carry flag its bit 32."""
    a, b = _addend(ins.operands[1], env), _addend(ins.operands[2], env)
    d, extended, sets = ins.operands[0].n, "X" in ins.mods, "CC" in ins.mods

    def run(w, m):
        total = np.broadcast_to(a(w) + b(w), (32,))
        if extended:
            total = total + w.p[CARRY].astype(np.uint64)
        if d != RZ:
            put_reg(w, d, (total & np.uint64(MASK32)).astype(U32), m)
        if sets:
            put_pred(w, CARRY, total >> np.uint64(32) != 0, m)
    return run


def _iscadd(ins, env):
    a, b = _unsigned(ins.operands[1], env), _unsigned(ins.operands[2], env)
    shift = U32(immediate(ins.operands[3], env) & 31)
    return _ufunc(ins, np.add, lambda w: np.left_shift(a(w), shift, dtype=U32), b)


def _imul(ins, env):
    signed = ins.mods[:1] == ("S32",) or ins.mods[1:2] == ("S32",)
    high = "HI" in ins.mods
    a, b = _unsigned(ins.operands[1], env), _unsigned(ins.operands[2], env)
    sa, sb = _signed(ins.operands[1], env), _signed(ins.operands[2], env)
    if high:
        def product(w):
            x = (sa(w).astype(np.int64) * sb(w)) if signed else (a(w).astype(np.uint64) * b(w))
            return (x >> 32).astype(np.uint64).astype(U32)
    else:
        def product(w):
            return np.multiply(a(w), b(w), dtype=U32)
    if ins.op == "IMAD":
        return _ufunc(ins, np.add, product, _unsigned(ins.operands[3], env))
    return _to_reg(ins, product)


def _shift_amount(v):
    return np.minimum(np.asarray(v, dtype=U32), U32(32))


def _shl(ins, env):
    a, b = _unsigned(ins.operands[1], env), _unsigned(ins.operands[2], env)
    if isinstance(ins.operands[2], (SassImm, ConstBankWord)) and immediate(ins.operands[2], env) & MASK32 < 32:
        k = U32(immediate(ins.operands[2], env))
        return _ufunc(ins, np.left_shift, a, lambda w: k)

    def compute(w):
        n = _shift_amount(b(w))
        return np.where(n >= 32, U32(0), np.left_shift(a(w), n & U32(31), dtype=U32))
    return _to_reg(ins, compute)


def _shr(ins, env):
    logical = "U32" in ins.mods
    if isinstance(ins.operands[2], (SassImm, ConstBankWord)) and immediate(ins.operands[2], env) & MASK32 < 32:
        k = immediate(ins.operands[2], env)
        if logical:
            return _ufunc(ins, np.right_shift, _unsigned(ins.operands[1], env), lambda w: U32(k))
        return _ufunc(ins, np.right_shift, _signed(ins.operands[1], env), lambda w: I32(k), signed=True)
    if logical:
        a, b = _unsigned(ins.operands[1], env), _unsigned(ins.operands[2], env)

        def compute(w):
            n = _shift_amount(b(w))
            return np.where(n >= 32, U32(0), np.right_shift(a(w), n & U32(31), dtype=U32))
    else:
        a, b = _signed(ins.operands[1], env), _unsigned(ins.operands[2], env)

        def compute(w):
            n = np.minimum(_shift_amount(b(w)), U32(31)).astype(I32)
            return np.right_shift(a(w), n, dtype=I32)
    return _to_reg(ins, compute)


_LOP = {"AND": np.bitwise_and, "OR": np.bitwise_or, "XOR": np.bitwise_xor}


def _lop(ins, env):
    a, b = _unsigned(ins.operands[1], env), _unsigned(ins.operands[2], env)
    if ins.mods[0] == "PASS_B":
        return _to_reg(ins, b)
    return _ufunc(ins, _LOP[ins.mods[0]], a, b)


def _imnmx(ins, env):
    get = _unsigned if "U32" in ins.mods else _signed
    a, b, c = get(ins.operands[1], env), get(ins.operands[2], env), _pred(ins.operands[3])
    return _to_reg(ins, lambda w: np.where(c(w), np.minimum(a(w), b(w)), np.maximum(a(w), b(w))))


def _sel(ins, env):
    a, b, c = _unsigned(ins.operands[1], env), _unsigned(ins.operands[2], env), _pred(ins.operands[3])
    return _to_reg(ins, lambda w: np.where(c(w), a(w), b(w)))


def _popcount(x: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x).astype(U32)
    return np.unpackbits(np.ascontiguousarray(x, dtype=U32).view(np.uint8)).reshape(-1, 32).sum(1).astype(U32)


def _popc(ins, env):
    a, b = _unsigned(ins.operands[1], env), _unsigned(ins.operands[2], env)
    return _to_reg(ins, lambda w: _popcount(np.bitwise_and(np.broadcast_to(a(w), (32,)), b(w), dtype=U32)))


_CMP = {"LT": np.less, "EQ": np.equal, "LE": np.less_equal, "GT": np.greater, "NE": np.not_equal,
        "GE": np.greater_equal}
_BOOL = {"AND": np.logical_and, "OR": np.logical_or, "XOR": np.logical_xor}


def _setp_writer(ins, test):
    """Pd = test BOOL c, Pd2 = !test BOOL c, for ISETP/PSETP (operands Pd, Pd2, ..., c)."""
    d, d2 = ins.operands[0].n, ins.operands[1].n
    c = _pred(ins.operands[-1])
    combine = _BOOL[next((m for m in ins.mods[::-1] if m in _BOOL), "AND")]

    def run(w, m):
        t = test(w)
        cv = c(w)
        if d != PT:
            put_pred(w, d, combine(t, cv), m)
        if d2 != PT:
            put_pred(w, d2, combine(~t, cv), m)
    return run


def _isetp(ins, env):
    cmp = ins.mods[0]
    get = _unsigned if "U32" in ins.mods else _signed
    a, b = get(ins.operands[2], env), get(ins.operands[3], env)
    if cmp in ("F", "T"):
        const = np.full(32, cmp == "T")
        return _setp_writer(ins, lambda w: const)
    fn = _CMP[cmp]
    d, d2, c = ins.operands[0].n, ins.operands[1].n, ins.operands[-1]
    if d2 == PT and c.n == PT and not c.neg and d != PT:      # the common form: Pd = a cmp b
        def run(w, m):
            if m == w.present:
                fn(a(w), b(w), out=w.p[d])
            else:
                np.copyto(w.p[d], fn(a(w), b(w)), where=L.to_array(m))
        return run
    return _setp_writer(ins, lambda w: np.broadcast_to(fn(a(w), b(w)), (32,)))


def _psetp(ins, env):
    first = _BOOL[ins.mods[0]]
    a, b = _pred(ins.operands[2]), _pred(ins.operands[3])
    inner = Instruction(ins.op, ins.mods[1:], ins.operands)     # the second op combines with c
    return _setp_writer(inner, lambda w: first(a(w), b(w)))


def _vote(ins, env):
    d, pd = ins.operands[0].n, ins.operands[1].n
    c = _pred(ins.operands[2])
    kind = ins.mods[0]

    def run(w, m):
        mask = L.of_array(np.asarray(c(w))) & m
        if d != RZ:
            put_reg(w, d, U32(L.compact(mask)), m)
        if pd != PT:
            if kind == "ANY":
                v = mask != 0
            elif kind == "ALL":
                v = mask == m
            else:
                v = mask in (0, m)
            put_pred(w, pd, np.full(32, v), m)
    return run


LANEMASK_LT = ((np.uint64(1) << np.arange(32, dtype=np.uint64)) - np.uint64(1)).astype(np.uint32)  # lanes below


def _s2r(ins, env):
    name = ins.operands[1].name
    sim = env.sim
    fixed = {
        "SR_Tid_X": lambda w: w.tid[0], "SR_Tid_Y": lambda w: w.tid[1], "SR_Tid_Z": lambda w: w.tid[2],
        "SR_CTAid_X": lambda w: U32(w.block.index[0]), "SR_CTAid_Y": lambda w: U32(w.block.index[1]),
        "SR_CTAid_Z": lambda w: U32(w.block.index[2]), "SR_LaneId": lambda w: w.lane_ids,
        "SR_LanemaskLt": lambda w: LANEMASK_LT,
        "SR_ClockLo": lambda w: U32(sim.now & MASK32), "SR_ClockHi": lambda w: U32(sim.now >> 32 & MASK32),
        "SR_GlobalTimerLo": lambda w: U32(sim.now * 1000 // sim.config.clock_mhz & MASK32),
    }
    return _to_reg(ins, fixed[name])


# ---- binary32 arithmetic ----------------------------------------------------------------------
# Registers hold words; a float instruction reads them as binary32 (numpy float32: IEEE, rounded to
# nearest even, subnormals kept) and writes a NaN as NAN32, so that no NaN payload depends on how
# numpy or the compiled core happened to order an operation. core/engine.py has the same steps.

def _float(o, env):
    """A function of the warp giving the operand as binary32 (a row or a scalar); -R flips the sign
    bit, as Fermi's float negate modifier does."""
    if isinstance(o, SassReg):
        n = o.n
        if o.neg:
            return lambda w: np.bitwise_xor(w.r[n], SIGN32).view(F32)
        return lambda w: w.r[n].view(F32)
    c = np.array([immediate(o, env) & MASK32], dtype=U32).view(F32)[0]
    return lambda w: c


def float_bits(x) -> np.ndarray:
    """binary32 values as register words, every NaN as NAN32."""
    x = np.asarray(x, dtype=F32)
    return np.where(np.isnan(x), NAN32, x.view(U32))


def fma32(a, b, c) -> np.ndarray:
    """a * b + c rounded once to binary32. a * b is exact in binary64 (24 + 24 bits), and two-sum
    gives the exact error of the binary64 sum; where it is not zero, the sum is moved to its odd
    neighbour (round to odd), which binary64's 53 bits (at least 2 * 24 + 2) let round to binary32
    as the exact value would. No binary64 over- or underflow: |a * b| < 2^256, and a nonzero sum
    is a multiple of 2^-298."""
    a, b, c = (np.asarray(v, dtype=F64) for v in (a, b, c))
    p = a * b
    s = p + c
    bv = s - p
    err = (p - (s - bv)) + (c - bv)
    raw = np.atleast_1d(s).view(np.uint64)
    fix = (err != 0) & ((raw & np.uint64(1)) == 0) & np.isfinite(s)
    away = (err > 0) == (s > 0)                    # the exact sum is further from zero than s
    raw = np.where(fix, np.where(away, raw + np.uint64(1), raw - np.uint64(1)), raw)
    return raw.view(F64).astype(F32)


def minnum(a, b, least: bool, dtype=F32) -> np.ndarray:
    """IEEE minNum / maxNum: a NaN operand gives the other; -0 is below +0."""
    a, b = np.asarray(a, dtype=dtype), np.asarray(b, dtype=dtype)
    if least:
        take_a = (a < b) | np.isnan(b) | ((a == b) & np.signbit(a))
    else:
        take_a = (a > b) | np.isnan(b) | ((a == b) & ~np.signbit(a))
    return np.where(take_a, a, b)


def float_test(code: int, a, b) -> np.ndarray:
    """FSETP's test: bit 3 of the code on an unordered pair, else bits 0-2 for less, equal, greater."""
    unordered = np.isnan(a) | np.isnan(b)
    ordered = ((a < b) & bool(code & 1)) | ((a == b) & bool(code & 2)) | ((a > b) & bool(code & 4))
    return np.where(unordered, bool(code & 8), ordered)


def float_to_int(x, signed: bool) -> np.ndarray:
    """F2I.TRUNC: toward zero, saturating, NaN to 0, as a register word."""
    with np.errstate(all="ignore"):
        x = np.nan_to_num(np.asarray(x, dtype=F64), nan=0.0)
        lo, hi = (-2.0 ** 31, 2.0 ** 31 - 1) if signed else (0.0, 2.0 ** 32 - 1)
        return (np.clip(np.trunc(x), lo, hi).astype(np.int64) & MASK32).astype(U32)


def float_to_int64(x, signed: bool) -> np.ndarray:
    """F2I.S64/.U64.TRUNC: toward zero, saturating, NaN to 0, as 64-bit patterns. 2^63 and 2^64 are
    binary64 values, the ends' integers past them: a value at or past one saturates."""
    with np.errstate(all="ignore"):
        x = np.trunc(np.nan_to_num(np.asarray(x, dtype=F64), nan=0.0))
        if signed:
            big, small = x >= 2.0 ** 63, x < -2.0 ** 63
            safe = np.where(big | small, 0.0, x).astype(np.int64).view(np.uint64)
            return np.where(big, np.uint64((1 << 63) - 1), np.where(small, np.uint64(1 << 63), safe))
        big, small = x >= 2.0 ** 64, x <= 0.0
        safe = np.where(big | small, 0.0, x).astype(np.uint64)
        return np.where(big, np.uint64((1 << 64) - 1), np.where(small, np.uint64(0), safe))


_ROUND = {"FLOOR": np.floor, "CEIL": np.ceil, "TRUNC": np.trunc}
_FBINARY = {"FADD": np.add, "FMUL": np.multiply}


def _fbinary(ins, env):
    a, b, fn = _float(ins.operands[1], env), _float(ins.operands[2], env), _FBINARY[ins.op]

    def compute(w):
        with np.errstate(all="ignore"):
            return float_bits(np.broadcast_to(fn(a(w), b(w), dtype=F32), (32,)))
    return _to_reg(ins, compute)


def _ffma(ins, env):
    a, b, c = (_float(o, env) for o in ins.operands[1:4])

    def compute(w):
        with np.errstate(all="ignore"):
            return float_bits(np.broadcast_to(fma32(a(w), b(w), c(w)), (32,)))
    return _to_reg(ins, compute)


def _fmnmx(ins, env):
    a, b, c = _float(ins.operands[1], env), _float(ins.operands[2], env), _pred(ins.operands[3])
    return _to_reg(ins, lambda w: float_bits(np.where(c(w), minnum(a(w), b(w), True), minnum(a(w), b(w), False))))


def _fsetp(ins, env):
    code = FCMP.index(ins.mods[0])
    a, b = _float(ins.operands[2], env), _float(ins.operands[3], env)
    return _setp_writer(ins, lambda w: np.broadcast_to(float_test(code, a(w), b(w)), (32,)))


def _f2i(ins, env):
    a, signed = (_double if ins.mods[1] == "F64" else _float)(ins.operands[1], env), ins.mods[0][0] == "S"
    if ins.mods[0] in ("S64", "U64"):
        return _to_pair(ins, lambda w: np.broadcast_to(float_to_int64(a(w), signed), (32,)))
    return _to_reg(ins, lambda w: np.broadcast_to(float_to_int(a(w), signed), (32,)))


def _integer64(o, signed: bool):
    """A register pair as 64-bit integers (RZ: 0)."""
    n = o.n
    if n == RZ:
        zero = np.zeros(32, dtype=np.int64 if signed else np.uint64)
        return lambda w: zero

    def get(w):
        raw = (w.r[n + 1].astype(np.uint64) << np.uint64(32)) | w.r[n].astype(np.uint64)
        return raw.view(np.int64) if signed else raw
    return get


def _i2f(ins, env):
    if ins.mods[1] in ("S64", "U64"):        # numpy's casts round to nearest even, once
        a = _integer64(ins.operands[1], ins.mods[1] == "S64")
        if ins.mods[0] == "F64":
            return _to_pair(ins, lambda w: np.broadcast_to(double_bits(a(w).astype(F64)), (32,)))
        return _to_reg(ins, lambda w: np.broadcast_to(float_bits(a(w).astype(F32)), (32,)))
    a = (_signed if ins.mods[1] == "S32" else _unsigned)(ins.operands[1], env)
    if ins.mods[0] == "F64":                 # every 32-bit integer is a binary64 value: exact
        return _to_pair(ins, lambda w: np.broadcast_to(double_bits(np.asarray(a(w), dtype=F64)), (32,)))
    # through binary64, which holds every 32-bit integer: one rounding, to binary32
    return _to_reg(ins, lambda w: np.broadcast_to(float_bits(np.asarray(a(w), dtype=F64).astype(F32)), (32,)))


def _f2f(ins, env):
    """F2F.dest.source[.round]: to an integral value in the source's format (FLOOR, CEIL, TRUNC), then
    to the destination's, rounded to nearest even (binary32 to binary64 is exact)."""
    wide_in, wide_out = ins.mods[1] == "F64", ins.mods[0] == "F64"
    a = (_double if wide_in else _float)(ins.operands[1], env)
    fn = _ROUND.get(next((m for m in ins.mods[2:] if m in F2F_ROUND), ""), lambda x: x)

    def compute(w):
        with np.errstate(all="ignore"):
            v = fn(a(w))
            return np.broadcast_to(double_bits(v) if wide_out else float_bits(np.asarray(v).astype(F32)), (32,))
    return (_to_pair if wide_out else _to_reg)(ins, compute)


# ---- binary64 in register pairs (R2n low word, R2n+1 high word) ------------------------------------
# As binary32: numpy float64 is IEEE (nearest even, subnormals kept); a NaN result is NAN64. DFMA
# rounds the exact a * b + c once (dfma). core/engine.py has the same steps.

def _double(o, env):
    """A function of the warp giving a register pair as binary64 (RZ: +0.0); -R flips the sign bit."""
    n = o.n
    if n == RZ:
        zero = np.zeros(32, dtype=F64)
        return lambda w: zero
    flip = np.uint64(1 << 63) if o.neg else np.uint64(0)

    def get(w):
        raw = (w.r[n + 1].astype(np.uint64) << np.uint64(32)) | w.r[n].astype(np.uint64)
        return (raw ^ flip).view(F64)
    return get


def double_bits(x) -> np.ndarray:
    """binary64 values as 64-bit patterns, every NaN as NAN64."""
    x = np.asarray(x, dtype=F64)
    return np.where(np.isnan(x), NAN64, x.view(np.uint64))


def _to_pair(ins: Instruction, compute):
    """An instruction whose first operand is a register pair written with compute(w) (64-bit patterns)."""
    d = ins.operands[0].n
    if d == RZ:
        return _nothing

    def run(w, m):
        bits = np.asarray(compute(w), dtype=np.uint64)
        put_reg(w, d, (bits & np.uint64(MASK32)).astype(U32), m)
        put_reg(w, d + 1, (bits >> np.uint64(32)).astype(U32), m)
    return run


def dfma(a: float, b: float, c: float) -> float:
    """a * b + c rounded once to binary64, from the exact value (Python's int / int division rounds
    correctly, subnormals too). Infinities and NaN as IEEE gives them: a finite product plus an
    infinite c is c."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return a * b + c
    if not math.isfinite(c):
        return c
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return a * b + c                   # exact here; IEEE's sign of a zero sum
    try:
        return exact.numerator / exact.denominator
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


_DBINARY = {"DADD": np.add, "DMUL": np.multiply}


def _dbinary(ins, env):
    a, b, fn = _double(ins.operands[1], env), _double(ins.operands[2], env), _DBINARY[ins.op]

    def compute(w):
        with np.errstate(all="ignore"):
            return double_bits(np.broadcast_to(fn(a(w), b(w)), (32,)))
    return _to_pair(ins, compute)


def _dfma(ins, env):
    a, b, c = (_double(o, env) for o in ins.operands[1:4])

    def compute(w):
        return double_bits(np.array([dfma(x, y, z) for x, y, z in zip(a(w).tolist(), b(w).tolist(),
                                                                       c(w).tolist())], dtype=F64))
    return _to_pair(ins, compute)


def _dmnmx(ins, env):
    a, b, c = _double(ins.operands[1], env), _double(ins.operands[2], env), _pred(ins.operands[3])
    return _to_pair(ins, lambda w: double_bits(np.where(c(w), minnum(a(w), b(w), True, F64),
                                                        minnum(a(w), b(w), False, F64))))


def _dsetp(ins, env):
    code = FCMP.index(ins.mods[0])
    a, b = _double(ins.operands[2], env), _double(ins.operands[3], env)
    return _setp_writer(ins, lambda w: np.broadcast_to(float_test(code, a(w), b(w)), (32,)))


def truncate_to_f32(v) -> np.ndarray:
    """Positive binary64 values as binary32 words, rounded toward zero; below binary32's normal
    range, +0 (MUFU flushes)."""
    raw = np.asarray(v, dtype=F64).view(np.uint64)
    e = (raw >> np.uint64(52)).astype(np.int64) - 1023 + 127
    words = (np.clip(e, 0, 255).astype(np.uint64) << np.uint64(23)) | ((raw >> np.uint64(29)) & np.uint64(0x7FFFFF))
    return np.where(e <= 0, 0, words).astype(U32)


def mufu(fn: str, x) -> np.ndarray:
    """MUFU.RCP / MUFU.RSQ on words (docs/fermi.md, "MUFU"): a subnormal operand is flushed to the
    zero of its sign; 1/x or 1/sqrt(x) in binary64, truncated to binary32. RCP(±0) = ±inf,
    RCP(±inf) = ±0; RSQ(±0) = ±inf, RSQ(+inf) = +0, RSQ of a negative value is NaN; NaN gives NAN32."""
    x = np.asarray(x, dtype=U32)
    sign, mag = x & SIGN32, x & U32(0x7FFFFFFF)
    zero = mag < 0x00800000
    with np.errstate(all="ignore"):
        v = np.where(zero, 1.0, np.abs(x.view(F32)).astype(F64))
        r = 1.0 / (v if fn == "RCP" else np.sqrt(v))
    out = np.where(zero, sign | U32(0x7F800000), truncate_to_f32(r))
    if fn == "RCP":
        out = np.where(mag == 0x7F800000, sign, sign | out)
    else:
        out = np.where(~zero & (sign != 0), NAN32, out)
    return np.where(mag > 0x7F800000, NAN32, out).astype(U32)


def mufu64h(fn: str, x) -> np.ndarray:
    """MUFU.RCP64H / MUFU.RSQ64H on words (docs/fermi.md, "MUFU"): x is the high word of a binary64
    value v (low word zero); the result is the high word of binary64's 1/v or 1/sqrt(v), rounded to
    nearest, a 20-bit approximation. A subnormal v is flushed to the zero of its sign, and a zero gives
    the infinity of its sign; RCP64H(±inf) = ±0, RSQ64H(+inf) = +0, RSQ64H of a negative value NaN;
    NaN gives 0x7fffffff (NAN64's high word)."""
    x = np.asarray(x, dtype=U32)
    sign, mag = x & SIGN32, x & U32(0x7FFFFFFF)
    zero = mag < 0x00100000
    with np.errstate(all="ignore"):
        v = np.where(zero, 1.0, (mag.astype(np.uint64) << np.uint64(32)).view(F64))
        r = 1.0 / (v if fn == "RCP64H" else np.sqrt(v))
    out = np.where(zero, sign | U32(0x7FF00000), (r.view(np.uint64) >> np.uint64(32)).astype(U32))
    if fn == "RCP64H":
        out = np.where(mag == 0x7FF00000, sign, sign | out)
    else:
        out = np.where(~zero & (sign != 0), NAN32, out)
    return np.where(mag > 0x7FF00000, NAN32, out).astype(U32)


def _mufu(ins, env):
    a, fn = _unsigned(ins.operands[1], env), ins.mods[0]
    fn_of = mufu64h if fn.endswith("64H") else mufu
    return _to_reg(ins, lambda w: np.broadcast_to(fn_of(fn, a(w)), (32,)))


# ---- shared memory and the lock unit ---------------------------------------------------------

class Pattern:
    """What one shared-memory access of a warp touches: per active lane its word (an SM word
    index) and lock bit, and what that costs. Spinning warps repeat the same access, so patterns
    are cached by (address register, offset, block base, mask)."""
    __slots__ = ("lanes", "lanes_np", "words", "words_np", "pairs", "bits", "distinct", "transactions",
                 "lock_transactions")

    def __init__(self, ls: tuple, words: list[int], banks: int, nbits: int):
        self.lanes = ls
        self.lanes_np = np.array(ls, dtype=np.intp)
        self.words = words
        self.words_np = np.array(words, dtype=np.intp)
        bits = [x & (nbits - 1) for x in words]
        self.pairs = tuple((lane, 1 << b, b, x) for lane, b, x in zip(ls, bits, words))
        self.bits = 0
        per_bit: dict[int, int] = {}
        for b in bits:
            self.bits |= 1 << b
            per_bit[b] = per_bit.get(b, 0) + 1
        self.distinct = len(per_bit) == len(bits)
        self.transactions = _conflicts(words, banks)
        self.lock_transactions = max(per_bit.values(), default=1)


def _conflicts(words: list[int], banks: int) -> int:
    """Transactions a shared access needs: the most distinct words any one bank must serve."""
    per_bank: dict[int, set] = {}
    for x in words:
        per_bank.setdefault(x % banks, set()).add(x)
    return max((len(s) for s in per_bank.values()), default=1)


def _pattern_getter(env, base_reg: int, offset: int):
    """A function (warp, mask) → Pattern for the shared address [base_reg + offset]."""
    size, banks, nbits = env.sim.kernel.shared_bytes, env.config.shared_banks, env.config.lock_bits
    cache: dict = env.patterns

    def get(w, m: int) -> Pattern:
        row = w.r[base_reg] if base_reg != RZ else None
        key = (row.tobytes() if row is not None else None, offset, w.block.base, m)
        pat = cache.get(key)
        if pat is None:
            ls = L.lanes(m)
            addrs = [offset & MASK32] * len(ls) if row is None else [(a + offset) & MASK32 for a in row[ls].tolist()]
            base = w.block.base
            words = []
            for lane, a in zip(ls, addrs):
                if a & 3 or a >= size:
                    raise MemoryFault("shared", a, lane, env.sim.bad_address_reason("shared", a))
                words.append((base + a) >> 2)
            pat = Pattern(tuple(ls), words, banks, nbits)
            if len(cache) > 100_000:
                cache.clear()
            cache[key] = pat
        return pat
    return get


def _shared_latency(env, transactions: int) -> int:
    cfg = env.config
    return cfg.shared_latency + cfg.shared_replay * (transactions - 1)


def _lock_latency(env, pat: "Pattern") -> int:
    """LDSLK / STSUL: the bank conflicts, or, when more, one lock-unit transaction per lane on
    the busiest lock bit."""
    cfg = env.config
    return cfg.shared_latency + max(cfg.shared_replay * (pat.transactions - 1),
                                    cfg.lock_replay * (pat.lock_transactions - 1))


def _lds(ins, env):
    d = ins.operands[0].n
    mem: Mem = ins.operands[1]
    pattern = _pattern_getter(env, mem.base.n, mem.offset)

    def run(w, m):
        pat = pattern(w, m)
        if d != RZ:
            w.r[d][pat.lanes_np] = w.sm.shared.words[pat.words_np]
        return _shared_latency(env, pat.transactions)
    return run


def _sts(ins, env, unlock: bool = False):
    mem: Mem = ins.operands[0]
    v = ins.operands[1].n
    pattern = _pattern_getter(env, mem.base.n, mem.offset)
    sim = env.sim

    def run(w, m):
        pat = pattern(w, m)
        shared = w.sm.shared
        smem = shared.words
        values = w.r[v][pat.lanes_np]
        changed = smem[pat.words_np] != values
        if changed.any():                   # a store of the same value changes nothing anyone waits for
            writer, pc = shared.writer, w.pc
            for k in np.flatnonzero(changed).tolist():
                writer[pat.words[k]] = (w.uid, pat.lanes[k], pc)
            sim.last_change = sim.now
        smem[pat.words_np] = values
        if unlock:
            shared.free |= pat.bits
            holder = shared.holder
            for _, _, b, _ in pat.pairs:
                holder.pop(b, None)
            return _lock_latency(env, pat)
        return _shared_latency(env, pat.transactions)
    return run


def _stsul(ins, env):
    return _sts(ins, env, unlock=True)


def _ldslk(ins, env):
    pd, d = ins.operands[0].n, ins.operands[1].n
    mem: Mem = ins.operands[2]
    pattern = _pattern_getter(env, mem.base.n, mem.offset)
    sim = env.sim

    def run(w, m):
        pat = pattern(w, m)
        shared = w.sm.shared
        free = shared.free
        if pat.distinct:                     # one lane per bit: every lane whose bit is free takes it
            won = free & pat.bits
            shared.free = free ^ won
            if won == pat.bits:
                got = m
                winners = pat.pairs
            else:
                winners = [p for p in pat.pairs if won & p[1]]
                got = 0
                for p in winners:
                    got |= L.LANE[p[0]]
        else:                                # lanes share a bit: the lowest lane asking wins it
            got, winners = 0, []
            for p in pat.pairs:
                if free & p[1]:
                    free ^= p[1]
                    got |= L.LANE[p[0]]
                    winners.append(p)
            shared.free = free
        if winners:
            holder, pc = shared.holder, w.pc
            for lane, _, b, x in winners:
                holder[b] = (w.uid, lane, pc, x)
        if got != m and sim.watch is not None:
            sim.lock_failed(w, [(lane, b, x) for lane, _, b, x in pat.pairs if not got & L.LANE[lane]])
        if d != RZ:
            w.r[d][pat.lanes_np] = shared.words[pat.words_np]
        if pd != PT:
            put_pred(w, pd, L.to_array(got), m)
        return _lock_latency(env, pat)
    return run


def _addresses(w, base_reg: int, offset: int, m: int) -> tuple[list[int], list[int]]:
    """(lanes, byte addresses) of the active lanes, lowest lane first."""
    ls = L.lanes(m)
    if base_reg == RZ:
        return ls, [offset & MASK32] * len(ls)
    return ls, [(a + offset) & MASK32 for a in w.r[base_reg][ls].tolist()]


# ---- global and local memory ---------------------------------------------------------------

class GlobalPattern:
    """One warp's global access: per active lane its word index, and the 128-byte segments it
    touches (each segment one transaction). Cached like shared Patterns."""
    __slots__ = ("lanes", "lanes_np", "idx", "idx_np", "segments", "lines")

    def __init__(self, ls, addrs: list[int], gmem):
        self.lanes = tuple(ls)
        self.lanes_np = np.array(ls, dtype=np.intp)
        self.idx_np = gmem.index(np.array(addrs, dtype=np.int64), ls)
        self.idx = self.idx_np.tolist()
        self.segments = len({a >> 7 for a in addrs}) or 1
        self.lines = tuple(sorted({i >> 5 for i in self.idx}))     # L1 lines of 32 words


def _global_pattern_getter(env, base_reg: int, offset: int):
    gmem = env.sim.gmem
    cache: dict = env.patterns

    def get(w, m: int) -> GlobalPattern:
        row = w.r[base_reg] if base_reg != RZ else None
        key = ("g", row.tobytes() if row is not None else None, offset, m)
        pat = cache.get(key)
        if pat is None:
            pat = GlobalPattern(*_addresses(w, base_reg, offset, m), gmem)
            if len(cache) > 100_000:
                cache.clear()
            cache[key] = pat
        return pat
    return get


def _ld(ins, env):
    d = ins.operands[0].n
    mem: Mem = ins.operands[1]
    pattern = _global_pattern_getter(env, mem.base.n, mem.offset)
    sim = env.sim
    latency = env.config.global_latency
    cached = not ({"CG", "CV"} & set(ins.mods))      # LD and LD.CA go through L1

    def run(w, m):
        pat = pattern(w, m)
        values, extra = sim.mem.load(w, pat, cached)
        if d != RZ:
            w.r[d][pat.lanes_np] = values
        return latency + extra + pat.segments - 1
    return run


def _st(ins, env):
    mem: Mem = ins.operands[0]
    v = ins.operands[1].n
    pattern = _global_pattern_getter(env, mem.base.n, mem.offset)
    sim = env.sim

    def run(w, m):
        pat = pattern(w, m)
        sim.mem.store(w, pat, w.r[v][pat.lanes_np])
        return None
    return run


def _local_index(w, ls, addrs, local_bytes, sim):
    for lane, a in zip(ls, addrs):
        if a & 3 or a >= local_bytes:
            raise MemoryFault("local", a, lane, sim.bad_address_reason("local", a))
    return [a >> 2 for a in addrs]


def _ldl(ins, env):
    d = ins.operands[0].n
    mem: Mem = ins.operands[1]
    b, off = mem.base.n, mem.offset
    local_bytes = env.sim.kernel.local_bytes

    def run(w, m):
        ls, addrs = _addresses(w, b, off, m)
        idx = _local_index(w, ls, addrs, local_bytes, env.sim)
        if d != RZ:
            w.r[d][ls] = w.local[idx, ls]
    return run


def _stl(ins, env):
    mem: Mem = ins.operands[0]
    b, off = mem.base.n, mem.offset
    v = ins.operands[1].n
    local_bytes = env.sim.kernel.local_bytes

    def run(w, m):
        ls, addrs = _addresses(w, b, off, m)
        idx = _local_index(w, ls, addrs, local_bytes, env.sim)
        w.local[idx, ls] = w.r[v][ls]
    return run


def ftz_bits(x: int) -> int:
    """A binary32 word with a subnormal flushed to the zero of its sign (ATOM.ADD.F32.FTZ)."""
    return x & 0x80000000 if x & 0x7F800000 == 0 else x


def fadd_ftz(old: int, b: int) -> int:
    """ATOM/RED .ADD.F32.FTZ.RN on words: binary32 add, rounded to nearest even, with subnormal
    operands and result flushed to zero, as Fermi's (and PTX's atom.add.f32) is."""
    x, y = (np.array([ftz_bits(v)], dtype=U32).view(F32) for v in (old, b))
    with np.errstate(all="ignore"):
        return ftz_bits(int(float_bits(x + y)[0]))


def _atomic_op(op: str, signed: bool):
    def s(x):
        return x - (1 << 32) if signed and x & 0x80000000 else x
    return {
        "ADD": lambda old, b, c: (old + b) & MASK32,
        "MIN": lambda old, b, c: old if s(old) <= s(b) else b,
        "MAX": lambda old, b, c: old if s(old) >= s(b) else b,
        "INC": lambda old, b, c: 0 if old >= b else old + 1,
        "DEC": lambda old, b, c: b if old == 0 or old > b else old - 1,
        "AND": lambda old, b, c: old & b,
        "OR": lambda old, b, c: old | b,
        "XOR": lambda old, b, c: old ^ b,
        "EXCH": lambda old, b, c: b,
        "CAS": lambda old, b, c: c if old == b else old,
        "FADD": lambda old, b, c: fadd_ftz(old, b),
    }[op]


def _atom(ins, env, returns: bool = True):
    if "64" in ins.mods:
        return _atom64(ins, env)
    ops = ins.operands
    d = ops[0].n if returns else RZ
    mem: Mem = ops[1] if returns else ops[0]
    vb = (ops[2] if returns else ops[1]).n
    vc = ops[3].n if returns and len(ops) > 3 else RZ
    op = next(m for m in ins.mods if m not in ("E", "U32", "S32", "F32", "FTZ", "RN"))
    if "F32" in ins.mods:
        if op != "ADD":
            def refuse(w, m):
                raise InstructionError(f"`{ins.name}`: the only float atomic is ADD.F32")
            return refuse
        op = "FADD"
    fn = _atomic_op(op, "S32" in ins.mods)
    sim, cfg = env.sim, env.config
    gmem = sim.gmem

    def run(w, m):
        ls, addrs = _addresses(w, mem.base.n, mem.offset, m)
        idx = gmem.index(np.array(addrs, dtype=np.int64), ls).tolist()
        sim.mem.before_atomic(w, idx)                    # this SM's stores to the word come first
        words, pc = gmem.words, w.pc
        bs, cs = w.r[vb][ls].tolist(), w.r[vc][ls].tolist()
        results = []
        done = sim.now
        arrive = sim.now + cfg.atomic_latency // 2
        for lane, i, b, c in zip(ls, idx, bs, cs):
            old = int(words[i])
            new = fn(old, b, c)
            if new != old:
                sim.mem.atomic_wrote(w, i, new)
                words[i] = new
                gmem.writer[i] = (w.uid, lane, pc)
                sim.last_change = sim.now
            results.append(old)
            start = max(arrive, sim.l2_free.get(i, 0))       # one at a time per address, at L2
            sim.l2_free[i] = start + cfg.atomic_occupancy
            done = max(done, start + cfg.atomic_occupancy + cfg.atomic_latency // 2)
        sim.mem.after_atomic(w, ls, idx)
        if d != RZ:
            w.r[d][ls] = results
        if not returns:
            w.stores_done_at = max(w.stores_done_at, done)
            return None
        return done - sim.now
    return run


_ATOMIC64 = {
    "CAS": lambda old, b, c: c if old == b else old,
    "ADD": lambda old, b, c: (old + b) & ((1 << 64) - 1),
    "EXCH": lambda old, b, c: b,
}


def _atom64(ins, env):
    """ATOM.CAS.64 / .ADD.64 / .EXCH.64 Rd, [a], Rb[, Rc]: at L2, one lane at a time, the pair of words
    at a (low) and a + 4 (high) as one 64-bit integer becomes c where it holds b (CAS), old + b (ADD,
    wrapping) or b (EXCH); Rd gets what it held. Serialized on the low word's address; this SM's queued
    stores to both words go first (weak memory)."""
    ops = ins.operands
    d, mem, vb = ops[0].n, ops[1], ops[2].n
    vc = ops[3].n if len(ops) > 3 else RZ
    op = next((m for m in ins.mods if m in _ATOMIC64), None)
    if op is None:
        def refuse(w, m):
            raise InstructionError(f"`{ins.name}`: the 64-bit atomics are CAS.64, ADD.64 and EXCH.64")
        return refuse
    fn = _ATOMIC64[op]
    sim, cfg = env.sim, env.config
    gmem = sim.gmem

    def pair(w, n, ls):
        if n == RZ:
            return [0] * len(ls)
        return [lo | hi << 32 for lo, hi in zip(w.r[n][ls].tolist(), w.r[n + 1][ls].tolist())]

    def run(w, m):
        ls, addrs = _addresses(w, mem.base.n, mem.offset, m)
        lo = gmem.index(np.array(addrs, dtype=np.int64), ls).tolist()
        hi = gmem.index(np.array([(a + 4) & MASK32 for a in addrs], dtype=np.int64), ls).tolist()
        sim.mem.before_atomic(w, [x for both in zip(lo, hi) for x in both])
        words, pc = gmem.words, w.pc
        bs, cs = pair(w, vb, ls), pair(w, vc, ls)
        olds = ([], [])
        done = sim.now
        arrive = sim.now + cfg.atomic_latency // 2
        for k, (lane, i, j) in enumerate(zip(ls, lo, hi)):
            old = (int(words[i]), int(words[j]))
            new = fn(old[0] | old[1] << 32, bs[k], cs[k])
            for x, word, was in ((i, new & MASK32, old[0]), (j, new >> 32, old[1])):
                if word != was:
                    sim.mem.atomic_wrote(w, x, word)
                    words[x] = word
                    gmem.writer[x] = (w.uid, lane, pc)
                    sim.last_change = sim.now
            olds[0].append(old[0])
            olds[1].append(old[1])
            start = max(arrive, sim.l2_free.get(i, 0))       # one at a time per address, at L2
            sim.l2_free[i] = start + cfg.atomic_occupancy
            done = max(done, start + cfg.atomic_occupancy + cfg.atomic_latency // 2)
        sim.mem.after_atomic(w, [lane for lane in ls for _ in (0, 1)], [x for both in zip(lo, hi) for x in both])
        if d != RZ:
            w.r[d][ls] = olds[0]
            w.r[d + 1][ls] = olds[1]
        return done - sim.now
    return run


def _red(ins, env):
    return _atom(ins, env, returns=False)


def _membar(ins, env):
    sim = env.sim
    scope = ins.mods[0]

    def run(w, m):
        return sim.mem.fence(w, scope)
    return run


def _nop(ins, env):
    return _nothing


def _bpt(ins, env):
    def run(w, m):
        raise Trap(L.lowest(m))
    return run


def _halves(ins: Instruction) -> tuple[Instruction, Instruction]:
    """A .64 access as two word accesses: the low word at the address, the high one at address + 4,
    into (from) the pair's second register."""
    mods = tuple(m for m in ins.mods if m != "64")
    pairs = ins.pairs
    hi = tuple(SassReg(o.n + 1) if k in pairs and isinstance(o, SassReg) and o.n != RZ
               else Mem(o.base, o.offset + 4) if isinstance(o, Mem) else o for k, o in enumerate(ins.operands))
    return replace(ins, mods=mods), replace(ins, mods=mods, operands=hi)


def _wide(factory):
    """A memory instruction's factory, taking .64 too: the low word's access, then the high word's (a
    load whose destination pair holds its own address register reads the high word's address after
    the low word has landed: the emitter never gives it one); the later of their latencies."""
    def make(ins, env):
        if "64" not in ins.mods:
            return factory(ins, env)
        lo, hi = (factory(half, env) for half in _halves(ins))

        def run(w, m):
            a, b = lo(w, m), hi(w, m)
            return a if b is None else b if a is None else max(a, b)
        return run
    return make


# The table: opcode → factory(instruction, env) → run(warp, mask)
SEMANTICS: dict[str, Callable] = {
    "MOV": _mov, "MOV32I": _mov, "S2R": _s2r,
    "IADD": _iadd, "IADD32I": _iadd, "ISCADD": _iscadd, "IMUL": _imul, "IMAD": _imul,
    "SHL": _shl, "SHR": _shr, "LOP": _lop, "LOP32I": _lop, "IMNMX": _imnmx, "SEL": _sel, "POPC": _popc,
    "ISETP": _isetp, "PSETP": _psetp, "VOTE": _vote, "NOP": _nop,
    "FADD": _fbinary, "FMUL": _fbinary, "FFMA": _ffma, "FMNMX": _fmnmx, "FSETP": _fsetp,
    "F2I": _f2i, "I2F": _i2f, "F2F": _f2f, "MUFU": _mufu,
    "DADD": _dbinary, "DMUL": _dbinary, "DFMA": _dfma, "DMNMX": _dmnmx, "DSETP": _dsetp,
    "LDS": _wide(_lds), "STS": _wide(_sts), "LDSLK": _ldslk, "STSUL": _stsul,
    "LD": _wide(_ld), "ST": _wide(_st), "LDL": _wide(_ldl), "STL": _wide(_stl), "ATOM": _atom, "RED": _red, "MEMBAR": _membar,
    "BPT": _bpt,
}

# Opcodes the issue loop handles itself, by kind
CONTROL = {"BRA": Kind.BRA, "SSY": Kind.SSY, "PBK": Kind.PBK, "BRK": Kind.BRK, "EXIT": Kind.EXIT, "BAR": Kind.BAR,
           "WARPSYNC": Kind.WARPSYNC, "BSSY": Kind.BSSY, "BSYNC": Kind.BSYNC, "BREAK": Kind.BREAK,
           "YIELD": Kind.YIELD, "NANOSLEEP": Kind.NANOSLEEP}


# ---- decoding -----------------------------------------------------------------------------------

def _slots(ins: Instruction) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Scoreboard slots read and written (RZ and pt excluded)."""
    spec = ins.spec
    dests = spec.dests
    if ins.op == "BAR" and ins.mods[:1] == ("RED",):
        dests = 1
    reads, writes = [], []
    pairs = ins.pairs
    for i, o in enumerate(ins.operands):
        target = writes if i < dests else reads
        if isinstance(o, SassReg) and o.n != RZ:
            target.append(o.n)
            if i in pairs:
                target.append(o.n + 1)
        elif isinstance(o, Pred) and o.n != PT:
            target.append(64 + o.n)
        elif isinstance(o, Mem) and o.base.n != RZ:
            reads.append(o.base.n)
    if ins.op == "IADD" and "X" in ins.mods:
        reads.append(64 + CARRY)
    if ins.op == "IADD" and "CC" in ins.mods:
        writes.append(64 + CARRY)
    if ins.guard is not None and ins.guard.n != PT:
        reads.append(64 + ins.guard.n)
    return tuple(dict.fromkeys(reads)), tuple(dict.fromkeys(writes))


def _static(ins: Instruction) -> tuple:
    """What decoding takes from the instruction alone: scoreboard slots, guard, kind, target."""
    reads, writes = _slots(ins)
    guard, neg = None, False
    if ins.guard is not None:
        if ins.guard.n == PT and not ins.guard.neg:
            guard = None
        else:
            guard, neg = ins.guard.n, ins.guard.neg
    kind = CONTROL.get(ins.op, Kind.OP)
    target = next((o.addr for o in ins.operands if hasattr(o, "addr")), -1)
    return reads, writes, guard, neg, kind, target, tuple(dict.fromkeys(reads + writes))


_DECODED: dict[tuple, tuple[Decoded, ...]] = {}   # (id(kernel), latencies) → decode(), while the kernel lives


def decode(kernel: SassKernel, latencies: dict[str, int], default_latency: int) -> tuple[Decoded, ...]:
    """One Decoded per instruction, its latency its unit's (`default_latency` for a unit not in
    `latencies`) and `run` None (bound_semantics sets it). The records are frozen and shared by
    every launch of the kernel with these latencies (a property test launches one thousands of
    times), so they are decoded once."""
    key = (id(kernel), tuple(sorted(latencies.items())), default_latency)
    code = _DECODED.get(key)
    if code is None:
        code = tuple(Decoded(ins, kind, None, guard, neg, ins.sync, reads, writes, ins.spec.unit,
                             ins.spec.unit == "membar", target,
                             latencies.get(ins.spec.unit, default_latency), deps)
                     for ins, (reads, writes, guard, neg, kind, target, deps)
                     in zip(kernel.instrs, map(_static, kernel.instrs)))
        try:
            weakref.finalize(kernel, _DECODED.pop, key, None)
        except TypeError:                   # not weakly referable: nothing tells when its id is reused
            return code
        _DECODED[key] = code
    return code


def bound_semantics(code: tuple[Decoded, ...], env: Env) -> tuple[Decoded, ...]:
    """The records with every ordinary instruction's `run` for this launch's constant bank. The
    reference engine needs them; a launch on the compiled core never does (binding was about 40%
    of its setup)."""
    if all(d.run is not None or d.kind is not Kind.OP for d in code):
        return code
    return tuple(replace(d, run=SEMANTICS[d.ins.op](d.ins, env)) if d.kind is Kind.OP else d for d in code)


def operand_value(o, w, env: Env) -> np.ndarray:
    """An operand's per-lane values as uint32 (for BAR ids/counts and WARPSYNC masks)."""
    if isinstance(o, SassReg):
        return w.r[o.n]
    if isinstance(o, (SassImm, ConstBankWord)):
        return np.full(32, immediate(o, env) & MASK32, dtype=U32)
    raise TypeError(o)


__all__ = ["Decoded", "Env", "InstructionError", "Trap", "SEMANTICS", "CONTROL", "bound_semantics", "decode", "operand_value", "put_reg", "put_pred",
           "CondCode", "Special"]
