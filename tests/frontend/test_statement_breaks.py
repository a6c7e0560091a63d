"""Line breaks end statements Go-style (syncc/frontend/lexer.py); these pin where they do and don't."""
import pytest

from syncc.core.diagnostics import DiagnosticsError
from syncc.frontend import ast as A
from syncc.frontend.parser import parse
from syncc.core.source import SourceFile


def body(src: str, kind=A.Kernel) -> tuple:
    """The statements of the first kernel (or host block) in `src`."""
    program = parse(SourceFile("t.sync", src))
    item = next(i for i in program.items if isinstance(i, kind))
    return item.body.stmts


def kernel(lines: str) -> tuple:
    return body("kernel k(a: global i32[4]) launch grid(1) block(32) {\n" + lines + "\n}\n")


def test_one_statement_per_line():
    assert [type(s).__name__ for s in kernel("var x = 1\nx = 2\na[0] = x")] == ["Let", "Assign", "Assign"]


def test_an_operator_at_the_start_of_a_line_continues_the_expression():
    (let,) = kernel("let x = a[0]\n    + a[1]\n    * 2")
    assert isinstance(let.value, A.Binary) and let.value.op == "+"


def test_an_operator_at_the_end_of_a_line_continues_the_expression():
    (let,) = kernel("let x = a[0] +\n    a[1]")
    assert isinstance(let.value, A.Binary)


def test_no_break_inside_parentheses_or_brackets():
    (let,) = kernel("let x = max(\n    a[0],\n    a[\n1]\n)")
    assert isinstance(let.value, A.Call) and len(let.value.args) == 2


def test_else_and_braces_may_start_a_line():
    (stmt,) = kernel("if a[0] == 1\n{\n    a[1] = 2\n}\nelse\n{\n    a[1] = 3\n}")
    assert isinstance(stmt, A.If) and isinstance(stmt.orelse, A.Block)


def test_kernel_header_may_put_launch_and_brace_on_their_own_lines():
    program = parse(SourceFile("t.sync", "kernel k(a: global i32[4])\n    launch grid(1)\n    block(32)\n{\n}\n"))
    (k,) = program.items
    assert [d.name.text for d in k.launch] == ["grid", "block"]


def test_consecutive_launches_are_separate_statements():
    stmts = body("kernel k() launch grid(1) block(32) { }\nhost {\n    launch k()\n    launch k() grid(2)\n}\n", A.Host)
    assert [type(s).__name__ for s in stmts] == ["Launch", "Launch"]
    assert stmts[1].shape[0].name.text == "grid"


@pytest.mark.parametrize("word, node", [("return", A.Return), ("barrier", A.BarrierStmt), ("break", A.Break)])
def test_keywords_that_end_a_statement_alone(word, node):
    src = f"while true {{\n{word}\na[0] = 1\n}}" if word == "break" else f"{word}\na[0] = 1"
    stmts = kernel(src)
    inner = stmts[0].body.stmts if word == "break" else stmts
    assert isinstance(inner[0], node) and isinstance(inner[1], A.Assign)
    if word == "return":
        assert inner[0].value is None


def test_a_multiline_block_comment_is_a_line_break():
    assert len(kernel("var x = 1 /* a\ncomment */ x = 2")) == 2


def test_semicolons_separate_statements_on_one_line():
    assert len(kernel("var x = 1; x = 2; ; a[0] = x;")) == 3


def test_two_statements_on_one_line_need_a_semicolon():
    with pytest.raises(DiagnosticsError) as e:
        kernel("var x = 1 x = 2")
    (d,) = e.value.diagnostics
    assert d.code == "E0002" and "line break" in d.message and (d.span.line, d.span.col) == (2, 11)


def test_a_missing_operand_is_reported_after_the_previous_token():
    with pytest.raises(DiagnosticsError) as e:
        kernel("let x =\nlet y = 1")
    (d,) = e.value.diagnostics
    assert (d.span.line, d.span.col) == (2, 8) and d.message == "expected an expression, found keyword `let`"


def test_a_missing_operand_can_be_taken_from_the_next_line():
    """As in Go: `=` at the end of a line continues, so the next line is read as the operand."""
    with pytest.raises(DiagnosticsError) as e:
        kernel("let x =\na[0] = 1")
    (d,) = e.value.diagnostics
    assert (d.span.line, d.span.col) == (3, 6)
