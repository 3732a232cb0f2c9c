#!/usr/bin/env bash
# skill_walkthrough_kernels.sh KOPT_DIR REPO: an agent following skill/SKILL.md on a kernel
# WITHOUT kopt:param (tests/fixtures/loop/matvec: one thread per row), as agents do it: every
# branch a rewritten kernel.cu with its own methods.json, rehearsed on the simulated lab
# (its model times each branch by what its source says). Two iterations end to end: a
# float4 path found harmful and switched off, retried with what changed; the second close
# resumed on another GPU (the baseline measured again there); then finalize and report, and
# the whole workspace moved elsewhere and read again. Fails on any step that does not say
# what the skill says it does.
set -euo pipefail
kopt_dir=$1 repo=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH="$kopt_dir:$PATH"
mkdir -p "$work/ws"
cp -r "$repo/tests/fixtures/loop/matvec" "$work/ws/matvec"
model="$work/ws/matvec/model.json"
python3 - "$model" "$repo/tests/fixtures/evidence/h200_vector_add" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["evidence"] = sys.argv[2]
json.dump(m, open(sys.argv[1], "w"))
m["environment"]["device"]["uuid"] = "GPU-sim-0002"  # the machine the run resumes on
json.dump(m, open(sys.argv[1].replace("model.json", "model_gpu2.json"), "w"))
PY
export KOPT_SIMULATE="$model"
KERNEL="$work/ws/matvec" RUN="$work/ws/run"
cd "$work"

fail() { echo "FAIL: $*"; exit 1; }

# 1. Start the run (the draft was pre-checked with kopt check on the GPU machine; here the
# spec is read and bound by init itself).
kopt init "$KERNEL" --run "$RUN" --iterations 2 --branches 2 --json > next.json
python3 - <<'PY' || exit 1
import json
n = json.load(open("next.json"))
assert n["baseline_median_s"] > 0 and n["best_median_s"] == n["baseline_median_s"], n
PY

# 2. Iteration 1: two rewritten kernels, each claiming its own methods.
it="$RUN/iter1"
write_branch() {  # DIR MARKER SWITCH_MACRO METHOD_ID
  mkdir -p "$1"
  cat > "$1/kernel.cu" <<EOF
// $2: one warp per row, lanes read consecutive columns (coalesced)
#include <cuda_runtime.h>
#ifndef $3
#define $3 1 // kopt:method $4
#endif
__global__ void matvec_warp(const float* A, const float* x, float* y, int M, int N) {
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (row >= M) return;
  float sum = 0.0f;
  for (int k = lane; k < N; k += 32) sum += A[(size_t)row * N + k] * x[k];
  for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o);
  if (lane == 0) y[row] = sum;
}
extern "C" void solve(const float* A, const float* x, float* y, int M, int N) {
  matvec_warp<<<(M * 32 + 255) / 256, 256>>>(A, x, y, M, N);
}
EOF
}
write_branch "$it/branches/b1" WARP_PER_ROW KOPT_USE_FLOAT4 memory.vectorized_access
echo '{"methods": ["memory.vectorized_access"]}' > "$it/branches/b1/methods.json"
write_branch "$it/branches/b2" TWO_ROWS_PER_WARP KOPT_USE_FLOAT4 memory.vectorized_access
echo '{"methods": ["memory.vectorized_access"]}' > "$it/branches/b2/methods.json"
kopt plan "$it" --validate "$it/branches/b1/methods.json" --json > check1.json \
  || { cat check1.json; fail "plan --validate refused b1's methods"; }
echo '{"hypothesis": "one warp per row coalesces the loads of A", "expected_gain_percent": [200, 2000], "cost": "a warp reduction per row"}' > "$it/branches/b1/experiment.json"
echo '{"hypothesis": "two rows per warp halve the reduction overhead", "expected_gain_percent": [200, 2000], "cost": "half a warp per row"}' > "$it/branches/b2/experiment.json"
kopt close "$RUN" --json > closed1.json
python3 - "$RUN" <<'PY' || exit 1
import json, sys
c = json.load(open("closed1.json"))
it = c["iteration"]
assert it["verdict"] == "advanced" and it["champion"] == "b1", (it["verdict"], it["champion"])
labels = [b["label"] for b in it["branches"]]
assert all(l.startswith("kernel.cu ") and "[memory.vectorized_access]" in l for l in labels), labels
assert labels[0] != labels[1], labels
classes = {m["id"]: m["class"] for m in it["methods"]}
assert classes["memory.vectorized_access"] == "harmful", classes
assert it["best_after"]["switched_off"] == ["memory.vectorized_access"], it.get("best_after")
n = c["next"]
assert n["best_defines"].get("KOPT_USE_FLOAT4") == "0", n["best_defines"]
json.dump(n, open("next.json", "w"))
log = open(sys.argv[1] + "/kopt.log").read()
assert "(defaults)" not in log, log
assert "kernel.cu " in log, log
PY

# 3. Iteration 2: the float4 path again, rewritten, with what changed; the close resumes on
# another GPU.
it="$RUN/iter2"
mkdir -p "$it/branches/b1"
write_branch "$it/branches/b1" "WARP_PER_ROW ALIGNED_FLOAT4" KOPT_USE_ALIGNED_FLOAT4 memory.vectorized_access
echo '{"methods": ["memory.vectorized_access"]}' > "$it/methods.json"
if kopt plan "$it" --validate "$it/methods.json" --json > check2.json; then fail "a retry without a reason was accepted"; fi
grep -q "say what changed" check2.json || { cat check2.json; fail "the refusal does not say how to retry"; }
echo '{"methods": [{"id": "memory.vectorized_access", "retry": "aligned float4 loads, no tail branch"}]}' > "$it/methods.json"
kopt plan "$it" --validate "$it/methods.json" --json > check2.json || { cat check2.json; fail "the retry was refused"; }
echo '{"hypothesis": "aligned float4 loads without a tail branch make the vector path pay", "expected_gain_percent": [1, 10], "cost": "an alignment check per row"}' > "$it/branches/b1/experiment.json"
KOPT_SIMULATE="$work/ws/matvec/model_gpu2.json" kopt close "$RUN" --json > closed2.json
test -f "$it/rebaseline_GPU-sim-0002.json" || fail "the baseline was not measured again on the second GPU"
python3 - "$RUN" <<'PY' || exit 1
import json, sys
it = json.load(open("closed2.json"))["iteration"]
assert it["retries"] == {"memory.vectorized_access": "aligned float4 loads, no tail branch"}, it["retries"]
classes = {m["id"]: m["class"] for m in it["methods"]}
assert classes["memory.vectorized_access"] == "effective", classes
state = json.load(open(sys.argv[1] + "/state.json"))
assert [g["uuid"] for g in state["gpus"]] == ["GPU-sim-0001", "GPU-sim-0002"], state["gpus"]
assert not state["kernel"].startswith("/"), state["kernel"]
t = it["time"]
print(f"kopt's own time per branch: {t['kopt_s_per_branch']:.3f} s")
PY

# 4. Finalize and report; then move the whole workspace and read the run there.
kopt finalize "$RUN" --json > summary.json
grep -q "harmful (off)" "$RUN/summary.md" || fail "summary.md does not mark the harmful method off"
grep -q "GPU-sim-0002 from iteration 2" "$RUN/summary.md" || fail "summary.md does not say the run moved GPU"
kopt report "$RUN" > /dev/null
mv "$work/ws" "$work/moved"
kopt status "$work/moved/run" --json > status.json
kopt report "$work/moved/run" > /dev/null
# summary.json is finalize's (report only reads the run): written again where the run is now.
kopt finalize "$work/moved/run" --no-audit > /dev/null
python3 - "$work/moved" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1] + "/run/summary.json"))
assert s["kernel"].startswith(sys.argv[1]), s["kernel"]
assert s["speedup_vs_baseline"] > 5, s["speedup_vs_baseline"]
PY
# The handoff names each rewritten branch by what it changed, never "(defaults)" (issue 58),
# and its next command carries --json, as the skill runs every command.
kopt handoff "$work/moved/run" > /dev/null
grep -q "^- iter .*(defaults)" "$work/moved/run/handoff.md" && { cat "$work/moved/run/handoff.md"; fail "handoff.md calls a rewritten branch (defaults)"; }
grep -q "^- iter 1 b1 (kernel.cu [0-9a-f]\{8\} \[memory.vectorized_access\], rewritten: [0-9]* line(s) added, [0-9]* removed" \
  "$work/moved/run/handoff.md" || { cat "$work/moved/run/handoff.md"; fail "handoff.md does not say what b1 changed"; }
grep -q "^Run \`kopt finalize .* --json\`" "$work/moved/run/handoff.md" || fail "the handoff's next command lacks --json"
echo "the walkthrough without kopt:param passed"
