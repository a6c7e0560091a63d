"""A kernel in Fermi SASS, with what it needs to run: the container the assembler and the emitter
build, the printer prints and the simulator runs.

    kernel = SassKernel("nw", instrs, grid=(1, 1, 1), block=(32, 32, 1), params=(...), ...)

Besides its instructions a kernel carries its header: the launch shape, its
parameters in constant-bank order (each 4 bytes from c[0x0][0x20]: a global
array is a 32-bit pointer, a scalar its value, a state array a pointer the
launcher allocates and fills, as syncc/ir/abi.py describes), the
named shared arrays (for initial values and for naming addresses in
diagnostics), how much shared and local memory it uses, and the arrays to print
after a run of a .sass file. Regions name address ranges (a critical section, a
wait) for traces and statistics.
"""
from __future__ import annotations

import math
from functools import cached_property

from dataclasses import dataclass, field

from .isa import INSTR_BYTES, Instruction


@dataclass(frozen=True)
class Init:
    """How an array starts: zeros, fill(V), range (0, 1, 2, ...), or explicit values."""
    kind: str                            # zeros | fill | range | values
    value: int = 0                       # fill
    values: tuple[int, ...] = ()         # values

    def __str__(self) -> str:
        if self.kind == "fill":
            return f"fill({self.value})"
        if self.kind == "values":
            return "[" + ", ".join(str(v) for v in self.values) + "]"
        return self.kind


@dataclass(frozen=True)
class SassParam:
    """One parameter word of constant bank 0 (at PARAM_BASE + 4 * its position)."""
    name: str
    kind: str                            # array | scalar | state
    elem: str                            # i32 | u32 | bool
    dims: tuple[int, ...] = ()
    init: Init | None = None             # array/state: the first value of every element; scalar: fill(V)
    per: str | None = None               # state: None, "block" or "thread" (the size multiplies)

    @property
    def length(self) -> int:
        return math.prod(self.dims)

    def dims_with(self, sizes: dict[str, int]) -> tuple[int, ...]:
        """The dimensions, a size given at launch (a scalar .param's name) replaced by its value."""
        return tuple(sizes[d] if isinstance(d, str) else d for d in self.dims)


@dataclass(frozen=True)
class SharedArray:
    name: str
    elem: str
    dims: tuple[int, ...]
    offset: int                          # byte offset in the block's shared memory
    init: Init | None = None             # None: whatever the memory held (zeros in the simulator)

    @property
    def length(self) -> int:
        return math.prod(self.dims)


@dataclass(frozen=True)
class Region:
    """Addresses [start, end) that are one thing of the source: `critical m`, `wait score[i-1][j]`."""
    start: int
    end: int
    kind: str                            # critical | wait | put | barrier | ...
    label: str
    loc: tuple[int, int] | None = None


@dataclass(frozen=True)
class SassKernel:
    name: str
    instrs: tuple[Instruction, ...]      # instrs[i].addr == i * INSTR_BYTES
    grid: tuple[int, int, int] | None = None
    block: tuple[int, int, int] | None = None
    params: tuple[SassParam, ...] = ()
    shared: tuple[SharedArray, ...] = ()
    shared_bytes: int = 0                # per block
    local_bytes: int = 0                 # per thread
    prints: tuple[str, ...] = ()
    regions: tuple[Region, ...] = ()
    source: str | None = None            # the file the kernel came from (.sync or .sass)
    its: bool = False                    # compiled for independent thread scheduling (BSSY/BSYNC/WARPSYNC)

    @cached_property
    def registers(self) -> int:
        """Registers per thread: the highest register used, plus one (for occupancy). Computed once:
        the simulator asks at every block it places."""
        from .isa import RZ, Mem, SassReg
        high = -1
        for ins in self.instrs:
            pairs = ins.pairs
            for k, o in enumerate(ins.operands):
                r = o.base if isinstance(o, Mem) else o
                if isinstance(r, SassReg) and r.n != RZ:
                    high = max(high, r.n + (k in pairs))
        return high + 1

    def at(self, addr: int) -> Instruction:
        return self.instrs[addr // INSTR_BYTES]

    def param(self, name: str) -> SassParam | None:
        return next((p for p in self.params if p.name == name), None)

    def shared_array(self, name: str) -> SharedArray | None:
        return next((a for a in self.shared if a.name == name), None)


@dataclass
class SassProgram:
    """The kernels of one file, in order."""
    kernels: list[SassKernel] = field(default_factory=list)
    source: str | None = None

    def kernel(self, name: str) -> SassKernel | None:
        return next((k for k in self.kernels if k.name == name), None)
