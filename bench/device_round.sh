#!/usr/bin/env bash
# One bounded GPU-machine round: each step has its own time limit, and everything it writes
# lands in $OUT/round.tgz even when a step runs out of time. Steps: a ctest regex, then any
# of: profiling (bench/measure_profiling.sh but its tuned vector add), tuned_vector_add (that
# section: kopt optimize examples/vector_add, then its champion's roofline), measure
# (bench/measure_kopt.sh, all of it), one of its sections (repeat, cost, discrimination: at
# most 300 s each), agreement (vector add), tiled.
#   bench/device_round.sh CTEST_REGEX STEP... 
set -uo pipefail
repo=$(pwd)
[ -e /work/main ] || { mkdir -p /work && ln -s "$repo" /work/main; }
cd /work/main
export PATH="$PATH:/usr/local/cuda/bin"
work=/tmp/kopt-round; rm -rf "$work"; mkdir -p "$work"
finish() { tar czf "$OUT/round.tgz" -C "$work" . 2>/dev/null; }
trap finish EXIT
regex=$1; shift
if [ -n "$regex" ]; then
  timeout ${CTEST_LIMIT:-250} ctest --test-dir build -L gpu -R "$regex" --output-on-failure --timeout 250 > "$work/ctest.log" 2>&1
  tail -25 "$work/ctest.log"
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
  esac
done
