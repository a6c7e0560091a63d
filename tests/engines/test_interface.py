"""The compiled core talks to the simulator through a small public interface: the names it uses
of the Simulator are the ones simulator.Simulator's docstring lists, it uses no underscore name
of another module, and every name it uses can be traced to where it is defined (no `import *`,
here or anywhere in syncc). These read the source; they need no numba.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

from syncc.backends.sim.core import layout
from syncc.backends.sim.simulator import Simulator

ROOT = Path(__file__).resolve().parents[2]
CORE = sorted((ROOT / "syncc" / "backends" / "sim" / "core").glob("*.py"))
NAMEDTUPLE_API = {"_replace", "_fields", "_asdict", "_make"}     # public, underscored against field clashes


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


def test_no_module_of_syncc_imports_star():
    stars = [f"{p.relative_to(ROOT)}:{n.lineno}" for p in sorted((ROOT / "syncc").rglob("*.py"))
             for n in ast.walk(_tree(p)) if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)]
    assert not stars, f"import * hides where names come from: {stars}"


def test_the_compiled_core_uses_no_private_name_of_another_module():
    private = []
    for p in CORE:
        for n in ast.walk(_tree(p)):
            if isinstance(n, ast.ImportFrom):
                private += [f"{p.name}:{n.lineno}: {a.name}" for a in n.names
                            if a.name.startswith("_") and not a.name.startswith("__")]
            elif (isinstance(n, ast.Attribute) and n.attr.startswith("_") and not n.attr.startswith("__")
                  and n.attr not in NAMEDTUPLE_API
                  and not (isinstance(n.value, ast.Name) and n.value.id in ("self", "cls"))):
                private.append(f"{p.name}:{n.lineno}: {ast.unparse(n)}")
    assert not private, f"the compiled core reaches into private state: {private}"


def _simulator_names_used() -> set[str]:
    """Every attribute the core reads or writes of a Simulator (`sim.X`, `self.sim.X`)."""
    used = set()
    for p in CORE:
        for n in ast.walk(_tree(p)):
            if isinstance(n, ast.Attribute):
                v = n.value
                if (isinstance(v, ast.Name) and v.id == "sim") or (isinstance(v, ast.Attribute) and v.attr == "sim"):
                    used.add(n.attr)
    return used


def test_every_simulator_name_the_core_uses_is_in_the_documented_interface():
    documented = set(re.findall(r"`(\w+)", Simulator.__doc__))
    used = _simulator_names_used()
    assert {"finish_block", "last_warp", "quiet_check"} <= used    # the reader sees the core
    assert used <= documented, f"not in Simulator's docstring: {sorted(used - documented)}"
    for name in used:
        assert not name.startswith("_")


def test_the_opcode_numbers_agree_with_the_opcode_list():
    for i, name in enumerate(layout.OPS):
        assert getattr(layout, f"OP_{name}") == i == layout.OP[name]
    numbered = {n for n in vars(layout) if n.startswith("OP_")}
    assert numbered == {f"OP_{name}" for name in layout.OPS}
