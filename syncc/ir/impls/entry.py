"""What an implementation class is (`Expansion`) and what it declares besides its expansion:
its catalogue entry (what `using` accepts, for the front end) and the places where a target's
cost model picks it by default, with the reason `syncc explain` prints. registry.py collects
both from every kind's module."""
from __future__ import annotations

from dataclasses import dataclass

from ...frontend.catalogue import ImplParam, Implementation


def entry(kind: str, name: str, placements: str, granularities: str, summary: str, source: str,
          params: tuple[tuple[str, int], ...] = (), **props) -> Implementation:
    """The catalogue entry: placements and granularities as space-separated words, parameters as
    (name, default) pairs, and the flags of frontend.catalogue.Implementation as keywords."""
    return Implementation(kind, name, tuple(placements.split()), tuple(granularities.split()),
                          tuple(ImplParam(n, d) for n, d in params), summary, source, **props)


@dataclass(frozen=True)
class Default:
    """One place where `target` picks this implementation when a declaration has no `using`."""
    target: str                 # a MachineModel's name: ptx | fermi
    placement: str
    granularity: str
    reason: str                 # what `syncc explain` prints after "the <target> default: "
    params: tuple[tuple[str, int], ...] = ()   # what it gets there, over its declared defaults
    named: bool | None = None   # a @warp barrier with (True) or without (False) a thread count; None: any


class Expansion:
    """An implementation of a primitive kind: one class per registry entry. Besides `about` and
    `defaults`, it answers what the passes around the expansion must know of it, so that no pass
    names an implementation:
      * `stand_in`: on a machine without lock bits (ptx), the implementation expanded instead;
      * `named_barriers(prim)`: how many named barrier ids it needs (expand_primitives allots them);
      * `meets_at_block_barrier(prim)`: whether its code uses barrier 0, the block barrier
        (a @block/@grid operation meets there; shared state is initialized behind it);
      * `orders_memory(prim, target)`: whether its own meeting orders the memory accesses around
        it, so the fence pass adds none (a named barrier does; so does a @thread lock-bit channel,
        whose value travels in the word whose bit is the lock);
    what the cost model must know of it (registry.default_implementation):
      * `instead(target, instances)`: where it is the default but does not fit a declaration of
        that many slots, the implementation to use instead and why (None: it fits);
      * `for_trylock`: machine model → rank, for an abandonable mutex: where `trylock` is used on
        a mutex whose default cannot give up a try, the model takes the lowest rank that fits
        (read only where `about.abandonable`: a subclass that cannot give up inherits it unused);
    and what the hazard checks (ir/checks/) must know of its protocol:
      * `meets_lanes_only`: its `sync` is a meeting of one warp's lanes and nothing more;
      * `nested_reads`: a reader may read again while it reads (readers never wait for readers);
      * `one_consumer_warp`: each group of 32 slots may be waited for by one other warp, once;
      * `one_party_per_side`: one party (a thread, or a warp) waits on each instance (a queue side
        that counts its own operations instead of taking tickets: checks/queue_parties.py);
      * `nodes_per_thread`: how many elements of one array of it a thread may hold at once (an MCS
        lock's queue nodes: checks/lock_scope.py, E0722); None: no limit."""
    about: Implementation
    defaults: tuple[Default, ...] = ()
    stand_in: str | None = None
    meets_lanes_only = False
    nested_reads = False
    one_consumer_warp = False
    one_party_per_side = False
    nodes_per_thread: int | None = None
    for_trylock: dict[str, int] = {}

    @classmethod
    def operations(cls) -> dict:
        """IR operation → the method that expands it."""
        raise NotImplementedError

    @classmethod
    def expand(cls, em, prim, ins) -> None:
        cls.operations()[ins.op](em, prim, ins)

    @classmethod
    def named_barriers(cls, prim) -> int:
        return 0

    @classmethod
    def instead(cls, target, instances: int) -> tuple[str, str] | None:
        return None

    @classmethod
    def meets_at_block_barrier(cls, prim) -> bool:
        return prim.granularity in ("block", "grid") or prim.placement == "shared"

    @classmethod
    def orders_memory(cls, prim, target) -> bool:
        return False


def default(targets: str, where: str, reason: str, params: tuple[tuple[str, int], ...] = (),
            named: bool | None = None) -> tuple[Default, ...]:
    """The same reason for several targets and places: `targets` "ptx fermi", `where`
    "global @thread, shared @warp"."""
    places = [w.split(" @") for w in where.split(", ")]
    return tuple(Default(t, p, g, reason, params, named) for t in targets.split() for p, g in places)
