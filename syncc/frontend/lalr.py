"""A lean LALR(1) driver over the tables lark builds for grammar.lark.

lark analyses the grammar (and caches the result); its per-token parse loop,
though, asserts and hashes grammar Rule objects on every step, which made it
the larger half of `syncc check`. This loop runs the same tables with each
reduction precomputed as (length, goto symbol, callback). Behaviour is lark's:
the callbacks are lark's, so the AST is identical.
"""
from __future__ import annotations

from typing import Iterable

from lark import Lark, Token

_SHIFT, _REDUCE = 0, 1


class ParseError(Exception):
    """No action for `token` in the current state."""

    def __init__(self, token: Token, tables: "Tables", stack: list):
        super().__init__(f"unexpected {token.type}")
        self.token = token
        self.tables = tables
        self.stack = stack

    def acceptable(self) -> set[str]:
        """The terminals that the parser could really take here, after any reductions."""
        return {t for t in self.tables.terminals_of(self.stack[-1]) if self.tables.accepts(self.stack, t)}


class Tables:
    def __init__(self, parser: Lark, start: str = "start"):
        lalr = parser.parser.parser          # lark internals: ParsingFrontend → LALR_Parser
        table = lalr._parse_table
        callbacks = lalr.parser.callbacks
        self.start = table.start_states[start]
        self.end = table.end_states[start]
        self.states: dict = {}
        for state, actions in table.states.items():
            compiled = {}
            for symbol, (action, arg) in actions.items():
                if action.name == "Shift":
                    compiled[symbol] = (_SHIFT, arg)
                else:
                    compiled[symbol] = (_REDUCE, (len(arg.expansion), arg.origin.name, callbacks[arg]))
            self.states[state] = compiled

    def terminals_of(self, state) -> list[str]:
        return [s for s in self.states[state] if s.isupper() or s == "$END"]

    def accepts(self, stack: list, terminal: str) -> bool:
        stack = list(stack)
        states = self.states
        while True:
            action = states[stack[-1]].get(terminal)
            if action is None:
                return False
            kind, arg = action
            if kind == _SHIFT:
                return True
            size, origin, _ = arg
            if size:
                del stack[-size:]
            stack.append(states[stack[-1]][origin][1])
            if terminal == "$END" and stack[-1] == self.end:
                return True

    def parse(self, tokens: Iterable[Token]):
        states = self.states
        end = self.end
        state_stack = [self.start]
        value_stack: list = []
        for tok in _then_end(tokens):
            ttype = tok.type
            while True:
                action = states[state_stack[-1]].get(ttype)
                if action is None or (ttype == "$END" and action[0] == _SHIFT):
                    raise ParseError(tok, self, state_stack)
                kind, arg = action
                if kind == _SHIFT:
                    state_stack.append(arg)
                    value_stack.append(tok)
                    break
                size, origin, callback = arg
                if size:
                    children = value_stack[-size:]
                    del state_stack[-size:]
                    del value_stack[-size:]
                else:
                    children = []
                value_stack.append(callback(children))
                state_stack.append(states[state_stack[-1]][origin][1])
                if ttype == "$END" and state_stack[-1] == end:
                    return value_stack[-1]


def _then_end(tokens: Iterable[Token]):
    """The tokens, then lark's end-of-input token placed after the last of them."""
    last = None
    for last in tokens:
        yield last
    yield Token("$END", "", getattr(last, "end_pos", 0), None, None, None, None, None)
