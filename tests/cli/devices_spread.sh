#!/usr/bin/env bash
# devices_spread.sh KOPT_DIR REPO: `--devices 0,1` on the simulated lab, with real `kopt
# lab-job` processes (one per GPU at a time): the run ends with the same champion and medians
# as the same run on one lab, the tasks' files are in the stage folder, the next step keeps the
# flags, and a bad --devices is refused in one line before anything runs.
set -u
kopt=$1/kopt repo=$2
model=$repo/tests/fixtures/loop/sgemm_tiled_model.json
kernel=$repo/examples/sgemm_tiled
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
optimize() {  # RUN [options...]
  local run=$1
  shift
  "$kopt" optimize "$kernel" --simulate "$model" --iterations 2 --branches 6 --run "$t/$run" --json "$@" > "$t/$run.out" 2> "$t/$run.err"
}
best_of() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1]+"/summary.json")); print(json.dumps(s["best"], sort_keys=True), s["best_median_s"], s["audit"]["verdict"])' "$t/$1"; }

optimize one || fail "the run on one lab exited $?: $(tail -1 "$t/one.err")"
optimize two --devices 0,1 --variants-per-task 2 --stage "$t/stage" || fail "the run on --devices 0,1 exited $?: $(tail -1 "$t/two.err")"
[ "$(best_of two)" = "$(best_of one)" ] || fail "on two GPUs: $(best_of two); on one: $(best_of one)"
logs=$(find "$t/stage" -name 'part_*.log' | wc -l)
results=$(find "$t/stage" -name 'part_*.result.json' | wc -l)
[ "$logs" -ge 3 ] && [ "$results" -eq "$logs" ] || fail "the stage holds $logs task logs and $results results"
grep -q '"spread"' "$t/two/iter1/screen_bench.json" || fail "the screen's bench report does not say it was spread"

"$kopt" init "$kernel" --simulate "$model" --run "$t/stepwise" --devices 0,1 --stage "$t/stage" --json > "$t/init.json" 2> "$t/init.err" \
  || fail "init with --devices exited $?: $(tail -1 "$t/init.err")"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["command"]; sys.exit(0 if "--devices 0,1" in c else 1)' "$t/init.json" \
  || fail "init's next command lost --devices"

for bad in "0,0" "all" "0,gpu1"; do
  "$kopt" optimize "$kernel" --simulate "$model" --run "$t/bad" --devices "$bad" > "$t/bad.out" 2> "$t/bad.err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "--devices $bad exited $rc (expected 2)"
  [ "$(wc -l < "$t/bad.err")" -eq 1 ] || fail "--devices $bad said more than one line: $(cat "$t/bad.err")"
  [ -e "$t/bad" ] && fail "--devices $bad created the run folder"
done
[ "$failed" -eq 0 ] && echo "ok: --devices 0,1 as one lab, its stage, the next step's flags, bad lists refused"
exit "$failed"
