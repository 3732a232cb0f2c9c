#!/usr/bin/env bash
# bench/issue55_gpu.sh OUT: issue 55's GPU evidence in one bounded call: the exported op from
# PyTorch (tests/gpu/check_torch_export.py), the example's path (bench/workload_example.sh), the
# planted workload candidates (tests/gpu/workload_planted.sh), then as many A/A experiments
# of the example as the remaining time allows (bench/workload_aa.sh, AA_MINUTES of runs).
set -uo pipefail
export PATH=$PATH:/usr/local/cuda/bin
kopt=$(realpath "${KOPT:-build/cli/kopt}")
out=$(realpath -m "$1"); mkdir -p "$out"
nvidia-smi -L
echo "== export ($(date +%T))"
timeout "${EXPORT_LIMIT:-90}" python3 tests/gpu/check_torch_export.py "$kopt" . > "$out/export_test.log" 2>&1; echo "export test exit $?"; tail -8 "$out/export_test.log"
KOPT=$kopt BUDGET=${BUDGET:-1} timeout "${EXAMPLE_LIMIT:-330}" bench/workload_example.sh "$out/ex" > "$out/example.log" 2>&1
echo "example exit $?"; grep -v "^kopt: workload" "$out/example.log" | tail -60
rm -rf "$out"/ex/run/*/branches "$out"/ex/run/*/*/branches 2>/dev/null
echo "== planted ($(date +%T))"
timeout "${PLANTED_LIMIT:-150}" tests/gpu/workload_planted.sh "$kopt" . > "$out/planted.log" 2>&1; echo "planted exit $?"; tail -8 "$out/planted.log"
[ "${AA_COUNT:-10}" -gt 0 ] || exit 0
echo "== A/A ($(date +%T))"
KOPT=$kopt AA_MINUTES=${AA_MINUTES:-1.5} timeout 200 bench/workload_aa.sh "$out/aa" "${AA_COUNT:-10}" 2>&1 | tail -14
