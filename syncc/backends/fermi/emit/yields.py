"""YIELD in polling loops (the ITS flavour only), as ptxas does for sm_70 and later.

Guarantee: after `insert_yields`, the header of every loop that reads memory
another thread may change (an atomic, an L1-bypassing `LD.CG`/`LD.CV`, a
shared-memory load, a lock-bit try) or the clock starts with a `YIELD`, so a
split that spins there lets the warp's other splits run each round and does not
hold a convergence barrier shut (its.py). Loops that only compute, or only read
what no thread writes during the kernel, end by themselves and get none: a
YIELD costs a cycle a round and gives up reconvergence.
"""
from __future__ import annotations

from .mcode import MFunction, MInstr
from .optimize import natural_loops

_POLLS = {"ATOM", "LDS", "LDSLK"}
_CLOCKS = {"SR_ClockLo", "SR_ClockHi"}


def polls(ins: MInstr) -> bool:
    """Can the value this instruction reads change while the loop runs, through another thread?"""
    if ins.op in _POLLS:
        return True
    if ins.op == "LD":
        return bool({"CG", "CV"} & set(ins.mods))
    return ins.op == "S2R" and getattr(ins.ops[1], "name", None) in _CLOCKS


def insert_yields(mf: MFunction) -> None:
    blocks = mf.block_map()
    heads = set()
    for head, body in natural_loops(mf):
        if head not in heads and any(polls(ins) for label in body for ins in blocks[label].instrs):
            heads.add(head)
            blocks[head].instrs.insert(0, MInstr("YIELD"))
