"""A scan's declaration, its operations' types, and where `tile` and `exclusive`/`inclusive` may
stand (E0419, frontend/check_scan.py): each rule with its correct neighbour."""
import pytest

from syncc.driver import check_file

HEAD = "kernel k(n: i32, x: global i32[n], y: global i32[n]) launch block(64) {\n"
DECL = "    scan s: i32 in global @block\n"
TILE = "    let t = tile s\n"
ADD = "    let before = exclusive s(x[0])\n"

CASES = {
    # the one shape, and its spellings
    "tile then exclusive": (HEAD + DECL + TILE + ADD + "    y[0] = before\n}", []),
    "tile then inclusive, f32": ("kernel k(y: global f32[64]) launch block(64) {\n    scan s: f32 in global @block\n"
                                 + TILE + "    var sum = inclusive s(0.5)\n    y[tid] = sum\n}", []),
    "a barrier and plain work between": (HEAD + DECL + TILE + "    let i = t * 64 + tid\n    barrier\n"
                                         "    fence gpu\n    var v = 0\n    if i < n { v = x[i] }\n"
                                         "    let before = exclusive s(v)\n    if i < n { y[i] = before }\n}", []),
    "a return after the scan": (HEAD + DECL + TILE + ADD + "    if before > 3 { return }\n    y[0] = 1\n}", []),
    "waits before the tile and after the scan": (
        HEAD + DECL + "    mutex m in global @thread\n    critical m { y[0] += 1 }\n" + TILE + ADD
        + "    critical m { y[1] += before }\n}", []),
    "a top-level scan used by a kernel": ("scan s: u32 in global @block\n" + HEAD + TILE
                                          + "    let before = exclusive s(u32(tid))\n    y[tid] = i32(before)\n}", []),
    "scan, tile and exclusive remain names": (
        HEAD + "    let scan = 1\n    var tile = scan + 1\n    let exclusive = tile * 2\n    tile = exclusive\n"
        "    y[0] = tile + scan\n}", []),
    # out of place
    "tile inside an if": (HEAD + DECL + "    if tid < 32 {\n        let t = tile s\n    }\n" + ADD + "}", ["E0419", "E0419"]),
    "exclusive inside a loop": (HEAD + DECL + TILE + "    for r in 0 .. 2 {\n        let b = exclusive s(r)\n    }\n}",
                                ["E0419", "E0419"]),
    "exclusive inside an expression": (HEAD + DECL + TILE + "    let b = 1 + exclusive s(2)\n}", ["E0419", "E0419"]),
    "no tile": (HEAD + DECL + ADD + "}", ["E0419"]),
    "no scan after the tile": (HEAD + DECL + TILE + "    y[0] = t\n}", ["E0419"]),
    "two tiles": (HEAD + DECL + TILE + "    let u = tile s\n" + ADD + "}", ["E0419"]),
    "the scan before the tile": (HEAD + DECL + ADD + TILE + "}", ["E0419"]),
    "a return before the scan": (HEAD + DECL + TILE + "    if t > 5 { return }\n" + ADD + "}", ["E0419"]),
    "a return before the tile": (HEAD + DECL + "    if tid > 70 { return }\n" + TILE + ADD + "}", ["E0419"]),
    "a wait between tile and scan": (HEAD + DECL + "    mutex m in global @thread\n" + TILE
                                     + "    critical m { y[0] += 1 }\n" + ADD + "}", ["E0419"]),
    "a for loop between": (HEAD + DECL + TILE + "    var v = 0\n    for k in 0 .. 4 {\n        if k < n { v += x[k] }\n"
                           "    }\n    let before = exclusive s(v)\n    y[0] = before\n}", []),
    "a polling loop between": (HEAD + DECL + TILE + "    while load_cg(x[0]) == 0 { }\n" + ADD + "}", ["E0419"]),
    "a while loop in a called function": (
        "fn spin(x: i32) -> i32 {\n    var i = x\n    while i > 0 { i -= 1 }\n    return i\n}\n" + HEAD + DECL + TILE
        + "    let w = spin(3)\n" + ADD + "}", ["E0419"]),
    # declarations
    "a scan of bool": (HEAD + "    scan s: bool in global @block\n}", ["E0406"]),
    "a scan of i64 and one of f64": ("kernel k(y: global i64[64], z: global f64[64]) launch block(64) {\n"
                                     "    scan s: i64 in global @block\n    scan r: f64 in global @block\n" + TILE
                                     + "    let b = exclusive s(i64(tid))\n    y[tid] = b\n    let u = tile r\n"
                                     "    let c = inclusive r(0.25)\n    z[tid] = c\n}", []),
    "a scan without a type": (HEAD + "    scan s in global @block\n}", ["E0406"]),
    "an array of scans": (HEAD + "    scan s[4]: i32 in global @block\n}", ["E0406"]),
    "a scan at @thread": (HEAD + "    scan s: i32 in global @thread\n}", ["E0401"]),
    "a scan in shared memory": (HEAD + "    scan s: i32 in shared @block\n}", ["E0402"]),
    "tile of a mutex": (HEAD + "    mutex m in global @thread\n    let t = tile m\n}", ["E0404"]),
    "a library's scan": ("scan s: i32 in global @block\n", ["E0419"]),
    "a float into an integer scan": (HEAD + DECL + TILE + "    let b = exclusive s(1.5)\n}", ["E0201"]),
}


@pytest.mark.parametrize("name", CASES)
def test_scan_rules(name, tmp_path):
    src, want = CASES[name]
    path = tmp_path / "k.sync"
    path.write_text(src)
    result = check_file(str(path))
    got = sorted(d.code for d in result.diagnostics if d.severity.name == "ERROR")
    assert got == sorted(want), "\n".join(d.message for d in result.diagnostics)
