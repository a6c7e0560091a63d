"""What an implementation declares besides its expansion: its catalogue entry (what `using`
accepts, for the front end) and the places where a target's cost model picks it by default,
with the reason `syncc explain` prints. registry.py collects both from every kind's module."""
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


def default(targets: str, where: str, reason: str, params: tuple[tuple[str, int], ...] = (),
            named: bool | None = None) -> tuple[Default, ...]:
    """The same reason for several targets and places: `targets` "ptx fermi", `where`
    "global @thread, shared @warp"."""
    places = [w.split(" @") for w in where.split(", ")]
    return tuple(Default(t, p, g, reason, params, named) for t in targets.split() for p, g in places)
