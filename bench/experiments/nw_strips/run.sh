#!/bin/bash
# One device call: SASS facts of the new strip kernel, then the sweep given as arguments.
pip install -q --no-deps --target /tmp/site .whl/lark-1.3.1-py3-none-any.whl
export PYTHONPATH=/tmp/site:$PWD PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
nvcc -arch=sm_90 -O3 -o /tmp/step_chain bench/experiments/nw_strips/step_chain.cu && /tmp/step_chain
python -m syncc build bench/programs/nw.sync --target ptx -o /tmp/nw.ptx && \
  ptxas -arch=sm_90 -O3 -v /tmp/nw.ptx -o /tmp/nw.cubin 2>&1 | tail -2 && \
  cuobjdump -sass /tmp/nw.cubin > $OUT/nw.sass && echo "LDG $(grep -c LDG $OUT/nw.sass) LDS $(grep -c LDS $OUT/nw.sass) STS $(grep -c STS $OUT/nw.sass) BAR $(grep -c 'BAR' $OUT/nw.sass) VIADDMNMX $(grep -c VIADDMNMX $OUT/nw.sass) S2UR $(grep -c S2UR $OUT/nw.sass)"
python bench/experiments/nw_strips/sweep.py "$@" 2>&1 | tee $OUT/sweep.txt
