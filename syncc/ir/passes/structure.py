"""SIMT-safe structuring: every blocking wait of a @thread primitive becomes a polling loop.

Guarantee: afterwards no @thread primitive has a blocking wait (mutex.lock,
sem.wait, rw.lock, chan.get, chan.await, latch.wait). Each became

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
"""
from __future__ import annotations

from ...core.diagnostics import Note
from ...core.types import BOOL, I32
from ..builder import KernelBuilder
from ..cfg import CFG
from ..context import PassContext
from ..nodes import Instr, Kernel, Reg, imm
from ..ops import BLOCKING_PRIM
from ..wait_regions import UNPAIRED, release_point, unlocks_of, waits_together

_POLL = {"mutex.lock": "mutex.poll", "sem.wait": "sem.poll", "chan.get": "chan.poll", "chan.await": "chan.poll",
         "rw.lock": "rw.poll", "latch.wait": "latch.poll"}
_ENTER = {"mutex.lock": "mutex.enter", "sem.wait": "sem.enter", "rw.lock": "rw.enter"}
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
    block = k.block_map()[label]
    first = block.instrs[index]
    region = first.attr("region")
    # The waits that poll together: a tagged region's, or this one alone.
    waits = waits_together(block, index)
    last = waits[-1]
    cfg = CFG(k)
    end = release_point(k, cfg, label, last, first)
    if end is UNPAIRED:
        _report_unpaired(k, first, ctx)
        return None
    b = KernelBuilder.thaw(k)
    span = first.span
    b.span_now = span
    before = list(block.instrs[:index])
    between = [ins for j, ins in enumerate(block.instrs[index:last + 1], index) if j not in waits]
    after_waits = list(block.instrs[last + 1:])
    wait_instrs = [block.instrs[j] for j in waits]

    # pre: what came before, the index arithmetic between the waits, enter, flags
    b.code[label] = before + between
    b.terms[label] = None
    b.at(label)
    done = b.reg(BOOL, "done")
    b.assign(done, imm(False, BOOL))
    tokens, flags = [], []
    for w in wait_instrs:
        tokens.append(b.op(_ENTER[w.op], I32, w.ref, hint="ticket", span=w.span, **_carried(w))
                      if w.op in _ENTER else None)
        if len(wait_instrs) > 1:
            got = b.reg(BOOL, "got")
            b.assign(got, imm(False, BOOL))
            flags.append(got)
            for d in w.dests:
                b.assign(d, imm(0, d.type))
    head = b.new_block("spin", after=label)
    b.jump(head)

    # the rest of the block is the start of the loop body; the region's end closes it
    body = b.new_block("crit" if first.op in ("mutex.lock", "rw.lock") else "fire", after=head)
    latch = b.new_block("latch", after=body)
    after = b.new_block("reconverge", after=latch)
    b.code[body] = after_waits
    b.terms[body] = block.term
    end_label, end_index = end if end is not None else (body, -1)
    if end_label == label:
        end_label, end_index = body, end_index - (last + 1)
    end_block = b.code[end_label]
    end_ins = end_block[end_index] if end_index >= 0 else None
    tail = end_block[end_index + 1:]
    keep = end_block[:end_index + 1]
    if end_ins is not None and end_ins.op == "region.end":
        keep = keep[:-1]
    b.code[after] = tail
    b.terms[after] = b.terms[end_label]
    b.code[end_label] = keep
    b.terms[end_label] = None
    b.at(end_label)
    b.assign(done, imm(True, BOOL), end_ins.span if end_ins else span)
    b.jump(latch)

    # head: poll every input not had yet
    b.at(head)
    ready = None
    attrs = dict(region=region, loop=head, body=body, latch=latch)
    for n, (w, tok) in enumerate(zip(wait_instrs, tokens)):
        if flags:
            poll = b.new_block("poll", after=b.current)
            had = b.new_block("had", after=poll)
            b.branch(flags[n], had, poll, w.span)
            b.at(poll)
        ok = _emit_poll(b, w, tok, attrs)
        if flags:
            b.assign(flags[n], ok, w.span)
            b.jump(had)
            b.at(had)
        else:
            ready = ok
    if flags:
        ready = flags[0]
        for f in flags[1:]:
            ready = b.op("and", BOOL, ready, f, hint="ready")
    b.branch(ready, body, latch, span)
    b.at(latch)
    b.branch(done, after, head, span)
    _define_before_loop(b, label, head, latch)
    what = {"mutex.lock": "critical section", "sem.wait": "semaphore-guarded block", "chan.get": "consumer",
            "chan.await": "consumer", "latch.wait": "latch waiter",
            "rw.lock": f"`{first.attr('mode')}` section"}[first.op]
    prims = ", ".join(sorted({f"`{w.ref.name}`" for w in wait_instrs}))
    if end is None:
        message = f"the wait on {prims} became a polling loop (nothing after it releases anything)"
    else:
        message = (f"the {what} on {prims} runs inside the polling loop up to its release, so a warp "
                   f"cannot deadlock on itself (seed 000 Listings 7, 8, 15)")
    ctx.remark(k.name, "structure", message, span)
    return b.freeze()


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
    if op == "chan.poll":
        ok = b.reg(BOOL, "ok")
        value = b.reg(b.prim(w.ref.name).elem, "value")
        b.emit(op, (ok, value), (w.ref,), w.span, **attrs)
        for d in w.dests:
            b.assign(d, value, w.span)
        return ok
    if tok is None:         # a latch: nothing entered
        return b.op(op, BOOL, w.ref, hint="ok", span=w.span, **attrs)
    return b.op(op, BOOL, w.ref, tok, hint="ok", span=w.span, **attrs, **_carried(w))


def _report_unpaired(k: Kernel, lock: Instr, ctx: PassContext) -> None:
    blocks = k.block_map()
    notes = [Note("the unlock is here", blocks[lbl].instrs[j].span) for lbl, j in unlocks_of(k, lock)[:1]]
    ctx.sink.error("E0715", f"`lock` of `{lock.ref.name}` has no `unlock` that every path from it reaches "
                   "within the same block structure", lock.span, notes=notes,
                   help="unlock in the same block as the lock, or write `critical m { ... }`")
