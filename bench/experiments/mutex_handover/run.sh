#!/usr/bin/env bash
# The whole experiment in one command, from the repository root, on a machine with an H100:
#   bash bench/experiments/mutex_handover/run.sh [OUTDIR] [ROUNDS]      (NCU=0: no profile)
# Builds handover.cu and bench/baselines/locks.cu for sm_90, regenerates syncc's PTX for
# bench/programs/block_mutex.sync (kept as block_mutex.ptx if syncc cannot run here), dumps the
# SASS of all three, times every variant (handover.py), and profiles five kernels with ncu.
set -u
HERE=bench/experiments/mutex_handover
OUT=${1:-${OUT:-/tmp/mutex_handover}}
ROUNDS=${2:-2}
B=/tmp/mutex_handover_build
mkdir -p "$OUT" "$B/sass" "$B/ncu"
export PATH=$PATH:/usr/local/cuda/bin
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
  nvcc --version | tail -1; which ncu || echo "ncu: not on PATH"; git rev-parse HEAD 2>/dev/null; } >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

if python3 -m syncc build bench/programs/block_mutex.sync --target ptx -o "$B/block_mutex.ptx" 2>"$B/syncc.err"; then
    diff -q <(grep -v '^// syncc' "$B/block_mutex.ptx") <(grep -v '^// syncc' "$HERE/block_mutex.ptx") \
        && echo "syncc PTX: regenerated, identical to block_mutex.ptx" \
        || { echo "syncc PTX: regenerated, DIFFERS from block_mutex.ptx: using the new one"; cp "$B/block_mutex.ptx" "$HERE/block_mutex.ptx"; }
else
    echo "syncc PTX: could not regenerate ($(tail -1 "$B/syncc.err")); using the kept block_mutex.ptx"
fi

nvcc -cubin -arch=sm_90 -O3 -std=c++17 -lineinfo -o "$B/handover.cubin" "$HERE/handover.cu" || exit 1
nvcc -cubin -arch=sm_90 -O3 -std=c++17 -lineinfo -o "$B/locks.cubin" bench/baselines/locks.cu || exit 1
ptxas -arch=sm_90 -O3 -o "$B/block_mutex.cubin" "$HERE/block_mutex.ptx" || exit 1
for f in handover locks block_mutex; do cuobjdump -sass "$B/$f.cubin" >"$B/sass/$f.sass"; done
tar czf "$OUT/sass.tgz" -C "$B" sass

set -o pipefail
PYTHONUNBUFFERED=1 timeout 360 python3 "$HERE/handover.py" "$B" --rounds "$ROUNDS" --json "$OUT/results.json" 2>&1 | tee "$OUT/log.txt"
echo "handover.py exit: $?"
[ -f "$B/block_mutex.jit.cubin" ] && cuobjdump -sass "$B/block_mutex.jit.cubin" >"$B/sass/block_mutex.jit.sass" && tar czf "$OUT/sass.tgz" -C "$B" sass

if [ "${NCU:-1}" = 1 ] && which ncu >/dev/null 2>&1; then
    K='block_default,block_ticket,ticket_hw,carry_rel,ticket_k200_head'
    timeout 200 ncu --clock-control none --section SourceCounters --section WarpStateStats --section LaunchStats \
        -k "regex:^(${K//,/|})$" -f -o "$B/ncu/prof" \
        python3 "$HERE/handover.py" "$B" --rounds 1 --warmup 0 --repeats 1 --sizes 528 --only "$K" >"$B/ncu/run.txt" 2>&1
    echo "ncu exit: $?"
    ncu -i "$B/ncu/prof.ncu-rep" --page details >"$B/ncu/details.txt" 2>&1
    ncu -i "$B/ncu/prof.ncu-rep" --page source --csv --print-source sass >"$B/ncu/source_sass.csv" 2>&1
    python3 "$HERE/ncu_hot.py" "$B/ncu/source_sass.csv" | tee "$B/ncu/hotspots.txt"
    tar czf "$OUT/ncu.tgz" -C "$B" ncu
fi
