"""A lean LALR(1) driver over the tables lark built for grammar.lark (tables.py).

lark's own per-token loop asserts and hashes grammar Rule objects on every step, and importing
lark at all costs more than a compile. This loop runs the same tables with each reduction
precomputed as (length, goto symbol, callback), and calls the AST builder exactly as lark's
parse-tree builder would (its child filter, `?rule`'s single child, placeholders for absent
`[optional]` parts), so the AST is identical.
"""
from __future__ import annotations

from typing import Iterable

from .tables import SHIFT
from .token import Token


class ParseError(Exception):
    """No action for `token` in the current state."""

    def __init__(self, token: Token, tables: Tables, stack: list):
        super().__init__(f"unexpected {token.type}")
        self.token = token
        self.tables = tables
        self.stack = stack

    def acceptable(self) -> set[str]:
        """The terminals that the parser could really take here, after any reductions."""
        return {t for t in self.tables.terminals_of(self.stack[-1]) if self.tables.accepts(self.stack, t)}


class Inlined:
    """The children of an inlined `_rule`, to be spliced into the rule that contains it (lark's Tree)."""
    __slots__ = ("children",)

    def __init__(self, children: list):
        self.children = children


class Tables:
    def __init__(self, data: dict, builder):
        """`data`: tables.load(); `builder`: the object whose methods build each rule's node."""
        self.start = data["START"]
        self.end = data["END"]
        # a `?rule` of one symbol without a child filter passes its child up as it is: its callback
        # is None, and the loop only moves to the goto state (most reductions of an expression)
        reductions = [(size, origin, None if expand1 and size == 1 and include is None
                       else _callback(builder, name, expand1, include, append_none))
                      for size, origin, name, expand1, include, append_none in data["RULES"]]
        self.states = {state: {symbol: (kind, arg if kind == SHIFT else reductions[arg])
                               for symbol, (kind, arg) in actions.items()}
                       for state, actions in data["STATES"].items()}

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
            if kind == SHIFT:
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
                if action is None or (ttype == "$END" and action[0] == SHIFT):
                    raise ParseError(tok, self, state_stack)
                kind, arg = action
                if kind == SHIFT:
                    state_stack.append(arg)
                    value_stack.append(tok)
                    break
                size, origin, callback = arg
                if callback is None:
                    del state_stack[-1]
                elif size:
                    children = value_stack[-size:]
                    del state_stack[-size:]
                    del value_stack[-size:]
                    value_stack.append(callback(children))
                else:
                    value_stack.append(callback([]))
                state_stack.append(states[state_stack[-1]][origin][1])
                if ttype == "$END" and state_stack[-1] == end:
                    return value_stack[-1]


def _callback(builder, name: str, expand1: bool, include, append_none: int):
    """What lark's ParseTreeBuilder makes of a rule: the builder's method for it (or an Inlined
    for a rule without one), behind `?rule`'s single-child shortcut, behind the child filter."""
    build = getattr(builder, name, None) or Inlined
    call = build
    if expand1:
        def call(children, build=build):
            return children[0] if len(children) == 1 else build(children)
    if include is None:
        return call

    def filtered(children, call=call):
        out = []
        for i, splice, nones in include:
            if nones:
                out += [None] * nones
            if splice:
                out += children[i].children
            else:
                out.append(children[i])
        if append_none:
            out += [None] * append_none
        return call(out)
    return filtered


def _then_end(tokens: Iterable[Token]):
    """The tokens, then an end-of-input token placed after the last of them."""
    last = None
    for last in tokens:
        yield last
    yield Token("$END", "", getattr(last, "end_pos", 0), None, None, None, None, None)
