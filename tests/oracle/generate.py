"""A seeded generator of random structured .sync programs that check themselves.

    python -m tests.oracle.generate --seed 1 --count 5 --out /tmp/gen     # writes gen_1_0000.sync, ...

Each program has one or two kernels made of motifs (motifs.py: counters under mutexes, nested
locks, semaphores as locks and as signals, channel chains and exchanges, flags, latches, block,
named and grid barriers, lane exchanges, reader-writer locks), and a host block that fills the
inputs, launches every kernel (sometimes with a grid other than the declared one) and checks
every output against values the generator computed in Python from the program's own
expressions. A lost update, a value read too early or a wrong order therefore fails a `check`.

`generate(seed)` is a pure function of the seed: random.Random(seed) makes every choice.
"""
from __future__ import annotations

import argparse
import random
from pathlib import Path

from . import hand, motifs
from .motifs import Context
from .program import KernelPlan, Piece, ProgramPlan, Shape

# (motif, weight, the fewest warps per block it needs)
MOTIFS = [
    (motifs.counter, 6, 1),
    (motifs.transfer, 4, 1),
    (motifs.semaphore_section, 3, 1),
    (motifs.semaphore_signal, 2, 1),
    (motifs.channel_chain, 3, 1),
    (motifs.channel_when_chain, 2, 1),
    (motifs.channel_exchange, 2, 1),
    (motifs.flags, 2, 1),
    (motifs.latch, 2, 1),
    (motifs.barrier_rounds, 2, 1),
    (motifs.named_barrier, 2, 2),
    (motifs.grid_barrier, 2, 1),
    (motifs.warp_exchange, 2, 1),
    (motifs.rwlock, 2, 1),
]
# Queue programs (`generate(seed, queues=True)`, `run.py --queues`): a batch of their own, so
# that adding them left every earlier batch's programs as they were
QUEUE_MOTIFS = [(motifs.queue_stream, 4, 1), (motifs.counter, 1, 1), (motifs.latch, 1, 1)]
# The shapes of issue 36 (`generate(seed, shapes=True)`, `run.py --shapes`), a batch of their own
# as the queue programs are: retry loops with counted posts, indices near and past their bounds,
# and (a kernel of its own, with its own launch) waits by block index below and above co-residency
SHAPE_MOTIFS = [(motifs.retry_wait, 4, 1), (motifs.retry_queue, 4, 1), (motifs.retry_interleaved, 2, 1),
                (motifs.index_computed, 4, 1), (motifs.index_data, 3, 1), (motifs.counter, 1, 1)]
# The scan programs (`generate(seed, scans=True)`, `run.py --scans`): running sums over the grid
# beside a few other motifs, a batch of their own too
SCAN_MOTIFS = [(motifs.scan_sums, 4, 1), (motifs.counter, 1, 1), (motifs.latch, 1, 1),
               (motifs.grid_barrier, 1, 1)]
# Hand-written synchronization (issue 39, hand.py): spin locks, flag publications and counting
# barriers built from atomics and `load_cg`, a batch of its own (`generate(seed, hand=True)`,
# `run.py --hand`), launched with the grid declared (the barrier over the grid needs every block)
HAND_MOTIFS = [(hand.hand_lock, 4, 1), (hand.hand_publication, 3, 1), (hand.hand_barrier, 2, 1),
               (motifs.counter, 1, 1)]
BLOCK_ORDER_KERNELS = 0.35          # the share of a shapes program's kernels that wait by block index
BLOCK_SIZES = [32, 64, 64, 96, 128]
MAX_KERNEL_ACQUISITIONS = 96        # contended operations per kernel, so a run stays short


def generate(seed: int, queues: bool = False, shapes: bool = False, scans: bool = False,
             hand: bool = False) -> ProgramPlan:
    """The program of this seed (of the queue batch: mostly queue motifs; of the shapes batch:
    retry loops, indices near their bounds and waits by block index; of the scan batch: mostly
    scans; of the hand batch: hand-written synchronization)."""
    rng = random.Random(seed)
    mix = _helper(rng) if rng.random() < 0.5 else None
    if shapes:
        kernels = [_shapes_kernel(rng, f"k{i}", mix) for i in range(rng.choice([1, 1, 1, 2]))]
    elif hand:
        kernels = [_kernel(rng, f"k{i}", mix, HAND_MOTIFS, launched_as_declared=True)
                   for i in range(rng.choice([1, 1, 1, 2]))]
    else:
        table = SCAN_MOTIFS if scans else QUEUE_MOTIFS if queues else MOTIFS
        kernels = [_kernel(rng, f"k{i}", mix, table) for i in range(rng.choice([1, 1, 1, 2]))]
    plan = ProgramPlan(seed, kernels)
    if mix is not None and any("mix(" in s for k in kernels for p in k.pieces for s in p.body):
        plan.functions.append(mix[0])
    for k in kernels:
        if k.shape.declared is None:
            grid = f"grid({k.shape.grid}) at the launch"
        else:
            grid = f"grid({k.shape.declared})" + (f", launched with grid({k.shape.grid})"
                                                   if k.shape.grid != k.shape.declared else "")
        plan.description.append(f"{k.name}: block({k.shape.block}) {grid}: " + "; ".join(p.title for p in k.pieces))
    return plan


def program_text(seed: int, queues: bool = False, shapes: bool = False, scans: bool = False,
                 sizes: bool = False, hand: bool = False) -> str:
    """The program of this seed, of the batch the flags name (`sizes`: sizes.py's programs, whose
    kernel declares a range of grids and sizes and whose host checks hold across it)."""
    if sizes:
        from .sizes import generate_sized
        return generate_sized(seed).text()
    return generate(seed, queues, shapes, scans, hand).text()


def _helper(rng: random.Random):
    """The program's helper function (docs/language.md §7) and its Python twin."""
    a, b, c, m = rng.randrange(1, 9), rng.randrange(1, 9), rng.randrange(0, 9), rng.choice([13, 17, 31])
    source = f"fn mix(x: i32, k: i32) -> i32 {{\n    return (x * {a} + k * {b} + {c}) % {m}\n}}"
    return source, (lambda x, k: (x * a + k * b + c) % m)


def _kernel(rng: random.Random, name: str, mix, table, launched_as_declared: bool = False) -> KernelPlan:
    block = rng.choice(BLOCK_SIZES)
    declared = rng.randrange(1, 5)
    grid = declared if launched_as_declared or rng.random() < 0.7 else rng.randrange(1, 5)
    shape = Shape(block, declared, grid)
    pieces: list[Piece] = []
    budget = MAX_KERNEL_ACQUISITIONS
    for i in range(rng.choice([1, 2, 2, 3])):
        ctx = Context(f"{name}p{i}", shape, mix=mix[0] if mix else None, mix_fn=mix[1] if mix else None)
        piece = _piece(rng, ctx, budget, table)
        if piece is not None:
            pieces.append(piece)
            budget -= piece.acquisitions
    if not pieces:
        pieces.append(motifs.barrier_rounds(rng, Context(f"{name}p0", shape)))
    return KernelPlan(name, shape, pieces)


def _shapes_kernel(rng: random.Random, name: str, mix) -> KernelPlan:
    """A kernel of the shapes batch: one that waits by block index, with a launch of its own
    (motifs.residency_shape), or pieces of the other shapes in a launch of 1-4 blocks. The grid
    launched is the one declared: an index sized for one grid would be past its bounds in
    another, and the analyses check both (E0726 for a shape that never runs is not a finding)."""
    if rng.random() < BLOCK_ORDER_KERNELS:
        shape = motifs.residency_shape(rng)
        return KernelPlan(name, shape, [motifs.block_order(rng, Context(f"{name}p0", shape))])
    declared = rng.randrange(1, 5)
    shape = Shape(rng.choice(BLOCK_SIZES), declared, declared)
    pieces: list[Piece] = []
    budget = MAX_KERNEL_ACQUISITIONS
    for i in range(rng.choice([1, 2, 2, 3])):
        ctx = Context(f"{name}p{i}", shape, mix=mix[0] if mix else None, mix_fn=mix[1] if mix else None)
        piece = _piece(rng, ctx, budget, SHAPE_MOTIFS)
        if piece is not None:
            pieces.append(piece)
            budget -= piece.acquisitions
    if not pieces:
        pieces.append(motifs.index_computed(rng, Context(f"{name}p0", shape)))
    return KernelPlan(name, shape, pieces)


def _piece(rng: random.Random, ctx: Context, budget: int, table) -> Piece | None:
    """A motif that fits the block and the kernel's remaining budget of contended operations."""
    choices = [(m, w) for m, w, warps in table if ctx.warps >= warps]
    for _ in range(5):
        motif = rng.choices([m for m, _ in choices], [w for _, w in choices])[0]
        piece = motif(rng, ctx)
        if piece.acquisitions <= budget:
            return piece
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--queues", action="store_true", help="the queue batch's programs (genq_...)")
    ap.add_argument("--shapes", action="store_true", help="the shapes batch's programs (gens_...)")
    ap.add_argument("--scans", action="store_true", help="the scan batch's programs (genc_...)")
    ap.add_argument("--sizes", action="store_true", help="the size batch's programs (genn_...: sizes.py)")
    ap.add_argument("--hand", action="store_true", help="the hand batch's programs (genh_...: hand.py)")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for i in range(args.count):
        path = args.out / (f"{batch_prefix(args.queues, args.shapes, args.scans, args.sizes, args.hand)}"
                           f"_{args.seed}_{i:04d}.sync")
        path.write_text(program_text(program_seed(args.seed, i), args.queues, args.shapes, args.scans, args.sizes,
                                     args.hand))
        print(path)
    return 0


def batch_prefix(queues: bool = False, shapes: bool = False, scans: bool = False, sizes: bool = False,
                 hand: bool = False) -> str:
    """How a batch's generated programs are named: gen_, genq_ (queues), gens_ (shapes), genc_ (scans),
    genn_ (sizes), genh_ (hand)."""
    return "genh" if hand else "genn" if sizes else "genc" if scans else "gens" if shapes else "genq" if queues else "gen"


def program_seed(batch_seed: int, index: int) -> int:
    """The seed of the index-th program of a batch: distinct batches do not share programs."""
    return batch_seed * 1_000_003 + index


if __name__ == "__main__":
    raise SystemExit(main())
