"""`syncc explain`: the remarks the passes left, per kernel, in the order a reader needs them.

    examples/wavefront.sync: kernel nw — ptx: PTX for sm_70 to sm_90, independent thread scheduling; -O2

    implementations
      14:5   channel `score` (shared @thread): flag — the ptx default: ...
    structuring
      25:9   the consumer on `score` runs inside the polling loop up to its release, ...

Each line starts with the source position the remark is about.
"""
from __future__ import annotations

from .driver import Compilation
from .ir.nodes import Module
from .ir.stats import fence_stats

# topic → heading, in the order they are printed
TOPICS = {
    "implementation": "implementations",
    "elide": "lock elision (-O2)",
    "combine": "warp combining (-O2)",
    "structure": "SIMT-safe structuring",
    "fence": "memory ordering",
    "syncwarp": "livelock prevention (__syncwarp)",
    "barrier": "barriers",
    "init": "producer-first initialization",
    "lockbits": "lock bits",
    "unroll": "counted loops written out (-O2, ptx)",
    "guard": "declared configurations (what the analyses covered, and how other launches are refused)",
    "bounds": "run-time bounds checks (indices the value ranges do not prove inside their arrays)",
    "scope": "block-scoped atomics on global words (why block scope is enough)",
    "undecided": "what the hazard analyses could not decide (they depend on data)",
}


def explain_text(comp: Compilation, target: str) -> str:
    ctx = comp.context
    path = comp.module.path if comp.module else "?"
    out = []
    kernels = [k.name for k in comp.ir.kernels] if comp.ir else list(dict.fromkeys(r.kernel for r in ctx.remarks))
    for kernel in kernels:
        remarks = list(dict.fromkeys(r for r in ctx.remarks if r.kernel == kernel))   # (once per launch shape)
        out.append(f"{path}: kernel {kernel} — {target}: {ctx.target.title}; -O{ctx.opt}")
        if not remarks:
            out.append("  nothing to report: it uses no synchronization")
        for topic, heading in TOPICS.items():
            lines = [r for r in remarks if r.topic == topic]
            if not lines:
                continue
            out.append(f"  {heading}")
            for r in lines:
                where = f"{r.span.line}:{r.span.col}" if r.span else ""
                out.append(f"    {where:<8} {r.message}")
        if comp.ir is not None:
            out.append("  " + _summary(comp.ir, kernel))
        out.append("")
    return "\n".join(out)


def _summary(module: Module, kernel: str) -> str:
    k = module.kernel(kernel)
    stats = fence_stats(Module((k,), module.source))
    blocks = len(k.blocks)
    return (f"in all: {stats.fences} fence{'s' if stats.fences != 1 else ''} "
            f"({stats.cta_fences} at cta scope), {stats.ordered} ordering{'s' if stats.ordered != 1 else ''} "
            f"carried by atomics and loads, where naive placement would put {stats.naive} fences; "
            f"{blocks} basic blocks")
