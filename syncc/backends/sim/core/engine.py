"""The compiled core: the reference simulator's main loop, issue and instruction semantics (SIMT
stack or independent thread scheduling) over flat arrays, compiled to native code by numba (and
cached on disk, so a launch pays no compile).

    event = advance(S)       # S: bridge.State, the whole machine as arrays; returns an EV_* code

It runs cycle after cycle exactly as simulator.Simulator.advance does, in the same order (SMs,
then schedulers, the same picks, the same latencies, the same memory model), and returns to
Python only for what Python must see: a block that finished (its SM takes new blocks), a check
for a quiet machine (livelock fingerprints, progress), a fault, or the end. The loop's place is
kept in S.G, so a run resumes where it stopped, in the middle of a cycle if need be.

Every step mirrors a method of the reference and says which; a change to one is a change to
both, and tests/engines/test_engines.py compares the two on every program it can find.

The engine is one file on purpose: numba's disk cache notices an edit only in the file of the
function it compiled, so a callee in another file could change under a stale cached caller.
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir as llvm
from numba import njit, types
from numba.core import cgutils
from numba.core.datamodel import models, register_default
from numba.core.extending import intrinsic
from numba.core.imputils import lower_getattr_generic
from numba.core.typing.templates import AttributeTemplate, infer_getattr

from .layout import (
    OP_MOV, OP_MOV32I, OP_S2R, OP_IADD, OP_IADD32I, OP_ISCADD, OP_IMUL, OP_IMAD, OP_SHL, OP_SHR,
    OP_LOP, OP_LOP32I, OP_IMNMX, OP_SEL, OP_ISETP, OP_PSETP, OP_VOTE, OP_NOP, OP_LDS, OP_STS, OP_LDSLK,
    OP_STSUL, OP_LD, OP_ST, OP_LDL, OP_STL, OP_ATOM, OP_RED, OP_MEMBAR, OP_BPT, OP_BRA, OP_SSY, OP_PBK,
    OP_BRK, OP_EXIT, OP_BAR, OP_BSSY, OP_BSYNC, OP_BREAK, OP_WARPSYNC, OP_YIELD, OP_NANOSLEEP,
    OP_FADD, OP_FMUL, OP_FFMA, OP_FMNMX, OP_FSETP, OP_F2I, OP_I2F, OP_F2F, OP_MUFU,
    OP_DADD, OP_DMUL, OP_DFMA, OP_DMNMX, OP_DSETP, WIDE_FIRST, WIDE_SOURCE, T_WIDE, CARRY, CARRY_IN, CARRY_OUT,
    T_OP, T_KIND, T_GUARD, T_GNEG, T_SYNC, T_MEMBAR, T_TARGET, T_LAT, T_D, T_D2, T_MODE, T_MODE2,
    T_SIGNED, T_HI, T_MEMBASE, T_MEMOFF, T_DEPS, T_NDEPS, T_WRITES, T_NWRITES, T_A, T_HUNT,
    OPERAND, O_NONE, O_REG, O_PRED,
    R_DEP, R_MEMBAR, R_STACK, R_BRANCH, R_BARRIER, R_NOTSEL, R_SLEEP,
    W_UID, W_PC, W_ACTIVE, W_EXITED, W_READY, W_LAST, W_ISSUED, W_REASON, W_WAIT, W_STORES, W_SP,
    W_SCHED, W_BLOCK, W_SM, W_INDEX,
    W_PRESENT, W_CURRENT, W_YIELDED, W_NSPLITS, W_NBSYNC, W_NWARPSYNC, W_NSLEEP, W_SEQ,
    WAIT_NONE, WAIT_BAR, WAIT_DONE, WAIT_SYNC, WAIT_SLEEP,
    CONVERGENCE_BARRIERS, SP_PC, SP_LANES, SP_SEQ, BS_BARRIER, BS_PC, BS_LANES, WS_PC, WS_LANES, WS_NEED,
    SL_WAKE, SL_PC, SL_LANES,
    G_NOW, G_WI, G_TI, G_LAST_CHANGE, G_CHECK_AT, G_SM, G_SCHED, G_ISSUED, G_SOONEST, G_PENDING,
    G_EVENT, G_EVENT_ARG, G_LIVE_BLOCKS, G_UNTIL, G_NEXT_DRAIN, G_SEQ, G_HITS, G_MISSES, G_LASTW,
    G_LASTPC, G_L1_SEQ, G_LOGGED,
    INF,
    EV_FINISHED, EV_DEADLOCK, EV_BUDGET, EV_CHECK, EV_BLOCK_DONE, EV_ERROR, EV_GROW, EV_LOG,
    N_FREE, N_USED, N_HEAP,
    C_SCHEDULERS, C_POLICY, C_WEAK, C_SEED, C_SHARED_LAT, C_SHARED_REPLAY, C_LOCK_REPLAY, C_GLOBAL_LAT,
    C_GSTORE_LAT, C_L1_LAT, C_L1_LINES, C_SM_JITTER, C_STORE_JITTER, C_STRAGGLER_EVERY,
    C_STRAGGLER_DELAY, C_ATOMIC_LAT, C_ATOMIC_OCC, C_MEMBAR_CTA, C_MEMBAR_GL, C_BRANCH, C_STACK,
    C_BARRIER_LAT, C_NAMED_BARRIERS, C_BANKS, C_LOCK_BITS, C_SHARED_BYTES, C_LOCAL_BYTES, C_SMS,
    C_BLOCK_X, C_BLOCK_Y, C_GLOBAL_BASE, C_NGLOBAL, C_PREEMPT_EVERY, C_PREEMPT_CYCLES, C_TRACE,
    C_LOG_ROOM, C_CLOCK_MHZ, C_ITS, C_HUNT,
    P_RANDOM, P_RANKED, MT_WORDS,
    B_LIVE, B_BASE, B_X, B_NWARPS, B_STAMPS,
    BAR_PRESENT, BAR_EXPECTED, BAR_ARRIVED, BAR_POPC, BAR_ALL, BAR_ANY, BAR_STORES, BAR_NWAIT,
    BAR_STAMP,
    BW_WARP, BW_DEST, BW_RED, BW_PC, BW_LANES,
    S_N, S_LAST, S_WAKE, S_PREEMPT,
    TRACE_ISSUES,
    LOG_ISSUED, LOG_DIVERGED, LOG_BARRIER_WAIT, LOG_BARRIER_RELEASED, LOG_WARP_FINISHED,
    L_KIND, L_NOW, L_SLOT, L_PC, L_ACTIVE, L_ISSUED, L_ARG, L_HELD, L_TAKEN,
    E_OFF_END, E_BRA_U, E_BAR_ID, E_SYNC_EMPTY, E_OVERFLOW, E_SHARED, E_GLOBAL, E_LOCAL, E_TRAP,
    E_NEEDS_ITS, E_STACK_IN_ITS, E_SYNC_IN_ITS, E_ITS_BRA_U,
    MAX_STACK, SSY, PBK, DIV,
)

M32 = 0xFFFFFFFF
P61 = (1 << 61) - 1
NAN32 = 0x7FFFFFFF          # execute.NAN32: the NaN every float instruction writes
NAN64 = 0x7FFFFFFFFFFFFFFF  # execute.NAN64: the NaN every binary64 instruction writes
SIGN64 = -(1 << 63)         # the sign bit of an int64 pattern


# ---- the machine by reference ------------------------------------------------------------------
# numba passes a tuple by value, flattened: bridge.State's ~60 arrays become about 470 arguments,
# copied onto the stack at every call that LLVM does not inline (issue, alu, shared_op, ...), which
# was most of a launch's time. advance() puts the State on its stack once and every callee gets a
# pointer to it; `S.W` reads the one field. (Here, not in a file of its own: the cache notices an
# edit only in this file.)

class StateRef(types.Type):
    """A pointer to a State tuple on advance()'s stack; its fields read as the tuple's."""

    def __init__(self, state):
        self.dtype = state                   # models.PointerModel points at the tuple's data
        super().__init__(name=f"StateRef({state})")


register_default(StateRef)(models.PointerModel)


@infer_getattr
class _StateRefFields(AttributeTemplate):
    key = StateRef

    def generic_resolve(self, ref, attr):
        state = ref.dtype
        if attr in state.fields:
            return state.types[state.fields.index(attr)]


@lower_getattr_generic(StateRef)
def _state_ref_field(context, builder, ref_type, ref, attr):
    state = ref_type.dtype
    k = state.fields.index(attr)
    field = cgutils.gep_inbounds(builder, ref, 0, k)
    return context.data_model_manager[state.types[k]].load_from_data_pointer(builder, field)


@intrinsic
def by_ref(typingctx, state):
    """The State on this function's stack, as a StateRef (valid until this function returns)."""
    def codegen(context, builder, signature, args):
        model = context.data_model_manager[state]
        slot = cgutils.alloca_once(builder, model.get_data_type())
        builder.store(model.as_data(builder, args[0]), slot)
        return slot
    return StateRef(state)(state), codegen


# ---- bit patterns of floats (LLVM bitcasts: no array, no NRT) ----------------------------------

@intrinsic
def f32_from_bits(typingctx, x):
    """The binary32 value of the low 32 bits of an integer."""
    def codegen(context, builder, signature, args):
        v = args[0]
        width = v.type.width
        if width > 32:
            v = builder.trunc(v, llvm.IntType(32))
        elif width < 32:
            v = builder.zext(v, llvm.IntType(32))
        return builder.bitcast(v, llvm.FloatType())
    return types.float32(x), codegen


@intrinsic
def f32_to_bits(typingctx, x):
    """A binary32 value's word, as an int64 (0 .. 2^32 - 1)."""
    def codegen(context, builder, signature, args):
        return builder.zext(builder.bitcast(args[0], llvm.IntType(32)), llvm.IntType(64))
    return types.int64(types.float32), codegen


@intrinsic
def f64_to_bits(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], llvm.IntType(64))
    return types.int64(types.float64), codegen


@intrinsic
def f64_from_bits(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], llvm.DoubleType())
    return types.float64(types.int64), codegen


@intrinsic
def fma64(typingctx, a, b, c):
    """a * b + c rounded once to binary64: LLVM's llvm.fma.f64 (the machine's FMA, or libm's fma)."""
    def codegen(context, builder, signature, args):
        double = llvm.DoubleType()
        fn = builder.module.declare_intrinsic("llvm.fma", [double], llvm.FunctionType(double, [double] * 3))
        return builder.call(fn, args)
    return types.float64(types.float64, types.float64, types.float64), codegen


# ---- lanes ------------------------------------------------------------------------------------

@njit(cache=True, _nrt=False)
def popcount(x):
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return (x * 0x01010101 & M32) >> 24


@njit(cache=True, _nrt=False)
def lowest(m):
    k = 0
    while not (m >> k) & 1:
        k += 1
    return k


@njit(cache=True, _nrt=False)
def pred_mask(preds, w, p, neg):
    """A predicate register as a lane mask (bit i = lane i)."""
    out = 0
    row = preds[w, p]
    for lane in range(32):
        if row[lane]:
            out |= 1 << lane
    return (~out & M32) if neg else out


@njit(cache=True, _nrt=False)
def insertion_sort(a, n):
    for k in range(1, n):
        v = a[k]
        j = k - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@njit(cache=True, _nrt=False)
def add_distinct(a, count, v):
    """Append v to the first `count` entries of a unless it is among them; the new count."""
    for j in range(count):
        if a[j] == v:
            return count
    a[count] = v
    return count + 1


# ---- operands (execute._unsigned / _signed / _pred) -------------------------------------------

@njit(cache=True, _nrt=False)
def src(T, i, k, regs, preds, w, lane):
    c = T_A + OPERAND * k
    t = T[i, c]
    if t == O_REG:
        v = np.int64(regs[w, T[i, c + 1], lane])
        if T[i, c + 2]:
            v = -v & M32
        elif T[i, c + 3]:
            v = ~v & M32
        return v
    if t == O_PRED:
        b = preds[w, T[i, c + 1], lane]
        return np.int64(not b if T[i, c + 2] else b)
    return T[i, c + 1]


@njit(cache=True, _nrt=False)
def addend(T, i, k, regs, w, lane):
    """execute._addend: an IADD source in a sum with carry: -R is ~R + 1 (so -0 carries), ~R is ~R."""
    c = T_A + OPERAND * k
    if T[i, c] == O_REG:
        v = np.int64(regs[w, T[i, c + 1], lane])
        if T[i, c + 2]:
            return (~v & M32) + 1
        if T[i, c + 3]:
            return ~v & M32
        return v
    return T[i, c + 1]


@njit(cache=True, _nrt=False)
def signed(v):
    return v - (1 << 32) if v & 0x80000000 else v


@njit(cache=True, _nrt=False)
def combine(op, a, b):
    if op == 0:
        return a and b
    if op == 1:
        return a or b
    return a != b


@njit(cache=True, _nrt=False)
def compare(cmp, a, b):
    if cmp == 0:
        return a < b
    if cmp == 1:
        return a == b
    if cmp == 2:
        return a <= b
    if cmp == 3:
        return a > b
    if cmp == 4:
        return a != b
    if cmp == 5:
        return a >= b
    return cmp == 7


# ---- ordinary instructions (execute.SEMANTICS) ---------------------------------------------------

@njit(cache=True, _nrt=False)
def alu(S, T, i, w, m):
    """Every instruction without memory: write the lanes of m (RZ and pt are never written)."""
    regs, preds = S.regs, S.preds
    op, d = T[i, T_OP], T[i, T_D]
    if op == OP_ISETP or op == OP_PSETP or op == OP_FSETP or op == OP_DSETP:
        d2, mode, comb = T[i, T_D2], T[i, T_MODE], T[i, T_MODE2]
        for lane in range(32):
            if not (m >> lane) & 1:
                continue
            if op == OP_FSETP:
                t = float_test(mode, fsrc(T, i, 0, regs, w, lane), fsrc(T, i, 1, regs, w, lane))
            elif op == OP_DSETP:
                t = float_test(mode, dsrc(T, i, 0, regs, w, lane), dsrc(T, i, 1, regs, w, lane))
            elif op == OP_ISETP:
                a, b = src(T, i, 0, regs, preds, w, lane), src(T, i, 1, regs, preds, w, lane)
                if T[i, T_SIGNED]:
                    a, b = signed(a), signed(b)
                t = compare(mode, a, b)
            else:
                t = combine(mode, src(T, i, 0, regs, preds, w, lane) != 0, src(T, i, 1, regs, preds, w, lane) != 0)
            c = src(T, i, 2, regs, preds, w, lane) != 0
            if d != 7:
                preds[w, d, lane] = combine(comb, t, c)
            if d2 != 7:
                preds[w, d2, lane] = combine(comb, not t, c)
        return -1
    if op == OP_VOTE:
        mask = 0
        for lane in range(32):
            if src(T, i, 0, regs, preds, w, lane):
                mask |= 1 << lane
        mask &= m
        kind, d2 = T[i, T_MODE], T[i, T_D2]
        v = mask != 0 if kind == 0 else (mask == m if kind == 1 else (mask == 0 or mask == m))
        for lane in range(32):
            if (m >> lane) & 1:
                if d != 63:
                    regs[w, d, lane] = mask
                if d2 != 7:
                    preds[w, d2, lane] = v
        return -1
    if op == OP_IADD and T[i, T_MODE] != 0:                  # IADD.CC / IADD.X: a sum with the carry flag
        for lane in range(32):
            if (m >> lane) & 1:
                total = addend(T, i, 0, regs, w, lane) + addend(T, i, 1, regs, w, lane)
                if T[i, T_MODE] & CARRY_IN:
                    total += preds[w, CARRY, lane]
                if d != 63:
                    regs[w, d, lane] = total & M32
                if T[i, T_MODE] & CARRY_OUT:
                    preds[w, CARRY, lane] = (total >> 32) != 0
        return -1
    if d == 63 or op == OP_NOP:
        return -1
    if T[i, T_WIDE] & WIDE_FIRST:                           # a register pair: both words
        for lane in range(32):
            if (m >> lane) & 1:
                bits = darith(T, i, op, regs, preds, w, lane)
                regs[w, d, lane] = bits & M32
                regs[w, d + 1, lane] = (bits >> 32) & M32
        return -1
    for lane in range(32):
        if not (m >> lane) & 1:
            continue
        if op == OP_S2R:
            v = special(S, T[i, T_MODE], w, lane)
        elif op >= OP_FADD:
            v = farith(T, i, op, regs, preds, w, lane)
        else:
            v = arith(T, i, op, regs, preds, w, lane)
        regs[w, d, lane] = v
    return -1


@njit(cache=True, _nrt=False)
def special(S, which, w, lane):
    W, cfg = S.W, S.cfg
    if which <= 2:
        t = 32 * W[w, W_INDEX] + lane
        bx, by = cfg[C_BLOCK_X], cfg[C_BLOCK_Y]
        return (t % bx, (t // bx) % by, t // (bx * by))[which] & M32
    if which <= 5:
        return S.B[W[w, W_BLOCK], B_X + which - 3]
    if which == 6:
        return lane
    if which == 7:
        return (1 << lane) - 1
    now = S.G[G_NOW]
    if which == 10:
        return (now * 1000 // cfg[C_CLOCK_MHZ]) & M32
    return now & M32 if which == 8 else (now >> 32) & M32


@njit(cache=True, _nrt=False)
def arith(T, i, op, regs, preds, w, lane):
    a = src(T, i, 0, regs, preds, w, lane)
    b = src(T, i, 1, regs, preds, w, lane)
    if op == OP_MOV or op == OP_MOV32I:
        return a
    if op == OP_IADD or op == OP_IADD32I:
        return (a + b) & M32
    if op == OP_ISCADD:
        return ((a << (src(T, i, 2, regs, preds, w, lane) & 31)) + b) & M32
    if op == OP_IMUL or op == OP_IMAD:
        if T[i, T_HI]:
            if T[i, T_SIGNED]:
                p = (signed(a) * signed(b)) >> 32
            else:
                p = np.int64((np.uint64(a) * np.uint64(b)) >> np.uint64(32))
            p &= M32
        else:
            p = (a * b) & M32
        if op == OP_IMAD:
            p = (p + src(T, i, 2, regs, preds, w, lane)) & M32
        return p
    if op == OP_SHL:
        return (a << b) & M32 if b < 32 else 0
    if op == OP_SHR:
        if not T[i, T_SIGNED]:
            return a >> b if b < 32 else 0
        return (signed(a) >> min(b, 31)) & M32
    if op == OP_LOP or op == OP_LOP32I:
        k = T[i, T_MODE]
        return a & b if k == 0 else (a | b if k == 1 else (a ^ b if k == 2 else b))
    if op == OP_IMNMX:
        c = src(T, i, 2, regs, preds, w, lane)
        x, y = (signed(a), signed(b)) if T[i, T_SIGNED] else (a, b)
        return (min(x, y) if c else max(x, y)) & M32
    if op == OP_SEL:
        return a if src(T, i, 2, regs, preds, w, lane) else b
    return popcount(a & b)                                   # POPC


# ---- binary32 (execute's _float, float_bits, fma32, minnum, float_test, float_to_int) -----------

@njit(cache=True, _nrt=False)
def fsrc(T, i, k, regs, w, lane):
    """Operand k as binary32: a register's word (-R flips its sign bit) or an immediate's."""
    c = T_A + OPERAND * k
    if T[i, c] == O_REG:
        v = np.int64(regs[w, T[i, c + 1], lane])
        if T[i, c + 2]:
            v ^= 0x80000000
        return f32_from_bits(v)
    return f32_from_bits(T[i, c + 1])


@njit(cache=True, _nrt=False)
def fbits(x):
    return NAN32 if x != x else f32_to_bits(x)


@njit(cache=True, _nrt=False)
def fma32(a, b, c):
    """a * b + c rounded once: exact product in binary64, two-sum, round to odd, then to binary32."""
    p = np.float64(a) * np.float64(b)
    c64 = np.float64(c)
    s = p + c64
    bv = s - p
    err = (p - (s - bv)) + (c64 - bv)
    if err != 0.0 and math.isfinite(s):
        raw = f64_to_bits(s)
        if raw & 1 == 0:
            s = f64_from_bits(raw + 1 if (err > 0.0) == (s > 0.0) else raw - 1)
    return np.float32(s)


@njit(cache=True, _nrt=False)
def minnum(a, b, least):
    if least:
        take_a = a < b or b != b or (a == b and f32_to_bits(a) >> 31 == 1)
    else:
        take_a = a > b or b != b or (a == b and f32_to_bits(a) >> 31 == 0)
    return a if take_a else b


@njit(cache=True, _nrt=False)
def float_test(code, a, b):
    if a != a or b != b:
        return (code & 8) != 0
    return (a < b and (code & 1) != 0) or (a == b and (code & 2) != 0) or (a > b and (code & 4) != 0)


@njit(cache=True, _nrt=False)
def float_to_int(x, sgn):
    if x != x:
        return 0
    v = np.float64(x)
    lo, hi = (-2147483648.0, 2147483647.0) if sgn else (0.0, 4294967295.0)
    v = min(max(v, lo), hi)
    return np.int64(v) & M32                              # int64() truncates toward zero


@njit(cache=True, _nrt=False)
def truncate_to_f32(v):
    """execute.truncate_to_f32: a positive binary64 as a binary32 word, toward zero, below normal +0."""
    raw = f64_to_bits(v)
    e = (raw >> 52) - 1023 + 127
    if e <= 0:
        return 0
    return (e << 23) | ((raw >> 29) & 0x7FFFFF)


@njit(cache=True, _nrt=False)
def mufu(rsq, x):
    """execute.mufu on one word: MUFU.RCP (rsq false) or MUFU.RSQ."""
    sign, mag = x & 0x80000000, x & 0x7FFFFFFF
    if mag > 0x7F800000:
        return NAN32
    if mag < 0x00800000:
        return sign | 0x7F800000
    v = np.float64(f32_from_bits(mag))
    if not rsq:
        return sign if mag == 0x7F800000 else sign | truncate_to_f32(1.0 / v)
    if sign:
        return NAN32
    return truncate_to_f32(1.0 / math.sqrt(v))


@njit(cache=True, _nrt=False)
def mufu64h(rsq, x):
    """execute.mufu64h on one word: MUFU.RCP64H (rsq false) or MUFU.RSQ64H."""
    sign, mag = x & 0x80000000, x & 0x7FFFFFFF
    if mag > 0x7FF00000:
        return NAN32
    if mag < 0x00100000:
        return sign | 0x7FF00000
    if not rsq:
        if mag == 0x7FF00000:
            return sign
        return sign | ((f64_to_bits(1.0 / f64_from_bits(mag << 32)) >> 32) & M32)
    if sign:
        return NAN32
    return (f64_to_bits(1.0 / math.sqrt(f64_from_bits(mag << 32))) >> 32) & M32


@njit(cache=True, _nrt=False)
def farith(T, i, op, regs, preds, w, lane):
    """FADD, FMUL, FFMA, FMNMX, F2I, I2F, F2F, MUFU on one lane: the result word."""
    if op == OP_MUFU:
        if T[i, T_MODE] >= 2:
            return mufu64h(T[i, T_MODE] == 3, src(T, i, 0, regs, preds, w, lane))
        return mufu(T[i, T_MODE] == 1, src(T, i, 0, regs, preds, w, lane))
    if op == OP_I2F:
        if T[i, T_WIDE] & WIDE_SOURCE:                       # I2F.F32.S64/.U64: rounded once
            a = isrc64(T, i, 0, regs, w, lane)
            return fbits(np.float32(a) if T[i, T_SIGNED] else np.float32(np.uint64(a)))
        a = src(T, i, 0, regs, preds, w, lane)
        v = np.float64(signed(a)) if T[i, T_SIGNED] else np.float64(a)
        return fbits(np.float32(v))
    if op == OP_F2I or op == OP_F2F:
        if T[i, T_WIDE] & WIDE_SOURCE:
            v = dsrc(T, i, 0, regs, w, lane)
        else:
            v = np.float64(fsrc(T, i, 0, regs, w, lane))
        if op == OP_F2I:
            return float_to_int(v, T[i, T_SIGNED])
        return fbits(np.float32(integral(T[i, T_MODE], v)))
    x = fsrc(T, i, 0, regs, w, lane)
    y = fsrc(T, i, 1, regs, w, lane)
    if op == OP_FADD:
        return fbits(x + y)
    if op == OP_FMUL:
        return fbits(x * y)
    if op == OP_FFMA:
        return fbits(fma32(x, y, fsrc(T, i, 2, regs, w, lane)))
    return fbits(minnum(x, y, src(T, i, 2, regs, preds, w, lane) != 0))      # FMNMX


@njit(cache=True, _nrt=False)
def integral(mode, v):
    """F2F's rounding of a binary64 value: FLOOR, CEIL, TRUNC (isa.F2F_ROUND), or 3: none."""
    if mode == 0:
        return np.floor(v)
    if mode == 1:
        return np.ceil(v)
    if mode == 2:
        return np.trunc(v)
    return v


# ---- binary64 in register pairs (execute's _double, double_bits, dfma; minnum on binary64) ----------

@njit(cache=True, _nrt=False)
def dsrc(T, i, k, regs, w, lane):
    """Operand k as binary64: a register pair (RZ: +0.0; -R flips its sign bit)."""
    c = T_A + OPERAND * k
    n = T[i, c + 1]
    if n == 63:
        return 0.0
    v = np.int64(regs[w, n, lane]) | (np.int64(regs[w, n + 1, lane]) << 32)
    if T[i, c + 2]:
        v ^= SIGN64
    return f64_from_bits(v)


@njit(cache=True, _nrt=False)
def isrc64(T, i, k, regs, w, lane):
    """Operand k as a 64-bit integer's pattern: a register pair (RZ: 0)."""
    n = T[i, T_A + OPERAND * k + 1]
    if n == 63:
        return np.int64(0)
    return np.int64(regs[w, n, lane]) | (np.int64(regs[w, n + 1, lane]) << 32)


@njit(cache=True, _nrt=False)
def float_to_int64(x, sgn):
    """execute.float_to_int64: toward zero, saturating, NaN to 0, as a 64-bit pattern."""
    if x != x:
        return np.int64(0)
    t = np.trunc(x)
    if sgn:
        if t >= 9223372036854775808.0:
            return np.int64(9223372036854775807)
        if t < -9223372036854775808.0:
            return np.int64(-9223372036854775807 - 1)
        return np.int64(t)
    if t >= 18446744073709551616.0:
        return np.int64(-1)
    if t <= 0.0:
        return np.int64(0)
    return np.int64(np.uint64(t))


@njit(cache=True, _nrt=False)
def dbits(x):
    return NAN64 if x != x else f64_to_bits(x)


@njit(cache=True, _nrt=False)
def dminnum(a, b, least):
    if least:
        take_a = a < b or b != b or (a == b and f64_to_bits(a) < 0)
    else:
        take_a = a > b or b != b or (a == b and f64_to_bits(a) >= 0)
    return a if take_a else b


@njit(cache=True, _nrt=False)
def darith(T, i, op, regs, preds, w, lane):
    """DADD, DMUL, DFMA, DMNMX, and I2F / F2F to binary64, on one lane: the result's 64-bit pattern."""
    if op == OP_I2F:
        if T[i, T_WIDE] & WIDE_SOURCE:                       # I2F.F64.S64/.U64: rounded once
            a = isrc64(T, i, 0, regs, w, lane)
            return dbits(np.float64(a) if T[i, T_SIGNED] else np.float64(np.uint64(a)))
        a = src(T, i, 0, regs, preds, w, lane)
        return dbits(np.float64(signed(a)) if T[i, T_SIGNED] else np.float64(a))
    if op == OP_F2I:                                         # F2I.S64/.U64: a pair's integer
        if T[i, T_WIDE] & WIDE_SOURCE:
            x = dsrc(T, i, 0, regs, w, lane)
        else:
            x = np.float64(fsrc(T, i, 0, regs, w, lane))
        return float_to_int64(x, T[i, T_SIGNED])
    if op == OP_F2F:
        if T[i, T_WIDE] & WIDE_SOURCE:
            x = dsrc(T, i, 0, regs, w, lane)
        else:
            x = np.float64(fsrc(T, i, 0, regs, w, lane))
        return dbits(integral(T[i, T_MODE], x))
    x, y = dsrc(T, i, 0, regs, w, lane), dsrc(T, i, 1, regs, w, lane)
    if op == OP_DADD:
        return dbits(x + y)
    if op == OP_DMUL:
        return dbits(x * y)
    if op == OP_DFMA:
        return dbits(fma64(x, y, dsrc(T, i, 2, regs, w, lane)))
    return dbits(dminnum(x, y, src(T, i, 2, regs, preds, w, lane) != 0))     # DMNMX


@njit(cache=True, _nrt=False)
def ftz_bits(x):
    return x & 0x80000000 if x & 0x7F800000 == 0 else x


@njit(cache=True, _nrt=False)
def fadd_ftz(old, b):
    """execute.fadd_ftz: ATOM.ADD.F32.FTZ.RN on words."""
    return ftz_bits(fbits(f32_from_bits(ftz_bits(old)) + f32_from_bits(ftz_bits(b))))


# ---- faults: the bridge raises the reference's exception from ERR ------------------------------

@njit(cache=True, _nrt=False)
def fail(S, code, lane, addr, why):
    S.ERR[0], S.ERR[1], S.ERR[2], S.ERR[3] = code, lane, addr, why
    return EV_ERROR


# ---- shared memory and the lock unit (execute.Pattern, _lds, _sts, _ldslk) -------------------------

@njit(cache=True, _nrt=False)
def shared_pattern(S, T, i, w, m, half):
    """Fill S.LANES / S.WORDS with the active lanes and their SM words; (count, transactions,
    lock transactions, distinct bits), or count -1 after a fault."""
    W, cfg, lanes, words = S.W, S.cfg, S.LANES, S.WORDS
    base_reg, off = T[i, T_MEMBASE], T[i, T_MEMOFF] + 4 * half
    size, base = cfg[C_SHARED_BYTES], S.B[W[w, W_BLOCK], B_BASE]
    n = 0
    for lane in range(32):
        if not (m >> lane) & 1:
            continue
        a = (np.int64(S.regs[w, base_reg, lane]) + off) & M32 if base_reg != 63 else off & M32
        if a & 3 or a >= size:
            fail(S, E_SHARED, lane, a, 0 if a & 3 else 1)
            return -1, 0, 0, False
        lanes[n] = lane
        words[n] = (base + a) >> 2
        n += 1
    banks, nbits, order, count = cfg[C_BANKS], cfg[C_LOCK_BITS], S.SORTED, S.BANKS
    # bank conflicts: the most distinct words any one bank must serve
    for k in range(n):
        order[k] = words[k]
    insertion_sort(order, n)
    transactions = 1
    for k in range(n):
        if k == 0 or order[k] != order[k - 1]:
            b = order[k] % banks
            count[b] += 1
            transactions = max(transactions, count[b])
    for k in range(n):
        count[order[k] % banks] = 0
    # the lock unit: the most lanes on one lock bit
    for k in range(n):
        order[k] = words[k] & (nbits - 1)
    insertion_sort(order, n)
    locks, run = 1, 1
    for k in range(1, n):
        run = run + 1 if order[k] == order[k - 1] else 1
        locks = max(locks, run)
    distinct = locks == 1
    return n, transactions, locks, distinct


@njit(cache=True, _nrt=False)
def shared_latency(cfg, transactions):
    return cfg[C_SHARED_LAT] + cfg[C_SHARED_REPLAY] * (transactions - 1)


@njit(cache=True, _nrt=False)
def lock_latency(cfg, transactions, locks):
    return cfg[C_SHARED_LAT] + max(cfg[C_SHARED_REPLAY] * (transactions - 1), cfg[C_LOCK_REPLAY] * (locks - 1))


@njit(cache=True, _nrt=False)
def shared_op(S, T, i, w, m, half):
    """LDS, STS, STSUL, LDSLK: the latency, or -2 after a fault (half 1: a .64 access's high word)."""
    n, transactions, locks, distinct = shared_pattern(S, T, i, w, m, half)
    if n < 0:
        return -2
    W, cfg, lanes, words = S.W, S.cfg, S.LANES, S.WORDS
    sm, op, d = W[w, W_SM], T[i, T_OP], pair_half(T[i, T_D], half)
    smem = S.shared[sm]
    if op == OP_LDS:
        if d != 63:
            for k in range(n):
                S.regs[w, d, lanes[k]] = smem[words[k]]
        return shared_latency(cfg, transactions)
    if op == OP_STS or op == OP_STSUL:
        changed = False
        uid, pc = W[w, W_UID], W[w, W_PC]
        for k in range(n):                  # compare every lane with memory before any is written
            S.FLAGS[k] = smem[words[k]] != S.regs[w, d, lanes[k]]
        for k in range(n):
            if S.FLAGS[k]:
                x = words[k]
                S.swriter[sm, x, 0], S.swriter[sm, x, 1], S.swriter[sm, x, 2] = uid + 1, lanes[k], pc
                changed = True
        if changed:
            S.G[G_LAST_CHANGE] = S.G[G_NOW]
        for k in range(n):
            smem[words[k]] = S.regs[w, d, lanes[k]]
        if op == OP_STS:
            return shared_latency(cfg, transactions)
        nbits = cfg[C_LOCK_BITS]
        for k in range(n):
            b = words[k] & (nbits - 1)
            S.lockfree[sm, b] = 1
            S.holder[sm, b, 0] = -1
        return lock_latency(cfg, transactions, locks)
    # LDSLK: every lane whose bit is free takes it (lanes sharing a bit: the lowest asking wins)
    nbits, got = cfg[C_LOCK_BITS], 0
    uid, pc = W[w, W_UID], W[w, W_PC]
    if distinct:
        for k in range(n):
            S.FLAGS[k] = S.lockfree[sm, words[k] & (nbits - 1)]
        for k in range(n):
            if S.FLAGS[k]:
                S.lockfree[sm, words[k] & (nbits - 1)] = 0
    else:
        for k in range(n):
            b = words[k] & (nbits - 1)
            S.FLAGS[k] = S.lockfree[sm, b]
            if S.FLAGS[k]:
                S.lockfree[sm, b] = 0
    for k in range(n):
        if S.FLAGS[k]:
            got |= 1 << lanes[k]
            b = words[k] & (nbits - 1)
            S.holder[sm, b, 0], S.holder[sm, b, 1], S.holder[sm, b, 2], S.holder[sm, b, 3] = uid, lanes[k], pc, words[k]
    if d != 63:
        for k in range(n):
            S.regs[w, d, lanes[k]] = smem[words[k]]
    pd = T[i, T_D2]
    if pd != 7:
        for lane in range(32):
            if (m >> lane) & 1:
                S.preds[w, pd, lane] = (got >> lane) & 1
    return lock_latency(cfg, transactions, locks)


# ---- weak memory's containers, as arrays (typed containers would need numba's reference counts,
# which cost more than the simulation): a hash of (SM, word) → queue, a pool of queued stores, a
# binary heap of stores on their way to L2. Their sizes grow through EV_GROW (state.grow).

@njit(cache=True, _nrt=False)
def qslot(S, key):
    """The hash slot of key's queue, or of the empty slot where it would go."""
    HK = S.HK
    mask = HK.shape[0] - 1
    h = (key * 0x9E3779B1) & mask
    first_free = -1
    while True:
        k = HK[h]
        if k == key:
            return h
        if k == -1:
            return h if first_free < 0 else first_free
        if k == -2 and first_free < 0:
            first_free = h
        h = (h + 1) & mask


@njit(cache=True, _nrt=False)
def qhead(S, key):
    """The first queued store of key (an index into S.POOL), or -1."""
    h = qslot(S, key)
    return S.HV[h, 0] if S.HK[h] == key else -1


@njit(cache=True, _nrt=False)
def qappend(S, key, seq, sm_at, l2_at, value, uid, lane, pc):
    h = qslot(S, key)
    n = S.NUM
    r = S.FREE[n[N_FREE] - 1]
    n[N_FREE] -= 1
    S.POOL[r, 0], S.POOL[r, 1], S.POOL[r, 2], S.POOL[r, 3] = seq, sm_at, l2_at, value
    S.POOL[r, 4], S.POOL[r, 5], S.POOL[r, 6], S.POOL[r, 7] = uid, lane, pc, -1
    if S.HK[h] == key:
        S.POOL[S.HV[h, 1], 7] = r
        S.HV[h, 1] = r
    else:
        if S.HK[h] == -1:
            n[N_USED] += 1
        S.HK[h] = key
        S.HV[h, 0], S.HV[h, 1] = r, r


@njit(cache=True, _nrt=False)
def qpop(S, key):
    """Drop the first queued store of key; True when the queue is now empty."""
    h = qslot(S, key)
    r = S.HV[h, 0]
    S.FREE[S.NUM[N_FREE]] = r
    S.NUM[N_FREE] += 1
    nxt = S.POOL[r, 7]
    if nxt < 0:
        S.HK[h] = -2
        return True
    S.HV[h, 0] = nxt
    return False


@njit(cache=True, _nrt=False)
def heap_less(H, a, b):
    return H[a, 0] < H[b, 0] or (H[a, 0] == H[b, 0] and H[a, 1] < H[b, 1])


@njit(cache=True, _nrt=False)
def heap_swap(H, a, b):
    for j in range(4):
        H[a, j], H[b, j] = H[b, j], H[a, j]


@njit(cache=True, _nrt=False)
def heap_sift_up(H, k):
    """heapq's _siftdown: row k moves up while it is less than its parent."""
    while k > 0:
        parent = (k - 1) >> 1
        if not heap_less(H, k, parent):
            return
        heap_swap(H, k, parent)
        k = parent


@njit(cache=True, _nrt=False)
def heap_push(S, l2_at, seq, sm, x):
    """heapq.heappush of (l2_at, seq, sm, x): the same array order as heapq's list."""
    H, n = S.HEAP, S.NUM[N_HEAP]
    H[n, 0], H[n, 1], H[n, 2], H[n, 3] = l2_at, seq, sm, x
    S.NUM[N_HEAP] = n + 1
    heap_sift_up(H, n)


@njit(cache=True, _nrt=False)
def heap_pop(S):
    """heapq.heappop into row 'HEAP[n]' (the old last row's place); returns its index."""
    H = S.HEAP
    n = S.NUM[N_HEAP] - 1
    S.NUM[N_HEAP] = n
    heap_swap(H, 0, n)                      # the smallest goes to row n, the last to the root
    # heapq's _siftup: move the hole down to a leaf along the smaller children, then sift up
    pos, end = 0, n
    child = 1
    while child < end:
        right = child + 1
        if right < end and not heap_less(H, child, right):
            child = right
        heap_swap(H, pos, child)
        pos = child
        child = 2 * pos + 1
    heap_sift_up(H, pos)
    return n


@njit(cache=True, _nrt=False)
def l1_find(S, sm, line):
    for q in range(S.l1line.shape[1]):
        if S.l1line[sm, q] == line:
            return q
    return -1


# ---- global memory (execute.GlobalPattern; weakmem.ScMemory and WeakMemory) ----------------------

@njit(cache=True, _nrt=False)
def global_pattern(S, w, m, base_reg, off):
    """Fill S.LANES / S.IDX with the active lanes and their word indices; (count, segments), or
    count -1 after a fault (the first lane, in lane order, with a bad address)."""
    cfg, lanes, idx, seg = S.cfg, S.LANES, S.IDX, S.WORDS
    gbase, nwords = cfg[C_GLOBAL_BASE], cfg[C_NGLOBAL]
    n = 0
    segments = 0
    for lane in range(32):
        if not (m >> lane) & 1:
            continue
        a = (np.int64(S.regs[w, base_reg, lane]) + off) & M32 if base_reg != 63 else off & M32
        x = (a - gbase) >> 2
        if a & 3 or x < 0 or x >= nwords or not S.gvalid[x]:
            fail(S, E_GLOBAL, lane, a, x)
            return -1, 0
        lanes[n], idx[n] = lane, x
        segments = add_distinct(seg, segments, a >> 7)
        n += 1
    return n, max(segments, 1)


@njit(cache=True, _nrt=False)
def l1_drop(S, sm, line):
    """L1 is write-evict: a store (or an atomic) of this SM to the line drops it."""
    q = l1_find(S, sm, line)
    if q >= 0:
        S.l1line[sm, q] = -1
        S.l1count[sm] -= 1


@njit(cache=True, _nrt=False)
def l1_read(S, sm, n):
    """WeakMemory._through_l1: S.VALUES from this SM's L1, filling the lines it lacks (sorted,
    evicting the oldest; each line's lanes read it as it is served, before a later fill of the
    same access can evict it); True when every line was there."""
    cfg, idx = S.cfg, S.IDX
    nglobal, nlines = cfg[C_NGLOBAL], cfg[C_L1_LINES]
    lines = S.LINES
    count = 0
    for k in range(n):                       # the distinct lines, sorted
        count = add_distinct(lines, count, idx[k] >> 5)
    insertion_sort(lines, count)
    hit = True
    for j in range(count):
        line = lines[j]
        slot = l1_find(S, sm, line)
        if slot < 0:
            hit = False
            S.G[G_MISSES] += 1
            if S.l1count[sm] >= nlines:
                oldest, at = -1, 0
                for q in range(nlines):
                    if S.l1line[sm, q] >= 0 and (oldest < 0 or S.l1stamp[sm, q] < at):
                        oldest, at = q, S.l1stamp[sm, q]
                l1_drop(S, sm, S.l1line[sm, oldest])
            slot = 0
            while S.l1line[sm, slot] >= 0:
                slot += 1
            S.l1line[sm, slot] = line
            S.G[G_L1_SEQ] += 1                  # L1 evicts the line filled first
            S.l1stamp[sm, slot] = S.G[G_L1_SEQ]
            start, end = line * 32, min(line * 32 + 32, nglobal)
            for q in range(end - start):
                S.l1words[sm, slot, q] = S.gwords[start + q]
            S.l1count[sm] += 1
        else:
            S.G[G_HITS] += 1
        for k in range(n):
            if idx[k] >> 5 == line:
                S.VALUES[k] = S.l1words[sm, slot, idx[k] & 31]
    return hit


@njit(cache=True, _nrt=False)
def load(S, w, n, cached):
    """An LD of n lanes (S.LANES, S.IDX): S.VALUES, and the extra latency of an L1 hit."""
    cfg, W = S.cfg, S.W
    extra = 0
    if not cfg[C_WEAK]:
        for k in range(n):
            S.VALUES[k] = S.gwords[S.IDX[k]]
        return extra
    sm = W[w, W_SM]
    if cached:
        if l1_read(S, sm, n):
            extra = cfg[C_L1_LAT] - cfg[C_GLOBAL_LAT]
    else:
        for k in range(n):
            S.VALUES[k] = S.gwords[S.IDX[k]]
    for k in range(n):
        S.FLAGS[k] = False                      # served by the SM's queue
    if S.qcount[sm]:
        now, uid = S.G[G_NOW], W[w, W_UID]
        P = S.POOL
        for k in range(n):
            r = qhead(S, sm * cfg[C_NGLOBAL] + S.IDX[k])
            found = -1                          # the newest store this warp may see
            while r >= 0:
                if P[r, 4] == uid or P[r, 1] <= now:
                    found = r
                r = P[r, 7]
            if found >= 0:
                S.VALUES[k] = P[found, 3]
                S.FLAGS[k] = True
                if P[found, 4] != uid and P[found, 2] > S.observed[w]:
                    S.observed[w] = P[found, 2]
    if not cached:
        early(S, w, n, sm)
    return extra


@njit(cache=True, _nrt=False)
def load_bound(S, w, lane, x):
    """WeakMemory._bound: a load of word x by this thread may read a value superseded after this time."""
    bound = S.lfloor[w, lane]
    for q in range(S.lword.shape[2]):
        if S.lword[w, lane, q] == x:
            return max(bound, S.ltime[w, lane, q])
    return bound


@njit(cache=True, _nrt=False)
def remember(S, w, lane, x, t):
    """WeakMemory._remember: the thread read word x at L2 at time t."""
    K = S.lword.shape[2]
    for q in range(K):
        if S.lword[w, lane, q] == x:
            S.ltime[w, lane, q] = max(S.ltime[w, lane, q], t)
            return
    for q in range(K):
        if S.lword[w, lane, q] == -1:
            S.lword[w, lane, q], S.ltime[w, lane, q] = x, t
            return
    oldest = 0
    for q in range(1, K):
        if S.ltime[w, lane, q] < S.ltime[w, lane, oldest]:
            oldest = q
    S.lfloor[w, lane] = max(S.lfloor[w, lane], S.ltime[w, lane, oldest])
    S.lword[w, lane, oldest], S.ltime[w, lane, oldest] = x, t


@njit(cache=True, _nrt=False)
def forget(S, w, t):
    """WeakMemory._forget: a fence that completes at t, or a block barrier that opens then."""
    for lane in range(32):
        S.lfloor[w, lane] = t
        for q in range(S.lword.shape[2]):
            S.lword[w, lane, q], S.ltime[w, lane, q] = -1, 0


@njit(cache=True, _nrt=False)
def landed(S, x, value, t, sm):
    """WeakMemory.landed: word x takes value at L2 at time t (before S.gwords[x] changes)."""
    H = S.hv.shape[1]
    n = S.hn[x]
    if n == 0:
        S.hv[x, 0], S.ht[x, 0], S.hs[x, 0] = np.int64(S.gwords[x]), -1, -1
        n = 1
    for j in range(H - 1, 0, -1):
        S.hv[x, j], S.ht[x, j], S.hs[x, j] = S.hv[x, j - 1], S.ht[x, j - 1], S.hs[x, j - 1]
    S.hv[x, 0], S.ht[x, 0], S.hs[x, 0] = value, t, sm
    S.hn[x] = min(n + 1, H)


@njit(cache=True, _nrt=False)
def early(S, w, n, sm):
    """WeakMemory._early: the lanes of an LD.CG / LD.CV whose word was written in this launch and that
    the SM's queue did not serve read a value the word held since the bound, chosen by the hash
    (the lanes of one word: one value, under the latest of their bounds)."""
    uid, pc, now = S.W[w, W_UID], S.W[w, W_PC], S.G[G_NOW]
    any_old = False
    last_x, bound = -1, 0
    for k in range(n):
        x = S.IDX[k]
        if S.FLAGS[k] or not S.hn[x]:
            continue
        any_old = True
        if x != last_x:             # the lanes that read one word read one value: the latest bound
            last_x, bound = x, 0    # (lanes of one word mostly follow each other: computed once)
            for q in range(n):
                if S.IDX[q] == x and not S.FLAGS[q]:
                    bound = max(bound, load_bound(S, w, S.LANES[q], x))
        j = 0
        while j + 1 < S.hn[x] and S.hs[x, j] != sm and S.ht[x, j] > bound:
            j += 1
        if j:
            mix = py_hash5(S.cfg[C_SEED], -2 - uid, pc, x, S.hv[x, 0] * 8 + j + 1) & 0xFFFFFFFFFFFF
            j = mix % (j + 1)
        S.VALUES[k] = S.hv[x, j]
    if any_old:
        for k in range(n):
            if not S.FLAGS[k] and S.hn[S.IDX[k]]:
                remember(S, w, S.LANES[k], S.IDX[k], now)


@njit(cache=True, _nrt=False)
def py_hash_int(x):
    """CPython's hash of an int (x mod 2**61 - 1, with the sign; -1 is -2)."""
    h = x % P61 if x >= 0 else -((-x) % P61)
    return -2 if h == -1 else h


@njit(cache=True, _nrt=False)
def py_hash5(a, b, c, d, e):
    """CPython's hash of a tuple of five ints (xxHash's round, Objects/tupleobject.c)."""
    acc = np.uint64(2870177450012600261)
    p1, p2 = np.uint64(11400714785074694791), np.uint64(14029467366897019727)
    for x in (a, b, c, d, e):
        acc += np.uint64(py_hash_int(x)) * p2
        acc = (acc << np.uint64(31)) | (acc >> np.uint64(33))
        acc *= p1
    acc += np.uint64(5) ^ np.uint64(2870177450012600261 ^ 3527539)
    if acc == np.uint64(0xFFFFFFFFFFFFFFFF):
        return 1546275796
    return np.int64(acc)



@njit(cache=True, _nrt=False)
def store(S, w, n, segments, vreg):
    """An ST of n lanes (S.LANES, S.IDX) of register vreg."""
    cfg, W, G = S.cfg, S.W, S.G
    now, uid, pc = G[G_NOW], W[w, W_UID], W[w, W_PC]
    nglobal = cfg[C_NGLOBAL]
    if not cfg[C_WEAK]:
        changed = False
        for k in range(n):
            S.FLAGS[k] = S.gwords[S.IDX[k]] != S.regs[w, vreg, S.LANES[k]]
        for k in range(n):
            if S.FLAGS[k]:
                x = S.IDX[k]
                S.gwriter[x, 0], S.gwriter[x, 1], S.gwriter[x, 2] = uid + 1, S.LANES[k], pc
                changed = True
        if changed:
            G[G_LAST_CHANGE] = now
        for k in range(n):
            S.gwords[S.IDX[k]] = S.regs[w, vreg, S.LANES[k]]
        done = now + cfg[C_GSTORE_LAT] + segments - 1
        W[w, W_STORES] = max(W[w, W_STORES], done)
        return
    sm = W[w, W_SM]
    mix = py_hash5(cfg[C_SEED], uid, pc, S.IDX[0], np.int64(S.regs[w, vreg, S.LANES[0]])) & 0xFFFFFFFFFFFF
    sm_at = max(now + 1 + mix % (cfg[C_SM_JITTER] + 1), S.floor[w])
    l2_at = now + cfg[C_GSTORE_LAT] - cfg[C_STORE_JITTER] // 2 + (mix >> 16) % (cfg[C_STORE_JITTER] + 1)
    if (mix >> 32) % cfg[C_STRAGGLER_EVERY] == 0:
        l2_at += (mix >> 36) % (cfg[C_STRAGGLER_DELAY] + 1)
    l2_at = max(sm_at, l2_at + segments - 1)
    if cfg[C_HUNT]:                             # WeakMemory.first: unfenced stores land last first
        if S.hfirst[w] != INF:
            l2_at = sm_at
        S.hfirst[w] = min(S.hfirst[w], l2_at)
    last_sm = sm_at
    for k in range(n):
        x, lane = S.IDX[k], S.LANES[k]
        key = sm * nglobal + x
        a, b = sm_at, l2_at
        h = qslot(S, key)
        if S.HK[h] != key:
            S.qcount[sm] += 1
        else:                                   # one SM's stores to one word stay in order
            last = S.HV[h, 1]
            a, b = max(a, S.POOL[last, 1]), max(b, S.POOL[last, 2])
        G[G_SEQ] += 1
        seq = G[G_SEQ]
        qappend(S, key, seq, a, b, np.int64(S.regs[w, vreg, lane]), uid, lane, pc)
        heap_push(S, b, seq, sm, x)
        S.gwriter[x, 0], S.gwriter[x, 1], S.gwriter[x, 2] = uid + 1, lane, pc
        last_sm = max(last_sm, a)
        W[w, W_STORES] = max(W[w, W_STORES], b)
        l1_drop(S, sm, x >> 5)
    S.smlast[w] = max(S.smlast[w], last_sm)
    G[G_NEXT_DRAIN] = S.HEAP[0, 0]


@njit(cache=True, _nrt=False)
def retire(S, sm, x, seq, t):
    """WeakMemory._retire: the oldest queued store of this SM to word x reaches L2 at time t (if it is seq)."""
    key = sm * S.cfg[C_NGLOBAL] + x
    r = qhead(S, key)
    if r < 0 or S.POOL[r, 0] != seq:
        return
    value = S.POOL[r, 3]
    if qpop(S, key):
        S.qcount[sm] -= 1
    landed(S, x, value, t, sm)
    if S.gwords[x] != value:
        S.gwords[x] = value
        S.G[G_LAST_CHANGE] = S.G[G_NOW]
    l1_drop(S, sm, x >> 5)


@njit(cache=True, _nrt=False)
def drain(S, now):
    H = S.HEAP
    while S.NUM[N_HEAP] and H[0, 0] <= now:
        r = heap_pop(S)
        retire(S, H[r, 2], H[r, 3], H[r, 1], H[r, 0])
    S.G[G_NEXT_DRAIN] = H[0, 0] if S.NUM[N_HEAP] else INF


@njit(cache=True, _nrt=False)
def land_stores(state):
    """WeakMemory.flush, called by the bridge when the run stops: every store in flight reaches
    L2, in the order drain would land them (what the reference's flush then finds is nothing)."""
    drain(by_ref(state), INF)


@njit(cache=True, _nrt=False)
def fence(S, w, cta):
    cfg, W = S.cfg, S.W
    now = S.G[G_NOW]
    if not cfg[C_WEAK]:
        if cta:
            return cfg[C_MEMBAR_CTA]
        return max(0, W[w, W_STORES] - now) + cfg[C_MEMBAR_GL]
    S.hfirst[w] = INF
    if cta:
        last = S.smlast[w]
        S.floor[w] = last
        latency = max(cfg[C_MEMBAR_CTA], last - now)
    else:
        until = max(W[w, W_STORES], S.observed[w])
        latency = max(0, until - now) + cfg[C_MEMBAR_GL]
    forget(S, w, now + latency)
    return latency


@njit(cache=True, _nrt=False)
def atomic_op(op, sgn, old, b, c):
    if op == 0:
        return (old + b) & M32
    if op == 1:
        return old if (signed(old) <= signed(b) if sgn else old <= b) else b
    if op == 2:
        return old if (signed(old) >= signed(b) if sgn else old >= b) else b
    if op == 3:
        return 0 if old >= b else old + 1
    if op == 4:
        return b if old == 0 or old > b else old - 1
    if op == 5:
        return old & b
    if op == 6:
        return old | b
    if op == 7:
        return old ^ b
    if op == 8:
        return b
    if op == 10:
        return fadd_ftz(old, b)
    return c if old == b else old


@njit(cache=True, _nrt=False)
def global_op(S, T, i, w, m, half):
    """LD, ST, ATOM, RED: the latency (-1: none), or -2 after a fault (half 1: a .64 access's high word)."""
    cfg, W, G = S.cfg, S.W, S.G
    op = T[i, T_OP]
    n, segments = global_pattern(S, w, m, T[i, T_MEMBASE], T[i, T_MEMOFF] + 4 * half)
    if n < 0:
        return -2
    if op == OP_LD:
        extra = load(S, w, n, T[i, T_MODE])
        d = pair_half(T[i, T_D], half)
        if d != 63:
            for k in range(n):
                S.regs[w, d, S.LANES[k]] = S.VALUES[k]
        return cfg[C_GLOBAL_LAT] + extra + segments - 1
    if op == OP_ST:
        store(S, w, n, segments, pair_half(T[i, T_D], half))
        return -1
    if T[i, T_WIDE]:
        return atomic64(S, T, i, w, n)
    # ATOM / RED, performed at L2 one lane at a time, after this SM's queued stores to the word
    sm, now, uid, pc = W[w, W_SM], G[G_NOW], W[w, W_UID], W[w, W_PC]
    if cfg[C_WEAK]:
        for k in range(n):
            x = S.IDX[k]
            key = sm * cfg[C_NGLOBAL] + x
            r = qhead(S, key)
            while r >= 0:
                retire(S, sm, x, S.POOL[r, 0], now)
                r = qhead(S, key)
            l1_drop(S, sm, x >> 5)
    fn, sgn, d, vb, vc = T[i, T_MODE], T[i, T_SIGNED], T[i, T_D], T[i, T_MODE2], T[i, T_HI]
    done = now
    arrive = now + cfg[C_ATOMIC_LAT] // 2
    for k in range(n):
        lane, x = S.LANES[k], S.IDX[k]
        old = np.int64(S.gwords[x])
        new = atomic_op(fn, sgn, old, np.int64(S.regs[w, vb, lane]), np.int64(S.regs[w, vc, lane]))
        if new != old:
            if cfg[C_WEAK]:
                landed(S, x, new, now, sm)
            S.gwords[x] = new
            S.gwriter[x, 0], S.gwriter[x, 1], S.gwriter[x, 2] = uid + 1, lane, pc
            G[G_LAST_CHANGE] = now
        S.VALUES[k] = old
        start = max(arrive, S.l2free[x])
        S.l2free[x] = start + cfg[C_ATOMIC_OCC]
        done = max(done, start + cfg[C_ATOMIC_OCC] + cfg[C_ATOMIC_LAT] // 2)
    if cfg[C_WEAK]:                                     # WeakMemory.after_atomic
        for k in range(n):
            if S.hn[S.IDX[k]]:
                remember(S, w, S.LANES[k], S.IDX[k], now)
    if d != 63:
        for k in range(n):
            S.regs[w, d, S.LANES[k]] = S.VALUES[k]
    if op == OP_RED:
        W[w, W_STORES] = max(W[w, W_STORES], done)
        return -1
    return done - now


@njit(cache=True, _nrt=False)
def atomic64(S, T, i, w, n):
    """execute._atom64: ATOM.CAS.64, .ADD.64 or .EXCH.64 on the pairs of words at S.IDX (low) and the
    word after each, lane by lane; the latency, or -2 after a fault (a high word outside every
    allocation)."""
    cfg, W, G = S.cfg, S.W, S.G
    nwords = cfg[C_NGLOBAL]
    for k in range(n):                                   # the high words' addresses, lane by lane
        x = S.IDX[k] + 1
        if x >= nwords or not S.gvalid[x]:
            fail(S, E_GLOBAL, S.LANES[k], (cfg[C_GLOBAL_BASE] + 4 * x) & M32, x)
            return -2
    sm, now, uid, pc = W[w, W_SM], G[G_NOW], W[w, W_UID], W[w, W_PC]
    if cfg[C_WEAK]:
        for k in range(n):
            for x in (S.IDX[k], S.IDX[k] + 1):
                key = sm * nwords + x
                r = qhead(S, key)
                while r >= 0:
                    retire(S, sm, x, S.POOL[r, 0], now)
                    r = qhead(S, key)
                l1_drop(S, sm, x >> 5)
    d, vb, vc, fn = T[i, T_D], T[i, T_MODE2], T[i, T_HI], T[i, T_MODE]
    done = now
    arrive = now + cfg[C_ATOMIC_LAT] // 2
    for k in range(n):
        lane, x = S.LANES[k], S.IDX[k]
        old0, old1 = np.int64(S.gwords[x]), np.int64(S.gwords[x + 1])
        b0 = np.int64(S.regs[w, vb, lane]) if vb != 63 else np.int64(0)
        b1 = np.int64(S.regs[w, vb + 1, lane]) if vb != 63 else np.int64(0)
        c0 = np.int64(S.regs[w, vc, lane]) if vc != 63 else np.int64(0)
        c1 = np.int64(S.regs[w, vc + 1, lane]) if vc != 63 else np.int64(0)
        if fn == 0:                                      # ADD.64: the sum, wrapping
            total = (old0 | (old1 << 32)) + (b0 | (b1 << 32))
            c0, c1 = total & M32, (total >> 32) & M32
        elif fn == 8:                                    # EXCH.64
            c0, c1 = b0, b1
        if fn != 9 or (old0 == b0 and old1 == b1):
            if c0 != old0:
                if cfg[C_WEAK]:
                    landed(S, x, c0, now, sm)
                S.gwords[x] = c0
                S.gwriter[x, 0], S.gwriter[x, 1], S.gwriter[x, 2] = uid + 1, lane, pc
                G[G_LAST_CHANGE] = now
            if c1 != old1:
                if cfg[C_WEAK]:
                    landed(S, x + 1, c1, now, sm)
                S.gwords[x + 1] = c1
                S.gwriter[x + 1, 0], S.gwriter[x + 1, 1], S.gwriter[x + 1, 2] = uid + 1, lane, pc
                G[G_LAST_CHANGE] = now
        start = max(arrive, S.l2free[x])
        S.l2free[x] = start + cfg[C_ATOMIC_OCC]
        done = max(done, start + cfg[C_ATOMIC_OCC] + cfg[C_ATOMIC_LAT] // 2)
        if d != 63:
            S.regs[w, d, lane] = old0
            S.regs[w, d + 1, lane] = old1
    if cfg[C_WEAK]:                                      # WeakMemory.after_atomic
        for k in range(n):
            for x in (S.IDX[k], S.IDX[k] + 1):
                if S.hn[x]:
                    remember(S, w, S.LANES[k], x, now)
    return done - now


@njit(cache=True, _nrt=False)
def local_op(S, T, i, w, m, half):
    """LDL / STL: -1, or -2 after a fault (half 1: a .64 access's high word)."""
    base_reg, off, d = T[i, T_MEMBASE], T[i, T_MEMOFF] + 4 * half, pair_half(T[i, T_D], half)
    limit = S.cfg[C_LOCAL_BYTES]
    n = 0
    for lane in range(32):
        if (m >> lane) & 1:
            a = (np.int64(S.regs[w, base_reg, lane]) + off) & M32 if base_reg != 63 else off & M32
            if a & 3 or a >= limit:
                fail(S, E_LOCAL, lane, a, 0 if a & 3 else 1)
                return -2
            S.LANES[n], S.IDX[n] = lane, a >> 2
            n += 1
    for k in range(n):
        lane, x = S.LANES[k], S.IDX[k]
        if T[i, T_OP] == OP_LDL:
            if d != 63:
                S.regs[w, d, lane] = S.local[w, x, lane]
        else:
            S.local[w, x, lane] = S.regs[w, d, lane]
    return -1


# ---- the SIMT stack (warp.Warp.push / pop / leave) ----------------------------------------------------

@njit(cache=True, _nrt=False)
def push(S, w, kind, mask, pc):
    sp = S.W[w, W_SP]
    if sp >= MAX_STACK:
        return fail(S, E_OVERFLOW, 0, 0, 0)
    S.stack[w, sp] = kind | (mask << 2) | (pc << 34)
    S.W[w, W_SP] = sp + 1
    return 0


@njit(cache=True, _nrt=False)
def pop(S, w):
    """Resume the next path from the stack; False when nothing is left (the warp is done)."""
    W = S.W
    exited = W[w, W_EXITED]
    while W[w, W_SP]:
        W[w, W_SP] -= 1
        e = S.stack[w, W[w, W_SP]]
        mask = (e >> 2) & M32 & ~exited
        if mask:
            W[w, W_ACTIVE], W[w, W_PC] = mask, e >> 34
            return True
    W[w, W_ACTIVE] = 0
    return False


@njit(cache=True, _nrt=False)
def leave(S, w, lanes, until_break):
    W = S.W
    W[w, W_ACTIVE] &= ~lanes
    for k in range(W[w, W_SP] - 1, -1, -1):
        e = S.stack[w, k]
        if until_break and (e & 3) == PBK:
            break
        S.stack[w, k] = e & ~(lanes << 2)


# ---- schedulers (simulator.Scheduler) -------------------------------------------------------------

@njit(cache=True, _nrt=False)
def pick(S, s, now):
    SCH, SW, W = S.SCH, S.SW, S.W
    n = SCH[s, S_N]
    policy = S.cfg[C_POLICY]
    if policy == 0:                                    # lrr
        start = SCH[s, S_LAST] + 1
        for i in range(n):
            k = (start + i) % n
            if W[SW[s, k], W_READY] <= now:
                SCH[s, S_LAST] = k
                return SW[s, k]
        return -1
    if policy == 1:                                    # gto
        last = SCH[s, S_LAST]
        if 0 <= last < n and W[SW[s, last], W_READY] <= now:
            return SW[s, last]
        for k in range(n):
            if W[SW[s, k], W_READY] <= now:
                SCH[s, S_LAST] = k
                return SW[s, k]
        return -1
    if policy == P_RANDOM:                             # random:SEED (Scheduler._pick_random)
        ready = 0
        for k in range(n):
            ready += W[SW[s, k], W_READY] <= now
        if ready == 0:
            return -1
        r = mt_below(S.MT, s, ready)                   # rng.choice(ready)
        for k in range(n):
            if W[SW[s, k], W_READY] <= now:
                if r == 0:
                    return SW[s, k]
                r -= 1
    if policy == P_RANKED:
        return pick_by_rank(S, s, now)
    for k in range(n - 1, -1, -1):                     # adversarial: youngest first
        if W[SW[s, k], W_READY] <= now:
            return SW[s, k]
    return -1


@njit(cache=True, _nrt=False)
def at_point(S, w):
    """Scheduler._at_point: the warp's next instruction is a synchronization point (hunt:SEED)."""
    i = S.W[w, W_PC] >> 3
    return i < S.T.shape[0] and S.T[i, T_HUNT] != 0


@njit(cache=True, _nrt=False)
def pick_by_rank(S, s, now):
    """adversarial:SEED (Scheduler._pick_by_priority): the highest-ranked ready warp, ranks drawn
    when a warp is first seen, and a few preemptions that drop the chosen warp below every rank
    ever given (RMIN: the reference takes the least of its rank table, which never shrinks)."""
    SCH, SW, W, RANK, MT, cfg = S.SCH, S.SW, S.W, S.RANK, S.MT, S.cfg
    n = SCH[s, S_N]
    while True:
        best, best_rank = -1, 0.0
        for k in range(n):
            w = SW[s, k]
            if W[w, W_READY] <= now:
                r = RANK[w]
                if np.isnan(r):
                    r = RANK[w] = mt_random(MT, s)
                    S.RMIN[s] = min(S.RMIN[s], r)
                if best < 0 or r > best_rank:
                    best, best_rank = w, r
        if best < 0 or SCH[s, S_PREEMPT] == 0 or (cfg[C_HUNT] and not at_point(S, best)) \
                or mt_below(MT, s, cfg[C_PREEMPT_EVERY]) != 0:
            return best
        SCH[s, S_PREEMPT] -= 1
        S.RMIN[s] -= 1.0
        RANK[best] = S.RMIN[s]
        W[best, W_READY] = now + 1 + mt_below(MT, s, cfg[C_PREEMPT_CYCLES])     # randint(1, PREEMPT_CYCLES)


# ---- CPython's Mersenne Twister (random.Random), draw for draw: MT[s] is scheduler s's stream --------

def seed_key(seed: int) -> np.ndarray:
    """mt_seed's key for random.Random(seed): abs(seed) in 32-bit words, lowest first."""
    a, words = abs(seed), []
    while True:
        words.append(a & M32)
        a >>= 32
        if not a:
            return np.array(words, np.int64)


@njit(cache=True, _nrt=False)
def mt_seed(MT, s, key):
    """random.Random(seed): init_by_array over `key`, abs(seed)'s 32-bit words, lowest first (one
    0 word for seed 0), as CPython's random_seed does; the index then asks for a twist."""
    MT[s, 0] = 19650218                                # init_genrand(19650218)
    for k in range(1, MT_WORDS):
        prev = MT[s, k - 1]
        MT[s, k] = (1812433253 * (prev ^ (prev >> 30)) + k) & M32
    i, j = 1, 0
    for _ in range(max(MT_WORDS, len(key))):
        prev = MT[s, i - 1]
        MT[s, i] = ((MT[s, i] ^ ((prev ^ (prev >> 30)) * 1664525)) + key[j] + j) & M32
        i, j = i + 1, j + 1
        if i >= MT_WORDS:
            MT[s, 0] = MT[s, MT_WORDS - 1]
            i = 1
        if j >= len(key):
            j = 0
    for _ in range(MT_WORDS - 1):
        prev = MT[s, i - 1]
        MT[s, i] = ((MT[s, i] ^ ((prev ^ (prev >> 30)) * 1566083941)) - i) & M32
        i += 1
        if i >= MT_WORDS:
            MT[s, 0] = MT[s, MT_WORDS - 1]
            i = 1
    MT[s, 0] = 0x80000000
    MT[s, MT_WORDS] = MT_WORDS


@njit(cache=True, _nrt=False)
def mt_twist(MT, s):
    for k in range(MT_WORDS):
        y = (MT[s, k] & 0x80000000) | (MT[s, (k + 1) % MT_WORDS] & 0x7FFFFFFF)
        v = MT[s, (k + 397) % MT_WORDS] ^ (y >> 1)
        if y & 1:
            v ^= 0x9908B0DF
        MT[s, k] = v


@njit(cache=True, _nrt=False)
def mt_next(MT, s):
    """genrand_uint32: the next 32-bit word."""
    i = MT[s, MT_WORDS]
    if i >= MT_WORDS:
        mt_twist(MT, s)
        i = 0
    MT[s, MT_WORDS] = i + 1
    y = MT[s, i]
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    return y ^ (y >> 18)


@njit(cache=True, _nrt=False)
def mt_random(MT, s):
    """random.random(): 53 bits from two words."""
    a, b = mt_next(MT, s) >> 5, mt_next(MT, s) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


@njit(cache=True, _nrt=False)
def mt_below(MT, s, n):
    """random._randbelow(n) for 0 < n < 2**32: getrandbits(n.bit_length()) until it is below n."""
    k = 0
    while (n >> k) > 0:
        k += 1
    r = mt_next(MT, s) >> (32 - k)
    while r >= n:
        r = mt_next(MT, s) >> (32 - k)
    return r


@njit(cache=True, _nrt=False)
def idle(S, s):
    wake = INF
    for k in range(S.SCH[s, S_N]):
        wake = min(wake, S.W[S.SW[s, k], W_READY])
    S.SCH[s, S_WAKE] = wake


@njit(cache=True, _nrt=False)
def ready_by(S, w, cycle):
    s = S.W[w, W_SCHED]
    S.SCH[s, S_WAKE] = min(S.SCH[s, S_WAKE], cycle)


@njit(cache=True, _nrt=False)
def unschedule(S, w):
    s = S.W[w, W_SCHED]
    n = S.SCH[s, S_N]
    k = 0
    while S.SW[s, k] != w:
        k += 1
    for j in range(k, n - 1):
        S.SW[s, j] = S.SW[s, j + 1]
    S.SCH[s, S_N] = n - 1
    if S.SCH[s, S_LAST] >= k:
        S.SCH[s, S_LAST] -= 1


# ---- the event log (layout.LOG_*: what observers see, replayed by the bridge) ---------------------

@njit(cache=True, _nrt=False)
def log_event(S, kind, now, w, arg):
    W = S.W
    row = S.LOG[S.G[G_LOGGED]]
    S.G[G_LOGGED] += 1
    row[L_KIND], row[L_NOW], row[L_SLOT], row[L_ARG] = kind, now, w, arg
    row[L_PC], row[L_ACTIVE], row[L_ISSUED] = W[w, W_PC], W[w, W_ACTIVE], W[w, W_ISSUED]
    row[L_HELD] = row[L_TAKEN] = -1
    if kind == LOG_ISSUED or kind == LOG_WARP_FINISHED:     # what a trace's lock-bit spans need
        sm, uid, held, taken = W[w, W_SM], W[w, W_UID], 0, 0
        for b in range(S.cfg[C_LOCK_BITS]):
            if not S.lockfree[sm, b]:
                taken += 1
                if S.holder[sm, b, 0] == uid:
                    held += 1
        row[L_HELD], row[L_TAKEN] = held, taken


# ---- block barriers (Simulator._barrier / _maybe_release) -----------------------------------------

@njit(cache=True, _nrt=False)
def maybe_release(S, b, bar_id):
    BAR, W, G = S.BAR, S.W, S.G
    expected = BAR[b, bar_id, BAR_EXPECTED]
    if not expected:                                   # ITS: every live lane counts one thread
        its = S.cfg[C_ITS]
        for k in range(S.B[b, B_NWARPS]):
            x = S.BW[b, k]
            if W[x, W_WAIT] != WAIT_DONE:
                expected += popcount(W[x, W_PRESENT] & ~W[x, W_EXITED]) if its else 32
    if BAR[b, bar_id, BAR_ARRIVED] < expected:
        return
    BAR[b, bar_id, BAR_PRESENT] = 0
    G[G_LAST_CHANGE] = G[G_NOW]
    at = G[G_NOW] + S.cfg[C_BARRIER_LAT]
    for k in range(BAR[b, bar_id, BAR_NWAIT]):
        x, dest, red = S.BARW[b, bar_id, k, BW_WARP], S.BARW[b, bar_id, k, BW_DEST], S.BARW[b, bar_id, k, BW_RED]
        lanes = S.BARW[b, bar_id, k, BW_LANES]
        if S.cfg[C_WEAK]:
            if BAR[b, bar_id, BAR_STORES] > S.observed[x]:
                S.observed[x] = BAR[b, bar_id, BAR_STORES]
            forget(S, x, G[G_NOW])
        if lanes:                                       # ITS: the split goes on after the barrier
            its_add(S, x, lanes, S.BARW[b, bar_id, k, BW_PC])
            its_select(S, x, G[G_NOW])
        W[x, W_WAIT] = WAIT_NONE
        W[x, W_READY] = at
        ready_by(S, x, at)
        if dest >= 0 and dest != 63:
            value = BAR[b, bar_id, BAR_ALL] if red == 1 else (BAR[b, bar_id, BAR_ANY] if red == 2 else BAR[b, bar_id, BAR_POPC])
            if lanes:
                for lane in range(32):
                    if (lanes >> lane) & 1:
                        S.regs[x, dest, lane] = value
            else:
                S.regs[x, dest, :] = value
        if S.cfg[C_TRACE]:
            log_event(S, LOG_BARRIER_RELEASED, at, x, bar_id)


@njit(cache=True, _nrt=False)
def barrier(S, T, i, w, lanes):
    """A warp arrives at a block barrier: 1 when it must wait, 0 when it goes on (ARV), or EV_ERROR.
    In ITS mode `lanes` (a split) arrive, count one thread each, and only they wait (else 0)."""
    W, BAR, cfg = S.W, S.BAR, S.cfg
    active = W[w, W_ACTIVE]
    lane = lowest(active) if active else 0
    have_id = T[i, T_A] != O_NONE
    have_count = T[i, T_A + OPERAND] != O_NONE
    bar_id = src(T, i, 0, S.regs, S.preds, w, lane) if have_id else 0
    count = src(T, i, 1, S.regs, S.preds, w, lane) if have_count else 0
    if not 0 <= bar_id < cfg[C_NAMED_BARRIERS]:
        return fail(S, E_BAR_ID, 0, bar_id, 0)
    b = W[w, W_BLOCK]
    if not BAR[b, bar_id, BAR_PRESENT]:
        BAR[b, bar_id, :] = 0
        BAR[b, bar_id, BAR_PRESENT] = 1
        BAR[b, bar_id, BAR_ALL] = 1
        S.B[b, B_STAMPS] += 1
        BAR[b, bar_id, BAR_STAMP] = S.B[b, B_STAMPS]
    if have_count:
        BAR[b, bar_id, BAR_EXPECTED] = count
    BAR[b, bar_id, BAR_ARRIVED] += popcount(lanes) if lanes else 32
    if cfg[C_WEAK]:
        BAR[b, bar_id, BAR_STORES] = max(BAR[b, bar_id, BAR_STORES], W[w, W_STORES], S.observed[w])
    mode = T[i, T_MODE]
    c = T_A + 3 * OPERAND
    if T[i, c] == O_PRED or mode == 2:
        votes = pred_mask(S.preds, w, T[i, c + 1], T[i, c + 2]) if T[i, c] == O_PRED else pred_mask(S.preds, w, 7, 0)
        arriving = lanes if lanes else active
        votes &= arriving
        BAR[b, bar_id, BAR_POPC] += popcount(votes)
        BAR[b, bar_id, BAR_ALL] &= votes == arriving
        BAR[b, bar_id, BAR_ANY] |= votes != 0
    if mode == 1:                                       # ARV: arrive and go on
        if lanes:
            its_add(S, w, lanes, W[w, W_PC])
        maybe_release(S, b, bar_id)
        return 0
    if not lanes:
        W[w, W_WAIT] = WAIT_BAR
        W[w, W_READY] = INF
        W[w, W_REASON] = R_BARRIER
    k = BAR[b, bar_id, BAR_NWAIT]
    S.BARW[b, bar_id, k, BW_WARP] = w
    S.BARW[b, bar_id, k, BW_DEST] = T[i, T_D] if mode == 2 else -1
    S.BARW[b, bar_id, k, BW_RED] = T[i, T_MODE2]
    S.BARW[b, bar_id, k, BW_PC] = W[w, W_PC]
    S.BARW[b, bar_id, k, BW_LANES] = lanes
    BAR[b, bar_id, BAR_NWAIT] = k + 1
    if cfg[C_TRACE]:
        log_event(S, LOG_BARRIER_WAIT, S.G[G_NOW], w, bar_id)
    maybe_release(S, b, bar_id)
    return 1


@njit(cache=True, _nrt=False)
def finish_warp(S, w):
    """Simulator._finish_warp: the warp is done; barriers stop waiting for it; a block with no
    warp left is an event (the bridge finishes it and launches the next)."""
    W, G = S.W, S.G
    G[G_LAST_CHANGE] = G[G_NOW]
    W[w, W_WAIT] = WAIT_DONE
    W[w, W_READY] = INF
    W[w, W_ACTIVE] = 0
    unschedule(S, w)
    b = W[w, W_BLOCK]
    S.B[b, B_LIVE] -= 1
    if S.cfg[C_TRACE]:
        log_event(S, LOG_WARP_FINISHED, G[G_NOW], w, 0)
    for bar_id in range(S.cfg[C_NAMED_BARRIERS]):
        if S.BAR[b, bar_id, BAR_PRESENT]:
            maybe_release(S, b, bar_id)
    if S.B[b, B_LIVE] == 0:
        G[G_EVENT], G[G_EVENT_ARG] = EV_BLOCK_DONE, b


# ---- independent thread scheduling (its.py: ItsState, its_issue, release_waiting, select_split) ---
# An ITS warp's splits are rows of ITS_SPLITS in the order they run (ItsState.order); SP_SEQ keeps
# the order in which the reference's `splits` dict holds them (a YIELD reorders only the first).
# Every row of the four tables holds at least one lane and a lane is in one row at a time, so 32
# rows each are enough.

@njit(cache=True, _nrt=False)
def copy_row(A, w, dst, src):
    """Row `src` of warp w's table A over row `dst` (a slice assignment would need numba's NRT)."""
    for c in range(A.shape[2]):
        A[w, dst, c] = A[w, src, c]


@njit(cache=True, _nrt=False)
def its_find(S, w, pc):
    """The row of the split at `pc`, or -1."""
    SP = S.ITS_SPLITS
    for k in range(S.W[w, W_NSPLITS]):
        if SP[w, k, SP_PC] == pc:
            return k
    return -1


@njit(cache=True, _nrt=False)
def its_lanes_at(S, w, pc):
    k = its_find(S, w, pc)
    return S.ITS_SPLITS[w, k, SP_LANES] if k >= 0 else 0


@njit(cache=True, _nrt=False)
def its_add(S, w, lanes, to):
    """ItsState.add: `lanes` are ready at `to` (joining a split there, or a new last one)."""
    if not lanes:
        return
    SP, W = S.ITS_SPLITS, S.W
    k = its_find(S, w, to)
    if k >= 0:
        SP[w, k, SP_LANES] |= lanes
        return
    n = W[w, W_NSPLITS]
    W[w, W_SEQ] += 1
    SP[w, n, SP_PC], SP[w, n, SP_LANES], SP[w, n, SP_SEQ] = to, lanes, W[w, W_SEQ]
    W[w, W_NSPLITS] = n + 1


@njit(cache=True, _nrt=False)
def its_drop(S, w, k):
    """Remove row k of the splits, keeping the others' order."""
    SP, W = S.ITS_SPLITS, S.W
    n = W[w, W_NSPLITS]
    for j in range(k, n - 1):
        copy_row(SP, w, j, j + 1)
    W[w, W_NSPLITS] = n - 1


@njit(cache=True, _nrt=False)
def its_leave(S, w, lanes, pc):
    """ItsState.leave: `lanes` stop being ready at `pc`."""
    k = its_find(S, w, pc)
    if k < 0:
        return
    rest = S.ITS_SPLITS[w, k, SP_LANES] & ~lanes
    if rest:
        S.ITS_SPLITS[w, k, SP_LANES] = rest
    else:
        its_drop(S, w, k)


@njit(cache=True, _nrt=False)
def its_move(S, w, lanes, pc, to):
    if lanes:
        its_leave(S, w, lanes, pc)
        its_add(S, w, lanes, to)


@njit(cache=True, _nrt=False)
def its_let_go(S, w, A, n, go, lanes_col, pc_col, step, live):
    """The rows k < n of warp w's table A with go[k]: their lanes (those in `live`) are ready at
    their pc + `step`, in row order; the other rows close up, keeping theirs. The rows left."""
    kept = 0
    for k in range(n):
        if go[k]:
            its_add(S, w, A[w, k, lanes_col] & live, A[w, k, pc_col] + step)
        else:
            copy_row(A, w, kept, k)
            kept += 1
    return kept


@njit(cache=True, _nrt=False)
def its_select(S, w, now):
    """select_split: wake the sleepers due by `now`, then make the current split (or the first, if
    it is gone) the warp's pc and active lanes; False when no lane is ready."""
    W, SL = S.W, S.ITS_SLEEP
    n = W[w, W_NSLEEP]
    if n:                                               # ItsState.wake, in the sleepers' order
        for k in range(n):
            S.FLAGS[k] = SL[w, k, SL_WAKE] <= now
        W[w, W_NSLEEP] = its_let_go(S, w, SL, n, S.FLAGS, SL_LANES, SL_PC, 0, M32)
    k = its_find(S, w, W[w, W_CURRENT])
    if k < 0:
        if W[w, W_NSPLITS] == 0:
            W[w, W_ACTIVE] = 0
            return False
        k = 0
        W[w, W_CURRENT] = S.ITS_SPLITS[w, 0, SP_PC]
    W[w, W_PC] = W[w, W_CURRENT]
    W[w, W_ACTIVE] = S.ITS_SPLITS[w, k, SP_LANES]
    return True


@njit(cache=True, _nrt=False)
def its_release(S, w):
    """release_waiting: lanes waiting at a BSYNC or WARPSYNC go on where everything they wait for
    has arrived (or exited, or yielded, or waits elsewhere)."""
    W, BS, WS, G = S.W, S.ITS_BSYNC, S.ITS_WARPSYNC, S.G
    live = W[w, W_PRESENT] & ~W[w, W_EXITED]
    changed, released = True, False
    while changed:
        changed = False
        ready = 0
        for k in range(W[w, W_NSPLITS]):
            ready |= S.ITS_SPLITS[w, k, SP_LANES]
        last = 0
        while True:                                     # each barrier's meeting, oldest first
            n, seq = -1, 0
            for x in range(CONVERGENCE_BARRIERS):
                t = S.ITS_BSYNC_SEQ[w, x]
                if t > last and (n < 0 or t < seq):
                    n, seq = x, t
            if n < 0:
                break
            last = seq
            arrived = 0
            for k in range(W[w, W_NBSYNC]):
                if BS[w, k, BS_BARRIER] == n:
                    arrived |= BS[w, k, BS_LANES]
            if S.ITS_BARRIERS[w, n] & live & ~arrived & ready & ~W[w, W_YIELDED]:
                continue                                 # a lane that can still come by running
            S.ITS_BSYNC_SEQ[w, n] = 0
            S.ITS_BARRIERS[w, n] &= ~arrived             # yielded lanes still in it pass its BSYNC alone
            for k in range(W[w, W_NBSYNC]):
                S.FLAGS[k] = BS[w, k, BS_BARRIER] == n
            W[w, W_NBSYNC] = its_let_go(S, w, BS, W[w, W_NBSYNC], S.FLAGS, BS_LANES, BS_PC, 8, live)
            changed = released = True
        n = W[w, W_NWARPSYNC]                           # a meeting: the lanes waiting with one mask
        done = S.FLAGS
        anything = False
        for k in range(n):
            need, arrived = WS[w, k, WS_NEED], 0
            for j in range(n):
                if WS[w, j, WS_NEED] == need:
                    arrived |= WS[w, j, WS_LANES]
            done[k] = not (need & live & ~arrived)
            anything |= done[k]
        if anything:
            W[w, W_NWARPSYNC] = its_let_go(S, w, WS, n, done, WS_LANES, WS_PC, 8, live)
            changed = released = True
    if released:
        G[G_LAST_CHANGE] = G[G_NOW]


@njit(cache=True, _nrt=False)
def its_control(S, T, i, w, m, now):
    """its_issue for a control instruction (or an ordinary one's advance): the delay before the warp
    may issue again, or -1 after a fault."""
    W = S.W
    pc = W[w, W_PC]
    split = its_lanes_at(S, w, pc)
    op, nxt = T[i, T_OP], pc + 8
    if T[i, T_KIND] == 0 or op == OP_BAR:              # _advance
        its_move(S, w, split, pc, nxt)
        W[w, W_CURRENT] = nxt
        return 1
    if op == OP_BRA:
        if m and m != split and T[i, T_MODE]:
            fail(S, E_ITS_BRA_U, 0, pc, 0)
            return -1
        its_move(S, w, m, pc, T[i, T_TARGET])
        its_move(S, w, split & ~m, pc, nxt)
        W[w, W_CURRENT] = nxt if split & ~m else T[i, T_TARGET]   # fall-through lanes go on
        return S.cfg[C_BRANCH] if m == split else 1
    if op == OP_SSY or op == OP_PBK or op == OP_BRK:
        fail(S, E_STACK_IN_ITS, 0, pc, op)
        return -1
    if op == OP_BSSY:
        S.ITS_BARRIERS[w, T[i, T_MODE]] = split
        its_move(S, w, split, pc, nxt)
        W[w, W_CURRENT] = nxt
        return 1
    if op == OP_BSYNC:
        n = T[i, T_MODE]
        members = split & S.ITS_BARRIERS[w, n]
        its_leave(S, w, split, pc)
        W[w, W_YIELDED] &= ~split
        if members:
            if not S.ITS_BSYNC_SEQ[w, n]:
                W[w, W_SEQ] += 1
                S.ITS_BSYNC_SEQ[w, n] = W[w, W_SEQ]
            BS = S.ITS_BSYNC
            k = 0
            while k < W[w, W_NBSYNC] and not (BS[w, k, BS_BARRIER] == n and BS[w, k, BS_PC] == pc):
                k += 1
            if k == W[w, W_NBSYNC]:
                BS[w, k, BS_BARRIER], BS[w, k, BS_PC], BS[w, k, BS_LANES] = n, pc, 0
                W[w, W_NBSYNC] = k + 1
            BS[w, k, BS_LANES] |= members
        if split & ~members:                            # not (or no longer) in Bn: nothing to wait for
            its_add(S, w, split & ~members, nxt)
            W[w, W_CURRENT] = nxt
    elif op == OP_BREAK:
        S.ITS_BARRIERS[w, T[i, T_MODE]] &= ~m
        its_move(S, w, split, pc, nxt)
        W[w, W_CURRENT] = nxt
    elif op == OP_WARPSYNC:
        its_leave(S, w, split, pc)
        W[w, W_YIELDED] &= ~split
        WS = S.ITS_WARPSYNC
        first = W[w, W_NWARPSYNC]
        for lane in range(32):                          # each lane waits for its own mask's lanes
            if (split >> lane) & 1:
                need = src(T, i, 0, S.regs, S.preds, w, lane) & M32
                k = first
                while k < W[w, W_NWARPSYNC] and WS[w, k, WS_NEED] != need:
                    k += 1
                if k == W[w, W_NWARPSYNC]:
                    WS[w, k, WS_PC], WS[w, k, WS_LANES], WS[w, k, WS_NEED] = pc, 0, need
                    W[w, W_NWARPSYNC] = k + 1
                WS[w, k, WS_LANES] |= 1 << lane
    elif op == OP_YIELD:
        W[w, W_YIELDED] |= split
        its_move(S, w, split, pc, nxt)
        k = its_find(S, w, nxt)                         # the split queues behind the others
        if k >= 0:
            SP = S.ITS_SPLITS
            lanes, seq = SP[w, k, SP_LANES], SP[w, k, SP_SEQ]
            its_drop(S, w, k)
            n = W[w, W_NSPLITS]
            SP[w, n, SP_PC], SP[w, n, SP_LANES], SP[w, n, SP_SEQ] = nxt, lanes, seq
            W[w, W_NSPLITS] = n + 1
        W[w, W_CURRENT] = S.ITS_SPLITS[w, 0, SP_PC]
    elif op == OP_NANOSLEEP:
        if m:
            cycles = src(T, i, 0, S.regs, S.preds, w, lowest(m))
            W[w, W_YIELDED] |= m
            its_leave(S, w, m, pc)
            k = W[w, W_NSLEEP]
            SL = S.ITS_SLEEP
            SL[w, k, SL_WAKE], SL[w, k, SL_PC], SL[w, k, SL_LANES] = now + max(1, cycles), nxt, m
            W[w, W_NSLEEP] = k + 1
        its_move(S, w, split & ~m, pc, nxt)
        W[w, W_CURRENT] = nxt
    else:                                               # EXIT
        W[w, W_EXITED] |= m
        W[w, W_YIELDED] &= ~m
        its_leave(S, w, m, pc)
        its_move(S, w, split & ~m, pc, nxt)
        W[w, W_CURRENT] = nxt
    its_release(S, w)
    return 1


@njit(cache=True, _nrt=False)
def its_step(S, T, i, w, m, now):
    """Simulator._its_step: issue any instruction of an ITS warp for its current split, then choose
    the split to run next: 0, or EV_ERROR."""
    W = S.W
    pc = W[w, W_PC]
    delay, reason = 1, R_DEP
    if T[i, T_KIND] == 0:
        latency = -1
        if m:
            latency = run_op(S, T, i, w, m)
            if latency == -2:
                return EV_ERROR
        if T[i, T_MEMBAR]:
            delay, reason = (latency if latency > 0 else 1), R_MEMBAR
        else:
            write_scoreboard(S, T, i, w, now, latency)
        its_control(S, T, i, w, m, now)
    elif T[i, T_OP] == OP_BAR and m:                    # _its_bar: only the split's lanes wait
        split = its_lanes_at(S, w, pc)
        its_leave(S, w, split, pc)
        W[w, W_PC] = pc + 8
        if barrier(S, T, i, w, split) == EV_ERROR:
            return EV_ERROR
        its_release(S, w)
    else:
        delay = its_control(S, T, i, w, m, now)
        if delay < 0:
            return EV_ERROR
        reason = R_BRANCH
    if T[i, T_SYNC]:
        return fail(S, E_SYNC_IN_ITS, 0, pc, 0)
    if not its_select(S, w, now):                       # Simulator._its_idle
        if not (W[w, W_PRESENT] & ~W[w, W_EXITED]):
            finish_warp(S, w)
        elif W[w, W_NSLEEP]:                            # every ready lane sleeps: wake the first
            wake = INF
            for k in range(W[w, W_NSLEEP]):
                wake = min(wake, S.ITS_SLEEP[w, k, SL_WAKE])
            W[w, W_WAIT], W[w, W_READY], W[w, W_REASON] = WAIT_SLEEP, max(now + 1, wake), R_SLEEP
        else:
            W[w, W_WAIT], W[w, W_READY] = WAIT_SYNC, INF     # every live lane waits
        return 0
    next_issue(S, w, now, delay, reason)
    return 0


# ---- issuing (Simulator.issue / _next / _simt_control) ---------------------------------------------

@njit(cache=True, _nrt=False)
def next_issue(S, w, now, delay, reason):
    """The warp may issue again `delay` cycles from now, or later if an operand is not ready."""
    W, T = S.W, S.T
    ready = now + delay
    W[w, W_REASON] = reason if delay > 1 else R_DEP
    nxt = W[w, W_PC] >> 3
    if nxt < T.shape[0]:
        start = T[nxt, T_DEPS]
        for k in range(start, start + T[nxt, T_NDEPS]):
            t = S.sb[w, S.slots[k]]
            if t > ready:
                ready = t
                W[w, W_REASON] = R_DEP
    W[w, W_READY] = ready


@njit(cache=True, _nrt=False)
def write_scoreboard(S, T, i, w, now, latency):
    """The registers instruction i writes are ready `latency` cycles from now (-1: its unit's)."""
    nw = T[i, T_NWRITES]
    if nw:
        ready = now + (latency if latency >= 0 else T[i, T_LAT])
        start = T[i, T_WRITES]
        for k in range(start, start + nw):
            S.sb[w, S.slots[k]] = ready


@njit(cache=True, _nrt=False)
def pair_half(d, half):
    """The register of a .64 access's word: the pair's first (half 0) or second; RZ stays RZ."""
    return d if d == 63 else d + half


@njit(cache=True, _nrt=False)
def memory_access(S, T, i, w, m, space, half):
    if space == 0:
        return shared_op(S, T, i, w, m, half)
    if space == 1:
        return global_op(S, T, i, w, m, half)
    return local_op(S, T, i, w, m, half)


@njit(cache=True, _nrt=False)
def wide_access(S, T, i, w, m, space):
    """execute._wide: a word access, or a .64 one as the low word's then the high word's (the later
    latency; a fault in either stops it there)."""
    first = memory_access(S, T, i, w, m, space, 0)
    if not T[i, T_WIDE] & WIDE_FIRST or first == -2 or T[i, T_OP] == OP_ATOM:   # (ATOM.CAS.64: one access)
        return first
    second = memory_access(S, T, i, w, m, space, 1)
    return -2 if second == -2 else max(first, second)


@njit(cache=True, _nrt=False)
def run_op(S, T, i, w, m):
    op = T[i, T_OP]
    if op == OP_LDS or op == OP_STS or op == OP_LDSLK or op == OP_STSUL:
        return wide_access(S, T, i, w, m, 0)
    if op == OP_LD or op == OP_ST or op == OP_ATOM or op == OP_RED:
        return wide_access(S, T, i, w, m, 1)
    if op == OP_LDL or op == OP_STL:
        return wide_access(S, T, i, w, m, 2)
    if op == OP_MEMBAR:
        return fence(S, w, T[i, T_MODE])
    if op == OP_BPT:                                   # execute._bpt: the kernel stops
        fail(S, E_TRAP, lowest(m), i << 3, 0)
        return -2
    return alu(S, T, i, w, m)


@njit(cache=True, _nrt=False)
def sync(S, w):
    """`.S`: the active lanes are done with this path; resume the next one from the stack."""
    if S.W[w, W_SP] == 0:
        return fail(S, E_SYNC_EMPTY, 0, S.W[w, W_PC] - 8, 0)
    pop(S, w)
    return 0


@njit(cache=True, _nrt=False)
def control(S, T, i, w, m, now):
    """A control instruction: 0, or EV_ERROR. Sets the warp's next issue unless it now waits."""
    W, cfg = S.W, S.cfg
    op, pc, active = T[i, T_OP], W[w, W_PC], W[w, W_ACTIVE]
    delay, reason = 1, R_DEP
    if op >= OP_BSSY:                                  # Simulator._its_only
        return fail(S, E_NEEDS_ITS, 0, pc, op)
    if op == OP_BRA:
        if m == active:
            W[w, W_PC] = T[i, T_TARGET]
            delay, reason = cfg[C_BRANCH], R_BRANCH
        elif m == 0:
            W[w, W_PC] = pc + 8
            reason = R_BRANCH
        else:
            if T[i, T_MODE]:
                return fail(S, E_BRA_U, m, pc, active & ~m)
            if push(S, w, DIV, m, T[i, T_TARGET]):
                return EV_ERROR
            W[w, W_ACTIVE] = active & ~m
            W[w, W_PC] = pc + 8
            delay, reason = cfg[C_BRANCH], R_BRANCH
            if cfg[C_TRACE]:
                log_event(S, LOG_DIVERGED, now, w, pc)
    elif op == OP_SSY or op == OP_PBK:
        if push(S, w, SSY if op == OP_SSY else PBK, active, T[i, T_TARGET]):
            return EV_ERROR
        W[w, W_PC] = pc + 8
        delay, reason = cfg[C_STACK], R_STACK
    elif op == OP_EXIT:
        W[w, W_PC] = pc + 8
        if m:
            W[w, W_EXITED] |= m
            W[w, W_ACTIVE] &= ~m
            if not W[w, W_ACTIVE]:
                if not pop(S, w):
                    finish_warp(S, w)
                    return 0
                delay, reason = cfg[C_STACK], R_STACK
    elif op == OP_BRK:
        W[w, W_PC] = pc + 8
        if m:
            leave(S, w, m, True)
            if not W[w, W_ACTIVE]:
                pop(S, w)
                delay, reason = cfg[C_STACK], R_STACK
    else:                                              # BAR
        W[w, W_PC] = pc + 8
        if m:
            waits = barrier(S, T, i, w, 0)
            if waits == EV_ERROR:
                return EV_ERROR
            if waits:
                return sync(S, w) if T[i, T_SYNC] else 0
    if T[i, T_SYNC]:
        if sync(S, w):
            return EV_ERROR
        delay, reason = max(delay, cfg[C_STACK]), R_STACK
    next_issue(S, w, now, delay, reason)
    return 0


@njit(cache=True, _nrt=False)
def issue(S, w, now):
    """Issue the warp's next instruction at cycle `now` (Simulator.issue): 0, or an event."""
    W, T, G = S.W, S.T, S.G
    if W[w, W_WAIT] != WAIT_NONE:     # ITS sleep: the first sleeper's time has come (a warp at a barrier,
        W[w, W_WAIT] = WAIT_NONE      # a convergence wait or done is never picked)
        its_select(S, w, now)
    pc = W[w, W_PC]
    i = pc >> 3
    if i >= T.shape[0] or pc & 7:
        S.ERR[4] = w
        return fail(S, E_OFF_END, 0, pc, 0)
    room = 64 if T[i, T_WIDE] else 32               # a store per lane (ST.64: two)
    if S.cfg[C_WEAK] and T[i, T_OP] == OP_ST and (S.NUM[N_FREE] < room or S.HEAP.shape[0] - S.NUM[N_HEAP] < room
                                                  or 2 * (S.NUM[N_USED] + room) > S.HK.shape[0]):
        return EV_GROW                              # before anything changes: the bridge grows, then retries
    trace = S.cfg[C_TRACE]
    if trace and G[G_LOGGED] + S.cfg[C_LOG_ROOM] > S.LOG.shape[0]:
        return EV_LOG                               # the same: the bridge replays the log, then retries
    G[G_LASTW], G[G_LASTPC] = w, pc
    gap = now - W[w, W_LAST]
    S.stat_cycles[i] += gap
    if gap > 1:
        ready = W[w, W_READY]
        waited = gap - 1 if ready == INF else min(gap - 1, max(0, ready - W[w, W_LAST] - 1))
        if waited:
            S.stalls[W[w, W_REASON]] += waited
        if gap - 1 > waited:
            S.stalls[R_NOTSEL] += gap - 1 - waited
    W[w, W_LAST] = now
    m = W[w, W_ACTIVE]
    if T[i, T_GUARD] >= 0:
        g = pred_mask(S.preds, w, T[i, T_GUARD], T[i, T_GNEG])
        m &= g
    if trace == TRACE_ISSUES:
        log_event(S, LOG_ISSUED, now, w, 0)
    S.stat_issues[i] += 1
    n = popcount(m)
    S.stat_lanes[i] += n
    G[G_WI] += 1
    G[G_TI] += n
    W[w, W_ISSUED] += 1
    if S.cfg[C_ITS]:
        return its_step(S, T, i, w, m, now)
    if T[i, T_KIND] != 0:
        return control(S, T, i, w, m, now)
    latency = -1
    if m:
        latency = run_op(S, T, i, w, m)
        if latency == -2:
            return EV_ERROR
    W[w, W_PC] = pc + 8
    if T[i, T_MEMBAR]:
        next_issue(S, w, now, latency if latency > 0 else 1, R_MEMBAR)
        return 0
    write_scoreboard(S, T, i, w, now, latency)
    if T[i, T_SYNC]:
        if sync(S, w):
            return EV_ERROR
        next_issue(S, w, now, S.cfg[C_STACK], R_STACK)
        return 0
    ready = now + 1
    nxt = (pc + 8) >> 3
    if nxt < T.shape[0]:
        start = T[nxt, T_DEPS]
        for k in range(start, start + T[nxt, T_NDEPS]):
            t = S.sb[w, S.slots[k]]
            ready = max(ready, t)
    W[w, W_READY] = ready
    W[w, W_REASON] = R_DEP
    return 0


# ---- the main loop (Simulator.advance) -------------------------------------------------------------

@njit(cache=True, _nrt=False)
def advance(state):
    """Simulate from where the last call stopped until an event: EV_FINISHED, EV_DEADLOCK,
    EV_BUDGET (the clock passed G_UNTIL), EV_CHECK (G_CHECK_AT instructions were issued),
    EV_BLOCK_DONE (G_EVENT_ARG's block finished; resume after the bridge launched more), EV_ERROR,
    EV_GROW / EV_LOG (the bridge makes room, then resumes with the warp it was about to issue)."""
    S = by_ref(state)
    G, SCH, cfg = S.G, S.SCH, S.cfg
    nsms, nsched = cfg[C_SMS], cfg[C_SCHEDULERS]
    until = G[G_UNTIL]
    while G[G_LIVE_BLOCKS] > 0 or G[G_SM] >= 0:     # a cycle begun is finished, as in the reference
        now = G[G_NOW]
        sm0, k0 = G[G_SM], G[G_SCHED]
        resumed = sm0 >= 0                            # in the middle of a cycle, after an event
        pending = -1
        if resumed:
            issued, soonest, pending = G[G_ISSUED], G[G_SOONEST], G[G_PENDING]
            G[G_PENDING] = -1
        else:
            if G[G_NEXT_DRAIN] <= now:
                drain(S, now)
            sm0, k0, issued, soonest = 0, 0, 0, INF
        G[G_SM] = -1
        for sm in range(sm0, nsms):
            first = k0 if sm == sm0 else 0
            if S.SMB[sm] == 0 and not (resumed and sm == sm0):
                continue
            for k in range(first, nsched):
                s = sm * nsched + k
                w = pending
                if w >= 0:                              # picked before EV_GROW: issue it now
                    pending = -1
                else:
                    wake = SCH[s, S_WAKE]
                    if wake <= now:
                        w = pick(S, s, now)
                        if w < 0:
                            idle(S, s)
                            wake = SCH[s, S_WAKE]
                    if w < 0:
                        soonest = min(soonest, wake)
                        continue
                ev = issue(S, w, now)
                if ev == EV_GROW or ev == EV_LOG:
                    G[G_SM], G[G_SCHED], G[G_ISSUED], G[G_SOONEST], G[G_PENDING] = sm, k, issued, soonest, w
                    return ev
                issued += 1
                if ev == 0 and G[G_EVENT]:
                    ev = G[G_EVENT]
                    G[G_EVENT] = 0
                if ev:
                    G[G_SM], G[G_SCHED], G[G_ISSUED], G[G_SOONEST] = sm, k + 1, issued, soonest
                    return ev
        if issued:
            G[G_NOW] = now + 1
            if G[G_WI] >= G[G_CHECK_AT]:
                return EV_CHECK
        else:
            if soonest >= INF:
                return EV_DEADLOCK
            G[G_NOW] = soonest
        if G[G_NOW] > until:
            return EV_BUDGET
    return EV_FINISHED

