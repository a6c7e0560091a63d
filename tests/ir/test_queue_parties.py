"""Queues of @warp and @block parties (docs/language.md, "Queues"; ir/impls/queue/ring_party.py): a
warp or a block puts one value per member as one item, and member m of the consumer party gets
member m's value. Run on the simulator against the programs' own host checks; the checks that
judge a party's operations (a split warp, a block that does not all reach it, counts per party)."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from helpers import syncc

ENGINES = [(), ("--its",), ("--policy", "random:7"), ("--engine", "reference")]

WARPS = """kernel k(out: global i32[512], wrong: global i32[1]) launch grid(1) block(128) {
    queue q(CAP): i32 in shared @warp
    if warp < 2 {
        for r in 0 .. 8 { put q = warp * 256 + r * 32 + lane }
    } else {
        for r in 0 .. 8 {
            let v = get q
            atomic_add(out[v], 1)
            if v % 32 != lane { atomic_add(wrong[0], 1) }
        }
    }
}
host {
    let out = zeros(i32, 512)
    let wrong = zeros(i32, 1)
    launch k(out, wrong)
    check out == full(i32, 512, 1), "every value is taken once"
    check wrong[0] == 0, "lane l takes lane l's values"
}
"""


@pytest.mark.parametrize("flags", ENGINES, ids=" ".join)
@pytest.mark.parametrize("cap", [1, 4])
def test_warps_stream_a_value_per_lane(tmp_path, cap, flags):
    path = tmp_path / "warps.sync"
    path.write_text(WARPS.replace("CAP", str(cap)))
    r = syncc("run", str(path), *flags)
    assert r.code == 0, r.err


BLOCKS = """kernel k(out: global i32[2048], wrong: global i32[1]) launch grid(4) block(64) {
    queue q(2, writers = 2): i32 in global @block
    if bid < 2 {
        for r in 0 .. 8 { put q = bid * 1024 + r * 64 + tid }
        close q
    } else {
        for v in q {
            atomic_add(out[v], 1)
            if v % 64 != tid { atomic_add(wrong[0], 1) }
        }
    }
}
host {
    let out = zeros(i32, 2048)
    let wrong = zeros(i32, 1)
    launch k(out, wrong)
    var n = 0
    for i in 0 .. 2048 { n = n + out[i] }
    check n == 1024, "every value is taken once"
    for b in 0 .. 2 { for r in 0 .. 8 { for t in 0 .. 64 {
        check out[b * 1024 + r * 64 + t] == 1, "every value is taken once"
    } } }
    check wrong[0] == 0, "thread t takes thread t's values"
}
"""


@pytest.mark.parametrize("flags", ENGINES, ids=" ".join)
def test_blocks_close_and_a_for_loop_drains(tmp_path, flags):
    path = tmp_path / "blocks.sync"
    path.write_text(BLOCKS)
    r = syncc("run", str(path), *flags)
    assert r.code == 0, r.err


TRIES = """kernel k(o: global i32[128], took: global i32[4]) launch grid(1) block(64) {
    queue q(2): i32 in shared @warp
    if warp == 1 {
        for i in 0 .. 3 {
            if tryput q = i * 32 + lane { atomic_add(took[i], 1) }
        }
        for i in 0 .. 3 {
            tryget v = q { o[v] = o[v] + 1 } else { atomic_add(took[3], 1) }
        }
    }
}
host {
    let o = zeros(i32, 128)
    let took = zeros(i32, 4)
    launch k(o, took)
    check took[0] == 32 && took[1] == 32 && took[2] == 0, "two items fit, the third try fails in every lane"
    check took[3] == 32, "the third tryget finds the queue empty in every lane"
    for i in 0 .. 64 { check o[i] == 1, "every lane takes its own two values" }
    check o[64] == 0, "the failed tryput stored nothing"
}
"""


@pytest.mark.parametrize("flags", [(), ("--its",)], ids=" ".join)
def test_a_party_tries_as_one(tmp_path, flags):
    """The leader's single attempt decides for the whole warp: every lane stores (or reads), or
    none does."""
    path = tmp_path / "tries.sync"
    path.write_text(TRIES)
    r = syncc("run", str(path), *flags)
    assert r.code == 0, r.err


@pytest.mark.parametrize("body, code, says", [
    ("queue q(4): i32 in shared @warp\n    if lane < 16 { put q = lane }\n    if warp == 1 { o[lane] = get q }",
     "E0707", "`put` on the @warp queue `q` runs where the lanes of a warp may have split"),
    ("queue q(4): i32 in global @block\n    if bid == 0 { put q = tid }\n    if bid == 1 && tid < 32 { o[tid] = get q }",
     "E0704", "`get` on the @block queue `q` is under control flow that differs between the threads of the block"),
    ("queue q(4): i32 in shared @warp using locked", "E0409", "`locked` does not implement a queue `in shared @warp`"),
    ("queue q(4): i32 in shared @block", "E0402", "a shared-memory queue cannot be contended across blocks"),
    ("queue q(4): i32 in shared @warp\n    if warp == 0 { put q = lane }\n"
     "    if warp == 1 {\n        o[lane] = get q\n        o[lane] = get q\n    }",
     "E0705", "2 values are taken from `q`, and at most 1 is put into it, so 1 `get` never ends"),
    ("queue q(2): i32 in shared @warp\n    if warp == 0 {\n        for i in 0 .. 3 { put q = i }\n"
     "        o[lane] = get q\n    }", "E0720", "this `put` on `q` can wait forever: with every thread going as far as it can, warp 0 waits here for "
     "room in `q` that only it would provide"),
    ("queue q(2, writers = 3): i32 in shared @warp\n    if warp < 2 {\n        put q = lane\n        close q\n    }\n"
     "    if warp == 2 { for v in q { o[lane] = v } }",
     "E0705", "the queue closes after 3 `close`s (its `writers`), and `q` is closed 2 times at most"),
], ids=["split-warp", "split-block", "locked", "shared-block", "more-gets", "own-full-queue", "too-few-closes"])
def test_what_is_wrong_with_a_party_queue(tmp_path, body, code, says):
    """Counts are per party: a warp's `put` is one item, its `close` one of the `writers`."""
    path = tmp_path / "bad.sync"
    grid = "2" if "@block" in body else "1"
    path.write_text(f"kernel k(o: global i32[128]) launch grid({grid}) block(96) {{\n    {body}\n}}\n")
    r = syncc("check", str(path))
    assert r.code == 1 and f"error[{code}]" in r.err and says in r.err, r.err


@pytest.mark.parametrize("body", [
    "queue q(2): i32 in shared @warp\n    if warp == 0 {\n        for i in 0 .. 2 { put q = i }\n"
    "        for i in 0 .. 2 { o[lane] = get q }\n    }",
    "queue q(2, writers = 2): i32 in shared @warp\n    if warp < 2 {\n        put q = lane\n        close q\n    }\n"
    "    if warp == 2 { for v in q { o[lane] = v } }",
], ids=["fill-then-drain", "closes-per-warp"])
def test_the_correct_neighbours_are_accepted(tmp_path, body):
    path = tmp_path / "ok.sync"
    path.write_text(f"kernel k(o: global i32[128]) launch grid(1) block(96) {{\n    {body}\n}}\n")
    r = syncc("check", str(path))
    assert r.code == 0, r.err


def test_explain_says_a_party_queue_is_a_ring(tmp_path):
    path = tmp_path / "blocks.sync"
    path.write_text(BLOCKS)
    r = syncc("explain", str(path), "--target", "ptx")
    assert r.code == 0, r.err
    assert "queue `q` (global @block, capacity 2): ring" in r.out
    assert "taken by the party's leader" in r.out


# ---- mbarrier stages: one producer warp and one consumer warp per block

STAGES = """kernel k(out: global i32[256], wrong: global i32[1]) launch grid(2) block(64) {
    queue q(3): i32 in shared @warp USING
    for r in 0 .. 8 {
        if warp == 0 {
            put q = r * 32 + lane
        } else {
            let v = get q
            atomic_add(out[v], 1)
            if v % 32 != lane { atomic_add(wrong[0], 1) }
        }
    }
}
host {
    let out = zeros(i32, 256)
    let wrong = zeros(i32, 1)
    launch k(out, wrong)
    check out == full(i32, 256, 2), "every value is taken once in each block"
    check wrong[0] == 0, "lane l takes lane l's values"
}
"""


@pytest.mark.parametrize("flags", ENGINES, ids=" ".join)
def test_mbarrier_stages_run_on_the_simulator(tmp_path, flags):
    """Fermi has no mbarrier: two shared words per barrier stand in, so the simulator runs the
    protocol itself (each lane's count, the phases' parities, 32 arrivals a phase)."""
    path = tmp_path / "stages.sync"
    path.write_text(STAGES.replace("USING", "using mbarrier"))
    r = syncc("run", str(path), *flags)
    assert r.code == 0, r.err


def test_two_producer_warps_deadlock_the_stages_they_share(tmp_path):
    """What E0725 prevents, shown: two warps counting their own puts fill the same stages."""
    path = tmp_path / "two.sync"
    path.write_text(STAGES.replace("USING", "using mbarrier").replace("block(64)", "block(96)")
                    .replace("if warp == 0 {", "if warp < 2 {"))
    assert "E0725" in syncc("check", str(path)).err
    r = syncc("run", str(path), "--unsafe-skip-hazard-checks", "--max-cycles", "2000000")
    assert r.code in (1, 3), r.err


@pytest.mark.parametrize("decl, body, code, says", [
    ("using mbarrier", "if warp < 2 { put q = lane }\n    if warp == 2 { o[lane] = get q\n        o[lane] = get q }",
     "E0725", "2 warps of a block put into the `mbarrier` queue `q` (warps 0 and 1)"),
    ("using mbarrier", "if warp == w[0] { put q = lane }\n    if warp == 2 { o[lane] = get q }",
     "E0725", "the `mbarrier` queue `q`"),
    ("using mbarrier", "if warp == 0 { put q = lane }\n    tryget v = q { o[lane] = v }",
     "E0418", "`tryget q` needs a `ring` queue"),
    ("using mbarrier", "if warp == 0 { put q = lane\n        close q }", "E0418", "`close q` needs a `ring` queue"),
], ids=["two-producers", "data-dependent", "tryget", "close"])
def test_what_is_wrong_with_an_mbarrier_queue(tmp_path, decl, body, code, says):
    path = tmp_path / "bad.sync"
    path.write_text(f"kernel k(o: global i32[128], w: global i32[1]) launch grid(1) block(96) {{\n"
                    f"    queue q(3): i32 in shared @warp {decl}\n    {body}\n}}\n")
    r = syncc("check", str(path))
    assert r.code == 1 and f"error[{code}]" in r.err and says in r.err, r.err


@pytest.mark.parametrize("source, says", [
    ("queue q(3): i32 in shared @warp using mbarrier\nkernel k(o: global i32[64]) launch grid(1) block(64) {\n"
     "    if warp == 0 { put q = lane } else { o[lane] = get q }\n}\n", "declared in the kernel that uses it"),
    ("kernel k(o: global i32[64]) launch grid(1) block(48) {\n    queue q(3): i32 in shared @warp using mbarrier\n}\n",
     "must be whole warps, not 48 threads"),
    ("kernel k(o: global i32[64]) launch grid(1) block(64) {\n    queue q[2](3): i32 in shared @warp using mbarrier\n"
     "    if warp == 0 { put q[lane % 2] = lane }\n}\n", "needs a constant index"),
], ids=["top-level", "partial-warp", "index"])
def test_an_mbarrier_queue_needs_its_kernel_and_whole_warps(tmp_path, source, says):
    path = tmp_path / "bad.sync"
    path.write_text(source)
    r = syncc("check", str(path))
    assert r.code == 1 and says in r.err, r.err


@pytest.mark.parametrize("target, warps, chosen", [("ptx", 1, "mbarrier"), ("ptx", 2, "ring"), ("fermi-sim", 1, "ring")])
def test_ptx_chooses_mbarrier_stages_where_one_warp_is_each_side(tmp_path, target, warps, chosen):
    """The cost model (ir/impls/queue/choose.py): a shared @warp queue without `using` becomes an
    mbarrier queue on ptx where the analyses show one producer and one consumer warp a block."""
    path = tmp_path / "auto.sync"
    path.write_text(STAGES.replace(" USING", "").replace("block(64)", f"block({64 * warps})")
                    .replace("if warp == 0 {", f"if warp < {warps} {{"))
    r = syncc("explain", str(path), "--target", target)
    assert r.code == 0, r.err
    assert f"queue `q` (shared @warp, capacity 3): {chosen} —" in r.out, r.out
    assert ("the ptx cost model: one warp of each block puts into it" in r.out) == (chosen == "mbarrier")


@pytest.mark.parametrize("arch, wait", [("sm_90", "mbarrier.try_wait.parity"), ("sm_80", "mbarrier.test_wait.parity"),
                                        ("sm_75", "ld.acquire.cta.shared.u32")])
def test_the_stages_wait_as_the_architecture_can(tmp_path, arch, wait):
    """try_wait on sm_90, test_wait on sm_80; before sm_80 two shared words per barrier. No warp
    meets: there is no bar.warp.sync in the kernel."""
    path = tmp_path / "stages.sync"
    path.write_text(STAGES.replace("USING", ""))
    r = syncc("build", str(path), "--target", "ptx", "--arch", arch)
    assert r.code == 0, r.err
    assert wait in r.out and "bar.warp.sync" not in r.out
    assert ("mbarrier.arrive" in r.out) == (arch != "sm_75")


# ---- one thread each side: `spsc` and `tinylock` (ir/impls/queue/counted.py)

PAIRS = """kernel k(out: global i32[1024], late: global i32[1]) launch grid(2) block(64) {
    queue q[32](CAP): i32 in shared @thread using IMPL
    var last = -1
    for r in 0 .. 16 {
        if warp == 0 {
            put q[lane] = r * 32 + lane
        } else {
            let v = get q[lane]
            atomic_add(out[bid * 512 + v], 1)
            if v <= last || v % 32 != lane { atomic_add(late[0], 1) }
            last = v
        }
    }
}
host {
    let out = zeros(i32, 1024)
    let late = zeros(i32, 1)
    launch k(out, late)
    check out == full(i32, 1024, 1), "every value is taken once"
    check late[0] == 0, "each consumer takes its own producer's values, in order"
}
"""


@pytest.mark.parametrize("flags", ENGINES, ids=" ".join)
@pytest.mark.parametrize("impl", ["spsc", "tinylock"])
@pytest.mark.parametrize("cap", [1, 4])
def test_pairs_stream_through_queues_of_their_own(tmp_path, impl, cap, flags):
    """32 producer lanes, each with a queue of its own, feed the lanes of another warp; at
    capacity 1 every value waits for its slot's token (or sequence word) to come back."""
    path = tmp_path / "pairs.sync"
    path.write_text(PAIRS.replace("IMPL", impl).replace("CAP", str(cap)))
    r = syncc("run", str(path), *flags)
    assert r.code == 0, r.err


@pytest.mark.parametrize("impl, target, says", [
    ("tinylock", "fermi-sim", "tinylock — 4 slots with two lock bits each, `full` (held at first) and `empty`"),
    ("tinylock", "ptx", "tinylock as spsc (ptx has no lock bits) — 4 slots with a sequence word each"),
    ("spsc", "ptx", "spsc — 4 slots with a sequence word each; one producer and one consumer thread count"),
])
def test_explain_says_how_the_pairs_queue_runs(tmp_path, impl, target, says):
    path = tmp_path / "pairs.sync"
    path.write_text(PAIRS.replace("IMPL", impl).replace("CAP", "4"))
    r = syncc("explain", str(path), "--target", target)
    assert r.code == 0 and says in r.out, r.out


def test_a_tinylock_pipeline_uses_two_bits_a_slot_whatever_its_rounds(tmp_path):
    """The token goes back: 64 rounds through 32 queues of 4 slots take 2 x 32 x 4 lock bits."""
    path = tmp_path / "pairs.sync"
    path.write_text(PAIRS.replace("IMPL", "tinylock").replace("CAP", "4").replace("0 .. 16", "0 .. 64")
                    .replace("1024", "4096").replace("512", "2048"))
    r = syncc("explain", str(path), "--target", "fermi-sim")
    assert r.code == 0, r.err
    assert "(bit = word mod 1024; 256 of 1024 used)" in r.out, r.out


@pytest.mark.parametrize("impl", ["spsc", "tinylock"])
@pytest.mark.parametrize("body, code, says", [
    ("if warp == 0 { put q[lane % 16] = lane }\n    if warp == 1 && lane < 16 { o[lane] = get q[lane]\n"
     "        o[lane] = get q[lane] }", "E0725", "2 threads of a block put into the `IMPL` queue `q` (threads 0 and 16)"),
    ("if warp == 0 { put q[lane] = lane }\n    tryget v = q[lane] { o[lane] = v }", "E0418",
     "`tryget q` needs a `ring` queue: a `IMPL` queue's sides count"),
], ids=["two-producers", "tryget"])
def test_what_is_wrong_with_a_pairs_queue(tmp_path, impl, body, code, says):
    path = tmp_path / "bad.sync"
    path.write_text(f"kernel k(o: global i32[128]) launch grid(1) block(64) {{\n"
                    f"    queue q[32](4): i32 in shared @thread using {impl}\n    {body}\n}}\n")
    r = syncc("check", str(path))
    assert r.code == 1 and f"error[{code}]" in r.err and says.replace("IMPL", impl) in r.err, r.err


@pytest.mark.parametrize("source, target, chosen", [
    (PAIRS.replace(" using IMPL", "").replace("CAP", "4"), "ptx", "spsc"),
    (PAIRS.replace(" using IMPL", "").replace("CAP", "4"), "fermi-sim", "spsc"),   # 256 bits: over an eighth
    (PAIRS.replace(" using IMPL", "").replace("CAP", "4").replace("q[32]", "q[8]").replace("if warp == 0 {",
                                                                                         "if warp == 0 && lane < 8 {")
     .replace("} else {", "} else if lane < 8 {"), "fermi-sim", "tinylock"),
    # a producer that only some blocks have: which threads put depends on the block, so a grid the
    # analysis did not follow could have two: the ring stays
    (STAGES.replace(" USING", "").replace("if warp == 0 {", "if warp == 0 || bid == 3 && warp == 1 {")
     .replace("} else {", "} else if warp == 1 {"), "ptx", "ring"),
], ids=["spsc-ptx", "spsc-fermi", "tinylock-fermi", "bid-dependent"])
def test_the_cost_model_chooses_a_queue_that_counts_its_own_tickets(tmp_path, source, target, chosen):
    """impls/queue/choose.py: one party a side of each shared instance, at every grid, with `put` and
    `get` only, makes the default ring `mbarrier`, `tinylock` or `spsc`."""
    path = tmp_path / "auto.sync"
    path.write_text(source)
    r = syncc("explain", str(path), "--target", target)
    assert r.code == 0, r.err
    assert f"capacity {'3' if 'STAGES' in source or 'q(3)' in source else '4'}): {chosen} —" in r.out, r.out
    assert ("cost model" in r.out) == (chosen != "ring")
    if "lane < 8" not in source:            # (its host block checks every lane's values)
        assert syncc("run", str(path)).code == 0


def test_a_top_level_spsc_queue_is_vended_by_a_library_and_refused_in_a_program(tmp_path):
    """A library vends it to C++ callers, who owe it one thread a side (docs/stdlib.md); a
    program's kernels would share it across launches the analyses do not see (E0409)."""
    lib = tmp_path / "lib.sync"
    lib.write_text("queue pipe(8): i32 in global @thread using spsc\n")
    r = syncc("build", str(lib), "--target", "cuda")
    assert r.code == 0, r.err
    assert "void put(int32_t value)" in r.out and "int32_t get()" in r.out
    assert "try_put" not in r.out and "close()" not in r.out          # put and get only (E0418)
    assert "void init() const" in r.out and "void init_block() const" in r.out    # global slots, shared counts
    prog = tmp_path / "prog.sync"
    prog.write_text("queue pipe(8): i32 in global @thread using spsc\n"
                    "kernel k(o: global i32[1]) launch grid(2) block(32) {\n"
                    "    if bid == 0 && tid == 0 { put pipe = 1 }\n    if bid == 1 && tid == 0 { o[0] = get pipe }\n}\n")
    r = syncc("check", str(prog))
    assert r.code == 1 and "error[E0409]" in r.err and "declared in the kernel that uses it" in r.err, r.err


def test_a_library_vends_mbarrier_stages_whose_init_sets_the_barriers_up(tmp_path):
    """Vended, each lane counts in a shared word of its own (the type's `counts`) and init() runs
    mbarrier.init (or sets the two words that stand in before sm_80); an instance's index may be a
    run-time value there. The header compiles for every architecture its #if branches serve."""
    lib = tmp_path / "lib.sync"
    lib.write_text("queue q[2](3): u32 in shared @warp using mbarrier\n")
    r = syncc("build", str(lib), "--target", "cuda", "-o", str(tmp_path / "lib.cuh"))
    assert r.code == 0, r.err
    header = (tmp_path / "lib.cuh").read_text()
    for text in ("uint64_t* bars;   // shared, 12 u64, an mbarrier of 32 arrivals each (init())",
                 "int32_t* counts;   // shared, 128 i32, first value 0", "mbarrier.init.shared.b64",
                 "void put(int32_t index, uint32_t value)", "uint32_t get(int32_t index)"):
        assert text in header, text
    assert "try_put" not in header
    assert syncc("build", str(lib), "--target", "fermi-sass").code == 0       # the two-word stand-in
    if shutil.which("nvcc") is None:
        return
    (tmp_path / "use.cu").write_text(
        '#include "lib.cuh"\n__global__ void k(unsigned* o) {\n'
        "    __shared__ uint32_t d[192]; __shared__ uint64_t b[12]; __shared__ int32_t c[128];\n"
        "    syncc_lib::q q{d, b, c}; q.init(); __syncthreads();\n"
        "    if (threadIdx.x < 32) q.put(1, threadIdx.x); else o[threadIdx.x] = q.get(1);\n}\n")
    for arch in ("sm_75", "sm_80", "sm_90"):
        p = subprocess.run(["nvcc", f"-arch={arch}", "-std=c++17", "-Werror", "all-warnings", "-c", "use.cu"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stderr[-3000:]
