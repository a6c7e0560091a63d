"""LLVM IR → PTX through llvmlite's NVPTX back end.

The PTX ISA version is chosen explicitly: 8.0 for every architecture. It is the
oldest version with everything syncc emits for sm_90 (sm_90 needs 7.8), it has
everything the sm_70 code uses (`activemask` 6.2, `nanosleep` 6.3, scoped
acquire/release 6.0), and every CUDA 12 or later ptxas and driver accept it, so
one version keeps the output the same across architectures.

LLVM's work is kept small, because ptxas optimizes the PTX again: SROA turns the
allocas of registers assigned more than once into SSA values (without it they
would live in local memory), and the NVPTX back end runs at -O0 (measured on
wavefront.sync: 1.1 ms against 3.6 ms at -O2, and ptxas allocates 16 registers
against 15). The target machine is created once per architecture.
"""
from __future__ import annotations

from functools import cache

ARCHS = ("sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90")
PTX_VERSION = "8.0"


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
                                        opt=0)


def emit_ptx(module_text: str, arch: str) -> str:
    """Optimize and compile one LLVM module (as text) to PTX for `arch`."""
    llvm = _llvm()
    tm = target_machine(arch)
    mod = llvm.parse_assembly(module_text)
    mod.verify()
    builder = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=2))
    fpm = llvm.create_new_function_pass_manager()
    fpm.add_sroa_pass()
    for fn in mod.functions:
        if not fn.is_declaration:
            fpm.run(fn, builder)
    return tm.emit_assembly(mod)
