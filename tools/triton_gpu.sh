#!/usr/bin/env bash
# Triton kernels on the GPU machine (docs/triton.md), in STEPS (default "softmax gemm ctest"):
#   softmax  the Triton softmax example through kopt check and kopt bench, the CUDA softmax
#            beside it for scale, then its [tune] table (BLOCK, NUM_WARPS) through kopt optimize
#            for SOFTMAX_BUDGET minutes (default 1) after its init
#   gemm     the Triton BF16 GEMM example through kopt check and kopt bench at 4096^3 and its SASS
#            (HGMMA; GEMM_STANDALONE=0 leaves these three out), cuBLAS BF16 in the same run
#            (tools/cublas_bf16.py) before and after kopt optimize over its [tune] table for
#            GEMM_BUDGET minutes (default 2), then the champion's SASS
#   ctest    the gpu-labelled Triton tests but the two the softmax step repeats
# Run from the repository root with a build/ configured with -DKOPT_TRITON_WORKER=ON
# (build/cli/libkopt_worker.so) and carried as bench/device_round.sh carries it. Everything goes
# into "$OUT/triton_gpu.tgz" and "$OUT/summary.txt". About 8-9 minutes with every step.
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

# LIMIT_S (default 3600): seconds for the whole script. A step runs under what is left of it, and
# once it is spent the rest are listed as not run, so the outputs come back whole in any case.
deadline=$(( $(date +%s) + ${LIMIT_S:-3600} ))
step() {  # step NAME COMMAND...: its output in NAME.txt, its exit status in the summary
  local name=$1 start rc=0 left
  shift
  start=$(date +%s)
  left=$(( deadline - start ))
  if [ "$left" -le 5 ]; then
    echo "$name: not run, out of time (LIMIT_S): $*" | tee -a "$work/summary.txt"
    return
  fi
  timeout "$left" "$@" > "$work/$name.txt" 2>&1 || rc=$?
  echo "$name: exit $rc, $(( $(date +%s) - start )) s: $*" | tee -a "$work/summary.txt"
}

{ nvidia-smi --query-gpu=name,driver_version --format=csv; "${KOPT_PYTHON:-python3}" -c \
  "import sys, torch, triton; print(sys.executable, 'torch', torch.__version__, 'triton', triton.__version__)"; } \
  > "$work/environment.txt" 2>&1
# shellcheck source=tools/gpu_run_helpers.sh
source "$repo/tools/gpu_run_helpers.sh"  # champion_defines
# A Triton candidate costs ~14 s in a first look and ~30 s in a full check on an H200, and the
# budget is read between iterations (docs/loop.md): BRANCHES (default 4) and ITERATIONS (default
# 2) keep a run near its budget.
optimize() {  # optimize NAME EXAMPLE BUDGET: the loop's run folder, its summary kept
  step "optimize_$1" "$kopt" optimize "$2" --run "$work/run_$1" --budget "$3" --iterations "${ITERATIONS:-2}" \
      --branches "${BRANCHES:-4}"
  cp "$work/run_$1/summary.md" "$work/summary_$1.md" 2>/dev/null
}
# The measured ceilings (DRAM, BF16 tensor) the figures are read against, cached for the loop.
step doctor_peaks "$kopt" doctor --peaks
for part in ${STEPS:-softmax gemm ctest}; do
  case $part in
    softmax)
      step check_triton_softmax "$kopt" check examples/triton_softmax --out "$work/check_triton_softmax.json"
      step bench_triton_softmax "$kopt" bench examples/triton_softmax --out "$work/bench_triton_softmax.json"
      step bench_cuda_softmax "$kopt" bench examples/softmax --out "$work/bench_cuda_softmax.json"
      optimize triton_softmax examples/triton_softmax "${SOFTMAX_BUDGET:-1}" ;;
    gemm)
      # GEMM_STANDALONE=0 leaves out the baseline's own check, bench and SASS: the loop's init
      # checks and measures the baseline too, and the champion's SASS is read below.
      if [ "${GEMM_STANDALONE:-1}" = 1 ]; then
        step check_triton_gemm "$kopt" check examples/triton_gemm_bf16 --out "$work/check_triton_gemm.json"
        step bench_triton_gemm "$kopt" bench examples/triton_gemm_bf16 --case default --out "$work/bench_triton_gemm.json"
        step sass_triton_gemm "$kopt" sass examples/triton_gemm_bf16 --method compute.tensor_core_wgmma \
            --out "$work/sass_triton_gemm.json"
      fi
      # cuBLAS before and after the loop: its spread between the two is the yardstick's own.
      step cublas_bf16 "${KOPT_PYTHON:-python3}" tools/cublas_bf16.py 4096
      optimize triton_gemm examples/triton_gemm_bf16 "${GEMM_BUDGET:-2}"
      step cublas_bf16_after "${KOPT_PYTHON:-python3}" tools/cublas_bf16.py 4096
      # The champion's machine code: its tensor-core signature, as the loop's SASS step looks for it.
      # shellcheck disable=SC2046  # one word per -D argument
      step sass_triton_gemm_champion "$kopt" sass examples/triton_gemm_bf16 $(champion_defines "$work/run_triton_gemm") \
          --method compute.tensor_core_wgmma --out "$work/sass_triton_gemm_champion.json" ;;
    ctest)
      (cd "$built_in" && step ctest_gpu_triton ctest --test-dir build -L gpu -R triton -E 'triton\.example\.(check|bench)$' \
          -j 4 --output-on-failure --timeout 300) ;;
    *) echo "triton_gpu.sh: unknown step $part (softmax, gemm, ctest)" | tee -a "$work/summary.txt" ;;
  esac
done
cp "$work/summary.txt" "$out/summary.txt"
tar -czf "$out/triton_gpu.tgz" --exclude triton_gpu/cache -C "$(dirname "$work")" triton_gpu
cat "$out/summary.txt"
