"""The visitors' handler tables (syncc/core/handlers.py): each node class has one handler in a
visitor, the parts of a visitor do not both claim a class, and the checker handles every
statement and expression the grammar builds (a missing one would surface only as a KeyError)."""
from __future__ import annotations

from typing import get_args

from syncc.frontend import ast as A
from syncc.frontend import check, check_calls, check_expr, check_host, check_prims, check_stmts
from syncc.ir.lower import expr as lower_expr, stmts as lower_stmts, sync as lower_sync
from syncc.runtime import host

STATEMENTS = set(get_args(A.Stmt))
EXPRESSIONS = set(get_args(A.Expr))
HOST_ONLY_STATEMENTS = {A.Launch, A.Check, A.Print, A.Save}
# a type is only a callee (`u32(x)`), strings and lists only host values
NOT_KERNEL_VALUES = {A.TypeRef, A.StrLit, A.ListLit, A.Between}   # (Between: only in a kernel header)


def disjoint_union(*tables) -> set:
    seen: set = set()
    for table in tables:
        assert not seen & set(table.handlers), f"claimed twice: {seen & set(table.handlers)}"
        seen |= set(table.handlers)
    return seen


def test_checker_handles_every_statement_and_expression():
    assert disjoint_union(check_stmts.statements, check_prims.statements, check_host.statements) == STATEMENTS
    assert disjoint_union(check_expr.expressions, check_calls.expressions) == EXPRESSIONS
    assert set(check.declarations.handlers) == {A.Import, A.Const, A.Fn, A.Kernel, A.Host, A.StructDecl}


def test_lowering_handles_every_kernel_statement_and_expression():
    assert disjoint_union(lower_stmts.statements, lower_sync.statements) == STATEMENTS - HOST_ONLY_STATEMENTS
    assert disjoint_union(lower_expr.expressions, lower_sync.expressions) == EXPRESSIONS - NOT_KERNEL_VALUES


def test_host_runner_handles_the_host_statements_and_expressions():
    assert set(host.statements.handlers) <= STATEMENTS
    assert HOST_ONLY_STATEMENTS <= set(host.statements.handlers)
    assert set(host.expressions.handlers) <= EXPRESSIONS


def test_every_builtin_parameter_pattern_has_a_check():
    from syncc.frontend.builtins import BUILTIN_FNS
    used = {p for fn in BUILTIN_FNS.values() for p in fn.params}
    assert used <= set(check_calls._PATTERNS), used - set(check_calls._PATTERNS)
