"""Lowering of queue declarations: which implementation a queue gets, and its parts.

The implementation is the one `using` names, the one the cost model chose on a second lowering
(impls/queue/choose.py), or the target's default. Its class (impls/queue/) adds the queue's
parts to the kernel and lowers each of its operations (SyncLowering calls them), on the queue's
two sides, so the hazard checks judge a queue's waits as those semaphores' (impls/queue/).
"""
from __future__ import annotations

from math import prod

from ..impls.queue.base import QueueParts, party_members
from ..impls.registry import default_implementation, queue_implementation


def declare_queue(sync, d, info, name: str) -> tuple[type, QueueParts]:
    """The implementation class of the queue `d` (a PrimDecl the checker judged) and its parts,
    added to the kernel."""
    b, target = sync.b, sync.cx.ctx.target
    if info.impl is not None:
        impl, params, why = queue_implementation(info.impl.name), dict(info.impl_params), "chosen with `using`"
    elif d in sync.preferred:
        impl, params = sync.preferred[d], {}
        why = f"the {target.name} cost model: {impl.chosen_because}"
    else:
        choice = default_implementation(target, "queue", info.placement, info.granularity)
        impl, params = queue_implementation(choice.impl), dict(choice.params)
        why = f"the {target.name} default: {choice.reason}"
    parts = QueueParts(name, info.count, info.elem, info.dims, impl.about.name, info.placement, info.writers, d.span,
                       info.granularity, party_members(b, info.granularity),
                       impl.wide(info.granularity, info.elem, target), d in sync.pool_decls)
    if info.impl is None and d not in sync.preferred and not info.top_level:
        sync.queue_candidates[name] = (d, parts)    # one party each side would make it count its own tickets
    how = impl.declare(sync, parts, prod(info.dims), params)
    sync.cx.ctx.remark(b.name, "implementation",
                       f"queue `{d.name.text}` ({info.placement} @{info.granularity}, capacity {info.count}): {how}; {why}",
                       d.span)
    return impl, parts
