"""Whether one lock index is always above another, for the lock order (E0703).

    order_of(facts, a, b, label)   # "ascending": b > a wherever `label` runs

From linear forms over thread and block indices (analysis/uniformity.py), from `i + c` above `i` for any
base, from `min`/`max` pairs under `a != b`, from the branch conditions that guard the block
(`if a < b { lock m[a]; lock m[b] }`), through `let`s and copies (analysis/values.py), and, last, by
evaluating both indices in every instance of the inner lock (analysis/space.py).
"""
from __future__ import annotations

from ..analysis.facts import Facts

_STRICT = {("cmp.lt", True): "<", ("cmp.ge", False): "<", ("cmp.gt", True): ">", ("cmp.le", False): ">",
           ("cmp.ne", True): "!=", ("cmp.eq", False): "!="}


def order_of(facts: Facts, a, b, label: str) -> str | None:
    """"ascending" when b > a wherever `label` runs, "maybe equal" for a min/max pair that may be
    equal, else None (not proven). From linear forms, min/max pairs, and the conditions of the
    branches guarding `label`, through copies and `let`s (value keys)."""
    fa, fb = facts.uni.form(a), facts.uni.form(b)
    if fa is not None and fb is not None:
        diff = fb.add(fa, -1)
        if not diff.terms:
            return "ascending" if diff.const > 0 else None
    ka, kb = facts.value_key(a), facts.value_key(b)
    (base_a, ca), (base_b, cb) = _offset(ka), _offset(kb)
    if base_a == base_b:
        return "ascending" if cb > ca else None
    facts_here = _relations(facts, label)
    if (ka, kb, "<") in facts_here:
        return "ascending"
    enumerated = _enumerated_order(facts, a, b, label)
    if enumerated is not None:
        return enumerated
    if _is(base_a, "min") and _is(base_b, "max") and set(base_a[2]) == set(base_b[2]) and len(base_a[2]) == 2:
        if cb > ca:
            return "ascending"              # min(x, y) + c below max(x, y) + c' for c < c'
        x, y = base_a[2]
        if cb == ca and {(x, y, "!="), (y, x, "!="), (x, y, "<"), (y, x, "<")} & facts_here:
            return "ascending"
        return "maybe equal" if cb == ca else None
    return None


def _is(key, op: str) -> bool:
    return isinstance(key, tuple) and len(key) == 3 and key[0] == op


def _offset(key) -> tuple:
    """(base, constant) with key = base + constant, peeling additions of immediates (`i + 1`)."""
    const = 0
    while isinstance(key, tuple) and key and key[0] in ("add", "sub") and len(key) == 3:
        x, y = key[2]
        if y[0] == "imm":
            const += y[1] if key[0] == "add" else -y[1]
            key = x
        elif x[0] == "imm" and key[0] == "add":
            const += x[1]
            key = y
        else:
            break
    return key, const


def _enumerated_order(facts: Facts, a, b, label: str) -> str | None:
    """Evaluate both indices in every instance of the inner lock: "ascending" when b > a in all of
    them, "maybe equal" when b >= a with some equal; None when unknown or some b < a."""
    va, vb = facts.value(a, label), facts.value(b, label)
    if va is None or vb is None or va[1] != vb[1] or not va[0]:
        return None
    if all(y > x for x, y in zip(va[0], vb[0])):
        return "ascending"
    if all(y >= x for x, y in zip(va[0], vb[0])):
        return "maybe equal"
    return None


def _relations(facts: Facts, label: str) -> set[tuple]:
    """(value key, value key, "<" or "!=") for every strict relation the guards of `label` assert,
    through `&&` (an `and` that holds), `||` (an `or` that fails), `!` and copies."""
    memo = facts.memo.setdefault("relations", {})
    if label not in memo:
        out: set[tuple] = set()
        for cond, polarity in facts._guards(label):
            _assert(facts, cond, polarity, out, depth=8)
        memo[label] = out
    return memo[label]


def _assert(facts: Facts, cond, polarity: bool, out: set, depth: int) -> None:
    d = facts.def_of(cond)
    if d is None or depth == 0:
        return
    if d.op == "mov":
        _assert(facts, d.args[0], polarity, out, depth - 1)
    elif d.op == "not":
        _assert(facts, d.args[0], not polarity, out, depth - 1)
    elif d.op == "and" and polarity or d.op == "or" and not polarity:
        for x in d.args:
            _assert(facts, x, polarity, out, depth - 1)
    elif len(d.args) == 2 and (d.op, polarity) in _STRICT:
        rel = _STRICT[(d.op, polarity)]
        x, y = (facts.value_key(v) for v in d.args)
        if rel == ">":
            x, y, rel = y, x, "<"
        out.add((x, y, rel))
        out.add((x, y, "!="))
        out.add((y, x, "!="))
