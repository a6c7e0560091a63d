"""Handlers by node class: the dispatch of the visitors (checker, lowering, host runner).

    statements = HandlerTable()

    @statements.on(A.Let)
    def let(self, s, ctx): ...

    handlers = statements.bind(rules)        # {A.Let: rules.let, ...}
    handlers[type(s)](s, ctx)

A handler is registered under the class it handles, so searching for the class finds it.
(The host runner keys its built-in functions on their names the same way.)
"""
from __future__ import annotations

from typing import Callable


class HandlerTable:
    def __init__(self) -> None:
        self.handlers: dict[object, Callable] = {}   # node class (or built-in name) → unbound handler

    def on(self, *keys) -> Callable[[Callable], Callable]:
        """Register the decorated function as the handler of each of `keys`."""
        def register(fn: Callable) -> Callable:
            for key in keys:
                if key in self.handlers:
                    raise ValueError(f"{getattr(key, '__name__', key)} has two handlers")
                self.handlers[key] = fn
            return fn
        return register

    def bind(self, owner) -> dict[object, Callable]:
        """The table with each handler bound to `owner`, the object whose methods they are."""
        return {key: fn.__get__(owner) for key, fn in self.handlers.items()}
