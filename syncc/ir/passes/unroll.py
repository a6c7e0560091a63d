"""Unroll the counted loops that take locks they release in another round, or in another loop.

Guarantee: afterwards no loop with a constant number of rounds (at most MAX_ROUNDS) takes a
mutex with a low-level `lock` it does not `unlock` in the same round, or unlocks one it did not
lock in it. Such a loop (`for i in 0 .. 4 { lock stripe[i] }`, and the `unlock`s in a loop of
their own) holds what one round took across the next; its copies, one a round, take and
release in straight-line code, as the same program written out by hand would, so that every
`lock` has an `unlock` that closes its region (structure.py runs the region inside the lock's
polling loop) and the analyses judge each round's element as its own.

A loop is counted here when one register starts at a constant before it (`mov`), is stepped by
a constant once a round, and the head leaves when its comparison with a constant fails: then
every round's test is known, and its copy jumps straight on. Other exits (`break`) stay as they
are. `syncc explain` says which loops were unrolled.
"""
from __future__ import annotations

from dataclasses import replace

from ...core.prebuilt import dataclass

from ..builder import KernelBuilder
from ..analysis.cfg import CFG
from ..context import PassContext
from ..nodes import Branch, Imm, Instr, Jump, Kernel, Reg, imm
from ..ops import COMPARE, SWAPPED

MAX_ROUNDS = 16
_TEST = {op: holds for op, holds in COMPARE.items() if op != "cmp.eq"}     # (a loop while i == c is not counted)
_TAKES = {"mutex.lock": 1, "mutex.trylock": 1, "mutex.unlock": -1}   # (a trylock may take it too)


def unroll_lock_loops(k: Kernel, ctx: PassContext) -> Kernel:
    done: set[tuple] = set()
    while True:
        cfg = CFG(k)
        found = next(((head, body, counter) for head, body in loops(cfg)
                      if (head, len(body)) not in done and _holds_across(cfg, body)
                      and (counter := loop_counter(k, cfg, head, body)) is not None), None)
        if found is None:
            return k
        head, body, counter = found
        done.add((head, len(body)))
        span = cfg.blocks[head].term.span
        k = unroll_loop(k, cfg, head, body, counter)
        ctx.remark(k.name, "structure", f"unrolled a loop of {counter.rounds} rounds whose rounds take locks they "
                   "release in other rounds: each round's `lock` and `unlock` are judged and structured as written out",
                   span)


def loops(cfg: CFG) -> list[tuple[str, frozenset[str]]]:
    """Natural loops (head, blocks), innermost first."""
    return sorted(((h, frozenset(b)) for h, b in cfg.natural_loops().items()), key=lambda hb: len(hb[1]))


def _holds_across(cfg: CFG, body: frozenset[str]) -> bool:
    """Does a round take a mutex (low-level `lock`) more or fewer times than it releases it?"""
    balance: dict[str, int] = {}
    for label in body:
        for ins in cfg.blocks[label].instrs:
            if ins.op in _TAKES and ins.attr("region") is None:
                balance[ins.ref.name] = balance.get(ins.ref.name, 0) + _TAKES[ins.op]
    return any(balance.values())


@dataclass(frozen=True)
class Counter:
    """A loop's counter: `var` is `first` in round 0 and grows by `by` a round, at `step`."""
    var: Reg
    first: int
    by: int
    step: Instr
    rounds: int


def loop_counter(k: Kernel, cfg: CFG, head: str, body: frozenset[str], most: int = MAX_ROUNDS) -> Counter | None:
    """The loop's counter, when its number of rounds is constant and at most `most` (module
    docstring), and it is stepped last in its round (nothing in the round reads the stepped value)."""
    term = cfg.blocks[head].term
    if not isinstance(term, Branch) or not isinstance(term.cond, Reg) or \
            (term.if_true in body) == (term.if_false in body):
        return None
    tests = [i for i in cfg.blocks[head].instrs if term.cond in i.dests]
    if len(tests) != 1 or tests[0].op not in _TEST:
        return None
    a, b = tests[0].args
    op = tests[0].op
    if isinstance(a, Imm) and isinstance(b, Reg):
        a, b, op = b, a, SWAPPED[op]
    if not isinstance(a, Reg) or not isinstance(b, Imm):
        return None
    defs = [(x.label, i) for x in k.blocks for i in x.instrs if a in i.dests]
    inside = [(label, i) for label, i in defs if label in body]
    outside = [(label, i) for label, i in defs if label not in body]
    if len(inside) != 1 or len(outside) != 1:
        return None
    (start_at, start), (step_at, step) = outside[0], inside[0]
    if start.op != "mov" or not isinstance(start.args[0], Imm) or not cfg.dominates(start_at, head) \
            or not a.type.is_int:
        return None
    if step.op not in ("add", "sub") or step.args[0] != a or not isinstance(step.args[1], Imm):
        return None
    after = cfg.blocks[step_at].instrs
    if cfg.succs[step_at] != [head] or any(a in i.reads for i in after[after.index(step) + 1:]):
        return None                  # (the step is not where the round ends)
    stays = term.if_true in body     # the test holds while the loop goes on
    value, by = int(start.args[0].value), int(step.args[1].value) * (1 if step.op == "add" else -1)
    rounds = 0
    while _TEST[op](value, int(b.value)) == stays:
        rounds += 1
        value += by
        if rounds > most:
            return None
    return Counter(a, int(start.args[0].value), by, step, rounds)


def unroll_loop(k: Kernel, cfg: CFG, head: str, body: frozenset[str], c: Counter) -> Kernel:
    """One copy of the loop's blocks per round, each head jumping on into its round (the last
    head, after the final step, out of the loop); the entries into the loop go to the first. In
    round r's copy the counter is a register of its own set to its value there, with no step."""
    b = KernelBuilder.thaw(k)
    term = cfg.blocks[head].term
    into, out = (term.if_true, term.if_false) if term.if_true in body else (term.if_false, term.if_true)
    order = [label for label in cfg.labels if label in body]
    copies = [{label: b.new_block(label) for label in order} for _ in range(c.rounds)]
    heads = [copy[head] for copy in copies] + [b.new_block(head)]
    local = _round_locals(k, cfg, body, c)
    regions = sorted({i.attr("region") for x in body for i in cfg.blocks[x].instrs if i.attr("region") is not None})
    last = max((i.attr("region") for _, _, i in k.instructions() if i.attr("region") is not None), default=0)
    for r, copy in enumerate(copies):
        counter = b.reg(c.var.type, c.var.name)
        names = {c.var.name: counter, **{reg.name: b.reg(reg.type, reg.name) for reg in local}}
        # each round's structured sections are sections of their own (their lock and release pair by region)
        renumber = {n: last + r * len(regions) + m + 1 for m, n in enumerate(regions)}
        for label in order:
            b.code[copy[label]] = [_define(i, names, renumber) for i in cfg.blocks[label].instrs if i is not c.step]
            b.terms[copy[label]] = Jump(copy[into], term.span) if label == head else \
                _retarget(cfg.blocks[label].term, {**copy, head: heads[r + 1]}, body)
        b.rename(names, [copy[label] for label in order])
        b.code[copy[head]].insert(0, Instr("mov", (counter,), (imm(c.first + r * c.by, c.var.type),),
                                           span=c.step.span))
    b.code[heads[-1]] = [Instr("mov", (c.var,), (imm(c.first + c.rounds * c.by, c.var.type),), span=c.step.span),
                         *cfg.blocks[head].instrs]
    b.terms[heads[-1]] = Jump(out, term.span)
    for pred in cfg.preds[head]:
        if pred not in body:
            b.replace_targets(pred, head, heads[0])
    b.drop_unreachable()
    return b.freeze()


def _round_locals(k: Kernel, cfg: CFG, body: frozenset[str], c: Counter) -> list[Reg]:
    """The registers a round defines once and reads only after that definition, in the same round:
    each round's copy gets its own, so that every copy's values can be told apart (a register read
    after the loop, or carried from one round to the next, keeps its name)."""
    defs: dict[str, list[tuple[str, int, Reg]]] = {}
    for x in k.blocks:
        for n, ins in enumerate(x.instrs):
            for d in ins.dests:
                defs.setdefault(d.name, []).append((x.label, n, d))
    out = []
    for name, found in defs.items():
        if name == c.var.name or len(found) != 1 or found[0][0] not in body:
            continue
        label, at, reg = found[0]
        if all(_read_after(cfg, body, label, at, name, x) for x in cfg.labels):
            out.append(reg)
    return out


def _read_after(cfg: CFG, body: frozenset[str], label: str, at: int, name: str, x: str) -> bool:
    """Is every read of `name` in block x inside the loop and after its definition at (label, at)?"""
    block = cfg.blocks[x]
    reads = [n for n, ins in enumerate(block.instrs) if any(r.name == name for r in ins.reads)]
    if getattr(block.term, "cond", None) is not None and getattr(block.term.cond, "name", None) == name:
        reads.append(len(block.instrs))
    if not reads:
        return True
    if x not in body:
        return False
    return all(n > at for n in reads) if x == label else cfg.dominates(label, x)


def _define(ins: Instr, names: dict[str, Reg], regions: dict[int, int]) -> Instr:
    """`ins` writing the renamed registers of `names`, in its round's section (`regions`)."""
    if any(d.name in names for d in ins.dests):
        ins = replace(ins, dests=tuple(names.get(d.name, d) for d in ins.dests))
    if ins.attr("region") is not None:
        ins = ins.with_attrs(region=regions[ins.attr("region")])
    return ins


def _retarget(term, names: dict[str, str], body: frozenset[str]):
    """`term` with its targets inside the loop renamed to this round's copies."""
    if isinstance(term, Jump):
        return Jump(names.get(term.target, term.target) if term.target in body else term.target, term.span)
    if isinstance(term, Branch):
        pick = (lambda t: names.get(t, t) if t in body else t)
        return Branch(term.cond, pick(term.if_true), pick(term.if_false), term.span)
    return term
