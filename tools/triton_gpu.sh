#!/usr/bin/env bash
# Triton kernels on the GPU machine (docs/triton.md): the Triton softmax example through
# kopt check and kopt bench, the CUDA softmax beside it for scale, and the gpu-labelled Triton
# tests (a planted wrong kernel, a kernel that skips work while timed). Run from the repository
# root with a build/ configured with -DKOPT_TRITON_WORKER=ON (build/cli/libkopt_worker.so) and
# carried as run_on_device.sh carries it. Everything goes into "$OUT/triton_gpu.tgz" and
# "$OUT/summary.txt"; then the example's [tune] table through kopt optimize (BLOCK and NUM_WARPS,
# -D values of kernel.py's variables), OPTIMIZE_BUDGET minutes (default 1.5) after its init.
# About 5-7 minutes.
set -uo pipefail
repo=$(pwd)
out=${OUT:-/tmp/kopt-triton}
work=$(mktemp -d)/triton_gpu
mkdir -p "$out" "$work"
[ -f build/cli/libkopt_worker.so ] || {
  echo "triton_gpu.sh: build/cli/libkopt_worker.so missing: configure with -DKOPT_TRITON_WORKER=ON" | tee "$out/summary.txt"
  exit 3
}
built_in=${KOPT_BUILT_IN:-/work/main}
if [ "$repo" != "$built_in" ] && [ ! -e "$built_in" ]; then
  mkdir -p "$(dirname "$built_in")" && ln -s "$repo" "$built_in"
fi
export PATH="$PATH:/usr/local/cuda/bin"
[ -x /opt/torch/.venv/bin/python3 ] && export KOPT_PYTHON=${KOPT_PYTHON:-/opt/torch/.venv/bin/python3}
export KOPT_CACHE_DIR="$work/cache"
kopt="$repo/build/cli/kopt"

step() {  # step NAME COMMAND...: its output in NAME.txt, its exit status in the summary
  local name=$1 start rc=0
  shift
  start=$(date +%s)
  "$@" > "$work/$name.txt" 2>&1 || rc=$?
  echo "$name: exit $rc, $(( $(date +%s) - start )) s: $*" | tee -a "$work/summary.txt"
}

{ nvidia-smi --query-gpu=name,driver_version --format=csv; "${KOPT_PYTHON:-python3}" -c \
  "import sys, torch, triton; print(sys.executable, 'torch', torch.__version__, 'triton', triton.__version__)"; } \
  > "$work/environment.txt" 2>&1
step check_triton_softmax "$kopt" check examples/triton_softmax --out "$work/check_triton_softmax.json"
step bench_triton_softmax "$kopt" bench examples/triton_softmax --out "$work/bench_triton_softmax.json"
step bench_cuda_softmax "$kopt" bench examples/softmax --out "$work/bench_cuda_softmax.json"
# Where a Triton worker's time goes: the check's phases with the worker's start (import torch
# and triton, Triton's compile) inside kernel_worker.
step check_triton_softmax_again "$kopt" check examples/triton_softmax --seeds 1 --out "$work/check_again.json"
step bench_triton_softmax_block4096 "$kopt" bench examples/triton_softmax -D BLOCK=4096 -D NUM_WARPS=8 \
    --out "$work/bench_block4096.json"
step optimize_triton_softmax "$kopt" optimize examples/triton_softmax --run "$work/run_optimize" \
    --budget "${OPTIMIZE_BUDGET:-1.5}" --iterations 3 --branches 8
ctest_args=(--test-dir build -L gpu -R triton --output-on-failure --timeout 300)
(cd "$built_in" && step ctest_gpu_triton ctest "${ctest_args[@]}")
cp "$work/summary.txt" "$out/summary.txt"
tar -czf "$out/triton_gpu.tgz" --exclude triton_gpu/cache -C "$(dirname "$work")" triton_gpu
cat "$out/summary.txt"
