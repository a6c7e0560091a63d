"""`--stats`: where a simulated kernel spent its cycles.

    print(format_stats(kernel, outcome, sources))

A kernel's cycles are the simulated time from launch to the last warp's exit.
Per source line it reports the warp-cycles charged to the line's instructions
(each instruction is charged the cycles its warp spent from its previous issue
up to and including this one: its wait and its issue) and the warp-instructions
issued; the stall breakdown splits every warp's waiting cycles by reason:
`dependency` (an operand not ready: the latency of ALU, shared, global and
atomic operations), `not selected` (ready, but the scheduler issued another
warp), `barrier`, `branch` (fetching from a new address), `stack`
(SSY/PBK/.S), `memory barrier` (MEMBAR waiting for stores). It also says which engine ran the
launch: the compiled core, or the reference engine and why (asked for, or an instruction or a
configuration the core does not know: 26-32 times slower).
"""
from __future__ import annotations

from ...core.source import SourceMap
from ..fermi.program import SassKernel


def format_stats(kernel: SassKernel, outcome, sources: SourceMap | None = None, grid=None, block=None,
                 top: int = 12) -> str:
    s = outcome.stats
    shape = ""
    if grid is not None and block is not None:
        shape = f", grid {tuple(grid)} block {tuple(block)}"
    sms = len({b[1] for b in s.blocks})
    lines = [f"fermi-sim: `{kernel.name}`{shape}: {outcome.cycles:,} cycles, {outcome.warp_instructions:,} "
             f"warp-instructions ({outcome.thread_instructions:,} thread-instructions), {len(s.blocks)} "
             f"block(s) on {sms} SM(s)"]
    if s.engine == "compiled":
        lines.append("  engine: the compiled core")
    else:
        lines.append("  engine: the reference engine" + (f": {s.engine_note}" if s.engine_note else
                                                          " (asked for with --engine reference)"))
    total = sum(s.stalls.values())
    if total:
        parts = sorted(s.stalls.items(), key=lambda kv: -kv[1])
        lines.append("  stalls (warp-cycles): " + ", ".join(f"{k} {v:,} ({100 * v / total:.0f}%)"
                                                             for k, v in parts))
    per_line: dict[int | None, list[int]] = {}
    for i, ins in enumerate(kernel.instrs):
        line = ins.loc[0] if ins.loc else None
        acc = per_line.setdefault(line, [0, 0])
        acc[0] += s.cycles[i]
        acc[1] += s.issues[i]
    cycles_all = sum(v[0] for v in per_line.values()) or 1
    source = sources.get(kernel.source) if sources is not None and kernel.source else None
    ranked = sorted(per_line.items(), key=lambda kv: -kv[1][0])
    if ranked:
        lines.append(f"  {'line':>6}  {'warp-cycles':>12}  {'share':>6}  {'issued':>9}  source")
        for line, (cyc, iss) in ranked[:top]:
            if not cyc and not iss:
                continue
            text = source.line_text(line).strip() if source is not None and line else ""
            label = f"{line}" if line else "-"
            lines.append(f"  {label:>6}  {cyc:>12,}  {100 * cyc / cycles_all:>5.1f}%  {iss:>9,}  {text[:60]}")
    return "\n".join(lines) + "\n"
