#!/usr/bin/env bash
# On the GPU machine: captures real tool output for the parser tests that run without a GPU
# (Nsight Compute raw CSV exports, cuobjdump SASS). Run after run_on_device.sh, which leaves
# compiled kernels in the test cache. Writes under $OUT.
set -uo pipefail
out=${OUT:-/tmp/kopt-device}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
ncu --version | tail -1 > "$out/ncu_version.txt"
cuobjdump --version | tail -2 > "$out/cuobjdump_version.txt"
for example in vector_add sgemm_naive; do
  kernel=${example}_kernel
  timeout 240 ncu --clock-control none --set full --import-source yes --csv --page raw --print-units base \
    -k "regex:^${kernel}" -c 1 --target-processes all \
    build/cli/kopt check "examples/$example" --seeds 1 --out /tmp/ignored.json \
    > "$out/ncu_raw_${example}.csv" 2> "$out/ncu_${example}.err"
  echo "ncu $example: exit $? ($(wc -l < "$out/ncu_raw_${example}.csv") lines)"
done
libs=$(grep -l '"source": ".*examples/sgemm_naive/sgemm_naive.cu"' build/test-cache/build/*/build.json | head -1)
[ -n "$libs" ] && cuobjdump -sass "$(dirname "$libs")/lib.so" > "$out/sass_sm90_sgemm_naive.txt" && echo "sass: $(wc -l < "$out/sass_sm90_sgemm_naive.txt") lines"
