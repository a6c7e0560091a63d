"""The compiled core talks to the simulator through a small public interface: the names it uses
of the Simulator are the ones simulator.Simulator's docstring lists, and it uses no underscore
name of another module. These read the source; they need no numba.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

from syncc.backends.sim.simulator import Simulator

ROOT = Path(__file__).resolve().parents[2]
CORE = sorted((ROOT / "syncc" / "backends" / "sim" / "core").glob("*.py"))
NAMEDTUPLE_API = {"_replace", "_fields", "_asdict", "_make"}     # public, underscored against field clashes


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


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
