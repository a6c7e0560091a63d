"""The value ranges (syncc/ir/ranges.py): what they prove of an index, and what they must not.

Each test lowers a small kernel and asks for the interval of the index of one access (the
n-th access to an array, in block order), as the bounds checks ask. The ranges must hold for
every launch the kernel can get: an interval that is too narrow is a missed check."""
from __future__ import annotations

import pytest

from syncc.driver import check_file
from syncc.ir.context import PassContext
from syncc.ir.lower import lower_program
from syncc.ir.nodes import Reg
from syncc.ir.analysis.ranges import Ranges

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1


def lowered(tmp_path, body: str, header: str = "launch grid(1) block(64)", params: str = "") -> object:
    path = tmp_path / "k.sync"
    path.write_text(f"kernel k(a: global i32[64], o: global i32[64]{params}) {header} {{\n{body}\n}}\n")
    comp = check_file(str(path))
    assert comp.ok, [d.message for d in comp.diagnostics]
    [k] = lower_program(comp.module, PassContext()).kernels
    return k


def index_ranges(k, array: str = "o", **options) -> list[tuple[int, int] | None]:
    """The interval of the register index of every access to `array`, in block order (None where
    no execution reaches it)."""
    r = Ranges(k, **options)
    out = []
    for b in k.blocks:
        for _, ins, state in r.walk(b.label):
            if ins.ref is not None and ins.ref.name == array and isinstance(ins.ref.index, Reg):
                out.append(None if state is None else r.value(ins.ref.index, state))
    return out


def test_a_declared_block_bounds_tid_lane_and_warp(tmp_path):
    k = lowered(tmp_path, "o[tid] = 1\no[lane + 32 * warp] = 2\no[tid / 2] = 3", "launch grid(4) block(64)")
    assert index_ranges(k) == [(0, 63), (0, 63), (0, 31)]


def test_without_a_declared_block_tid_is_any_thread_of_1024(tmp_path):
    k = lowered(tmp_path, "o[tid.x] = 1", header="")
    assert index_ranges(k) == [(0, 1023)]


def test_the_grid_is_never_known_so_gtid_can_wrap(tmp_path):
    # a declared grid(1) does not bound bid: a launch may give any grid, and bid * ntid + tid
    # wraps past 2^31 threads
    k = lowered(tmp_path, "o[bid.x] = 1\no[bid] = 2\no[gtid] = 3", "launch grid(1) block(64)")
    assert index_ranges(k, accesses_checked=False) == [(0, (1 << 31) - 2), (I32_MIN, I32_MAX), (I32_MIN, I32_MAX)]


def test_data_and_scalar_parameters_have_their_types_whole_range(tmp_path):
    k = lowered(tmp_path, "let v = a[tid]\no[v] = 1\no[n] = 2", params=", n: i32")
    assert index_ranges(k, accesses_checked=False) == [(I32_MIN, I32_MAX), (I32_MIN, I32_MAX)]


@pytest.mark.parametrize("guard, inside", [
    ("k >= 0 && k < 48", (0, 47)),
    ("k < 48 && k >= 0", (0, 47)),
    ("!(k < 0 || k >= 48)", (0, 47)),
    ("k < 48", (I32_MIN, 47)),
    ("0 <= k && k <= 63", (0, 63)),
    ("k > -1 && 64 > k", (0, 63)),
    ("k != 0 && k >= 0 && k < 10", (1, 9)),
])
def test_a_guard_bounds_the_index_inside_it(tmp_path, guard, inside):
    k = lowered(tmp_path, f"let k = a[tid]\nif {guard} {{\n    o[k] = 1\n}}\no[k] = 2")
    assert index_ranges(k, accesses_checked=False) == [inside, (I32_MIN, I32_MAX)]


def test_the_else_branch_gets_the_negation(tmp_path):
    k = lowered(tmp_path, "let k = a[tid]\nif k < 0 || k >= 64 {\n    o[0] = 1\n} else {\n    o[k] = 2\n}")
    assert index_ranges(k, accesses_checked=False) == [(0, 63)]


def test_a_guard_stops_holding_once_its_variable_is_assigned(tmp_path):
    k = lowered(tmp_path, "var k = a[tid]\nif k >= 0 && k < 64 {\n    k = a[k]\n    o[k] = 1\n}")
    assert index_ranges(k, accesses_checked=False) == [(I32_MIN, I32_MAX)]


def test_a_guard_on_a_copy_or_an_offset_bounds_the_original(tmp_path):
    k = lowered(tmp_path, "let v = a[tid] % 1000\nlet w = v + 1\nif w >= 1 && w < 64 {\n    o[v] = 1\n    o[v + 1] = 2\n}")
    assert index_ranges(k, accesses_checked=False) == [(0, 62), (1, 63)]


def test_a_guard_on_the_warp_bounds_the_thread(tmp_path):
    # warp is tid / 32: `warp != 0` says tid >= 32 (examples/chain.sync's `get a[tid - 32]`)
    k = lowered(tmp_path, "if warp == 0 {\n    o[tid] = 1\n} else {\n    o[tid - 32] = 2\n}\nif warp < 1 {\n    o[tid + 32] = 3\n}",
                "launch grid(1) block(64)")
    assert index_ranges(k, accesses_checked=False) == [(0, 31), (0, 31), (32, 63)]


def test_accesses_at_the_min_and_the_max_of_two_values_bound_both(tmp_path):
    # locks taken in index order at min(x, y), then max(x, y) (tests/hazards/clean/nested_thread_locks):
    # once both are inside, so are x and y
    k = lowered(tmp_path, "mutex m[16] in global @thread\nlet x = a[tid]\nlet y = a[tid + 1 & 63]\n"
                "critical m[min(x, y)] {\n    critical m[max(x, y)] {\n        o[x] = 1\n        o[y] = 2\n    }\n}")
    assert index_ranges(k) == [(0, 15), (0, 15)]


def test_a_comparison_with_another_register_bounds_both(tmp_path):
    k = lowered(tmp_path, "let i = a[tid]\nlet j = a[tid + 1 & 63] % 64\nif i >= 0 && i < j {\n    o[i] = 1\n}")
    assert index_ranges(k, accesses_checked=False) == [(0, 62)]


def test_not_equal_to_the_first_or_last_cell_of_a_tile_bounds_its_neighbours(tmp_path):
    """A stencil's guard `i != lo && i != hi`, lo and hi registers: i is lo plus lane (0 .. 31),
    so i != lo means lane >= 1, and i != lo + 31 means lane <= 30 (jacobi.sync's inner cells)."""
    k = lowered(tmp_path, "let lo = warp * 32\nlet hi = lo + 31\nlet i = lo + lane\n"
                          "if i != lo && i != hi {\n    o[i - 1] = 1\n    o[i + 1] = 2\n}",
                header="launch grid(1) block(64)")
    assert index_ranges(k, accesses_checked=False) == [(0, 61), (2, 63)]     # i in 1 .. 62


@pytest.mark.parametrize("body", [
    # a value not at an end of the sum's interval excludes nothing
    "let lo = warp * 32\nlet i = lo + lane\nif i != lo + 1 {\n    o[i - 1] = 1\n}",
    # lo assigned again after i: i is no longer lo plus lane
    "var lo = warp * 32\nlet i = lo + lane\nlo = 5\nif i != lo {\n    o[i - 1] = 1\n}",
    # i may be lo less lane: nothing to exclude
    "let lo = warp * 32 + 31\nlet i = lo - lane\nif i != lo {\n    o[i - 1] = 1\n}",
])
def test_not_equal_narrows_nothing_it_cannot_prove(tmp_path, body):
    k = lowered(tmp_path, body, header="launch grid(1) block(64)")
    [(lo, _)] = index_ranges(k, accesses_checked=False)
    assert lo == -1


@pytest.mark.parametrize("expr, interval", [
    ("min(max(v, 0), 63)", (0, 63)),
    ("v % 64", (-63, 63)),                # a negative v: a negative remainder
    ("(v & 0x7fffffff) % 64", (0, 63)),
    ("v & 63", (0, 63)),
    ("abs(v % 64)", (0, 63)),
    ("(v >> 26) & 31", (0, 31)),
    ("select(v >= 0 && v < 64, v, 0)", (0, 63)),
    ("tid * 2 + 1", (1, 127)),
    ("(tid + 64) / 2 - 32", (0, 31)),
])
def test_arithmetic_is_exact_on_intervals(tmp_path, expr, interval):
    k = lowered(tmp_path, f"let v = a[tid]\nlet x = {expr}\no[x & 0] = 0\na[0] = x", "launch grid(1) block(64)")
    r = Ranges(k, accesses_checked=False)
    store = [(b.label, i) for b in k.blocks for i, ins in enumerate(b.instrs)
             if ins.op == "st" and ins.ref.name == "a"][-1]
    value = k.block_map()[store[0]].instrs[store[1]].args[1]
    assert r.range_at(*store, value) == interval


def test_a_result_that_may_wrap_has_the_whole_range(tmp_path):
    k = lowered(tmp_path, "let v = a[tid] % 64\no[v * 100000000 % 64] = 1\no[(v + 2147483647) % 64] = 2")
    assert index_ranges(k, accesses_checked=False) == [(-63, 63), (-63, 63)]


def test_a_counted_loop_bounds_its_variable_by_its_exit_test(tmp_path):
    k = lowered(tmp_path, "for i in 0 .. 16 {\n    o[i * 4 + 3] = 1\n}\nfor j in 1 .. n {\n    o[j] = 2\n}",
                params=", n: i32")
    assert index_ranges(k, accesses_checked=False) == [(3, 63), (1, I32_MAX - 1)]


def test_an_inner_loop_does_not_widen_what_only_the_outer_loop_changes(tmp_path):
    # t is bounded by the outer loop's test; widening it again at the inner loop's head (which
    # does not assign it) would lose that bound for good
    k = lowered(tmp_path, "for t in 0 .. 40 {\n    for p in 0 .. 4 {\n        o[p] = t\n    }\n    o[t % 16 + 8] = 1\n}")
    assert index_ranges(k, accesses_checked=False) == [(0, 3), (8, 23)]


def test_a_loop_that_steps_by_more_than_one(tmp_path):
    k = lowered(tmp_path, "for i in tid .. 64 step 64 {\n    o[i] = 1\n}", "launch grid(1) block(64)")
    assert index_ranges(k, accesses_checked=False) == [(0, 63)]


def test_a_while_loop_counter(tmp_path):
    k = lowered(tmp_path, "var i = 0\nwhile i < 64 {\n    o[i] = 1\n    i += 1\n}\no[i - 1] = 2")
    assert index_ranges(k, accesses_checked=False) == [(0, 63), (63, 63)]


def test_an_access_bounds_its_index_for_what_follows(tmp_path):
    k = lowered(tmp_path, "let k = a[tid]\no[k] = 1\no[k] = 2\nif k > 100 {\n    o[k] = 3\n}")
    assert index_ranges(k) == [(I32_MIN, I32_MAX), (0, 63), None]      # and the `if` is never taken


def test_a_mutex_index_and_a_channel_index_are_accesses_too(tmp_path):
    k = lowered(tmp_path, "mutex m[48] in global @thread\nlet k = a[tid]\ncritical m[k] {\n    o[k] += 1\n}")
    assert index_ranges(k, "m") == [(I32_MIN, I32_MAX), (0, 47)]      # the lock, then the unlock
    assert index_ranges(k) == [(0, 47), (0, 47)]


def test_a_launch_shape_narrows_the_grid(tmp_path):
    k = lowered(tmp_path, "o[gtid] = 1", "launch grid(1) block(64)")
    assert index_ranges(k, shape=((1, 1, 1), (64, 1, 1)), accesses_checked=False) == [(0, 63)]


def test_one_block_of_the_grid(tmp_path):
    """`block_index` fixes `bid` (the block whose ranges a check follows) and keeps `nbid` the grid's."""
    k = lowered(tmp_path, "o[bid * 16 + (tid & 15)] = nbid", "launch grid(4) block(64)")
    assert index_ranges(k, shape=((4, 1, 1), (64, 1, 1)), block_index=(2, 0, 0), accesses_checked=False) == [(32, 47)]
    assert index_ranges(k, shape=((4, 1, 1), (64, 1, 1)), accesses_checked=False) == [(0, 63)]


def test_an_unreachable_access_has_no_range(tmp_path):
    k = lowered(tmp_path, "if tid > 100 {\n    o[tid] = 1\n}", "launch grid(1) block(64)")
    assert index_ranges(k) == [None]


# ---- the interval operations, against every pair of values of small intervals

def _trunc_div(x, y):
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y > 0) else -q


def _intervals(rng, n):
    for _ in range(n):
        lo = rng.randint(-40, 40)
        yield lo, lo + rng.randint(0, 12)


@pytest.mark.parametrize("op", ["div", "rem", "and", "or", "xor", "shl", "shr"])
def test_interval_operations_hold_every_result(op):
    import random
    from syncc.ir.analysis import ranges as R
    rng = random.Random(op)
    for a in _intervals(rng, 150):
        for b in _intervals(rng, 6):
            if op in ("shl", "shr"):
                b = (max(0, b[0] % 8), max(0, b[0] % 8) + b[1] % 3)
            got = {"div": lambda: R._divide(a, b), "rem": lambda: R._remainder(a, b),
                   "shl": lambda: R._shift("shl", a, b, 32), "shr": lambda: R._shift("shr", a, b, 32)}.get(
                op, lambda: R._bitwise(op, a, b))()
            if got is None:
                continue                       # the whole range: nothing to check
            for x in range(a[0], a[1] + 1):
                for y in range(b[0], b[1] + 1):
                    exact = {"div": lambda: _trunc_div(x, y), "rem": lambda: x - y * _trunc_div(x, y),
                             "and": lambda: x & y, "or": lambda: x | y, "xor": lambda: x ^ y,
                             "shl": lambda: x << y, "shr": lambda: x >> y}[op]()
                    assert got[0] <= exact <= got[1], (op, a, b, x, y, exact, got)
