#!/bin/bash
# One device call (2026-11-26): the NW sweep with the level-1 code generator, then the oracle's GPU
# batch and the hazard corpus on the GPU, compiled by the same compiler.
pip install -q --no-deps --target /tmp/site .whl/lark-1.3.1-py3-none-any.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
P=bench/experiments/nw_strips; F=bench/programs/nw.sync; C=$P/nw_one_column.sync
S=""
for n in 2048 16384; do
  S="$S $n:$F:M=8 $n:$C:M=8,RING=16,MR=64 $n:$C:WSHIFT=3,M=8,RING=16,MR=64 $n:$C:WSHIFT=3,M=4,RING=16,MR=64"
  S="$S $n:$C:B=2,WSHIFT=3,M=8,RING=16,MR=128 $n:$C:WSHIFT=2,M=8,RING=32,MR=64"
done
python $P/sweep.py $S > $OUT/sweep.txt 2>&1; grep " | " $OUT/sweep.txt
python bench/experiments/corpus_on_gpu.py --script results/oracle-s25/gpu/run_gpu.sh --jobs 8 --timeout 5 \
    --json $OUT/oracle.json > $OUT/oracle.txt 2>&1; tail -1 $OUT/oracle.txt
python bench/experiments/corpus_on_gpu.py --jobs 8 --timeout 5 tests/hazards --json $OUT/hazards.json \
    > $OUT/hazards.txt 2>&1; tail -1 $OUT/hazards.txt
