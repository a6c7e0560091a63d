"""How %globaltimer advances on this GPU, and how long `trywait s for t us` waits for each t.

    python bench/experiments/globaltimer/probe.py
"""
import sys
import tempfile
from pathlib import Path

import cupy as cp
import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
import syncc  # noqa: E402

RAW = r'''
extern "C" __global__ void ticks(unsigned long long* out, long long* clk, int n) {
    unsigned long long last, t; long long c0 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(last));
    out[0] = last; clk[0] = 0;
    for (int i = 1; i < n; ) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t != last) { out[i] = t; clk[i] = clock64() - c0; last = t; ++i; }
    }
}
'''
k = cp.RawKernel(RAW, "ticks")
n = 64
out, clk = cp.zeros(n, cp.uint64), cp.zeros(n, cp.int64)
k((1,), (1,), (out, clk, np.int32(n)))
o, c = out.get().astype(np.int64), clk.get()
print("globaltimer steps (ns):", np.diff(o)[:40].tolist())
print("clock64 between steps:", np.diff(c)[:20].tolist())

src = """
kernel timed(res: global i32[32], t: i32) launch grid(1) block(32) {
    semaphore s(0) in global @thread using spin
    res[tid] = i32(trywait s for t us)
}
"""
with tempfile.TemporaryDirectory() as d:
    p = Path(d) / "t.sync"
    p.write_text(src)
    prog = syncc.compile(str(p))
    launcher = prog.launcher("gpu", 60.0)
    for t in (100, 200, 500, 1000, 1100, 1500, 2000, 4000, 10000):
        times = launcher.timed("timed", [np.zeros(32, np.int32), np.int32(t)], (1, 1, 1), (32, 1, 1), repeats=3)
        print(f"trywait for {t} us: {[round(x * 1e6) for x in times]} us")
