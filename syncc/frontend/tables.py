"""The parser's tables, made by lark from grammar.lark once and kept as data.

    tables = load()                          # grammar_tables.py, or lark's own when it is stale
    python -m syncc.frontend.tables          # regenerate grammar_tables.py after editing the grammar

lark analyses the grammar (LALR(1)); syncc drives the tables itself (lalr.py) with its own lexer
(lexer.py). So a compile needs no lark at all: importing lark and loading its cache took about
50 ms of every `syncc` process, more than the whole compile. grammar_tables.py holds what the
driver needs, as plain data:

- STATES: state → {symbol: (SHIFT, next state) or (REDUCE, rule number)}, START and END;
- RULES: per rule, its length, the symbol it reduces to, and how lark would call the AST
  builder (build_ast.py) with its children: the builder method, `?rule`'s single-child
  shortcut, which children to keep or splice in (an inlined `_rule`), and the None of each
  absent `[optional]` part (maybe_placeholders);
- TERMINALS: every terminal's name and, for keywords and punctuation, its text.

GRAMMAR_CRC is the grammar's checksum: when grammar.lark has changed since, load() builds the
tables with lark instead (and tests/frontend/test_grammar.py fails until they are regenerated).
"""
from __future__ import annotations

import zlib
from pathlib import Path

GRAMMAR_PATH = Path(__file__).with_name("grammar.lark")
TABLES_PATH = Path(__file__).with_name("grammar_tables.py")
SHIFT, REDUCE = 0, 1


def grammar_crc() -> int:
    return zlib.crc32(GRAMMAR_PATH.read_bytes())


def load() -> dict:
    """The tables as data: grammar_tables.py's, or lark's when the grammar changed since."""
    from . import grammar_tables as g
    if g.GRAMMAR_CRC == grammar_crc():
        return {"START": g.START, "END": g.END, "STATES": g.STATES, "RULES": g.RULES, "TERMINALS": g.TERMINALS}
    return generate()


def lark_parser(builder=None):
    """lark's parser for the grammar, with an AST builder as its callbacks (the tables' source,
    and the reference the tests compare the driver with)."""
    from lark import Lark
    from lark.lexer import Lexer

    from .build_ast import AstBuilder
    from .lexer import SynccLexer

    class LarkLexer(Lexer):                   # lark's interface to syncc's lexer
        __future_interface__ = 0              # (lark passes the whole text to lex())

        def __init__(self, conf):
            self.lexer = SynccLexer({t.pattern.value: t.name for t in conf.terminals if t.pattern.type == "str"})

        def lex(self, text):
            return self.lexer.lex(text)

    return Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", lexer=LarkLexer,
                keep_all_tokens=True, maybe_placeholders=True, transformer=builder or AstBuilder())


def generate() -> dict:
    """Ask lark for the tables (its LALR analysis), as grammar_tables.py keeps them."""
    from lark.parse_tree_builder import maybe_create_child_filter

    parser = lark_parser()
    lalr = parser.parser.parser              # lark internals: ParsingFrontend → LALR_Parser
    table = lalr._parse_table
    rules: list = []
    number: dict[int, int] = {}              # id(lark Rule) → its number here

    def rule_number(rule) -> int:
        if id(rule) not in number:
            number[id(rule)] = len(rules)
            o = rule.options
            make_filter = maybe_create_child_filter(rule.expansion, o.keep_all_tokens, False, o.empty_indices)
            include, append_none = None, 0
            if make_filter is not None:       # a functools.partial of lark's ChildFilter classes
                args = make_filter.args
                include = tuple((i, bool(x), n) for i, x, n in args[0]) if len(args) == 2 else \
                    tuple((i, bool(x), 0) for i, x in args[0])
                append_none = args[1] if len(args) == 2 else 0
            name = rule.alias or o.template_source or rule.origin.name     # (lark's names are its Tokens)
            rules.append((len(rule.expansion), str(rule.origin.name), str(name),
                          bool(o.expand1 and not rule.alias), include, append_none))
        return number[id(rule)]

    states = {}
    for state, actions in sorted(table.states.items()):
        states[state] = {str(symbol): (SHIFT, arg) if action.name == "Shift" else (REDUCE, rule_number(arg))
                         for symbol, (action, arg) in sorted(actions.items())}
    terminals = tuple(sorted((str(t.name), str(t.pattern.value) if t.pattern.type == "str" else None)
                             for t in parser.terminals))
    start, end = table.start_states["start"], table.end_states["start"]
    return {"START": start, "END": end, "STATES": states, "RULES": tuple(rules), "TERMINALS": terminals}


def write(path: Path = TABLES_PATH) -> None:
    t = generate()
    lines = ['"""The parser\'s tables, generated from grammar.lark by `python -m syncc.frontend.tables`',
             '(tables.py says what each part is). Do not edit."""',
             f"GRAMMAR_CRC = {grammar_crc()}",
             f"START, END = {t['START']}, {t['END']}",
             "TERMINALS = (",
             *(f"    {x!r}," for x in t["TERMINALS"]),
             ")",
             "RULES = (",
             *(f"    {r!r}," for r in t["RULES"]),
             ")",
             "STATES = {",
             *(f"    {s}: {actions!r}," for s, actions in t["STATES"].items()),
             "}",
             ""]
    path.write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    write()
    print(f"wrote {TABLES_PATH}")
