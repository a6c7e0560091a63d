"""A token: its text (a str), its terminal name, and where it is.

The same fields and behaviour as lark's Token (the grammar's callbacks were written against it),
without importing lark: parsing a program needs only the tables lark built once (tables.py).
"""
from __future__ import annotations


class Token(str):
    __slots__ = ("type", "start_pos", "value", "line", "column", "end_line", "end_column", "end_pos")

    def __new__(cls, type: str, value, start_pos=None, line=None, column=None, end_line=None, end_column=None,
                end_pos=None):
        inst = super().__new__(cls, value)
        inst.type, inst.value, inst.start_pos = type, value, start_pos
        inst.line, inst.column, inst.end_line, inst.end_column, inst.end_pos = line, column, end_line, end_column, end_pos
        return inst

    @classmethod
    def new_borrow_pos(cls, type: str, value, borrow: Token) -> Token:
        return cls(type, value, borrow.start_pos, borrow.line, borrow.column, borrow.end_line, borrow.end_column,
                   borrow.end_pos)

    def update(self, type: str | None = None, value=None) -> Token:
        return Token.new_borrow_pos(type if type is not None else self.type, value if value is not None else self, self)

    def __repr__(self) -> str:
        return f"Token({self.type!r}, {self.value!r})"

    def __eq__(self, other) -> bool:
        if isinstance(other, Token) and self.type != other.type:
            return False
        return str.__eq__(self, other)

    __hash__ = str.__hash__
