"""The grammar is LALR(1) without conflicts, and the lexer's statement-break tables match it."""
import lark

from syncc.frontend.lalr import Tables
from syncc.frontend.lexer import _STARTS_ITEM, _STARTS_STATEMENT, SynccLexer
from syncc.frontend.parser import GRAMMAR_PATH, lark_parser

# Keywords that begin expressions (an expression statement is grammatical, though the checker rejects most).
EXPRESSION_WORDS = {"true", "false", "get", "trylock", "trywait", "i32", "u32", "i64", "u64", "bool"}


def test_grammar_builds_in_strict_mode():
    """strict=True refuses shift/reduce conflicts and overlapping terminals."""
    lark.Lark(GRAMMAR_PATH.read_text(), parser="lalr", lexer="basic", strict=True, keep_all_tokens=True)


def acceptable_after(prefix: str) -> set[str]:
    """Token texts (or NAME) the parser accepts after `prefix`."""
    parser = lark_parser()
    tables = Tables(parser)
    lexer = SynccLexer(parser.lexer_conf)
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
    text = {t.name: t.pattern.value for t in parser.terminals if t.pattern.type == "str"}
    return {text.get(t, t) for t in tables.terminals_of(stack[-1]) if tables.accepts(stack, t)}


def test_statement_starters_match_the_grammar():
    words = {t for t in acceptable_after("kernel k() {") if t.islower() or t == "NAME"}
    assert words - EXPRESSION_WORDS == _STARTS_STATEMENT


def test_item_starters_match_the_grammar():
    assert acceptable_after("") - {"$END", ";"} == _STARTS_ITEM
