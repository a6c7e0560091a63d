"""The layers of syncc point one way (docs/architecture.md):

    core → frontend → ir → backends → runtime → the application (driver, api, cli, explain, ...)

A module may import its own layer and the layers before it. Every import counts, a function's
lazy import and a `TYPE_CHECKING` one too: each is a dependency. Besides the order, the back
ends do not import one another (the simulator may read the Fermi target's instruction set and
program format: a machine runs its target's code), the IR's modules keep to their roles (SHARED
below: lowering, the passes and the checks share the analyses of ir/analysis/ and the
implementations of ir/impls/ and do not import one another, only the hazard pass runs the
checks; the analyses, the implementations and the IR core import none of them), and no two
modules import each other, directly or round a cycle.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "syncc"

LAYERS = ("syncc.core", "syncc.frontend", "syncc.ir", "syncc.backends", "syncc.runtime")   # then the rest
# back end → the other back ends it may import
BACKEND_READS = {"sim": {"fermi"}}

def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(mods: dict[str, Path]) -> set[tuple[str, str]]:
    """(importer, imported) for every import of one syncc module by another."""
    edges = set()
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                candidates = [target] + [f"{target}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                candidates = [a.name for a in node.names]
            else:
                continue
            # `from .pkg import module` imports the module; `from .module import name` the module
            found = [c for c in candidates[1:] if c in mods] or [c for c in candidates[:1] if c in mods]
            edges.update((name, c) for c in found if c != name and not name.startswith(c + "."))
    return edges


def layer(module: str) -> int:
    for i, prefix in enumerate(LAYERS):
        if module == prefix or module.startswith(prefix + "."):
            return i
    return len(LAYERS)


def backend(module: str) -> str | None:
    """The back end a module belongs to; None outside them, and for a module of backends/ itself,
    which the back ends share (inline_ptx.py)."""
    parts = module.split(".")
    if len(parts) < 3 or parts[1] != "backends":
        return None
    return parts[2] if (PACKAGE / "backends" / parts[2]).is_dir() else None


def violations(edges: set[tuple[str, str]]) -> dict[tuple[str, str], str]:
    out = {}
    for a, b in edges:
        if layer(a) < layer(b):
            out[a, b] = f"layer {LAYERS[layer(a)]} imports a later layer"
        elif backend(a) and backend(b) and backend(a) != backend(b) and backend(b) not in BACKEND_READS.get(backend(a), ()):
            out[a, b] = "one back end imports another"
        elif a.startswith("syncc.ir.checks") and b.startswith("syncc.ir.passes"):
            out[a, b] = "a hazard check imports a pass"
        elif role(a) is not None and role(b) is not None and role(a) != role(b) and role(a) != "pipeline" \
                and role(b) not in SHARED.get(role(a), ()):
            out[a, b] = f"{role(a)} imports {role(b)}"
    return out


# Within the IR, by role: the IR core (nodes, operations, builder, printer, parser, verifier, at
# ir/'s top level) imports no other role; the analyses (ir/analysis/) and the implementations
# (ir/impls/) are shared by lowering (ir/lower/), the passes and the hazard checks, which import
# them and not one another; the pipeline runs the passes, and the hazard pass runs the checks.
SHARED = {
    "analysis": ("core", "impls"),
    "impls": ("core", "analysis"),
    "lowering": ("core", "analysis", "impls"),
    "passes": ("core", "analysis", "impls", "checks"),
    "checks": ("core", "analysis", "impls"),
}
ROLES = {"analysis": "analysis", "checks": "checks", "passes": "passes", "impls": "impls", "lower": "lowering",
         "pipeline": "pipeline",
         # the expansion of bounds checks that the back ends and launchers run (a transformation
         # outside the pass list, judged as a pass)
         "faults": "passes"}


def role(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["syncc", "ir"] or len(parts) < 3:
        return None
    return ROLES.get(parts[2], "core")


def cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    graph: dict[str, list[str]] = {}
    for a, b in sorted(edges):
        graph.setdefault(a, []).append(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


EDGES = imports(modules())


def test_the_walk_sees_the_imports():
    # lazy, relative and `from .package import module` imports are all found
    assert ("syncc.cli", "syncc.driver") in EDGES
    assert ("syncc.frontend.check", "syncc.core.diagnostics") in EDGES
    assert ("syncc.core.diagnostics", "syncc.core.source") in EDGES


def test_no_import_points_back():
    found = violations(EDGES)
    assert not found, "\n".join(f"{a} → {b}: {why}" for (a, b), why in sorted(found.items()))


def test_the_rule_within_the_ir_holds_where_it_should():
    # a check reading an analysis is fine; lowering reading a check, or an analysis a pass, is not
    assert not violations({("syncc.ir.checks.locks", "syncc.ir.analysis.facts")})
    assert violations({("syncc.ir.lower.queue", "syncc.ir.checks.locks")})
    assert violations({("syncc.ir.impls.queue.ring", "syncc.ir.lower.sync")})
    assert violations({("syncc.ir.nodes", "syncc.ir.analysis.cfg")})
    assert not violations({("syncc.ir.lower.sync", "syncc.ir.impls.registry")})
    assert violations({("syncc.ir.analysis.facts", "syncc.ir.passes.elide")})
    assert violations({("syncc.ir.lower", "syncc.ir.passes.elide")})


def test_no_import_cycle():
    assert not cycles(EDGES), cycles(EDGES)


def test_the_rules_catch_a_back_edge_and_a_cycle():
    edges = {("syncc.ir.lower", "syncc.driver"), ("syncc.backends.fermi.isa", "syncc.backends.sim.lanes"),
             ("syncc.ir.checks.waits", "syncc.ir.passes.structure"), ("syncc.backends.sim.its", "syncc.backends.fermi.isa"),
             ("syncc.a", "syncc.b"), ("syncc.b", "syncc.a")}
    assert set(violations(edges)) == {("syncc.ir.lower", "syncc.driver"),
                                      ("syncc.backends.fermi.isa", "syncc.backends.sim.lanes"),
                                      ("syncc.ir.checks.waits", "syncc.ir.passes.structure")}
    assert cycles(edges) == [["syncc.a", "syncc.b"]]
