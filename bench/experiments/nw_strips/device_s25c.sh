#!/bin/bash
# One device call (2026-11-26): nw.sync with the packed `edge` channel beside the @warp-flag
# version, twice, interleaved; the oracle's GPU batch; the GPU tests.
pip install -q --no-deps --target /tmp/site .whl/lark-1.3.1-py3-none-any.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
P=bench/experiments/nw_strips; F=bench/programs/nw.sync; D=$P/nw_done_flags.sync
for i in 1 2; do
  python $P/sweep.py 2048:$F 2048:$D 16384:$F 16384:$D 2>&1 | grep " | "
done
python bench/experiments/corpus_on_gpu.py --script results/oracle-s25c/gpu/run_gpu.sh --jobs 8 --timeout 5 \
    --json $OUT/oracle.json > $OUT/oracle.txt 2>&1; tail -1 $OUT/oracle.txt; grep "^hang" $OUT/oracle.txt
python -m pytest -q -p no:cacheprovider -o addopts="-ra" -m gpu tests > $OUT/pytest-gpu.txt 2>&1
echo "pytest exit $?"; tail -2 $OUT/pytest-gpu.txt
