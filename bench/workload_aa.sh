#!/usr/bin/env bash
# bench/workload_aa.sh OUT [N]: the example workload (examples/workload_mlp, PyTorch's own
# activation) as N A/A experiments in one session: N candidates identical to the original, each
# its own paired comparison against fresh runs of the original; none may be called better or
# worse (issue 55). Writes OUT/workload_session (its journal and summaries) and prints each
# verdict. AA_MINUTES bounds the session's runs in all (kopt workload --budget, which counts the
# runs of earlier calls too; those not reached are not_run). The session lives in AA_WORK
# (default /tmp/kopt-workload-aa-N), so on the same machine the command run again with a larger
# AA_MINUTES, or none, resumes it where the budget stopped it, as `kopt workload` resumes any.
set -uo pipefail
kopt=$(realpath "${KOPT:-build/cli/kopt}")
out=$(realpath -m "$1"); n=${2:-10}; mkdir -p "$out"
work=${AA_WORK:-/tmp/kopt-workload-aa-$n}; mkdir -p "$work"
cp examples/workload_mlp/model.py examples/workload_mlp/workload.py "$work/"
{
  cat <<'TOML'
name = "workload_mlp_aa"
command = ["python3", "workload.py"]
timeout = 300
[metric]
name = "step_ms"
json_key = "step_ms"
min_effect = 0.02
[tail]
json_key = "latencies_ms"
percentiles = [99]
[measure]
warmup_runs = 1
resolution_runs = 5
min_rounds = 5
max_rounds = 10
TOML
  for i in $(seq 1 "$n"); do printf '[[candidates]]\nname = "aa%d"\nenv = { AA_COPY = "%d" }\n' "$i" "$i"; done
} > "$work/workload.toml"
start=$(date +%s)
"$kopt" workload "$work" --json ${AA_MINUTES:+--budget "$AA_MINUTES"} > "$out/aa.json" 2> "$out/aa.log"
echo "A/A session exit $? in $(( $(date +%s) - start )) s"
rm -rf "$out/workload_session"; mkdir -p "$out/workload_session"
cp "$work"/workload_session/*.* "$out/workload_session/" 2>/dev/null  # the journal and summaries, not the outputs
python3 - "$out/aa.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
false = 0
for c in doc["candidates"]:
    p = c.get("primary", {})
    if not p:
        print(f"{c['name']}: {c['status']}")
        continue
    print(f"{c['name']}: {c['status']} {p.get('verdict')} ratio {p.get('median_ratio', 0):.4f} "
          f"[{p.get('low', 0):.4f}, {p.get('high', 0):.4f}] in {c.get('rounds')} rounds")
    false += p.get("verdict") in ("better", "worse")
done = sum("primary" in c for c in doc["candidates"])
print(f"false verdicts: {false} of {done} A/A experiments completed; resolution ±{100 * doc['resolution']['half_width']:.2f} %; "
      f"drift {100 * doc['drift']['session_change']:+.2f} % (p={doc['drift']['p_value']:.3f}); runs {doc['runs']}, {doc['run_seconds']:.0f} s")
PY
