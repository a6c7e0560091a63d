"""Reading source files and resolving `import std.<module>` on the stdlib search path.

Imports resolve only inside the standard library: `import std.hash` reads
`hash.sync` from the first directory of the search path that has it. The path
is the directories given with `--stdlib` (the API's `stdlib=`), when there are
any, else the stdlib shipped inside the installed package, else the checkout's
stdlib/.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..core.diagnostics import Diagnostic, DiagnosticSink, Note, Severity, did_you_mean
from ..core.source import SourceFile, SourceMap
from . import ast as A

_PACKAGE_DIR = Path(__file__).resolve().parent.parent
MAX_IMPORT_DEPTH = 32   # modules importing modules; each level is checked inside the one above


def stdlib_search_path(given: tuple[str, ...] = ()) -> list[Path]:
    if given:
        return [Path(p) for p in given]
    for candidate in (_PACKAGE_DIR / "stdlib", _PACKAGE_DIR.parent / "stdlib"):
        if candidate.is_dir():
            return [candidate]
    return []


def load_source(path: str, sources: SourceMap) -> SourceFile | Diagnostic:
    """Read and decode a file; a problem comes back as a file-level diagnostic."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        return Diagnostic(Severity.ERROR, "E0007", f"cannot read `{path}`: {e.strerror or e}", None, file=path)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        source = sources.add(path, data.decode("utf-8", errors="replace"))
        offset = len(data[: e.start].decode("utf-8"))
        bad = data[e.start: e.end].hex(" ")
        return Diagnostic(Severity.ERROR, "E0004", f"this file is not valid UTF-8 (byte {bad})",
                          source.span(offset, offset + 1), help="save the file as UTF-8")
    return sources.add(path, text)


class ModuleLoader:
    """Finds, parses and checks imported modules, each once, reporting cycles."""

    def __init__(self, sources: SourceMap, sink: DiagnosticSink, parse_and_check: Callable,
                 search_path: list[Path] | None = None):
        self.sources = sources
        self.sink = sink
        self.parse_and_check = parse_and_check   # (SourceFile) -> CheckedModule | None
        self.search_path = stdlib_search_path() if search_path is None else search_path
        self.done: dict[Path, object] = {}
        self.loading: list[str] = []

    def available(self) -> list[str]:
        names = set()
        for root in self.search_path:
            for f in root.rglob("*.sync"):
                names.add("std." + ".".join(f.relative_to(root).with_suffix("").parts))
        return sorted(names)

    def load(self, imp: A.Import):
        """The checked module an import names, or None after reporting why not."""
        parts = [p.text for p in imp.path]
        dotted = imp.dotted
        if parts[0] != "std":
            self.sink.error("E0104", f"cannot import `{dotted}`: imports resolve only inside the standard library",
                            imp.path[0].span, help=f"write `import std.{dotted}` for a stdlib module")
            return None
        available = self.available()
        if len(parts) == 1:
            self.sink.error("E0103", "`std` is the library itself; import one of its modules",
                            imp.span, help=_listing(available))
            return None
        path = self._find(parts[1:])
        if path is None:
            self.sink.error("E0103", f"no module `{dotted}` in the standard library", imp.span,
                            notes=[Note(f"searched {', '.join(_shown(p) for p in self.search_path) or 'nothing (no stdlib found)'}")],
                            help=did_you_mean(dotted, available) or _listing(available))
            return None
        if dotted in self.loading:
            cycle = " → ".join(self.loading[self.loading.index(dotted):] + [dotted])
            self.sink.error("E0107", f"import cycle: {cycle}", imp.span)
            return None
        if path in self.done:
            return self.done[path]
        if len(self.loading) >= MAX_IMPORT_DEPTH:
            self.sink.error("E0005", f"imports nested more than {MAX_IMPORT_DEPTH} deep", imp.span,
                            notes=[Note(f"imported through {' → '.join(self.loading[:3])} → …")])
            return None
        source = load_source(str(path), self.sources)
        if isinstance(source, Diagnostic):
            self.sink.add(source)
            self.done[path] = None
            return None
        self.loading.append(dotted)
        try:
            module = self.parse_and_check(source, True)
        finally:
            self.loading.pop()
        self.done[path] = module
        if module is None:
            self.sink.error("E0110", f"module `{dotted}` has errors", imp.span,
                            notes=[Note(f"they are reported in {_shown(path)}")])
        return module

    def _find(self, rel: list[str]) -> Path | None:
        for root in self.search_path:
            candidate = root.joinpath(*rel[:-1], rel[-1] + ".sync")
            if candidate.is_file():
                return candidate
        return None


def _shown(path: Path) -> str:
    """A path as a message shows it: relative to the working directory when inside it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _listing(available: list[str]) -> str:
    if not available:
        return "no stdlib modules were found; name the stdlib directory with `--stdlib DIR`"
    return "available modules: " + ", ".join(f"`{m}`" for m in available)
