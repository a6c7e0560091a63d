"""LLVM IR → PTX through llvmlite's NVPTX back end.

The PTX ISA version is chosen explicitly: 8.0, unless the code uses `fence.acquire`. 8.0 is the
oldest version with everything else syncc emits for sm_90 (sm_90 needs 7.8), it has
everything the sm_70 code uses (`activemask` 6.2, `nanosleep` 6.3, scoped
acquire/release 6.0), and every CUDA 12 or later ptxas and driver accept it. A polling loop
on sm_90 ends with `fence.acquire` (inline_ptx.SPLIT_FENCES), which is 8.6 (CUDA 12.8 and
later): only a module that has one says `.version 8.6`.

LLVM's work is kept small, because ptxas optimizes the PTX again, but it must leave the PTX in a
shape ptxas can use. Three steps: SROA turns the allocas of registers assigned more than once
into SSA values (without it they would live in local memory); instcombine distributes constants
out of index arithmetic (`(4 q + 1) * 256 + at` becomes `q * 1024 + at + 256`); and the NVPTX code
generator runs at level 1, where its straight-line passes split such constant offsets out of
addresses (SeparateConstOffsetFromGEP, strength reduction, reassociation). ptxas then folds them
into the load's immediate offset and pairs neighbouring words into one 64-bit access. At level 0,
with no instcombine, every shared-memory address of bench/programs/nw.sync's step cost two
instructions of its own and the step took 80 SASS instructions instead of 53; Needleman–Wunsch
ran 1.4x slower on an H100 (docs/bench.md). The price is compile time: on examples/wavefront.sync
about 3 ms more than SROA at level 0 (bench/README.md, ptx.py). Every synchronizing operation is
inline PTX with side effects and a memory clobber (backends/inline_ptx.py), so none of this moves
a plain access across one. The target machine is created once per architecture.
"""
from __future__ import annotations

from functools import cache

ARCHS = ("sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90")
PTX_VERSION = "8.0"
CODEGEN_LEVEL = 1           # NVPTX code generation: 1 splits constant offsets out of addresses


@cache
def _llvm():
    import llvmlite.binding as llvm
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    return llvm


@cache
def target_machine(arch: str):
    llvm = _llvm()
    target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
    return target.create_target_machine(cpu=arch.rstrip("a"), features="+ptx" + PTX_VERSION.replace(".", ""),
                                        opt=CODEGEN_LEVEL)


def emit_ptx(module_text: str, arch: str) -> str:
    """Optimize and compile one LLVM module (as text) to PTX for `arch`."""
    llvm = _llvm()
    tm = target_machine(arch)
    mod = llvm.parse_assembly(module_text)
    mod.verify()
    builder = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=2))
    fpm = llvm.create_new_function_pass_manager()
    fpm.add_sroa_pass()
    fpm.add_instruction_combine_pass()
    for fn in mod.functions:
        if not fn.is_declaration:
            fpm.run(fn, builder)
    return with_version(tm.emit_assembly(mod), arch)


def with_version(ptx: str, arch: str) -> str:
    """Raise `.version` where the inline PTX needs a newer ISA than LLVM was told (LLVM itself
    emits nothing newer than PTX_VERSION; only the inline `fence.acquire` is)."""
    from ..inline_ptx import SPLIT_FENCES
    if arch in SPLIT_FENCES and "fence.acquire." in ptx:
        return ptx.replace(f".version {PTX_VERSION}\n", f".version {SPLIT_FENCES[arch]}\n", 1)
    return ptx
