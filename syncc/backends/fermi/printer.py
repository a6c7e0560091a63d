"""SASS text: a kernel's header directives, then its instructions as cuobjdump prints them.

    text = print_program(program, sources)      # sources: a SourceMap, to quote source lines

The assembler (asm.py) reads this form back: parse(print(p)) == p, and the text
of a kernel the assembler read prints the same again (docs/fermi.md, "The .sass
format").
"""
from __future__ import annotations

from ...core.records import RecordType
from ...core.source import SourceMap
from .isa import Instruction
from .program import Region, SassKernel, SassParam, SassProgram


def print_program(program: SassProgram, sources: SourceMap | None = None, banner: str | None = None) -> str:
    parts = [f"// {banner}\n"] if banner else []
    for k in program.kernels:
        parts.append(print_kernel(k, sources))
    return "\n".join(parts)


def print_kernel(k: SassKernel, sources: SourceMap | None = None) -> str:
    lines = header_lines(k)
    source = sources.get(k.source) if sources is not None and k.source else None
    starts: dict[int, list[Region]] = {}
    ends: dict[int, int] = {}
    for r in sorted(k.regions, key=lambda r: (r.start, -r.end)):
        starts.setdefault(r.start, []).append(r)
        ends[r.end] = ends.get(r.end, 0) + 1
    loc = None
    for ins in k.instrs:
        for _ in range(ends.pop(ins.addr, 0)):
            lines.append("        .endregion")
        for r in starts.get(ins.addr, ()):
            where = f" {r.loc[0]} {r.loc[1]}" if r.loc is not None else ""
            lines.append(f"        .region {r.kind} \"{_escape(r.label)}\"{where}")
        if ins.loc != loc:
            loc = ins.loc
            lines.append(_loc_line(loc, source))
        lines.append(instruction_line(ins))
    for _ in range(sum(ends.values())):
        lines.append("        .endregion")
    return "\n".join(lines) + "\n"


def _loc_line(loc: tuple[int, int] | None, source) -> str:
    if loc is None:
        return "        .loc none"                 # the instructions that follow have no source position
    text = source.line_text(loc[0]).strip() if source is not None else ""
    return f"        .loc {loc[0]} {loc[1]}" + (f"{'':<20}// {text}" if text else "")


def instruction_line(ins: Instruction) -> str:
    guard = f"@{ins.guard}" if ins.guard is not None else ""
    text = str(Instruction(ins.op, ins.mods, ins.operands, None, ins.sync))
    return f"        /*{ins.addr:04x}*/ {guard:>5} {text}"


def header_lines(k: SassKernel) -> list[str]:
    out = [f".kernel {k.name}"]
    if k.source:
        out.append(f'.source "{_escape(k.source)}"')
    if k.grid is not None or k.block is not None:
        shape = []
        if k.grid is not None:
            shape.append(f"grid({', '.join(map(str, k.grid))})")
        if k.block is not None:
            shape.append(f"block({', '.join(map(str, k.block))})")
        out.append(".launch " + " ".join(shape))
    if k.its:
        out.append(".its")
    out.extend(_record(r) for r in _records(k))
    out.extend(_param(p) for p in k.params)
    for a in k.shared:
        init = f" = {a.init}" if a.init is not None else ""
        out.append(f".shared {a.name}: {a.elem}{_dims(a.dims)} at 0x{a.offset:x}{init}")
    out.append(f".shared_bytes 0x{k.shared_bytes:x}")
    if k.local_bytes:
        out.append(f".local_bytes 0x{k.local_bytes:x}")
    if k.prints:
        out.append(".print " + ", ".join(k.prints))
    return out


def _records(k: SassKernel) -> list[RecordType]:
    """The record types the kernel's arrays hold, each once, in order of first use."""
    out = []
    for elem in (*(p.elem for p in k.params), *(a.elem for a in k.shared)):
        if isinstance(elem, RecordType) and elem not in out:
            out.append(elem)
    return out


def _record(r: RecordType) -> str:
    """`.record Entry key: u32, value: f32`: the fields in order (the assembler lays them out again)."""
    return f".record {r.name} " + ", ".join(f"{f.name}: {f.type}" for f in r.fields)


def _param(p: SassParam) -> str:
    init = f" = {p.init}" if p.init is not None else ""
    if p.kind == "scalar":
        value = f" = {p.init.value}" if p.init is not None else ""
        return f".param {p.name}: {p.elem}{value}"
    if p.kind == "array":
        return f".param {p.name}: global {p.elem}{_dims(p.dims)}{init}"
    per = f" per {p.per}" if p.per else ""
    return f".state {p.name}: {p.elem}{_dims(p.dims)}{per}{init}"


def _dims(dims: tuple[int, ...]) -> str:
    return "".join(f"[{d}]" for d in dims)


def _escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')
