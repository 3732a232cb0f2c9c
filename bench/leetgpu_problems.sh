#!/usr/bin/env bash
# LeetGPU problems as a user would run them: each kernel of bench/leetgpu/ (a plain CUDA solution
# written against the challenge's starter signature, named after the challenge's folder) is put
# beside the spec `kopt import` makes from the challenge's challenge.py, then benched (which
# checks every functional case first). Needs a GPU, and torch for the challenges' references.
#
#   bench/leetgpu_problems.sh path/to/leetgpu-challenges/challenges [OUT]
set -uo pipefail
challenges=${1:?usage: bench/leetgpu_problems.sh LEETGPU_CHALLENGES_DIR [OUT]}
out=${2:-${OUT:-$(mktemp -d)}}
kopt=${KOPT:-build/cli/kopt}
status=0
for kernel in bench/leetgpu/*.cu; do
  name=$(basename "$kernel" .cu)
  definition=$(find "$challenges" -path "*/$name/challenge.py" | head -1)
  if [ -z "$definition" ]; then echo "$name: no $name/challenge.py under $challenges" >&2; status=2; continue; fi
  rm -rf "${out:?}/$name"
  "$kopt" import "$definition" --out "$out/$name" > /dev/null || { status=1; continue; }
  cp "$kernel" "$out/$name/solution.cu"
  echo "== $name"
  "$kopt" bench "$out/$name" --out "$out/$name.json" || status=1
done
exit $status
