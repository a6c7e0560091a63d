"""The registry of implementations, and the cost model derived from it.

Each implementation of a primitive kind is one class in `syncc/ir/impls/<kind>.py` holding all
there is to say about it: `about`, its catalogue entry (placements, granularities, parameters,
summary, source, flags: a frontend.catalogue.Implementation); `defaults`, where a target picks it
when a declaration has no `using`, with the reason `syncc explain` prints and the parameters it
gets there; and its expansion, one method per IR operation, named in its `operations()` table.
Adding an implementation is adding a class there and naming it in that file's IMPLEMENTATIONS.

The front end is the lower layer and may not import this package, so it only defines what an
entry is (frontend/catalogue.py); the driver hands the checker CATALOGUE, built here. The cost
model, `default_implementation`, reads the same entries, so ir/machine_model.py describes machines
and nothing else.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...frontend.catalogue import Implementation
from . import barrier, channel, latch, mutex, queue, rwlock, scan, semaphore
from .entry import Default, Expansion

# kind → its implementation classes, in the order the catalogue lists them
REGISTRY: dict[str, tuple[type, ...]] = {
    "mutex": mutex.IMPLEMENTATIONS, "semaphore": semaphore.IMPLEMENTATIONS, "barrier": barrier.IMPLEMENTATIONS,
    "channel": channel.IMPLEMENTATIONS, "rwlock": rwlock.IMPLEMENTATIONS, "latch": latch.IMPLEMENTATIONS,
    "queue": queue.IMPLEMENTATIONS, "scan": scan.IMPLEMENTATIONS,
}

# kind → name → catalogue entry: what `using` may name (the checker's, handed over by the driver)
CATALOGUE: dict[str, dict[str, Implementation]] = {
    kind: {impl.about.name: impl.about for impl in impls} for kind, impls in REGISTRY.items()}

IMPLEMENTATIONS: tuple[Implementation, ...] = tuple(i for entries in CATALOGUE.values() for i in entries.values())


def implementations(kind: str) -> dict[str, Implementation]:
    return CATALOGUE[kind]


_CLASSES: dict[tuple[str, str], type[Expansion]] = {
    (impl.about.kind, impl.about.name): impl for impls in (*REGISTRY.values(), queue.PARTS) for impl in impls}


def implementation(prim) -> type[Expansion]:
    """The class of `prim`'s implementation (an IR Prim's `using`, or its default)."""
    return _CLASSES[prim.kind, prim.impl]


def queue_implementation(name: str) -> type[Expansion]:
    """The class of the queue implementation `name` (impls/queue/): its lowering and its answers."""
    return _CLASSES["queue", name]


def queue_of(part) -> type[Expansion]:
    """The queue implementation an IR Prim `part` (a queue's `q.space` or `q.items`) belongs to:
    the one whose `sides` its class is, else the one whose sides are ordinary semaphores."""
    cls = _CLASSES.get((part.kind, part.impl))
    return next((q for q in queue.IMPLEMENTATIONS if q.sides is not None and q.sides is cls), None) or \
        next(q for q in queue.IMPLEMENTATIONS if q.sides is None)


def expansion(prim, target) -> type[Expansion]:
    """The class that expands `prim` (an IR Prim) on `target`: its implementation's, or where the
    target has no lock bits, the stand-in that implementation names."""
    impl = implementation(prim)
    if impl.stand_in is not None and target.lock_bits is None:
        return _CLASSES[prim.kind, impl.stand_in]
    return impl


# (target, kind, placement, granularity, named) → (implementation, where it is the default)
DEFAULTS: dict[tuple[str, str, str, str, bool | None], tuple[str, Default]] = {
    (d.target, kind, d.placement, d.granularity, d.named): (impl.about.name, d)
    for kind, impls in REGISTRY.items() for impl in impls for d in impl.defaults}

# machine model → the locks a thread can try once and give up on, best first, for a mutex used
# with `trylock` (only mutexes have it): each abandonable mutex's `for_trylock` ranks
TRYABLE: dict[str, tuple[str, ...]] = {
    model: tuple(impl.about.name for impl in sorted(
        (i for i in REGISTRY["mutex"] if i.about.abandonable and model in i.for_trylock),
        key=lambda i: i.for_trylock[model]))
    for model in sorted({m for impl in REGISTRY["mutex"] for m in impl.for_trylock})}


class NoDefault(LookupError):
    """A machine model with no implementation default for a kind of primitive at a place: a model
    added without its `default(...)` rows (ir/impls/) and without MachineModel.defaults_of."""


@dataclass(frozen=True)
class DefaultChoice:
    impl: str
    reason: str
    params: tuple[tuple[str, int], ...]    # every parameter of impl, with the value it gets


def default_implementation(target, kind: str, placement: str, granularity: str, named: bool = False,
                           tried: bool = False, instances: int = 1, permits: bool = False) -> DefaultChoice:
    """The implementation a primitive gets on `target` (a MachineModel) when its declaration says
    no `using`. `named`: a @warp barrier with a thread count. `tried`: the program uses `trylock`
    on it, so the waiter must be able to give up (no ticket, no queue). `instances`: its slots,
    for a channel whose default needs a named barrier per warp of them. `permits`: a semaphore
    the program waits on or posts several permits at a time (`wait s(k)`), which needs an
    implementation that takes them at once (PERMITS: the first that fits)."""
    model = target.defaults_of or target.name
    found = DEFAULTS.get((model, kind, placement, granularity, None)) or \
        DEFAULTS.get((model, kind, placement, granularity, named))
    if found is None:
        raise NoDefault(f"the machine model `{target.name}` has no default {kind} in {placement} memory at "
                        f"@{granularity}" + (f" (it takes the defaults of `{model}`)" if model != target.name else "")
                        + ": give its `default(...)` rows in ir/impls/, or name a model whose defaults it takes "
                          "(MachineModel.defaults_of)")
    name, where = found
    other = _CLASSES[kind, name].instead(target, instances)
    if other is not None:
        return _choice(kind, *other)
    if kind == "mutex" and tried and not CATALOGUE[kind][name].abandonable:
        tryable = TRYABLE.get(model)
        if tryable is None:
            raise NoDefault(f"the machine model `{model}` ranks no lock a `trylock` can give up on (a mutex "
                            "implementation's `for_trylock`)")
        for fallback in tryable:
            impl = CATALOGUE[kind][fallback]
            if placement in impl.placements and granularity in impl.granularities:
                return _choice(kind, fallback, (
                    f"`trylock` is used on it and a {name} lock cannot give up a try, so "
                    f"{fallback}, the first of {', '.join(tryable)} that fits"))
    if kind == "semaphore" and permits and not CATALOGUE[kind][name].permits:
        for fallback in PERMITS:
            impl = CATALOGUE[kind][fallback]
            if placement in impl.placements and granularity in impl.granularities:
                return _choice(kind, fallback, (
                    f"`wait`/`post` take several permits at once on it, and a {name} semaphore takes one at a "
                    f"time (its tickets are one permit each), so {fallback}, the first of {', '.join(PERMITS)} "
                    "that fits"))
    return _choice(kind, name, where.reason, dict(where.params))


# the semaphores a default falls back to where a program takes several permits at once (`wait s(k)`):
# backoff first, for a global semaphore that many threads may poll
PERMITS = ("backoff", "spin")


def _choice(kind: str, name: str, reason: str, tuned: dict | None = None) -> DefaultChoice:
    params = {p.name: p.default for p in CATALOGUE[kind][name].params} | (tuned or {})
    return DefaultChoice(name, reason, tuple(params.items()))
