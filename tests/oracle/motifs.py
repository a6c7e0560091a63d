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
    # every program of the fixed batches after this one (tests/test_oracle.py)
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
