#!/usr/bin/env bash
# tools/cutlass_gpu.sh: the CUTLASS BF16 GEMM example (examples/cutlass_gemm_bf16) on the GPU,
# against cuBLAS BF16 in the same run (issue 20). Runs from the repository root with a built tree
# in build/ and nvidia-cutlass's headers where kopt finds them: $CUTLASS_PATH, the installed
# nvidia-cutlass package, or its wheel carried as third_party/nvidia_cutlass-*.whl (git-ignored;
# installed here offline, --no-deps). Writes $OUT/cutlass_gpu.tgz holding:
#   check.txt check.json   kopt check on every case and seed
#   bench.txt bench.json   kopt bench of the 4096^3 case (cold L2)
#   cublas.json            tools/cublas_bf16.py: torch.mm on BF16 at 4096^3 (cuBLAS), timed cold
#   sass.txt sass.json     kopt sass: HGMMA, UTMALDG, SYNCS, USETMAXREG in the kernel
#   optimize.txt run.tgz   a short kopt optimize over the template parameters: BUDGET minutes
#                          (default 3), ITERATIONS (3) of BRANCHES (6), cut at OPTIMIZE_LIMIT s
#   sass_champion.json     kopt sass of the loop's best variant (its -D values): HGMMA and the rest
#   cublas_after.json      cuBLAS again after the loop
# cuBLAS runs in $KOPT_PYTHON (else python3), the Python that has torch.
# STANDALONE=0 leaves out check, bench and sass of the defaults (the loop's init checks and
# measures them too). Takes about 5 minutes on an H200 (the optimize budget is most of it).
set -euo pipefail
: "${OUT:?set OUT to the folder that receives the outputs}"
kopt=$(pwd)/build/cli/kopt
example=examples/cutlass_gemm_bf16
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$OUT" "$work/out"

# shellcheck source=tools/gpu_run_helpers.sh
source tools/gpu_run_helpers.sh
ensure_cutlass_headers \
  || { echo "cutlass_gpu.sh: no CUTLASS headers: set CUTLASS_PATH or carry third_party/nvidia_cutlass-*.whl" >&2; exit 3; }

cd "$work/out"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > gpu.txt 2>&1 || true
if [ "${STANDALONE:-1}" = 1 ]; then
  "$kopt" check "$OLDPWD/$example" --out check.json > check.txt 2>&1 || echo "kopt check exit $?" >> check.txt
  "$kopt" bench "$OLDPWD/$example" --case default --out bench.json > bench.txt 2>&1 || echo "kopt bench exit $?" >> bench.txt
  "$kopt" sass "$OLDPWD/$example" --out sass.json > sass.txt 2>&1 || echo "kopt sass exit $?" >> sass.txt
fi

# cuBLAS BF16 in the same run, timed as kopt's cold mode times a kernel, before and after the loop.
"${KOPT_PYTHON:-python3}" "$OLDPWD/tools/cublas_bf16.py" 4096 > cublas.json || echo "cublas_bf16.py exit $?" >> cublas.json

timeout "${OPTIMIZE_LIMIT:-900}" "$kopt" optimize "$OLDPWD/$example" --run "$work/out/run" --budget "${BUDGET:-3}" \
  --iterations "${ITERATIONS:-3}" --branches "${BRANCHES:-6}" > optimize.txt 2>&1 || echo "kopt optimize exit $?" >> optimize.txt
"${KOPT_PYTHON:-python3}" "$OLDPWD/tools/cublas_bf16.py" 4096 > cublas_after.json || echo "cublas_bf16.py exit $?" >> cublas_after.json
# The champion's machine code, as the loop's SASS step reads it.
defines=$(champion_defines run)
# shellcheck disable=SC2086  # one word per -D argument
"$kopt" sass "$OLDPWD/$example" $defines --out sass_champion.json > sass_champion.txt 2>&1 \
  || echo "kopt sass exit $?" >> sass_champion.txt
if [ -d run ]; then cp run/summary.md summary.md 2>/dev/null || true; tar -czf run.tgz --exclude="*.ncu-rep" run; rm -rf run; fi
cd "$work"
tar -czf "$OUT/cutlass_gpu.tgz" out
echo "wrote $OUT/cutlass_gpu.tgz"
