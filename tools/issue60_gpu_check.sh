#!/usr/bin/env bash
# issue60_gpu_check.sh: what issue 60 changed on the GPU path, run where there is one (the
# session that made it had no GPU). The check (run_check_once as named steps), the bench
# (run_bench's steps; the worker's case as start_case .. take_final_samples, its samples in
# measure/timed_sample.cpp) and the loop's GPU lab (judge_outcomes) were split without a
# change of behaviour; this runs the GPU tests that cover them and one real loop.
#   tools/issue60_gpu_check.sh [BUILD_DIR]   (default build/; built first)
set -u
build=${1:-build}
cd "$(dirname "$0")/.." || exit 2
nice -n 10 ninja -C "$build" || exit 1
failed=0
# Every GPU test: planted bad kernels, the witness, the audits, bench and check on real kernels.
ctest --test-dir "$build" -L gpu -j1 --output-on-failure || failed=1
# The simulated figures' real counterpart: a short real run of the README's example, whose
# summary must show no figure above its roofline unless flagged (roofline.json "above").
run=$(mktemp -d)/run
"$build/cli/kopt" optimize examples/sgemm_tiled --run "$run" --budget 2 --branches 8 || failed=1
"$build/cli/kopt" report "$run" || failed=1
grep -H '"above"' "$run"/*/profile/roofline.json "$run"/iter*/roofline.json 2>/dev/null || echo "no roofline says above"
# kopt sass with the GPU's own arch (no --arch), and an arch nvcc cannot compile for (exit 2).
"$build/cli/kopt" sass examples/vector_add --out "$(dirname "$run")/sass.json" || failed=1
"$build/cli/kopt" sass examples/vector_add --arch sm_20 --out "$(dirname "$run")/sass20.json"; [ $? -eq 2 ] || failed=1
echo "issue60 GPU check: $([ "$failed" -eq 0 ] && echo ok || echo FAILED); run in $run"
exit "$failed"
