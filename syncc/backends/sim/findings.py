"""What a diagnosis finds: each finding's kind, code, message and the places involved.

    Finding(kind, message, warp, pc, lanes, notes, help)   one reason a run cannot finish
    Diagnosis(kind, findings, cycle, picture)              all of them, the first the verdict
    where(sim, pc)                                         an address, its instruction and source line

diagnose.py and its.py both make findings; they share this vocabulary so that
neither imports the other for it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..fermi.isa import INSTR_BYTES
from .warp import Warp

CODES = {"simt-deadlock": "E0905", "alias-deadlock": "E0906", "barrier-deadlock": "E0907", "deadlock": "E0908",
         "livelock": "E0909", "budget": "E0910"}


@dataclass
class Finding:
    kind: str
    message: str
    warp: Warp | None = None
    pc: int | None = None
    lanes: int = 0
    notes: list[tuple[str, int | None]] = field(default_factory=list)   # (text, address to locate it, or None)
    help: str | None = None
    waits_on: tuple[int, int] | None = None     # a spin on a lock: the holder's (warp uid, lane)
    downstream: bool = False    # waits for a word a finished warp wrote last: maybe for a warp stuck elsewhere

    @property
    def code(self) -> str:
        return CODES[self.kind]


@dataclass
class Diagnosis:
    kind: str
    findings: list[Finding]
    cycle: int
    picture: list[str]                      # where every live warp is, one line each

    @property
    def primary(self) -> Finding:
        return self.findings[0]

    @property
    def code(self) -> str:
        return CODES[self.kind]


def where(sim, pc: int | None) -> str:
    """`0x0040 `INSTR` (line 12)`: an address of the running kernel, for messages."""
    if pc is None:
        return "?"
    k = sim.kernel
    i = pc // INSTR_BYTES
    text = f"0x{pc:04x}"
    if 0 <= i < len(k.instrs):
        ins = k.instrs[i]
        text += f" `{ins}`"
        if ins.loc is not None:
            text += f" (line {ins.loc[0]})"
    return text



__all__ = ["CODES", "Diagnosis", "Finding", "where"]
