"""Control-flow facts about a kernel: predecessors, dominators, post-dominators, regions.

Dominators follow Cooper, Harvey and Kennedy's iterative algorithm; post-
dominators are dominators of the reversed graph, with every `ret` block
leading to one virtual exit (with `traps_exit=False`, not a block that traps
first: its lanes never come back, as from an endless loop).
"""
from __future__ import annotations

from ..nodes import Kernel, Return

EXIT = "<exit>"


def post_order(root: str, succs: dict) -> list[str]:
    """The nodes reachable from `root` in depth-first post-order (children in `succs` order),
    without recursion."""
    order, seen, stack = [], {root}, [(root, iter(succs.get(root, ())))]
    while stack:
        node, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            stack.pop()
            order.append(node)
        elif nxt not in seen:
            seen.add(nxt)
            stack.append((nxt, iter(succs.get(nxt, ()))))
    return order


def beyond(start, edges) -> set[str]:
    """The blocks one or more edges away from the blocks `start` (`edges`: label → successors, or
    predecessors)."""
    seen, todo = set(), [s for x in start for s in edges[x]]
    while todo:
        x = todo.pop()
        if x not in seen:
            seen.add(x)
            todo.extend(edges[x])
    return seen


class CFG:
    def __init__(self, k: Kernel, traps_exit: bool = True):
        self.kernel = k
        self.labels = [b.label for b in k.blocks]
        self.blocks = k.block_map()
        self.entry = self.labels[0]
        self.succs: dict[str, list[str]] = {b.label: list(b.term.targets) for b in k.blocks}
        self.preds: dict[str, list[str]] = {label: [] for label in self.labels}
        for label, targets in self.succs.items():
            for t in targets:
                self.preds[t].append(label)
        self.reachable = self.reach([self.entry])
        self._idom = self._dominators(self.entry, self.succs, self.preds)
        rsuccs = {label: list(self.preds[label]) for label in self.labels}
        rpreds = {label: list(self.succs[label]) for label in self.labels}
        rsuccs[EXIT] = [b.label for b in k.blocks if isinstance(b.term, Return)
                        and (traps_exit or not any(ins.op == "trap" for ins in b.instrs))]
        rpreds[EXIT] = []
        for label in rsuccs[EXIT]:
            rpreds[label].append(EXIT)
        self._ipdom = self._dominators(EXIT, rsuccs, rpreds)

    @staticmethod
    def _dominators(root: str, succs: dict, preds: dict) -> dict[str, str]:
        rpo = post_order(root, succs)[::-1]
        index = {n: i for i, n in enumerate(rpo)}
        idom = {root: root}

        def intersect(a, b):
            while a != b:
                while index[a] > index[b]:
                    a = idom[a]
                while index[b] > index[a]:
                    b = idom[b]
            return a

        changed = True
        while changed:
            changed = False
            for n in rpo[1:]:
                done = [p for p in preds.get(n, ()) if p in idom]
                if not done:
                    continue
                new = done[0]
                for p in done[1:]:
                    new = intersect(p, new)
                if idom.get(n) != new:
                    idom[n] = new
                    changed = True
        return idom

    def dominates(self, a: str, b: str) -> bool:
        """Does every path from the entry to b pass a?"""
        if b not in self._idom:
            return False
        while True:
            if a == b:
                return True
            parent = self._idom[b]
            if parent == b:
                return False
            b = parent

    def post_dominates(self, a: str, b: str) -> bool:
        """Does every path from b to a return pass a?"""
        if b not in self._ipdom:
            return False
        while True:
            if a == b:
                return True
            parent = self._ipdom[b]
            if parent == b:
                return False
            b = parent

    def ipdom(self, label: str) -> str | None:
        p = self._ipdom.get(label)
        return None if p is None or p == label else p

    def natural_loops(self) -> dict[str, set[str]]:
        """Each loop head → the blocks of its natural loop (the union over its back edges)."""
        found: dict[str, set[str]] = {}
        for label in self.labels:
            if label not in self.reachable:
                continue
            for head in self.succs[label]:
                if self.dominates(head, label):          # a back edge label → head
                    body, todo = {head}, [label]
                    while todo:
                        x = todo.pop()
                        if x not in body:
                            body.add(x)
                            todo.extend(self.preds[x])
                    found.setdefault(head, set()).update(body)
        return found

    def reach(self, start, stop: str | None = None) -> set[str]:
        """The blocks reachable from `start` (included) without passing `stop`."""
        inside, todo = set(), list(start)
        while todo:
            label = todo.pop()
            if label == stop or label in inside:
                continue
            inside.add(label)
            todo.extend(self.succs[label])
        return inside

    def region(self, entry: str, exit_: str) -> set[str] | None:
        """The blocks from `entry` up to (not including) `exit_`, if they form a single-entry,
        single-exit region: entered only at `entry`, left only into `exit_`. Else None."""
        if entry == exit_:
            return set()
        inside = self.reach([entry], exit_)
        for label in inside:
            if label != entry and any(p not in inside for p in self.preds[label]):
                return None          # entered from outside, not at `entry`
            if label == entry and any(p in inside for p in self.preds[label]):
                return None          # a loop back to the entry: the wait would be inside its own loop
            if any(s not in inside and s != exit_ for s in self.succs[label]):
                return None          # leaves somewhere other than `exit_`
        if exit_ != EXIT and not any(exit_ in self.succs[label] for label in inside):
            return None
        return inside
