"""Text → AST: the LALR parser (lark's tables, syncc's driver) and its errors as diagnostics.

    program = parse(SourceFile(path, text))      # raises DiagnosticsError on bad input

A parse error names what was expected in words ("expected an expression or `)`"),
what was found, and points where the missing piece belongs: when the offending
token starts a later line than the token before it, the caret goes right after
that previous token, not at the start of the next line.
"""
from __future__ import annotations

from ..core.diagnostics import Diagnostic, DiagnosticsError, Severity
from ..core.source import SourceFile, Span
from . import ast as A
from . import tables as T
from .build_ast import AstBuilder, BadLiteral, TreeTooDeep
from .lalr import ParseError, Tables
from .lexer import (_STARTS_ITEM, _STARTS_STATEMENT, MAX_NESTING, LexError, NestingTooDeep,
                    SynccLexer, last_token, token_before)
from .token import Token

GRAMMAR_PATH = T.GRAMMAR_PATH

_builder = AstBuilder()
_machine: tuple[SynccLexer, Tables, dict] | None = None


def parse_machine() -> tuple[SynccLexer, Tables, dict]:
    """The lexer, the tables driving the AST builder, and the terminals (name → token text, None
    for NAME, INT, ...), made once per process from tables.py's data. One builder serves the
    process, so parsing is not re-entrant across threads."""
    global _machine
    if _machine is None:
        data = T.load()
        terminals = dict(data["TERMINALS"])
        literal = {text: name for name, text in terminals.items() if text is not None}
        _machine = (SynccLexer(literal), Tables(data, _builder), terminals)
    return _machine


MAX_SOURCE_BYTES = 1 << 20   # 1 MiB: 300 times the largest example; parsing is pure Python


def parse(source: SourceFile) -> A.Program:
    text = source.text
    if len(text) > MAX_SOURCE_BYTES and len(text.encode("utf-8")) > MAX_SOURCE_BYTES:
        cut = len(text.encode("utf-8")[:MAX_SOURCE_BYTES].decode("utf-8", errors="ignore"))
        raise DiagnosticsError([_error(
            "E0008", f"this file is {len(text.encode('utf-8')) / (1 << 20):.1f} MiB; syncc reads programs "
            f"of up to {MAX_SOURCE_BYTES >> 20} MiB", source.span(cut, cut + 1),
            help="the limit is reached here; split the program or generate less code")])
    lexer, tables, _ = parse_machine()
    _builder.reset(source.path)
    try:
        return tables.parse(lexer.lex(text))
    except ParseError as e:
        raise DiagnosticsError([_unexpected_token(e.token, e.acceptable(), source)]) from None
    except LexError as e:
        raise DiagnosticsError([_unexpected_character(e.pos, source)]) from None
    except NestingTooDeep as e:
        raise DiagnosticsError([_error("E0005", f"brackets nested more than {MAX_NESTING} deep",
                                       _tok_span(source, e.token),
                                       help="split the expression or block into smaller pieces")]) from None
    except TreeTooDeep as e:
        raise DiagnosticsError([_error("E0005", f"this is nested more than {MAX_NESTING} levels deep "
                                       "(counting every operator of a chain like `a + b + c`)", e.span,
                                       help="split it up with `let`s, functions or smaller blocks")]) from None
    except BadLiteral as e:
        raise DiagnosticsError([_error("E0003", str(e), e.span)]) from None


def _error(code: str, message: str, span: Span | None, help: str | None = None) -> Diagnostic:
    return Diagnostic(Severity.ERROR, code, message, span, (), help)


def _tok_span(source: SourceFile, tok: Token) -> Span:
    start = tok.start_pos or 0
    end = tok.end_pos if tok.end_pos is not None else start
    return source.span(start, end)


# ---- what was found, what was expected -------------------------------------

# Groups of terminals a message names in one phrase, written as token text
# (NAME/INT/STRING stand for themselves): (marker, covered, words). A group is
# used when every marker is expected; it then stands for every covered token.
_EXPR = {"NAME", "INT", "FLOAT", "STRING", "(", "[", "-", "!", "~", "true", "false", "get", "trylock", "trywait",
         "tryput", "tile", "exclusive", "inclusive", "i32", "u32", "i64", "u64", "f32", "f64", "bool"}
_TYPE = {"i32", "u32", "i64", "u64", "f32", "f64", "bool"}
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}
_COMPARE = {"==", "!=", "<", "<=", ">", ">="}
_OPS = {"+", "-", "*", "/", "%", "|", "^", "&", "<<", ">>", "&&", "||", "[", ".", "("} | _COMPARE
_GROUPS = [
    (_STARTS_ITEM, _STARTS_ITEM, "an item (`import`, `const`, `fn`, `kernel`, `host` or `struct`)"),
    ({"let", "if", "critical"}, _STARTS_STATEMENT, "a statement"),
    ({"NAME", "INT", "(", "-"}, _EXPR, "an expression"),
    (_TYPE, _TYPE | {"global", "shared"}, "a type"),
    ({"+", "*", "&&"}, _OPS, "an operator"),
    ({"=", "+="}, _ASSIGN, "`=` or another assignment"),
]
_SPECIAL = {"NAME": "a name", "INT": "an integer", "FLOAT": "a floating-point number", "STRING": "a string",
            "GRANULARITY": "a granularity (`@thread`, `@warp`, `@block` or `@grid`)",
            "_SEMI": "a line break", "$END": "end of file"}

_names_by_text: dict[str, str] | None = None


def _terminal_names() -> dict[str, str]:
    """Token text (or NAME/INT/...) → lark's terminal name."""
    global _names_by_text
    if _names_by_text is None:
        _names_by_text = {text if text is not None else name: name for name, text in parse_machine()[2].items()}
        _names_by_text.update({k: k for k in _SPECIAL})
    return _names_by_text


def _describe_expected(expected: set[str]) -> str:
    by_text = _terminal_names()
    text_of = {name: text for text, name in by_text.items()}
    remaining = set(expected)
    parts: list[str] = []
    for marker, covered, words in _GROUPS:
        if {by_text[t] for t in marker} <= remaining:
            parts.append(words)
            remaining -= {by_text[t] for t in covered}
    for name in sorted(remaining, key=lambda n: (n in ("_SEMI", "$END"), text_of.get(n, n))):
        parts.append(_SPECIAL.get(name) or f"`{text_of.get(name, name)}`")
    if len(parts) > 6:
        parts = parts[:5] + [f"one of {len(parts) - 5} other tokens"]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def _describe_found(tok: Token) -> str:
    if tok.type == "$END":
        return "end of file"
    if tok.type == "_SEMI":
        return "end of line" if tok.value == "\n" else "`;`"
    if tok.type == "STRING":
        return "a string"
    text = str(tok)
    shown = text if len(text) <= 24 else text[:24] + "…"
    if tok.type not in ("NAME", "INT", "FLOAT", "GRANULARITY") and text.isidentifier():
        return f"keyword `{shown}`"
    return f"`{shown}`"


def _unexpected_token(tok: Token, expected: set[str], source: SourceFile) -> Diagnostic:
    prev = token_before(tok) if tok.type != "$END" else last_token()
    if prev is not None and (tok.type in ("$END", "_SEMI") or (tok.line is not None and tok.line > prev.end_line)):
        span = _tok_span(source, prev).at_end()   # the missing piece belongs right after `prev`
    elif tok.type == "$END":
        span = source.span(len(source.text), len(source.text))
    else:
        span = _tok_span(source, tok)
    message = f"expected {_describe_expected(expected)}, found {_describe_found(tok)}"
    return _error("E0002", message, span, _parse_help(tok, expected, prev, source))


def _parse_help(tok: Token, expected: set[str], prev: Token | None, source: SourceFile) -> str | None:
    names = _terminal_names()
    value = str(tok)
    if tok.type == "EQUAL" and "LBRACE" in expected:
        return "to compare two values, write `==`"
    if names["="] in expected:                        # a statement that is only an expression
        if source.text.startswith(("++", "--"), tok.start_pos or 0):
            return f"syncc has no `{value * 2}`; write `x {value}= 1`"
        if value in _COMPARE:
            return "a comparison on its own does nothing; to assign, write `=`"
        if value in _OPS:
            return "an expression on its own does nothing; assign it with `=` or `+=`"
    if value in _COMPARE and names["&&"] in expected:
        return "comparisons do not chain: write `a < b && b < c`"
    if tok.type == "NAME" and names["i32"] in expected and names["bool"] in expected:   # a type was due
        return _type_help(value)
    if expected == {"NAME"} and tok.type not in ("NAME", "$END", "_SEMI") and value.isidentifier():
        return f"`{value}` is a reserved word; choose another name"
    if tok.type == "GRANULARITY" and "IN" in expected:
        return "say where the primitive lives before who contends for it: `in shared @thread`, `in global @block`"
    if "IN" in expected and tok.type in ("$END", "_SEMI", "RBRACE") and prev is not None:
        return "a primitive needs a placement and a granularity, e.g. `in global @thread`"
    if tok.type == "LBRACE" and "LBRACE" not in expected and "RPAR" in expected:
        return "a `)` is missing before the `{`"
    if "LBRACE" in expected and prev is not None and tok.line is not None and tok.line > prev.end_line:
        return "a `{` is missing at the end of this line"
    return None


# C's and other languages' names for the float types syncc has
_FLOAT_NAMES = {"float": "f32", "double": "f64", "f16": None, "half": None, "bf16": None}


def _type_help(name: str) -> str:
    """What to say of a name written where a type was due."""
    types = ", ".join(f"`{t}`" for t in sorted(_TYPE - {"bool"})) + " and `bool`"
    if name in _FLOAT_NAMES:
        ours = _FLOAT_NAMES[name]
        return (f"`{name}` is written `{ours}` here" if ours else
                f"syncc has no 16-bit floating-point types; the float types are `f32` and `f64`") + \
            f"; the types are {types}"
    return f"the types are {types}"


def _unexpected_character(pos: int, source: SourceFile) -> Diagnostic:
    char = source.text[pos] if pos < len(source.text) else ""
    span = source.span(pos, pos + 1)
    if char == '"':
        end = source.text.find("\n", pos)
        end = len(source.text) if end < 0 else end
        return _error("E0006", "unterminated string literal", source.span(pos, end),
                      help='close the string with `"` on the same line')
    if source.text.startswith("/*", pos):
        return _error("E0006", "unterminated block comment", source.span(pos, pos + 2),
                      help="close the comment with `*/`")
    if char.isprintable() and not char.isspace():
        message = f"unexpected character `{char}`"
    else:
        message = f"unexpected character U+{ord(char):04X}" if char else "unexpected end of input"
    help = {"'": 'strings are written in double quotes: "text"', "#": "comments start with `//`"}.get(char)
    return _error("E0001", message, span, help)
