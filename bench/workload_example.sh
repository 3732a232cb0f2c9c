#!/usr/bin/env bash
# bench/workload_example.sh OUT: issue 55's path on the GPU machine, on examples/workload_mlp
# (docs/workloads.md), each step's output kept under OUT:
#   1. a PyTorch-profiler trace of the original, and kopt evidence of it
#   2. kopt optimize of the fused bias_gelu (BUDGET minutes of search, one iteration)
#   3. kopt export of its champion into examples/workload_mlp/export/
#   4. a trace of the candidate; the kernel's speedup over the kernels it replaces, from the
#      two traces (the add and the GELU against bias_gelu, per step)
#   5. kopt workload on the example, with that prediction: the verdict, the audit, predicted
#      against measured
#   KOPT=build/cli/kopt BUDGET=1 bench/workload_example.sh /tmp/out
#   CHAMPION_DEFINES="-D THREADS=256" SHORT=1 ...: export an earlier run's champion instead of
#   searching, and a shorter session (3 resolution runs, at most 10 rounds, a 6-round audit)
set -uo pipefail
kopt=$(realpath "${KOPT:-build/cli/kopt}")
out=$(realpath -m "$1"); mkdir -p "$out"
ex=$(realpath examples/workload_mlp)
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" >> "$out/gpu.txt"
cat "$out/gpu.txt"
cd "$ex" || exit 2
step() { echo "== $1 ($(date +%T))"; }

step "trace of the original"
WORKLOAD_TRACE="$out/trace_original.json" python3 workload.py > "$out/original_run.txt" 2>&1
tail -c 300 "$out/original_run.txt"; echo
"$kopt" evidence "$out/trace_original.json" > "$out/evidence_original.txt" 2>&1; head -30 "$out/evidence_original.txt"

rm -rf export
if [ -n "${CHAMPION_DEFINES:-}" ]; then
  # A champion found by an earlier `kopt optimize` (its -D values), exported from the kernel's
  # folder: for a call with too little device time for the search and the workload both.
  step "kopt export bias_gelu $CHAMPION_DEFINES (an earlier run's champion)"
  # shellcheck disable=SC2086
  "$kopt" export bias_gelu --torch export $CHAMPION_DEFINES 2>&1 | tee "$out/export.txt"
else
  step "kopt optimize bias_gelu"
  start=$(date +%s)
  timeout 330 "$kopt" optimize bias_gelu --budget "${BUDGET:-1}" --iterations 1 --run "$out/run" > "$out/optimize.txt" 2>&1
  echo "optimize exit $? in $(( $(date +%s) - start )) s"; tail -25 "$out/optimize.txt"
  [ -f "$out/run/summary.md" ] && head -30 "$out/run/summary.md"
  step "kopt export"
  "$kopt" export "$out/run" --torch export 2>&1 | tee "$out/export.txt"
fi

step "trace of the candidate"
KOPT_BIAS_GELU=export/bias_gelu WORKLOAD_TRACE="$out/trace_candidate.json" python3 workload.py > "$out/candidate_run.txt" 2>&1
tail -c 300 "$out/candidate_run.txt"; echo
"$kopt" evidence "$out/trace_candidate.json" > "$out/evidence_candidate.txt" 2>&1
speedup=$(python3 - "$out/trace_original.json" "$out/trace_candidate.json" <<'PY'
import json, sys
def kernel_time(path, keys):
    events = json.load(open(path))["traceEvents"]
    return sum(e["dur"] for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"
               and any(k in e["name"] for k in keys))
replaced = kernel_time(sys.argv[1], ["GeluCUDAKernelImpl", "CUDAFunctor_add"])  # b1's add and the GELU
new = kernel_time(sys.argv[2], ["bias_gelu"])
left = kernel_time(sys.argv[2], ["GeluCUDAKernelImpl", "CUDAFunctor_add"])
print(f"{replaced / new:.3f}")
print(f"replaced (the add and the GELU, 5 steps) {replaced:.1f} us, bias_gelu {new:.1f} us, left in the candidate {left:.1f} us",
      file=sys.stderr)
PY
)
echo "kernel speedup over the kernels it replaces: $speedup"
cp "$out/trace_original.json" trace.json
sed -i "s/^kernel_speedup = .*/kernel_speedup = $speedup      # measured: bench\/workload_example.sh/" workload.toml
# SHORT=1: fewer resolution runs and a shorter audit, for a call with little device time left.
[ -n "${SHORT:-}" ] && sed -i 's/^resolution_runs = 5/resolution_runs = 3/; s/^max_rounds = 20/max_rounds = 10/; s/^audit_rounds = 10/audit_rounds = 6/' workload.toml

step "kopt workload"
rm -rf workload_session
start=$(date +%s)
"$kopt" workload . --json > "$out/workload.json" 2> "$out/workload.log"
echo "workload exit $? in $(( $(date +%s) - start )) s"
cp -r workload_session "$out/"
cp workload.toml "$out/"
cat workload_session/summary.md
