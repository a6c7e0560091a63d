#!/bin/sh
# GPU verification in one go (run on a machine with a GPU, from the repository root):
# the gpu-marked tests with their printed violation counts, every example under
# compute-sanitizer's racecheck and synccheck, and the device's name. Output to $1.
out=${1:-gpu-verify}
mkdir -p "$out"
python3 -c "import cupy; d = cupy.cuda.runtime.getDeviceProperties(0); print(d['name'], 'sm', d['major'], d['minor'], 'SMs', d['multiProcessorCount'])" > "$out/device.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$out/device.txt" 2>&1
date -u >> "$out/device.txt"
python3 -m pytest -q -p no:cacheprovider -m gpu -s -rs tests/runtime/test_gpu.py > "$out/pytest-gpu.txt" 2>&1
echo "pytest exit $?" >> "$out/pytest-gpu.txt"
for f in examples/*.sync; do
  for tool in racecheck synccheck; do
    echo "== $f $tool" >> "$out/sanitizer.txt"
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 python3 -m syncc run "$f" --target gpu --line-info >> "$out/sanitizer.txt" 2>&1
    echo "exit $?" >> "$out/sanitizer.txt"
  done
done
