"""Where a scan's two operations may stand (E0419), which is what makes a scan safe at any grid.

A block's `tile s` takes the next tile of `s` (an atomic counter), and its `exclusive s(v)` (or
`inclusive`) waits until every earlier tile has added its values. That wait ends because of the
shape these rules give a kernel:

  * `tile s` and then one `exclusive`/`inclusive` of `s`, each the whole value of a `let` or `var`
    at the top level of the kernel's body: every thread of every block runs each once, in order
    (the block's leader adds for the block, and the block's barriers spread the result);
  * no `return` before the scan, so no thread leaves with its block's tile untaken or unadded;
  * nothing between the two that can wait for another thread but the block's own `barrier`: no
    primitive operation, no other scan, and no `while` loop, here or in a function it calls (a
    hand-written wait is a loop that re-reads memory; `for` loops end by themselves).

So the block that holds tile t - 1 took it before the block of tile t did, has been running since,
and reaches its scan without waiting for anyone but its own threads and, there, the tiles before
it: by induction from tile 0, which waits for nobody, every scan ends, whatever the grid, however
many blocks fit on the GPU at once, and in whatever order the GPU starts them.
"""
from __future__ import annotations

import dataclasses

from ..core.diagnostics import Note
from . import ast as A
from .check_context import CheckContext

# statements and expressions that may wait for another thread (besides the block's `barrier`)
_SYNC = (A.Critical, A.Acquire, A.RwSection, A.When, A.TryGet, A.PrimOp, A.Put, A.Get, A.TryLock, A.TryPut,
         A.TryWait, A.ForEach, A.Tile, A.Scan)


def _nodes(x):
    """Every AST node in `x` (a node or a tuple of them), `x` first."""
    if isinstance(x, tuple):
        for item in x:
            yield from _nodes(item)
    elif dataclasses.is_dataclass(x) and not isinstance(x, type):
        yield x
        for f in dataclasses.fields(x):
            if f.name != "span":
                yield from _nodes(getattr(x, f.name))


class ScanRules:
    def __init__(self, cx: CheckContext):
        self.cx = cx

    def check_kernel(self, k: A.Kernel) -> None:
        uses = [n for n in _nodes(k.body) if isinstance(n, (A.Tile, A.Scan))]
        if not uses:
            return
        top = {id(s.value): i for i, s in enumerate(k.body.stmts) if isinstance(s, A.Let)}
        by_scan: dict[str, list] = {}
        for n in uses:
            sym = self.cx.refs.get(n.place)
            if sym is None or sym.kind != "prim" or sym.info.kind != "scan":
                continue                  # (the checker said what is wrong with the place)
            if id(n) not in top:
                self.cx.error("E0419", f"`{_op(n)}` must be the whole value of a `let` or `var` at the top level "
                              "of the kernel's body", n.span,
                              help=f"every thread of every block runs it once: `let {_example(n)}`, outside any "
                                   "`if` or loop")
                continue
            by_scan.setdefault(n.place.name.text, []).append(n)
        for name, ops in by_scan.items():
            self._one_scan(k, name, ops, top)

    def _one_scan(self, k: A.Kernel, name: str, ops: list, top: dict[int, int]) -> None:
        tiles = [n for n in ops if isinstance(n, A.Tile)]
        scans = [n for n in ops if isinstance(n, A.Scan)]
        extras = tiles[1:] + scans[1:]
        for extra in extras:
            self.cx.error("E0419", f"a block runs one `tile {name}` and one `exclusive`/`inclusive` of it; "
                          "this is another", extra.span,
                          notes=[Note("the first is here", (tiles + scans)[0].span)])
        if extras:
            return
        if not tiles or not scans:
            missing, have = ("tile", scans[0]) if not tiles else ("exclusive", tiles[0])
            why = ("each block adds the values of its tile, which it takes first: `let t = tile "
                   f"{name}`" if missing == "tile" else
                   "a block that takes a tile and never adds to the scan leaves every later tile waiting")
            self.cx.error("E0419", f"the scan `{name}` needs its `{missing}` too", have.span, notes=[Note(why)],
                          help=f"`let t = tile {name}` first, then `let before = exclusive {name}(v)`")
            return
        tile, scan = tiles[0], scans[0]
        at_tile, at_scan = top[id(tile)], top[id(scan)]
        if at_scan < at_tile:
            self.cx.error("E0419", f"`{_op(scan)}` before the block's `tile {name}`", scan.span,
                          notes=[Note("the tile is taken here", tile.span)],
                          help="take the tile first: the scan adds the values of the block's tile")
            return
        for s in k.body.stmts[:at_scan]:
            for n in _nodes(s):
                if isinstance(n, A.Return):
                    self.cx.error("E0419", f"a `return` before the scan `{name}` adds this block's values",
                                  n.span, notes=[Note("a block that leaves without adding them leaves every "
                                                      "later tile waiting", scan.span)],
                                  help="guard the work instead (`if i < n { ... }`) and return after the scan")
        for s in k.body.stmts[at_tile + 1:at_scan]:
            for n in _nodes(s):
                loop = n if isinstance(n, A.While) else self._loop_in_call(n, set())
                if isinstance(n, _SYNC) or loop is not None:
                    what = "a wait" if loop is None else "a `while` loop, which may wait for another thread,"
                    self.cx.error("E0419", f"{what} between `tile {name}` and `{_op(scan)}`", n.span,
                                  notes=[Note("later tiles wait for this block's scan, so nothing between "
                                              "its tile and its scan may wait for another thread", scan.span)]
                                  + ([Note("the loop is here", loop.span)] if loop is not None and loop is not n
                                     else []),
                                  help="move it before the `tile` or after the scan"
                                       + (" (a loop of a known count is a `for`)" if loop is not None else "")
                                       + "; the block's `barrier` may stay")

    def _loop_in_call(self, n, seen: set) -> A.While | None:
        """The first `while` loop of the user function `n` calls, or of one it calls in turn."""
        if not isinstance(n, A.Call):
            return None
        sym = self.cx.refs.get(n.func)
        fn = getattr(sym, "decl", None) if sym is not None and sym.kind == "fn" else None
        if not isinstance(fn, A.Fn) or id(fn) in seen:
            return None
        seen.add(id(fn))
        for m in _nodes(fn.body):
            if isinstance(m, A.While):
                return m
            found = self._loop_in_call(m, seen)
            if found is not None:
                return found
        return None


def _op(n) -> str:
    if isinstance(n, A.Tile):
        return f"tile {n.place.name.text}"
    return f"{'inclusive' if n.inclusive else 'exclusive'} {n.place.name.text}(...)"


def _example(n) -> str:
    return f"t = tile {n.place.name.text}" if isinstance(n, A.Tile) else \
        f"before = {'inclusive' if n.inclusive else 'exclusive'} {n.place.name.text}(v)"
