"""Channels of records: `put c[i] = Entry(...)`, `get`, `when`, `await` and plain reads carry whole
records through every channel implementation, end to end on the simulator (Fermi SASS) and built
for ptx and CUDA; the hazard analyses see a record's put and get as one put and one get. GPU runs
are marked `gpu` (the lead runs them)."""
from __future__ import annotations

import pytest

from helpers import no_gpu, syncc


def write(tmp_path, text, name="p.sync"):
    p = tmp_path / name
    p.write_text(text)
    return p


# Threads 0..31 put a record in slot tid; threads 32..63 take slot tid - 32 (TAKE) and store it.
TWO_WARPS = """
struct Entry { key: u32, value: f32, next: i32 }
kernel k(out: global Entry[64], sum: global f32[1]) launch grid(1) block(64) {
    channel c[32]: Entry in PLACE @GRAN USING
    if tid < 32 {
        put c[tid] = Entry(key = u32(tid) * 3, value = f32(tid) * 0.5, next = tid - 1)
    } else {
        TAKE
    }
}
host {
    let o = zeros(Entry, 64)
    let s = zeros(f32, 1)
    launch k(o, s)
    for i in 32 .. 64 {
        check o[i].key == u32(i - 32) * 3 && o[i].next == i - 33 && o[i].value == f32(i - 32) * 0.5
    }
    check s[0] == 248.0
}
"""

TAKES = {
    "get": "let e = get c[tid - 32]\n        out[tid] = e\n        atomic_add(sum[0], e.value)",
    "when": "when v = c[tid - 32] {\n            out[tid] = v\n            atomic_add(sum[0], v.value)\n        }",
    # await, then plain reads of the slot: the whole record and one field
    "await": "await c[tid - 32]\n        out[tid] = c[tid - 32]\n        atomic_add(sum[0], c[tid - 32].value)",
}

CASES = ["shared thread ", "shared thread using tinylock", "shared thread using atomlock",
         "shared thread using flag", "global thread ", "global thread using atomlock",
         "shared warp ", "shared warp using tinylock", "shared warp using atomlock", "shared warp using flag",
         "global warp "]


def two_warps(case: str, take: str) -> str:
    place, gran, using = case.split(" ", 2)
    return TWO_WARPS.replace("PLACE", place).replace("GRAN", gran).replace("USING", using) \
        .replace("TAKE", TAKES[take])


# @block: the whole block puts its slots, then takes another thread's (a wait, then a get; a field
# changed in a `var` copy; a plain read of its own slot after its put).
BLOCK = """
struct Entry { key: u32, value: f32, next: i32 }
kernel k(out: global Entry[128], keys: global u32[128]) launch grid(2) block(64) {
    channel c[128]: Entry in global @block USING
    let me = bid * 64 + tid
    put c[me] = Entry(key = u32(me) * 3, value = f32(me) * 0.5, next = me - 1)
    let mine = c[me]
    keys[me] = c[me].key + mine.key
    let other = bid * 64 + 63 - tid
    await c[other]
    var e = get c[other]
    e.next += 1
    out[me] = e
}
host {
    let o = zeros(Entry, 128)
    let ks = zeros(u32, 128)
    launch k(o, ks)
    for i in 0 .. 128 {
        let j = i / 64 * 64 + 63 - i % 64
        check o[i].key == u32(j) * 3 && o[i].next == j && o[i].value == f32(j) * 0.5 && ks[i] == u32(i) * 6
    }
}
"""


@pytest.mark.parametrize("take", sorted(TAKES))
@pytest.mark.parametrize("case", CASES)
def test_a_channel_of_records_on_the_simulator(tmp_path, case, take):
    """Every field of each slot's record arrives together, whatever the implementation."""
    r = syncc("run", str(write(tmp_path, two_warps(case, take))), "--target", "fermi-sim")
    assert r.code == 0, r.err + r.out


@pytest.mark.parametrize("using", ["", "using flag"])
def test_a_block_channel_of_records_on_the_simulator(tmp_path, using):
    r = syncc("run", str(write(tmp_path, BLOCK.replace("USING", using))), "--target", "fermi-sim")
    assert r.code == 0, r.err + r.out


def test_a_channel_of_records_on_the_its_simulator(tmp_path):
    for case in ("shared thread ", "global thread "):
        r = syncc("run", str(write(tmp_path, two_warps(case, "when"))), "--target", "fermi-sim", "--its")
        assert r.code == 0, r.err + r.out


def test_a_wrong_record_is_seen(tmp_path):
    """The end-to-end checks can fail: a consumer that stores the wrong slot is caught."""
    text = two_warps("shared thread ", "get").replace("out[tid] = e", "out[tid] = Entry(key = e.key, "
                                                      "value = e.value, next = e.next + 1)")
    r = syncc("run", str(write(tmp_path, text)), "--target", "fermi-sim")
    assert r.code != 0


@pytest.mark.parametrize("target", ["ptx", "cuda", "fermi-sass"])
@pytest.mark.parametrize("case", CASES)
def test_a_channel_of_records_builds(tmp_path, case, target):
    r = syncc("build", str(write(tmp_path, two_warps(case, "when"))), "--target", target)
    assert r.code == 0, r.err
    if target == "cuda":
        assert "struct Entry {" in r.out


def test_a_record_slot_is_not_packed_in_a_64_bit_word(tmp_path):
    """ptx's global @thread flag packs a scalar of at most 32 bits with its flag into one 64-bit
    word; a record's slot (here a one-field record, 32 bits) is stored field by field, then flagged."""
    one = "struct One { v: u32 }\n" + """
kernel k(out: global u32[64]) launch grid(1) block(64) {
    channel c[32]: TYPE in global @thread
    if tid < 32 { put c[tid] = VALUE } else { let e = get c[tid - 32]
        out[tid] = FIELD }
}
"""
    scalar = syncc("build", str(write(tmp_path, one.replace("TYPE", "u32").replace("VALUE", "u32(tid)")
                                      .replace("FIELD", "e"), "s.sync")), "--target", "ptx", "-O2")
    record = syncc("build", str(write(tmp_path, one.replace("TYPE", "One").replace("VALUE", "One(v = u32(tid))")
                                      .replace("FIELD", "e.v"), "r.sync")), "--target", "ptx", "-O2")
    assert scalar.code == 0 and record.code == 0, scalar.err + record.err
    assert "st.release.gpu.global.u64" in scalar.out and "ld.acquire.gpu.global.u64" in scalar.out
    assert "st.release.gpu.global.u64" not in record.out and "ld.acquire.gpu.global.u64" not in record.out
    assert "st.release.gpu.global.u32" in record.out and "ld.acquire.gpu.global.u32" in record.out   # the flag


HAZARD = """
struct Entry { key: u32, value: f32 }
kernel k(out: global Entry[64]) launch grid(1) block(64) {
    channel c[32]: Entry in shared @thread
    if tid < 32 {
        put c[PUT] = Entry(key = u32(tid), value = 1.0)
    } else {
        let e = get c[tid - 32]
        out[tid] = e
    }
}
"""


@pytest.mark.parametrize("put, code", [("tid / 2", "E0706"), ("tid % 31", "E0705"), ("tid", None)])
def test_the_analyses_see_a_record_put_and_get_as_one(tmp_path, put, code):
    """A slot put twice (E0706), a slot waited for that nothing puts (E0705), and the correct
    neighbour, which is accepted."""
    r = syncc("check", str(write(tmp_path, HAZARD.replace("PUT", put))))
    if code is None:
        assert r.code == 0, r.err
    else:
        assert r.code != 0 and code in r.err, r.err


def test_a_record_get_is_one_wait_to_the_simt_check(tmp_path):
    """On Fermi, a consumer lane waiting for a producer lane of its own warp is a SIMT deadlock
    (E0701) for a record channel as for a scalar one; its neighbour across warps is accepted above."""
    text = HAZARD.replace("PUT", "tid").replace("if tid < 32", "if tid % 2 == 0").replace("tid - 32", "tid - 1")
    text = text.replace("put c[tid]", "put c[tid / 2]").replace("get c[tid - 1]", "get c[(tid - 1) / 2]")
    r = syncc("check", str(write(tmp_path, text)), "--target", "fermi-sim")
    assert r.code != 0 and "E0701" in r.err, r.err


def test_a_channel_slot_field_is_not_assigned(tmp_path):
    text = HAZARD.replace("PUT", "tid").replace("out[tid] = e", "out[tid] = e\n        c[0].key = 1")
    r = syncc("check", str(write(tmp_path, text)))
    assert r.code != 0 and "E0411" in r.err and "written with `put`" in r.err, r.err


EVERY_TYPE = """
struct Wide { a: f64, b: bool, c: i64, d: u32 }
kernel k(out: global Wide[64]) launch grid(1) block(64) {
    channel c[32]: Wide in global @thread
    if tid < 32 {
        put c[tid] = Wide(a = f64(tid) * 0.25, b = tid % 2 == 1, c = i64(tid) * 4000000000, d = u32(tid))
    } else {
        out[tid] = get c[tid - 32]
    }
}
host {
    let o = zeros(Wide, 64)
    launch k(o)
    for i in 32 .. 64 {
        check o[i].a == f64(i - 32) * 0.25 && o[i].b == ((i - 32) % 2 == 1) && o[i].c == i64(i - 32) * 4000000000
        check o[i].d == u32(i - 32)
    }
}
"""


@pytest.mark.parametrize("target", ["ptx", "cuda"])
def test_a_channel_of_records_of_every_field_type_builds(tmp_path, target):
    r = syncc("build", str(write(tmp_path, EVERY_TYPE)), "--target", target)
    assert r.code == 0, r.err


@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
@pytest.mark.parametrize("case", CASES)
def test_a_channel_of_records_on_the_gpu(tmp_path, case):
    for take in sorted(TAKES):
        r = syncc("run", str(write(tmp_path, two_warps(case, take))), "--target", "gpu", "--timeout", "60")
        assert r.code == 0, take + r.err + r.out
    r = syncc("run", str(write(tmp_path, BLOCK.replace("USING", ""), "b.sync")), "--target", "gpu", "--timeout", "60")
    assert r.code == 0, r.err + r.out
    r = syncc("run", str(write(tmp_path, EVERY_TYPE, "w.sync")), "--target", "gpu", "--timeout", "60")
    assert r.code == 0, r.err + r.out


def test_the_ir_text_of_a_channel_of_records_reads_back(tmp_path):
    """`syncc opt` reads a record channel's declaration and its put and get, a register per field,
    and the passes take the IR it read to the end (ptx and Fermi)."""
    from syncc.ir.parser import parse_ir
    from syncc.ir.printer import print_module
    p = write(tmp_path, two_warps("shared thread ", "when"))
    r = syncc("build", str(p), "--dump-after", "lower")
    assert r.code == 0, r.err
    text = r.out.split("\n", 1)[1]
    assert "chan.put @c[%tid_x], " in text and "%v.key: u32, %v.value: f32, %v.next: i32 = chan.get" in text
    assert print_module(parse_ir(text)).strip() == text.strip()
    (tmp_path / "k.ir").write_text(text)
    for target in ("ptx", "fermi-sim"):
        passes = [a for name in ("check_hazards", "structure", "insert_fences", "expand_primitives",
                                 "initialize_shared_state", "allocate_lock_bits") for a in ("-p", name)]
        r = syncc("opt", str(tmp_path / "k.ir"), "--target", target, *passes)
        assert r.code == 0 and "chan." not in r.out, r.err


TOP_LEVEL = """
struct P { a: i32, b: f32 }
channel c[32]: P in global @thread
kernel k(out: global P[64]) launch grid(1) block(64) {
    if tid < 32 { put c[tid] = P(a = tid + 5, b = f32(tid)) } else { out[tid] = get c[63 - tid] }
}
kernel peek(out: global P[64]) launch grid(1) block(32) {
    out[tid] = c[tid]
}
host {
    let o = zeros(P, 64)
    launch k(o)
    check o[32].a == 36 && o[32].b == 31.0 && o[63].a == 5
}
"""


def test_a_top_level_channel_of_records(tmp_path):
    """Every kernel that uses a top-level channel has its own; one that only reads it plainly
    (`peek`, never launched) takes it in as well (a plain read was an internal error)."""
    r = syncc("run", str(write(tmp_path, TOP_LEVEL)), "--target", "fermi-sim")
    assert r.code == 0, r.err + r.out


def test_the_cuda_headers_compile(tmp_path):
    """The header of every channel-of-records case (and of the record of every field type)
    compiles with nvcc without a warning (skipped without nvcc)."""
    import subprocess
    from syncc.backends.ptx.tools import find_tool
    if find_tool("nvcc") is None:
        pytest.skip("nvcc is not on PATH")
    includes = []
    texts = [two_warps(case, take) for case in CASES for take in ("get", "await")] + [EVERY_TYPE, BLOCK.replace(
        "USING", "")]
    for n, text in enumerate(texts):
        r = syncc("build", str(write(tmp_path, text, f"c{n}.sync")), "--target", "cuda", "-o", str(tmp_path / f"c{n}.cuh"))
        assert r.code == 0, r.err
        includes.append(f'#include "c{n}.cuh"')
    cu = tmp_path / "all.cu"
    cu.write_text("\n".join(includes) + "\nint main() { return 0; }\n")
    p = subprocess.run([find_tool("nvcc"), "-arch=sm_90", "-std=c++17", "-Werror", "all-warnings", "-c", str(cu),
                        "-o", str(tmp_path / "t.o")], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert p.returncode == 0, p.stderr[-4000:]


VENDED = "struct Task { id: i32, w: f32 }\nchannel box[32]: Task in global @thread\nqueue work(16): Task in global @thread\n"
VENDED_DECLS = ["channel box[32]: Task in global @thread using atomlock", "channel box[32]: Task in shared @thread",
                "channel box[64]: Task in shared @warp", "channel box[64]: Task in global @block",
                "queue work(16): Task in shared @thread using locked", "queue work(16): Task in global @warp",
                "queue work(16, writers = 4): Task in global @thread using ring",
                "queue work(16): Task in shared @warp using mbarrier", "queue work(16): Task in global @thread using spsc"]


def test_a_library_vends_channels_and_queues_of_records(tmp_path):
    """The C++ type's put takes the record (`put(int32_t index, Task value)`), get returns one,
    next fills one; the header declares the struct once."""
    r = syncc("build", str(write(tmp_path, VENDED, "recs.sync")), "--target", "cuda")
    assert r.code == 0, r.err
    for member in ("void put(int32_t index, Task value)", "Task get(int32_t index)", "void put(Task value)",
                   "Task get() const", "bool try_put(Task value)", "bool next(Task& value)", "Task* data;",
                   "data[r_syncc_index].id = r_syncc_value_id;"):
        assert member in r.out, member
    assert r.out.count("struct Task {") == 1


def test_the_vended_headers_compile(tmp_path):
    """Every implementation a library may vend a record slot with: its header compiles with nvcc
    without a warning, with tests/gpu/vended_records.cu, which uses one (skipped without nvcc)."""
    import shutil
    import subprocess
    from helpers import ROOT
    from syncc.backends.ptx.tools import find_tool
    if find_tool("nvcc") is None:
        pytest.skip("nvcc is not on PATH")
    includes = []
    for n, decl in enumerate(VENDED_DECLS):
        src = write(tmp_path, "struct Task { id: i32, w: f32, flag: bool }\n" + decl + "\n", f"v{n}.sync")
        r = syncc("build", str(src), "--target", "cuda", "-o", str(tmp_path / f"v{n}.cuh"))
        assert r.code == 0, (decl, r.err)
        includes.append(f'#include "v{n}.cuh"')
    r = syncc("build", str(write(tmp_path, VENDED, "recs.sync")), "--target", "cuda", "-o", str(tmp_path / "recs.cuh"))
    assert r.code == 0, r.err
    shutil.copy(ROOT / "tests" / "gpu" / "vended_records.cu", tmp_path)
    cu = tmp_path / "all.cu"
    cu.write_text("\n".join(includes) + '\n#include "vended_records.cu"\n')
    p = subprocess.run([find_tool("nvcc"), "-arch=sm_90", "-std=c++17", "-Werror", "all-warnings", "-c", str(cu),
                        "-o", str(tmp_path / "t.o")], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert p.returncode == 0, p.stderr[-4000:]


@pytest.mark.gpu
@pytest.mark.skipif(no_gpu() is not None, reason=no_gpu() or "")
def test_vended_records_on_the_gpu(tmp_path):
    """tests/gpu/vended_records.cu: records through a vended channel and queue arrive whole."""
    import shutil
    import subprocess
    from helpers import ROOT
    r = syncc("build", str(write(tmp_path, VENDED, "recs.sync")), "--target", "cuda", "-o", str(tmp_path / "recs.cuh"))
    assert r.code == 0, r.err
    shutil.copy(ROOT / "tests" / "gpu" / "vended_records.cu", tmp_path)
    p = subprocess.run(["nvcc", "-arch=sm_90", "-std=c++17", "-o", "vr", "vended_records.cu"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-4000:]
    p = subprocess.run([str(tmp_path / "vr")], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "ok" in p.stdout, p.stdout + p.stderr


CHAIN = """
struct P { a: i32, b: f32 }
kernel k(out: global P[96]) launch grid(1) block(96) {
    channel c[32]: P in shared @thread
    channel d[32]: P in shared @thread
    if tid < 32 {
        put c[tid] = P(a = tid, b = 1.5)
    } else if tid < 64 {
        when v = c[tid - 32] { put d[tid - 32] = v }
    } else {
        let w = get d[tid - 64]
        out[tid] = w
    }
}
host {
    let o = zeros(P, 96)
    launch k(o)
    for i in 64 .. 96 { check o[i].a == i - 64 && o[i].b == 1.5 }
}
"""


@pytest.mark.parametrize("its", [False, True])
def test_a_when_passes_its_record_on(tmp_path, its):
    """A `when` binding is a record value: it is put into the next channel of the chain whole."""
    r = syncc("run", str(write(tmp_path, CHAIN)), "--target", "fermi-sim", *(["--its"] if its else []))
    assert r.code == 0, r.err + r.out
