#!/usr/bin/env bash
# bench/pending_gpu.sh CALL: the GPU evidence still owed by issues 55-60, in calls of under ten
# minutes each (the device tool's limit). After the thirty-sixth session (no machine could be
# started) what is owed is: the whole label on the code as it stands (5, 6), LeetGPU's import
# check with the runner's fixed stand-in and the planted solutions (13), issue 59's split on
# this build, now with the profile's phases and ncu's sets (10; COST_STEPS="first sets" for a
# short one), and issue 55's ten workload A/A experiments in one session (1). The label and 13
# fit one session's 30 minutes when the first start succeeds; 1 needs a session of its own, or
# one whose code is unchanged since the label ran.
# Run from the repository root on the GPU machine with $OUT set and these under $B (build-gpu/):
#   kopt            main, stripped           kopt_head      424d10c (before issue 59's changes)
#   kopt_before56   20ce618^ (before the stream watch)   slim   main's build/ for `ctest -L gpu`
#   leetgpu/        AlphaGPU/leetgpu-challenges at 5a5c5d8 (git archive)
#   tensara/        tensara/problems at 32e682c (git archive)
#   1: issue 55's ten A/A experiments of the example in one session (AA_MINUTES bounds it)
#   2: issue 56's A/A (20 runs at ~2, ~7, ~200 us; SKIP_AA=1 leaves it out); issue 57's imported
#      problems, the new fills included (LeetGPU and Tensara solutions, planted ones); issue 58's
#      planner capture
#   3: issue 59's loop (init + one iteration of 4), before and after; issue 56's planted kernels,
#      controls and wall time (before/after)
#   4: the GPU tests around the changed check and loop
#   5, 6: the whole label (`ctest -L gpu`) in two parts of about 540 s each on an H100: the
#      integrity tests, then every other (the timing tests run alone, so the parts are mostly
#      their serial time); slim must be a build made with -DKOPT_TRITON_WORKER=ON and
#      third_party/ must hold the nvidia-cutlass wheel (tools/gpu_run_helpers.sh)
#   7: issue 60's real run and sass checks (tools/issue60_gpu_check.sh but its ctest), then call 2
#      without its A/A
#   8: call 2 without its A/A, then the GPU tests around the import, the SASS and the profile
#   9: issue 56's A/A (20 runs at three sizes), then the GPU tests of its stream families
#   10: issue 59's split (bench/loop_cost.sh: a first check and bench, the vector add's benches
#      with their phases, one loop iteration with init's split) on this build alone
#   11: what fits after the label: issue 60's real run and sass checks, then call 10
#   12: issue 56's A/A alone (20 runs at three sizes)
#   13: LeetGPU's import check alone, every solution and planted solution (IMPORT_LIMIT 240)
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=${B:-build-gpu}
nvidia-smi -L; date +%T

call1() {
  timeout "${AA_LIMIT:-585}" env KOPT="$B/kopt" AA_MINUTES="${AA_MINUTES:-9.3}" bench/workload_aa.sh "$OUT/wl_aa" 10 > "$OUT/wl_aa.txt" 2>&1
  echo "== workload A/A exit $? ($(date +%T))"; tail -20 "$OUT/wl_aa.txt"
}

call2() {
  if [ -z "${SKIP_AA:-}" ]; then
    KOPT_CACHE_DIR="$OUT/cache_aa" KOPT="$B/kopt" RUNS=20 timeout 320 env OUT="$OUT/aa" tools/bench_aa.sh
    echo "== A/A exit $? ($(date +%T))"; rm -rf "$OUT/cache_aa" "$OUT/aa/compare_last.json"
  fi
  KOPT="$B/kopt" timeout "${IMPORT_LIMIT:-130}" bench/import_check.sh "$B/leetgpu/challenges" bench/leetgpu "$OUT/import"
  echo "== import_check leetgpu exit $? ($(date +%T))"
  KOPT="$B/kopt" PLANTED_DIR='' timeout 60 bench/import_check.sh "$B/tensara/problems" bench/tensara "$OUT/import_tensara"
  echo "== import_check tensara exit $? ($(date +%T))"
  find "$OUT"/import* -name '*.npy' -delete
  mkdir -p /work; [ -e /work/main ] || ln -s "$PWD" /work/main
  rm -rf build; cp -r "$B/slim" build  # the capture runs build/cli/kopt
  OUT="$OUT/planner" EVIDENCE=0 timeout 120 tools/capture_planner_fixtures.sh sgemm_tiled_champion > "$OUT/planner.txt" 2>&1
  echo "== planner capture exit $? ($(date +%T))"; tail -5 "$OUT/planner.txt"
}

call3() {
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
}

call4() {
  mkdir -p /work; [ -e /work/main ] || ln -s "$PWD" /work/main  # slim's CTest files name /work/main/build
  rm -rf build; cp -r "$B/slim" build; mkdir -p build/test-cache
  timeout 560 ctest --test-dir build -L gpu -R "gpu.(bench|compare|integrity.control|integrity.audit|example.reduction|workload|export)" \
      -j4 --timeout 200 > "$OUT/ctest.txt" 2>&1
  echo "== ctest exit $? ($(date +%T))"; grep -E "tests passed|tests failed|Failed|Timeout|Not Run" "$OUT/ctest.txt" | head -30
}

# Issue 60's real counterparts after the label (tools/issue60_gpu_check.sh without its ctest): a
# short real run of the README's example, whose summary and roofline must show no figure above
# the roofline unless flagged, and `kopt sass` with the GPU's own arch and with one nvcc refuses.
issue60_real() {
  local run="$OUT/i60/run"; mkdir -p "$OUT/i60"
  timeout 200 "$B/kopt" optimize examples/sgemm_tiled --run "$run" --budget "${I60_BUDGET:-2}" --branches 8 > "$OUT/i60/optimize.txt" 2>&1
  echo "== issue60 optimize exit $? ($(date +%T))"; tail -4 "$OUT/i60/optimize.txt"
  "$B/kopt" report "$run" > "$OUT/i60/report.txt" 2>&1; echo "== report exit $?"
  grep -H '"above"' "$run"/*/profile/roofline.json "$run"/iter*/roofline.json 2>/dev/null | cut -c1-300 || echo "no roofline says above"
  grep -n -i -m3 "simulated\|above" "$run/summary.md" | cut -c1-200
  "$B/kopt" sass examples/vector_add --out "$OUT/i60/sass.json" > /dev/null 2>&1; echo "== sass (own arch) exit $?"
  "$B/kopt" sass examples/vector_add --arch sm_20 --out "$OUT/i60/sass20.json" 2>&1 | tail -1; echo "== sass sm_20 exit ${PIPESTATUS[0]} (2 expected)"
  find "$run" -name '*.ncu-rep' -delete; find "$run" -name candidates -type d -prune -exec rm -rf {} +
}

# label_part CTEST_FILTER...: the GPU label's tests that the ctest filter names, at most
# LABEL_LIMIT seconds; the log stays in $OUT, the tests not reached are listed as Not Run.
label_part() {
  mkdir -p /work; [ -e /work/main ] || ln -s "$PWD" /work/main
  rm -rf build; cp -r "$B/slim" build; mkdir -p build/test-cache
  # shellcheck source=tools/gpu_run_helpers.sh
  source tools/gpu_run_helpers.sh; ensure_cutlass_headers || echo "no CUTLASS headers: the CUTLASS tests will fail"
  timeout "${LABEL_LIMIT:-560}" ctest --test-dir build -L gpu "$@" -j 10 --timeout 250 --output-on-failure \
      > "$OUT/ctest.txt" 2>&1
  echo "== ctest exit $? ($(date +%T))"
  grep -E "tests passed|tests failed|\*\*\*Failed|Timeout|Not Run|\*\*\*Skipped|Total Test time" "$OUT/ctest.txt" | head -40
}

case ${1:-} in
  1) call1 ;; 2) call2 ;; 3) call3 ;; 4) call4 ;;
  5) label_part -R '^gpu\.integrity\.' ;; 6) label_part -E '^gpu\.integrity\.' ;;
  7) issue60_real; SKIP_AA=1 call2 ;;
  8) SKIP_AA=1 call2; LABEL_LIMIT=${LABEL_LIMIT:-200} label_part -R '^gpu\.(example|planted|profile|roofline|sanitize|triton\.sass)' ;;
  9|12) KOPT_CACHE_DIR="$OUT/cache_aa" KOPT="$B/kopt" RUNS=20 timeout 320 env OUT="$OUT/aa" tools/bench_aa.sh
     echo "== A/A exit $? ($(date +%T))"; rm -rf "$OUT/cache_aa" "$OUT/aa/compare_last.json"
     [ "$1" = 12 ] || LABEL_LIMIT=${LABEL_LIMIT:-200} label_part -R '^gpu\.(integrity\.(control|batch_ahead|head_start|stash_side_stream|side_stream|waited_side_stream)|compare\.a_a|bench\.vector_add)' ;;
  10) timeout "${COST_LIMIT:-260}" env KOPT="$B/kopt" STEPS="${COST_STEPS:-first vadd loop sets}" LOOP_LIMIT=120 bench/loop_cost.sh "$OUT/cost" > "$OUT/cost.txt" 2>&1
      echo "== loop_cost exit $? ($(date +%T))"; cut -c1-400 "$OUT/cost.txt" | head -100
      rm -rf "$OUT"/cost/cache_*; find "$OUT/cost" -name '*.ncu-rep' -delete; find "$OUT/cost" -name candidates -type d -prune -exec rm -rf {} + ;;
  11) issue60_real; bash "$0" 10 ;;
  13) KOPT="$B/kopt" timeout "${IMPORT_LIMIT:-240}" bench/import_check.sh "$B/leetgpu/challenges" bench/leetgpu "$OUT/import" \
        > "$OUT/import_leetgpu.txt" 2>&1
      echo "== import_check leetgpu exit $? ($(date +%T))"; grep -v " ok;" "$OUT/import_leetgpu.txt"
      grep -c " ok;" "$OUT/import_leetgpu.txt"
      for f in "$OUT"/import/*/*.check.txt; do grep -q "fail\|FAIL\|refused" "$f" && { echo "== $f"; head -c 800 "$f"; }; done ;;
  *) echo "usage: OUT=DIR bench/pending_gpu.sh 1|2|...|13" >&2; exit 2 ;;
esac
find "$OUT" -name '*.npy' -delete; du -sh "$OUT"
