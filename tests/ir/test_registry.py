"""The implementations' registry (syncc/ir/impls/registry.py) is complete and consistent: every
kind has implementations, every operation of a kind has an expansion in each of them, every
default the cost model names exists and supports where it is the default, and the checker
and the cost model read the same entries."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from helpers import no_gpu, syncc

from syncc.frontend.catalogue import KINDS
from syncc.ir.impls.registry import CATALOGUE, DEFAULTS, REGISTRY, TRYABLE, default_implementation
from syncc.ir.ops import OPS
from syncc.ir.machine_model import FERMI, FERMI_ITS, PTX, TARGETS

# kind → the prefix of its IR operations (a queue has none of its own: lowering builds its put
# and get on its parts, ir/impls/queue/; a `ring` queue's `queue.*` operations are its parts')
_PREFIX = {"mutex": "mutex.", "semaphore": "sem.", "rwlock": "rw.", "latch": "latch.", "channel": "chan.",
           "barrier": "prim.", "queue": None, "scan": "scan."}


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
    prefix = _PREFIX[kind]
    ops = {name for name, info in OPS.items() if info.group == "prim" and prefix and name.startswith(prefix)}
    for table in _expansions(impl):
        assert set(table) <= ops
        assert all(callable(expand) for expand in table.values())
        # every barrier syncs; a named barrier also arrives, and a grid barrier arrives and waits (E0413)
        assert set(table) == ({"prim.sync"} | (set(table) & {"prim.arrive", "prim.wait"}) if kind == "barrier" else ops)
        if kind == "barrier" and "prim.wait" in table:
            assert "prim.arrive" in table and "grid" in impl.about.granularities


def test_the_queues_parts_expand_every_queue_operation_and_using_cannot_name_them():
    from syncc.ir.impls.queue import PARTS
    queue_ops = {name for name, info in OPS.items() if name.startswith("queue.")}
    assert queue_ops and all(OPS[name].judged_as for name in queue_ops)
    assert set().union(*(part.operations() for part in PARTS)) == queue_ops
    for part in PARTS:
        assert set(part.operations()) <= queue_ops
        assert part.about.name not in CATALOGUE[part.about.kind]


def _queue_name_tests(path: Path) -> list[str]:
    """The comparisons in `path` that test a value naming a queue implementation (`impl.name ==
    "ring"`, `impl in ("spsc", "mbarrier")`), as source text."""
    names = set(CATALOGUE["queue"])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Compare):
            continue
        strings = {c.value for part in [node.left, *node.comparators] for c in ast.walk(part)
                   if isinstance(c, ast.Constant) and isinstance(c.value, str)}
        if strings & names and "impl" in ast.unparse(node):
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_file_outside_the_queue_package_tests_a_queue_implementations_name():
    # the front end, lowering, vending and the C++ back end ask the implementation's class or its
    # catalogue entry instead (docs/architecture.md, "A queue implementation")
    root = Path(__file__).resolve().parents[2] / "syncc"
    package = root / "ir" / "impls" / "queue"
    found = [hit for path in sorted(root.rglob("*.py")) if package not in path.parents
             for hit in _queue_name_tests(path)]
    assert not found, "\n".join(found)


def test_the_name_test_finds_one(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('vendable = impl.name in ("spsc", "mbarrier")\nring = prim.impl == "ring"\nx = op == "ring"\n')
    assert [hit.split(":")[1] for hit in _queue_name_tests(sample)] == ["1", "2"]


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


def test_only_locks_that_can_give_up_are_ranked_for_trylock():
    ranked = [impl for impl in REGISTRY["mutex"] if impl.for_trylock]
    assert ranked and all(impl.about.abandonable for impl in ranked if "for_trylock" in vars(impl))
    assert all(TRYABLE.values())


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


@pytest.mark.parametrize("impl", [impl for impls in REGISTRY.values() for impl in impls if impl.stand_in],
                         ids=lambda impl: f"{impl.about.kind}-{impl.about.name}")
def test_a_stand_in_covers_what_it_stands_in_for(impl):
    """Where a target has no lock bits, a lock-bit implementation is expanded as its stand-in,
    which must exist, need no lock bits itself, and fit every place the original fits."""
    stand_in = CATALOGUE[impl.about.kind][impl.stand_in]
    assert impl.about.lock_bits and not stand_in.lock_bits
    assert set(impl.about.placements) <= set(stand_in.placements)
    assert set(impl.about.granularities) <= set(stand_in.granularities)


def test_no_pass_or_check_names_an_implementation():
    """What a pass or a hazard check needs to know of an implementation (its stand-in, named
    barriers, whether it meets at the block barrier or orders memory itself, its protocol's
    rules) the registry's class answers (impls/entry.Expansion)."""
    import ast
    from pathlib import Path

    import syncc.ir.checks
    import syncc.ir.passes
    names = {impl.about.name for impls in REGISTRY.values() for impl in impls}
    folders = (Path(syncc.ir.passes.__file__).parent, Path(syncc.ir.checks.__file__).parent)
    for path in (p for folder in folders for p in folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute) and node.left.attr == "impl":
                named = [c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and c.value in names]
                assert not named, f"{path.name}:{node.lineno} compares .impl with {named}"


_TINYLOCK_COUNTS_THREADS = """
kernel k(out: global i32[2]) launch grid(8) block(128) {
    mutex m in shared @thread using tinylock
    barrier pair(64) in shared @warp
    shared seen: i32[2]
    if tid < 2 {
        seen[tid] = 0
    }
    barrier
    critical m {
        seen[0] = seen[0] + 1
        seen[1] = seen[1] + tid
    }
    if tid < 64 {
        sync pair
    }
    barrier
    if tid < 2 {
        atomic_add(out[tid], seen[tid])
    }
}
host {
    let out = zeros(i32, 2)
    launch k(out)
    check out[0] == 8 * 128
    check out[1] == 8 * (127 * 128 / 2)
}
"""


_TINYLOCK_AND_NAMED_BARRIER = """
kernel k(out: global i32[128]) launch grid(1) block(128) {
    mutex m in shared @thread using tinylock
    barrier pair(64) in shared @warp
    critical m {
        out[0] = out[0] + 1
        out[1] = out[1] + tid
    }
    if tid < 64 {
        sync pair
    }
}
"""


@pytest.mark.parametrize("target, first_named", [("ptx", 1), ("fermi-sim", 0)])
def test_a_stand_in_decides_whether_barrier_0_is_taken(tmp_path, target, first_named):
    """On ptx a tinylock mutex is a shared word (its stand-in, tas), initialized behind the block
    barrier 0, so the kernel's named barrier must not be 0 too; on Fermi the lock bit starts
    free, nothing meets at barrier 0, and the named barrier takes it."""
    from syncc.driver import compile_file
    path = tmp_path / "k.sync"
    path.write_text(_TINYLOCK_AND_NAMED_BARRIER)
    comp = compile_file(str(path), target=target)
    assert comp.ok, comp.diagnostics
    (kernel,) = comp.ir.kernels
    assert kernel.prim("pair").attr("bars") == (first_named,)
    block_barrier = any(ins.op == "bar.sync" and len(ins.args) == 1 for _, _, ins in kernel.instructions())
    assert block_barrier == (target == "ptx")


def _run_counting_program(tmp_path, target: str):
    path = tmp_path / "k.sync"
    path.write_text(_TINYLOCK_COUNTS_THREADS)
    r = syncc("run", str(path), "--target", target, "--timeout", "30")
    assert r.code == 0, r.err


def test_a_tinylock_mutex_beside_a_named_barrier_runs_on_the_simulator(tmp_path):
    """Lock bits, `pair` on named barrier 0 (the program's `barrier`s take 0 too: then 1)."""
    _run_counting_program(tmp_path, "fermi-sim")


@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
def test_a_tinylock_mutex_beside_a_named_barrier_runs_on_the_gpu(tmp_path):
    """On the GPU the mutex is a shared word initialized behind barrier 0; `pair` is barrier 1."""
    _run_counting_program(tmp_path, "gpu")


def test_a_new_machine_model_takes_another_s_defaults_or_says_it_has_none():
    """A model added for a machine syncc knows (a cluster-aware sm_90, say) names the model whose
    defaults it takes; one with neither rows nor `defaults_of` gets a clear error, not a KeyError."""
    from dataclasses import replace

    from syncc.ir.impls.registry import NoDefault
    cluster = replace(PTX, name="sm90_cluster", title="a toy model", defaults_of="ptx")
    for (name, kind, placement, granularity, named) in DEFAULTS:
        if name == "ptx":
            mine = default_implementation(cluster, kind, placement, granularity, bool(named))
            assert mine == default_implementation(PTX, kind, placement, granularity, bool(named))
    assert default_implementation(cluster, "mutex", "global", "thread", tried=True) == \
        default_implementation(PTX, "mutex", "global", "thread", tried=True)
    bare = replace(PTX, name="bare", title="a toy model with no defaults")
    with pytest.raises(NoDefault, match="the machine model `bare` has no default mutex in global memory at @thread"):
        default_implementation(bare, "mutex", "global", "thread")
