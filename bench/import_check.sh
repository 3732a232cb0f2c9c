#!/usr/bin/env bash
# Imported problems on the GPU: each solution of SOLUTIONS_DIR (named after its problem's
# folder) put beside the spec `kopt import` makes from the problem's challenge.py (LeetGPU) or
# def.py (Tensara), then `kopt check` must pass; each planted solution of PLANTED_DIR (one that
# relies on a zeroed output or ignores an edge case the suite tests) must fail. Needs a GPU, and
# torch for the problems' references. Prints one line per problem and exits 1 where any
# expectation is not met.
#
#   bench/import_check.sh path/to/leetgpu-challenges/challenges [SOLUTIONS_DIR] [OUT]
#   PLANTED_DIR= bench/import_check.sh path/to/tensara-problems/problems bench/tensara OUT
#   (SOLUTIONS_DIR defaults to bench/leetgpu, PLANTED_DIR to bench/leetgpu_planted; solutions go
#   there as <problem>.cu)
set -uo pipefail
challenges=${1:?usage: bench/import_check.sh LEETGPU_CHALLENGES_DIR [SOLUTIONS_DIR] [OUT]}
solutions=${2:-bench/leetgpu}
out=${3:-${OUT:-$(mktemp -d)}}
kopt=${KOPT:-build/cli/kopt}
planted=${PLANTED_DIR-bench/leetgpu_planted}
status=0

# check_one KERNEL EXPECTED(pass|fail) TAG
check_one() {
  local kernel=$1 expected=$2 tag=$3 name definition folder
  name=$(basename "$kernel" .cu)
  definition=$(find "$challenges" \( -path "*/$name/challenge.py" -o -path "*/$name/def.py" \) | head -1)
  if [ -z "$definition" ]; then echo "$tag $name: no $name/challenge.py or def.py under $challenges"; status=2; return; fi
  folder="$out/$tag/$name"
  rm -rf "$folder"
  mkdir -p "$out/$tag"
  if ! "$kopt" import "$definition" --out "$folder" > "$folder.import.txt" 2>&1; then
    echo "$tag $name: import refused: $(tail -1 "$folder.import.txt")"; status=1; return
  fi
  cp "$kernel" "$folder/solution.cu"
  if "$kopt" check "$folder" > "$folder.check.txt" 2>&1; then got=pass; else got=fail; fi
  if [ "$got" = "$expected" ]; then verdict=ok; else verdict=UNEXPECTED; status=1; fi
  echo "$tag $name: kopt check: $got (expected: $expected) $verdict; $(grep -c '^\[\[cases\]\]' "$folder/kopt.toml") cases ($folder.check.txt)"
}

for kernel in "$solutions"/*.cu; do check_one "$kernel" pass solution; done
if [ -n "$planted" ]; then
  for kernel in "$planted"/*.cu; do check_one "$kernel" fail planted; done
fi
exit $status
