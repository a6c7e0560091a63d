"""Reading and assembling a .sass file for the command line.

    comp, program = assemble_file(path)   # program is None when there were errors
    comp = check_sass_file(path)          # `syncc check FILE.sass`

`comp` is a driver.Compilation: its `diagnostics` and `sources` are what the
CLI's Reporter prints. A file that cannot be read or decoded is E0007/E0004, as
for .sync files; the assembler's own problems are E1001-E1011
(docs/diagnostics.md).
"""
from __future__ import annotations

from ...core.diagnostics import CompileError
from ...driver import Compilation
from .asm import assemble
from .program import SassProgram


def assemble_file(path: str) -> tuple[Compilation, SassProgram | None]:
    comp = Compilation()
    source = comp.read(path)
    if source is None:
        return comp, None
    try:
        return comp, assemble(source)
    except CompileError as e:
        comp.sink.extend(e.diagnostics)
        return comp, None


def check_sass_file(path: str) -> Compilation:
    return assemble_file(path)[0]
