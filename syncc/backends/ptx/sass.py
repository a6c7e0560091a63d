"""`--target sass`: the real SASS of a program's kernels, through ptxas and nvdisasm, with the
source line of each synchronization instruction beside it.

The PTX is built with `.loc` line directives (codegen.py's debug locations), ptxas assembles
it with `-lineinfo`, and nvdisasm prints the SASS with the line of each instruction. Every
instruction that synchronizes (atomics and reductions, fences and MEMBAR, barriers, warp
syncs and votes, strong loads and stores, cache invalidations, nanosleep) gets its source
position and line as a comment:

        /*02b0*/   ATOMG.E.CAS.STRONG.GPU PT, R2, [R2], R4, R5 ;   // hashtable.sync:22  critical bucket[b] {

Without nvdisasm, cuobjdump prints the SASS, without lines.
"""
from __future__ import annotations

import os
import re
import tempfile

from ...core.source import SourceMap
from . import build_ptx
from .tools import ToolError, find_tool, run_tool

SYNC = re.compile(r"\b(ATOM\w*|RED\w*|MEMBAR\w*|FENCE\w*|BAR\b[\w.]*|BAR\.\w+|WARPSYNC\w*|VOTE\w*|NANOSLEEP\w*|"
                  r"CCTL\w*|ERRBAR\w*|\w+\.STRONG\.\w+|\w+\.STRONG\b|YIELD|BSSY|BSYNC)")
LINE = re.compile(r'//## File "(.*?)", line (\d+)')
INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]+\*/")


def build_sass(module, arch: str, sources: SourceMap) -> str:
    ptx = build_ptx(module, arch, lines=True).text
    with tempfile.TemporaryDirectory() as tmp:
        ptx_path, cubin = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(ptx_path, "w") as f:
            f.write(ptx)
        run_tool("ptxas", [f"-arch={arch}", "-lineinfo", ptx_path, "-o", cubin])
        if find_tool("nvdisasm") is not None:
            listing = run_tool("nvdisasm", ["-g", "-c", cubin])
            return annotate(listing, sources, module.source)
        if find_tool("cuobjdump") is not None:
            return run_tool("cuobjdump", ["-sass", cubin])
    raise ToolError("neither nvdisasm nor cuobjdump was found (pip install 'syncc[cuda-tools]')")


def annotate(listing: str, sources: SourceMap, source: str | None) -> str:
    out, where = [], None
    for line in listing.splitlines():
        m = LINE.search(line)
        if m:
            where = (m.group(1), int(m.group(2)))
            continue
        if INSTRUCTION.match(line) and where is not None and SYNC.search(line):
            out.append(f"{line:<72}  // {_quote(where, sources, source)}")
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def _quote(where, sources: SourceMap, source: str | None) -> str:
    path, n = where
    text = ""
    for candidate in (source, path):
        f = sources.get(candidate) if candidate else None
        if f is not None:
            text = f.line_text(n).strip()
            break
    return f"{os.path.basename(path)}:{n}  {text}".rstrip()
