"""Where the work of a blocking wait ends: the questions the structure pass asks to move that
work into the wait's polling loop (passes/structure.py), and that the hazard checks ask of the
same waits (checks/waits.py, schedule.py, barriers.py). Queries only: nothing here changes a
kernel.
"""
from __future__ import annotations

from .cfg import CFG
from ..nodes import Imm, Instr, Kernel
from ..ops import BLOCKING_PRIM, RELEASES
from .regions import encloses
from .values import Values

_REGION_ENDS = ("mutex.unlock", "sem.post", "rw.unlock", "region.end")


def _pure(ins: Instr) -> bool:
    return ins.info.group in ("arith", "special")


def waits_together(block, index: int) -> list[int]:
    """The waits that poll together, starting at instruction `index`: a `when`'s inputs
    (one region, nothing but index arithmetic between them), or the one wait alone."""
    region = block.instrs[index].attr("region")
    waits = [index]
    if region is not None:
        for j in range(index + 1, len(block.instrs)):
            ins = block.instrs[j]
            if ins.op in BLOCKING_PRIM and ins.attr("region") == region:
                waits.append(j)
            elif not _pure(ins):
                break
    return waits


UNPAIRED = "unpaired"


def release_point(k: Kernel, cfg: CFG, label: str, last: int, first: Instr):
    """Where the work that must run inside the polling loop ends: (block, index of its last
    instruction); None for an empty body; UNPAIRED for a `lock` no `unlock` closes."""
    region = first.attr("region")
    if region is not None:
        for b in k.blocks:
            for j, ins in enumerate(b.instrs):
                if ins.attr("region") == region and ins.op in _REGION_ENDS:
                    return b.label, j
        return None
    if first.op == "mutex.lock":
        for end_label, j in unlocks_of(k, first):
            if encloses(cfg, label, last, end_label, j):
                return end_label, j
        return UNPAIRED
    if first.op in _QUEUE_RELEASE or first.attr("queue") in _LOCKED_PARTNER:
        return _queue_release(k, cfg, label, last, first)
    # get / await / wait: the latest release that closes a region with the wait, among the
    # code that only runs after it (a release elsewhere is the hazard analysis's business), and
    # with no collective in between: a barrier or a warp meeting moved into the polling loop
    # would be reached by the lanes whose input came, while the others still poll
    # A release inside a branch (`wait s; if c { post t }`) is closed by the end of the branch: the
    # body then runs up to the point where the branch's paths meet again.
    releases = [(b.label, j) for b in k.blocks if b.label in cfg.reachable and cfg.dominates(label, b.label)
                for j, ins in enumerate(b.instrs) if ins.op in RELEASES and (b.label != label or j > last)]
    for end_label, j in sorted(releases, key=lambda r: _order(k, r), reverse=True):
        for end in _closing_points(cfg, label, end_label, j):
            if encloses(cfg, label, last, *end) and not _collective_between(k, cfg, (label, last), end):
                return end
    return None


# a `ring` queue's wait → the operation that releases its slot, and which result is the ticket
_QUEUE_RELEASE = {"queue.reserve": (("queue.publish", "queue.give"), 0), "queue.claim": (("queue.free",), 0),
                  "queue.next": (("queue.free",), 1), "queue.take": (("queue.free",), 0),
                  "queue.nexttake": (("queue.free",), 1),
                  # a range put's wait for a ticket it took before: the ticket is its operand
                  "queue.reserveat": (("queue.publish", "queue.give"), None)}
_LOCKED_PARTNER = {"put": ("space", "items"), "get": ("items", "space")}   # a `locked` queue's semaphores


def _queue_release(k: Kernel, cfg: CFG, label: str, last: int, first: Instr):
    """A queue's put or get ends at its own release: the publication or free of its ticket (a
    `ring` queue), or the post of the other semaphore that follows it (a `locked` one), closed
    as a release in a branch is. Not at a later release of the thread (its next `put`, a
    `close`): that would put the next operation's polling loop inside this one, where lanes
    that got through would poll for a slot that lanes of their warp still waiting here must
    fill or empty first (a SIMT deadlock on Fermi)."""
    if first.op in _QUEUE_RELEASE:
        ops, which = _QUEUE_RELEASE[first.op]
        ticket = first.dests[which] if which is not None else first.args[1]
        ends = [(b.label, j) for b in k.blocks for j, ins in enumerate(b.instrs)
                if ins.op in ops and ins.args[1] == ticket]
    else:
        mine, other = _LOCKED_PARTNER[first.attr("queue")]
        partner = first.ref.name.removesuffix(mine) + other
        values = Values(k)
        ends = sorted(((b.label, j) for b in k.blocks if b.label in cfg.reachable and cfg.dominates(label, b.label)
                       for j, ins in enumerate(b.instrs)
                       if ins.op == "sem.post" and ins.ref.name == partner and (b.label != label or j > last)
                       and values.same(ins.ref.index, first.ref.index)), key=lambda r: _order(k, r))[:1]
    for end_label, j in ends:
        for end in _closing_points(cfg, label, end_label, j):
            if encloses(cfg, label, last, *end) and not _collective_between(k, cfg, (label, last), end):
                return end
    return None


def _closing_points(cfg: CFG, wait_label: str, label: str, j: int):
    """The release itself, then the starts of the blocks where the paths around it meet again
    (its block's post-dominators still inside the wait's region), innermost first."""
    yield label, j
    x = cfg.ipdom(label)
    while x is not None and x in cfg.labels and cfg.dominates(wait_label, x) and x != wait_label:
        yield x, -1
        x = cfg.ipdom(x)


def is_collective(k: Kernel, ins: Instr) -> bool:
    """Does the instruction wait for a group of threads to meet (a block, named or grid barrier, a
    warp meeting, an operation of a @warp or @block party)?"""
    if ins.op in ("bar.sync", "bar.arrive"):
        return True
    if ins.op == "warp.sync":
        # `syncwarp()`'s full mask waits for every lane; a mask read with `activemask` (warp
        # combining's turns, a @warp party's meeting) is whoever is here, and waits for no one else
        return isinstance(ins.args[0], Imm)
    prim = k.prim(ins.ref.name) if ins.ref is not None and ins.info.group == "prim" else None
    return prim is not None and (prim.kind == "barrier" or prim.granularity in ("warp", "block", "grid")
                                 and prim.kind != "channel")


def _collective_between(k: Kernel, cfg: CFG, start: tuple[str, int], end: tuple[str, int]) -> bool:
    """Is there a collective on some path strictly between the two instructions?"""
    (label, i), (end_label, j) = start, end
    blocks = k.block_map()
    if label == end_label:
        return any(is_collective(k, ins) for ins in blocks[label].instrs[i + 1:j])
    if any(is_collective(k, ins) for ins in blocks[label].instrs[i + 1:]):
        return True
    seen, todo = set(), list(cfg.succs[label])
    while todo:
        x = todo.pop()
        if x in seen or x == label:
            continue
        seen.add(x)
        code = blocks[x].instrs[:j] if x == end_label else blocks[x].instrs
        if any(is_collective(k, ins) for ins in code):
            return True
        if x != end_label:
            todo.extend(cfg.succs[x])
    return False


def unlocks_of(k: Kernel, lock: Instr) -> list[tuple[str, int]]:
    """The unlocks of the instance `lock` takes (the same index value, however computed)."""
    values = Values(k)
    return [(b.label, j) for b in k.blocks for j, ins in enumerate(b.instrs)
            if ins.op == "mutex.unlock" and ins.ref.name == lock.ref.name
            and values.same(ins.ref.index, lock.ref.index)]


def _order(k: Kernel, pos) -> int:
    label, j = pos
    n = 0
    for b in k.blocks:
        if b.label == label:
            return n + j
        n += len(b.instrs) + 1
    return n
