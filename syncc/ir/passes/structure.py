"""SIMT-safe structuring: every blocking wait of a @thread primitive becomes a polling loop.

Guarantee: afterwards no @thread primitive has a blocking wait (mutex.lock,
sem.wait, rw.lock, chan.get, chan.await, latch.wait, queue.reserve, queue.claim, queue.next,
queue.reserveat).
Each became

    pre:    enter (a ticket, or nothing), done = false
    head:   poll each input once (those not already had)    ── seed 000 Listing 15
            br ready, body, latch
    body:   the work up to and including the release         ── Listings 7 and 8
            done = true; jmp latch
    latch:  br done, after, head

so a lane that acquires runs its critical section and releases *inside* the
divergent path, before the warp reconverges at `after`. No lane of a warp can
then wait at the reconvergence point for a lane that waits for it: the SIMT
deadlock of stack-based reconvergence cannot happen.

Where the release lies: for `critical`, `acquire`, `read`/`write` and `when`
(region=N) it is the unlock, the post or the end of the body. For low-level `lock m` it is the
matching `unlock m`, which must close a single-entry single-exit region
(E0715 otherwise). For a low-level `get`, `await` or `wait` (a semaphore's or
a latch's) it is the last release (put, signal, post, unlock, count_down) inside the code that only runs after the
wait; with none, the loop body is empty (a plain spin), which is safe unless
the value comes from the waiter's own warp (see hazards.py).

Nested locks on one @thread mutex array (ir/analysis/lock_nests.py: a `critical` right inside a
`critical` of the same array, or `lock`s one after the other, with nothing but arithmetic and
loads between them) would each get a loop, and a lane that got every level would wait where its
warp meets after the inner loop, still holding its outer element, which a lane of its warp may
poll for: on a stack-based target where the warp reconverges (seed 000 §4.4.1), with independent
thread scheduling at the convergence barrier (BSYNC) ptxas closes the inner loop with (an H200
hung so on a nest of backoff locks: docs/targets.md). So on every target, when the
implementation can give a lock back (tas, ttas, backoff, tinylock), the nest becomes one
all-or-nothing loop instead:

    pre:    the arithmetic between the locks; done = false; enter the outermost
    head:   poll the outermost                          br ok, take, latch
    take:   the loads between the two locks (an index read under the levels taken) and what
            reads them, then one attempt at the next level (trylock)
                                                        br ok, take.1 ... body, back
    body:   the work up to the outermost release, every level released inside it
            done = true; jmp latch
    back:   give back the levels the round took, innermost first (giveback=head), and pause
            (the outermost's mutex.pause: a backoff lock's sleep); jmp latch
    latch:  br done, after, head

so every lane leaves a round holding every level or none: none waits holding one. Whether the
nest's elements are taken in one order by every thread (else two lanes could give them back and
take them again forever) is the hazard analyses' question (checks/locks.py, E0701 and E0703).
"""
from __future__ import annotations

from dataclasses import field

from ...core.diagnostics import Note
from ...core.prebuilt import dataclass
from ...core.types import BOOL, I32
from ..builder import KernelBuilder, fieldwise
from ..analysis.cfg import CFG
from ..context import PassContext
from ..analysis.lock_nests import Nest, can_give_up, nest_at
from ..nodes import Instr, Kernel, Reg, imm
from ..ops import BLOCKING_PRIM
from ..analysis.wait_regions import UNPAIRED, release_point, unlocks_of, waits_together

_POLL = {"mutex.lock": "mutex.poll", "sem.wait": "sem.poll", "chan.get": "chan.poll", "chan.await": "chan.poll",
         "rw.lock": "rw.poll", "latch.wait": "latch.poll", "queue.reserve": "queue.poll", "queue.claim": "queue.poll",
         "queue.next": "queue.pollnext", "queue.take": "queue.polltake", "queue.nexttake": "queue.pollnexttake",
         "queue.reserveat": "queue.poll"}
_ENTER = {"mutex.lock": "mutex.enter", "sem.wait": "sem.enter", "rw.lock": "rw.enter",
          "queue.reserve": "queue.enter", "queue.claim": "queue.enter", "queue.next": "queue.enter",
          "queue.take": "queue.enter", "queue.nexttake": "queue.enter"}
# which result is the ticket its enter takes
_TICKET = {"queue.reserve": 0, "queue.claim": 0, "queue.next": 1, "queue.take": 0, "queue.nexttake": 1}
# a wait for the slot of a ticket taken before (a range put's, queue.reservemany): which operand it is
_GIVEN_TICKET = {"queue.reserveat": 1}
# a queue poll that defines some of its wait's results besides `ready`: which ones (whether a
# value came, not the queue's end; a wide ring slot's value)
_POLL_ALSO = {"queue.pollnext": (0,), "queue.pollnexttake": (0, 2), "queue.polltake": (1,)}
_CARRIED = ("mode",)      # attributes of a wait that its enter and poll keep (an rwlock's read or write)


def _carried(w: Instr) -> dict:
    return {a: w.attr(a) for a in _CARRIED if w.attr(a) is not None}


def structure(k: Kernel, ctx: PassContext) -> Kernel:
    refused: set[tuple] = set()
    while True:
        found = _next_wait(k, refused)
        if found is None:
            return k
        label, index = found
        result = _restructure(k, label, index, ctx)
        if result is None:
            refused.add((label, index, k.block_map()[label].instrs[index]))
        else:
            k = result


def _next_wait(k: Kernel, refused) -> tuple[str, int] | None:
    for b in k.blocks:
        for i, ins in enumerate(b.instrs):
            # a lock taken by a party's leader (party=warp, from combine_warps) is one lane's wait
            if ins.op in BLOCKING_PRIM and ins.attr("party") is None and (b.label, i, ins) not in refused:
                prim = k.prim(ins.ref.name)
                if prim is not None and prim.granularity == "thread":
                    return b.label, i
    return None


def _restructure(k: Kernel, label: str, index: int, ctx: PassContext) -> Kernel | None:
    """Turn the wait at `index` of block `label` (and the waits that poll with it) into a polling
    loop; None, after reporting E0715, for a `lock` no `unlock` closes."""
    block = k.block_map()[label]
    first = block.instrs[index]
    cfg = CFG(k)
    nest = nest_at(k, cfg, label, index)
    if nest is not None and can_give_up(k, first.ref.name):
        return _all_or_nothing(k, nest, ctx)
    # The waits that poll together: a tagged region's, or this one alone.
    waits = waits_together(block, index)
    last = waits[-1]
    end = release_point(k, cfg, label, last, first)
    if end is UNPAIRED:
        _report_unpaired(k, first, ctx)
        return None
    b = KernelBuilder.thaw(k)
    b.span_now = first.span
    loop = _PollingLoop(b, first, label, [block.instrs[j] for j in waits])
    # the index arithmetic between the waits runs once, before the loop
    between = [ins for j, ins in enumerate(block.instrs[index:last + 1], index) if j not in waits]
    loop.build_pre(list(block.instrs[:index]) + between)
    loop.open_body(list(block.instrs[last + 1:]), block.term)
    loop.close_body(_release_in_body(end, label, last, loop.body))
    loop.build_head_and_latch()
    _define_before_loop(b, label, loop.head, loop.latch)
    ctx.remark(k.name, "structure", _remark(first, loop.waits, end), first.span)
    return b.freeze()


def _all_or_nothing(k: Kernel, nest: Nest, ctx: PassContext) -> Kernel:
    """The nest's locks as one polling loop whose round takes every level or none (the module
    docstring): built as the outermost lock's loop, whose head then tries the inner levels."""
    block = k.block_map()[nest.label]
    levels = [block.instrs[j] for j in nest.locks]
    first, last = levels[0], nest.locks[-1]
    b = KernelBuilder.thaw(k)
    b.span_now = first.span
    loop = _PollingLoop(b, first, nest.label, [first])
    # what lies between two levels (an index computed, or read under the levels before) runs in
    # each round that gets that far, before the attempt at the inner one; the arithmetic that
    # reads nothing loaded there runs once, before the loop
    between = [list(block.instrs[i + 1:j]) for i, j in zip(nest.locks, nest.locks[1:])]
    hoisted, between = _hoist_arithmetic(between)
    loop.build_pre(list(block.instrs[:nest.locks[0]]) + hoisted)
    loop.open_body(list(block.instrs[last + 1:]), block.term)
    loop.close_body(_release_in_body(nest.releases[0], nest.label, last, loop.body))
    _take_every_level(loop, levels, between)
    _define_before_loop(b, nest.label, loop.head, loop.latch)
    lines = sorted({lv.span.line for lv in levels if lv.span})
    where = f" (lines {', '.join(map(str, lines))})" if len(lines) > 1 else ""
    ctx.remark(k.name, "structure", f"the {len(levels)} nested locks on `{first.ref.name}`{where} are taken "
               "all-or-nothing in one polling loop: each round tries every level in order and gives back what it "
               "took when the next is held, so no lane waits holding one where its warp reconverges", first.span)
    return b.freeze()


def _hoist_arithmetic(between: list[list[Instr]]) -> tuple[list[Instr], list[list[Instr]]]:
    """Split what lies between the levels into the arithmetic that reads nothing a load there
    defines (it can run once, before the loop) and what must run in the round."""
    hoisted, kept, loaded = [], [], set()
    for code in between:
        here = []
        for ins in code:
            if ins.op != "ld" and not any(isinstance(a, Reg) and a.name in loaded for a in ins.args):
                hoisted.append(ins)
            else:
                here.append(ins)
                loaded.update(d.name for d in ins.dests)
        kept.append(here)
    return hoisted, kept


def _take_every_level(loop: _PollingLoop, levels: list[Instr], between: list[list[Instr]]) -> None:
    """head: poll the outermost level; a `take` block per inner level: what lies between it and
    the level before (`between`), then one attempt at it (a trylock: it leaves nothing behind
    when it fails, and does not pause holding the levels before it), on to the next (the last:
    the body) when it succeeds, else to the `back` blocks, which give back the levels taken,
    innermost first, pause, and go to the latch; latch: leave once the body ran."""
    b, first = loop.b, loop.first
    attrs = dict(loop=loop.head, body=loop.body, latch=loop.latch)
    takes, at = [], loop.head
    for _ in levels[1:]:
        at = b.new_block("take", after=at)
        takes.append(at)
    backs, at = [""] * len(takes), loop.body
    for i in reversed(range(len(takes))):       # back[i] gives back level i: laid out innermost first
        backs[i] = at = b.new_block("back", after=at)
    b.at(loop.head)
    ok = _emit_poll(b, first, loop.tokens[0], dict(region=first.attr("region"), **attrs))
    b.branch(ok, takes[0], loop.latch, first.span)
    for i, (level, take) in enumerate(zip(levels[1:], takes)):
        b.at(take)
        b.code[take].extend(between[i])
        got = b.op("mutex.trylock", BOOL, level.ref, hint="ok", span=level.span, region=level.attr("region"),
                   **attrs)
        b.branch(got, takes[i + 1] if i + 1 < len(takes) else loop.body, backs[i], level.span)
    for i, back in enumerate(backs):
        b.at(back)
        b.emit("mutex.unlock", (), (levels[i].ref,), levels[i].span, giveback=loop.head)
        if i == 0:
            b.emit("mutex.pause", (), (first.ref, loop.tokens[0]), first.span)
        b.jump(backs[i - 1] if i > 0 else loop.latch, levels[i].span)
    b.at(loop.latch)
    b.branch(loop.done, loop.after, loop.head, first.span)


def _release_in_body(end: tuple[str, int] | None, label: str, last: int, body: str) -> tuple[str, int]:
    """The release point once the waits' block is split: (block, index of the last instruction
    the loop runs; -1 for none of that block). No release means an empty body."""
    if end is None:
        return body, -1
    end_label, end_index = end
    if end_label == label:      # what followed the waits in their block now starts the body
        return body, end_index - (last + 1)
    return end_label, end_index


@dataclass
class _PollingLoop:
    """The loop that replaces the waits of block `pre`, while it is built (its shape: the module
    docstring). The blocks are made in a fixed order, which fixes the fresh names they take."""
    b: KernelBuilder
    first: Instr                # the first wait: the loop's span, and what kind of body it has
    pre: str                    # the waits' block: it keeps what came before them, and enters the loop
    waits: list[Instr]          # the waits that poll together
    done: Reg | None = None     # set at the release: the body ran, so the latch leaves the loop
    tokens: list[Reg | None] = field(default_factory=list)  # per wait, the ticket its enter took, if any
    flags: list[Reg] = field(default_factory=list)          # with several waits: per wait, has it been had
    head: str = ""
    body: str = ""
    latch: str = ""
    after: str = ""

    def build_pre(self, kept: list[Instr]) -> None:
        """pre: `kept`, then `done = false`, each wait's enter, and with several waits a `got` flag
        per wait; then jump to the head."""
        b = self.b
        b.code[self.pre] = kept
        b.terms[self.pre] = None
        b.at(self.pre)
        self.done = b.reg(BOOL, "done")
        b.assign(self.done, imm(False, BOOL))
        for w in self.waits:
            self.tokens.append(b.op(_ENTER[w.op], I32, w.ref, *_permits(w), hint="ticket", span=w.span,
                                    **_carried(w)) if w.op in _ENTER else
                               w.args[_GIVEN_TICKET[w.op]] if w.op in _GIVEN_TICKET else None)
            if w.op in _TICKET:
                b.assign(w.dests[_TICKET[w.op]], self.tokens[-1], w.span)
            if len(self.waits) > 1:
                got = b.reg(BOOL, "got")
                b.assign(got, imm(False, BOOL))
                self.flags.append(got)
                # its poll sits behind its flag, so a path skips it: its results get a value before the loop
                for d in w.dests:
                    b.assign(d, imm(0, d.type))
        self.head = b.new_block("spin", after=self.pre)
        b.jump(self.head)

    def open_body(self, rest: list[Instr], term) -> None:
        """Make the body, latch and reconverge blocks; the body starts with what followed the waits
        in their block, and ends with that block's terminator until the release closes it."""
        b = self.b
        self.body = b.new_block("crit" if self.first.op in ("mutex.lock", "rw.lock") else "fire", after=self.head)
        self.latch = b.new_block("latch", after=self.body)
        self.after = b.new_block("reconverge", after=self.latch)
        b.code[self.body] = rest
        b.terms[self.body] = term

    def close_body(self, end: tuple[str, int]) -> None:
        """Split the release's block after the release: what comes up to it stays in the loop and
        ends with `done = true; jmp latch`; the rest, and the block's terminator, move to `after`."""
        b = self.b
        end_label, end_index = end
        end_block = b.code[end_label]
        end_ins = end_block[end_index] if end_index >= 0 else None
        tail = end_block[end_index + 1:]
        keep = end_block[:end_index + 1]
        if end_ins is not None and end_ins.op == "region.end":
            keep = keep[:-1]    # a `when` body's end marker: only this pass needed it
        b.code[self.after] = tail
        b.terms[self.after] = b.terms[end_label]
        b.code[end_label] = keep
        b.terms[end_label] = None
        b.at(end_label)
        b.assign(self.done, imm(True, BOOL), end_ins.span if end_ins else self.first.span)
        b.jump(self.latch)

    def build_head_and_latch(self) -> None:
        """head: poll every input not had yet, and enter the body once all are; latch: leave the
        loop once the body ran, else go round again."""
        b, span = self.b, self.first.span
        b.at(self.head)
        attrs = dict(region=self.first.attr("region"), loop=self.head, body=self.body, latch=self.latch)
        if self.flags:
            ready = self._poll_each(attrs)
        else:
            ready = _emit_poll(b, self.waits[0], self.tokens[0], attrs)
        b.branch(ready, self.body, self.latch, span)
        b.at(self.latch)
        b.branch(self.done, self.after, self.head, span)

    def _poll_each(self, attrs: dict) -> Reg:
        """Several waits: poll each one whose flag is still false, in a block of its own, and set
        its flag; ready when every flag is set."""
        b = self.b
        for w, tok, got in zip(self.waits, self.tokens, self.flags):
            poll = b.new_block("poll", after=b.current)
            had = b.new_block("had", after=poll)
            b.branch(got, had, poll, w.span)
            b.at(poll)
            b.assign(got, _emit_poll(b, w, tok, attrs), w.span)
            b.jump(had)
            b.at(had)
        ready = self.flags[0]
        for got in self.flags[1:]:
            ready = b.op("and", BOOL, ready, got, hint="ready")
        return ready


def _remark(first: Instr, waits: list[Instr], end: tuple[str, int] | None) -> str:
    what = {"mutex.lock": "critical section", "sem.wait": "semaphore-guarded block", "chan.get": "consumer",
            "chan.await": "consumer", "latch.wait": "latch waiter",
            "rw.lock": f"`{first.attr('mode')}` section", "queue.reserve": "`put`", "queue.claim": "`get`",
            "queue.next": "`for` loop's get", "queue.take": "`get`", "queue.nexttake": "`for` loop's get",
            "queue.reserveat": "range `put`'s slot"}[first.op]
    prims = ", ".join(sorted({f"`{w.ref.name}`" for w in waits}))
    if end is None:
        return f"the wait on {prims} became a polling loop (nothing after it releases anything)"
    return (f"the {what} on {prims} runs inside the polling loop up to its release, so a warp "
            f"cannot deadlock on itself (seed 000 Listings 7, 8, 15)")


def _define_before_loop(b: KernelBuilder, pre: str, head: str, latch: str) -> None:
    """Registers the loop body defines and later code reads get a value before the loop too.
    The loop is left only after the body ran, so the value read is always the body's; but the
    verifier's (path-insensitive) definite assignment, and register allocators, need one on
    every path."""
    loop, todo = set(), [head]
    while todo:
        x = todo.pop()
        if x not in loop:
            loop.add(x)
            if x != latch:
                todo.extend(b.terms[x].targets)
    defined = {d.name: d for x in loop for ins in b.code[x] for d in ins.dests}
    read = set()
    for x in b.order:
        if x in loop:
            continue
        for ins in b.code[x]:
            read.update(a.name for a in ins.args if isinstance(a, Reg))
            read.update(a.index.name for a in ins.args if isinstance(getattr(a, "index", None), Reg))
        term = b.terms[x]
        if isinstance(getattr(term, "cond", None), Reg):
            read.add(term.cond.name)
    for name in sorted(read & set(defined)):
        d = defined[name]
        b.code[pre].append(Instr("mov", (d,), (imm(0, d.type),), (), b.span_now))


def _emit_poll(b: KernelBuilder, w: Instr, tok: Reg | None, attrs) -> Reg:
    op = _POLL[w.op]
    if op in _POLL_ALSO:                 # ready, then results of the wait the poll defines itself
        ok = b.reg(BOOL, "ok")
        b.emit(op, (ok, *(w.dests[i] for i in _POLL_ALSO[op])), (w.ref, tok), w.span, **attrs)
        return ok
    if op == "chan.poll":
        ok = b.reg(BOOL, "ok")
        value = b.reg(b.prim(w.ref.name).elem, "value")      # (a record's: one register per field)
        b.emit(op, (ok, value), (w.ref,), w.span, **attrs)
        for d, v in zip(w.dests, fieldwise((value,))):          # (an await has none)
            b.assign(d, v, w.span)
        return ok
    if tok is None:         # a latch: nothing entered
        return b.op(op, BOOL, w.ref, hint="ok", span=w.span, **attrs)
    return b.op(op, BOOL, w.ref, tok, *_permits(w), hint="ok", span=w.span, **attrs, **_carried(w))


def _permits(w: Instr) -> tuple:
    """A semaphore wait's number of permits, where it has one (`sem.wait @s[0], %k`), which its
    enter and poll keep as their last operand."""
    return w.args[1:] if w.info.permits else ()


def _report_unpaired(k: Kernel, lock: Instr, ctx: PassContext) -> None:
    blocks = k.block_map()
    notes = [Note("the unlock is here", blocks[lbl].instrs[j].span) for lbl, j in unlocks_of(k, lock)[:1]]
    ctx.sink.error("E0715", f"`lock` of `{lock.ref.name}` has no `unlock` that every path from it reaches "
                   "within the same block structure", lock.span, notes=notes,
                   help="unlock in the same block as the lock, or write `critical m { ... }`")
