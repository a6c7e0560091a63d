"""Producer-first initialization of shared state (seed 000 §4.4.2).

Guarantee: afterwards every shared-memory state array with an initial value
is set before any thread of the block uses it, and a block barrier (bar.sync 0)
separates the setting from the first use. For a lock-bit channel this is the
producer-first rule: every slot's lock bit is taken (LDSLK) before any
consumer can try it, so a consumer cannot slip in ahead of the producer. The
lock unit records no owner, so the thread that takes a bit need not be the one
that puts: the block's threads take the bits of slots tid, tid + ntid, ...;
with one slot per thread that is each producer taking its own slot, as in
Listing 13. Other state (flags, lock words, counts) is stored the same way.
"""
from __future__ import annotations

from ...core.types import BOOL, I32
from ..builder import KernelBuilder
from ..context import PassContext
from ..nodes import Kernel, Ref, imm
from ..specials import Specials


def initialize_shared_state(k: Kernel, ctx: PassContext) -> Kernel:
    arrays = [a for a in k.arrays if a.kind == "state" and a.space == "shared" and a.init is not None]
    if not arrays:
        return k
    b = KernelBuilder.thaw(k)
    entry = b.order[0]
    start = b.terms[entry].target          # lowering's entry block ends in `jmp body`
    specials = Specials(b, entry, k.block)
    tid, ntid = specials.get("tid"), specials.get("ntid")
    b.at(entry)
    b.terms[entry] = None
    for a in arrays:
        i = b.reg(I32, f"{a.name}.init")
        b.assign(i, tid)
        head = b.new_block(f"init.{a.name}", after=b.current)
        each = b.new_block(f"init.{a.name}.each", after=head)
        done = b.new_block(f"init.{a.name}.done", after=each)
        b.jump(head)
        b.at(head)
        b.branch(b.op("cmp.lt", BOOL, i, imm(a.length), hint="more"), each, done)
        b.at(each)
        if a.init == "locked":
            b.emit("lockbit.try", (b.reg(BOOL, "taken"), b.reg(a.elem, "word")), (Ref(a.name, i),))
        else:
            b.emit("st", (), (Ref(a.name, i), imm(a.init, a.elem)))
        b.emit("add", (i,), (i, ntid))
        b.jump(head)
        b.at(done)
    b.emit("bar.sync", (), (imm(0),))
    b.jump(start)
    names = ", ".join(f"`{a.name}`" for a in arrays)
    locked = [a.name for a in arrays if a.init == "locked"]
    why = ("each slot's lock bit is taken before any consumer can try it (producer-first, seed 000 §4.4.2)"
           if locked else "their first values are stored before any thread uses them")
    ctx.remark(k.name, "init", f"the block initializes {names} and meets at bar.sync 0: {why}", k.span)
    return b.freeze()

