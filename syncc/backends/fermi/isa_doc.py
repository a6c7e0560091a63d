"""The opcode table of docs/fermi.md ("Instruction set"), generated from isa.OPCODES.

    python -m syncc.backends.fermi.isa_doc        # print the table, to paste into docs/fermi.md

tests/backends/test_sass_asm.py checks that the table in the doc is exactly this one, so the
doc and the table the assembler checks against cannot drift apart.
"""
from __future__ import annotations

from .asm_operands import operand_syntax
from .isa import OPCODES, OpSpec


def _cell(text: str) -> str:
    return f"`{text}`".replace("|", "\\|") if text else ""


def modifier_syntax(spec: OpSpec) -> str:
    """The modifier groups in order: required ones bare, optional ones in [ ]."""
    parts = []
    for i, group in enumerate(spec.mods):
        text = "|".join("." + m for m in group)
        parts.append(text if i in spec.required else f"[{text}]")
    return " ".join(parts)


def opcode_table() -> str:
    rows = ["| opcode | operands | writes | modifiers | unit | what it does |",
            "| --- | --- | --- | --- | --- | --- |"]
    for spec in OPCODES.values():
        does = spec.summary + (" (ITS only: needs `.its`)" if spec.its else "")
        rows.append(f"| `{spec.name}` | {_cell(operand_syntax(spec))} | {spec.dests or ''} | "
                    f"{_cell(modifier_syntax(spec))} | {spec.unit} | {does.replace('|', chr(92) + '|')} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(opcode_table(), end="")
