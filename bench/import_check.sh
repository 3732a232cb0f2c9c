#!/usr/bin/env bash
# Imported problems on the GPU: each solution of bench/leetgpu/ (named after its challenge's
# folder) put beside the spec `kopt import` makes from the challenge, then `kopt check` must
# pass; each planted solution of bench/leetgpu_planted/ (one that relies on a zeroed output or
# ignores an edge case the suite tests) must fail. Needs a GPU, and torch for the challenges'
# references. Prints one line per problem and exits 1 where any expectation is not met.
#
#   bench/import_check.sh path/to/leetgpu-challenges/challenges [SOLUTIONS_DIR] [OUT]
#   (SOLUTIONS_DIR defaults to bench/leetgpu; community solutions go there as <challenge>.cu)
set -uo pipefail
challenges=${1:?usage: bench/import_check.sh LEETGPU_CHALLENGES_DIR [SOLUTIONS_DIR] [OUT]}
solutions=${2:-bench/leetgpu}
out=${3:-${OUT:-$(mktemp -d)}}
kopt=${KOPT:-build/cli/kopt}
status=0

# check_one KERNEL EXPECTED(pass|fail) TAG
check_one() {
  local kernel=$1 expected=$2 tag=$3 name definition folder
  name=$(basename "$kernel" .cu)
  definition=$(find "$challenges" -path "*/$name/challenge.py" | head -1)
  if [ -z "$definition" ]; then echo "$tag $name: no $name/challenge.py under $challenges"; status=2; return; fi
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
for kernel in bench/leetgpu_planted/*.cu; do check_one "$kernel" fail planted; done
exit $status
