"""Source files and spans: where every AST node, token and diagnostic points."""
from __future__ import annotations

import bisect
from dataclasses import field

from .prebuilt import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open character range [start, end) in one file, with 1-based line/column."""

    file: str
    start: int
    end: int
    line: int
    col: int
    end_line: int
    end_col: int

    def to(self, other: "Span") -> "Span":
        """The span from the start of self to the end of other."""
        return Span(self.file, self.start, other.end, self.line, self.col, other.end_line, other.end_col)

    def at_end(self) -> "Span":
        """A zero-width span just after self (where a missing token belongs)."""
        return Span(self.file, self.end, self.end, self.end_line, self.end_col, self.end_line, self.end_col)

    def last_char(self) -> "Span":
        """The span of the last character of self (a closing brace, say)."""
        start = max(self.start, self.end - 1)
        return Span(self.file, start, self.end, self.end_line, max(1, self.end_col - 1), self.end_line, self.end_col)

    def short(self) -> str:
        return f"{self.line}:{self.col}-{self.end_line}:{self.end_col}"


@dataclass
class SourceFile:
    """The text of one file, with a line index for turning offsets into positions."""

    path: str
    text: str
    _line_starts: list[int] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        starts = [0]
        find = self.text.find
        i = find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = find("\n", i + 1)
        self._line_starts = starts

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        offset = max(0, min(offset, len(self.text)))
        row = bisect.bisect_right(self._line_starts, offset) - 1
        return row + 1, offset - self._line_starts[row] + 1

    def span(self, start: int, end: int) -> Span:
        line, col = self.position(start)
        end_line, end_col = self.position(end)
        return Span(self.path, start, end, line, col, end_line, end_col)

    def span_at(self, line: int, col: int) -> Span:
        """A one-character span at a 1-based line and column (clamped to the file)."""
        line = max(1, min(line, len(self._line_starts)))
        start = min(len(self.text), self._line_starts[line - 1] + max(0, col - 1))
        return self.span(start, min(len(self.text), start + 1))

    def line_text(self, line: int) -> str:
        """The text of a 1-based line without its line break ('' past the end)."""
        if line < 1 or line > len(self._line_starts):
            return ""
        start = self._line_starts[line - 1]
        end = self._line_starts[line] - 1 if line < len(self._line_starts) else len(self.text)
        return self.text[start:end].rstrip("\r")


class SourceMap:
    """Every file a compilation has read, so diagnostics can quote any of them."""

    def __init__(self) -> None:
        self.files: dict[str, SourceFile] = {}

    def add(self, path: str, text: str) -> SourceFile:
        source = SourceFile(path, text)
        self.files[path] = source
        return source

    def get(self, path: str) -> SourceFile | None:
        return self.files.get(path)
