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
#   optimize.txt run.tgz   a short kopt optimize over the template parameters (3-minute budget)
# Takes about 5 minutes on an H200 (the optimize budget is most of it).
set -euo pipefail
: "${OUT:?set OUT to the folder that receives the outputs}"
kopt=$(pwd)/build/cli/kopt
example=examples/cutlass_gemm_bf16
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$OUT" "$work/out"

has_cutlass_package() { python3 -c "import importlib.util as u, sys; sys.exit(u.find_spec('cutlass_library') is None)"; }
if [ -z "${CUTLASS_PATH:-}" ] && ! has_cutlass_package; then
  wheel=$(ls third_party/nvidia_cutlass-*.whl 2>/dev/null | head -n 1 || true)
  [ -n "$wheel" ] || { echo "cutlass_gpu.sh: no CUTLASS headers: set CUTLASS_PATH or carry third_party/nvidia_cutlass-*.whl" >&2; exit 3; }
  python3 -m pip install --quiet --no-deps --no-index "$wheel" 2>/dev/null \
    || python3 -m pip install --quiet --no-deps --no-index --break-system-packages "$wheel"
fi

cd "$work/out"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > gpu.txt 2>&1 || true
"$kopt" check "$OLDPWD/$example" --out check.json > check.txt 2>&1 || echo "kopt check exit $?" >> check.txt
"$kopt" bench "$OLDPWD/$example" --case default --out bench.json > bench.txt 2>&1 || echo "kopt bench exit $?" >> bench.txt
"$kopt" sass "$OLDPWD/$example" --out sass.json > sass.txt 2>&1 || echo "kopt sass exit $?" >> sass.txt

# cuBLAS BF16 in the same run, timed as kopt's cold mode times a kernel.
python3 "$OLDPWD/tools/cublas_bf16.py" 4096 > cublas.json

"$kopt" optimize "$OLDPWD/$example" --run "$work/out/run" --budget 3 --iterations 3 --branches 6 \
  > optimize.txt 2>&1 || echo "kopt optimize exit $?" >> optimize.txt
[ -d run ] && tar -czf run.tgz run && rm -rf run
cd "$work"
tar -czf "$OUT/cutlass_gpu.tgz" out
echo "wrote $OUT/cutlass_gpu.tgz"
