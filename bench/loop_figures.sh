#!/usr/bin/env bash
# The loop's figures on a GPU machine (docs/results.md). From the repo root, with build/:
#   [EXAMPLES="reduction softmax"] bench/loop_figures.sh OUT_DIR [BUDGET_MINUTES]
# (the run folder is also packed as OUT_DIR/../run_sgemm_tiled.tgz)
# 1. kopt optimize of the tunable reduction and softmax examples from their slow defaults (each
#    stopped after EXAMPLE_LIMIT seconds, default 240)
#    (budget EXAMPLE_BUDGET minutes each, default 2): the champion's DRAM bandwidth;
# 2. kopt optimize of examples/sgemm_tiled from its slow defaults, with a time budget; the
#    run folder lands in OUT_DIR/run_sgemm_tiled (resumable: run again to continue).
set -uo pipefail
out=${1:?OUT_DIR}; budget=${2:-6}
mkdir -p "$out"
kopt=build/cli/kopt
export PATH="$PATH:/usr/local/cuda/bin"
for example in ${EXAMPLES-reduction softmax}; do
  timeout ${EXAMPLE_LIMIT:-240} $kopt optimize examples/$example --run "$out/run_$example" --budget "${EXAMPLE_BUDGET:-2}" \
    --iterations 4 --branches 8 --seeds 1 > "$out/optimize_$example.txt" 2> "$out/optimize_$example.err"
  python3 - "$out/run_$example/state.json" "$example" <<'PY'
import json, sys
state = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]}: baseline {state['baseline_median_s']*1e6:.2f} us, best {state['best_median_s']*1e6:.2f} us "
      f"({state['best']['defines']}); divide the spec's bytes by the best median for the bandwidth")
PY
done
start=$(date +%s)
timeout ${OPTIMIZE_LIMIT:-480} $kopt optimize examples/sgemm_tiled --run "$out/run_sgemm_tiled" --budget "$budget" \
  --iterations 20 --branches 8 --seeds 1 > "$out/optimize.txt" 2> "$out/optimize.err"
echo "optimize exit $? after $(( $(date +%s) - start )) s"
head -12 "$out/optimize.txt"; tail -5 "$out/optimize.err"; tail -30 "$out/run_sgemm_tiled/kopt.log"
tar czf "$out/../run_sgemm_tiled.tgz" -C "$out" run_sgemm_tiled
