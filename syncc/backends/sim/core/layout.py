"""The compiled core's view of a launch: the kernel's instructions as rows of integers, and the
names of the columns of every flat state array (so that the engine and the bridge agree).

    code = encode(sim)          # Code: one row of T per instruction, plus the scoreboard slots

A row holds what decode() gave the reference engine, as numbers: the opcode (OPS), the kind
(KINDS), the guard, the destinations, up to four source operands (a register with its `-`/`~`,
or an immediate already read from the constant bank) and the modifiers that change meaning.

numba compiles these numbers into the engine as constants, and its disk cache checks only
engine.py's own source: after changing a number here, change engine.py too (or delete
core/__pycache__), or the cached engine keeps the old one. docs/fermi.md ("Adding an
instruction") says what a new opcode needs here and in engine.py.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from ...fermi.isa import CARRY, F2F_ROUND, FCMP, MUFU_FN, RZ, ConstBankWord, Mem, Pred, SassImm, SassReg, Special
from ..execute import Kind, immediate, sync_points

# ---- opcodes the engine implements (anything else keeps the launch on the reference engine), and
# the number of each: OP_MOV is OPS.index("MOV") (tests/engines/test_interface.py checks that the
# two lists agree). The engine compares T_OP with these; numba compiles them as constants.
OPS = ("MOV", "MOV32I", "S2R", "IADD", "IADD32I", "ISCADD", "IMUL", "IMAD", "SHL", "SHR", "LOP", "LOP32I",
       "IMNMX", "SEL", "POPC", "ISETP", "PSETP", "VOTE", "NOP", "LDS", "STS", "LDSLK", "STSUL", "LD", "ST",
       "LDL", "STL", "ATOM", "RED", "MEMBAR", "BPT",
       "BRA", "SSY", "PBK", "BRK", "EXIT", "BAR",
       "BSSY", "BSYNC", "BREAK", "WARPSYNC", "YIELD", "NANOSLEEP",
       "FADD", "FMUL", "FFMA", "FMNMX", "FSETP", "F2I", "I2F", "F2F", "MUFU",
       "DADD", "DMUL", "DFMA", "DMNMX", "DSETP")
(OP_MOV, OP_MOV32I, OP_S2R, OP_IADD, OP_IADD32I, OP_ISCADD, OP_IMUL, OP_IMAD, OP_SHL, OP_SHR,
 OP_LOP, OP_LOP32I, OP_IMNMX, OP_SEL, OP_POPC, OP_ISETP, OP_PSETP, OP_VOTE, OP_NOP, OP_LDS, OP_STS,
 OP_LDSLK, OP_STSUL, OP_LD, OP_ST, OP_LDL, OP_STL, OP_ATOM, OP_RED, OP_MEMBAR, OP_BPT, OP_BRA,
 OP_SSY, OP_PBK, OP_BRK, OP_EXIT, OP_BAR,
 OP_BSSY, OP_BSYNC, OP_BREAK, OP_WARPSYNC, OP_YIELD, OP_NANOSLEEP,
 OP_FADD, OP_FMUL, OP_FFMA, OP_FMNMX, OP_FSETP, OP_F2I, OP_I2F, OP_F2F, OP_MUFU,
 OP_DADD, OP_DMUL, OP_DFMA, OP_DMNMX, OP_DSETP) = range(57)
OP = {name: i for i, name in enumerate(OPS)}
KINDS = (Kind.OP, Kind.BRA, Kind.SSY, Kind.PBK, Kind.BRK, Kind.EXIT, Kind.BAR,
         Kind.BSSY, Kind.BSYNC, Kind.BREAK, Kind.WARPSYNC, Kind.YIELD, Kind.NANOSLEEP)
KIND = {k: i for i, k in enumerate(KINDS)}

# ---- columns of T (one row per instruction)
(T_OP, T_KIND, T_GUARD, T_GNEG, T_SYNC, T_MEMBAR, T_TARGET, T_LAT, T_D, T_D2,
 T_MODE, T_MODE2, T_SIGNED, T_HI, T_IMMSH, T_MEMBASE, T_MEMOFF, T_DEPS, T_NDEPS, T_WRITES, T_NWRITES,
 T_WIDE, T_A) = range(23)
OPERAND = 4                 # columns per source operand from T_A: type, value, neg, inv
T_HUNT = T_A + 4 * OPERAND  # 1: a synchronization point, where hunt:SEED may preempt (execute.sync_points)
T_COLS = T_HUNT + 1
O_NONE, O_REG, O_IMM, O_PRED = 0, 1, 2, 3

CMP = {"LT": 0, "EQ": 1, "LE": 2, "GT": 3, "NE": 4, "GE": 5, "F": 6, "T": 7}
BOOL = {"AND": 0, "OR": 1, "XOR": 2}
LOP = {"AND": 0, "OR": 1, "XOR": 2, "PASS_B": 3}
VOTE = {"ANY": 0, "ALL": 1, "EQ": 2}
SPECIAL = {"SR_Tid_X": 0, "SR_Tid_Y": 1, "SR_Tid_Z": 2, "SR_CTAid_X": 3, "SR_CTAid_Y": 4, "SR_CTAid_Z": 5,
           "SR_LaneId": 6, "SR_LanemaskLt": 7, "SR_ClockLo": 8, "SR_ClockHi": 9,
           "SR_GlobalTimerLo": 10}
ATOMIC = {"ADD": 0, "MIN": 1, "MAX": 2, "INC": 3, "DEC": 4, "AND": 5, "OR": 6, "XOR": 7, "EXCH": 8, "CAS": 9,
          "ADD.F32": 10}
# FSETP's and DSETP's T_MODE is its test's 4-bit code (isa.FCMP); F2F's the rounding (isa.F2F_ROUND, or
# 3: none, to nearest); MUFU's its function (isa.MUFU_FN). T_WIDE: bit 0, the first operand (a destination,
# or a store's value) is a register pair (isa.pair_operands); bit 1, the first source is (F2F, F2I); a
# memory access with it is two word accesses, at the address and at address + 4
WIDE_FIRST, WIDE_SOURCE = 1, 2
# IADD's T_MODE: bit 0, .X (add the carry flag, predicate row isa.CARRY); bit 1, .CC (set it)
CARRY_IN, CARRY_OUT = 1, 2
BARMODE = {"SYNC": 0, "ARV": 1, "RED": 2}
RED = {"POPC": 0, "AND": 1, "OR": 2}

# ---- stall reasons (Stats.stalls keys), by number
REASONS = ("dependency", "memory barrier", "stack", "branch", "barrier", "not selected", "sleep")
R_DEP, R_MEMBAR, R_STACK, R_BRANCH, R_BARRIER, R_NOTSEL, R_SLEEP = range(7)

# ---- columns of the per-warp array W (int64), by warp slot; the last eight are an ITS warp's
# (its.ItsState): the lanes that exist, the current split's address, the lanes yielded, how many
# rows of ITS_SPLITS / ITS_BSYNC / ITS_WARPSYNC / ITS_SLEEP are in use, and the last sequence number
# given to a split or a BSYNC meeting (their order as the reference's dicts hold them)
(W_UID, W_PC, W_ACTIVE, W_EXITED, W_READY, W_LAST, W_ISSUED, W_REASON, W_WAIT, W_STORES,
 W_SP, W_SCHED, W_BLOCK, W_SM, W_INDEX,
 W_PRESENT, W_CURRENT, W_YIELDED, W_NSPLITS, W_NBSYNC, W_NWARPSYNC, W_NSLEEP, W_SEQ) = range(23)
W_COLS = 23
WAIT_NONE, WAIT_BAR, WAIT_DONE, WAIT_SYNC, WAIT_SLEEP = range(5)
WAITING = (None, "bar", "done", "sync", "sleep")   # Warp.waiting, by WAIT_*

# ---- an ITS warp's state (its.ItsState), by warp slot: up to 32 rows each (a lane is in one place
# at a time: ready in one split, or waiting at one BSYNC, WARPSYNC or in one sleep)
ITS_ROWS = 32
CONVERGENCE_BARRIERS = 16                           # B0..B15
(SP_PC, SP_LANES, SP_SEQ) = range(3)                # ITS_SPLITS: the run order (ItsState.order)
(BS_BARRIER, BS_PC, BS_LANES) = range(3)            # ITS_BSYNC: lanes waiting at a BSYNC, in arrival order
(WS_PC, WS_LANES, WS_NEED) = range(3)               # ITS_WARPSYNC: lanes waiting, and the mask they need
(SL_WAKE, SL_PC, SL_LANES) = range(3)               # ITS_SLEEP: NANOSLEEP's sleepers

# ---- the clock and the loop's place (G, int64)
(G_NOW, G_WI, G_TI, G_LAST_CHANGE, G_CHECK_AT, G_SM, G_SCHED, G_ISSUED, G_SOONEST, G_PENDING, G_EVENT,
 G_EVENT_ARG, G_LIVE_BLOCKS, G_UNTIL, G_NEXT_DRAIN, G_SEQ, G_HITS, G_MISSES, G_LASTW, G_LASTPC, G_L1_SEQ,
 G_LOGGED) = range(22)
G_COLS = 22
INF = 1 << 62               # a time that never comes (the reference's float inf)

# events: why the engine returned
(EV_FINISHED, EV_DEADLOCK, EV_BUDGET, EV_CHECK, EV_BLOCK_DONE, EV_ERROR, EV_GROW, EV_LOG) = range(8)
(N_FREE, N_USED, N_HEAP) = range(3)   # NUM: free pool rows, hash slots used (tombstones too), heap rows


# ---- columns of the launch's configuration (C, int64), filled by bridge.Core from FermiConfig
(C_SCHEDULERS, C_POLICY, C_WEAK, C_SEED, C_SHARED_LAT, C_SHARED_REPLAY, C_LOCK_REPLAY, C_GLOBAL_LAT,
 C_GSTORE_LAT, C_L1_LAT, C_L1_LINES, C_SM_JITTER, C_STORE_JITTER, C_STRAGGLER_EVERY, C_STRAGGLER_DELAY,
 C_ATOMIC_LAT, C_ATOMIC_OCC, C_MEMBAR_CTA, C_MEMBAR_GL, C_BRANCH, C_STACK, C_BARRIER_LAT, C_NAMED_BARRIERS,
 C_BANKS, C_LOCK_BITS, C_SHARED_BYTES, C_LOCAL_BYTES, C_SMS, C_BLOCK_X, C_BLOCK_Y, C_GLOBAL_BASE,
 C_NGLOBAL, C_PREEMPT_EVERY, C_PREEMPT_CYCLES, C_TRACE, C_LOG_ROOM, C_CLOCK_MHZ, C_ITS, C_HUNT) = range(39)
C_COLS = 39
POLICY = {"lrr": 0, "gto": 1, "adversarial": 2, "random:SEED": 3, "adversarial:SEED": 4,
          "hunt:SEED": 4}          # adversarial:SEED's picks, preempting at T_HUNT rows only (C_HUNT)
P_RANDOM, P_RANKED = POLICY["random:SEED"], POLICY["adversarial:SEED"]
MT_WORDS = 624              # the Mersenne Twister's state (MT[s, MT_WORDS] is its index), as random.Random

# ---- a resident block (B, int64, by block slot) and its named barriers (BAR, by slot and id)
(B_LIVE, B_BASE, B_SM, B_X, B_Y, B_Z, B_NWARPS, B_STAMPS) = range(8)
B_COLS = 8
(BAR_PRESENT, BAR_EXPECTED, BAR_ARRIVED, BAR_POPC, BAR_ALL, BAR_ANY, BAR_STORES, BAR_NWAIT, BAR_STAMP) = range(9)
BAR_COLS = 9
(BW_WARP, BW_DEST, BW_RED, BW_PC, BW_LANES) = range(5)   # one waiter: its slot, result register,
BW_COLS = 5                                                # reduction, pc, and an ITS split's lanes (else 0)

# ---- swriter / gwriter rows: (warp uid + 1, lane, pc) of a word's last writer; 0 is nobody, so the
# arrays start as zeros (free until a page is written: a launch's set-up fills nothing)

# ---- scheduler columns (SCH, by scheduler: SM * schedulers + k)
(S_N, S_LAST, S_WAKE, S_PREEMPT) = range(4)
S_COLS = 4

# ---- the event log, for observers (a trace, the fence witness): with C_TRACE set, the engine
# appends a row per event to LOG (G_LOGGED rows so far) and returns EV_LOG before an issue that
# might not fit (C_LOG_ROOM rows: one issue's most events); the bridge replays the rows
TRACE_EVENTS, TRACE_ISSUES = 1, 2                  # C_TRACE: what to log (ISSUES includes EVENTS)
(LOG_ISSUED, LOG_DIVERGED, LOG_BARRIER_WAIT, LOG_BARRIER_RELEASED, LOG_WARP_FINISHED) = range(5)
# a row: the event; its cycle; the warp's slot, pc, active lanes (bit i = lane i) and issued count
# then; the event's argument (a barrier id, a branch's pc); lock bits the warp holds and its SM's
# taken (LOG_ISSUED before the instruction acts, LOG_WARP_FINISHED; else -1)
(L_KIND, L_NOW, L_SLOT, L_PC, L_ACTIVE, L_ISSUED, L_ARG, L_HELD, L_TAKEN) = range(9)
L_COLS = 9

# ---- errors (EV_ERROR, with ERR = code, lane, address, why)
(E_OFF_END, E_BRA_U, E_BAR_ID, E_SYNC_EMPTY, E_OVERFLOW, E_SHARED, E_GLOBAL, E_LOCAL, E_TRAP,
 E_NEEDS_ITS, E_STACK_IN_ITS, E_SYNC_IN_ITS, E_ITS_BRA_U) = range(13)
MAX_STACK = 4096
SSY, PBK, DIV = 0, 1, 2     # SIMT stack entry kinds: entry = kind | mask << 2 | pc << 34


@dataclass
class Code:
    T: np.ndarray           # (n, T_COLS) int64
    slots: np.ndarray       # the scoreboard slots of T_DEPS / T_WRITES ranges


_ENCODED: dict[int, dict[tuple, Code]] = {}    # id(kernel) → (latencies, constant bank) → Code


def encode(sim) -> Code:
    """The launch's code as rows. A row depends on the kernel's instruction, its latency (the
    configuration) and the constant bank (the launch's shape and arguments) alone, so a launch
    like an earlier one of the same kernel shares that one's arrays (the engine only reads
    them); a property test launches one kernel thousands of times."""
    key = (tuple(d.latency for d in sim.code), tuple(sorted(sim.env.cbank.items())))
    kernel = sim.kernel
    done = _ENCODED.get(id(kernel))
    if done is None:
        done = {}
        try:
            weakref.finalize(kernel, _ENCODED.pop, id(kernel), None)
            _ENCODED[id(kernel)] = done
        except TypeError:                 # not weakly referable: nothing tells when its id is reused
            pass
    code = done.get(key)
    if code is None:
        code = done[key] = _encode(sim)
    return code


def _encode(sim) -> Code:
    env, code = sim.env, sim.code
    T = np.zeros((len(code), T_COLS), dtype=np.int64)
    T[:, T_HUNT] = sync_points(code)
    slots: list[int] = []
    for i, d in enumerate(code):
        ins = d.ins
        row = T[i]
        row[T_OP] = OP[ins.op]
        row[T_KIND] = KIND[d.kind]
        row[T_GUARD] = -1 if d.guard is None else d.guard
        row[T_GNEG] = d.guard_neg
        row[T_SYNC] = d.sync
        row[T_MEMBAR] = d.membar
        row[T_TARGET] = d.target
        row[T_LAT] = d.latency
        row[T_D] = row[T_D2] = -1
        row[T_DEPS], row[T_NDEPS] = len(slots), len(d.deps)
        slots.extend(d.deps)
        row[T_WRITES], row[T_NWRITES] = len(slots), len(d.writes)
        slots.extend(d.writes)
        _operands(row, ins, env)
    return Code(T, np.array(slots or [0], dtype=np.int64))


def _put(row, k: int, o, env) -> None:
    c = T_A + OPERAND * k
    if isinstance(o, SassReg):
        row[c:c + 4] = (O_REG, o.n, o.neg, o.inv)
    elif isinstance(o, Pred):
        row[c:c + 4] = (O_PRED, o.n, o.neg, 0)
    elif isinstance(o, (SassImm, ConstBankWord)):
        row[c:c + 2] = (O_IMM, immediate(o, env) & 0xFFFFFFFF)


def _operands(row, ins, env) -> None:
    """Destinations, sources and modifiers of one instruction, as the reference reads them."""
    op, ops, mods = ins.op, ins.operands, ins.mods
    pairs = ins.pairs
    first = 1 if op in ("ST", "STS", "STL") else 0
    row[T_WIDE] = (WIDE_FIRST if first in pairs else 0) | (WIDE_SOURCE if op in ("F2F", "F2I", "I2F") and 1 in pairs else 0)
    first_mem = next((o for o in ops if isinstance(o, Mem)), None)
    if first_mem is not None:
        row[T_MEMBASE], row[T_MEMOFF] = first_mem.base.n, first_mem.offset
    if op in ("BSSY", "BSYNC", "BREAK"):
        row[T_MODE] = ops[0].n                           # the convergence barrier
        return
    if op in ("WARPSYNC", "NANOSLEEP"):
        _put(row, 0, ops[0], env)                        # the mask, the cycles
        return
    if op in ("BRA", "SSY", "PBK", "BRK", "EXIT", "NOP", "MEMBAR", "BPT", "YIELD"):
        if op == "BRA":
            row[T_MODE] = "U" in mods                    # BRA.U: the lanes must agree
        elif op == "MEMBAR":
            row[T_MODE] = mods[0] == "CTA"
        return
    if op == "BAR":
        row[T_MODE] = BARMODE[mods[0]]
        row[T_MODE2] = RED.get(mods[1], 0) if len(mods) > 1 else 0
        rest = list(ops)
        if mods[0] == "RED":
            row[T_D] = rest.pop(0).n
        if rest and isinstance(rest[-1], Pred):
            _put(row, 3, rest.pop(), env)
        for k, o in enumerate(rest[:2]):
            _put(row, k, o, env)
        return
    if op in ("ISETP", "PSETP", "FSETP", "DSETP"):
        row[T_D], row[T_D2] = ops[0].n, ops[1].n
        if op in ("FSETP", "DSETP"):
            row[T_MODE] = FCMP.index(mods[0])
            bools = mods
        elif op == "ISETP":
            row[T_MODE] = CMP[mods[0]]
            row[T_SIGNED] = "U32" not in mods
            bools = mods
        else:
            row[T_MODE] = BOOL[mods[0]]
            bools = mods[1:]
        row[T_MODE2] = BOOL[next((m for m in bools[::-1] if m in BOOL), "AND")]
        for k, o in enumerate(ops[2:5]):
            _put(row, k, o, env)
        return
    if op == "VOTE":
        row[T_D], row[T_D2] = ops[0].n, ops[1].n
        row[T_MODE] = VOTE.get(mods[0], 2)
        _put(row, 0, ops[2], env)
        return
    if op in ("ST", "STS", "STSUL", "STL"):
        row[T_D] = ops[1].n                              # the value register
        return
    if op == "LDSLK":
        row[T_D2], row[T_D] = ops[0].n, ops[1].n
        return
    if op in ("ATOM", "RED"):
        returns = op == "ATOM"
        row[T_D] = ops[0].n if returns else RZ
        kind = next(m for m in mods if m not in ("E", "U32", "S32", "F32", "FTZ", "RN"))
        row[T_MODE] = ATOMIC[kind + ".F32" if "F32" in mods else kind]
        row[T_SIGNED] = "S32" in mods
        row[T_MODE2] = (ops[2] if returns else ops[1]).n  # b
        row[T_HI] = ops[3].n if returns and len(ops) > 3 else RZ   # c (CAS)
        return
    row[T_D] = ops[0].n
    if op in ("LD", "LDS", "LDL"):
        row[T_MODE] = not ({"CG", "CV"} & set(mods))     # LD: through L1
        return
    if op == "S2R":
        row[T_MODE] = SPECIAL[ops[1].name]
        return
    if op == "IADD":
        row[T_MODE] = (CARRY_IN if "X" in mods else 0) | (CARRY_OUT if "CC" in mods else 0)
    if op in ("LOP", "LOP32I"):
        row[T_MODE] = LOP[mods[0]]
    elif op in ("IMUL", "IMAD"):
        row[T_SIGNED] = mods[:1] == ("S32",) or mods[1:2] == ("S32",)
        row[T_HI] = "HI" in mods
    elif op in ("SHR", "IMNMX"):
        row[T_SIGNED] = "U32" not in mods
    elif op in ("F2I", "I2F"):
        row[T_SIGNED] = "S32" in mods or "S64" in mods   # F2I's result, I2F's source (.S64/.U64: a pair)
    elif op == "F2F":
        row[T_MODE] = F2F_ROUND.index(mods[-1]) if mods[-1] in F2F_ROUND else len(F2F_ROUND)
    elif op == "MUFU":
        row[T_MODE] = MUFU_FN.index(mods[0])
    if op in ("SHL", "SHR"):
        b = ops[2]
        row[T_IMMSH] = isinstance(b, (SassImm, ConstBankWord)) and (immediate(b, env) & 0xFFFFFFFF) < 32
    for k, o in enumerate(ops[1:5]):
        if not isinstance(o, Special):
            _put(row, k, o, env)
