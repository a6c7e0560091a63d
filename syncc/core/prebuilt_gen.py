"""Write prebuilt_methods.py: the methods `dataclasses.dataclass` would exec for every class made
with syncc.core.prebuilt's decorator (prebuilt.py says why).

    python -m syncc.core.prebuilt_gen          # after adding or changing such a class

It imports every syncc module that uses the decorator (found by the import line), and writes, for
each class, a function that makes its methods from its defaults and default factories, beside the
shape of the definition they were written from.
"""
from __future__ import annotations

import dataclasses
import importlib
import pprint
import re
from pathlib import Path

from . import prebuilt

PACKAGE = Path(__file__).resolve().parent.parent            # syncc/
METHODS_PATH = Path(__file__).with_name("prebuilt_methods.py")
USES_DECORATOR = re.compile(r"^from [.\w]*prebuilt import [\w, ]*\bdataclass\b", re.M)

HEADER = '''"""Methods of syncc's dataclasses, written by `python -m syncc.core.prebuilt_gen` from their
definitions (syncc/core/prebuilt.py says why). Do not edit.

METHODS: "module.qualname" → (the definition's shape, the docstring dataclass would give a class
without one, a function of the defaults and default factories that makes the methods).
"""
_set = object.__setattr__


class _Factory:
    """The default of a field that has a default factory: the factory is called instead."""

    def __repr__(self):
        return "<factory>"


_FACTORY = _Factory()
METHODS = {}
'''


def modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if USES_DECORATOR.search(path.read_text(encoding="utf-8")):
            names.append(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts))
    return names


def generate() -> str:
    names = modules()
    for name in names:
        importlib.import_module(name)
    parts = [HEADER]
    for name in names:
        for key, (cls, params, shape) in prebuilt.MADE.items():
            if key.rpartition(".")[0] == name:
                parts.append(_entry(key, cls, params, shape))
    return "\n".join(parts)


def _entry(key: str, cls, params: dict, shape: tuple) -> str:
    if "<locals>" in key:
        raise ValueError(f"{key}: a class inside a function cannot have prebuilt methods")
    fields = dataclasses.fields(cls)
    maker = key.replace(".", "_")
    lines = [f"def {maker}(dflt, fact):"]
    lines += [f"    d_{f.name} = dflt[{f.name!r}]" for f in fields if f.default is not dataclasses.MISSING]
    lines += [f"    f_{f.name} = fact[{f.name!r}]" for f in fields if f.default_factory is not dataclasses.MISSING]
    made = []
    if params["init"]:
        lines += _init(cls, fields, params["frozen"])
        made.append("__init__")
    if params["repr"]:
        shown = ", ".join(f"{f.name}={{self.{f.name}!r}}" for f in fields if f.repr)
        lines += ["", "    def __repr__(self):", f'        return f"{{self.__class__.__qualname__}}({shown})"']
        made.append("__repr__")
    if params["eq"]:
        compared = [f.name for f in fields if f.compare]
        lines += ["", "    def __eq__(self, other):",
                  "        if other.__class__ is self.__class__:",
                  f"            return {_tuple('self', compared)} == {_tuple('other', compared)}",
                  "        return NotImplemented"]
        made.append("__eq__")
        if params["frozen"]:
            hashed = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]
            lines += ["", "    def __hash__(self):", f"        return hash({_tuple('self', hashed)})"]
            made.append("__hash__")
    lines.append("")
    lines.append("    return {" + ", ".join(f"{m!r}: {m}" for m in made) + "}")
    shape_text = pprint.pformat(shape, width=100, compact=True)
    doc = _doc(cls, fields)
    return "\n".join(["", f"# {key}", *lines, "", "",
                      f"METHODS[{key!r}] = (", f"    {_indent(shape_text)},", f"    {doc!r},", f"    {maker})", ""])


def _init(cls, fields, frozen: bool) -> list[str]:
    args, kw_only, body = ["self"], [], []
    for f in fields:
        if f.init:
            default = ("=d_" + f.name if f.default is not dataclasses.MISSING else
                       "=_FACTORY" if f.default_factory is not dataclasses.MISSING else "")
            (kw_only if f.kw_only is True else args).append(f.name + default)
            value = (f"f_{f.name}() if {f.name} is _FACTORY else {f.name}"
                     if f.default_factory is not dataclasses.MISSING else f.name)
        elif f.default_factory is not dataclasses.MISSING:
            value = f"f_{f.name}()"
        elif f.default is not dataclasses.MISSING:
            value = f"d_{f.name}"
        else:
            continue
        body.append(f"_set(self, {f.name!r}, {value})" if frozen else f"self.{f.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    signature = ", ".join(args + (["*"] + kw_only if kw_only else []))
    return ["", f"    def __init__({signature}):", *[f"        {b}" for b in body or ["pass"]]]


def _tuple(owner: str, names: list[str]) -> str:
    items = [f"{owner}.{n}" for n in names]
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _doc(cls, fields) -> str:
    """The docstring dataclass gives a class without one: its name and its `__init__`'s signature."""
    params = []
    for f in fields:
        if not f.init:
            continue
        text = f"{f.name}: {f.type if isinstance(f.type, str) else getattr(f.type, '__name__', f.type)}"
        if f.default_factory is not dataclasses.MISSING:
            text += " = <factory>"
        elif f.default is not dataclasses.MISSING:
            shown = repr(f.default)
            text += " = " + (shown if " at 0x" not in shown else "...")
        params.append(text)
    return f"{cls.__name__}({', '.join(params)})"


def _indent(text: str) -> str:
    return text.replace("\n", "\n    ")


def main() -> None:
    METHODS_PATH.write_text(generate(), encoding="utf-8")
    print(f"wrote {METHODS_PATH}: methods of {len(prebuilt.MADE)} classes")


if __name__ == "__main__":
    main()
