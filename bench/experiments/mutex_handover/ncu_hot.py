"""The hottest SASS instructions of each kernel in an ncu source page (warp-state sampling):
    ncu -i prof.ncu-rep --page source --csv --print-source sass > source_sass.csv
    python3 ncu_hot.py source_sass.csv [TOP]
"""
import csv
import sys

rows = list(csv.reader(open(sys.argv[1])))
top = int(sys.argv[2]) if len(sys.argv) > 2 else 6
blocks, seen = [], set()
for r in rows:
    if r and r[0] == "Kernel Name":
        blocks.append({"name": r[1], "rows": []})
    elif r and r[0] == "Address":
        blocks[-1]["hdr"] = r
    elif r and blocks:
        blocks[-1]["rows"].append(r)
for b in blocks:
    h = b["hdr"]
    ix = h.index("Warp Stall Sampling (All Samples)")
    stalls = [j for j, c in enumerate(h) if c.startswith("stall_") and "Not Issued" not in c]
    key = (b["name"], tuple(r[1] for r in b["rows"]))
    if key in seen:                         # the page repeats a kernel once per launch profiled
        continue
    seen.add(key)
    total = sum(float(r[ix] or 0) for r in b["rows"])
    print(f"== {b['name']}: {len(b['rows'])} instructions, {total:.0f} samples")
    for r in sorted(b["rows"], key=lambda r: -float(r[ix] or 0))[:top]:
        s = float(r[ix] or 0)
        if not s:
            break
        why = sorted(((float(r[j] or 0), h[j][6:]) for j in stalls), reverse=True)[:2]
        print(f"  {s / total * 100:5.1f}%  {r[1].strip()[:58]:58s} " + ", ".join(f"{n} {v / s * 100:.0f}%" for v, n in why if v))
