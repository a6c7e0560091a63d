"""The grammar is LALR(1) without conflicts, the tables syncc parses with are the grammar's, the
lexer's statement-break tables match it, and the lexer tells a floating-point literal apart."""
import functools
from fractions import Fraction
from pathlib import Path

import lark
import pytest

from helpers import syncc
from syncc.core.diagnostics import DiagnosticsError
from syncc.core.source import SourceFile
from syncc.frontend import ast as A
from syncc.frontend import tables as T
from syncc.frontend.build_ast import AstBuilder
from syncc.frontend.lexer import _STARTS_ITEM, _STARTS_STATEMENT
from syncc.frontend.parser import GRAMMAR_PATH, parse, parse_machine

ROOT = Path(__file__).resolve().parents[2]
# Keywords that begin expressions (an expression statement is grammatical, though the checker rejects most).
EXPRESSION_WORDS = {"true", "false", "get", "trylock", "trywait", "i32", "u32", "i64", "u64", "f32", "f64", "bool"}


def test_grammar_builds_in_strict_mode():
    """strict=True refuses shift/reduce conflicts and overlapping terminals."""
    lark.Lark(GRAMMAR_PATH.read_text(), parser="lalr", lexer="basic", strict=True, keep_all_tokens=True)


def test_the_stored_tables_are_the_grammars():
    from syncc.frontend import grammar_tables
    assert grammar_tables.GRAMMAR_CRC == T.grammar_crc(), \
        "grammar.lark changed: regenerate the tables with `python -m syncc.frontend.tables`"


CORPUS = sorted(p for d in ("examples", "stdlib", "tests", "bench") for p in (ROOT / d).rglob("*.sync"))


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_program_parses_as_lark_parses_it(path):
    """The stored tables through syncc's driver give the AST (or the failure) that lark's own
    parser gives with the same builder callbacks."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        ours = repr(parse(SourceFile(str(path), text)))      # (AST nodes compare by identity)
    except DiagnosticsError:
        ours = "error"
    parser, builder = _lark()
    builder.reset(str(path))
    try:
        theirs = repr(parser.parse(text))
    except Exception:      # noqa: BLE001 — lark's errors, or the builder's (too deep, bad literal)
        theirs = "error"
    assert ours == theirs


@functools.cache
def _lark():
    builder = AstBuilder()
    return T.lark_parser(builder), builder


def acceptable_after(prefix: str) -> set[str]:
    """Token texts (or NAME) the parser accepts after `prefix`."""
    lexer, tables, terminals = parse_machine()
    stack = [tables.start]
    for tok in lexer.lex(prefix):
        while True:
            kind, arg = tables.states[stack[-1]][tok.type]
            if kind == 0:
                stack.append(arg)
                break
            size, origin, _ = arg
            if size:
                del stack[-size:]
            stack.append(tables.states[stack[-1]][origin][1])
    return {terminals.get(t) or t for t in tables.terminals_of(stack[-1]) if tables.accepts(stack, t)}


def test_statement_starters_match_the_grammar():
    words = {t for t in acceptable_after("kernel k() {") if t.islower() or t == "NAME"}
    assert words - EXPRESSION_WORDS == _STARTS_STATEMENT


def test_item_starters_match_the_grammar():
    assert acceptable_after("") - {"$END", ";"} == _STARTS_ITEM


@pytest.mark.parametrize("literal, value", [("1.5", Fraction(3, 2)), ("2e3", 2000), ("1_000.25", Fraction(4001, 4)),
                                            ("0.5E+2", 50), ("7.0", 7), ("1e999", None)])
def test_a_floating_point_literal_is_exact_until_it_meets_its_type(literal, value):
    """The literal's value is the exact decimal; an exponent past f64's reach is refused at the literal."""
    src = SourceFile("f.sync", f"const X = {literal}\n")
    if value is None:
        with pytest.raises(DiagnosticsError) as e:
            parse(src)
        assert "out of range even for f64" in e.value.diagnostics[0].message
        return
    const = parse(src).items[0]
    assert isinstance(const.value, A.FloatLit) and const.value.value == value and const.value.text == literal


def test_a_float_constant_is_rounded_once_to_the_type_it_meets(tmp_path):
    """`x * (1.0 / 3.0)` for an f32 x: the exact third, rounded once to f32 (not to f64 first)."""
    path = tmp_path / "f.sync"
    path.write_text("kernel k(a: global f32[8]) launch grid(1) block(8) {\n    a[tid] = a[tid] * (1.0 / 3.0)\n}\n")
    r = syncc("build", str(path), "--target", "ptx", "--dump-after", "simplify_cfg")
    assert r.code == 0, r.err
    assert "mul %t, 0.3333333432674408:f32" in r.out, r.out


def test_what_only_looks_like_a_float_still_lexes_as_before(tmp_path):
    """A range `0..4` (no digit after the first `.`), a hex literal with an `e` digit, a
    digit-led index: none is a float literal."""
    path = tmp_path / "f.sync"
    path.write_text("kernel k(a: global i32[8], b: global i32[8]) launch grid(1) block(8) {\n"
                    "    for i in 0..4 { a[tid] = 0x1e5 + b[1] }\n}\n")
    r = syncc("check", str(path))
    assert r.code == 0 and "E0003" not in r.err, r.err
