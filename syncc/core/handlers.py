"""Handlers by node class: the dispatch of the visitors (checker, lowering, host runner).

    statements = HandlerTable()

    @statements.on(A.Let)
    def let(self, s, ctx): ...

    handlers = statements.bind(rules)        # {A.Let: rules.let, ...}
    handlers[type(s)](s, ctx)

A handler is registered under the class it handles, so searching for the class finds it.
"""
from __future__ import annotations

from typing import Callable


class HandlerTable:
    def __init__(self) -> None:
        self.by_class: dict[type, Callable] = {}

    def on(self, *classes: type) -> Callable[[Callable], Callable]:
        """Register the decorated function as the handler of each of `classes`."""
        def register(fn: Callable) -> Callable:
            for cls in classes:
                if cls in self.by_class:
                    raise ValueError(f"{cls.__name__} has two handlers")
                self.by_class[cls] = fn
            return fn
        return register

    def bind(self, owner) -> dict[type, Callable]:
        """The table with each handler bound to `owner`, the object whose methods they are."""
        return {cls: fn.__get__(owner) for cls, fn in self.by_class.items()}
