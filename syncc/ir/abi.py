"""What a compiled kernel takes at launch: its parameters, in order.

    abi = kernel_abi(kernel)
    abi.params        # the program's parameters, then one pointer per global state array

A kernel's own parameters come first, as declared: a global array is a pointer to
its first element, a scalar is passed by value (`bool` as one byte). Then comes one
pointer for each array of primitive state in global memory (a ticket lock's
counters, a grid barrier's flags, MCS queue nodes), which whoever launches the
kernel allocates and fills with its first value before every launch: the runtime
(syncc/runtime/) does, and a library writer who launches the PTX directly must.
Shared state lives in the kernel's shared memory and needs nothing from the caller, except
that a kernel whose shared arrays pass 48 KB keeps them in dynamic shared memory: a launch
asks for `dynamic_shared` bytes (and raises the function's limit to that first).

A state array's size is its declared length, times the number of blocks of the
launch for `per=block` and times the number of threads of the launch for
`per=thread`.

A kernel with run-time bounds checks (ir/passes/bounds.py) takes two more state arrays, last,
which its checks touch only when one fails (ir/faults.py declares them where it expands the
checks): `bounds.claim`, one word that the first thread
whose index is outside its array takes with an atomic (0 before each launch, like any state),
and `bounds.fault`, the record that thread then writes (param kind `fault`): the word
F_DONE set to 1 last, after the check's site (F_SITE, the `site=` of its `bounds.check`), the
index (F_INDEX, as its 32 bits), the block's ctaid.x, .y, .z (F_BLOCK) and the thread's tid.x,
.y, .z (F_THREAD), and a system-scope fence. The GPU runtime puts the record in host memory
the GPU writes through (mapped pinned memory), so that it can be read while the kernel runs:
in PTX a failing thread stalls at its check for good rather than trap (ptx/codegen.py), so the
record is all a launcher learns of the failure; a launcher of the PTX must give it FAULT_WORDS
zeroed words there too.
"""
from __future__ import annotations

from ..core.prebuilt import dataclass
from ..core.types import U32, ScalarType
from .nodes import Kernel, Reg


FAULT_CLAIM = "bounds.claim"
FAULT_RECORD = "bounds.fault"
F_DONE, F_SITE, F_INDEX, F_BLOCK, F_THREAD = 0, 1, 2, 3, 6      # words of the record (F_BLOCK, F_THREAD: x, y, z)
FAULT_WORDS = 9


@dataclass(frozen=True)
class Param:
    name: str
    kind: str                  # array | scalar | state | fault (the bounds checks' record)
    elem: ScalarType           # the element type (arrays), or the value's type (scalars)
    dims: tuple[int, ...] = ()
    init: int | None = None    # state: every element's first value
    per: str | None = None     # state: None, "block" or "thread"

    def length(self, blocks: int, threads_per_block: int) -> int:
        """Elements of a state array for a launch of `blocks` blocks of `threads_per_block`."""
        n = 1
        for d in self.dims:
            n *= d
        if self.per == "block":
            n *= blocks
        elif self.per == "thread":
            n *= blocks * threads_per_block
        return n


# A block's static shared memory stops at 48 KB on every GPU from sm_70 on; past it a kernel's
# shared arrays live in dynamic shared memory, which the launch asks for (up to the GPU's opt-in
# limit per block: 227 KB on sm_90).
STATIC_SHARED_LIMIT = 48 * 1024
SHARED_ALIGN = 16


def shared_layout(k: Kernel) -> tuple[dict[str, int], int]:
    """Each shared array's byte offset (16-aligned, in declaration order) and the total bytes."""
    offsets, end = {}, 0
    for a in k.arrays:
        if a.space != "shared":
            continue
        end = -(-end // SHARED_ALIGN) * SHARED_ALIGN
        offsets[a.name] = end
        end += a.length * max(1, a.elem.bits // 8)
    return offsets, end


def dynamic_shared_bytes(k: Kernel) -> int:
    """The dynamic shared memory a launch must ask for: all of the kernel's shared arrays when they
    do not fit the static 48 KB, else none."""
    _, total = shared_layout(k)
    return total if total > STATIC_SHARED_LIMIT else 0


@dataclass(frozen=True)
class KernelABI:
    name: str
    params: tuple[Param, ...]
    grid: tuple[int, int, int] | None
    block: tuple[int, int, int] | None
    dynamic_shared: int = 0    # bytes of dynamic shared memory each launch asks for (see above)

    @property
    def program_params(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.kind in ("array", "scalar"))

    @property
    def state(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.kind == "state")

    @property
    def fault(self) -> Param | None:
        """The bounds checks' fault record, when the kernel has checks."""
        return next((p for p in self.params if p.kind == "fault"), None)


def has_bounds_record(k: Kernel) -> bool:
    """Does the kernel take the bounds checks' arrays: has it a check, or (after ir/faults.py
    expanded its checks) their declarations?"""
    return k.array(FAULT_RECORD) is not None or any(ins.op == "bounds.check" for _, _, ins in k.instructions())


def kernel_abi(k: Kernel, bounds_record: bool = True) -> KernelABI:
    """`bounds_record=False`: without the bounds checks' two arrays (for a back end whose checks
    only trap, as the vended CUDA's do)."""
    params = []
    for p in k.params:
        if isinstance(p, Reg):
            params.append(Param(p.name, "scalar", p.type))
        else:
            params.append(Param(p.name, "array", p.elem, p.dims))
    for a in k.arrays:
        if a.kind == "state" and a.space == "global" and a.name not in (FAULT_CLAIM, FAULT_RECORD):
            init = a.init if isinstance(a.init, int) else 0
            params.append(Param(a.name, "state", a.elem, a.dims, init, a.per))
    if bounds_record and has_bounds_record(k):
        params += [Param(FAULT_CLAIM, "state", U32, (1,), 0), Param(FAULT_RECORD, "fault", U32, (FAULT_WORDS,), 0)]
    return KernelABI(k.name, tuple(params), k.grid, k.block, dynamic_shared_bytes(k))
