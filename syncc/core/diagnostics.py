"""One Diagnostic type and one renderer for the whole compiler.

Every error syncc reports about a program is a `Diagnostic`: a severity, a stable
code (E0xxx for errors, W0xxx for warnings; see docs/diagnostics.md), a message,
the primary span, notes (optionally located) and a help line. The renderer prints

    file:line:col: error[E0101]: unknown name `nort`
       |
    12 |     put score[i][j] = max(nort, west)
       |                           ^^^^
    help: did you mean `north`?

or, with --error-format=json, one JSON object per diagnostic per line.
"""
from __future__ import annotations

import os
import unicodedata
from dataclasses import field
from enum import Enum
from typing import IO, Iterable

from .prebuilt import dataclass
from .source import SourceMap, Span


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Note:
    message: str
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: Severity
    code: str
    message: str
    span: Span | None
    notes: tuple[Note, ...] = ()
    help: str | None = None
    file: str | None = None  # for diagnostics about a whole file (span is None)
    targets: tuple[str, ...] = ()   # the machine models it is for ("ptx", "fermi"); () when not said

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR


class DiagnosticsError(Exception):
    """Raised to stop a phase that cannot continue; carries what it found."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__("; ".join(d.message for d in self.diagnostics))


@dataclass
class DiagnosticSink:
    """Collects diagnostics from every phase of one compilation."""

    items: list[Diagnostic] = field(default_factory=list)

    def error(self, code: str, message: str, span: Span | None, *, notes: Iterable[Note] = (),
              help: str | None = None) -> Diagnostic:
        return self.add(Diagnostic(Severity.ERROR, code, message, span, tuple(notes), help))

    def warning(self, code: str, message: str, span: Span | None, *, notes: Iterable[Note] = (),
                help: str | None = None) -> Diagnostic:
        return self.add(Diagnostic(Severity.WARNING, code, message, span, tuple(notes), help))

    def add(self, diagnostic: Diagnostic) -> Diagnostic:
        self.items.append(diagnostic)
        return diagnostic

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.items.extend(diagnostics)

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self.items)

    @property
    def error_count(self) -> int:
        return sum(d.is_error for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        """Diagnostics in source order (file, then position); file-level ones first."""
        def key(d: Diagnostic):
            s = d.span
            return (s.file if s else (d.file or ""), s.start if s else -1)
        return sorted(self.items, key=key)


# ---------------------------------------------------------------------------
# Rendering

_STYLES = {
    "error": "\x1b[1;31m",
    "warning": "\x1b[1;33m",
    "note": "\x1b[1;36m",
    "help": "\x1b[1;32m",
    "bold": "\x1b[1m",
    "gutter": "\x1b[1;34m",
}
_RESET = "\x1b[0m"
_TAB = 4
_MAX_SHOWN = 160   # characters of a source line a snippet shows


def _expand(text: str) -> str:
    return text.expandtabs(_TAB)


def _width(text: str) -> int:
    """Terminal columns: wide (CJK) characters take two, combining marks none."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def use_color(stream: IO[str], choice: str = "auto") -> bool:
    """Colour only on a terminal, never when NO_COLOR is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    if choice == "always":
        return True
    if choice == "never":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Renderer:
    """Renders diagnostics as text (optionally coloured) or JSON lines."""

    def __init__(self, sources: SourceMap, *, color: bool = False):
        self.sources = sources
        self.color = color

    def _c(self, style: str, text: str) -> str:
        return f"{_STYLES[style]}{text}{_RESET}" if self.color else text

    def render(self, d: Diagnostic) -> str:
        head = f"{d.severity.value}[{d.code}]"
        lines = [f"{self._c('bold', self._where(d.span, d.file))}: {self._c(d.severity.value, head)}: "
                 f"{self._c('bold', d.message)}"]
        lines += self._snippet(d.span, d.severity.value)
        for note in d.notes:
            if note.span is not None:
                lines.append(f"{self._c('bold', self._where(note.span, None))}: {self._c('note', 'note')}: {note.message}")
                lines += self._snippet(note.span, "note")
            else:
                lines.append(f"{self._c('note', 'note')}: {note.message}")
        if d.help:
            lines.append(f"{self._c('help', 'help')}: {d.help}")
        return "\n".join(lines)

    @staticmethod
    def _where(span: Span | None, file: str | None) -> str:
        if span is None:
            return file or "syncc"
        return f"{span.file}:{span.line}:{span.col}"

    def _snippet(self, span: Span | None, style: str) -> list[str]:
        if span is None:
            return []
        source = self.sources.get(span.file)
        if source is None:
            return []
        raw = source.line_text(span.line)
        first = span.col - 1
        last = max(span.end_col - 1, first) if span.end_line == span.line else len(raw)
        if len(raw) > _MAX_SHOWN:
            # A minified or generated line: show a window around the span.
            lo = max(0, min(first - _MAX_SHOWN // 3, len(raw) - _MAX_SHOWN))
            hi = lo + _MAX_SHOWN
            shown = ("…" if lo else "") + raw[lo:hi] + ("…" if hi < len(raw) else "")
            shift = lo - (1 if lo else 0)
            raw, first, last = shown, first - shift, min(last - shift, len(shown))
        text = _expand(raw)
        start = _width(_expand(raw[:first]))
        width = max(1, _width(_expand(raw[:last])) - start)
        number = str(span.line)
        pad = " " * len(number)
        bar = self._c("gutter", "|")
        return [
            f"{pad} {bar}",
            f"{self._c('gutter', number)} {bar} {text}",
            f"{pad} {bar} {' ' * start}{self._c(style, '^' * width)}",
        ]

    def to_json(self, d: Diagnostic) -> str:
        def where(span: Span | None) -> dict:
            if span is None:
                return {"file": d.file, "line": None, "column": None, "end_line": None, "end_column": None}
            return {"file": span.file, "line": span.line, "column": span.col,
                    "end_line": span.end_line, "end_column": span.end_col}

        plain = Renderer(self.sources, color=False)
        record = {
            "severity": d.severity.value,
            "code": d.code,
            "message": d.message,
            **where(d.span),
            "notes": [{"message": n.message, **where(n.span)} for n in d.notes],
            "help": d.help,
            "targets": list(d.targets),
            "rendered": plain.render(d),
        }
        import json   # (only --error-format=json needs it)
        return json.dumps(record, ensure_ascii=False)


def did_you_mean(name: str, candidates, prefix: str = "") -> str | None:
    """'did you mean `x`?' for the candidate closest to a misspelt name, or None."""
    import difflib   # (only a misspelling pays for it)
    close = difflib.get_close_matches(name, list(candidates), n=1)
    return f"did you mean `{prefix}{close[0]}`?" if close else None


def summary(diagnostics: list[Diagnostic]) -> str | None:
    """'2 errors, 1 warning' style line, or None when there is nothing to say."""
    errors = sum(d.is_error for d in diagnostics)
    warnings = len(diagnostics) - errors
    parts = []
    if errors:
        parts.append(f"{errors} error{'s' if errors != 1 else ''}")
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    return ", ".join(parts) if parts else None
