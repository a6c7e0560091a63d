#!/usr/bin/env bash
# On the device machine, from the repository root: the CUDA variants, then syncc's own PTX
# for the same shape under each implementation, with and without livelock prevention.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
cd bench/experiments
nvcc -O3 -arch=sm_90 -o /tmp/nested_locks nested_locks.cu || exit 1
timeout 300 /tmp/nested_locks "${TRIALS:-3}" "${DEADLINE:-1.0}" 2>&1 | tee "$OUT/nested_cuda.txt"
cd ../..
for impl in ticket ttas backoff tas mcs; do
  sed "s/using IMPL/using $impl/" bench/experiments/bank.sync > /tmp/bank_$impl.sync
  for shape in "-D BLOCKS=2 -D THREADS=64 -D ACCOUNTS=16" "-D BLOCKS=1 -D THREADS=64 -D ACCOUNTS=32" \
               "-D BLOCKS=132 -D THREADS=256 -D ACCOUNTS=16" "-D BLOCKS=132 -D THREADS=256 -D ACCOUNTS=1024"; do
    for flags in "" "--unsafe-no-syncwarp"; do
      timeout 60 python3 -m syncc run /tmp/bank_$impl.sync --target gpu --timeout 4 $shape $flags > /tmp/log 2>&1
      rc=$?
      echo "syncc $impl [$shape] ${flags:-default}: rc=$rc $(grep -o 'error\[E[0-9]*\]' /tmp/log | head -1)" | tee -a "$OUT/nested_syncc.txt"
    done
  done
done
