"""A failed run-time bounds check, as the runtime reports it (E0913).

    fault = read_fault(kernel_name, record_words, sites, grid, block)   # None: no check failed
    raise fault                                                          # IndexOutOfBounds

The record is what the first failing thread of a launch wrote (ir/abi.py, ir/faults.py): the
check's site, the index, the block and the thread. Its site names the array or primitive, its
length and the access's span (ir/faults.check_sites); `located` narrows the span to the
subscript in the source, so that the caret points at the index:

    wrong.sync:4:20: error[E0913]: `k`: index 48 is outside `locks` (48 elements), in thread 48 of block 0
"""
from __future__ import annotations

import re

import numpy as np

from ..core.source import SourceMap, Span
from ..ir.abi import F_BLOCK, F_DONE, F_INDEX, F_SITE, F_THREAD
from ..ir.faults import CheckSite


class IndexOutOfBounds(Exception):
    """A run-time bounds check failed: the kernel stopped there, before the access (E0913).
    `index` is the index as the program computed it (row-major for an array of several
    dimensions), `block` and `thread` the failing thread's ctaid and tid, `site` what the check
    knew (None for a .sass file's trap, which carries no table of checks)."""

    def __init__(self, kernel: str, site: int, index: int, block: tuple[int, int, int],
                 thread: tuple[int, int, int], check: CheckSite | None, grid_shape, block_shape):
        self.kernel, self.site_number, self.index, self.block, self.thread = kernel, site, index, block, thread
        self.check = check
        self.span: Span | None = check.span if check is not None else None
        who = f"in thread {_coords(thread, block_shape)} of block {_coords(block, grid_shape)}"
        self.code = "E0913"
        if check is not None and check.queue is not None:
            self.code = "E0425"
            self.message = (f"queue `{check.queue}` is full (capacity {check.capacity}): an inner put of a work "
                            f"pool cannot wait, {who}")
        elif check is not None and check.permits:
            name = check.array.split(".")[0]
            k = (index + 1 + (1 << 31)) % (1 << 32) - (1 << 31)      # the i32 k, from its k - 1
            self.message = (f"a wait or post of `{name}` takes {k} permits, fewer than one (the run-time "
                            f"check of its number of permits), {who}")
        elif check is not None:
            name = check.array.split(".")[0]
            size = f"{check.length} elements" if check.length is not None else "as long as its launch made it"
            self.message = f"index {index} is outside `{name}` ({size}), {who}"
        else:
            self.message = f"a bounds check (site {site}) failed: index {index}, {who}"
        super().__init__(f"`{kernel}`: {self.message}")


def read_fault(kernel: str, words: np.ndarray, sites: dict[int, CheckSite], grid, block) -> IndexOutOfBounds | None:
    """The failure the record holds, or None when no check failed (its done word is still 0)."""
    words = [int(w) & 0xFFFFFFFF for w in words]
    if words[F_DONE] == 0:
        return None
    raw = words[F_INDEX]
    index = raw - (1 << 32) if raw >> 31 else raw          # an i32 index, as the program sees it
    site = words[F_SITE]
    return IndexOutOfBounds(kernel, site, index, tuple(words[F_BLOCK:F_BLOCK + 3]),
                            tuple(words[F_THREAD:F_THREAD + 3]), sites.get(site), grid, block)


def located(fault: IndexOutOfBounds, sources: SourceMap) -> tuple[str, Span | None]:
    """The diagnostic's message and span: at the subscript of the access, when the source shows
    it (`critical locks[k]` → `k`), else at the access."""
    span = fault.span
    if fault.check is None or span is None or fault.check.permits:
        return fault.message, span
    source = sources.get(span.file)
    if source is None or fault.check.queue is not None:
        return fault.message, span
    name = re.escape(fault.check.array.split(".")[0])
    text = source.text
    m = re.compile(rf"(?<![\w.]){name}\s*\[").search(text, span.start, max(span.end, span.start + 1))
    if m is None:
        return fault.message, span
    groups, at = [], m.end() - 1
    while at < len(text) and text[at] == "[":
        end = _closing(text, at)
        if end is None:
            break
        groups.append((at + 1, end))
        at = end + 1
        while at < len(text) and text[at] in " \t":
            at += 1
    if not groups:
        return fault.message, span
    if len(groups) == 1:
        start, end = groups[0]
        shown = text[start:end].strip()
        start += len(text[start:end]) - len(text[start:end].lstrip())
        return f"`{shown}`: {fault.message}", source.span(start, start + len(shown))
    start, end = m.start(), groups[-1][1] + 1
    return f"`{text[start:end]}`: {fault.message.replace('index', 'row-major index', 1)}", source.span(start, end)


def _closing(text: str, at: int) -> int | None:
    depth = 0
    for i in range(at, min(len(text), at + 400)):
        if text[i] == "[":
            depth += 1
        elif text[i] == "]":
            depth -= 1
            if depth == 0:
                return i
        elif text[i] == "\n":
            return None
    return None


def _coords(xyz: tuple[int, int, int], shape) -> str:
    """`48` for a one-dimensional launch, `(3, 1, 0)` otherwise."""
    if shape is not None and tuple(shape)[1:] == (1, 1):
        return str(xyz[0])
    return f"({xyz[0]}, {xyz[1]}, {xyz[2]})"
