"""The Fermi target and its simulator import in one direction only (README.md, "Layout").

backends/fermi is the SASS target; backends/sim runs its code and may import it,
never the other way round; neither imports the driver, the CLI, the API or the
other back ends; and no module of either is part of an import cycle (imports
inside functions count: a cycle hidden in a function is still a cycle).
"""
from __future__ import annotations

import ast
from pathlib import Path

import syncc

ROOT = Path(syncc.__file__).parent
PACKAGES = ("syncc.backends.fermi", "syncc.backends.sim")
FORBIDDEN = ("syncc.driver", "syncc.cli", "syncc.api", "syncc.backends.ptx", "syncc.backends.cuda")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every module `path` imports, absolute, wherever the import statement is."""
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            base = f"{base}.{node.module}" if node.level and node.module else (base if node.level else node.module)
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)   # `from . import lanes` imports a module
    return out


def graph() -> dict[str, set[str]]:
    files = [p for pkg in PACKAGES for p in (ROOT.parent / pkg.replace(".", "/")).rglob("*.py")]
    modules = {module_name(p): p for p in files}
    return {m: {i for i in imports_of(p) if i in modules} | {i for i in imports_of(p) if i.startswith(FORBIDDEN)}
            for m, p in modules.items()}


def test_the_target_does_not_import_the_simulator():
    bad = {m: sorted(i for i in deps if i.startswith("syncc.backends.sim"))
           for m, deps in graph().items() if m.startswith("syncc.backends.fermi")}
    assert {m: d for m, d in bad.items() if d} == {}


def test_neither_imports_the_driver_cli_api_or_other_back_ends():
    bad = {m: sorted(i for i in deps if i.startswith(FORBIDDEN)) for m, deps in graph().items()}
    assert {m: d for m, d in bad.items() if d} == {}


def test_no_import_cycles():
    g = graph()
    cycles = []

    def visit(m: str, path: list[str], done: set[str]) -> None:
        for n in sorted(g.get(m, ())):
            if n in path:
                cycles.append(path[path.index(n):] + [n])
            elif n not in done:
                done.add(n)
                visit(n, path + [n], done)

    for m in sorted(g):
        visit(m, [m], {m})
    assert cycles == []


def test_the_graph_sees_imports():
    """The checks above are not vacuous: the simulator's known imports are found."""
    g = graph()
    assert "syncc.backends.fermi.isa" in g["syncc.backends.sim.simulator"]
    assert "syncc.backends.sim.lanes" in g["syncc.backends.sim.diagnose"]      # `from . import lanes as L`
    assert "syncc.backends.sim.findings" in g["syncc.backends.sim.its"]
