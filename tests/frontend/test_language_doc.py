"""Every ```sync example of docs/language.md checks clean (no errors, no warnings)."""
import re

import pytest

from helpers import ROOT, markdown_table, syncc

DOC = ROOT / "docs" / "language.md"
EXAMPLES = [m.group(1) for m in re.finditer(r"^```sync\n(.*?)^```", DOC.read_text(), re.S | re.M)]


def test_the_reference_has_examples():
    assert len(EXAMPLES) >= 15


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_example_checks_clean(index, tmp_path):
    path = tmp_path / f"example{index}.sync"
    path.write_text(EXAMPLES[index])
    r = syncc("check", str(path))
    assert r.code == 0 and "warning" not in r.err, f"example {index}:\n{EXAMPLES[index]}\n{r.err}"


def test_the_using_table_is_the_registry():
    """§ "Implementations: `using`" lists every implementation of the registry (syncc/ir/impls/),
    with its placements, granularities and parameters."""
    from syncc.ir.impls.registry import IMPLEMENTATIONS
    documented = {}
    for kind, name, placements, grans, params, *_ in markdown_table(DOC.read_text(), "| kind | name | placements |"):
        documented[kind, name.strip("`")] = (
            set(placements.split(", ")), set(g.split()[0] for g in grans.split(", ")),
            () if params == "—" else tuple(re.findall(r"`(\w+)` \((\d+)\)", params)))
    in_code = {(i.kind, i.name): (set(i.placements), set(i.granularities),
                                  tuple((p.name, str(p.default)) for p in i.params)) for i in IMPLEMENTATIONS}
    assert documented == in_code
