#!/usr/bin/env bash
# One bounded GPU-machine round: each step has its own time limit, and everything it writes
# lands in $OUT/round.tgz even when a step runs out of time. Steps: a ctest regex, then any
# of: profiling (bench/measure_profiling.sh but its tuned vector add), tuned_vector_add (that
# section: kopt optimize examples/vector_add, then its champion's roofline), measure
# (bench/measure_kopt.sh, all of it), one of its sections (repeat, cost, discrimination: at
# most 300 s each), agreement (vector add), tiled, and issue 17's series: wall
# (tools/bench_wall.sh), aa (tools/bench_aa.sh), 2pct (tools/bench_2pct.sh), ncu
# (tools/bench_ncu.sh), clocks (tools/bench_clocks.sh), batch (tools/bench_batch.sh); loop (bench/loop_figures.sh: reduction and softmax, EXAMPLE_BUDGET
# minutes each, then sgemm_tiled for LOOP_BUDGET minutes); reduction (kopt optimize
# examples/reduction to its end, REDUCTION_LIMIT seconds at most: summary.md with its audit);
# margins (tools/witness_margins.py over the tests' bench.json files: how far each variant stood from the witnesses' rules).
# CTEST_EXCLUDE: a regex of tests left out. CTEST_JOBS (default 4) tests run side by side; the timing ones run alone (RUN_SERIAL).
#   bench/device_round.sh CTEST_REGEX STEP... 
set -uo pipefail
repo=$(pwd)
[ -e /work/main ] || { mkdir -p /work && ln -s "$repo" /work/main; }
cd /work/main
export PATH="$PATH:/usr/local/cuda/bin"
work=/tmp/kopt-round; rm -rf "$work"; mkdir -p "$work"
# Nsight Compute reports and packed run folders stay behind: a file that comes back is at most 16 MiB.
finish() { tar czf "$OUT/round.tgz" --exclude='*.ncu-rep' --exclude='*.tgz' -C "$work" . 2>/dev/null; }
trap finish EXIT
regex=$1; shift
# CUTLASS's headers for the CUTLASS tests, from a carried wheel where the machine lacks them.
# shellcheck source=tools/gpu_run_helpers.sh
source tools/gpu_run_helpers.sh
ensure_cutlass_headers || true
# ctest's gtest discovery includes GoogleTestAddTests.cmake from the cmake that configured the
# build; the GPU machine's cmake is another version: point it at the copy carried in build/.
for inc in build/tests/*_include.cmake; do
  module=$(grep -o '/[^ "]*GoogleTestAddTests.cmake' "$inc" | head -1)
  if [ -n "$module" ] && [ ! -f "$module" ] && [ -f build/GoogleTestAddTests.cmake ]; then
    sed -i "s#$module#$PWD/build/GoogleTestAddTests.cmake#" "$inc"
  fi
done
if [ -n "$regex" ]; then
  timeout ${CTEST_LIMIT:-250} ctest --test-dir build -L gpu -R "$regex" ${CTEST_EXCLUDE:+-E "$CTEST_EXCLUDE"} -j "${CTEST_JOBS:-4}" --output-on-failure \
      --timeout 250 > "$work/ctest.log" 2>&1
  grep -E "^ *[0-9]+/[0-9]+ Test|tests passed|tests failed|\*\*\*Failed|Timeout" "$work/ctest.log" | grep -vE " Passed " | tail -40
  tail -4 "$work/ctest.log"
fi
for step in "$@"; do
  case $step in
    profiling) SECTIONS="peaks agreement roofline kernels" timeout 240 bench/measure_profiling.sh "$work/profiling" > "$work/profiling.txt" 2>&1; tail -40 "$work/profiling.txt" ;;
    tuned_vector_add) SECTIONS="peaks tuned_vector_add" OPTIMIZE_LIMIT=280 timeout 400 bench/measure_profiling.sh "$work/tuned_vector_add" > "$work/tuned_vector_add.txt" 2>&1; tail -40 "$work/tuned_vector_add.txt" ;;
    measure) timeout 420 bench/measure_kopt.sh "$work/measure" > "$work/measure.txt" 2>&1; tail -20 "$work/measure.txt" ;;
    repeat|cost|discrimination)
      SECTIONS=$step timeout 300 bench/measure_kopt.sh "$work/measure" > "$work/$step.txt" 2>&1; tail -5 "$work/$step.txt" ;;
    agreement) timeout 120 bench/measure_kopt.sh "$work/measure" --agreement-only > "$work/agreement.txt" 2>&1; tail -5 "$work/agreement.txt" ;;
    tiled)
      build/cli/kopt bench examples/sgemm_tiled -D BM=128 -D BN=128 -D BK=8 -D TM=8 -D TN=8 -D VEC=4 -D STAGES=2 \
        --case default --seeds 1 --out "$work/tiled_fast.json" > "$work/tiled_fast.txt" 2>&1
      cat "$work/tiled_fast.txt" ;;
    wall|aa|2pct|ncu|clocks|batch)
      OUT="$work/issue17" RUNS=${SERIES_RUNS:-} timeout ${SERIES_LIMIT:-200} "tools/bench_$step.sh" > "$work/$step.txt" 2>&1
      cat "$work/$step.txt" | tail -8 ;;
    margins)  # how far every timed variant of this round's tests stood from the witnesses' rules
      python3 tools/witness_margins.py build/tests/gpu > "$work/margins.txt" 2>&1; tail -25 "$work/margins.txt" ;;
    reduction)  # the reduction's loop to its end: the final audit in summary.md (issue 21), every witness on (16)
      timeout ${REDUCTION_LIMIT:-420} build/cli/kopt optimize examples/reduction --run "$work/run_reduction" --budget 1 \
        --iterations 2 --branches 8 --seeds 1 > "$work/reduction.txt" 2>&1
      echo "reduction: exit $?"; tail -5 "$work/reduction.txt"; tail -40 "$work/run_reduction/summary.md" 2>/dev/null ;;
    loop)
      EXAMPLE_BUDGET=${EXAMPLE_BUDGET:-1} OPTIMIZE_LIMIT=${LOOP_LIMIT:-200} timeout ${LOOP_TOTAL:-560} \
        bench/loop_figures.sh "$work/loop/figures" "${LOOP_BUDGET:-2}" > "$work/loop.txt" 2>&1
      tail -30 "$work/loop.txt" ;;
  esac
done
