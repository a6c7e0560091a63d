""".sass text → records, line by line (labels, instructions, directives), or located syntax errors.

    for record in parse_lines(source, sink): ...

Each line is parsed on its own by the LALR grammar sass.lark, so one bad line
costs one diagnostic (E1008, "expected `,` or `;`, found `R2`") and the lines
after it are still read. The records keep the spans of their words; what the
words mean (opcodes, registers, types) is checked by asm_operands.py and
asm.py. An unknown directive is E1007, with the nearest directive's name.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Union

from lark import Lark, Token, Transformer, UnexpectedCharacters, UnexpectedInput, UnexpectedToken, v_args

from ...core.diagnostics import Diagnostic, DiagnosticSink, Severity, did_you_mean
from ...core.source import SourceFile, Span

GRAMMAR_PATH = Path(__file__).with_name("sass.lark")

DIRECTIVES = (".kernel", ".source", ".launch", ".its", ".record", ".param", ".state", ".shared", ".shared_bytes",
              ".local_bytes", ".print", ".loc", ".region", ".endregion")


# ---- the records ------------------------------------------------------------------------

@dataclass(frozen=True)
class Word:
    """A word of the source and where it is."""
    text: str
    span: Span


@dataclass(frozen=True)
class WordOp:                    # R1, -R2, ~R3, SR_LaneId, CC.T, a label
    text: str
    neg: bool
    inv: bool
    span: Span


@dataclass(frozen=True)
class NotOp:                     # !P1
    text: str
    span: Span


@dataclass(frozen=True)
class NumOp:                     # 0x1, -4
    value: int
    span: Span


@dataclass(frozen=True)
class MemOp:                     # [R0], [R7+-0x4], [R7-0x4], [0x10]
    base: Word | None
    offset: int
    span: Span


@dataclass(frozen=True)
class ConstOp:                   # c [0x0] [0x20]
    bank: int
    offset: int
    span: Span


RawOperand = Union[WordOp, NotOp, NumOp, MemOp, ConstOp]


@dataclass(frozen=True)
class LabelLine:
    name: Word


@dataclass(frozen=True)
class InstrLine:
    addr: int | None             # from /*00a0*/
    addr_span: Span | None
    guard: WordOp | None         # neg set for @!P0
    opcode: Word                 # ISETP.EQ.AND.S, split by asm_operands.py
    operands: tuple[RawOperand, ...]
    span: Span


@dataclass(frozen=True)
class InitSpec:
    """An INIT as written: zeros | range (word), fill(V) (call), [v, ...] (list), V (number)."""
    form: str                    # word | call | list | number
    name: Word | None
    values: tuple[int, ...]
    span: Span


@dataclass(frozen=True)
class LaunchDims:
    """`grid(2, 1)` of `.launch`."""
    name: Word
    values: tuple[int, ...]
    span: Span


@dataclass(frozen=True)
class Directive:
    """A directive line. `args` holds what the grammar rule `kind` matched (see _Builder)."""
    kind: str                    # kernel | source | launch | its | param | state | shared | ...
    head: Span                   # the `.kernel` word
    span: Span                   # the whole directive
    args: tuple


@dataclass(frozen=True)
class Unparsed:
    """A line with a syntax error (already reported): `head` is its first word, so that the
    assembler does not also report, say, a missing `.launch` for a malformed `.launch` line."""
    head: str
    span: Span


Record = Union[LabelLine, InstrLine, Directive, Unparsed]


# ---- the parser -------------------------------------------------------------------------------

def _number(tok: Token) -> int:
    """0x1f or 31 (a decimal may have leading zeros)."""
    text = str(tok)
    return int(text[2:], 16) if text[:2] in ("0x", "0X") else int(text)


def _signed(parts) -> int:
    """MINUS? NUMBER → its value."""
    value = _number(parts[-1])
    return -value if len(parts) == 2 else value


def _words(children) -> list:
    """The children without punctuation (the grammar is built with keep_all_tokens)."""
    return [c for c in children if not (isinstance(c, Token) and c.type not in _KEPT)]


_KEPT = {"WORD", "NUMBER", "STRING", "ADDR", "GLOBAL", "MINUS", "PLUS", "TILDE", "BANG"}


@v_args(inline=True)
class _Builder(Transformer):
    """Tree → records, during the parse. `source` and `base` (the line's offset) are set per line,
    so one builder serves the process and parsing is not re-entrant."""

    source: SourceFile
    base = 0                     # where the line starts in the file
    code_end = 0                 # where its code ends (before a comment)

    def _extent(self, first, last) -> Span:
        """The span from the start of `first` to the end of `last` (tokens or records)."""
        def edge(x, at_end: bool) -> int:
            if isinstance(x, Token):
                return self.base + (x.end_pos if at_end else x.start_pos)
            if isinstance(x, (list, tuple)):
                return edge(x[-1] if at_end else x[0], at_end)
            return x.span.end if at_end else x.span.start
        return self.source.span(edge(first, False), edge(last, True))

    def _word(self, tok: Token) -> Word:
        return Word(str(tok), self._extent(tok, tok))

    # -- lines
    def start(self, *records):
        return list(records)

    def label(self, name, _colon):
        return LabelLine(self._word(name))

    def instruction(self, *children):
        parts = list(children[:-1])              # the `;` ends it
        addr = addr_span = guard = None
        operands: tuple = ()
        if isinstance(parts[0], Token) and parts[0].type == "ADDR":
            tok = parts.pop(0)
            addr, addr_span = int(str(tok)[2:-2].strip(), 16), self._extent(tok, tok)
        if isinstance(parts[0], WordOp):
            guard = parts.pop(0)
        opcode = self._word(parts.pop(0))
        if parts:
            operands = tuple(parts.pop(0))
        return InstrLine(addr, addr_span, guard, opcode, operands, self._extent(children[0], children[-1]))

    def guard(self, *children):
        return WordOp(str(children[-1]), len(children) == 3, False, self._extent(children[0], children[-1]))

    def operands(self, *children):
        return _words(children)

    def word_operand(self, *parts):
        signs = {p.type for p in parts[:-1]}
        return WordOp(str(parts[-1]), "MINUS" in signs, "TILDE" in signs, self._extent(parts[0], parts[-1]))

    def not_operand(self, bang, word):
        return NotOp(str(word), self._extent(bang, word))

    def number_operand(self, *parts):
        return NumOp(_signed(parts), self._extent(parts[0], parts[-1]))

    def mem_operand(self, lsqb, address, rsqb):
        base, offset = address
        return MemOp(base, offset, self._extent(lsqb, rsqb))

    def const_operand(self, c, _l1, bank, _r1, _l2, offset, r2):
        return ConstOp(_number(bank), _number(offset), self._extent(c, r2))

    def addr_reg(self, word):
        return self._word(word), 0

    def addr_reg_plus(self, word, _plus, *rest):
        return self._word(word), _signed(rest)

    def addr_reg_minus(self, word, _minus, number):
        return self._word(word), -_number(number)

    def addr_abs(self, *parts):
        return None, _signed(parts)

    # -- the parts of directives
    def shape(self, name, *rest):
        return LaunchDims(self._word(name), tuple(_number(n) for n in _words(rest)), self._extent(name, rest[-1]))

    def dims(self, *children):
        return tuple(n if n.isidentifier() else _number(n) for n in _words(children))

    def per(self, _per, word):
        return self._word(word)

    def init(self, _equal, value):
        return value

    def init_word(self, word):
        return InitSpec("word", self._word(word), (), self._extent(word, word))

    def init_call(self, word, _l, value, r):
        return InitSpec("call", self._word(word), (int(value),), self._extent(word, r))

    def init_list(self, *children):
        values = tuple(int(v) for v in _words(children))
        return InitSpec("list", None, values, self._extent(children[0], children[-1]))

    def init_number(self, value):
        return InitSpec("number", None, (int(value),), value.span)

    def signed(self, *parts):
        return _Signed(_signed(parts), self._extent(parts[0], parts[-1]))


class _Signed(int):
    """An integer that remembers where it was written (only while a line is parsed)."""
    span: Span

    def __new__(cls, value: int, span: Span):
        self = super().__new__(cls, value)
        self.span = span
        return self


def _directive(kind: str, convert=None):
    """A transformer method for the directive alias `kind`: Directive(kind, head, span, args)."""
    def method(self, head, *rest):
        args = tuple(self._word(c) if isinstance(c, Token) and c.type == "WORD" else c for c in _words(rest))
        head_span = self._extent(head, head)
        span = self.source.span(head_span.start, max(head_span.end, self.code_end))
        return Directive(kind, head_span, span, convert(args) if convert else args)
    return method


def _string(tok) -> str:
    """The text of a STRING token, with \\" and \\\\ (what the printer escapes) undone."""
    return re.sub(r"\\(.)", r"\1", str(tok)[1:-1])


def _param_args(a: tuple) -> tuple:
    """(name, is_global, elem, dims, init or None)"""
    is_global = isinstance(a[1], Token) and a[1].type == "GLOBAL"
    rest = a[2:] if is_global else a[1:]
    return a[0], is_global, rest[0], rest[1], rest[2] if len(rest) > 2 else None


for _kind, _convert in {
    "kernel": None,
    "source": lambda a: (_string(a[0]),),
    "launch": None,
    "its": None,
    "record": lambda a: (a[0], tuple(zip(a[1::2], a[2::2]))),      # (name, ((field, type), ...))
    "param": _param_args,
    "state": None,
    "shared": lambda a: (a[0], a[1], a[2], _number(a[3]), *a[4:]),
    "shared_bytes": lambda a: (_number(a[0]),),
    "local_bytes": lambda a: (_number(a[0]),),
    "print": None,
    "loc": lambda a: (_number(a[0]), _number(a[1])),
    "loc_none": None,
    "region": lambda a: (a[0], _string(a[1]), *(_number(n) for n in a[2:])),
    "endregion": None,
}.items():
    setattr(_Builder, _kind, v_args(inline=True)(_directive(_kind, _convert)))


_builder = _Builder()
_parser: Lark | None = None


def _lark() -> Lark:
    global _parser
    if _parser is None:
        _parser = Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", transformer=_builder,
                       keep_all_tokens=True, cache=True)
    return _parser


# ---- lines ---------------------------------------------------------------------------------

_DIRECTIVE_HEAD = re.compile(r"\s*(\.[A-Za-z_]\w*)")


def parse_lines(source: SourceFile, sink: DiagnosticSink) -> Iterator[Record]:
    """The records of every line, in order; a line with a syntax error adds a diagnostic and
    comes as an `Unparsed` record."""
    parser = _lark()
    _builder.source = source
    offset = 0
    for line in source.text.split("\n"):
        start, offset = offset, offset + len(line) + 1
        stripped = line.strip()
        if not stripped or stripped.startswith("//"):
            continue
        head = _DIRECTIVE_HEAD.match(line)
        if head and head.group(1) not in DIRECTIVES:
            name = head.group(1)
            sink.error("E1007", f"unknown directive `{name}`", source.span(start + head.start(1), start + head.end(1)),
                       help=did_you_mean(name, DIRECTIVES) or "the directives are " + ", ".join(DIRECTIVES))
            continue
        _builder.base, _builder.code_end = start, start + _code_end(line)
        try:
            yield from parser.parse(line.rstrip("\r"))
        except UnexpectedInput as e:
            sink.add(syntax_error(e, source, start, line))
            yield Unparsed(stripped.split(None, 1)[0], source.span(start, start + len(line)))


# ---- syntax errors in words -------------------------------------------------------------------

# Groups of terminals a message names in one phrase: (markers, covered, words). A group is used
# when every marker is expected; it then stands for every terminal it covers.
_OPERAND = {"WORD", "NUMBER", "LSQB", "MINUS", "TILDE", "BANG", "C"}
_LINE_START = {"ADDR", "AT", "WORD"} | {f"dir:{d}" for d in DIRECTIVES}
_GROUPS = [
    ({"ADDR", "AT", "WORD"}, _LINE_START, "an instruction, a label or a directive"),
    ({"WORD", "NUMBER", "LSQB"}, _OPERAND, "an operand"),
]
_NAMED = {"WORD": "a name", "NUMBER": "a number", "STRING": 'a string ("...")', "ADDR": "an address `/*00a0*/`",
          "$END": "end of line"}

_terminal_text: dict[str, str] | None = None


def _terminals() -> dict[str, str]:
    """lark's terminal name → how a message names it (`;`, `.kernel`, a name, ...)."""
    global _terminal_text
    if _terminal_text is None:
        _terminal_text = {}
        for t in _lark().terminals:
            if t.name in _NAMED:
                _terminal_text[t.name] = _NAMED[t.name]
            elif t.pattern.type == "str":
                _terminal_text[t.name] = f"`{t.pattern.value}`"
        _terminal_text["$END"] = _NAMED["$END"]
    return _terminal_text


def _describe_expected(expected: set[str]) -> str:
    names = _terminals()
    keyed = {(f"dir:{names[n][1:-1]}" if names.get(n, "").startswith("`.") else n) for n in expected}
    parts = []
    for markers, covered, words in _GROUPS:
        if markers <= keyed:
            parts.append(words)
            keyed -= covered
    for key in sorted(keyed, key=lambda k: (k == "$END", k)):
        parts.append(f"`{key[4:]}`" if key.startswith("dir:") else names.get(key, key))
    if len(parts) > 6:
        parts = parts[:5] + [f"one of {len(parts) - 5} other words"]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def _code_end(line: str) -> int:
    """Where the code of a line ends: before a // comment (outside strings) and trailing blanks."""
    in_string = escaped = False
    for i, ch in enumerate(line):
        if escaped:
            escaped = False
        elif in_string and ch == "\\":
            escaped = True
        elif in_string:
            in_string = ch != '"'
        elif ch == '"':
            in_string = True
        elif line.startswith("//", i):
            return len(line[:i].rstrip())
    return len(line.rstrip())


def syntax_error(e: UnexpectedInput, source: SourceFile, start: int, line: str):
    """E1008 for what lark could not parse, pointed at the offending token (or the end of the code)."""
    help = None
    if isinstance(e, UnexpectedCharacters):
        pos = e.pos_in_stream
        char = line[pos]
        span = source.span(start + pos, start + pos + 1)
        message = f"unexpected character `{char}`" if char.isprintable() else f"unexpected character U+{ord(char):04X}"
        if line.startswith("/*", pos):
            close = line.find("*/", pos)
            span = source.span(start + pos, start + (close + 2 if close >= 0 else len(line)))
            message = "a `/* */` comment that is not an instruction address"
            help = "`/*00a0*/` (hex digits only) gives an instruction's address; other comments start with `//`"
        elif char == "#":
            help = "comments start with `//`"
        return Diagnostic(Severity.ERROR, "E1008", message, span, (), help)
    assert isinstance(e, UnexpectedToken)
    tok = e.token
    expected = set(e.accepts or e.expected)
    if tok.type == "$END":
        end = _code_end(line)
        span = source.span(start + end, start + end)
        found = "end of line"
    else:
        span = source.span(start + tok.start_pos, start + tok.end_pos)
        found = f"`{tok}`"
    if "SEMICOLON" in expected and (tok.type == "$END" or expected == {"SEMICOLON"}):
        help = "end every instruction with `;`"
    message = f"expected {_describe_expected(expected)}, found {found}"
    return Diagnostic(Severity.ERROR, "E1008", message, span, (), help)
