"""Statement breaks and nesting limits, applied to lark's token stream.

`StatementBreaks` is a lark postlexer. It inserts a `;` token (type _SEMI, value
"\\n") at a line break when, as in Go, the line could end a statement and the
next line starts one, outside ( ) and [ ]. The inserted token sits at the end of
the previous token, so "expected an expression, found end of line" points right
after the `=` that is missing its right-hand side.

It also refuses bracket nesting deeper than MAX_NESTING with a located error,
and remembers the last tokens it passed on, so the parser's error report can
say where the token before an unexpected one ended.
"""
from __future__ import annotations

from collections import deque
from typing import Iterator

from lark import Token

MAX_NESTING = 200

# A line that ends with one of these can end a statement.
_ENDS_STATEMENT = {"true", "false", "return", "break", "continue", "barrier",
                   "i32", "u32", "i64", "u64", "bool", ")", "]", "}"}
_ENDS_STATEMENT_TYPES = {"NAME", "INT", "STRING", "GRANULARITY"}

# A line that starts with one of these starts a new statement or item.
_STARTS_STATEMENT = {
    "import", "const", "fn", "kernel", "host",
    "let", "var", "if", "while", "for", "break", "continue", "return",
    "shared", "mutex", "semaphore", "barrier", "channel",
    "critical", "acquire", "when", "fence", "put",
    "lock", "unlock", "wait", "post", "signal", "await", "sync", "arrive",
    "check", "print", "save",
}
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")", "]", "}"}


class NestingTooDeep(Exception):
    def __init__(self, token: Token):
        super().__init__(f"nesting deeper than {MAX_NESTING} levels")
        self.token = token


def _ends_statement(tok: Token) -> bool:
    return tok.type in _ENDS_STATEMENT_TYPES or tok.value in _ENDS_STATEMENT


def _starts_statement(tok: Token, braces: int) -> bool:
    if tok.type == "NAME":
        return True
    if tok.type in ("INT", "STRING", "GRANULARITY"):
        return False
    # `launch` opens a host statement inside braces; at the top level it
    # continues a kernel header (`kernel k(...)` / `launch grid(1) block(32)`).
    return tok.value in _STARTS_STATEMENT or (tok.value == "launch" and braces > 0)


class StatementBreaks:
    """lark postlexer: Go-style statement breaks plus a nesting limit."""

    always_accept = ()

    def __init__(self) -> None:
        self.recent: deque[Token] = deque(maxlen=4)

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        self.recent = recent = deque(maxlen=4)
        parens = 0       # depth of ( and [: line breaks inside them never end statements
        braces = 0
        prev: Token | None = None
        for tok in stream:
            if (prev is not None and tok.line > prev.end_line and parens == 0
                    and _ends_statement(prev) and _starts_statement(tok, braces)):
                semi = Token("_SEMI", "\n", prev.end_pos, prev.end_line, prev.end_column,
                             prev.end_line, prev.end_column, prev.end_pos)
                recent.append(semi)
                yield semi
            value = tok.value
            if value in _OPEN and tok.type != "STRING":
                if value == "{":
                    braces += 1
                else:
                    parens += 1
                if parens + braces > MAX_NESTING:
                    raise NestingTooDeep(tok)
            elif value in _CLOSE and tok.type != "STRING":
                if value == "}":
                    braces = max(0, braces - 1)
                else:
                    parens = max(0, parens - 1)
            recent.append(tok)
            prev = tok
            yield tok

    def token_before(self, tok: Token) -> Token | None:
        """The token passed on just before `tok` (None when `tok` was the first)."""
        items = list(self.recent)
        for i in range(len(items) - 1, 0, -1):
            if items[i] is tok:
                return items[i - 1]
        return items[-1] if items and items[-1] is not tok else None
