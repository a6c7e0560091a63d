"""Spans of code inlined from a function: they say which calls the code came through."""
from __future__ import annotations

from dataclasses import fields

from ..core.prebuilt import dataclass
from ..core.source import Span


@dataclass(frozen=True, slots=True)
class InlinedSpan(Span):
    """The source span of code inlined from a function, with the calls it was inlined through,
    outermost first: (the call's span, the function's name). Everything else sees a Span (the
    text form prints its line and column and reads back a plain Span); a check that should point
    at the call rather than into the function asks `inlined_calls`."""
    calls: tuple[tuple[Span, str], ...] = ()


def inlined_calls(span: Span | None) -> tuple[tuple[Span, str], ...]:
    """The calls that code at `span` was inlined through, outermost first (none: the kernel's own)."""
    return getattr(span, "calls", ())


def through_call(span: Span | None, call: tuple[Span, str]) -> Span | None:
    if span is None:
        return None
    base = {f.name: getattr(span, f.name) for f in fields(Span)}
    return InlinedSpan(**base, calls=(call,) + inlined_calls(span))
