"""Motifs of hand-written synchronization (issue 39): what a program builds from atomics,
`load_cg` and plain stores instead of syncc's primitives, in the loop shapes people write.

    hand_lock         a spin lock (compare-and-swap, exchange, test-and-test-and-set, ticket)
                      guarding counters updated with plain loads and stores, taken in a retry
                      loop whose body holds the section, or by a spin that ends with `break`, a
                      flag variable or the `while` condition; beside it, sometimes, unguarded
                      writes to each thread's own element (a correct neighbour of a race)
    hand_publication  values published with a flag (an atomic exchange or add, or a plain store)
                      and read after a spin on the flag (`load_cg`, an atomic read, or a plain
                      load), between blocks or between two warps of a block
    hand_barrier      a counting barrier among the threads of a block, or of the grid, rounds
                      apart, its arrivals atomic adds and its wait a spin on the count

Each writes the fences a careful programmer would write only sometimes (an acquire after the
wait, a release before the flag or the unlock, each at random, at the scope the parties share):
the compiler must add what is missing (passes/hand_fences.py), so every program is correct as
syncc compiles it, and every output has a sequential reference, as motifs.py's have.
"""
from __future__ import annotations

import random

import numpy as np

from .model import evaluate
from .motifs import MAX_ACQUISITIONS, Context, env_with_inputs, guarded, input_array, looped, thread_guard, value_expr
from .program import MAX_GRID, Array, Piece

WRITTEN_FENCE = 0.4        # the chance that the program writes a given ordering itself


def _fence(rng: random.Random, scope: str) -> list[str]:
    return [f"fence {scope}"] if rng.random() < WRITTEN_FENCE else []


def _indent(lines: list[str], n: int = 1) -> list[str]:
    return [("    " * n + s) if s else s for s in lines]


# ---- locks ----------------------------------------------------------------------------------------

LOCK_KINDS = ["cas", "exch", "ttas", "ticket"]
LOCK_SHAPES = ["inloop", "spin", "break", "flag"]


def _attempt(kind: str, word: str, mine: str = "my") -> tuple[list[str], str]:
    """(statements before the test, the test) of one attempt to take the lock: for ttas the
    test-and-set is made only where the test saw the lock free (a nested `if`, below)."""
    return {"cas": ([], f"atomic_cas({word}, 0, 1) == 0"),
            "exch": ([], f"atomic_exch({word}, 1) == 0"),
            "ttas": ([f"load_cg({word}) == 0"], f"atomic_cas({word}, 0, 1) == 0"),
            "ticket": ([], f"load_cg({word}) == {mine}")}[kind]


def _when_taken(kind: str, word: str, then: list[str]) -> list[str]:
    """`if <the attempt succeeded> { then }`."""
    pre, test = _attempt(kind, word)
    inner = [f"if {test} {{", *_indent(then), "}"]
    for cond in reversed(pre):
        inner = [f"if {cond} {{", *_indent(inner), "}"]
    return inner


def hand_lock(rng: random.Random, ctx: Context) -> Piece:
    """Counters under a hand-written spin lock; see the module's docstring."""
    place = rng.choice(["global", "global", "shared"])
    kind = rng.choice(LOCK_KINDS)
    shape = rng.choice(LOCK_SHAPES)
    ncounters = rng.randrange(1, 4)
    loops = rng.randrange(1, 3)
    scope = "cta" if place == "shared" else "gpu"
    lk, nx, cnt, own = ctx.name("lk"), ctx.name("nx"), ctx.name("cnt"), ctx.name("own")
    per_block = place == "shared"              # a shared lock is one per block: so are its counters
    row = "[bid]" if per_block else ""
    data = input_array(rng, ctx, "sel", 16) if rng.random() < 0.3 else None
    guard = rng.choice(["lane == 0", thread_guard(rng, ctx, data, max(1, MAX_ACQUISITIONS // loops))])
    index_options = ["(tid + k) % C", "(gtid * 3 + k) % C", "(warp + k) % C"]
    if data is not None:
        index_options.append(f"{data.name}[gtid] % C")
    index = rng.choice(index_options).replace("C", str(ncounters))
    value = value_expr(rng, ctx, "k")
    double = rng.random() < 0.3
    unguarded = rng.random() < 0.3           # each thread's own element, beside the section

    word = f"{lk}[c]"                        # (a ticket lock's serving word)
    cell = f"{cnt}{row}[c]"
    update = [f"{cell} = {cell} + {value}"] + ([f"{cell} = {cell} + 1"] if double else [])
    release_store = rng.random() < 0.4        # a plain store gives the lock back (else an atomic)
    if kind == "ticket":
        release = [f"{word} = my + 1"] if release_store else [f"atomic_add({word}, 1)"]
    else:
        release = [f"{word} = 0"] if release_store else [f"atomic_exch({word}, 0)"]
    section = _fence(rng, scope) + update + _fence(rng, scope) + release
    enter = [f"let my = atomic_add({nx}[c], 1)"] if kind == "ticket" else []

    if shape == "inloop":
        wait = ["var done = false", "while !done {", *_indent(_when_taken(kind, word, section + ["done = true"])), "}"]
    elif shape == "spin":
        if kind == "ttas":         # the nested test has no single condition: a `break` form
            wait = ["while true {", *_indent(_when_taken(kind, word, ["break"])), "}"] + section
        else:
            _, test = _attempt(kind, word)
            negated = test.replace(" == ", " != ")
            wait = [f"while {negated} {{ }}"] + section
    elif shape == "break":
        wait = ["while true {", *_indent(_when_taken(kind, word, ["break"])), "}"] + section
    else:
        pre, test = _attempt(kind, word)
        attempt = [f"got = {test}"]
        for cond in reversed(pre):
            attempt = [f"if {cond} {{", *_indent(attempt), "}"]
        wait = ["var got = false", "while !got {", *_indent(attempt), "}"] + section
    step = [f"let c = {index}"] + enter + wait
    if unguarded:
        step.append(f"{own}[gtid] = {own}[gtid] + {value}")

    decls: list[str] = []
    body: list[str] = []
    arrays: list[Array] = []
    if place == "shared":
        decls.append(f"shared {lk}: i32[{ncounters}]")
        if kind == "ticket":
            decls.append(f"shared {nx}: i32[{ncounters}]")
        # shared memory starts undefined on a GPU: the block zeroes its words before any takes them
        body += [f"if tid < {ncounters} {{", f"    {lk}[tid] = 0"]
        body += [f"    {nx}[tid] = 0"] if kind == "ticket" else []
        body += ["}", "barrier"]
    else:
        arrays.append(Array(lk, (ncounters,)))
        if kind == "ticket":
            arrays.append(Array(nx, (ncounters,)))
    body += guarded(guard, looped("k", loops, step))

    dims = ((MAX_GRID,) if per_block else ()) + (ncounters,)
    expected = np.zeros(dims, dtype=np.int64)
    mine = np.zeros(MAX_GRID * ctx.block, dtype=np.int64)
    parties = 0
    inputs = [data] if data else []
    for t in ctx.threads():
        env = env_with_inputs(ctx, t, inputs)
        if not evaluate(guard, env):
            continue
        parties += 1
        for k in range(loops):
            env["k"] = k
            c = evaluate(index, env)
            v = evaluate(value, env)
            expected[((t.bid,) if per_block else ()) + (c,)] += v + (1 if double else 0)
            mine[t.gtid] += v
    arrays = [Array(cnt, dims, expected=expected)] + arrays + inputs
    if unguarded:
        arrays.append(Array(own, (MAX_GRID * ctx.block,), expected=mine))
    title = (f"counters under a hand-written {kind} lock in {place}, taken {shape}"
             + (", beside unguarded own elements" if unguarded else ""))
    return Piece(title, arrays, decls, body, acquisitions=parties * loops)


# ---- publications ----------------------------------------------------------------------------------

FLAG_WRITES = {"exch": "atomic_exch({f}, 1)", "add": "atomic_add({f}, 1)", "store": "{f} = 1"}
FLAG_WAITS = {"load_cg": "while load_cg({f}) == 0 {{ }}",
              "atomic": "while atomic_add({f}, 0) == 0 {{ }}",
              "plain": "while {f} == 0 {{ }}",
              "break": "while true {{ if load_cg({f}) != 0 {{ break }} }}",
              "flag": "var seen = false\nwhile !seen {{ seen = load_cg({f}) != 0 }}"}


def hand_publication(rng: random.Random, ctx: Context) -> Piece:
    """Values handed over through flags; see the module's docstring. Between blocks, block 0
    publishes (it waits for nobody) and the others read; between warps, warp 0 of each block
    publishes and warp 1 reads."""
    between = "blocks" if ctx.grid > 1 and (ctx.warps < 2 or rng.random() < 0.5) else "warps"
    if between == "warps" and ctx.warps < 2:
        between = "blocks"
    n = rng.choice([1, 4, 32])                 # values handed over (per block, between warps)
    data, flag, out = ctx.name("data"), ctx.name("flag"), ctx.name("out")
    write = FLAG_WRITES[rng.choice(list(FLAG_WRITES))]
    wait = FLAG_WAITS[rng.choice(list(FLAG_WAITS))]
    value = value_expr(rng, ctx)
    decls: list[str] = []
    arrays: list[Array] = []
    body: list[str] = []
    if between == "blocks":
        scope = "gpu"
        slot, producer, consumer = "tid", f"bid == 0 && tid < {n}", f"bid > 0 && tid < {n}"
        arrays += [Array(data, (n,)), Array(flag, (n,))]
        d, f = f"{data}[{slot}]", f"{flag}[{slot}]"
    else:
        shared = rng.random() < 0.5
        scope = "cta" if shared or rng.random() < 0.5 else "gpu"
        slot = "tid % 32"
        producer, consumer = f"tid < {n}", f"tid >= 32 && tid < {32 + n}"
        if shared:
            decls += [f"shared {data}: i32[{n}]", f"shared {flag}: i32[{n}]"]
            body += [f"if tid < {n} {{ {flag}[tid] = 0 }}", "barrier"]     # shared memory starts undefined
            d, f = f"{data}[{slot}]", f"{flag}[{slot}]"
        else:
            arrays += [Array(data, (MAX_GRID, n)), Array(flag, (MAX_GRID, n))]
            d, f = f"{data}[bid][{slot}]", f"{flag}[bid][{slot}]"
    publish = [f"{d} = {value}"] + _fence(rng, scope) + [write.format(f=f)]
    receive = wait.format(f=f).split("\n") + _fence(rng, scope) + [f"{out}[gtid] = {d}"]
    body += [f"if {producer} {{", *_indent(publish), f"}} else if {consumer} {{", *_indent(receive), "}"]

    expected = np.zeros(MAX_GRID * ctx.block, dtype=np.int64)
    for t in ctx.threads():
        env = ctx.env(t)
        if not evaluate(consumer, env) or evaluate(producer, env):
            continue
        source = t.tid if between == "blocks" else t.tid - 32
        producer_bid = 0 if between == "blocks" else t.bid
        expected[t.gtid] = evaluate(value, ctx.env(type(t)(producer_bid, source, t.ntid, t.nbid)))
    arrays.insert(0, Array(out, (MAX_GRID * ctx.block,), expected=expected))
    title = (f"{n} values published between {between} by `{write.format(f='flag')}`, "
             f"read after `{wait.format(f='flag').splitlines()[-1]}`")
    return Piece(title, arrays, decls, body, acquisitions=n * ctx.grid)


# ---- barriers --------------------------------------------------------------------------------------

def hand_barrier(rng: random.Random, ctx: Context) -> Piece:
    """Rounds of a counting barrier written by hand; see the module's docstring. Each round a
    thread writes its element of that round's row, arrives, waits for the count, and reads a
    neighbour's element of the row."""
    over = "grid" if ctx.grid > 1 and rng.random() < 0.4 else "block"
    place = "global" if over == "grid" else rng.choice(["global", "shared"])
    scope = "gpu" if over == "grid" else "cta"
    rounds = rng.randrange(1, 3)
    shift = rng.randrange(1, 33)
    cnt, data, out = ctx.name("cnt"), ctx.name("data"), ctx.name("out")
    parties = ctx.block * (ctx.grid if over == "grid" else 1)
    word = f"{cnt}[0]" if over == "grid" or place == "shared" else f"{cnt}[bid]"
    me = "gtid" if over == "grid" else "tid"
    base = "" if over == "grid" else f"bid * {ctx.block} + "
    neighbour = f"{base}({me} + {shift}) % {parties}"
    value = value_expr(rng, ctx, "r")
    wait = rng.choice([f"while load_cg({word}) < (r + 1) * {parties} {{ }}",
                       f"while true {{ if load_cg({word}) >= (r + 1) * {parties} {{ break }} }}",
                       f"while atomic_add({word}, 0) < (r + 1) * {parties} {{ }}"])
    decls: list[str] = []
    body: list[str] = []
    arrays = [Array(data, (rounds, MAX_GRID * ctx.block))]
    if place == "shared":
        decls.append(f"shared {cnt}: i32[1]")
        body += [f"if tid == 0 {{ {cnt}[0] = 0 }}", "barrier"]     # shared memory starts undefined
    else:
        arrays.append(Array(cnt, (MAX_GRID,)))
    step = [f"{data}[r][gtid] = {value}"] + _fence(rng, scope) + [f"atomic_add({word}, 1)", wait] \
        + _fence(rng, scope) + [f"{out}[r][gtid] = {data}[r][{neighbour}]"]
    body += looped("r", rounds, step)

    expected = np.zeros((rounds, MAX_GRID * ctx.block), dtype=np.int64)
    written = np.zeros((rounds, MAX_GRID * ctx.block), dtype=np.int64)
    for t in ctx.threads():
        for r in range(rounds):
            written[r, t.gtid] = evaluate(value, ctx.env(t, r=r))
    for t in ctx.threads():
        for r in range(rounds):
            expected[r, t.gtid] = written[r, evaluate(neighbour, ctx.env(t))]
    arrays.insert(0, Array(out, (rounds, MAX_GRID * ctx.block), expected=expected))
    title = f"{rounds} rounds of a hand-written counting barrier over the {over}, its count in {place}"
    return Piece(title, arrays, decls, body, acquisitions=rounds * parties // 8)
