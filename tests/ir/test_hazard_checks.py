"""The hazard checks as an extension point (docs/architecture.md, "A hazard check"): each module
of syncc/ir/checks/ that the hazard pass runs declares the codes it reports (`CODES`), and the
declaration is exactly the codes its source reports; every such code is documented in
docs/diagnostics.md and expected by a buggy program of the corpus (tests/hazards/)."""
from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

from syncc.ir.passes.hazards import CHECKS

ROOT = Path(__file__).resolve().parents[2]
CODE = re.compile(r"[EW]0\d{3}")
EXPECT = re.compile(r"//\s*expect:\s*([EW]\d{4}(?:\s*,\s*[EW]\d{4})*)")


def reported(module) -> set[str]:
    """The diagnostic codes a module's source names as string constants."""
    tree = ast.parse(inspect.getsource(module))
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and CODE.fullmatch(n.value)}


def check_modules() -> dict[str, object]:
    return {fn.__module__: importlib.import_module(fn.__module__) for fn in CHECKS}


def test_each_check_declares_the_codes_it_reports():
    for name, module in check_modules().items():
        assert hasattr(module, "CODES"), f"{name} declares no CODES"
        assert set(module.CODES) == reported(module), f"{name}: CODES {sorted(module.CODES)}, reports {sorted(reported(module))}"


def test_every_check_module_with_codes_is_run():
    run = set(check_modules())
    for path in sorted((ROOT / "syncc" / "ir" / "checks").glob("*.py")):
        module = importlib.import_module(f"syncc.ir.checks.{path.stem}")
        if reported(module):
            assert module.__name__ in run, f"{module.__name__} reports codes but is not in passes/hazards.py's CHECKS"


def test_every_hazard_code_is_documented_and_has_a_buggy_program():
    codes = set().union(*(set(m.CODES) for m in check_modules().values()))
    docs = (ROOT / "docs" / "diagnostics.md").read_text()
    expected = set()
    for path in (ROOT / "tests" / "hazards").glob("*.sync"):
        for m in EXPECT.finditer(path.read_text()):
            expected.update(c.strip() for c in m.group(1).split(","))
    for code in sorted(codes):
        assert f"## {code}:" in docs, f"{code} has no section in docs/diagnostics.md"
        assert code in expected, f"no program in tests/hazards expects {code}"
