"""Every ```sync example of docs/language.md checks clean (no errors, no warnings)."""
import re

import pytest

from helpers import ROOT, syncc

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
