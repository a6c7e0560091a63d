"""The motifs a generated kernel is made of: each a function (rng, Context) -> Piece.

Each motif uses synchronization so that its result depends on it: counters incremented with
a plain load and store inside a critical section (a missing lock loses updates), values
passed along chains of channel slots (a broken order passes the wrong value), marks written
before a barrier or latch and read after it (a barrier that lets a thread through early shows
an old mark). The expected outputs are computed here, thread by thread, by evaluating the very
expression strings the program contains (model.py).

The choices follow docs/language.md: which implementations exist for which placement and
granularity (§11), who the party is (a `@warp` or `@block` operation must be reached by the
whole warp or block, so its guards test `warp` or `bid`, never `lane`), which shapes the
checker is known to judge (nested locks in `min`/`max` order, channel chains across warps,
`when` chains inside a warp). Some variants are written to be rejected by one target and
fine on the other (nested `@thread` locks on Fermi), or to probe the analyses' precision
(`let lo = min(a, b)`, a consistent descending order): their verdicts are what the oracle
counts.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .model import Thread, evaluate, threads
from .program import MAX_GRID, Array, Piece, Shape

# ---- the catalogue, from docs/language.md §11 -------------------------------------------------------

MUTEX_IMPLS = {
    ("global", "thread"): ["tas", "ttas", "ticket", "mcs", "mcs2", "backoff", None],
    ("shared", "thread"): ["tas", "ticket", "backoff", "tinylock", None],
    ("global", "warp"): ["tas", "ttas", "ticket", "backoff", None],
    ("shared", "warp"): ["tas", "ticket", "backoff", "tinylock", None],
    ("global", "block"): ["tas", "ttas", "ticket", "backoff", None],
}
ABANDONABLE = {"tas", "ttas", "backoff", "tinylock"}          # may be used with `trylock`
SEMAPHORE_IMPLS = {"global": ["spin", "backoff", "sleeping", None], "shared": ["spin", "backoff", None]}
CHANNEL_IMPLS = {
    ("shared", "thread"): ["tinylock", "atomlock", "flag", None],
    ("shared", "warp"): ["tinylock", "atomlock", "flag", "namedbar", None],
    ("global", "thread"): ["atomlock", "flag", None],
    ("global", "warp"): ["atomlock", "flag", None],
}
RWLOCK_IMPLS = ["counter", "ticket", None]
GRID_BARRIER_IMPLS = ["atomic", "xf", "flip", "hierarchical", None]

MAX_ACQUISITIONS = 48       # contended lock operations per piece: keeps a run well under 2M cycles


@dataclass
class Context:
    """What a motif needs to know about the kernel it goes into."""
    prefix: str                 # names of this piece's arrays, primitives and locals start with it
    shape: Shape
    mix: str | None = None      # the program's helper function, `fn mix(x: i32, k: i32) -> i32`
    mix_fn: Callable | None = None
    env_extra: dict = field(default_factory=dict)

    @property
    def block(self) -> int:
        return self.shape.block

    @property
    def grid(self) -> int:
        return self.shape.grid

    @property
    def warps(self) -> int:
        return self.shape.block // 32

    def name(self, base: str) -> str:
        return f"{self.prefix}_{base}"

    def threads(self):
        return threads(self.grid, self.block)

    def env(self, t: Thread, **more) -> dict:
        env = t.env(**more)
        if self.mix_fn is not None:
            env["mix"] = self.mix_fn
        env.update(self.env_extra)
        return env


def using(rng: random.Random, impl: str | None, kind: str = "") -> str:
    """The `using` clause, sometimes with parameters: `backoff` (mutex and semaphore) takes
    min_delay and max_delay, the mutex `ticket` a delay (syncc/ir/impls/)."""
    if impl is None:
        return ""
    if impl == "backoff" and rng.random() < 0.3:
        return f" using backoff({rng.choice([8, 16, 32])}, {rng.choice([128, 256])})"
    if impl == "ticket" and kind == "mutex" and rng.random() < 0.2:
        return f" using ticket(delay={rng.choice([0, 20, 100])})"
    return f" using {impl}"


def input_array(rng: random.Random, ctx: Context, base: str, modulus: int, size: int | None = None) -> Array:
    """An input filled by the host with a quadratic formula of the index, values in [0, modulus)."""
    a, b, c = rng.randrange(1, 13), rng.randrange(0, 17), rng.randrange(0, 29)
    size = size or MAX_GRID * ctx.block
    return Array(ctx.name(base), (size,), fill=f"(i * i * {a} + i * {b} + {c}) % {modulus}")


def value_expr(rng: random.Random, ctx: Context, loop: str | None = None) -> str:
    """A per-thread value to add or pass on: non-negative, small, schedule-independent."""
    k = loop or "0"
    options = ["1", "(tid % 3) + 1", f"(gtid * 7 + {k}) % 11 + 1", "lane + 1"]
    if ctx.mix:
        options.append(f"mix(gtid, {k})")
    return rng.choice(options)


def count(ctx: Context, guard: str | None, extra: dict | None = None) -> int:
    return sum(1 for t in ctx.threads() if guard is None or evaluate(guard, ctx.env(t, **(extra or {}))))


def thread_guard(rng: random.Random, ctx: Context, data: Array | None, limit: int) -> str:
    """A condition that picks a few threads of each block (at most `limit` in the grid)."""
    for _ in range(20):
        lanes = rng.randrange(1, 5)
        options = [f"lane < {lanes}", f"tid % {rng.choice([16, 32])} == {rng.randrange(0, 16)}"]
        if ctx.warps > 1:
            options.append(f"warp == {rng.randrange(ctx.warps)} && lane < {lanes + 2}")
        if ctx.grid > 1:
            options.append(f"bid != {rng.randrange(ctx.grid)} && lane < {lanes}")
        if data is not None:
            options.append(f"{data.name}[gtid] % {rng.choice([3, 4, 5])} == 0 && lane < {lanes * 3}")
        guard = rng.choice(options)
        if 1 <= count(ctx, guard, {data.name: data.initial()} if data else None) <= limit:
            return guard
    return "tid == 0"


def warp_guard(rng: random.Random, ctx: Context) -> str | None:
    """A condition the lanes of a warp agree on (so a @warp party stays whole: E0707)."""
    options: list[str | None] = [None, None]
    if ctx.warps > 1:
        options += ["warp % 2 == 0", f"warp < {rng.randrange(1, ctx.warps)}"]
    if ctx.grid > 1:
        options.append(f"bid != {rng.randrange(ctx.grid)}")
    return rng.choice(options)


def block_guard(rng: random.Random, ctx: Context) -> str | None:
    """A condition every thread of a block agrees on (a @block party, a block barrier: E0704)."""
    options: list[str | None] = [None, None]
    if ctx.grid > 1:
        options.append(f"bid != {rng.randrange(ctx.grid)}")
    return rng.choice(options)


def guarded(guard: str | None, body: list[str]) -> list[str]:
    if guard is None:
        return body
    return [f"if {guard} {{"] + [f"    {s}" for s in body] + ["}"]


def looped(var: str, n: int, body: list[str]) -> list[str]:
    return [f"for {var} in 0 .. {n} {{"] + [f"    {s}" for s in body] + ["}"]


def env_with_inputs(ctx: Context, t: Thread, arrays: list[Array], **more) -> dict:
    env = ctx.env(t, **more)
    for a in arrays:
        if a.fill is not None:
            env[a.name] = a.initial()
    return env


# ---- mutual exclusion ------------------------------------------------------------------------------

def counter(rng: random.Random, ctx: Context) -> Piece:
    """Counters updated with a plain load and store inside a critical section (or lock/unlock, or
    a trylock retry loop): two parties inside at once lose an update."""
    gran = rng.choice(["thread"] * 4 + ["warp"] * 2 + ["block"])
    place = "global" if gran == "block" else rng.choice(["global", "shared"])
    form = rng.choice(["critical"] * 4 + ["lock", "trylock"])
    impls = MUTEX_IMPLS[place, gran]
    if form == "trylock":
        impls = [i for i in impls if i in ABANDONABLE] + [None]
    impl = rng.choice(impls)
    ncounters = rng.randrange(1, 5)
    loops = rng.randrange(1, 4)
    m, cnt = ctx.name("m"), ctx.name("cnt")
    data = input_array(rng, ctx, "sel", 16) if rng.random() < 0.4 else None
    per_block = place == "shared"            # a shared mutex is one per block: so are its counters
    width = {"thread": 1, "warp": 32, "block": ctx.block}[gran] if rng.random() < 0.4 else 1
    rows = (MAX_GRID,) if per_block else ()
    dims = rows + (ncounters,) + ((width,) if width > 1 else ())

    if gran == "thread":
        guard = thread_guard(rng, ctx, data, max(1, MAX_ACQUISITIONS // loops))
        index_options = ["(tid + k) % C", "(gtid * 3 + k) % C", "(lane + warp + k) % C"]
        if data is not None:
            index_options.append(f"{data.name}[gtid] % C")
    elif gran == "warp":
        guard = warp_guard(rng, ctx)
        index_options = ["(warp + k) % C", "(bid + warp + k) % C", "k % C"]
    else:
        guard = block_guard(rng, ctx)
        index_options = ["(bid + k) % C", "k % C"]
    index = rng.choice(index_options).replace("C", str(ncounters))
    value = value_expr(rng, ctx, "k")
    leader = {"thread": None, "warp": "lane == 0", "block": "tid == 0"}[gran] if width == 1 else None
    cell = f"{cnt}{'[bid]' if per_block else ''}[c]{ {1: '', 32: '[lane]'}.get(width, '[tid]') }"
    double = rng.random() < 0.3              # a second word: no single atomic can do the section
    update = guarded(leader, [f"{cell} = {cell} + {value}"] + ([f"{cell} = {cell} + 1"] if double else []))

    clause = using(rng, impl, "mutex")
    decl = f"mutex {m}[{ncounters}] in {place} @{gran}{clause}"
    if form == "critical":
        section = [f"critical {m}[c] {{"] + [f"    {s}" for s in update] + ["}"]
    elif form == "lock":
        section = [f"lock {m}[c]"] + update + [f"unlock {m}[c]"]
    else:
        section = ["var done = false", "while !done {", f"    if trylock {m}[c] {{"]
        section += [f"        {s}" for s in update] + ["        done = true", f"        unlock {m}[c]", "    }", "}"]
    body = guarded(guard, looped("k", loops, [f"let c = {index}"] + section))

    arrays = [data] if data else []
    expected = np.zeros(dims, dtype=np.int64)
    parties: set = set()
    for t in ctx.threads():
        env = env_with_inputs(ctx, t, arrays)
        if guard is not None and not evaluate(guard, env):
            continue
        parties.add({"thread": t.gtid, "warp": (t.bid, t.warp), "block": t.bid}[gran])
        for k in range(loops):
            env["k"] = k
            if leader is not None and not evaluate(leader, env):
                continue
            c = evaluate(index, env)
            where = ((t.bid,) if per_block else ()) + (c,) + {1: (), 32: (t.lane,)}.get(width, (t.tid,))
            expected[where] += evaluate(value, env) + (1 if double else 0)
    title = f"counter under {form} on mutex {place} @{gran}{clause}"
    return Piece(title, [Array(cnt, dims, expected=expected)] + arrays, [decl], body,
                 acquisitions=len(parties) * loops)


# who a party is, per granularity: its number in the grid (to pick its input), the lane that
# acts for it inside a section, and a guard of its kind
PARTY = {"thread": ("gtid", None), "warp": ("bid * nwarps + warp", "lane == 0"), "block": ("bid", "tid == 0")}


def transfer(rng: random.Random, ctx: Context) -> Piece:
    """Each chosen party moves one unit between two accounts holding both accounts' locks.
    The order the two locks are taken in varies: `min`/`max` under `if a != b` (what E0703
    asks for), the same through `let lo = min(a, b)`, neighbours in ascending or consistently
    descending order, the data's order (a real cycle), two different mutex arrays, or (@thread)
    both or neither with `trylock` in a retry loop. Parties are threads, warps (lane 0 moves
    for the warp) or blocks (thread 0); a shared mutex array guards per-block balances."""
    gran = rng.choice(["thread"] * 4 + ["warp", "warp", "block"])
    place = "global" if gran == "block" else rng.choice(["global", "global", "shared"])
    naccounts = rng.randrange(3, 9)
    orders = ["minmax"] * 3 + ["let_minmax", "ascending", "descending", "data", "two_arrays"]
    order = rng.choice(orders + (["trylock_both"] if gran == "thread" else []))
    impls = MUTEX_IMPLS[place, gran]
    if order == "trylock_both":
        impls = [i for i in impls if i in ABANDONABLE] + [None]
    clause = using(rng, rng.choice(impls), "mutex")
    acc, bal, other_bal = ctx.name("acc"), ctx.name("bal"), ctx.name("bal2")
    src, dst = input_array(rng, ctx, "src", naccounts), input_array(rng, ctx, "dst", naccounts)
    party, leader = PARTY[gran]
    guard = {"thread": lambda: thread_guard(rng, ctx, None, MAX_ACQUISITIONS // 2),
             "warp": lambda: warp_guard(rng, ctx), "block": lambda: block_guard(rng, ctx)}[gran]()
    row = "[bid]" if place == "shared" else ""
    move = guarded(leader, [f"BAL{row}[a] = BAL{row}[a] - 1", f"BAL2{row}[b] = BAL2{row}[b] + 1"])
    decls = [f"mutex {acc}[{naccounts}] in {place} @{gran}{clause}"]
    a_expr, b_expr = f"{src.name}[{party}]", f"{dst.name}[{party}]"
    same_array = order != "two_arrays"
    if order in ("minmax", "let_minmax", "data"):
        outer, inner, pre = {"minmax": (f"{acc}[min(a, b)]", f"{acc}[max(a, b)]", []),
                             "let_minmax": (f"{acc}[lo]", f"{acc}[hi]", ["let lo = min(a, b)", "let hi = max(a, b)"]),
                             "data": (f"{acc}[a]", f"{acc}[b]", [])}[order]
        body = [f"let a = {a_expr}", f"let b = {b_expr}", "if a != b {"]
        body += [f"    {x}" for x in pre + nest(outer, inner, move)] + ["}"]
    elif order in ("ascending", "descending"):
        # neighbours: a is the party's account, b the next one, so a != b always
        a_expr = f"({party} + {src.name}[{party}]) % {naccounts - 1}"
        b_expr = f"{a_expr} + 1"
        first, second = (f"{acc}[a]", f"{acc}[a + 1]") if order == "ascending" else (f"{acc}[a + 1]", f"{acc}[a]")
        body = [f"let a = {a_expr}", "let b = a + 1"] + nest(first, second, move)
    elif order == "two_arrays":
        second = ctx.name("acc2")
        decls.append(f"mutex {second}[{naccounts}] in {place} @{gran}{clause}")
        body = [f"let a = {a_expr}", f"let b = {b_expr}"] + nest(f"{acc}[a]", f"{second}[b]", move)
    else:   # both or neither, a thread at a time
        body = [f"let a = {a_expr}", f"let b = {b_expr}", "var done = a == b", "while !done {",
                f"    if trylock {acc}[min(a, b)] {{", f"        if trylock {acc}[max(a, b)] {{"]
        body += [f"            {x}" for x in move] + ["            done = true", f"            unlock {acc}[max(a, b)]",
                                                   "        }", f"        unlock {acc}[min(a, b)]", "    }", "}"]
    body = guarded(guard, [x.replace("BAL2", other_bal if not same_array else bal).replace("BAL", bal) for x in body])

    rows = MAX_GRID if place == "shared" else 1
    balances = {name: np.zeros((rows, naccounts), dtype=np.int64) for name in ([bal] if same_array else [bal, other_bal])}
    parties: set = set()
    for t in ctx.threads():
        env = env_with_inputs(ctx, t, [src, dst])
        if guard is not None and not evaluate(guard, env):
            continue
        if leader is not None and not evaluate(leader, env):
            continue
        a, b = evaluate(a_expr, env), evaluate(b_expr, env)
        if a == b and same_array:
            continue
        parties.add(evaluate(party, env))
        r = t.bid if place == "shared" else 0
        balances[bal][r, a] -= 1
        balances[bal if same_array else other_bal][r, b] += 1
    arrays = [Array(name, (rows, naccounts) if place == "shared" else (naccounts,),
                    expected=v if place == "shared" else v[0]) for name, v in balances.items()] + [src, dst]
    title = f"transfers under nested locks, order {order}, mutex {place} @{gran}{clause}"
    return Piece(title, arrays, decls, body, acquisitions=2 * len(parties))


def nest(outer: str, inner: str, body: list[str]) -> list[str]:
    return ([f"critical {outer} {{", f"    critical {inner} {{"] + [f"        {s}" for s in body]
            + ["    }", "}"])


# ---- semaphores -------------------------------------------------------------------------------------

def semaphore_section(rng: random.Random, ctx: Context) -> Piece:
    """A semaphore of count N used as a lock (N = 1: a plain counter inside) or to bound
    occupancy (N > 1: parties inside counted with atomics, and the peak must not pass N)."""
    gran = rng.choice(["thread"] * 3 + ["warp", "block"])
    place = "global" if gran == "block" else rng.choice(["global", "shared"])
    permits = rng.choice([1, 1, 2, 3])
    clause = using(rng, rng.choice(SEMAPHORE_IMPLS[place]))
    form = rng.choice(["acquire"] * 3 + ["wait_post", "trywait"])
    loops = rng.randrange(1, 3)
    s = ctx.name("s")
    per_block = place == "shared"
    rows = MAX_GRID if per_block else 1
    row = "bid" if per_block else "0"
    cnt, occ = ctx.name("cnt"), ctx.name("occ")    # occ[row]: [inside now, peak, entries]
    if gran == "thread":
        guard = thread_guard(rng, ctx, None, max(1, MAX_ACQUISITIONS // loops))
        leader = None
    elif gran == "warp":
        guard, leader = warp_guard(rng, ctx), "lane == 0"
    else:
        guard, leader = block_guard(rng, ctx), "tid == 0"
    inside = [f"let now = atomic_add({occ}[{row}][0], 1) + 1", f"atomic_max({occ}[{row}][1], now)",
              f"atomic_add({occ}[{row}][2], 1)"]
    if permits == 1:
        inside.append(f"{cnt}[{row}] = {cnt}[{row}] + 1")
    inside.append(f"atomic_sub({occ}[{row}][0], 1)")
    inside = guarded(leader, inside)
    decl = f"semaphore {s}({permits}) in {place} @{gran}{clause}"
    if form == "acquire":
        section = [f"acquire {s} {{"] + [f"    {x}" for x in inside] + ["}"]
    elif form == "wait_post":
        section = [f"wait {s}"] + inside + [f"post {s}"]
    else:
        bound = rng.choice(["", " for 4"])
        section = ["var done = false", "while !done {", f"    if trywait {s}{bound} {{"]
        section += [f"        {x}" for x in inside] + ["        done = true", f"        post {s}", "    }", "}"]
    body = guarded(guard, looped("k", loops, section))

    entries = np.zeros(rows, dtype=np.int64)
    parties: set = set()
    for t in ctx.threads():
        env = ctx.env(t)
        if guard is not None and not evaluate(guard, env):
            continue
        parties.add({"thread": t.gtid, "warp": (t.bid, t.warp), "block": t.bid}[gran])
        if leader is None or evaluate(leader, env):
            entries[t.bid if per_block else 0] += loops
    arrays = [Array(occ, (rows, 3))]
    checks = []
    for r in range(rows):
        checks.append((f"{occ}[{r}][0] == 0 && {occ}[{r}][1] <= {permits} && {occ}[{r}][2] == {entries[r]}",
                       f"row {r}: more than {permits} inside at once, or entries lost"))
    if permits == 1:
        arrays.append(Array(cnt, (rows,), expected=entries))
    title = f"{form} on semaphore({permits}) {place} @{gran}{clause}"
    return Piece(title, arrays, [decl], body, checks, acquisitions=len(parties) * loops)


def semaphore_signal(rng: random.Random, ctx: Context) -> Piece:
    """Semaphores of count 0 used as signals: a producer writes a value and posts, a consumer
    waits and reads it. Pairs of lanes in two warps, or one producer posting once per consumer."""
    place = rng.choice(["global", "shared"])
    clause = using(rng, rng.choice(SEMAPHORE_IMPLS[place]))
    out = ctx.name("out")
    value = value_expr(rng, ctx)
    if ctx.warps >= 2 and rng.random() < 0.6:
        # lane j of the producer warp hands a value to lane j of the consumer warp
        producer, consumer = rng.sample(range(ctx.warps), 2)
        ready, box = ctx.name("ready"), ctx.name("box")
        slot = "lane" if place == "shared" else "bid * 32 + lane"
        size = 32 if place == "shared" else 32 * MAX_GRID
        decls = [f"semaphore {ready}[{size}](0) in {place} @thread{clause}"]
        if place == "shared":
            decls.append(f"shared {box}: i32[32]")
            arrays: list[Array] = []
        else:
            arrays = [Array(box, (size,))]
        body = [f"if warp == {producer} {{", f"    {box}[{slot}] = {value}", f"    post {ready}[{slot}]", "}",
                f"if warp == {consumer} {{", f"    wait {ready}[{slot}]", f"    {out}[gtid] = {box}[{slot}]", "}"]
        expected = np.zeros(MAX_GRID * ctx.block, dtype=np.int64)
        sent = {}
        for t in ctx.threads():
            if t.warp == producer:
                sent[t.bid, t.lane] = evaluate(value, ctx.env(t))
        for t in ctx.threads():
            if t.warp == consumer:
                expected[t.gtid] = sent[t.bid, t.lane]
        title = f"signal pairs across warps on semaphore(0) {place} @thread{clause}"
        if place == "global":
            arrays[0].expected = None
        return Piece(title, [Array(out, (MAX_GRID * ctx.block,), expected=expected)] + arrays, decls, body,
                     acquisitions=ctx.grid * 32)
    # one producer (thread 0 of the block) posts once per consumer
    consumers = rng.randrange(1, min(8, ctx.block - 1) + 1)
    first = rng.choice([1, 32]) if ctx.block > 32 + consumers else 1
    sig, box = ctx.name("sig"), ctx.name("box")
    decls = [f"semaphore {sig}[{MAX_GRID if place == 'global' else 1}](0) in {place} @thread{clause}"]
    idx = "bid" if place == "global" else "0"
    body = ["if tid == 0 {", f"    {box}[bid] = {value}", f"    for i in 0 .. {consumers} {{ post {sig}[{idx}] }}", "}",
            f"if tid >= {first} && tid < {first + consumers} {{", f"    wait {sig}[{idx}]",
            f"    {out}[gtid] = {box}[bid]", "}"]
    expected = np.zeros(MAX_GRID * ctx.block, dtype=np.int64)
    for t in ctx.threads():
        if first <= t.tid < first + consumers:
            expected[t.gtid] = evaluate(value, ctx.env(Thread(t.bid, 0, t.ntid, t.nbid)))
    title = f"one producer posts {consumers} times to semaphore(0) {place} @thread{clause}"
    arrays = [Array(out, (MAX_GRID * ctx.block,), expected=expected), Array(box, (MAX_GRID,))]
    return Piece(title, arrays, decls, body, acquisitions=ctx.grid * consumers)


# ---- channels ---------------------------------------------------------------------------------------

def channel_chain(rng: random.Random, ctx: Context) -> Piece:
    """A chain through the slots of a channel, as in seed 000's Listing 10 (examples/chain.sync):
    each thread adds its term to the value of the same lane one warp earlier. The first warp
    starts from an input. In shared memory the chain runs through the block; in global memory
    through the whole grid, block after block."""
    place = rng.choice(["shared", "shared", "global"])
    gran = rng.choice(["thread", "thread", "warp"])
    clause = using(rng, rng.choice(CHANNEL_IMPLS[place, gran]))
    c, out = ctx.name("c"), ctx.name("out")
    init = input_array(rng, ctx, "init", 50)
    me = "tid" if place == "shared" else "gtid"
    size = ctx.block if place == "shared" else MAX_GRID * ctx.block
    term = value_expr(rng, ctx)
    decls = [f"channel {c}[{size}]: i32 in {place} @{gran}{clause}"]
    # the first warp starts the chain; `tid < 32` says the same as `warp == 0`, in words the
    # uniformity analysis may not see through (E0704/E0707 on a @warp channel)
    first = rng.choice(["warp == 0"] * 3 + ["tid < 32"]) if place == "shared" else rng.choice(
        ["bid == 0 && warp == 0"] * 3 + ["gtid < 32"])
    body = ["var prev = 0", f"if {first} {{ prev = {init.name}[gtid] }} else {{ prev = get {c}[{me} - 32] }}",
            f"put {c}[{me}] = prev + {term}", f"{out}[gtid] = {c}[{me}]"]
    body = [s.replace("prev", ctx.name("prev")) for s in body]
    expected = np.zeros(MAX_GRID * ctx.block, dtype=np.int64)
    slots: dict[int, int] = {}
    for t in sorted(ctx.threads(), key=lambda t: t.gtid):
        env = env_with_inputs(ctx, t, [init])
        key = t.tid if place == "shared" else t.gtid          # the thread's slot
        instance = t.bid if place == "shared" else 0           # a shared channel is one per block
        prev = env[init.name][t.gtid] if key < 32 else slots[instance, key - 32]
        slots[instance, key] = prev + evaluate(term, env)
        expected[t.gtid] = slots[instance, key]
    title = f"chain across warps through channel {place} @{gran}{clause}"
    return Piece(title, [Array(out, (MAX_GRID * ctx.block,), expected=expected), init], decls, body,
                 acquisitions=ctx.grid * ctx.block // 8)


def channel_when_chain(rng: random.Random, ctx: Context) -> Piece:
    """A chain through the lanes of each warp: lane 0 puts, every other lane waits for the lane
    before it in a `when` and puts inside it (seed 000 Listing 15), or with a plain `get`
    before its `put` (a SIMT deadlock on Fermi's stack, which E0701 reports). Sometimes the
    `when` binds two channels."""
    clause = using(rng, rng.choice(CHANNEL_IMPLS["shared", "thread"]))
    style = rng.choice(["when", "when", "when2", "get"])
    c, d, out = ctx.name("c"), ctx.name("d"), ctx.name("out")
    init = input_array(rng, ctx, "init", 40)
    term = value_expr(rng, ctx)
    decls = [f"channel {c}[{ctx.block}]: i32 in shared @thread{clause}"]
    if style == "when":
        body = [f"if lane == 0 {{ put {c}[tid] = {init.name}[gtid] }}",
                "if lane > 0 {", f"    when prev = {c}[tid - 1] {{ put {c}[tid] = prev + {term} }}", "}"]
    elif style == "when2":
        decls.append(f"channel {d}[{ctx.block}]: i32 in shared @thread{clause}")
        body = [f"put {d}[tid] = {term}",
                f"if lane == 0 {{ put {c}[tid] = {init.name}[gtid] }}",
                "if lane > 0 {", f"    when prev = {c}[tid - 1], mine = {d}[tid] {{ put {c}[tid] = prev + mine }}", "}"]
    else:
        body = ["var prev = 0", f"if lane == 0 {{ prev = {init.name}[gtid] }} else {{ prev = get {c}[tid - 1] }}",
                f"if lane == 0 {{ put {c}[tid] = prev }} else {{ put {c}[tid] = prev + {term} }}"]
        body = [s.replace("prev", ctx.name("prev")) for s in body]
    body.append(f"{out}[gtid] = {c}[tid]")
    expected = np.zeros(MAX_GRID * ctx.block, dtype=np.int64)
    for t in sorted(ctx.threads(), key=lambda t: t.gtid):
        env = env_with_inputs(ctx, t, [init])
        if t.lane == 0:
            expected[t.gtid] = env[init.name][t.gtid]
        else:
            expected[t.gtid] = expected[t.gtid - 1] + evaluate(term, env)
    title = f"chain through the lanes of a warp ({style}) on channel shared @thread{clause}"
    return Piece(title, [Array(out, (MAX_GRID * ctx.block,), expected=expected), init], decls, body,
                 acquisitions=ctx.grid * ctx.block // 4)


def channel_exchange(rng: random.Random, ctx: Context) -> Piece:
    """Threads put slots (indices from the loop variable and tid or warp), then get a slot another
    thread put: 1:1 exchanges with a partner in another warp, a 1:N broadcast of a few slots the
    first threads put, or one slot per warp put by its lane 0 and read by the next warp (with
    `get`, or `await` then a plain read)."""
    place = rng.choice(["shared", "global"])
    clause = using(rng, rng.choice(CHANNEL_IMPLS[place, "thread"]))
    c, out = ctx.name("c"), ctx.name("out")
    value = value_expr(rng, ctx, "k")
    rounds = rng.randrange(1, 3)
    base = "" if place == "shared" else f"bid * {rounds * ctx.block} + "
    size = rounds * ctx.block * (1 if place == "shared" else MAX_GRID)
    decls = [f"channel {c}[{size}]: i32 in {place} @thread{clause}"]
    shape = rng.choice(["exchange", "broadcast", "per_warp"])
    if shape == "exchange":
        shift = rng.choice([32, 64, ctx.block - 32]) % ctx.block or 32
        sender = f"(tid + {shift}) % {ctx.block}" if ctx.block > 32 else "(tid + 1) % 32"
        slot, producer, read_slot = "tid", None, sender
        what = f"exchange with {sender}"
    elif shape == "broadcast":
        nslots = rng.randrange(1, 5)
        sender = f"(tid + k) % {nslots}"
        slot, producer, read_slot = "tid", f"tid < {nslots}", sender
        what = f"broadcast of {nslots} slots to the block"
    else:
        sender = "(warp + 1) % nwarps * 32"
        slot, producer, read_slot = "warp", "lane == 0", "(warp + 1) % nwarps"
        what = "one slot per warp, read by the warp before"
    read = rng.choice(["get", "get", "await"])
    def place_of(index: str) -> str:
        return f"{c}[{base}k * {ctx.block} + {index}]"

    body = looped("k", rounds, guarded(producer, [f"put {place_of(slot)} = {value}"]))
    fetch = [f"let got = get {place_of(read_slot)}"] if read == "get" else [
        f"await {place_of(read_slot)}", f"let got = {place_of(read_slot)}"]
    body += looped("k", rounds, fetch + [f"{out}[k][gtid] = got"])
    expected = np.zeros((rounds, MAX_GRID * ctx.block), dtype=np.int64)
    for t in ctx.threads():
        for k in range(rounds):
            src = evaluate(sender, ctx.env(t, k=k))            # the thread that put the slot read
            expected[k, t.gtid] = evaluate(value, ctx.env(Thread(t.bid, src, t.ntid, t.nbid), k=k))
    title = f"{what} ({read}), {rounds} round(s), channel {place} @thread{clause}"
    return Piece(title, [Array(out, (rounds, MAX_GRID * ctx.block), expected=expected)], decls, body,
                 acquisitions=ctx.grid * ctx.block // 8)


def flags(rng: random.Random, ctx: Context) -> Piece:
    """`signal` and `await` on a bool channel after writing data with plain stores and a fence
    (docs/language.md §13, `flags`): the partner's data must be there once its flag is."""
    place = rng.choice(["shared", "global"])
    clause = using(rng, rng.choice(CHANNEL_IMPLS[place, "thread"]))
    done, data, out = ctx.name("done"), ctx.name("data"), ctx.name("out")
    value = value_expr(rng, ctx)
    options = ["tid ^ 1", f"{ctx.block - 1} - tid"] + ([f"(tid + 32) % {ctx.block}"] if ctx.warps > 1 else [])
    partner = rng.choice(options)
    scope = "cta" if place == "shared" else rng.choice(["cta", "gpu"])
    me = "tid" if place == "shared" else "gtid"
    size = ctx.block if place == "shared" else MAX_GRID * ctx.block
    slot = partner if place == "shared" else f"bid * {ctx.block} + {partner}"
    decls = [f"channel {done}[{size}]: bool in {place} @thread{clause}"]
    body = [f"{data}[gtid] = {value}", f"fence {scope}", f"signal {done}[{me}]", f"await {done}[{slot}]",
            f"{out}[gtid] = {data}[bid * {ctx.block} + {partner}]"]
    expected = np.zeros(MAX_GRID * ctx.block, dtype=np.int64)
    for t in ctx.threads():
        p = evaluate(partner, ctx.env(t))
        expected[t.gtid] = evaluate(value, ctx.env(Thread(t.bid, p, t.ntid, t.nbid)))
    title = f"signal/await with partner {partner} on channel {place} @thread{clause}, fence {scope}"
    arrays = [Array(out, (MAX_GRID * ctx.block,), expected=expected), Array(data, (MAX_GRID * ctx.block,))]
    return Piece(title, arrays, decls, body, acquisitions=ctx.grid * ctx.block // 8)


# ---- scans ----------------------------------------------------------------------------------------

SCAN_IMPLS = ["lookback", "chained", None]


def scan_sums(rng: random.Random, ctx: Context) -> Piece:
    """A running sum over the grid (docs/language.md, "Scans"): each block takes its tile, each
    thread adds a value made from its tile and its `tid`, and writes the sum before it
    (`exclusive`) or up to it (`inclusive`) to its place in tile order; the expected sums are the
    running sums of those values, place by place. Which block takes which tile is the
    schedule's; the sums must not depend on it."""
    s, t, b, out = ctx.name("s"), ctx.name("t"), ctx.name("b"), ctx.name("sums")
    side = rng.choice(["exclusive", "inclusive"])
    m = rng.choice([5, 7, 11, 13])
    a = rng.choice([x for x in range(1, 13) if x % m])
    value = rng.choice([f"(({t} * {ctx.block} + tid) * {a}) % {m} + 1", f"({t} + tid) % {m}", "1",
                        f"{t} * {a} % {m} + lane"])
    clause = using(rng, rng.choice(SCAN_IMPLS))
    decls = [f"scan {s}: i32 in global @block{clause}"]
    body = [f"let {t} = tile {s}", f"let {b} = {side} {s}({value})", f"{out}[{t} * {ctx.block} + tid] = {b}"]
    n = ctx.grid * ctx.block
    values = [evaluate(value, ctx.env(Thread(p // ctx.block, p % ctx.block, ctx.block, ctx.grid),
                                      **{t: p // ctx.block})) for p in range(n)]
    running = np.cumsum(values, dtype=np.int64)
    expected = np.zeros(MAX_GRID * ctx.block, dtype=np.int64)
    expected[:n] = running - (values if side == "exclusive" else 0)
    title = f"{side} scan of {value} in tile order{clause}"
    return Piece(title, [Array(out, (MAX_GRID * ctx.block,), expected=expected)], decls, body,
                 acquisitions=ctx.grid * 2)


# ---- latches and barriers ------------------------------------------------------------------------

def latch(rng: random.Random, ctx: Context) -> Piece:
    """Marks written before a latch opens, read after it: every party writes its mark and counts
    down (`count_down` then `wait`, or `sync`), then reads the mark of another party. A variant
    lets only the upper half-warps count down while the lower halves just wait and read a mark
    of the upper half (tests/hazards/clean/latch_count_down_first.sync)."""
    place, gran = rng.choice([("shared", "thread"), ("shared", "warp"), ("global", "block"), ("global", "thread")])
    l, mark, out = ctx.name("l"), ctx.name("mark"), ctx.name("out")
    value = value_expr(rng, ctx)
    split = (place, gran) == ("shared", "thread") and rng.random() < 0.3
    if split:
        parties = ctx.block // 2
        reads = f"bid * {ctx.block} + warp * 32 + 16 + lane"
        body = [f"{mark}[gtid] = {value}", f"if lane >= 16 {{ count_down {l} }}", "if lane < 16 {",
                f"    wait {l}", f"    {out}[gtid] = {mark}[{reads}]", "}"]
        readers = "lane < 16"
    else:
        parties = {("shared", "thread"): ctx.block, ("shared", "warp"): ctx.warps,
                   ("global", "block"): ctx.grid, ("global", "thread"): ctx.grid * ctx.block}[place, gran]
        partner = {"thread": f"(tid + {rng.choice([1, 31, 32, 33])}) % {ctx.block}",
                   "warp": f"(tid + 32) % {ctx.block}", "block": "tid"}[gran]
        block = "bid" if place == "shared" else rng.choice(["bid", "(bid + 1) % nbid"])
        reads = f"{block} * {ctx.block} + {partner}"
        arrive = [f"count_down {l}", f"wait {l}"] if rng.random() < 0.5 else [f"sync {l}"]
        body = [f"{mark}[gtid] = {value}"] + arrive + [f"{out}[gtid] = {mark}[{reads}]"]
        readers = None
    decls = [f"latch {l}({parties}) in {place} @{gran}{using(rng, rng.choice(['counter', None]))}"]
    expected = np.zeros(MAX_GRID * ctx.block, dtype=np.int64)
    for t in ctx.threads():
        env = ctx.env(t)
        if readers is None or evaluate(readers, env):
            w = evaluate(reads, env)                     # the writer of the mark read
            expected[t.gtid] = evaluate(value, ctx.env(Thread(w // ctx.block, w % ctx.block, t.ntid, t.nbid)))
    title = f"marks across latch({parties}) {place} @{gran}{' (half count down)' if split else ''}"
    arrays = [Array(out, (MAX_GRID * ctx.block,), expected=expected), Array(mark, (MAX_GRID * ctx.block,))]
    return Piece(title, arrays, decls, body, acquisitions=ctx.grid * ctx.block // 8)


def exchanged(ctx: Context, rounds: int, partner: str, value: str, readers=lambda t: True,
              writer=lambda t, p: Thread(t.bid, p, t.ntid, t.nbid)) -> np.ndarray:
    """out[r][gtid] of an exchange: what the thread numbered `partner` (evaluated for the reader;
    a thread of its block unless `writer` says otherwise) wrote as `value` in round r, for the
    threads that read."""
    expected = np.zeros((rounds, MAX_GRID * ctx.block), dtype=np.int64)
    for t in ctx.threads():
        if readers(t):
            for r in range(rounds):
                p = evaluate(partner, ctx.env(t, r=r))
                expected[r, t.gtid] = evaluate(value, ctx.env(writer(t, p), r=r))
    return expected


def barrier_rounds(rng: random.Random, ctx: Context) -> Piece:
    """Rounds of a block barrier over a double buffer in shared memory: each thread writes its
    round's mark, meets the block, and reads another thread's mark of that round."""
    rounds = rng.randrange(1, 4)
    buf, out = ctx.name("buf"), ctx.name("out")
    shift = rng.choice([1, 17, 32, ctx.block - 1])
    value = f"r * 1000 + {value_expr(rng, ctx, 'r')}"
    style = rng.choice(["barrier", "named"])
    decls = [f"shared {buf}: i32[2][{ctx.block}]"]
    meet = "barrier"
    if style == "named":
        bb = ctx.name("bb")
        decls.append(f"barrier {bb} in shared @block" + rng.choice(["", " using bar"]))
        meet = f"sync {bb}"
    partner = f"(tid + {shift}) % {ctx.block}"
    body = looped("r", rounds, [f"{buf}[r % 2][tid] = {value}", meet, f"{out}[r][gtid] = {buf}[r % 2][{partner}]"])
    expected = exchanged(ctx, rounds, partner, value)
    title = f"{rounds} round(s) of a block barrier ({meet.split()[0]})"
    return Piece(title, [Array(out, (rounds, MAX_GRID * ctx.block), expected=expected)], decls, body)


def named_barrier(rng: random.Random, ctx: Context) -> Piece:
    """Producer warps hand rounds of data to consumer warps through two named barriers (`full`,
    `empty`), as tests/properties/barrier.sync's bar_named: producers write and `arrive full`,
    then `sync empty`; consumers `sync full`, read, and `arrive empty`."""
    pairs = ctx.warps // 2
    producers = pairs
    count = 64 * pairs
    rounds = rng.randrange(1, 4)
    full, empty, nb, out = ctx.name("full"), ctx.name("empty"), ctx.name("nb"), ctx.name("out")
    decls = [f"shared {nb}: i32[{32 * producers}]", f"barrier {full}({count}) in shared @warp",
             f"barrier {empty}({count}) in shared @warp"]
    value = f"r * 100 + {value_expr(rng, ctx, 'r')}"
    shift = rng.choice([0, 1, 32])
    partner = f"(tid - {32 * producers} + {shift}) % {32 * producers}"
    body = looped("r", rounds, [f"if warp < {producers} {{", f"    {nb}[tid] = {value}", f"    arrive {full}",
                                f"    sync {empty}", f"}} else if warp < {2 * producers} {{", f"    sync {full}",
                                f"    {out}[r][gtid] = {nb}[{partner}]", f"    arrive {empty}", "}"])
    expected = exchanged(ctx, rounds, partner, value, readers=lambda t: producers <= t.warp < 2 * producers)
    title = f"{rounds} round(s) of producer/consumer warps on named barriers of {count}"
    return Piece(title, [Array(out, (rounds, MAX_GRID * ctx.block), expected=expected)], decls, body)


def grid_barrier(rng: random.Random, ctx: Context) -> Piece:
    """Rounds of a grid barrier over a double buffer in global memory: a thread reads the mark a
    thread of another block wrote in the same round."""
    rounds = rng.randrange(1, 4)
    g, gmark, out = ctx.name("g"), ctx.name("gmark"), ctx.name("out")
    clause = using(rng, rng.choice(GRID_BARRIER_IMPLS))
    value = f"r * 1000 + {value_expr(rng, ctx, 'r')}"
    partner = f"(gtid + {rng.choice([ctx.block, 1, 33])}) % (nbid * ntid)"
    decls = [f"barrier {g} in global @grid{clause}"]
    body = looped("r", rounds, [f"{gmark}[r % 2][gtid] = {value}", f"sync {g}",
                                f"{out}[r][gtid] = {gmark}[r % 2][{partner}]"])
    expected = exchanged(ctx, rounds, partner, value,
                         writer=lambda t, p: Thread(p // ctx.block, p % ctx.block, t.ntid, t.nbid))
    title = f"{rounds} round(s) of grid barrier{clause}"
    arrays = [Array(out, (rounds, MAX_GRID * ctx.block), expected=expected), Array(gmark, (2, MAX_GRID * ctx.block))]
    return Piece(title, arrays, decls, body, acquisitions=ctx.grid * rounds)


def warp_exchange(rng: random.Random, ctx: Context) -> Piece:
    """Lanes exchange values through shared memory, with `syncwarp()` (or a `@warp` barrier
    without a count, `sync lanes`) between the writes and the reads, and again before the next
    round's writes."""
    rounds = rng.randrange(1, 3)
    sw, out = ctx.name("sw"), ctx.name("out")
    decls = [f"shared {sw}: i32[{ctx.block}]"]
    meet = "syncwarp()"
    if rng.random() < 0.4:
        lanes = ctx.name("lanes")
        decls.append(f"barrier {lanes} in shared @warp" + rng.choice(["", " using syncwarp"]))
        meet = f"sync {lanes}"
    shift = rng.choice([1, 5, 16, 31])
    value = f"r * 100 + {value_expr(rng, ctx, 'r')}"
    partner = f"warp * 32 + (lane + {shift}) % 32"
    body = looped("r", rounds, [f"{sw}[tid] = {value}", meet, f"{out}[r][gtid] = {sw}[{partner}]", meet])
    expected = exchanged(ctx, rounds, partner, value)
    title = f"{rounds} round(s) of lane exchange with {meet}"
    return Piece(title, [Array(out, (rounds, MAX_GRID * ctx.block), expected=expected)], decls, body)


# ---- reader-writer locks --------------------------------------------------------------------------

def rwlock(rng: random.Random, ctx: Context) -> Piece:
    """A few writers update a pair of words together; readers check, under `read`, that the two
    words agree, and count the times they do not (must stay 0)."""
    gran = rng.choice(["thread", "thread", "warp"])
    place = rng.choice(["global", "shared"])
    clause = using(rng, rng.choice(RWLOCK_IMPLS))
    rw, pair, bad = ctx.name("rw"), ctx.name("pair"), ctx.name("bad")
    per_block = place == "shared"
    row = "bid" if per_block else "0"
    rows = MAX_GRID if per_block else 1
    if gran == "thread":
        writer = f"tid % {rng.choice([16, 32])} == {rng.randrange(0, 4)}"
        reader = f"lane % {rng.choice([4, 8])} == 5"
        leader = None
    else:
        writer, reader, leader = "warp % 2 == 0", "warp % 2 == 1", "lane == 0"
    decls = [f"rwlock {rw} in {place} @{gran}{clause}"]
    write = guarded(leader, [f"{pair}[{row}][0] = {pair}[{row}][0] + 1", f"{pair}[{row}][1] = {pair}[{row}][1] + 1"])
    read = [f"if {pair}[{row}][0] != {pair}[{row}][1] {{ atomic_add({bad}[{row}], 1) }}"]
    body = [f"if {writer} {{", f"    write {rw} {{"] + [f"        {s}" for s in write] + ["    }",
            f"}} else if {reader} {{", f"    read {rw} {{"] + [f"        {s}" for s in read] + ["    }", "}"]
    expected = np.zeros((rows, 2), dtype=np.int64)
    acquisitions = 0
    for t in ctx.threads():
        env = ctx.env(t)
        if evaluate(writer, env):
            if leader is None or evaluate(leader, env):
                expected[t.bid if per_block else 0] += 1
                acquisitions += 1
        elif evaluate(reader, env):
            acquisitions += 1 if leader is None or t.lane == 0 else 0
    arrays = [Array(pair, (rows, 2), expected=expected), Array(bad, (rows,), expected=np.zeros(rows))]
    return Piece(f"writers and readers on rwlock {place} @{gran}{clause}", arrays, decls, body,
                 acquisitions=acquisitions)


# ---- queues ------------------------------------------------------------------------------------------

QUEUE_IMPLS = ["ring", "locked", None]


def queue_stream(rng: random.Random, ctx: Context) -> Piece:
    """Values through a queue (docs/language.md "Queues"): producers put `per` values each, unique
    over the launch, and consumers take them, counting each in `got`, which must end all ones.
    Consumers take as many values as there are producers' (counted `get`s, or a retry loop of
    `tryget`s), or, on a closable queue, loop `for v in q` until every producer has closed it.
    Who puts and who takes: two warps of a block, lanes of one warp (Fermi rejects that: E0701),
    or two blocks through a global queue; warps and blocks sometimes as @warp or @block parties
    (a shared @warp queue with one warp each side becomes mbarrier stages on ptx); some counted
    gets use `spsc` or `tinylock`, right only with one thread a side. Capacities below, at and above a warp. A producer's puts
    are a loop or written one after another (a put's polling loop must end at its own release,
    not at the next put's: wait_regions.py)."""
    place = rng.choice(["global", "shared"])
    impl = rng.choice(QUEUE_IMPLS)
    clause = f" using {impl}" if impl else ""
    cap = rng.choice([1, 2, 4, 8, 16, 32, 33])
    per = rng.randrange(1, 4)
    blocks = min(ctx.grid, ctx.shape.declared)     # (blocks every launch of the kernel has)
    shapes = ["lanes"] + (["warps", "warps"] if ctx.warps >= 2 else []) + \
        (["blocks", "blocks"] if place == "global" and blocks >= 2 else [])
    shape = rng.choice(shapes)
    lanes = rng.randrange(1, min(16, max(1, 48 // (2 * per))) + 1)
    if shape == "lanes":
        puts, takes = f"lane < {lanes}", f"lane >= 16 && lane < {16 + lanes}"
    elif shape == "warps":
        p, c = rng.sample(range(ctx.warps), 2)
        puts, takes = f"warp == {p} && lane < {lanes}", f"warp == {c} && lane < {lanes}"
    else:
        p, c = rng.sample(range(blocks), 2)
        puts, takes = f"bid == {p} && lane < {lanes}", f"bid == {c} && lane < {lanes}"
    if shape != "blocks":          # a warp's lanes, or two warps, in one block: one of every block,
        w = rng.choice([0, 1] if ctx.warps >= 2 and shape == "lanes" else [0])   # or of block 0 only
        if shape == "lanes":
            puts, takes = f"warp == {w} && {puts}", f"warp == {w} && {takes}"
        if place == "global":
            puts, takes = f"bid == 0 && {puts}", f"bid == 0 && {takes}"
    gran = "thread"
    # whole warps or blocks as parties, decided by an rng of its own: drawing from `rng` would change
    # every program of the fixed batches after this one (tests/app/test_oracle.py)
    parties = random.Random(f"{place}/{impl}/{cap}/{per}/{shape}/{puts}/{takes}").random() < 0.4
    if shape != "lanes" and impl != "locked" and parties:
        gran = "warp" if shape == "warps" else "block"
        puts, takes = (f"warp == {p}", f"warp == {c}") if shape == "warps" else (f"bid == {p}", f"bid == {c}")
        if shape == "warps" and place == "global":
            puts, takes = f"bid == 0 && {puts}", f"bid == 0 && {takes}"
    form = rng.choice(["get", "get", "for", "for", "tryget"]) if impl != "locked" else rng.choice(["get", "tryget"])
    counted = random.Random(f"counted/{place}/{cap}/{per}/{shape}/{puts}/{takes}/{form}")   # (as `parties`)
    if gran == "thread" and form == "get" and counted.random() < 0.3:
        # a queue whose sides count their own tickets: right with one producer and one consumer
        # thread per instance, E0725 with more (and then it hangs or loses values)
        impl = counted.choice(["spsc", "tinylock"] if place == "shared" else ["spsc"])
        clause = f" using {impl}"
    q, got = ctx.name("q"), ctx.name("got")
    producers = [t for t in ctx.threads() if evaluate(puts, ctx.env(t))]
    per_instance: dict[int, set] = {}       # instance → its writers: threads, or parties
    for t in producers:
        key = t.bid if place == "shared" else 0
        party = {"thread": t.gtid, "warp": (t.bid, t.tid // 32), "block": t.bid}[gran]
        per_instance.setdefault(key, set()).add(party)
    writers = max(map(len, per_instance.values()), default=1)
    if form == "for" and len({len(w) for w in per_instance.values()}) > 1:
        form = "get"             # (a block's shared queue counts its own writers: keep them equal)
    args = f"{cap}, writers = {writers}" if form == "for" else f"{cap}"
    decls = [f"queue {q}({args}): i32 in {place} @{gran}{clause}"]
    value = f"gtid * {per} + k"
    if per > 1 and rng.random() < 0.4:     # puts one after another, not in a loop
        produce = [f"put {q} = gtid * {per} + {k}" for k in range(per)]
    else:
        produce = looped("k", per, [f"put {q} = {value}"])
    produce += [f"close {q}"] if form == "for" else []
    if form == "get":
        consume = looped("k", per, [f"let v = get {q}", f"atomic_add({got}[v], 1)"])
    elif form == "for":
        consume = [f"for v in {q} {{", f"    atomic_add({got}[v], 1)", "}"]
    else:
        consume = ["var left = " + str(per), "while left > 0 {",
                   f"    tryget v = {q} {{", f"        atomic_add({got}[v], 1)", "        left -= 1", "    }", "}"]
    body = [f"if {puts} {{"] + [f"    {s}" for s in produce] + [f"}} else if {takes} {{"] + \
        [f"    {s}" for s in consume] + ["}"]
    expected = np.zeros(MAX_GRID * ctx.block * per, dtype=np.int64)
    for t in producers:
        for k in range(per):
            expected[t.gtid * per + k] = 1
    title = f"{form} from queue({cap}) {place} @{gran}{clause}, {shape}, {per} per producer"
    return Piece(title, [Array(got, (MAX_GRID * ctx.block * per,), expected=expected)], decls, body,
                 acquisitions=2 * per * len(producers))


# ---- retry loops, indices near their bounds, waits by block index (`generate(seed, shapes=True)`) ----
#
# The shapes of issue 36: loops that retry one attempt until it succeeds, counted against what
# ends them (exactly enough, one too few, more than a queue holds, several puts per thread into
# a small queue before the gets); indices computed near and past their bounds, and read from
# data the host fills (sometimes with -1, or the length); waits by block index at grids below
# and above what the target holds at once, and the form that takes its place from a counter.
# A piece's title says which variant it is and whether the model finds it short, over full or
# out of bounds ("short", "out of bounds"), so that a finding's shape reads at once.

def retry_loop(attempt: str, form: str, body: list[str] | None = None) -> list[str]:
    """A loop that goes round until `attempt` (a bool expression: `trywait s`, `tryput q = v`)
    succeeds, in one of the three spellings docs/language.md and the hazard corpus use; `body`
    runs once, after the success."""
    body = body or []
    if form == "flag":
        return (["var got = false", "while !got {", f"    if {attempt} {{"] + [f"        {s}" for s in body]
                + ["        got = true", "    }", "}"])
    if form == "assign":
        return ["var got = false", "while !got {", f"    got = {attempt}", "}"] + body
    return ["while true {", f"    if {attempt} {{"] + [f"        {s}" for s in body] + ["        break", "    }", "}"]


TRYWAIT_BOUNDS = ["", "", " for 1", " for 4", " for 8", " for 1 us", " for 2 us", " for 500 ns"]


def retry_wait(rng: random.Random, ctx: Context) -> Piece:
    """Permits of a semaphore taken by loops that retry `trywait` (plain, `for N` attempts, or
    `for T us`) until one attempt succeeds: each waiting thread goes round `rounds` times and
    counts its successes. The posts (and the initial count) are counted against the waits so
    that there are exactly enough, more, or one too few (a waiter goes round for ever: E0705).
    Waiters and posters are two warps of a block, two blocks (global), every block against
    block 0 (global), or lanes of one warp (a spin its own warp must end: E0701 on Fermi)."""
    place = rng.choice(["shared", "global"])
    clause = using(rng, rng.choice(SEMAPHORE_IMPLS[place]))
    bound = rng.choice(TRYWAIT_BOUNDS)
    form = rng.choice(["flag", "assign", "break"])
    count = rng.choice(["exact", "exact", "exact", "more", "short", "short"])
    delta = {"exact": 0, "more": rng.randrange(1, 3), "short": -1}[count]
    initial = rng.choice([0, 0, 0, 1, 2])
    rounds = rng.choice([1, 1, 2])
    shapes = ["same_warp"] + (["warps"] * 3 if ctx.warps >= 2 else []) + \
        (["blocks", "blocks", "from_block0", "from_block0"] if place == "global" and ctx.grid >= 2 else [])
    shape = rng.choice(shapes)
    s, o = ctx.name("s"), ctx.name("o")
    # per instance (a block's shared semaphore, or the launch's global one): `m` waiting threads
    # in each of `blocks_waiting` blocks, `n` posting threads posting `pp` times each, so that
    # initial + n * pp == m * rounds * blocks_waiting + delta
    instances = ctx.grid if place == "shared" else 1
    limit = 16 if shape == "same_warp" else 32
    m = rng.randrange(1, 9) if shape == "from_block0" else rng.randrange(1, limit + 1)
    blocks_waiting = ctx.grid - 1 if shape == "from_block0" else 1
    waits = m * rounds * blocks_waiting
    initial = min(initial, waits + delta)
    posts = waits + delta - initial
    spreads = [pp for pp in range(1, posts + 1) if posts % pp == 0 and posts // pp <= limit]
    pp = rng.choice(spreads) if spreads else 1          # (no spread: posts == 0, nobody posts)
    n = posts // pp
    if shape == "same_warp":
        waiters, posters = f"lane >= 16 && lane < {16 + m}", f"lane < {n}"
        w = rng.randrange(ctx.warps)
        waiters, posters = f"warp == {w} && {waiters}", f"warp == {w} && {posters}"
    elif shape == "warps":
        p, w = rng.sample(range(ctx.warps), 2)
        waiters, posters = f"warp == {w} && lane < {m}", f"warp == {p} && lane < {n}"
    elif shape == "blocks":
        p, b = rng.sample(range(ctx.grid), 2)
        waiters, posters = f"bid == {b} && lane < {m}", f"bid == {p} && warp == 0 && lane < {n}"
        waiters = f"{waiters} && warp == 0"
    else:
        waiters, posters = f"bid != 0 && warp == 0 && lane < {m}", f"bid == 0 && warp == 0 && lane < {n}"
    if place == "global" and shape in ("same_warp", "warps"):
        waiters, posters = f"bid == 0 && {waiters}", f"bid == 0 && {posters}"
    post = [f"post {s}"] if pp == 1 else looped("i", pp, [f"post {s}"])
    wait = retry_loop(f"trywait {s}{bound}", form) + [f"{o}[gtid] = {o}[gtid] + 1"]
    wait = looped("k", rounds, wait) if rounds > 1 else wait
    body = [f"if {waiters} {{"] + [f"    {x}" for x in wait] + ["}"]
    if n:
        body += [f"if {posters} {{"] + [f"    {x}" for x in post] + ["}"]
    decls = [f"semaphore {s}({initial}) in {place} @thread{clause}"]
    expected = np.zeros(MAX_GRID * ctx.block, dtype=np.int64)
    for t in ctx.threads():
        if evaluate(waiters, ctx.env(t)):
            expected[t.gtid] = rounds
    state = {"exact": "exactly enough", "more": f"{delta} more than needed", "short": "one too few: short"}[count]
    title = (f"retry trywait{bound} ({form}) x{rounds} on semaphore({initial}) {place} @thread{clause}, "
             f"{shape}, posts {state}")
    return Piece(title, [Array(o, (MAX_GRID * ctx.block,), expected=expected)], decls, body,
                 acquisitions=instances * (waits + posts))


def retry_queue(rng: random.Random, ctx: Context) -> Piece:
    """Values through a queue whose puts, gets or both are loops retrying `tryput` or `tryget`
    until an attempt succeeds (`while true { if tryput q = v { break } }`, `done = tryput q = v`
    in a `while !done`, `tryget v = q { ...; got = true }`), or blocking on the other side.
    Producers put `per` values each and consumers take `takes` each, counted so that the gets
    match the puts exactly, the puts exceed the gets by no more than the queue holds (values left
    in it), or there is one value too few for the gets, or more puts than the gets and the
    capacity can take (a retry goes round for ever: E0705). Who: two warps of a block, two
    blocks (global), or lanes of one warp (E0701 on Fermi). The consumers count each value they
    take in `got` and a value taken twice in `dup`."""
    place = rng.choice(["global", "shared"])
    impl = rng.choice(QUEUE_IMPLS)
    clause = f" using {impl}" if impl else ""
    cap = rng.choice([1, 2, 4, 8, 32])
    put_form = rng.choice(["flag", "assign", "break", "break", "blocking"])
    get_form = rng.choice(["flag", "break", "blocking"] if put_form != "blocking" else ["flag", "break"])
    count = rng.choice(["exact", "exact", "exact", "left", "short", "over"])
    shapes = (["warps", "warps"] if ctx.warps >= 2 else []) + ["lanes"] + \
        (["blocks", "blocks"] if place == "global" and ctx.grid >= 2 else [])
    shape = rng.choice(shapes)
    per = rng.randrange(1, 4)
    producers = rng.randrange(1, 9)
    puts = producers * per
    gets = {"exact": puts, "left": max(1, puts - rng.randrange(1, cap + 1)), "short": puts + 1,
            "over": max(0, puts - cap - 1)}[count]
    if gets == 0:                           # (nobody takes: every value beyond the capacity waits)
        count = "over" if puts > cap else "left"
    takes = rng.choice([d for d in range(1, 4) if gets % d == 0] or [1]) if gets else 0
    consumers = gets // takes if takes else 0
    if consumers > 16:
        takes, consumers = gets, 1
    if shape == "lanes":
        w = rng.randrange(ctx.warps)
        puts_g, takes_g = f"warp == {w} && lane < {producers}", f"warp == {w} && lane >= 16 && lane < {16 + consumers}"
    elif shape == "warps":
        p, c = rng.sample(range(ctx.warps), 2)
        puts_g, takes_g = f"warp == {p} && lane < {producers}", f"warp == {c} && lane < {consumers}"
    else:
        p, c = rng.sample(range(ctx.grid), 2)
        puts_g, takes_g = f"bid == {p} && warp == 0 && lane < {producers}", f"bid == {c} && warp == 0 && lane < {consumers}"
    if place == "global" and shape != "blocks":
        puts_g, takes_g = f"bid == 0 && {puts_g}", f"bid == 0 && {takes_g}"
    q, got, dup = ctx.name("q"), ctx.name("got"), ctx.name("dup")
    value = f"gtid * {per} + k"
    if put_form == "blocking":
        produce = [f"put {q} = {value}"]
    else:
        produce = retry_loop(f"tryput {q} = {value}", put_form)
    produce = looped("k", per, produce) if per > 1 else [x.replace(" + k", "") for x in produce]
    count_it = [f"if atomic_add({got}[v], 1) != 0 {{ atomic_add({dup}[0], 1) }}"]
    if get_form == "blocking":
        consume = [f"let v = get {q}"] + count_it
    elif get_form == "flag":
        consume = ["var got = false", "while !got {", f"    tryget v = {q} {{"] + [f"        {s}" for s in count_it] + \
            ["        got = true", "    }", "}"]
    else:
        consume = ["while true {", f"    tryget v = {q} {{"] + [f"        {s}" for s in count_it] + \
            ["        break", "    }", "}"]
    consume = looped("k", takes, consume) if takes > 1 else consume if takes else []
    body = [f"if {puts_g} {{"] + [f"    {s}" for s in produce] + ["}"]
    if consume:
        body += [f"if {takes_g} {{"] + [f"    {s}" for s in consume] + ["}"]
    decls = [f"queue {q}({cap}): i32 in {place} @thread{clause}"]
    size = MAX_GRID * ctx.block * per
    expected = np.zeros(size, dtype=np.int64)
    makers = [t for t in ctx.threads() if evaluate(puts_g, ctx.env(t))]
    for t in makers:
        for k in range(per):
            expected[t.gtid * per + k] = 1
    taken = sum(1 for t in ctx.threads() if evaluate(takes_g, ctx.env(t))) * takes
    arrays = [Array(got, (size,), expected=expected if count == "exact" else None), Array(dup, (1,), expected=np.zeros(1))]
    checks = [] if count == "exact" else [(f"sum({got}) == {taken}", f"{taken} values taken")]
    state = {"exact": "exactly as many gets as puts", "left": f"{puts - gets} values left in the queue",
             "short": "one value too few for the gets: short", "over": "more puts than gets and capacity: short"}[count]
    title = (f"retry queue: {'put' if put_form == 'blocking' else 'retry tryput (' + put_form + ')'} / "
             f"{'get' if get_form == 'blocking' else 'retry tryget (' + get_form + ')'} on queue({cap}) {place} @thread{clause}, "
             f"{shape}, {producers} x {per} puts, {consumers} x {takes} gets: {state}")
    return Piece(title, arrays, decls, body, checks, acquisitions=2 * len(makers) * per + taken)


def retry_interleaved(rng: random.Random, ctx: Context) -> Piece:
    """`threads` threads each retry `tryput` until each of its `per` values is in, then take `per`
    values (tests/hazards/tryput_retry_interleaved.sync): taking turns they can fill the queue
    between them while each still has a value to put, and then each waits for room only the
    others' gets would make. That can happen when threads * (per - 1) >= capacity (E0720);
    below it, some thread always finishes its puts and drains. The threads are in different
    warps of a block (a shared queue), in different blocks (global), or lanes of one warp (on
    Fermi those also need room for every value the warp puts: a lane whose attempt fails spins
    while the others wait at the loop's end for it, E0701)."""
    place = rng.choice(["global", "shared"])
    impl = rng.choice(QUEUE_IMPLS)
    clause = f" using {impl}" if impl else ""
    cap = rng.choice([1, 2, 4, 4, 8])
    per = rng.randrange(1, 5)
    form = rng.choice(["flag", "assign", "break"])
    options = (["warps"] if ctx.warps >= 2 else []) + ["lanes"] + (["blocks"] if place == "global" and ctx.grid >= 2 else [])
    shape = rng.choice(options)
    most = {"warps": ctx.warps, "lanes": 4, "blocks": ctx.grid}[shape]
    n = rng.randrange(2, most + 1) if most >= 2 else 2
    who = {"warps": f"lane == 0 && warp < {n}", "lanes": f"warp == 0 && lane < {n}",
           "blocks": f"tid == 0 && bid < {n}"}[shape]
    if place == "global" and shape != "blocks":
        who = f"bid == 0 && {who}"
    q, got = ctx.name("q"), ctx.name("got")
    body = [f"if {who} {{"]
    body += [f"    {s}" for s in looped("i", per, retry_loop(f"tryput {q} = gtid * {per} + i", form))]
    body += [f"    {s}" for s in looped("i", per, [f"let v = get {q}", f"atomic_add({got}[v], 1)"])] + ["}"]
    decls = [f"queue {q}({cap}): i32 in {place} @thread{clause}"]
    size = MAX_GRID * ctx.block * per
    expected = np.zeros(size, dtype=np.int64)
    members = [t for t in ctx.threads() if evaluate(who, ctx.env(t))]
    for t in members:
        for i in range(per):
            expected[t.gtid * per + i] = 1
    stuck = n * (per - 1) >= cap
    title = (f"{n} {shape} each retry {per} tryput ({form}) then {per} get on queue({cap}) {place} @thread{clause}: "
             + ("they can fill it between them: short" if stuck else "they cannot fill it between them"))
    return Piece(title, [Array(got, (size,), expected=expected)], decls, body, acquisitions=2 * per * len(members))


def index_computed(rng: random.Random, ctx: Context) -> Piece:
    """Indices computed from thread indices and loop counters, near their array's bounds: a read
    `k` elements on (`a[tid + k]`), the left neighbour (`buf[tid - 1]`, shared or global), a lock
    per thread with fewer locks than threads (`locks[tid]` against `locks[tid % n]`), and a loop
    that writes `K` values per thread (`out[gtid * K + i]`, one round too many). Each is written
    within bounds (the array sized to reach exactly the last element, a guard, `%`, `min`, `max`)
    or past them (no guard, a guard off by one, one round or element too many), which the model
    finds before the program is written: the title then says "out of bounds" (E0726)."""
    kind = rng.choice(["shift", "shift", "left", "left", "locks", "locks", "rounds"])
    bad = rng.random() < 0.4
    out = ctx.name("out")
    threads_ = list(ctx.threads())
    expected = np.zeros(MAX_GRID * ctx.block, dtype=np.int64)
    arrays: list[Array] = []
    decls: list[str] = []
    checks: list[tuple[str, str]] = []
    acquisitions = 0

    def oob(index: str, size: int, guard: str | None, env_of=ctx.env) -> bool:
        return any((guard is None or evaluate(guard, env_of(t))) and not 0 <= evaluate(index, env_of(t)) < size
                   for t in threads_)

    if kind == "shift":
        k = rng.randrange(1, 5)
        b = ctx.block
        forms = [("exact", None, "tid + k", b + k), ("guard", "tid + k < S", "tid + k", b),
                 ("min", None, "min(tid + k, S - 1)", b), ("mod", None, "(tid + k) % S", b)]
        if bad:
            forms = [("exact", None, "tid + k", b + k - 1), ("guard", "tid + k <= S", "tid + k", b),
                     ("min", None, "min(tid + k, S)", b)]
        form, guard, index, size = rng.choice(forms)
        guard = guard and guard.replace("S", str(size)).replace("k", str(k))
        index = index.replace("S", str(size)).replace("k", str(k))
        a = input_array(rng, ctx, "a", 100, size)
        arrays.append(a)
        body = guarded(guard, [f"{out}[gtid] = {a.name}[{index}]"])
        for t in threads_:
            env = env_with_inputs(ctx, t, [a])
            if (guard is None or evaluate(guard, env)) and 0 <= evaluate(index, env) < size:
                expected[t.gtid] = env[a.name][evaluate(index, env)]
        what = f"a[{index}] of {size} ({form}{', if ' + guard if guard else ''})"
        bad = oob(index, size, guard)
    elif kind == "left":
        place = rng.choice(["shared", "global"])
        forms = [("guard", "tid > 0", "tid - 1"), ("max", None, "max(tid - 1, 0)"), ("wrap", None, f"(tid + {ctx.block - 1}) % {ctx.block}")]
        if bad:
            forms = [("none", None, "tid - 1"), ("guard", "tid >= 0", "tid - 1"), ("max", None, "max(tid, 1) - 2")]
        form, guard, index = rng.choice(forms)
        a = input_array(rng, ctx, "a", 100)
        arrays.append(a)
        if place == "shared":
            buf = ctx.name("buf")
            decls.append(f"shared {buf}: i32[{ctx.block}]")
            body = [f"{buf}[tid] = {a.name}[gtid]", "barrier"]
            read = f"{buf}[{index}]"
        else:
            read = f"{a.name}[bid * {ctx.block} + {index}]"        # within the block's row of `a`
            body = []
        left = ctx.name("left")
        body += [f"var {left} = 0"] + guarded(guard, [f"{left} = {read}"]) + [f"{out}[gtid] = {left} + 1"]
        for t in threads_:
            env = env_with_inputs(ctx, t, [a])
            if guard is None or evaluate(guard, env):
                j = evaluate(index, env)
                expected[t.gtid] = (env[a.name][t.bid * ctx.block + j] if 0 <= j < ctx.block else 0) + 1
            else:
                expected[t.gtid] = 1
        what = f"{place} left neighbour [{index}] ({form}{', if ' + guard if guard else ''})"
        if place == "global":
            # out of bounds only below the whole array, which block 0's thread 0 reaches
            bad = any((guard is None or evaluate(guard, ctx.env(t))) and t.bid * ctx.block + evaluate(index, ctx.env(t)) < 0
                      for t in threads_)
        else:
            bad = oob(index, ctx.block, guard)
    elif kind == "locks":
        place = rng.choice(["global", "global", "shared"])
        clause = using(rng, rng.choice(MUTEX_IMPLS[place, "thread"]), "mutex")
        span = rng.choice([16, 24, 32, 48])                  # threads of each block that lock
        span = min(span, ctx.block)
        n = rng.randrange(max(1, span // 4), span + 1)       # locks: often fewer than the threads
        forms = [("mod", None, f"tid % {n}"), ("guard", f"tid < {n}", "tid")]
        if n >= span:
            forms.append(("per thread", None, "tid"))
        if bad and n < span:
            forms = [("per thread", None, "tid"), ("guard", f"tid <= {n}", "tid")]
        elif bad:
            forms = [("guard", f"tid <= {n}", "tid")]
        form, guard, index = rng.choice(forms)
        who = f"tid < {span}"
        guard = who if guard is None else f"{who} && {guard}"
        locks, cnt = ctx.name("locks"), ctx.name("cnt")
        rows = MAX_GRID if place == "shared" else 1
        row = "[bid]" if place == "shared" else ""
        decls.append(f"mutex {locks}[{n}] in {place} @thread{clause}")
        cell = f"{cnt}{row}[{index}]"
        body = guarded(guard, [f"critical {locks}[{index}] {{", f"    {cell} = {cell} + 1", "}"])
        counts = np.zeros((rows, n + 1), dtype=np.int64)      # (+1: where an index one past lands)
        for t in threads_:
            env = ctx.env(t)
            if evaluate(guard, env):
                j = evaluate(index, env)
                counts[t.bid if place == "shared" else 0, min(j, n)] += 1
                acquisitions += 1
        if place == "shared":
            arrays.append(Array(cnt, (rows, n), expected=counts[:, :n] if counts[:, n].sum() == 0 else None))
        else:
            arrays.append(Array(cnt, (n,), expected=counts[0, :n] if counts[0, n] == 0 else None))
        what = f"mutex {place} @thread{clause} locks[{index}] of {n} for {span} threads ({form}, if {guard})"
        bad = oob(index, n, guard)
    else:
        per = rng.randrange(2, 6)
        rounds = per + 1 if bad else per
        size = ctx.grid * ctx.block * per
        w = ctx.name("w")
        value = f"gtid * 100 + i"
        body = looped("i", rounds, [f"{w}[gtid * {per} + i] = {value}"])
        vals = np.zeros(size, dtype=np.int64)
        for t in threads_:
            for i in range(per):
                vals[t.gtid * per + i] = t.gtid * 100 + i
        arrays.append(Array(w, (size,), expected=None if rounds > per else vals))
        body.append(f"{out}[gtid] = 1")
        expected[:ctx.grid * ctx.block] = 1
        what = f"{rounds} rounds of out[gtid * {per} + i] over {size} elements"
        bad = rounds > per
    title = f"index {kind}: {what}" + (": out of bounds" if bad else "")
    arrays.insert(0, Array(out, (MAX_GRID * ctx.block,), expected=expected))
    return Piece(title, arrays, decls, body, checks, acquisitions=acquisitions)


def index_data(rng: random.Random, ctx: Context) -> Piece:
    """Indices read from an array the host fills: a histogram (`atomic_add(hist[j], 1)`), a
    gather (`out[gtid] = table[j]`) or a lock chosen by data (`critical locks[j]`), with
    `j = idx[gtid]`. The data stays in range, or holds a -1 or the length for some threads; the
    access is then unguarded, guarded (`if j >= 0 && j < N`) or clamped (`min(max(j, 0), N - 1)`).
    Nothing static decides such an index: an access outside the array must be stopped at run
    time (docs/diagnostics.md E0726: the kernel stops with a located error), so the title says
    "out of bounds" where the model finds a running thread's index outside."""
    use = rng.choice(["hist", "hist", "gather", "lock"])
    n = rng.choice([4, 8, 13, 16, 32])
    data = rng.choice(["in range", "in range", "with -1", "with the length"])
    access = rng.choice(["plain", "plain", "guard", "clamp"])
    a, b, c = rng.randrange(1, 13), rng.randrange(0, 17), rng.randrange(0, 29)
    size = MAX_GRID * ctx.block
    fill = {"in range": f"(i * i * {a} + i * {b} + {c}) % {n}",
            "with -1": f"(i * i * {a} + i * {b} + {c}) % {n + 1} - 1",
            "with the length": f"(i * i * {a} + i * {b} + {c}) % {n + 1}"}[data]
    idx, out = ctx.name("idx"), ctx.name("out")
    idx_array = Array(idx, (size,), fill=fill)
    guard = {"gather": None, "hist": None, "lock": None}[use]
    if use == "lock":
        lanes = rng.randrange(1, 5)
        guard = rng.choice([f"lane < {lanes}", f"tid % 32 == {rng.randrange(32)}"])
    j = ctx.name("j")
    index = {"plain": j, "guard": j, "clamp": f"min(max({j}, 0), {n - 1})"}[access]
    inner_guard = f"{j} >= 0 && {j} < {n}" if access == "guard" else None
    decls: list[str] = []
    arrays = [idx_array]
    if use == "hist":
        hist = ctx.name("hist")
        op = [f"atomic_add({hist}[{index}], 1)"]
    elif use == "gather":
        table = input_array(rng, ctx, "table", 100, n)
        arrays.append(table)
        op = [f"{out}[gtid] = {table.name}[{index}] + 1"]
    else:
        locks, cnt = ctx.name("locks"), ctx.name("cnt")
        place = rng.choice(["global", "global", "shared"])
        clause = using(rng, rng.choice(MUTEX_IMPLS[place, "thread"]), "mutex")
        decls.append(f"mutex {locks}[{n}] in {place} @thread{clause}")
        cell = f"{cnt}{'[bid]' if place == 'shared' else ''}[{index}]"      # a shared mutex guards its block's row
        op = [f"critical {locks}[{index}] {{", f"    {cell} = {cell} + 1", "}"]
    body = guarded(guard, [f"let {j} = {idx}[gtid]"] + guarded(inner_guard, op))
    per_block = use == "lock" and place == "shared"
    counts = np.zeros((MAX_GRID if per_block else 1, n), dtype=np.int64)
    gathered = np.zeros(size, dtype=np.int64)
    outside = 0
    acquisitions = 0
    for t in ctx.threads():
        env = env_with_inputs(ctx, t, arrays)
        if guard is not None and not evaluate(guard, env):
            continue
        env[j] = env[idx][t.gtid]
        if inner_guard is not None and not evaluate(inner_guard, env):
            continue
        k = evaluate(index, env)
        if not 0 <= k < n:
            outside += 1
            continue
        acquisitions += 1
        counts[t.bid if per_block else 0, k] += 1
        if use == "gather":
            gathered[t.gtid] = env[table.name][k] + 1
    if use == "hist":
        arrays.insert(0, Array(hist, (n,), expected=counts[0]))
    elif use == "gather":
        arrays.insert(0, Array(out, (size,), expected=gathered))
    else:
        arrays.insert(0, Array(cnt, counts.shape if per_block else (n,), expected=counts if per_block else counts[0]))
    title = f"data index {use} of {n}, idx {data}, {access}" + (
        f"{'' if use != 'lock' else ' (mutex ' + place + ' @thread' + clause + ')'}") + \
        (f": out of bounds ({outside} threads)" if outside else "")
    return Piece(title, arrays, decls, body, acquisitions=acquisitions if use == "lock" else 0)


# What the targets hold at once (syncc/ir/machine_model.py `co_resident_blocks`; docs/targets.md):
# blocks per SM are limited by a maximum and by the threads an SM holds, times the SMs. Written
# out here, not imported, so that a batch's programs stay a function of its seed alone.
FERMI_RESIDENCY = (15, 8, 1536)          # SMs, blocks per SM, threads per SM
H100_RESIDENCY = (132, 32, 2048)


def co_resident(block: int, machine=FERMI_RESIDENCY) -> int:
    sms, blocks, threads = machine
    return sms * min(blocks, max(1, threads // block))


def residency_shape(rng: random.Random) -> Shape:
    """The launch of a kernel of waits by block index: blocks of 32 threads mostly (so a grid
    past what the simulated Fermi holds at once, 120 blocks, stays cheap), sometimes 64 or 256
    (90 at once); a grid of a few blocks, one that fits at once on Fermi, or one up to 16 blocks
    past it (which still fits an H100: 4,224 blocks of 32 threads). Above co-residency on the
    H100 would take thousands of blocks, minutes a schedule on the simulator: not generated.
    The grid is given at the launch, and sometimes also in the header."""
    block = rng.choice([32, 32, 32, 64, 256])
    fit = co_resident(block)
    regime = rng.choice(["few", "few", "fits", "beyond", "beyond"])
    grid = {"few": lambda: rng.randrange(2, 9), "fits": lambda: rng.randrange(9, fit + 1),
            "beyond": lambda: rng.randrange(fit + 1, fit + 17)}[regime]()
    return Shape(block, grid if rng.random() < 0.3 else None, grid)


BLOCK_WAITS = [("prev_flag", 3), ("prev_channel", 3), ("block0_channel", 2), ("block0_flag", 1),
               ("block0_semaphore", 2), ("next_channel", 2), ("next_flag", 1), ("queue_takers_first", 2),
               ("queue_putters_first", 2), ("ticket_flag", 3), ("ticket_channel", 2)]


def block_order(rng: random.Random, ctx: Context) -> Piece:
    """Waits by block index, thread 0 of each block doing a few operations: block b adds its
    term to what block b - 1 passed on (a flag and `load_cg` spin, or a global channel slot), or
    to what block b + 1 passed on, or waits for block 0 (a channel slot, a flag, a semaphore
    posted once per other block, taken by `wait` or a retry loop); a global queue whose first
    half of the blocks take what the second half puts, or the other way round; and the correct
    form at any grid, where each block takes its place in the chain from a counter when it
    starts (`ticket[0] = atomic_add(next[0], 1)`, a block barrier, `let tile = ticket[0]`).
    Past what the target holds at once, a wait that only another block can end is E0727 (a
    backward one still runs on the simulator, which starts blocks in index order; a forward
    one, or takers that fill the machine, hangs there)."""
    grid = ctx.grid
    shape = rng.choices([w for w, _ in BLOCK_WAITS], [n for _, n in BLOCK_WAITS])[0]
    a, c, m = rng.randrange(1, 9), rng.randrange(0, 9), rng.choice([7, 11, 13])
    term = lambda x: f"({x} * {a} + {c}) % {m} + 1"          # noqa: E731 - a block's (or tile's) own term
    f = lambda x: (x * a + c) % m + 1                        # noqa: E731
    sums, flag, acc = ctx.name("sums"), ctx.name("flag"), ctx.name("acc")
    last = rng.choice([f"{grid - 1}", "nbid - 1"])
    decls: list[str] = []
    arrays: list[Array] = []
    expected_sums = np.zeros(grid, dtype=np.int64)
    chain_clause = using(rng, rng.choice(CHANNEL_IMPLS["global", "thread"]))
    link = ctx.name("link")
    who = "bid"
    if shape.startswith("ticket"):
        ticket, nxt = ctx.name("ticket"), ctx.name("next")
        decls.append(f"shared {ticket}: i32[1]")
        arrays.append(Array(nxt, (1,), expected=np.array([grid])))
        who = ctx.name("tile")
        head = [f"if tid == 0 {{ {ticket}[0] = atomic_add({nxt}[0], 1) }}", "barrier", f"let {who} = {ticket}[0]"]
    else:
        head = []
    if shape in ("prev_flag", "next_flag", "ticket_flag"):
        step = "+ 1" if shape == "next_flag" else "- 1"
        has = f"{who} < {last}" if shape == "next_flag" else f"{who} > 0"
        body = head + ["if tid == 0 {", f"    var {acc} = {term(who)}", f"    if {has} {{",
                       f"        while load_cg({flag}[{who} {step}]) == 0 {{ }}",
                       f"        {acc} += load_cg({sums}[{who} {step}])", "    }",
                       f"    {sums}[{who}] = {acc}", "    fence gpu", f"    atomic_exch({flag}[{who}], 1)", "}"]
        arrays.append(Array(flag, (grid,), expected=np.ones(grid)))
    elif shape in ("prev_channel", "next_channel", "ticket_channel"):
        step = "+ 1" if shape == "next_channel" else "- 1"
        has = f"{who} < {last}" if shape == "next_channel" else f"{who} > 0"
        decls.append(f"channel {link}[{grid}]: i32 in global @thread{chain_clause}")
        got = ctx.name("got")
        body = head + ["if tid == 0 {", f"    var {acc} = {term(who)}", f"    if {has} {{",
                       f"        let {got} = get {link}[{who} {step}]", f"        {acc} += {got}", "    }",
                       f"    put {link}[{who}] = {acc}", f"    {sums}[{who}] = {acc}", "}"]
    if shape in ("prev_flag", "prev_channel", "ticket_flag", "ticket_channel"):
        total = 0
        for b in range(grid):
            total += f(b)
            expected_sums[b] = total
    elif shape in ("next_flag", "next_channel"):
        total = 0
        for b in reversed(range(grid)):
            total += f(b)
            expected_sums[b] = total
    first = rng.randrange(1, 50)
    if shape.startswith("block0"):
        for b in range(grid):
            expected_sums[b] = first if b == 0 else first + f(b)
        if shape == "block0_channel":
            start = ctx.name("start")
            decls.append(f"channel {start}[1]: i32 in global @thread{chain_clause}")
            got = ctx.name("got")
            body = ["if tid == 0 {", f"    if bid == 0 {{", f"        put {start}[0] = {first}", f"        {sums}[0] = {first}",
                    "    } else {", f"        let {got} = get {start}[0]", f"        {sums}[bid] = {got} + {term('bid')}", "    }", "}"]
        elif shape == "block0_flag":
            data = ctx.name("data")
            arrays += [Array(flag, (1,), expected=np.ones(1)), Array(data, (1,), expected=np.array([first]))]
            body = ["if tid == 0 {", "    if bid == 0 {", f"        {data}[0] = {first}", f"        {sums}[0] = {first}",
                    "        fence gpu", f"        atomic_exch({flag}[0], 1)", "    } else {",
                    f"        while load_cg({flag}[0]) == 0 {{ }}",
                    f"        {sums}[bid] = load_cg({data}[0]) + {term('bid')}", "    }", "}"]
        else:
            go, data = ctx.name("go"), ctx.name("data")
            clause = using(rng, rng.choice(SEMAPHORE_IMPLS["global"]))
            decls.append(f"semaphore {go}(0) in global @thread{clause}")
            arrays.append(Array(data, (1,), expected=np.array([first])))
            wait = [f"wait {go}"] if rng.random() < 0.5 else retry_loop(f"trywait {go}{rng.choice(TRYWAIT_BOUNDS)}",
                                                                        rng.choice(["flag", "assign", "break"]))
            body = ["if tid == 0 {", "    if bid == 0 {", f"        {data}[0] = {first}", f"        {sums}[0] = {first}",
                    f"        for i in 0 .. {last} {{ post {go} }}", "    } else {"] + [f"        {s}" for s in wait] + \
                   [f"        {sums}[bid] = {data}[0] + {term('bid')}", "    }", "}"]
            shape += f" ({wait[0] if len(wait) == 1 else 'retry trywait'}{clause})"
    if shape.startswith("queue"):
        half = grid // 2
        cap = rng.choice([1, 2, 4, 16, 64, 256])
        q, got = ctx.name("q"), ctx.name("got")
        decls.append(f"queue {q}({cap}): i32 in global @thread{using(rng, rng.choice(QUEUE_IMPLS))}")
        take = [f"let v = get {q}", f"atomic_add({got}[v], 1)"]
        give = [f"put {q} = bid"]
        first_half, second_half = (take, give) if shape == "queue_takers_first" else (give, take)
        body = ["if tid == 0 {", f"    if bid < {half} {{"] + [f"        {s}" for s in first_half] + \
               ["    } else if bid < " + f"{2 * half} {{"] + [f"        {s}" for s in second_half] + ["    }", "}"]
        expected = np.zeros(grid, dtype=np.int64)
        givers = range(half, 2 * half) if shape == "queue_takers_first" else range(half)
        expected[list(givers)] = 1
        arrays.append(Array(got, (grid,), expected=expected))
        shape += f" (queue({cap}), {half} blocks a side)"
    else:
        arrays.insert(0, Array(sums, (grid,), expected=expected_sums))
    fit = co_resident(ctx.block)
    where = (f"fits Fermi at once ({fit})" if grid <= fit else
             f"past Fermi's {fit} at once, within the H100's {co_resident(ctx.block, H100_RESIDENCY)}")
    title = f"waits by block index: {shape}, {grid} blocks of {ctx.block}: {where}"
    return Piece(title, arrays, decls, body, acquisitions=grid)
