"""The implementations' registry (syncc/ir/impls/registry.py) is complete and consistent: every
kind has implementations, every operation of a kind has an expansion in each of them, every
default the cost model names exists and supports where it is the default, and the checker
and the cost model read the same entries."""
from __future__ import annotations

import pytest

from syncc.frontend.catalogue import KINDS
from syncc.ir.impls.registry import CATALOGUE, DEFAULTS, REGISTRY, default_implementation
from syncc.ir.ops import OPS
from syncc.ir.machine_model import FERMI, FERMI_ITS, PTX, TARGETS

# kind → the prefix of its IR operations
_PREFIX = {"mutex": "mutex.", "semaphore": "sem.", "rwlock": "rw.", "latch": "latch.", "channel": "chan.",
           "barrier": "prim."}


def test_every_kind_has_implementations():
    assert set(REGISTRY) == set(KINDS)
    assert all(REGISTRY[kind] for kind in KINDS)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_entries_are_of_their_kind_and_named_once(kind):
    names = [impl.about.name for impl in REGISTRY[kind]]
    assert len(names) == len(set(names)), "a class inherits its parent's `about`"
    assert all(impl.about.kind == kind for impl in REGISTRY[kind])
    assert all(set(impl.about.granularities) <= set(KINDS[kind].granularities) for impl in REGISTRY[kind])


def _expansions(impl) -> list[dict]:
    """The operation tables of an implementation (a reader-writer lock has one per mode)."""
    modes = getattr(impl, "modes", None)
    return [mode.operations() for mode in modes.values()] if modes else [impl.operations()]


@pytest.mark.parametrize("impl", [impl for impls in REGISTRY.values() for impl in impls],
                         ids=lambda impl: f"{impl.about.kind}-{impl.about.name}")
def test_every_operation_has_an_expansion(impl):
    kind = impl.about.kind
    ops = {name for name, info in OPS.items() if info.group == "prim" and name.startswith(_PREFIX[kind])}
    for table in _expansions(impl):
        assert set(table) <= ops
        assert all(callable(expand) for expand in table.values())
        # a barrier that cannot `arrive` (only named barriers can, E0413) still syncs
        assert set(table) == ({"prim.sync"} | (set(table) & {"prim.arrive"}) if kind == "barrier" else ops)


@pytest.mark.parametrize("key", sorted(DEFAULTS, key=str), ids=str)
def test_every_default_exists_and_fits_where_it_is_the_default(key):
    target, kind, placement, granularity, named = key
    name, where = DEFAULTS[key]
    entry = CATALOGUE[kind][name]
    assert target in TARGETS
    assert placement in entry.placements and granularity in entry.granularities
    assert {p for p, _ in where.params} <= {p.name for p in entry.params}
    assert where.reason


def test_both_targets_have_a_default_for_the_same_places():
    places = {target: {key[1:] for key in DEFAULTS if key[0] == target} for target in TARGETS}
    assert places["ptx"] == places["fermi"]


@pytest.mark.parametrize("target", [PTX, FERMI, FERMI_ITS], ids=lambda t: t.title)
def test_the_cost_model_reads_the_registry(target):
    """Each place's default is its registry entry, with the parameters the entry gives it."""
    for (name, kind, placement, granularity, named), (impl, where) in DEFAULTS.items():
        if name != target.name:
            continue
        choice = default_implementation(target, kind, placement, granularity, bool(named))
        declared = {p.name: p.default for p in CATALOGUE[kind][impl].params}
        assert (choice.impl, choice.reason, dict(choice.params)) == (impl, where.reason,
                                                                     declared | dict(where.params))


def test_a_tried_mutex_gets_one_that_can_give_up():
    for target in (PTX, FERMI):
        for placement, granularity in (("global", "thread"), ("global", "block"), ("shared", "warp")):
            choice = default_implementation(target, "mutex", placement, granularity, tried=True)
            assert CATALOGUE["mutex"][choice.impl].abandonable, (target.name, placement, granularity)


def test_too_many_warps_of_channel_slots_for_named_barriers_get_lock_bits():
    assert default_implementation(FERMI, "channel", "shared", "warp", instances=32 * 15).impl == "namedbar"
    assert default_implementation(FERMI, "channel", "shared", "warp", instances=32 * 16).impl == "tinylock"


def test_the_front_end_does_not_import_the_registry():
    """The front end is the lower layer: the driver hands the checker CATALOGUE."""
    import ast
    from pathlib import Path

    import syncc.frontend
    for path in Path(syncc.frontend.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                assert not module.startswith(("..ir", "syncc.ir")), f"{path.name} imports {module}"
