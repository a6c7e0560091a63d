"""The lexer: text → tokens, with statement breaks and a nesting limit.

One master regular expression matches every token; keywords and punctuation
take the terminal names grammar.lark gives them (the parser's tables list them),
so this lexer and the grammar cannot drift apart (an unknown keyword would fail
at startup).

Statement breaks: at a line break where, as in Go, the line could end a
statement and the next line starts one (outside ( ) and [ ]), a `;` token
(type _SEMI, value "\\n") is produced, placed at the end of the previous token,
so "expected an expression, found end of line" points right after the `=` that
lacks its right-hand side.

Nesting deeper than MAX_NESTING brackets stops the lexer with a located error.
"""
from __future__ import annotations

import re
from collections import deque
from typing import Iterator

from .token import Token

MAX_NESTING = 200

# A line that ends with one of these can end a statement.
_ENDS_STATEMENT = {"NAME", "INT", "FLOAT", "STRING", "GRANULARITY", "true", "false", "return", "break", "continue",
                   "barrier", "i32", "u32", "i64", "u64", "f32", "f64", "bool", ")", "]", "}",
                   "mutex", "semaphore", "channel", "rwlock", "latch", "queue"}  # (the end of `import std.mutex`)

# A line that starts with one of these starts a new item (outside braces) ...
_STARTS_ITEM = {"import", "const", "fn", "kernel", "host", "struct",
                "mutex", "semaphore", "barrier", "channel", "rwlock", "latch", "queue",
                "scan"}       # (contextual: it arrives as NAME, and its text says it may start an item)
# ... or a new statement (inside braces).
_STARTS_STATEMENT = {
    "NAME", "launch", "let", "var", "if", "while", "for", "break", "continue", "return",
    "shared", "mutex", "semaphore", "barrier", "channel", "rwlock", "latch", "queue", "scan",
    "critical", "acquire", "when", "fence", "put", "tryget",
    "lock", "unlock", "wait", "post", "signal", "await", "sync", "arrive", "count_down", "close",
    "read", "write",            # (contextual, like `scan`: they arrive here as NAME, which starts a statement anyway)
    "check", "print", "save",
}
# Contextual keywords: names everywhere, except at the start of a statement or item when a name
# follows (`read rw[i] { }`, `scan s: i32 in global @block`), where no other statement could begin
# with two names, and, for the scan's operations, anywhere a name follows (`let t = tile s`), which
# no expression does either.
AT_STATEMENT_START = ("read", "write", "scan")
BEFORE_A_NAME = ("tile", "exclusive", "inclusive")
CONTEXTUAL = AT_STATEMENT_START + BEFORE_A_NAME
_OPEN = {"(": 1, "[": 1, "{": 0}
_CLOSE = {")": 1, "]": 1, "}": 0}

_PATTERNS = [
    ("skip", r"[ \t\f\r]+|//[^\n]*|/\*[\s\S]*?\*/"),
    ("open_comment", r"/\*"),          # a block comment that never closes
    ("newline", r"\n"),
    ("NAME", r"[A-Za-z_][A-Za-z0-9_]*"),
    # a digit after the `.` (so `0..n` is a range) or an exponent; before INT, which would take `1`
    ("FLOAT", r"[0-9][0-9_]*\.[0-9][0-9_]*(?:[eE][+-]?[0-9]+)?|[0-9][0-9_]*[eE][+-]?[0-9]+"),
    ("INT", r"0[xX][0-9A-Fa-f_]*|0[bB][01_]*|[0-9][0-9_]*"),
    ("STRING", r'"(?:[^"\\\n]|\\.)*"'),
    ("GRANULARITY", r"@[A-Za-z_][A-Za-z0-9_]*"),
]


class LexError(Exception):
    """A character no token starts with (or an unterminated string or comment)."""

    def __init__(self, pos: int):
        super().__init__(f"unexpected character at offset {pos}")
        self.pos = pos


class NestingTooDeep(Exception):
    def __init__(self, token: Token):
        super().__init__(f"nesting deeper than {MAX_NESTING} levels")
        self.token = token


class SynccLexer:
    """The lexer for the grammar's terminals (`literal`: token text → terminal name, for its
    keywords and punctuation)."""

    recent: deque = deque(maxlen=4)   # the last tokens produced, for parse-error positions

    def __init__(self, literal: dict[str, str]) -> None:
        self.keywords = {k: v for k, v in literal.items() if k.isidentifier() and k not in CONTEXTUAL}
        self.contextual = {k: literal[k] for k in CONTEXTUAL if k in literal}
        punct = sorted((k for k in literal if not k.isidentifier()), key=len, reverse=True)
        self.punct = {k: literal[k] for k in punct}
        parts = [f"(?P<{name}>{rx})" for name, rx in _PATTERNS]
        parts.append("(?P<punct>" + "|".join(re.escape(p) for p in punct) + ")")
        self.master = re.compile("|".join(parts)).match

    def lex(self, text: str) -> Iterator[Token]:
        """The tokens of `text`, with contextual keywords resolved (one token of lookahead)."""
        held: Token | None = None        # a contextual word at a statement's start, waiting for the next token
        before = None                    # the token before it
        for tok in self._tokens(text):
            if held is not None:
                if tok.type == "NAME":
                    held.type = self.contextual[str(held)]    # in place: `recent` holds the same object
                yield held
                held = None
            if tok.type == "NAME" and str(tok) in self.contextual and (
                    str(tok) in BEFORE_A_NAME or before is None or before.type in ("_SEMI", "LBRACE")):
                held = tok
            else:
                yield tok
            before = tok
        if held is not None:
            yield held

    def _tokens(self, text: str) -> Iterator[Token]:
        match, keywords, punct = self.master, self.keywords, self.punct
        recent = SynccLexer.recent = deque(maxlen=4)
        pos, line, line_start, end = 0, 1, 0, len(text)
        parens = braces = 0
        prev: Token | None = None
        prev_key = ""           # what prev is, in the terms of _ENDS_STATEMENT
        broke = False           # a line break since prev
        while pos < end:
            m = match(text, pos)
            if m is None:
                raise LexError(pos)
            kind = m.lastgroup
            value = m.group()
            start = pos
            pos = m.end()
            if kind == "open_comment":
                raise LexError(start)
            if kind == "skip":
                if "\n" in value:   # a block comment spanning lines counts as a line break
                    broke = True
                    line += value.count("\n")
                    line_start = start + value.rfind("\n") + 1
                continue
            if kind == "newline":
                broke = True
                line += 1
                line_start = pos
                continue
            if kind == "NAME":
                ttype = keywords.get(value, "NAME")
                key = value if ttype != "NAME" else "NAME"
            elif kind == "punct":
                ttype = punct[value]
                key = value
            else:
                ttype = key = kind
            if (broke and prev is not None and parens == 0 and prev_key in _ENDS_STATEMENT
                    and (key in (starts := _STARTS_STATEMENT if braces else _STARTS_ITEM) or value in starts)):
                # Outside braces only item keywords start a line anew, so a kernel
                # header may continue with `launch grid(1)` or `block(32)` lines.
                semi = Token("_SEMI", "\n", prev.end_pos, prev.end_line, prev.end_column,
                             prev.end_line, prev.end_column, prev.end_pos)
                recent.append(semi)
                yield semi
            col = start - line_start + 1
            tok = Token(ttype, value, start, line, col, line, col + len(value), pos)
            if key in _OPEN:
                if _OPEN[key]:
                    parens += 1
                else:
                    braces += 1
                if parens + braces > MAX_NESTING:
                    raise NestingTooDeep(tok)
            elif key in _CLOSE:
                if _CLOSE[key]:
                    parens = max(0, parens - 1)
                else:
                    braces = max(0, braces - 1)
            recent.append(tok)
            prev, prev_key, broke = tok, key, False
            yield tok


def token_before(tok: Token) -> Token | None:
    """The token produced just before `tok` (None when `tok` was the first)."""
    items = list(SynccLexer.recent)
    for i in range(len(items) - 1, 0, -1):
        if items[i] is tok:
            return items[i - 1]
    return items[-1] if items and items[-1] is not tok else None


def last_token() -> Token | None:
    return SynccLexer.recent[-1] if SynccLexer.recent else None
