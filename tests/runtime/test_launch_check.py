"""Every launch is checked for its own configuration before it runs (runtime/launch_check.py): a
host block's grid or scalar argument computed at run time, and any launch from the Python API,
gets the hazard analyses for its shape, and one they find a hazard in is refused with their
diagnostics instead of running. Each configuration is checked once."""
from __future__ import annotations

import numpy as np
import pytest

import syncc
from syncc.runtime.args import LaunchError
from helpers import syncc as syncc_cli

# every thread puts into its channel slot and the thread one block later takes from it: inside
# the channel for the declared grid of 4 blocks, past it for more
RELAY = """const N = 4
kernel relay(out: global i32[512]) launch grid(N) block(32) {
    channel c[N * 32]: i32 in global @thread
    put c[gtid] = gtid * 10
    if bid > 0 { out[gtid] = get c[gtid - 32] }
}
"""

# k slots a thread: inside the channel for k up to 2 (block of 32, 64 slots), past it for 3
SPREAD = """kernel spread(out: global i32[64], k: i32) launch grid(1) block(32) {
    channel c[64]: i32 in global @thread
    for i in 0 .. k { put c[tid * k + i] = i }
    for i in 0 .. k { out[tid * k + i] = get c[tid * k + i] }
}
"""


def _program(tmp_path, text: str, name: str = "p.sync"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_grid_computed_at_run_time_is_checked_before_the_launch(tmp_path):
    path = _program(tmp_path, RELAY + """host {
    let out = zeros(i32, 512)
    launch relay(out)
    var g = 1
    for i in 0 .. 3 { g = g * 2 }
    print "declared grid ran; now grid", g
    launch relay(out) grid(g)
    print "never"
}
""")
    assert syncc_cli("check", str(path)).code == 0          # (the compile-time shapes are fine)
    r = syncc_cli("run", str(path), "--target", "fermi-sim")
    assert r.code == 1 and "declared grid ran; now grid 8" in r.out and "never" not in r.out, r.out + r.err
    assert "error[E0726]" in r.err and "block 4 uses element 128" in r.err, r.err
    assert "for this launch: grid(8) block(32), given at run time" in r.err, r.err
    assert "internal" not in r.err


def test_a_scalar_argument_computed_at_run_time_is_checked_before_the_launch(tmp_path):
    path = _program(tmp_path, SPREAD + """host {
    let out = zeros(i32, 64)
    launch spread(out, 2)
    let k = i32(sum(out) / 32)     // 0 + 1 a thread: 1, known only when it runs
    launch spread(out, k + 2)
}
""")
    r = syncc_cli("run", str(path), "--target", "fermi-sim")
    assert r.code == 1 and "error[E0726]" in r.err, r.err
    assert "with k = 3, given at run time" in r.err, r.err


def test_the_python_api_checks_each_new_configuration_once(tmp_path):
    prog = syncc.compile(str(_program(tmp_path, RELAY)), target="fermi-sim")
    out = np.zeros(512, np.int32)
    with pytest.raises(syncc.CompileError) as e:
        prog.relay[(8, 1, 1), (32, 1, 1)](out)
    assert [d.code for d in e.value.diagnostics] == ["E0726", "E0726"]
    assert not out.any()                      # refused before it ran
    prog.relay[(2, 1, 1), (32, 1, 1)](out)    # a smaller grid: checked, and it runs
    assert list(out[32:64]) == [10 * i for i in range(32)]
    record = prog._comp("fermi-sim").context.checked["relay"]
    prog.relay[(2, 1, 1), (32, 1, 1)](out)    # the same configuration again: not checked again
    assert [s.grid for shapes in record.passed.values() for s in shapes].count((2, 1, 1)) == 1 and len(record.refused) == 1


def test_without_the_hazard_checks_nothing_is_checked_at_launch(tmp_path):
    """--unsafe-skip-hazard-checks (the oracle's) checks no launch either: the run-time bounds
    check is what stops the kernel then."""
    path = _program(tmp_path, SPREAD + "host {\n    let out = zeros(i32, 64)\n    let k = 3\n"
                                       "    launch spread(out, k + popc(0))\n}\n")
    r = syncc_cli("run", str(path), "--target", "fermi-sim", "--unsafe-skip-hazard-checks")
    assert "E0726" not in r.err and "E0913" in r.err, r.err


# sizes given at launch: one kernel for every length
SIZED = """kernel scale(n: i32, x: global i32[n], y: global i32[n][2], k: i32) launch grid(4) block(64) {
    if gtid < n {
        y[gtid][0] = x[gtid] * k
        y[gtid][1] = x[gtid]
    }
}
kernel fill(n: i32, x: global i32[n]) launch grid(2) block(64) {
    x[gtid] = gtid
}
"""


def test_arrays_sized_at_launch_run_at_every_size(tmp_path):
    prog = syncc.compile(str(_program(tmp_path, SIZED)), target="fermi-sim")
    for n in (1, 37, 256):
        x = np.arange(n, dtype=np.int32)
        y = np.zeros((n, 2), np.int32)
        prog.scale(n, x, y, 3)
        assert (y[:, 0] == 3 * x).all() and (y[:, 1] == x).all(), n
    with pytest.raises(LaunchError, match=r"`x` needs i32\[n\], n = 11"):
        prog.scale(11, np.zeros(10, np.int32), np.zeros((11, 2), np.int32), 1)
    with pytest.raises(LaunchError, match="negative"):
        prog.scale(-1, np.zeros(0, np.int32), np.zeros((0, 2), np.int32), 1)


def test_a_size_the_launch_gives_is_judged_with_the_launch(tmp_path):
    """`x[gtid]` unguarded: inside for n = 128 (the grid's threads), past the end for n = 100,
    which the checks for that launch see before it runs (E0726 with the size in the note)."""
    prog = syncc.compile(str(_program(tmp_path, SIZED)), target="fermi-sim")
    x = np.zeros(128, np.int32)
    prog.fill(128, x)
    assert list(x) == list(range(128))
    with pytest.raises(syncc.CompileError) as e:
        prog.fill(100, np.zeros(100, np.int32))
    assert "E0726" in str(e.value) and "with n = 100, given at run time" in str(e.value)


def test_a_size_in_a_host_block_is_checked_against_its_arrays(tmp_path):
    path = _program(tmp_path, SIZED + """host {
    let x = zeros(i32, 10)
    let y = zeros(i32, [10, 2])
    launch scale(11, x, y, 2)
}
""")
    r = syncc_cli("check", str(path))
    assert r.code == 1 and "`x` needs a host array i32[n] (n = 11), found host array i32[10]" in r.err, r.err


def test_a_size_is_a_parameter_on_its_own(tmp_path):
    path = _program(tmp_path, "kernel k(n: i32, x: global i32[n + 1]) launch grid(1) block(32) { }\n")
    r = syncc_cli("check", str(path))
    assert r.code == 1 and "error[E0101]" in r.err and "an integer parameter on its own" in r.err, r.err


def test_a_host_block_computes_sizes_grids_and_arguments(tmp_path):
    """Host arrays of sizes computed when the block runs, launched with those sizes and a computed
    grid: every configuration checked when it is launched, every result the host's."""
    path = _program(tmp_path, """kernel scale(n: i32, a: i32, x: global i32[n], y: global i32[n]) launch grid(4) block(256) {
    if gtid < n { y[gtid] = a * x[gtid] + y[gtid] }
}
kernel fill(n: i32, x: global i32[n]) launch block(64) {
    if gtid < n { x[gtid] = gtid }
}
host {
    for round in 1 .. 4 {
        let n = round * 300 + 1
        let x = random(i32, n, seed=round)
        let y = zeros(i32, n)
        launch scale(n, 2, x, y)
        check y[n - 1] == 2 * x[n - 1]
        let z = zeros(i32, [n])
        launch fill(n, z) grid((n + 63) / 64)
        print n, sum(z)
    }
    let bad = zeros(i32, 0 - 5 + popc(0))
}
""")
    r = syncc_cli("run", str(path), "--target", "fermi-sim")
    assert r.out.splitlines() == ["301 45150", "601 180300", "901 405450"], r.out + r.err
    assert r.code == 1 and "error[E0902]: an array of shape [-5]" in r.err, r.err
