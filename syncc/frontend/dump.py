"""`syncc build --emit ast`: the AST as indented text, one node per line.

    Kernel name=counter @4:1-13:2
      params[0]: Param name=total @4:16-4:36
        type: ArrayTypeExpr space=global @4:23-4:36

Scalar fields print inline (identifiers by their text), child nodes below with
the field they sit in, and every node ends with its span (line:col-line:col).
"""
from __future__ import annotations

import dataclasses
import json   # (string escapes, as JSON writes them)

from . import ast as A


def dump(node) -> str:
    lines: list[str] = []
    _dump(node, "", 0, lines)
    return "\n".join(lines) + "\n"


def _inline(value) -> str | None:
    if isinstance(value, A.Ident):
        return value.text
    if isinstance(value, str):
        return value if value.isidentifier() else json.dumps(value, ensure_ascii=False)
    if isinstance(value, (bool, int)) or value is None:
        return str(value).lower() if isinstance(value, bool) or value is None else str(value)
    if isinstance(value, tuple) and value and all(isinstance(v, A.Ident) for v in value):
        return ".".join(v.text for v in value)
    return None


def _dump(node, label: str, depth: int, lines: list[str]) -> None:
    inline, children = [], []
    for f in dataclasses.fields(node):
        if f.name == "span" or (isinstance(node, A.IntLit) and f.name == "text" and node.text == str(node.value)):
            continue
        value = getattr(node, f.name)
        text = _inline(value)
        if text is not None:
            if value is not None and value != ():
                inline.append(f"{f.name}={text}")
        elif isinstance(value, tuple):
            children += [(f"{f.name}[{i}]: ", v) for i, v in enumerate(value)]
        else:
            children.append((f"{f.name}: ", value))
    head = " ".join([type(node).__name__] + inline)
    lines.append(f"{'  ' * depth}{label}{head} @{node.span.short()}")
    for child_label, child in children:
        _dump(child, child_label, depth + 1, lines)
