#!/usr/bin/env bash
# syncc's block mutexes before and after a change to the code generator, beside libcu++, in one
# process: block_mutex.prev.ptx (kept) against block_mutex.ptx (regenerated here when syncc runs).
#   bash bench/experiments/mutex_handover/compare.sh [OUTDIR] [ROUNDS]
set -u
HERE=bench/experiments/mutex_handover
OUT=${1:-${OUT:-/tmp/mutex_compare}}
ROUNDS=${2:-3}
B=/tmp/mutex_compare_build
mkdir -p "$OUT" "$B"
export PATH=$PATH:/usr/local/cuda/bin
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; git rev-parse HEAD; } 2>&1 | tee "$OUT/env.txt"
python3 -m syncc build bench/programs/block_mutex.sync --target ptx -o "$B/now.ptx" \
    && { diff -q <(grep -v '^// syncc' "$B/now.ptx") <(grep -v '^// syncc' "$HERE/block_mutex.ptx") >/dev/null \
         && echo "block_mutex.ptx: as syncc builds it now" \
         || { echo "block_mutex.ptx: stale, using syncc's output"; cp "$B/now.ptx" "$HERE/block_mutex.ptx"; }; }
nvcc -cubin -arch=sm_90 -O3 -std=c++17 -o "$B/handover.cubin" "$HERE/handover.cu" || exit 1
nvcc -cubin -arch=sm_90 -O3 -std=c++17 -o "$B/locks.cubin" bench/baselines/locks.cu || exit 1
ptxas -arch=sm_90 -O3 -o "$B/block_mutex.cubin" "$HERE/block_mutex.ptx" || exit 1
cuobjdump -sass "$B/block_mutex.cubin" >"$OUT/block_mutex.sass"
PYTHONUNBUFFERED=1 timeout 300 python3 "$HERE/handover.py" "$B" --rounds "$ROUNDS" \
    --only block_default,block_ticket,block_backoff,block_binary_semaphore --json "$OUT/compare.json" 2>&1 | tee "$OUT/compare.txt"
