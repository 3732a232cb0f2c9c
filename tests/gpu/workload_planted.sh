#!/usr/bin/env bash
# workload_planted.sh KOPT REPO: kopt workload on the real MLP of examples/workload_mlp with
# kopt's exported bias_gelu, and two planted candidates: one whose logits are 1 % off (the
# accuracy gate must reject it before any of its times count) and one that is faster in its
# median but sleeps in one step of forty (its p99 constraint must keep it from champion).
# Skips (77) without torch on a GPU.
set -u
kopt=$(realpath "$1") repo=$(realpath "$2")
python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null ||
  { echo "SKIPPED: needs torch with a CUDA device"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$repo/examples/workload_mlp/model.py" "$repo/examples/workload_mlp/workload.py" "$work/"
"$kopt" export "$repo/examples/workload_mlp/bias_gelu" --torch "$work/export" -D KOPT_USE_VECTORIZED_ACCESS=1 >/dev/null ||
  { echo "FAIL: kopt export failed"; exit 1; }
cat > "$work/workload.toml" <<TOML
name = "planted"
command = ["python3", "workload.py"]
timeout = 300
[metric]
name = "step_ms"
json_key = "step_ms"
min_effect = 0.02
[tail]
json_key = "latencies_ms"
percentiles = [99]
[[constraints]]
name = "p99"
max_worse = 0.05
[accuracy]
output = "logits.bin"
dtype = "float32"
atol = 1e-3
rtol = 1e-3
[measure]
warmup_runs = 1
resolution_runs = 3
min_rounds = 6
max_rounds = 8
[[candidates]]
name = "wrong"
env = { KOPT_BIAS_GELU = "export/bias_gelu", WORKLOAD_PLANT = "wrong" }
[[candidates]]
name = "tail"
env = { KOPT_BIAS_GELU = "export/bias_gelu", WORKLOAD_PLANT = "tail" }
TOML
"$kopt" workload "$work" --json > "$work/out.json" 2> "$work/err" || { echo "FAIL: kopt workload: $(tail -1 "$work/err")"; exit 1; }
python3 - "$work/out.json" "$work/workload_session/journal.jsonl" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in doc["candidates"]}
failed = []
def check(ok, what):
    print(("ok:   " if ok else "FAIL: ") + what)
    if not ok:
        failed.append(what)
w, t = c["wrong"], c["tail"]
check(w["status"] == "rejected" and w["gate"] == "failed" and "beyond atol" in w.get("reason", ""),
      f"the wrong candidate is rejected by the gate: {w.get('reason')}")
timed = [json.loads(l) for l in open(sys.argv[2]) if '"wrong"' in l and '"compare"' in l]
check(not timed and "primary" not in w, "none of the wrong candidate's times were taken or counted")
check(t["status"] == "compared", f"the tail candidate was compared: {t.get('reason', '')}")
if "primary" in t:
    check(t["primary"]["verdict"] == "better",
          f"its median is better: {t['primary']['gain']:.3f}x [{1/t['primary']['high']:.3f}, {1/t['primary']['low']:.3f}]")
    check(t["constraints"][0]["status"] == "broken", f"its p99 constraint is broken: {t['constraints'][0]}")
check(doc["champion"] is None, f"neither is champion: {doc['claim']}")
sys.exit(1 if failed else 0)
PY
