"""The text form of the IR (`syncc build --emit ir`), which parser.py reads back.

    kernel @nw(@refm: global i32[31][31], %penalty: i32) grid(1, 1, 1) block(32, 32, 1) {
      channel @score[32][32]: i32 shared thread impl=tinylock
    entry:
      %i: i32 = sreg tid.y                                  !16:13
      %ok: bool, %v: i32 = lockbit.try @score[%k]
      br %ok, fire, poll
    ...
    }

Every definition states its register's type; `!line:col` is where in the
source the instruction comes from.
"""
from __future__ import annotations

from .nodes import Array, Block, Branch, Imm, Instr, Jump, Kernel, Module, Prim, Ref, Reg, Return

_COLUMN = 52   # where `!line:col` starts


def print_module(module: Module, locations: bool = True) -> str:
    out = []
    if module.source:
        out.append(f'module "{module.source}"')
    records = {}
    for k in module.kernels:
        for a in (*k.params, *k.arrays):
            if isinstance(a, Array) and a.elem.kind == "record":
                records.setdefault(a.elem.name, a.elem)
    for r in records.values():       # (parser.py lays each out again, as core/records.py does)
        out.append(f"record {r.name} {{ " + ", ".join(f"{f.name}: {f.type}" for f in r.fields) + " }")
    for k in module.kernels:
        out.append(print_kernel(k, locations))
    return "\n".join(out) + ("\n" if out else "")


def print_kernel(k: Kernel, locations: bool = True) -> str:
    params = ", ".join(_param(p) for p in k.params)
    shape = ""
    if k.grid is not None:
        shape += " grid(" + ", ".join(map(str, k.grid)) + ")"
    if k.block is not None:
        shape += " block(" + ", ".join(map(str, k.block)) + ")"
    if k.coresident:
        shape += " coresident"
    lines = [f"kernel @{k.name}({params}){shape} {{"]
    lines += ["  " + print_prim(p) for p in k.prims]
    lines += ["  " + print_array(a) for a in k.arrays]
    for b in k.blocks:
        lines += print_block(b, locations)
    lines.append("}")
    return "\n".join(lines)


def _param(p) -> str:
    if isinstance(p, Reg):
        return f"%{p.name}: {p.type}"
    return f"@{p.name}: global {p.elem}{_dims(p.dims)}"


def _dims(dims) -> str:
    return "".join(f"[{d}]" for d in dims)


def _value(v) -> str:
    if isinstance(v, tuple):
        return "[" + ",".join(map(str, v)) + "]"
    return str(v)


def _attrs(attrs) -> str:
    return "".join(f" {k}={_value(v)}" for k, v in attrs)


def print_prim(p: Prim) -> str:
    elem = f": {p.elem}" if p.elem is not None else ""
    count = f" count={p.count}" if p.count is not None else ""
    params = "(" + ",".join(f"{k}={v}" for k, v in p.params) + ")" if p.params else ""
    return (f"{p.kind} @{p.name}{_dims(p.dims)}{elem} {p.placement} {p.granularity}{count} "
            f"impl={p.impl}{params}{_attrs(p.attrs)}")


def print_array(a: Array) -> str:
    extra = "".join(f" {k}={v}" for k, v in (("init", a.init), ("per", a.per), ("offset", a.offset))
                    if v is not None)
    if a.kind == "state":
        return f"state @{a.name}: {a.elem}{_dims(a.dims)} {a.space}{extra}"
    return f"{a.space} @{a.name}: {a.elem}{_dims(a.dims)}{extra}"


def print_block(b: Block, locations: bool = True) -> list[str]:
    lines = [f"{b.label}:"]
    for ins in b.instrs:
        lines.append(_located("  " + print_instr(ins), ins.span, locations))
    lines.append(_located("  " + print_term(b.term), b.term.span, locations))
    return lines


def _located(text: str, span, locations: bool) -> str:
    if not locations or span is None:
        return text
    return f"{text.ljust(_COLUMN)} !{span.line}:{span.col}"


def operand(v) -> str:
    if isinstance(v, (Reg, Imm, Ref)):
        return str(v)
    raise TypeError(f"not an operand: {v!r}")


def print_instr(ins: Instr) -> str:
    dests = ", ".join(f"%{d.name}: {d.type}" for d in ins.dests)
    bare_key = ins.info.bare
    bare = ""
    attrs = ins.attrs
    if bare_key is not None:
        bare = f" {ins.attr(bare_key)}"
        attrs = tuple((k, v) for k, v in attrs if k != bare_key)
    args = ", ".join(operand(a) for a in ins.args)
    text = f"{ins.op}{bare}" + (f" {args}" if args else "") + _attrs(attrs)
    return f"{dests} = {text}" if dests else text


def print_term(t) -> str:
    if isinstance(t, Jump):
        return f"jmp {t.target}"
    if isinstance(t, Branch):
        return f"br {operand(t.cond)}, {t.if_true}, {t.if_false}"
    if isinstance(t, Return):
        return "ret"
    raise TypeError(f"not a terminator: {t!r}")
