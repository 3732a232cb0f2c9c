#!/usr/bin/env bash
# tools/loop_overhead_gpu.sh: kopt's own time per branch on the GPU with full-kernel branches,
# as agents write them (issue 23), and where it goes. Runs from the repository root with a
# built tree in build/; writes under "$OUT":
#   iteration1.json iteration2.json  the closes' verdicts ("time": kopt_s_per_branch, ...)
#   kopt.log                         the run's log (one line per step, with the time)
#   close1.strace                    the first close's process starts and exits, timestamped
#                                    (when strace exists): the gaps with no child are kopt's own
#   close2.perf.txt                  kopt's own CPU profile of the second close (when perf exists)
#   summary.md audit.json            the run's summary, with the per-iteration overhead line and
#                                    the final audit; report.html (kopt report)
# Two closes of K1 (default 4) and K2 (default 8) rewritten matvec kernels; an init and a
# close of 4 took more than 190 s on an H200 (2026-12-01, before the faster first look).
set -euo pipefail
: "${OUT:?set OUT to the folder that receives the outputs}"
kopt=$(pwd)/build/cli/kopt
ws=$(mktemp -d)
# The run's log and whatever the closes wrote are kept, also when the script is cut short.
trap 'cp "$ws/run/kopt.log" "$OUT/" 2> /dev/null; for i in 1 2; do cp "$ws/run/iter$i/iteration.json" "$OUT/iteration$i.json" 2> /dev/null; done; rm -rf "$ws"' EXIT
mkdir -p "$OUT"
cp -r tests/fixtures/loop/matvec "$ws/matvec"
rm -f "$ws/matvec/model.json"
run="$ws/run"
started=$SECONDS
# DIMS (default M=4096 N=4096, a 64 MiB matrix): the spec's 16384 x 16384 default (1 GiB)
# makes every check's Python reference the close's main cost, not kopt's own work.
dims=()
for d in ${DIMS:-M=4096 N=4096}; do dims+=(--dim "$d"); done
"$kopt" init "$ws/matvec" --run "$run" --iterations 3 --branches 4 "${dims[@]}" --json > /dev/null
echo "init: $(( SECONDS - started )) s wall"

# A rewritten kernel: one row per group of LANES lanes, BLOCK threads per block.
# TAG makes each iteration's sources new, so the result cache does not answer for them.
write_branch() {  # DIR LANES BLOCK TAG
  mkdir -p "$1"
  cat > "$1/kernel.cu" <<EOF
// $4
#include <cuda_runtime.h>
__global__ void matvec_lanes(const float* A, const float* x, float* y, int M, int N) {
  const int lanes = $2, row = (blockIdx.x * blockDim.x + threadIdx.x) / lanes, lane = threadIdx.x % lanes;
  if (row >= M) return;
  float sum = 0.0f;
  for (int k = lane; k < N; k += lanes) sum += A[(size_t)row * N + k] * x[k];
  for (int o = lanes / 2; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o, lanes);
  if (lane == 0) y[row] = sum;
}
extern "C" void solve(const float* A, const float* x, float* y, int M, int N) {
  const long long threads = (long long)M * $2;
  matvec_lanes<<<(unsigned)((threads + $3 - 1) / $3), $3>>>(A, x, y, M, N);
}
EOF
  cat > "$1/experiment.json" <<EOF
{"hypothesis": "$2 lanes per row, $3 threads per block: coalesced row reads", "expected_gain_percent": [5, 80],
 "cost": "one warp shuffle reduction per row; no shared memory"}
EOF
}

close_iteration() {  # I BRANCHES
  local it="$run/iter$1" k=0
  for lanes in 32 16 8 4; do
    for block in 128 256; do
      k=$((k + 1))
      [ "$k" -le "$2" ] || break 2
      write_branch "$it/branches/b$k" "$lanes" "$block" "iteration $1"
    done
  done
  echo '{"methods": []}' > "$it/methods.json"
  local started=$SECONDS
  # The first close under strace (the process timeline), the second under perf (kopt's own
  # CPU, its children left out); each plainly when its tool is missing.
  if [ "$1" = 1 ] && command -v strace > /dev/null; then
    strace -f -tt -e trace=execve,exit_group -o "$OUT/close1.strace" "$kopt" close "$run" --json > "$ws/closed1.json"
  elif [ "$1" = 2 ] && command -v perf > /dev/null; then
    perf record -F 499 -g --no-inherit -o "$ws/perf.data" -- "$kopt" close "$run" --json > "$ws/closed2.json"
    perf report -i "$ws/perf.data" --stdio --no-children 2> /dev/null | head -400 > "$OUT/close2.perf.txt" || true
  else
    "$kopt" close "$run" --json > "$ws/closed$1.json"
  fi
  echo "close $1: $(( SECONDS - started )) s wall"
  cp "$it/iteration.json" "$OUT/iteration$1.json"
  python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["time"]; print("iter", sys.argv[2], json.dumps(t))' \
    "$it/iteration.json" "$1"
}

close_iteration 1 "${K1:-4}"
close_iteration 2 "${K2:-8}"
"$kopt" finalize "$run" > /dev/null
"$kopt" report "$run" --out "$OUT" > /dev/null
cp "$run/kopt.log" "$run/summary.md" "$run/audit.json" "$OUT/"
