#!/usr/bin/env bash
# tools/workload_aa_synthetic.sh [SESSIONS] [NOISE]: the false-verdict rate of kopt workload's
# procedure on the synthetic workload (tests/fixtures/workload/synthetic_workload.py): SESSIONS
# A/A sessions, each with 4 candidates identical to the original (lognormal noise NOISE, a
# fresh seed per session), and the count of verdicts other than same or ambiguous. No GPU.
set -uo pipefail
kopt=$(realpath "${KOPT:-build/cli/kopt}")
repo=$(pwd) sessions=${1:-25} noise=${2:-0.005}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
false=0 total=0
for s in $(seq 1 "$sessions"); do
  dir="$work/s$s"; mkdir -p "$dir/state"
  {
    printf 'command = ["python3", "%s/tests/fixtures/workload/synthetic_workload.py"]\n' "$repo"
    printf '[metric]\nname = "step_ms"\njson_key = "step_ms"\n'
    printf '[original]\nenv = { SYN_STATE = "state", SYN_NOISE = "%s", SYN_SEED = "%s" }\n' "$noise" "$s"
    for c in 1 2 3 4; do
      printf '[[candidates]]\nname = "aa%s"\nenv = { SYN_STATE = "state", SYN_NOISE = "%s", SYN_SEED = "%s" }\n' "$c" "$noise" "$s"
    done
  } > "$dir/workload.toml"
  "$kopt" workload "$dir" --json > "$dir/out.json" 2>/dev/null || { echo "session $s failed"; continue; }
  read -r f t < <(python3 -c "import json,sys; d=json.load(open('$dir/out.json')); v=[c['primary']['verdict'] for c in d['candidates']]; print(sum(x in ('better','worse') for x in v), len(v))")
  false=$((false + f)); total=$((total + t))
done
echo "A/A comparisons: $total, verdicts of better or worse: $false (noise $noise)"
