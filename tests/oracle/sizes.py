"""Generated programs with size parameters: the size batch (`generate(seed, sizes=True)`,
`run.py --sizes`, programs named genn_...).

A size program has one kernel that declares the configurations it supports (docs/language.md §8
"What a kernel supports"): a range of grids, a size `n: i32 in lo .. hi` that its arrays' lengths,
loop bounds and counts come from, and sometimes a count of rounds `r` (a range or a list):

    kernel k0(n: i32 in 1 .. 200, r: i32 in [1, 2, 4], k0p0_cnt: global i32[n], ...)
        launch grid(1 .. 9) block(64)

Its host block starts with the configuration, one `let` per dimension (`let oracle_grid = 3`,
`let n = 57`, `let r = 2`: the lines declared.py rewrites to run other configurations), makes
the arrays at those sizes, launches, and then computes the expected outputs itself, in host code,
from the same `n`, `r` and grid: the checks hold at every configuration of the declaration, not
at one. (The generator therefore evaluates nothing in Python: the reference is the host block's.)

The motifs are the synchronization of the other batches with their counts and extents made of the
sizes: per-element locks over `[n]`, a semaphore posted once per element, a queue whose puts and
gets count the elements, rounds (`r`) of a grid or block barrier over `[n]`, and a chain through
the slots of a channel as long as the elements. The threads past `n` do nothing but meet, and the
elements past the launch's threads stay 0; the host's reference says both. Primitive arrays and
latch counts must be constants (E0301), so locks and slots are declared for the largest `n`.

A quarter of the semaphore and queue pieces (FLAWED) count their waits as if one block, or every
element, had a producer (`n` waits where `min(n, nbid * ntid)` posts come): a hazard only at the
configurations where n passes the threads, which the analyses must find across the declaration
(E0705 naming one), and none where n never does, which they must accept. The title says which
("short where ...", "right: ..."), and the host starts at a configuration where it bites, so a
run there shows the hang.

`generate(seed, sizes=True)` draws from random.Random(seed) as the other batches do; no other
batch draws from this module, so they stay as they were.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .motifs import GRID_BARRIER_IMPLS, MUTEX_IMPLS, SEMAPHORE_IMPLS, using

GRID_ENDS = [2, 3, 5, 9]               # a kernel declares grid(1 .. H): 1 to H - 1 blocks
SIZE_ENDS = [17, 33, 65, 129, 200, 300]
SIZE_STARTS = [1, 1, 1, 2, 32]
BLOCK_SIZES = [32, 64, 64, 96, 128]
ROUNDS = ["1 .. 4", "[1, 2, 4]", "1 .. 3"]
# the share of semaphore and queue pieces whose count leaves out the threads the launch has (waits
# `n` times where `min(n, nbid * ntid)` are posted): a hazard only at some configurations of the
# declaration (the analyses must reject it), or at none where n never passes the threads (they
# must accept it). Drawn from an rng of the piece's own, so that the other programs stay as they were
FLAWED = 0.25

# the built-in values a kernel's expression uses, and what the host's reference loop calls them
# (a host block cannot name a built-in: E0105); nbid and ntid become the launch's grid and block
_BUILTINS = re.compile(r"\b(tid|gtid|bid|lane|warp)\b")


def on_host(expr: str, block: int) -> str:
    """A kernel expression as the host's reference loop writes it."""
    expr = _BUILTINS.sub(r"h_\1", expr)
    return re.sub(r"\bntid\b", str(block), re.sub(r"\bnbid\b", "oracle_grid", expr))


@dataclass(frozen=True)
class Dimension:
    """A declared scalar parameter: its name and the values it takes, `lo .. hi` (half-open, as in
    the language) or a list."""
    name: str
    lo: int = 0
    hi: int = 0
    values: tuple[int, ...] = ()

    def declaration(self) -> str:
        taken = f"[{', '.join(map(str, self.values))}]" if self.values else f"{self.lo} .. {self.hi}"
        return f"{self.name}: i32 in {taken}"

    def draw(self, rng: random.Random) -> int:
        return rng.choice(self.values) if self.values else rng.randrange(self.lo, self.hi)


@dataclass
class SizedArray:
    """A global i32 array whose dimensions are constants or the size `n`; an output is compared
    with the host's `want_NAME`, which the piece's reference fills."""
    name: str
    dims: tuple[int | str, ...] = ("n",)
    output: bool = True

    def param(self) -> str:
        return f"{self.name}: global i32" + "".join(f"[{d}]" for d in self.dims)

    def shape(self) -> str:
        return str(self.dims[0]) if len(self.dims) == 1 else "[" + ", ".join(map(str, self.dims)) + "]"


@dataclass
class SizedPiece:
    title: str
    arrays: list[SizedArray]
    decls: list[str]
    body: list[str]
    reference: list[str]           # host statements filling each output's want_NAME
    rounds: bool = False           # the piece uses the kernel's `r`
    # a flawed count (below): the configuration where it leaves a wait that never ends, which the
    # host block then starts with; None where the piece is right across the declaration
    bites: dict[str, int] | None = None


@dataclass
class SizedContext:
    prefix: str
    block: int
    grid_hi: int                   # grid(1 .. grid_hi)
    size: Dimension                # n
    rounds: Dimension | None       # r, where the kernel declares it

    @property
    def warps(self) -> int:
        return self.block // 32

    def name(self, base: str) -> str:
        return f"{self.prefix}_{base}"


def per_thread(ctx: SizedContext, body: list[str]) -> list[str]:
    """Host statements running `body` once for every thread of the launch, with h_bid, h_tid,
    h_gtid, h_lane and h_warp bound as the kernel's built-ins are."""
    b = ctx.block
    return ["for h_bid in 0 .. oracle_grid {", f"    for h_tid in 0 .. {b} {{",
            f"        let h_gtid = h_bid * {b} + h_tid", "        let h_lane = h_tid % 32",
            "        let h_warp = h_tid / 32"] + [f"        {s}" for s in body] + ["    }", "}"]


def indent(lines: list[str], by: str = "    ") -> list[str]:
    return [by + s for s in lines]


def rounds_of(rng: random.Random, ctx: SizedContext) -> tuple[str, bool]:
    """A loop count: the kernel's `r`, or a constant."""
    if ctx.rounds is not None and rng.random() < 0.7:
        return "r", True
    return str(rng.randrange(1, 3)), False


def element_value(rng: random.Random, var: str = "gtid", loop: str = "0") -> str:
    """A small non-negative value of an element's number and a loop index."""
    return rng.choice([f"({var} * 7 + {loop}) % 11 + 1", f"{var} % 13 + {loop}", f"({var} * {var} + 3) % 17",
                       f"{var} + 1"])


# ---- the motifs ---------------------------------------------------------------------------------

def locked_elements(rng: random.Random, ctx: SizedContext) -> SizedPiece:
    """Per-element locks over `[n]`: a few threads of each block add to the elements `(gtid * a +
    k) % n` with a plain load and store under the element's lock (the mutex array is declared for
    the largest n), `r` or a constant number of times. A missing lock loses an update."""
    place = rng.choice(["global", "global", "shared"])
    impl = rng.choice(MUTEX_IMPLS[place, "thread"])
    form = rng.choice(["critical", "critical", "lock"])
    m, cnt = ctx.name("m"), ctx.name("cnt")
    guard = rng.choice([f"tid < {rng.randrange(1, 4)}", f"lane == {rng.randrange(32)}",
                        f"tid % 32 == {rng.randrange(32)} && warp < 2"])
    loops, uses_r = rounds_of(rng, ctx)
    index = f"(gtid * {rng.choice([1, 3, 7, 31])} + k * {rng.choice([1, 5])}) % n"
    value = element_value(rng, "gtid", "k")
    per_block = place == "shared"          # a shared lock array is one per block: so are its counters
    rows = ctx.grid_hi - 1
    cell = f"{cnt}[bid][c]" if per_block else f"{cnt}[c]"
    clause = using(rng, impl, "mutex")
    decls = [f"mutex {m}[{ctx.size.hi - 1}] in {place} @thread{clause}"]
    update = [f"{cell} = {cell} + {value}"]
    section = ([f"critical {m}[c] {{"] + indent(update) + ["}"] if form == "critical"
               else [f"lock {m}[c]"] + update + [f"unlock {m}[c]"])
    body = [f"if {guard} {{", f"    for k in 0 .. {loops} {{", f"        let c = {index}"] + \
        indent(section, "        ") + ["    }", "}"]
    want = f"want_{cnt}" + ("[h_bid][c]" if per_block else "[c]")
    reference = per_thread(ctx, [f"if {on_host(guard, ctx.block)} {{", f"    for k in 0 .. {loops} {{",
                                 f"        let c = {on_host(index, ctx.block)}",
                                 f"        {want} += {on_host(value, ctx.block)}", "    }", "}"])
    dims = (rows, "n") if per_block else ("n",)
    title = f"per-element locks over [n]: {form} on mutex[{ctx.size.hi - 1}] {place} @thread{clause}, {loops} round(s)"
    return SizedPiece(title, [SizedArray(cnt, dims)], decls, body, reference, uses_r)


def posted_per_element(rng: random.Random, ctx: SizedContext) -> SizedPiece:
    """A semaphore(0) posted once per element: each thread below n writes its element and posts;
    one waiter waits min(n, threads) times, then adds up the elements. A wait that ends early
    reads an element not written yet."""
    clause = using(rng, rng.choice(SEMAPHORE_IMPLS["global"]))
    s, sig, total, acc = ctx.name("s"), ctx.name("sig"), ctx.name("total"), ctx.name("sum")
    waiters = ["gtid == 0", "bid == nbid - 1 && tid == ntid - 1"] + (["bid == 0 && tid == 32"] if ctx.warps > 1 else [])
    waiter = rng.choice(waiters)
    value = element_value(rng)
    count = "min(n, nbid * ntid)"
    flawed = random.Random(f"flaw/{ctx.prefix}/{waiter}/{value}/{ctx.size}/{ctx.block}").random() < FLAWED
    waits, bites, note = count, None, ""
    if flawed:
        waits = "n"
        if ctx.size.hi - 1 > ctx.block:          # one block has fewer threads than the largest n
            bites, note = {"oracle_grid": 1, "n": ctx.size.hi - 1}, " (short where n passes the threads)"
        else:
            note = " (n never passes the threads: right)"
    decls = [f"semaphore {s}(0) in global @thread{clause}"]
    body = ["if gtid < n {", f"    {sig}[gtid] = {value}", f"    post {s}", "}",
            f"if {waiter} {{", f"    for i in 0 .. {waits} {{ wait {s} }}", f"    var {acc} = 0",
            f"    for j in 0 .. {count} {{ {acc} += {sig}[j] }}", f"    {total}[0] = {acc}", "}"]
    reference = per_thread(ctx, [f"if h_gtid < n {{", f"    want_{sig}[h_gtid] = {on_host(value, ctx.block)}",
                                 f"    want_{total}[0] += {on_host(value, ctx.block)}", "}"])
    title = f"semaphore(0) global{clause} posted once per element, waited {'n' if flawed else 'min(n, threads)'} times by `{waiter}`{note}"
    return SizedPiece(title, [SizedArray(sig), SizedArray(total, (1,))], decls, body, reference, bites=bites)


def queue_of_elements(rng: random.Random, ctx: SizedContext) -> SizedPiece:
    """A queue whose puts and gets count the elements: warp 0's lanes put their element numbers
    (`bid * 32 + lane`, those below n), `r` or a constant number of times each; one lane of warp 1
    takes them all and counts each. Through a global queue (block 0's consumer takes every
    block's), or a block's shared queue (each block's consumer takes its own block's)."""
    place = rng.choice(["global", "shared"])
    cap = rng.choice([1, 2, 4, 8, 32, 33])
    q, got = ctx.name("q"), ctx.name("got")
    loops, uses_r = rounds_of(rng, ctx)
    element = "bid * 32 + lane"
    if place == "global":
        consumer, count = "bid == 0 && warp == 1 && lane == 0", f"min(n, nbid * 32) * {loops}"
    else:
        consumer, count = "warp == 1 && lane == 0", f"max(0, min(32, n - bid * 32)) * {loops}"
    bites, note = None, ""
    if random.Random(f"flaw/{ctx.prefix}/{place}/{cap}/{loops}/{ctx.size}/{ctx.grid_hi}").random() < FLAWED:
        # more gets than puts at some configurations (fewer would leave values in the queue, which
        # is no hazard): every element's, where only the launch's warps 0 put; every block as block 0
        count = f"n * {loops}" if place == "global" else f"min(32, n) * {loops}"
        if place == "global" and ctx.size.hi - 1 > 32:
            bites, note = {"oracle_grid": 1, "n": ctx.size.hi - 1}, " (short where n passes 32 * nbid)"
        elif place == "shared" and ctx.grid_hi - 1 >= 2 and ctx.size.lo < 64:
            bites, note = {"oracle_grid": ctx.grid_hi - 1, "n": ctx.size.lo}, " (short in a block past n)"
        else:
            note = " (right: never short in the declaration)"
    decls = [f"queue {q}({cap}): i32 in {place} @thread"]
    body = [f"if warp == 0 && {element} < n {{", f"    for k in 0 .. {loops} {{ put {q} = {element} }}",
            f"}} else if {consumer} {{", f"    for i in 0 .. {count} {{", f"        let v = get {q}",
            f"        atomic_add({got}[v], 1)", "    }", "}"]
    reference = per_thread(ctx, [f"if h_warp == 0 && {on_host(element, ctx.block)} < n {{",
                                 f"    want_{got}[{on_host(element, ctx.block)}] += {loops}", "}"])
    title = f"queue({cap}) {place}: warp 0 puts its elements below n {loops} time(s), one lane of warp 1 takes {count}{note}"
    return SizedPiece(title, [SizedArray(got)], decls, body, reference, uses_r, bites=bites)


def rounds_over_elements(rng: random.Random, ctx: SizedContext) -> SizedPiece:
    """Rounds (`r` or a constant) of a barrier over `[n]`: each round every element's thread
    writes its mark, all meet, and each adds the mark of another element to its output. A grid
    barrier over a double buffer `[2][n]` in global memory (the partner `(gtid + s) % n`, of any
    block), or a block barrier over a shared double buffer (a partner in the block; every thread
    writes there, since a shared word holds nothing defined until written)."""
    loops, uses_r = rounds_of(rng, ctx)
    out, mark = ctx.name("out"), ctx.name("mark")
    value = element_value(rng, "gtid", "rr")
    if rng.random() < 0.5:
        g = ctx.name("g")
        clause = using(rng, rng.choice(GRID_BARRIER_IMPLS))
        shift = rng.choice([1, 5, 32, ctx.block])
        partner = f"(gtid + {shift}) % n"
        decls = [f"barrier {g} in global @grid{clause}"]
        body = [f"for rr in 0 .. {loops} {{", f"    if gtid < n {{ {mark}[rr % 2][gtid] = rr * 100 + {value} }}",
                f"    sync {g}", f"    if gtid < n {{ {out}[gtid] = {out}[gtid] + {mark}[rr % 2][{partner}] }}", "}"]
        written = value.replace("gtid", "p")      # the partner's mark: written where its thread exists
        reference = per_thread(ctx, ["if h_gtid < n {", f"    let p = {on_host(partner, ctx.block)}",
                                     f"    if p < oracle_grid * {ctx.block} {{",
                                     f"        for rr in 0 .. {loops} {{ want_{out}[h_gtid] += rr * 100 + {written} }}",
                                     "    }", "}"])
        title = f"{loops} round(s) of grid barrier{clause} over [2][n], partner {partner}"
        return SizedPiece(title, [SizedArray(out), SizedArray(mark, (2, "n"), output=False)], decls, body,
                          reference, uses_r)
    buf = ctx.name("buf")
    shift = rng.choice([1, 17, 32, ctx.block - 1])
    partner = f"(tid + {shift}) % {ctx.block}"
    decls = [f"shared {buf}: i32[2][{ctx.block}]"]
    body = [f"for rr in 0 .. {loops} {{", f"    {buf}[rr % 2][tid] = rr * 100 + {value}", "    barrier",
            f"    if gtid < n {{ {out}[gtid] = {out}[gtid] + {buf}[rr % 2][{partner}] }}", "}"]
    written = value.replace("gtid", "p")
    reference = per_thread(ctx, ["if h_gtid < n {", f"    let p = h_bid * {ctx.block} + {on_host(partner, ctx.block)}",
                                 f"    for rr in 0 .. {loops} {{ want_{out}[h_gtid] += rr * 100 + {written} }}", "}"])
    title = f"{loops} round(s) of a block barrier, outputs over [n], partner {partner}"
    return SizedPiece(title, [SizedArray(out)], decls, body, reference, uses_r)


def chain_over_elements(rng: random.Random, ctx: SizedContext) -> SizedPiece:
    """A chain through the slots of a channel as long as the elements: each thread below n adds
    its term to the value of the same lane one warp earlier and puts it in its own slot. Through
    a global channel (the whole grid, block after block; slots for the largest n) or a block's
    shared one (slots for the block)."""
    place = rng.choice(["global", "shared"])
    impl = rng.choice({"global": ["atomlock", "flag", None], "shared": ["tinylock", "atomlock", "flag", None]}[place])
    clause = f" using {impl}" if impl else ""
    c, out = ctx.name("c"), ctx.name("out")
    me = "gtid" if place == "global" else "tid"
    slots = ctx.size.hi - 1 if place == "global" else ctx.block
    term = element_value(rng)
    decls = [f"channel {c}[{slots}]: i32 in {place} @thread{clause}"]
    body = ["if gtid < n {", "    var prev = 0", f"    if {me} >= 32 {{ prev = get {c}[{me} - 32] }}",
            f"    put {c}[{me}] = prev + {term}", f"    {out}[gtid] = prev + {term}", "}"]
    body = [s.replace("prev", ctx.name("prev")) for s in body]
    # the host's loops go in thread order: the element 32 before is already computed
    reference = per_thread(ctx, ["if h_gtid < n {", f"    var prev = {on_host(term, ctx.block)}",
                                 f"    if {on_host(me, ctx.block)} >= 32 {{ prev += want_{out}[h_gtid - 32] }}",
                                 f"    want_{out}[h_gtid] = prev", "}"])
    title = f"chain over [n] through channel[{slots}] {place} @thread{clause}"
    return SizedPiece(title, [SizedArray(out)], decls, body, reference)


# (motif, weight, the fewest warps per block it needs)
SIZED_MOTIFS: list[tuple[Callable, int, int]] = [
    (locked_elements, 4, 1),
    (posted_per_element, 3, 1),
    (queue_of_elements, 3, 2),
    (rounds_over_elements, 3, 1),
    (chain_over_elements, 3, 1),
]


# ---- the program ----------------------------------------------------------------------------------

@dataclass
class SizedProgram:
    seed: int
    block: int
    grid_hi: int
    size: Dimension
    rounds: Dimension | None
    pieces: list[SizedPiece]
    configuration: dict[str, int] = field(default_factory=dict)   # the host's first values

    def arrays(self) -> list[SizedArray]:
        return [a for p in self.pieces for a in p.arrays]

    def dimensions(self) -> list[Dimension]:
        return [self.size] + ([self.rounds] if self.rounds else [])

    def text(self) -> str:
        lines = [f"// Generated by tests/oracle/generate.py (--sizes), seed {self.seed}.",
                 f"// k0: block({self.block}) grid(1 .. {self.grid_hi}), "
                 + ", ".join(d.declaration() for d in self.dimensions()) + ": "
                 + "; ".join(p.title for p in self.pieces), ""]
        params = ", ".join([d.declaration() for d in self.dimensions()] + [a.param() for a in self.arrays()])
        lines += [f"kernel k0({params})", f"    launch grid(1 .. {self.grid_hi}) block({self.block})", "{"]
        lines += [f"    {d}" for p in self.pieces for d in p.decls]
        for p in self.pieces:
            lines.append(f"    // {p.title}")
            lines += [f"    {s}" for s in p.body]
        lines += ["}", "", self.host()]
        return "\n".join(lines) + "\n"

    def host(self) -> str:
        lines = ["host main {", "    // the configuration (tests/oracle/declared.py runs others)"]
        lines += [f"    let {name} = {value}" for name, value in self.configuration.items()]
        for a in self.arrays():
            lines.append(f"    let {a.name} = zeros(i32, {a.shape()})")
        args = ", ".join([d.name for d in self.dimensions()] + [a.name for a in self.arrays()])
        lines.append(f"    launch k0({args}) grid(oracle_grid)")
        for p in self.pieces:
            lines.append(f"    // {p.title}")
            lines += [f"    let want_{a.name} = zeros(i32, {a.shape()})" for a in p.arrays if a.output]
            lines += [f"    {s}" for s in p.reference]
            for a in p.arrays:
                if a.output:
                    lines += [f"    if {a.name} != want_{a.name} {{ print \"{a.name} =\", {a.name}, \"want\", want_{a.name} }}",
                              f"    check {a.name} == want_{a.name}, \"k0: {a.name} differs from the host's reference\""]
        lines.append("}")
        return "\n".join(lines)


def generate_sized(seed: int) -> SizedProgram:
    rng = random.Random(seed)
    block = rng.choice(BLOCK_SIZES)
    grid_hi = rng.choice(GRID_ENDS)
    hi = rng.choice(SIZE_ENDS)
    size = Dimension("n", min(rng.choice(SIZE_STARTS), hi // 2), hi)     # (a range, not one value)
    rounds_text = rng.choice(ROUNDS) if rng.random() < 0.6 else None
    rounds = None
    if rounds_text is not None:
        if rounds_text.startswith("["):
            rounds = Dimension("r", values=tuple(int(v) for v in rounds_text.strip("[]").split(",")))
        else:
            lo, hi_r = (int(v) for v in rounds_text.split(".."))
            rounds = Dimension("r", lo, hi_r)
    pieces: list[SizedPiece] = []
    for i in range(rng.choice([1, 2, 2, 3])):
        ctx = SizedContext(f"k0p{i}", block, grid_hi, size, rounds)
        choices = [(m, w) for m, w, warps in SIZED_MOTIFS if ctx.warps >= warps]
        motif = rng.choices([m for m, _ in choices], [w for _, w in choices])[0]
        pieces.append(motif(rng, ctx))
    if rounds is not None and not any(p.rounds for p in pieces):
        rounds = None            # a declared parameter nothing uses is checked once: not worth a dimension
    program = SizedProgram(seed, block, grid_hi, size, rounds, pieces)
    program.configuration = {"oracle_grid": rng.randrange(1, grid_hi)}
    program.configuration.update({d.name: d.draw(rng) for d in program.dimensions()})
    bites = next((p.bites for p in pieces if p.bites), None)
    if bites is not None:                 # start where the flaw bites: a run there shows it
        program.configuration.update(bites)
    return program
