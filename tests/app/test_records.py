"""Records (`struct` types): one layout (core/records.py) shared by numpy, the C++ header, PTX and
Fermi SASS; arrays of records in kernels, the host block and the Python API, end to end on the
simulator; the hazard analyses reading a field as its record. GPU runs are marked `gpu`."""
from __future__ import annotations

import numpy as np
import pytest

import syncc as api
from helpers import ROOT, no_gpu, syncc
from syncc.core.records import layout, numpy_dtype
from syncc.core.types import BOOL, F32, F64, I32, I64, U32, U64
from syncc.driver import check_file

PROGRAM = """
struct Entry { key: u32, value: f32, next: i32 }

kernel fill(table: global Entry[n], n: i32) launch grid(2) block(32) {
    shared loc: Entry[32]
    loc[tid].key = u32(tid) * 3
    loc[tid].next = tid - 1
    barrier
    let j = (tid + 1) % 32
    if gtid < n {
        table[gtid].key = loc[j].key
        table[gtid].next = loc[j].next
        if gtid > 0 { table[gtid].value += f32(gtid) * 0.5 }     // (entry 0 takes the atomics)
    }
    atomic_add(table[0].value, 1.0)
}
host {
    let t = zeros(Entry, 64)
    t[5].value = 2.0
    launch fill(t, 64)
    check t[3].key == 12 && t[3].next == 3 && t[3].value == 1.5
    check t[63].next == -1 && t[0].value == 64.0 && t[5].value == 4.5
    print t[30].key, t[0].value
}
"""


@pytest.mark.parametrize("fields", [
    (("key", U32), ("value", F32), ("next", I32)),
    (("flag", BOOL), ("big", I64), ("x", F32)),
    (("a", F64), ("b", BOOL), ("c", BOOL), ("d", U32)),
    (("only", U64),),
])
def test_the_layout_is_numpys_aligned_layout(fields):
    r = layout("R", fields)
    fmt = {"i32": "<i4", "u32": "<u4", "i64": "<i8", "u64": "<u8", "f32": "<f4", "f64": "<f8", "bool": "?"}
    want = np.dtype([(n, fmt[t.name]) for n, t in fields], align=True)
    assert numpy_dtype(r) == want
    assert r.size == want.itemsize and [f.offset for f in r.fields] == [want.fields[n][1] for n, _ in fields]


def test_a_bool_before_an_i64_is_padded():
    r = layout("R", (("flag", BOOL), ("big", I64), ("x", F32)))
    assert [f.offset for f in r.fields] == [0, 8, 16] and r.size == 24 and r.align == 8


def write(tmp_path, text: str, name: str = "rec.sync"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_fields_of_global_and_shared_records_run_on_the_simulator(tmp_path):
    r = syncc("run", str(write(tmp_path, PROGRAM)), "--target", "fermi-sim")
    assert r.code == 0, r.err
    assert r.out.split() == ["93", "64.0"]


def test_the_python_api_takes_a_structured_array(tmp_path):
    prog = api.compile(str(write(tmp_path, PROGRAM)), target="fermi-sim")
    dt = prog.dtype("Entry")
    assert dt == np.dtype([("key", "<u4"), ("value", "<f4"), ("next", "<i4")], align=True)
    t = np.zeros(64, dt)
    t["value"][7] = 1.0
    prog.fill(t, 64)
    j = (np.arange(64) + 1) % 32
    assert t["key"].tolist() == (j * 3).tolist()
    assert t["next"].tolist() == (j - 1).tolist()
    assert t["value"][1:].tolist() == (np.arange(1, 64) * 0.5 + (np.arange(1, 64) == 7)).tolist()
    assert t["value"][0] == 64.0
    with pytest.raises(KeyError):
        prog.dtype("Nope")


def test_a_plain_array_is_refused_where_records_are_due(tmp_path):
    prog = api.compile(str(write(tmp_path, PROGRAM)), target="fermi-sim")
    with pytest.raises(Exception, match="Entry"):
        prog.fill(np.zeros(64, np.int32), 64)


def test_the_cuda_header_declares_the_struct_and_asserts_its_layout(tmp_path):
    r = syncc("build", str(write(tmp_path, PROGRAM)), "--target", "cuda")
    assert r.code == 0, r.err
    out = r.out
    assert "struct Entry {\n    uint32_t key;\n    float value;\n    int32_t next;\n};" in out
    assert "static_assert(sizeof(Entry) == 12" in out
    assert "static_assert(offsetof(Entry, next) == 8" in out and "#include <cstddef>" in out
    assert "Entry* __restrict__ a_table" in out and "__shared__ Entry a_loc_" in out.replace("a_loc[", "a_loc_[")
    assert "a_table[r_gtid].next = " in out.replace("r_gtid_1", "r_gtid") or ".next = " in out
    assert "&a_table[(int32_t)0].value" in out


def test_ptx_addresses_a_field_at_its_offset(tmp_path):
    r = syncc("build", str(write(tmp_path, PROGRAM)), "--target", "ptx")
    assert r.code == 0, r.err
    assert "12" in r.out and "red.relaxed.gpu.global.add.f32" in r.out


def test_fermi_refuses_a_record_with_a_64_bit_field(tmp_path):
    text = """
struct Wide { key: u32, big: i64 }
kernel k(t: global Wide[64]) launch grid(1) block(64) { t[tid].key = 1 }
"""
    r = syncc("build", str(write(tmp_path, text)), "--target", "fermi-sass")
    assert r.code != 0 and "E0801" in r.err and "field `big` is i64" in r.err
    assert syncc("build", str(write(tmp_path, text)), "--target", "ptx").code == 0


SPIN = """
struct Node { value: f32, next: i32 }
kernel walk(pool: global Node[64], out: global i32[64]) launch grid(1) block(64) {
    var k = tid
    var steps = 0
    while k >= 0 && k < 64 && steps < 64 {
        k = pool[k].next
        steps += 1
    }
    out[tid] = k
    WRITE
}
"""


def test_a_write_to_another_field_cannot_end_a_wait(tmp_path):
    """The neighbour of E0701: the loop waits on `.next`, the write after it is to `.value`."""
    p = write(tmp_path, SPIN.replace("WRITE", "atomic_add(pool[tid].value, 1.0)"))
    r = syncc("check", str(p))
    assert r.code == 0, r.err


def test_a_write_to_the_same_field_after_the_loop_is_a_simt_deadlock(tmp_path):
    p = write(tmp_path, SPIN.replace("WRITE", "pool[(tid + 1) % 64].next = -1"))
    r = syncc("check", str(p))
    assert r.code != 0 and "E0701" in r.err


def test_a_field_index_is_bounds_checked_per_record(tmp_path):
    text = """
struct Entry { key: u32, value: f32 }
kernel k(t: global Entry[n], n: i32) launch grid(1) block(64) { t[tid].key = 1 }
host {
    let t = zeros(Entry, 32)
    launch k(t, 32)
}
"""
    r = syncc("run", str(write(tmp_path, text)), "--target", "fermi-sim")
    assert r.code != 0 and ("E0726" in r.err or "E0913" in r.err), r.err  # the launch check, or at run time


def test_the_example_hash_table_verifies_itself_on_the_simulator():
    r = syncc("run", "examples/hash.sync", "--target", "fermi-sim")
    assert r.code == 0, r.err
    assert "all exact" in r.out


def test_the_checker_records_the_struct():
    module = check_file(str(ROOT / "examples/hash.sync")).module
    entry = module.records["Entry"]
    assert entry.field_names == ("key", "value", "next") and entry.size == 12


@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
def test_records_on_the_gpu(tmp_path):
    r = syncc("run", str(write(tmp_path, PROGRAM)), "--target", "gpu", "--timeout", "60")
    assert r.code == 0, r.err + r.out
    r = syncc("run", "examples/hash.sync", "--target", "gpu", "--timeout", "60")
    assert r.code == 0, r.err + r.out
    prog = api.compile(str(write(tmp_path, PROGRAM)))
    t = np.zeros(64, prog.dtype("Entry"))
    prog.fill(t, 64)                   # (its bytes to the device and back)
    assert t["key"][3] == 12 and t["value"][0] == 64.0


VALUES = """
struct Entry { key: u32, value: f32, next: i32 }

kernel k(table: global Entry[64], out: global Entry[64]) launch grid(1) block(64) {
    let e = table[tid]
    var f = Entry(key = e.key + 1, value = e.value * 2.0, next = -1)
    if tid % 2 == 0 { f.next = tid }
    f.key += 10
    out[tid] = f
    var g = f
    g = table[(tid + 1) % 64]
    barrier
    table[tid] = g
}
host {
    let t = zeros(Entry, 64)
    let o = zeros(Entry, 64)
    for i in 0 .. 64 { t[i] = Entry(key = u32(i), value = f32(i), next = 0) }
    var h = t[3]
    h.value += 0.5
    check h.value == 3.5 && t[3].value == 3.0, "a record value is a copy"
    launch k(t, o)
    check o[4].key == 15 && o[4].value == 8.0 && o[4].next == 4 && o[5].next == -1
    check t[63].key == 0 && t[0].key == 1
    let z = o[4]
    print z.key, z.value, z.next
}
"""


def test_record_values_and_literals_run_on_the_simulator(tmp_path):
    r = syncc("run", str(write(tmp_path, VALUES)), "--target", "fermi-sim")
    assert r.code == 0, r.err
    assert r.out.split() == ["15", "8.0", "4"]


def test_record_values_are_scalarized_for_the_back_ends(tmp_path):
    """Lowering gives each field of a local record a register of its own: the IR has no record value."""
    r = syncc("build", str(write(tmp_path, VALUES)), "--emit", "ir")
    assert r.code == 0, r.err
    assert "%e.key: u32 = ld @table[" in r.out and ".value" in r.out
    assert ": Entry =" not in r.out
    for target in ("ptx", "cuda", "fermi-sass"):
        assert syncc("build", str(write(tmp_path, VALUES)), "--target", target).code == 0, target


@pytest.mark.parametrize("body, code", [
    ("let e = t[tid]\n    e.key = 1", "E0204"),
    ("var e = t[tid]\n    e += t[0]", "E0214"),
    ("t[tid] = Entry(key = 1, value = 2.0, key = 3)", "E0216"),
    ("t[tid] = Entry(1, 2.0)", "E0216"),
    ("t[tid] = Entry(key = 1, valu = 2.0)", "E0213"),
    ("t[tid] = Entry(key = 1.5, value = 2.0)", "E0201"),
    ("let x = t[tid] == t[0]", "E0214"),
])
def test_record_values_misused(tmp_path, body, code):
    text = f"struct Entry {{ key: u32, value: f32 }}\nkernel k(t: global Entry[64]) launch grid(1) block(64) {{\n    {body}\n}}\n"
    r = syncc("check", str(write(tmp_path, text)))
    assert r.code != 0 and code in r.err, r.err


WIDE = """
struct W { flag: bool, big: i64, x: f64, y: u64, z: f32 }
kernel k(t: global W[n], n: i32) launch grid(1) block(64) {
    shared s: W[64]
    if tid < n {
        s[tid] = t[tid]
        s[tid].flag = !s[tid].flag
        atomic_add(t[tid].big, i64(1))
        atomic_max(t[tid].y, u64(7))
        let w = s[tid]
        t[tid].x = w.x + 1.0
        t[tid].flag = w.flag
    }
}
host {
    var t = zeros(W, 64)
    t[2].big = 5
    t[2].flag = true
    let e = t[2]
    print e
}
"""


def test_records_of_every_field_type_build_for_the_gpu(tmp_path):
    """bool (a byte), i64/u64/f64 (8-byte aligned): the PTX stores a bool field as a byte at its
    offset, the header declares the same struct."""
    p = write(tmp_path, WIDE)
    ptx = syncc("build", str(p), "--target", "ptx")
    assert ptx.code == 0, ptx.err
    assert "st.global.b8" in ptx.out or "st.global.u8" in ptx.out
    cuda = syncc("build", str(p), "--target", "cuda")
    assert cuda.code == 0, cuda.err
    assert "static_assert(sizeof(W) == 40" in cuda.out and "static_assert(offsetof(W, big) == 8" in cuda.out
    assert "__shared__ W a_s" in cuda.out


def test_the_host_prints_a_record_value(tmp_path):
    p = write(tmp_path, WIDE[:WIDE.index("kernel")] + WIDE[WIDE.index("host {"):])      # the host block alone
    r = syncc("run", str(p), "--target", "fermi-sim")
    assert r.code == 0, r.err
    assert r.out.strip() == "W(flag = true, big = 5, x = 0.0, y = 0, z = 0.0)"


@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
def test_records_of_every_field_type_on_the_gpu(tmp_path):
    prog = api.compile(str(write(tmp_path, WIDE)))
    t = np.zeros(64, prog.dtype("W"))
    t["flag"][::2] = True
    t["x"] = np.arange(64) * 0.25
    t["y"][3] = 9
    prog.k(t, 64)
    assert t["flag"].tolist() == [i % 2 == 1 for i in range(64)]
    assert t["big"].tolist() == [1] * 64 and t["y"][3] == 9 and t["y"][4] == 7
    assert t["x"].tolist() == (np.arange(64) * 0.25 + 1.0).tolist()


QUEUE = """
struct Task { id: i32, weight: f32, lo: u32 }
kernel k(out: global Task[64], sum: global f32[1]) launch grid(1) block(64) {
    queue work(16WRITERS): Task in PLACE @GRAN USING
    if tid < 32 {
        put work = Task(id = tid, weight = f32(tid) * 0.5, lo = u32(tid) + 100)
        CLOSE
    } else {
        TAKE {
            out[t.id] = t
            atomic_add(sum[0], t.weight)
        }
    }
}
host {
    let o = zeros(Task, 64)
    let s = zeros(f32, 1)
    launch k(o, s)
    for i in 0 .. 32 { check o[i].id == i && o[i].lo == u32(i) + 100 && o[i].weight == f32(i) * 0.5 }
    check s[0] == 248.0
}
"""

QUEUE_CASES = ["global thread ", "global thread using ring", "global thread using locked",
               "shared thread using ring", "shared thread using locked", "global thread using ring foreach",
               "shared thread using ring foreach", "global thread  foreach"]


def queue_program(case: str) -> str:
    """The queue of records, taken with `for t in work` (closed by its 32 writers) or one `get` each."""
    place, gran, using = case.split(" ", 2)
    foreach = using.endswith("foreach")
    using = using.removesuffix("foreach").strip()
    text = QUEUE.replace("PLACE", place).replace("GRAN", gran).replace("USING", using)
    if foreach:
        return text.replace("WRITERS", ", writers = 32").replace("CLOSE", "close work").replace("TAKE", "for t in work")
    return text.replace("WRITERS", "").replace("CLOSE", "").replace("TAKE", "let t = get work\n        if true")


@pytest.mark.parametrize("case", QUEUE_CASES)
def test_a_queue_of_records_on_the_simulator(tmp_path, case):
    """Every field of each record put comes out of the queue together: put, `for t in q`, close."""
    r = syncc("run", str(write(tmp_path, queue_program(case))), "--target", "fermi-sim")
    assert r.code == 0, r.err + r.out


@pytest.mark.parametrize("case", QUEUE_CASES)
@pytest.mark.parametrize("target", ["ptx", "cuda"])
def test_a_queue_of_records_builds_for_the_gpu(tmp_path, case, target):
    """A record slot never takes the ring's packed 64-bit word (a value and its sequence word): it
    is stored field by field, then published."""
    r = syncc("build", str(write(tmp_path, queue_program(case))), "--target", target)
    assert r.code == 0, r.err
    if target == "cuda":
        assert "struct Task {" in r.out


GET_TRY = """
struct Pair { a: i32, b: u32 }
kernel k(out: global Pair[64], count: global i32[3]) launch grid(1) block(64) {
    queue q(64): Pair in global @thread
    if tid < 32 {
        put q = Pair(a = tid, b = u32(tid) * 2)
        if tryput q = Pair(a = tid + 100, b = u32(tid + 100) * 2) { atomic_add(count[0], 1) }
    } else {
        let p = get q
        if p.b != u32(p.a) * 2 { atomic_add(count[2], 1) }
        out[tid] = p
        tryget r = q {
            atomic_add(count[1], 1)
            if r.b != u32(r.a) * 2 { atomic_add(count[2], 1) }
        }
    }
}
host {
    let o = zeros(Pair, 64)
    let c = zeros(i32, 3)
    launch k(o, c)
    for i in 32 .. 64 { check o[i].b == u32(2 * o[i].a) && (o[i].a < 32 || o[i].a >= 100) }
    check c[1] <= c[0] && c[2] == 0, "a record taken differs from every record put"
}
"""


def test_get_tryput_and_tryget_of_records(tmp_path):
    r = syncc("run", str(write(tmp_path, GET_TRY)), "--target", "fermi-sim")
    assert r.code == 0, r.err + r.out


def test_a_scan_of_records_is_refused(tmp_path):
    """A scan adds numbers (channels of records: tests/app/test_record_channels.py)."""
    text = "struct P { a: i32 }\nkernel k() launch grid(1) block(32) {\n    scan s: P in global @block\n}\n"
    r = syncc("check", str(write(tmp_path, text)))
    assert r.code != 0 and "E0214" in r.err and "scan" in r.err


@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
@pytest.mark.parametrize("case", QUEUE_CASES)
def test_a_queue_of_records_on_the_gpu(tmp_path, case):
    r = syncc("run", str(write(tmp_path, queue_program(case))), "--target", "gpu", "--timeout", "60")
    assert r.code == 0, r.err + r.out
    r = syncc("run", str(write(tmp_path, GET_TRY, "try.sync")), "--target", "gpu", "--timeout", "60")
    assert r.code == 0, r.err + r.out


WARP_QUEUE = """
struct Task { id: i32, weight: f32 }
kernel k(out: global Task[128]) launch grid(1) block(128) {
    queue work(4): Task in global @warp using ring
    if tid < 64 {
        put work = Task(id = tid, weight = f32(tid))
    } else {
        let t = get work
        out[tid] = t
    }
}
host {
    let o = zeros(Task, 128)
    launch k(o)
    var total = 0
    for i in 64 .. 128 { check o[i].weight == f32(o[i].id); total += o[i].id }
    check total == 63 * 64 / 2
}
"""


def test_a_warp_queue_of_records(tmp_path):
    """A @warp ring: a slot holds one record per lane, each lane's fields stored and loaded."""
    p = write(tmp_path, WARP_QUEUE)
    r = syncc("run", str(p), "--target", "fermi-sim")
    assert r.code == 0, r.err + r.out
    assert syncc("build", str(p), "--target", "ptx").code == 0
