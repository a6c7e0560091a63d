"""Seed 003 (Grote) §5.2 on the Fermi simulator: the Counter and Hash Table benchmarks.

Counter (examples/counter.sync): ITEMS work items, each naming one of COUNTERS counters whose
two words (count, total) are updated under that counter's lock, for each global @thread mutex
of the stdlib; the seed's own one-word counter at -O2 (an atomic add after lock elision) is the
floor. Hash table (examples/hashtable.sync): ITEMS inserts into chained buckets under per-bucket
locks, and the lock-free insert (atomic_cas on the bucket head), at the seed's contention levels
(256, 64, 32, 16 buckets) and two higher ones, since the simulator runs far fewer threads per
bucket than the seed's 7680. Each point is one launch (the simulator is deterministic); each
result is checked against numpy before its cycles count. Throughput is operations per 1000
cycles; speeds are relative to TAS in the same run.
"""
from __future__ import annotations

import numpy as np

from .core import Context, Plot, Table

LOCKS = ["tas", "ttas", "ticket", "mcs", "mcs2", "backoff"]
HASH_VARIANTS = {"tas": "insert_tas", "ttas": "insert", "ticket": "insert_ticket", "mcs": "insert_mcs",
                 "mcs2": "insert_mcs2", "backoff": "insert_backoff", "lock-free": "insert_lockfree"}
THREADS = 64                       # per block, as declared at compile time (-D THREADS)
FIXED_BLOCKS = 4                   # the grid of the contention sweeps


BOUNDS_CHECKS = True              # run() sets it from ctx.bounds (--unsafe-no-bounds-checks: False)


def _compile(path, **defines):
    import syncc
    return syncc.compile(str(path), defines=defines, target="fermi-sim", bounds_checks=BOUNDS_CHECKS)


# ---- counter -----------------------------------------------------------------------------------

def _per_thread(items: int, blocks: int) -> int:
    if items % (blocks * THREADS):
        raise ValueError(f"{items} items do not divide among {blocks} × {THREADS} threads")
    return items // (blocks * THREADS)


def counter_cycles(path, counters: int, blocks: int, items: int) -> dict[str, int]:
    """lock → cycles for `items` updates spread over `counters` counters by blocks × THREADS threads."""
    prog = _compile(path, COUNTERS=counters, BLOCKS=blocks, THREADS=THREADS, PER_THREAD=_per_thread(items, blocks))
    n = items
    rng = np.random.default_rng(3)
    work = rng.integers(0, counters, n, dtype=np.int32)
    amount = rng.integers(1, 100, n, dtype=np.int32)
    want_n = np.bincount(work, minlength=counters).astype(np.int32)
    want_total = np.bincount(work, weights=amount, minlength=counters).astype(np.int32)
    out = {}
    for lock in LOCKS:
        counts, totals = np.zeros(counters, np.int32), np.zeros(counters, np.int32)
        outcome = getattr(prog, f"count_{lock}")(counts, totals, work, amount)
        if not (np.array_equal(counts, want_n) and np.array_equal(totals, want_total)):
            raise AssertionError(f"counter with {lock}: wrong counts")
        out[lock] = outcome.cycles
    counts = np.zeros(counters, np.int32)
    outcome = prog.counter(counts, work)
    if not np.array_equal(counts, want_n):
        raise AssertionError("counter (elided): wrong counts")
    out["atomic (elided)"] = outcome.cycles
    return out


# ---- hash table --------------------------------------------------------------------------------

def hash_cycles(path, levels: list[int], blocks: int, items: int) -> dict[int, dict[str, int]]:
    """buckets → variant → cycles for `items` inserts by blocks × THREADS threads."""
    prog = _compile(path, BUCKETS=max(levels), BLOCKS=blocks, THREADS=THREADS, PER_THREAD=_per_thread(items, blocks))
    n = items
    keys = np.random.default_rng(5).integers(0, 1_000_000, n, dtype=np.uint32)
    out: dict[int, dict[str, int]] = {}
    for nb in levels:
        out[nb] = {}
        for name, kernel in HASH_VARIANTS.items():
            heads, nxt = np.full(max(levels), -1, np.int32), np.full(n, -1, np.int32)
            outcome = getattr(prog, kernel)(keys, heads, nxt, nb)
            _check_table(keys, heads, nxt, nb, name)
            out[nb][name] = outcome.cycles
    return out


def _mix32(x: np.ndarray) -> np.ndarray:
    """std.hash.mix32 (MurmurHash3's finalizer), in numpy, for the reference buckets."""
    h = x.astype(np.uint64)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    h ^= h >> 16
    return h


def _check_table(keys, heads, nxt, nb, name):
    bucket = (_mix32(keys) % nb).astype(np.int64)
    seen = np.zeros(len(keys), np.int64)
    for b in range(len(heads)):
        k, steps = heads[b], 0
        while k != -1 and steps <= len(keys):
            if bucket[k] != b:
                raise AssertionError(f"hash table with {name}: entry {k} in bucket {b}")
            seen[k] += 1
            k, steps = nxt[k], steps + 1
    if not (seen == 1).all():
        raise AssertionError(f"hash table with {name}, {nb} buckets: entries lost or repeated")


# ---- the section -------------------------------------------------------------------------------

def _per_k(items: int, cycles: int) -> float:
    return items * 1000 / cycles


def run(ctx: Context):
    global BOUNDS_CHECKS
    BOUNDS_CHECKS = ctx.bounds != "off"
    counter_path, hash_path = ctx.path("examples/counter.sync"), ctx.path("examples/hashtable.sync")
    items = 256 if ctx.quick else 512          # a multiple of the most threads launched
    counters = [1, 16] if ctx.quick else [1, 4, 16, 64]
    blocks_axis = [1, 4] if ctx.quick else [1, 2, 4, 8]
    levels = [64, 1] if ctx.quick else [256, 64, 32, 16, 4, 1]
    fixed_blocks = FIXED_BLOCKS
    out = []

    # Counter vs contention (counters), 4 blocks; and vs blocks, one counter.
    series = LOCKS + ["atomic (elided)"]
    by_counters = {c: counter_cycles(counter_path, c, fixed_blocks, items) for c in counters}
    ctx.log(f"seed003: counter, {len(counters)} contention levels done")
    by_blocks = {b: (by_counters[1] if b == fixed_blocks else counter_cycles(counter_path, 1, b, items))
                 for b in blocks_axis}
    ctx.log(f"seed003: counter, {len(blocks_axis)} grid sizes done")
    t = Table("seed003_counter", f"Seed 003 §5.2.1 Counter on fermi-sim: {items} updates, {fixed_blocks} × "
              f"{THREADS} threads (ops per 1000 cycles; speed vs TAS)",
              ["counters", "lock", "cycles", "ops/kcycle", "vs tas"])
    for c, row in by_counters.items():
        for lock in series:
            t.rows.append([c, lock, row[lock], _per_k(items, row[lock]), row["tas"] / row[lock]])
    t.notes += _counter_notes(by_counters, by_blocks)
    out.append(t)
    tb = Table("seed003_counter_blocks", f"Seed 003 Figures 5.1-5.4 on fermi-sim: one counter, {items} updates, "
               f"1..{max(blocks_axis)} blocks of {THREADS} threads (ops per 1000 cycles)",
               ["blocks", "threads", "lock", "cycles", "ops/kcycle"])
    for b, row in by_blocks.items():
        for lock in series:
            tb.rows.append([b, b * THREADS, lock, row[lock], _per_k(items, row[lock])])
    out.append(tb)
    out.append(Plot("seed003_counter", "Counter: throughput vs number of counters", "counters",
                    "ops per 1000 cycles",
                    {lock: [(c, _per_k(items, row[lock])) for c, row in by_counters.items()] for lock in series},
                    logx=True, logy=True))
    out.append(Plot("seed003_counter_blocks", "Counter (one counter): throughput vs threads", "threads",
                    "ops per 1000 cycles",
                    {lock: [(b * THREADS, _per_k(items, row[lock])) for b, row in by_blocks.items()]
                     for lock in series}, logx=True, logy=True))

    # Hash table vs contention (buckets), 4 blocks.
    table = hash_cycles(hash_path, levels, fixed_blocks, items)
    ctx.log("seed003: hash table done")
    h = Table("seed003_hashtable", f"Seed 003 §5.2.2 Hash Table on fermi-sim: {items} inserts by {fixed_blocks} × "
              f"{THREADS} threads (inserts per 1000 cycles; speed vs TAS)",
              ["buckets", "variant", "cycles", "inserts/kcycle", "vs tas"])
    for nb, row in table.items():
        for name in HASH_VARIANTS:
            h.rows.append([nb, name, row[name], _per_k(items, row[name]), row["tas"] / row[name]])
    h.notes += _hash_notes(table)
    out.append(h)
    out.append(Plot("seed003_hashtable", "Hash table: inserts per 1000 cycles vs buckets", "buckets (fewer: more contention)",
                    "inserts per 1000 cycles",
                    {name: [(nb, _per_k(items, row[name])) for nb, row in table.items()] for name in HASH_VARIANTS},
                    logx=True, logy=True))
    return out


def _fastest(row: dict[str, int], names) -> str:
    return min(names, key=lambda n: row[n])


def _counter_notes(by_counters, by_blocks) -> list[str]:
    one = by_counters[1]
    best = _fastest(one, LOCKS)
    notes = [f"one counter (full contention): fastest lock {best}; ticket vs tas {one['tas'] / one['ticket']:.2f}×, "
             f"ttas vs tas {one['tas'] / one['ttas']:.2f}×, mcs vs tas {one['tas'] / one['mcs']:.2f}× "
             f"(seed 003 §5.4: the ticket lock wins under high contention with a short section "
             f"- {'holds' if best == 'ticket' else 'does not hold here'}; TTAS mitigates TAS - "
             f"{'holds' if one['ttas'] < one['tas'] else 'does not hold here'})"]
    lo, hi = min(by_counters), max(by_counters)
    gains = {lock: by_counters[lo][lock] / by_counters[hi][lock] for lock in LOCKS}
    notes.append(f"{lo} → {hi} counters: every lock faster "
                 f"({', '.join(f'{k} {v:.1f}×' for k, v in gains.items())}); "
                 f"seed 003 §5.2.2: contention is the main bottleneck - "
                 f"{'holds' if min(gains.values()) > 1 else 'does not hold for every lock'}")
    b0, b1 = min(by_blocks), max(by_blocks)
    slow = {lock: by_blocks[b1][lock] / by_blocks[b0][lock] for lock in LOCKS}
    notes.append(f"one counter, {b0} → {b1} blocks (same work): cycles × "
                 f"{', '.join(f'{k} {v:.2f}' for k, v in slow.items())}; the seed sees TAS and TTAS depart "
                 "fastest from the baseline as threads grow, and the ticket lock flattest")
    notes.append("the seed measured a Turing GPU with independent thread scheduling; fermi-sim is a "
                 "stack-based Fermi whose polling loads miss a coherent L1 and whose global atomics "
                 "serialize at L2, so absolute ratios differ; the atomic (elided) row is what -O2 makes of "
                 "the seed's one-word counter, the floor no lock reaches")
    return notes


def _hash_notes(table) -> list[str]:
    hi = min(table)                    # fewest buckets: the most contention
    lo = max(table)
    row = table[hi]
    best = _fastest(row, HASH_VARIANTS)
    notes = [f"{hi} bucket(s) (most contention): fastest {best}; mcs vs tas {row['tas'] / row['mcs']:.2f}× "
             f"(seed 003: 3.4× at 16 buckets - {'holds' if row['mcs'] < row['tas'] else 'does not hold here'}); "
             f"mcs vs lock-free {row['lock-free'] / row['mcs']:.2f}× "
             f"(seed 003: MCS beats lock-free - {'holds' if row['mcs'] < row['lock-free'] else 'does not hold here'})"]
    spread = {nb: max(r.values()) / min(r.values()) for nb, r in table.items()}
    notes.append("slowest / fastest variant per level: " + ", ".join(f"{nb}: {s:.2f}×" for nb, s in spread.items())
                 + f" (seed 003: no variant stands out at low contention - "
                 f"{'holds' if spread[lo] < spread[hi] else 'does not hold here'})")
    plain = [n for n in HASH_VARIANTS if not n.startswith("mcs")]
    notes.append(f"without the MCS locks, whose extra node traffic costs even uncontended: {lo} buckets "
                 f"{max(table[lo][n] for n in plain) / min(table[lo][n] for n in plain):.2f}×, {hi}: "
                 f"{max(row[n] for n in plain) / min(row[n] for n in plain):.2f}×")
    notes.append(f"threads per bucket here: {THREADS * FIXED_BLOCKS // hi} at {hi} bucket(s), {THREADS * FIXED_BLOCKS // lo} at {lo}; "
                 "the seed's 7680 threads over 16 buckets put 480 on each, so its most contended level is "
                 "nearest to our 1-bucket row")
    notes.append("a likely reason where MCS falls behind: MCS hands the lock over by a store to the successor's node, which the successor then "
                 "polls from global memory: two dependent global round trips per hand-off on Fermi "
                 "(400-800 cycles each, no coherent L1), where the seed's Turing keeps polling in L2; "
                 "the queue's benefit (no shared polling word) does not pay on a machine whose polls of one "
                 "word are as cheap as polls of many")
    return notes
