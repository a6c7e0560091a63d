"""Reading and assembling a .sass file, for the command line.

    found = assemble_file(path)
    found.program        # the SassProgram, or None when there were errors
    found.diagnostics    # what was wrong, located in found.sources
    found.sources        # the files read, for quoting in diagnostics

A file that cannot be read or decoded is E0007/E0004, as for .sync files; the
assembler's own problems are E1001-E1011 (docs/diagnostics.md). The result has
the `diagnostics` and `sources` a CLI reporter prints, so the caller needs no
compilation around it.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...core.diagnostics import Diagnostic, DiagnosticSink, DiagnosticsError
from ...core.source import SourceMap
from ...frontend.modules import load_source
from .asm import assemble
from .program import SassProgram


@dataclass(frozen=True)
class AssembledFile:
    program: SassProgram | None
    diagnostics: list[Diagnostic]
    sources: SourceMap


def assemble_file(path: str) -> AssembledFile:
    sources = SourceMap()
    source = load_source(path, sources)
    if isinstance(source, Diagnostic):
        return AssembledFile(None, [source], sources)
    try:
        return AssembledFile(assemble(source), [], sources)
    except DiagnosticsError as e:
        return AssembledFile(None, DiagnosticSink(list(e.diagnostics)).sorted(), sources)
