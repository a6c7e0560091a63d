"""Every launch is checked for its own configuration before it runs (runtime/launch_check.py): a
host block's grid or scalar argument computed at run time, and any launch from the Python API,
gets the hazard analyses for its shape, and one they find a hazard in is refused with their
diagnostics instead of running. Each configuration is checked once."""
from __future__ import annotations

import numpy as np
import pytest

import syncc
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
    assert [s.grid for s in record.passed].count((2, 1, 1)) == 1 and len(record.refused) == 1


def test_without_the_hazard_checks_nothing_is_checked_at_launch(tmp_path):
    """--unsafe-skip-hazard-checks (the oracle's) checks no launch either: the run-time bounds
    check is what stops the kernel then."""
    path = _program(tmp_path, SPREAD + "host {\n    let out = zeros(i32, 64)\n    let k = 3\n"
                                       "    launch spread(out, k + popc(0))\n}\n")
    r = syncc_cli("run", str(path), "--target", "fermi-sim", "--unsafe-skip-hazard-checks")
    assert "E0726" not in r.err and "E0913" in r.err, r.err
