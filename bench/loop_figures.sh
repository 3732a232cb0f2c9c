#!/usr/bin/env bash
# The loop's figures on a GPU machine (docs/results.md). From the repo root, with build/:
#   [EXAMPLES="reduction softmax"] bench/loop_figures.sh OUT_DIR [BUDGET_MINUTES]
# (the run folder is also packed as OUT_DIR/../run_sgemm_tiled.tgz)
# 1. DRAM bandwidth of the reduction and softmax examples (kopt bench, cold, default case);
# 2. kopt optimize of examples/sgemm_tiled from its slow defaults, with a time budget; the
#    run folder lands in OUT_DIR/run_sgemm_tiled (resumable: run again to continue).
set -uo pipefail
out=${1:?OUT_DIR}; budget=${2:-6}
mkdir -p "$out"
kopt=build/cli/kopt
export PATH="$PATH:/usr/local/cuda/bin"
for example in ${EXAMPLES-reduction softmax}; do
  $kopt bench examples/$example --case default --seeds 1 --no-reference --out "$out/bench_$example.json" \
    > "$out/bench_$example.txt" 2>&1
  python3 - "$out/bench_$example.json" "$example" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = [v for v in d["variants"] if v["label"] != "reference"][0]
bw = v.get("bytes_per_second") or 0
print(f"{sys.argv[2]}: median {v['summary']['median']*1e6:.2f} us, {bw/1e12:.3f} TB/s = {100*bw/4.26e12:.1f} % of the measured 4.26 TB/s")
PY
done
start=$(date +%s)
timeout ${OPTIMIZE_LIMIT:-480} $kopt optimize examples/sgemm_tiled --run "$out/run_sgemm_tiled" --budget "$budget" \
  --iterations 20 --branches 8 --seeds 1 > "$out/optimize.txt" 2> "$out/optimize.err"
echo "optimize exit $? after $(( $(date +%s) - start )) s"
head -12 "$out/optimize.txt"; tail -5 "$out/optimize.err"; tail -30 "$out/run_sgemm_tiled/kopt.log"
tar czf "$out/../run_sgemm_tiled.tgz" -C "$out" run_sgemm_tiled
