"""The PTX back end: safe IR → LLVM IR (codegen.py) → PTX (target.py), for sm_70 … sm_90.

    program = build_ptx(module, "sm_90")
    program.text        # the PTX, with a header saying what each kernel takes
    program.kernels     # name → KernelABI (abi.py): what a launch must pass

backends/inline_ptx.py holds the inline PTX of every synchronizing operation; ptxas.py runs
ptxas and nvdisasm for `--target sass` and the tests.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...core.version import VERSION
from ...ir.nodes import Module
from ...ir.abi import KernelABI, kernel_abi


@dataclass(frozen=True)
class PtxProgram:
    text: str
    arch: str
    kernels: dict[str, KernelABI]
    source: str | None


def build_ptx(module: Module, arch: str = "sm_90", lines: bool = False) -> PtxProgram:
    """`lines`: with `.loc` source-line directives (for SASS with lines; slower to build)."""
    from .. import inline_ptx
    from .codegen import module_to_llvm
    from .target import emit_ptx
    llvm_text = str(module_to_llvm(module, lines, split_fences=arch in inline_ptx.SPLIT_FENCES,
                                   mbarrier=inline_ptx.MBARRIER_WAIT.get(arch.rstrip("a"))))
    ptx = emit_ptx(llvm_text, arch)
    kernels = {k.name: kernel_abi(k) for k in module.kernels}
    return PtxProgram(header(module, kernels, arch) + ptx, arch, kernels, module.source)


def header(module: Module, kernels: dict[str, KernelABI], arch: str) -> str:
    """What a caller of the PTX must know: each kernel's parameters, including the global state
    arrays it must allocate and fill before each launch, and the dynamic shared memory it asks for."""
    lines = [f"// syncc {VERSION}: {module.source or '<module>'} for {arch}"]
    for name, abi in kernels.items():
        shape = "" if abi.block is None else f" block{abi.block}" + ("" if abi.grid is None else f" grid{abi.grid}")
        lines.append(f"// kernel {name}{shape}")
        for i, p in enumerate(abi.params):
            if p.kind == "scalar":
                lines.append(f"//   param {i}: {p.name}: {p.elem}")
            elif p.kind == "array":
                dims = "".join(f"[{d}]" for d in p.dims)
                lines.append(f"//   param {i}: {p.name}: global {p.elem}{dims}")
            elif p.kind == "fault":
                lines.append(f"//   param {i}: {p.name}: the bounds checks' fault record, {p.length(1, 1)} {p.elem}, "
                             "0 before each launch, in memory the host reads while the kernel runs (mapped pinned)")
            else:
                per = {None: "", "block": " per block", "thread": " per thread"}[p.per]
                lines.append(f"//   param {i}: {p.name}: state, {p.length(1, 1)} {p.elem}{per}, "
                             f"every element {p.init} before each launch")
        if abi.dynamic_shared:
            lines.append(f"//   dynamic shared memory: {abi.dynamic_shared} bytes each launch (raise "
                         "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES to it first)")
    return "\n".join(lines) + "\n"
