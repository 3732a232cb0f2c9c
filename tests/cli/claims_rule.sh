#!/usr/bin/env bash
# claims_rule.sh KOPT_DIR REPO: only what a branch claims, and the catalog's rules accepted, is
# ablated, classed and recorded (issue 58). On the simulated lab (tests/fixtures/loop/matvec),
# the champion's kernel declares, beside its claimed switch, one for a method the validator
# refuses on this evidence (compute.fast_math: fp32 must stay exact) and one it would accept
# but that no one claimed (compute.loop_unrolling). Claimed, the refused one stops close
# (exit 2); declared only, neither is ablated nor classed nor in the ledger or the history,
# both are reported as such; a method effective before is reported as kept. The summary's
# iteration table, its ledger and history.json list the same methods.
set -euo pipefail
kopt_dir=$1 repo=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH="$kopt_dir:$PATH"
cp -r "$repo/tests/fixtures/loop/matvec" "$work/matvec"
python3 - "$work/matvec/model.json" "$repo/tests/fixtures/evidence/h200_vector_add" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["evidence"] = sys.argv[2]
# Each switch would be measured effective if it were ablated: none may be, unless claimed.
m["factors"] = {"KOPT_USE_FLOAT4=0": 1.15, "KOPT_USE_FAST_MATH=0": 1.3, "KOPT_USE_LOOP_UNROLLING=0": 1.3}
# Slower than the roofline's 0.25 ms (1.07 GB at 4.25 TB/s), so that each iteration's gain shows.
m["content_factors"] = {"WARP_PER_ROW": 0.25, "UNROLLED_MORE": 0.8}
json.dump(m, open(sys.argv[1], "w"))
PY
export KOPT_SIMULATE="$work/matvec/model.json"
RUN="$work/run"
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }

kopt init "$work/matvec" --run "$RUN" --iterations 3 --branches 1 --json > next.json

write_branch() {  # DIR MARKER
  mkdir -p "$1"
  cat > "$1/kernel.cu" <<KERNEL
// $2: one warp per row, lanes read consecutive columns
#include <cuda_runtime.h>
#ifndef KOPT_USE_FLOAT4
#define KOPT_USE_FLOAT4 1 // kopt:method memory.vectorized_access
#endif
#ifndef KOPT_USE_FAST_MATH
#define KOPT_USE_FAST_MATH 1 // kopt:method compute.fast_math
#endif
#ifndef KOPT_USE_LOOP_UNROLLING
#define KOPT_USE_LOOP_UNROLLING 1 // kopt:method compute.loop_unrolling
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
KERNEL
  echo '{"hypothesis": "one warp per row coalesces A", "expected_gain_percent": [100, 2000], "cost": "a warp reduction"}' \
    > "$1/experiment.json"
}

# Iteration 1: claiming the refused method stops close, naming the rule; claiming only the
# float4 path, close runs and the other two switches are reported, not measured.
write_branch "$RUN/iter1/branches/b1" WARP_PER_ROW
echo '{"methods": ["memory.vectorized_access", "compute.fast_math"]}' > "$RUN/iter1/methods.json"
set +e
kopt close "$RUN" > refused.txt 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || { cat refused.txt; fail "a refused claim did not stop close with exit 2 (got $rc)"; }
grep -q "compute.fast_math: ruled out by skip condition" refused.txt || { cat refused.txt; fail "the refusal does not name the skip rule"; }
echo '{"methods": ["memory.vectorized_access"]}' > "$RUN/iter1/methods.json"
kopt close "$RUN" --json > closed1.json

# Iteration 2: the same kernel a little changed, claiming loop unrolling now; float4 was
# effective in iteration 1 and is kept.
write_branch "$RUN/iter2/branches/b1" "WARP_PER_ROW UNROLLED_MORE"
echo '{"methods": ["compute.loop_unrolling"]}' > "$RUN/iter2/methods.json"
kopt close "$RUN" --json > closed2.json
kopt finalize "$RUN" --json > summary.json

python3 - "$RUN" <<'PY' || exit 1
import json, sys
run = sys.argv[1]
def ids(rows): return sorted(r["id"] for r in rows)
want = {1: ["memory.vectorized_access"], 2: ["compute.loop_unrolling"]}
status = {1: {"compute.fast_math": "refused", "compute.loop_unrolling": "unclaimed"},
          2: {"compute.fast_math": "refused", "memory.vectorized_access": "kept"}}
for i in (1, 2):
    it = json.load(open(f"{run}/iter{i}/iteration.json"))
    ab = json.load(open(f"{run}/iter{i}/ablation.json"))
    sass = json.load(open(f"{run}/iter{i}/champion/sass.json"))
    assert it["verdict"] == "advanced", it["verdict"]
    assert ids(ab["methods"]) == want[i], ("ablated", i, ids(ab["methods"]))
    assert sorted(s["method"] for s in sass) == want[i], ("SASS-checked", i, sass)
    assert ids(it["methods"]) == want[i], ("classed", i, ids(it["methods"]))
    assert sorted(it["methods_claimed"]) == want[i], it["methods_claimed"]
    labels = [o["label"] for o in ab["outcomes"]]
    assert not any("fast_math" in l or ("unrolling" in l and i == 1) for l in labels), labels
    got = {u["id"]: u["status"] for u in it["unclaimed"]}
    assert got == status[i], ("unclaimed", i, got)
    refused = [u for u in it["unclaimed"] if u["status"] == "refused"][0]
    assert refused["macro"] == "KOPT_USE_FAST_MATH", refused
    assert any("skip condition" in v for v in refused["refused_by"]), refused
    history = json.load(open(f"{run}/iter{i + 1}/history.json"))
    assert sorted(m["id"] for m in history["methods"] if m["iteration"] == i) == want[i], ("history", i, history)
s = json.load(open(f"{run}/summary.json"))
for row in s["iterations"]:
    i = row["index"]
    assert sorted(row["methods_claimed"]) == want[i], row
    assert sorted(m["id"] for m in s["ledger"] if m["iteration"] == i) == want[i], ("ledger", i, s["ledger"])
assert sorted((u["iteration"], u["id"]) for u in s["unclaimed"]) == [
    (1, "compute.fast_math"), (1, "compute.loop_unrolling"), (2, "compute.fast_math"), (2, "memory.vectorized_access")], s["unclaimed"]
md = open(f"{run}/summary.md").read()
ledger = md.split("## Method ledger")[1].split("## Frontier")[0]
table = [l for l in ledger.splitlines() if l.startswith("| 1 ") or l.startswith("| 2 ")]
assert len(table) == 2 and "memory.vectorized_access" in table[0] and "compute.loop_unrolling" in table[1], table
assert "- iter 1: compute.fast_math (`KOPT_USE_FAST_MATH`): refused — compute.fast_math: ruled out by skip condition" in ledger, ledger
assert "- iter 1: compute.loop_unrolling (`KOPT_USE_LOOP_UNROLLING`): unclaimed" in ledger, ledger
PY
echo "claims rule: only claimed, accepted methods were ablated, classed and recorded"
