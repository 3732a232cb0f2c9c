#!/usr/bin/env bash
# kill_resume.sh KOPT REPO [KILLS]: kopt optimize on the simulated lab, killed from outside
# (SIGKILL and SIGTERM in turn) after a growing delay, so that the kills land in every step of
# init, the tuner, close and finalize; then run again to the end. Each resumed run must equal
# an uninterrupted one (every JSON file, wall-clock fields aside), hold no temporary file, and
# leave no kopt process behind.
set -u
kopt=$(realpath "$1") repo=$(realpath "$2") kills=${3:-40}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lab="$repo/tests/fixtures/loop/sgemm_tiled_model.json"
optimize() { "$kopt" optimize "$repo/examples/sgemm_tiled" --run "$1" --iterations 3 --branches 4 --tuner-seed 5 --simulate "$lab"; }

# Every JSON file of a run, without the fields that hold wall-clock times, as one text.
snapshot() {
  python3 - "$1" <<'PY'
import glob, json, os, sys
root = sys.argv[1]
for path in sorted(glob.glob(f"{root}/**/*.json", recursive=True)):
    document = json.load(open(path))
    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k not in ("elapsed_s", "time", "created", "run", "cost", "init_wall_s", "init_stages_s", "wall_s")}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node
    print(os.path.relpath(path, root), json.dumps(strip(document), sort_keys=True))
PY
}

start=$(date +%s.%N)
optimize "$work/reference" >/dev/null 2>&1 || { echo "FAIL: the uninterrupted run failed"; exit 1; }
duration=$(python3 -c "print($(date +%s.%N) - $start)")
expected=$(snapshot "$work/reference")
failed=0 landed=0
for k in $(seq 1 "$kills"); do
  signal=KILL; [ $((k % 2)) -eq 0 ] && signal=TERM
  # Spread over the uninterrupted run's duration, so that the kills land from its first
  # step to its last.
  delay=$(python3 -c "print(round($duration * $k / ($kills + 1), 4))")
  run="$work/run$k"
  (exec "$kopt" optimize "$repo/examples/sgemm_tiled" --run "$run" --iterations 3 --branches 4 --tuner-seed 5 \
     --simulate "$lab" >/dev/null 2>&1) &
  pid=$!
  sleep "$delay"
  kill -s "$signal" "$pid" 2>/dev/null && landed=$((landed + 1))
  wait "$pid" 2>/dev/null
  if [ -d "$run" ]; then
    optimize "$run" >/dev/null 2>"$work/err" || { echo "FAIL: kill $k (SIG$signal after ${delay}s): the resumed run failed: $(tail -1 "$work/err")"; failed=1; continue; }
  else
    optimize "$run" >/dev/null 2>&1
  fi
  leftovers=$(find "$run" -name '*.tmp.*')
  [ -z "$leftovers" ] || { echo "FAIL: kill $k: temporaries left: $leftovers"; failed=1; }
  if [ "$(snapshot "$run")" != "$expected" ]; then
    echo "FAIL: kill $k (SIG$signal after ${delay}s): the resumed run differs from the uninterrupted one"
    diff <(echo "$expected") <(snapshot "$run") | head -5
    failed=1
  fi
done
if pgrep -f "$kopt optimize" >/dev/null; then echo "FAIL: a kopt process survived"; failed=1; fi
echo "$kills runs, $landed kills landed while kopt ran; failures: $failed"
exit $failed
