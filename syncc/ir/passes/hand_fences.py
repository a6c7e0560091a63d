"""Orderings for hand-written synchronization: a fence wherever one is owed and none is written.

Guarantee: afterwards a plain load that a spin polls is a polling load (as `load_cg`), and every ordering analysis/hand_sync.py says a hand-written lock, barrier,
flag hand-off or publication owes is given by a fence of its scope (cta for a shared sync word,
gpu for a global one): an acquire after each sync read (a spin's poll, a compare-and-swap, an
election's atomic) before the next access that is not another sync read of its word, a release
before each sync write after the data accesses before it, and a store-load fence between a flag
store and the read of another flag. Orderings the program writes itself (`fence`) are kept and
counted; none is added twice. Each inserted fence is told to `syncc explain` (a remark with an
ordering key, so `explain --witness` can leave it out and run the program without it).

It runs after insert_fences, so the fences syncc's own primitives get count as given.
"""
from __future__ import annotations

from ..analysis.facts import Facts
from ..analysis.hand_sync import ACQUIRE, RELEASE, HandSync, Owed
from ..builder import KernelBuilder
from ..context import PassContext
from ..nodes import Instr, Kernel
from .fences import ordering_key

_WHY = {
    ACQUIRE: "what this thread accesses next cannot be seen before the synchronizing read (the data "
             "another thread published before its write)",
    RELEASE: "this thread's earlier accesses are visible before the synchronizing write",
    "store-load": "the flag this thread stored is visible before it reads another thread's flag",
}


def order_hand_sync(k: Kernel, ctx: PassContext) -> Kernel:
    if not ctx.fences:             # --unsafe-no-fences
        return k
    sync = HandSync(Facts(k, ctx.target))
    owed, polls = sync.owed(), {id(i) for i in sync.plain_polls()}
    if not owed and not polls:
        return k
    where: dict[tuple[str, int], list[Owed]] = {}
    for o in owed:
        where.setdefault(o.at, []).append(o)
    b = KernelBuilder.thaw(k)
    for label in list(b.order):
        code, out = b.code[label], []
        for i in range(len(code) + 1):
            here = [o for o in where.get((label, i), ()) if not _omitted(k, o, ctx)]
            if here:
                scope = "gpu" if any(o.scope != "cta" for o in here) else "cta"
                out.append(Instr("fence", (), (), (("order", "acq_rel"), ("scope", scope)), here[0].before.span))
            if i < len(code) and id(code[i]) in polls:       # a plain load polled in a spin
                out.append(code[i].with_attrs(cache="cg"))
                ctx.remark(k.name, "fence", f"hand-written synchronization: the plain load of `{code[i].ref.name}` "
                           "this loop polls is read as `load_cg` (a plain load may be read once, before the loop, "
                           "and the loop never end)", code[i].span)
            elif i < len(code):
                out.append(code[i])
        b.code[label] = out
    told = set()
    for o in owed:
        if not _omitted(k, o, ctx) and _key(k, o) not in told:
            told.add(_key(k, o))
            _tell(k, o, ctx)
    return b.freeze()


def _key(k: Kernel, o: Owed) -> tuple:
    return ordering_key("hand", k.name, o.before.span, o.role, o.cause.ref.name)


def _omitted(k: Kernel, o: Owed, ctx: PassContext) -> bool:
    return _key(k, o) in ctx.omit


def _tell(k: Kernel, o: Owed, ctx: PassContext) -> None:
    line = o.cause.span.line if o.cause.span else "?"
    what = {ACQUIRE: f"acquire after the synchronizing read of `{o.cause.ref.name}` (line {line})",
            RELEASE: f"release before this synchronizing write of `{o.before.ref.name if o.before.ref else '?'}`, "
                     f"after the accesses before it (line {line})",
            "store-load": f"store-load order after the flag store of `{o.cause.ref.name}` (line {line})"}[o.role]
    ctx.remark(k.name, "fence", f"hand-written synchronization: {what}: fence.{o.scope} before `{o.before.op}`: "
               f"{_WHY[o.role]}", o.before.span, _key(k, o))
