"""`--target sass`: the real SASS, with the source line beside each synchronization
instruction (skipped without ptxas and nvdisasm: PATH or the cuda-tools extra)."""
from __future__ import annotations

import re

import pytest

from helpers import EXAMPLES, ROOT, syncc
from syncc.backends.ptx.tools import find_tool

pytestmark = pytest.mark.skipif(find_tool("ptxas") is None or find_tool("nvdisasm") is None,
                                reason="needs ptxas and nvdisasm (PATH, or pip install 'syncc[cuda-tools]')")


def test_hashtable_sync_instructions_show_their_lines():
    r = syncc("build", "examples/hashtable.sync", "--target", "sass")
    assert r.code == 0, r.err
    # the ttas kernel, `insert` (the file's other kernels use other locks)
    text = r.out.split("--- .text.insert ")[1].split("//------")[0]
    lines = text.splitlines()
    cas = [x for x in lines if "ATOMG.E.CAS" in x]
    lock = [x for x in cas if x.endswith("// hashtable.sync:24  critical bucket[b] {")]
    # besides the lock's, the claim of a run-time bounds check's failure path (of `keys[i]`, whose
    # index comes from gtid, at its line)
    assert lock and all(x in lock or x.endswith("// hashtable.sync:23  let b = bucket_of(keys[i], nbuckets)")
                        for x in cas)
    release = [x for x in lines if "ATOMG.E.EXCH" in x]
    assert release and all("hashtable.sync:27" in x for x in release)
    # the release's fence: a MEMBAR at gpu scope before the exchange, on the same line
    membar = [n for n, x in enumerate(lines) if "MEMBAR" in x and "hashtable.sync:27" in x]
    assert membar and membar[0] < lines.index(release[0])
    # nothing else is annotated: plain arithmetic carries no comment
    assert not any(re.search(r"\bIMAD\b.*// ", x) for x in lines)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_has_sass(path):
    r = syncc("build", str(path.relative_to(ROOT)), "--target", "sass", "--arch", "sm_90")
    assert r.code == 0, r.err
    assert f"// {path.name}:" in r.out
