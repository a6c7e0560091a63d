"""Which `delay` suits a global `ring` queue on this GPU (issue 19): the `gpu_queue` section's
between-blocks shape (thread 0 of each block of 32 puts or takes 256 values through a queue of
64 slots) with the ring's `delay` at 0, 16, 32, 64 and 128 ns (a sleep per step its slot has still to go through), beside the hand-written sequence
ring of bench/baselines/queues.cu, in ROUNDS interleaved rounds of one process (device/METHOD.md:
the same device, side by side). Every launch is checked: each value taken exactly once.

    python bench/experiments/queue_delay/run.py [OUT_DIR]
    python bench/experiments/queue_delay/run.py --block [OUT_DIR]   # between two warps of a block

With --block: the section's warp-to-warp shape (a shared queue; warp 0 puts, warp 1 takes, 256
values per lane) with `delay` 0, 8, 16, 32 and 64, beside the hand-written mbarrier ring, in 1
and 132 blocks.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from syncc.bench import gpu_queue  # noqa: E402
from syncc.bench.core import Context  # noqa: E402
from syncc.bench.gpu_common import baseline, best, cupy, time_launches, timed, warm_up  # noqa: E402

DELAYS = (0, 16, 32, 64, 128)
SIZES = (2, 132, 264, 528, 1056)
ROUNDS = 3


def variants() -> str:
    text = (ROOT / "bench/programs/queue.sync").read_text()
    head = text[:text.index("kernel between_blocks_default")]
    kernel = text[text.index("kernel between_blocks_default"):text.index("kernel between_blocks_locked")]
    return head + "".join(kernel.replace("between_blocks_default", f"between_blocks_d{d}")
                          .replace("in global @thread", f"in global @thread using ring(delay = {d})") for d in DELAYS)


BLOCK_DELAYS = (0, 8, 16, 32, 64)


def block_variants() -> str:
    text = (ROOT / "bench/programs/queue.sync").read_text()
    head = text[:text.index("kernel between_blocks_default")]
    kernel = text[text.index("kernel warp_to_warp_default"):text.index("kernel warp_to_warp_locked")]
    return head + "".join(kernel.replace("warp_to_warp_default", f"warp_to_warp_d{d}")
                          .replace("in shared @thread", f"in shared @thread using ring(delay = {d})")
                          for d in BLOCK_DELAYS)


def _setup(out: Path, name: str, text: str):
    """(the variants compiled for ptx, the baselines' module, cupy), the GPU warmed up."""
    import syncc
    out.mkdir(parents=True, exist_ok=True)
    src = out / name
    src.write_text(text)
    prog = syncc.compile(str(src), target="ptx")
    module = baseline(Context(ROOT, out, quick=False, log=print), "queues")
    warm_up()
    return prog, module, cupy()


def _print(rates: dict, base: str, sizes) -> None:
    """Each row's median M values/s per size, and its median ratio to `base` in the same rounds."""
    print(f"M values/s, median of the rounds (× the {base} in the same rounds)")
    print(f"{'':24}" + "".join(f"{b:>18}" for b in sizes))
    for name, by in rates.items():
        cells = [f"{float(np.median(by[b])) / 1e6:9.2f} "
                 f"({float(np.median([x / y for x, y in zip(by[b], rates[base][b])])):4.2f})" for b in sizes]
        print(f"{name:24}" + "".join(f"{c:>18}" for c in cells))


def in_block(out: Path) -> None:
    prog, module, cp = _setup(out, "queue_delay_block.sync", block_variants())
    rates: dict[str, dict[int, list[float]]] = {}
    for _ in range(ROUNDS):
        for blocks in (1, 132):
            values = blocks * 32 * gpu_queue.STEPS
            seen, err = cp.zeros(values, cp.uint32), cp.zeros(1, cp.int32)
            fn = module.get_function("mbar_ring")
            t = time_launches(lambda s: fn((blocks,), (64,), (np.int32(gpu_queue.STAGES), np.int32(gpu_queue.STEPS),
                                                              seen, err), stream=s), 5,
                              lambda s: (seen.fill(0), err.fill(0)))
            rates.setdefault("mbarrier ring", {}).setdefault(blocks, []).append(values / best(t))
            for d in BLOCK_DELAYS:
                got = np.zeros(132 * 32 * gpu_queue.STEPS, np.int32)
                t = timed(prog, f"warp_to_warp_d{d}", [got], (blocks, 1, 1), None, 5)
                gpu_queue._exactly(got[:values], 6, f"delay {d} in {blocks} blocks")
                rates.setdefault(f"ring delay={d}", {}).setdefault(blocks, []).append(values / best(t))
    _print(rates, "mbarrier ring", (1, 132))


def between_blocks(out: Path) -> None:
    prog, module, cp = _setup(out, "queue_delay.sync", variants())
    rates: dict[str, dict[int, list[float]]] = {}
    for _ in range(ROUNDS):
        for blocks in SIZES:
            values = blocks // 2 * gpu_queue.PER
            t = gpu_queue._ring(cp, module, "seq_ring", blocks, blocks // 2, 5)
            rates.setdefault("hand-written seq_ring", {}).setdefault(blocks, []).append(values / best(t))
            for d in DELAYS:
                got = np.zeros(528 * gpu_queue.PER, np.int32)
                t = timed(prog, f"between_blocks_d{d}", [got], (blocks, 1, 1), None, 5)
                gpu_queue._exactly(got[:values], 6, f"delay {d} at {blocks} blocks")
                rates.setdefault(f"ring delay={d}", {}).setdefault(blocks, []).append(values / best(t))
    _print(rates, "hand-written seq_ring", SIZES)


def main() -> None:
    block = sys.argv[1:2] == ["--block"]
    rest = sys.argv[2:] if block else sys.argv[1:]
    out = Path(rest[0]) if rest else Path(tempfile.mkdtemp())
    (in_block if block else between_blocks)(out)


if __name__ == "__main__":
    main()
