#!/usr/bin/env bash
# bench/pending_gpu.sh CALL: the GPU evidence still owed by issues 55, 56, 57 and 59, in four
# calls of under ten minutes each (the device tool's limit), most important first (issue 55, the
# workload half, leads). Run from the repository root on the GPU machine with $OUT set and these
# kopt builds under $B (build-gpu/):
#   kopt            main, stripped           kopt_head      424d10c (before issue 59's changes)
#   kopt_before56   20ce618^ (before the stream watch)   slim   main's build/ for `ctest -L gpu`
#   leetgpu/        AlphaGPU/leetgpu-challenges at 5a5c5d8 (git archive)
#   1: issue 55's example verdict (the champion found earlier exported, SHORT session) and its
#      planted candidates; issue 59's first check+bench and vector_add bench, before and after
#   2: issue 55's ten A/A experiments of the example (AA_MINUTES bounds the session)
#   3: issue 59's loop (init + one iteration of 4), before and after; issue 56's planted
#      kernels, controls and wall time (before/after)
#   4: issue 56's A/A (20 runs at ~2, ~7, ~200 us); issue 57's imported problems; the GPU tests
#      around the changed check and loop
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=${B:-build-gpu}
nvidia-smi -L; date +%T
ex=examples/workload_mlp

call1() {
  timeout 280 env CHAMPION_DEFINES="-D THREADS=256" SHORT=1 KOPT="$B/kopt" bench/workload_example.sh "$OUT/wl" > "$OUT/wl.txt" 2>&1
  echo "== workload_example exit $? ($(date +%T))"; tail -45 "$OUT/wl.txt" | cut -c1-400
  rm -f "$OUT"/wl/trace_*.json
  # A session cut by the limit resumes from its folder: carry it back in a later call.
  [ -d "$OUT/wl/workload_session" ] || cp -r $ex/workload_session "$OUT/wl/" 2>/dev/null
  cp $ex/workload.toml "$OUT/wl/" 2>/dev/null
  git checkout -q $ex/workload.toml 2>/dev/null
  timeout 170 tests/gpu/workload_planted.sh "$B/kopt" . > "$OUT/planted.txt" 2>&1
  echo "== workload_planted exit $? ($(date +%T))"; cat "$OUT/planted.txt"
  for who in head new; do
    bin="$B/kopt"; [ $who = head ] && bin="$B/kopt_head"
    timeout 55 env KOPT="$bin" STEPS="first vadd" bench/loop_cost.sh "$OUT/cost_$who" > "$OUT/cost_$who.txt" 2>&1
    echo "== loop_cost $who exit $? ($(date +%T))"; cut -c1-600 "$OUT/cost_$who.txt"
    rm -rf "$OUT"/cost_$who/cache_*
  done
}

call2() {
  timeout 560 env KOPT="$B/kopt" AA_MINUTES="${AA_MINUTES:-8}" bench/workload_aa.sh "$OUT/wl_aa" 10 > "$OUT/wl_aa.txt" 2>&1
  echo "== workload A/A exit $? ($(date +%T))"; tail -20 "$OUT/wl_aa.txt"
}

call3() {
  # The tenth A/A experiment, when call 2's budget ended before it: a session of one.
  timeout 90 env KOPT="$B/kopt" bench/workload_aa.sh "$OUT/wl_aa1" 1 > "$OUT/wl_aa1.txt" 2>&1
  echo "== workload A/A (one) exit $? ($(date +%T))"; tail -3 "$OUT/wl_aa1.txt"
  for who in head new; do
    bin="$B/kopt"; [ $who = head ] && bin="$B/kopt_head"
    timeout 128 env KOPT="$bin" STEPS=loop LOOP_LIMIT=120 bench/loop_cost.sh "$OUT/loop_$who" > "$OUT/loop_$who.txt" 2>&1
    echo "== loop $who exit $? ($(date +%T))"; cut -c1-700 "$OUT/loop_$who.txt" | tail -50
    rm -rf "$OUT"/loop_$who/cache_*; find "$OUT/loop_$who" -name '*.ncu-rep' -delete
    find "$OUT/loop_$who" -name candidates -type d -prune -exec rm -rf {} +
  done
  timeout 150 env KOPT="$B/kopt" KOPT_BEFORE="$B/kopt_before56" AA_RUNS=0 bench/issue56_gpu.sh "$OUT/i56" > "$OUT/i56.txt" 2>&1
  echo "== issue56 exit $? ($(date +%T))"; cut -c1-600 "$OUT/i56.txt"
  rm -rf "$OUT/i56/cache"
  KOPT="$B/kopt" timeout "${IMPORT_LIMIT:-100}" bench/import_check.sh "$B/leetgpu/challenges" bench/leetgpu "$OUT/import"
  echo "== import_check exit $? ($(date +%T))"
}

call4() {
  KOPT_CACHE_DIR="$OUT/cache_aa" KOPT="$B/kopt" RUNS=20 timeout 320 env OUT="$OUT/aa" tools/bench_aa.sh
  echo "== A/A exit $? ($(date +%T))"; rm -rf "$OUT/cache_aa" "$OUT/aa/compare_last.json"
  KOPT="$B/kopt" timeout 100 bench/import_check.sh "$B/leetgpu/challenges" bench/leetgpu "$OUT/import"
  echo "== import_check exit $? ($(date +%T))"
  mkdir -p /work; [ -e /work/main ] || ln -s "$PWD" /work/main  # slim's CTest files name /work/main/build
  rm -rf build; cp -r "$B/slim" build; mkdir -p build/test-cache
  timeout 160 ctest --test-dir build -L gpu -R "gpu.(bench|compare|integrity.control|integrity.audit|example.reduction)" \
      -j4 --timeout 150 > "$OUT/ctest.txt" 2>&1
  echo "== ctest exit $? ($(date +%T))"; grep -E "tests passed|tests failed|Failed|Timeout|Not Run" "$OUT/ctest.txt" | head -30
}

case ${1:-} in
  1) call1 ;; 2) call2 ;; 3) call3 ;; 4) call4 ;;
  *) echo "usage: OUT=DIR bench/pending_gpu.sh 1|2|3|4" >&2; exit 2 ;;
esac
find "$OUT" -name '*.npy' -delete; du -sh "$OUT"
