#!/usr/bin/env bash
# workload_kill_resume.sh KOPT REPO [KILLS]: kopt workload on the synthetic workload
# (tests/fixtures/workload/synthetic_workload.py, whose draws are seeded by each run's place in
# the plan), killed from outside (SIGKILL and SIGTERM in turn) after a growing delay, then run
# again to the end. Each resumed session must reach the decisions of an uninterrupted one
# (every verdict, interval, champion and audit), leave no temporary file and no workload
# process behind.
set -u
kopt=$(realpath "$1") repo=$(realpath "$2") kills=${3:-8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

make_workload() {  # DIR
  mkdir -p "$1/state"
  cat > "$1/workload.toml" <<TOML
name = "synthetic"
command = ["python3", "$repo/tests/fixtures/workload/synthetic_workload.py"]
timeout = 30
[metric]
name = "step_ms"
json_key = "step_ms"
[tail]
json_key = "latencies_ms"
[[constraints]]
name = "p99"
max_worse = 0.05
[accuracy]
output = "out.bin"
dtype = "float32"
atol = 1e-3
[original]
env = { SYN_STATE = "state" }
[measure]
min_rounds = 6
audit_rounds = 6
[[candidates]]
name = "fast"
env = { SYN_STATE = "state", SYN_SPEEDUP = "1.1" }
[[candidates]]
name = "wrong"
env = { SYN_STATE = "state", SYN_WRONG = "1" }
TOML
}

# The session's decisions, without what differs between machines and runs (times, load, paths).
decisions() {
  python3 - "$1/workload_session/workload.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
keep = {k: doc.get(k) for k in ("status", "champion", "claim", "runs", "candidates", "audit", "resolution")}
print(json.dumps(keep, sort_keys=True))
PY
}

make_workload "$work/reference"
start=$(date +%s.%N)
"$kopt" workload "$work/reference" >/dev/null 2>&1 || { echo "FAIL: the uninterrupted session failed"; exit 1; }
duration=$(python3 -c "print($(date +%s.%N) - $start)")
expected=$(decisions "$work/reference")
failed=0 landed=0
for k in $(seq 1 "$kills"); do
  signal=KILL; [ $((k % 2)) -eq 0 ] && signal=TERM
  delay=$(python3 -c "print(round($duration * $k / ($kills + 1), 3))")
  dir="$work/run$k"
  make_workload "$dir"
  (exec "$kopt" workload "$dir" >/dev/null 2>&1) &
  pid=$!
  sleep "$delay"
  kill -s "$signal" "$pid" 2>/dev/null && landed=$((landed + 1))
  wait "$pid" 2>/dev/null
  sleep 0.2
  if pgrep -f "SYN_STATE|synthetic_workload.py" >/dev/null && pgrep -f "$dir" >/dev/null; then
    echo "FAIL: kill $k: a workload process outlived kopt"; failed=1
  fi
  "$kopt" workload "$dir" >/dev/null 2>"$work/err" || { echo "FAIL: kill $k: the resumed session failed: $(tail -1 "$work/err")"; failed=1; continue; }
  leftovers=$(find "$dir/workload_session" -name '*.tmp.*')
  [ -z "$leftovers" ] || { echo "FAIL: kill $k: temporaries left: $leftovers"; failed=1; }
  if [ "$(decisions "$dir")" != "$expected" ]; then
    echo "FAIL: kill $k (SIG$signal after ${delay}s): the resumed session decided otherwise"
    diff <(echo "$expected" | python3 -m json.tool) <(decisions "$dir" | python3 -m json.tool) | head -10
    failed=1
  fi
done
[ "$landed" -gt 0 ] || { echo "FAIL: no kill landed while kopt ran"; exit 1; }
[ "$failed" -eq 0 ] && echo "PASS: $landed kills landed; every resumed session decided as the uninterrupted one"
exit "$failed"
