#!/usr/bin/env bash
# How much of a problem suite `kopt import` takes: every LeetGPU challenge.py or Tensara def.py
# under the folders given, imported into a scratch folder; then, for a LeetGPU challenge with a
# starter (starter/starter.cu: the solve signature, an empty body), the spec bound to it on
# every case (`kopt sass --spec`, which needs no GPU: a spec that does not bind to the
# challenge's own signature fails there). Prints one line per problem that did not import or
# bind (the reason kopt gave), then the counts; exits 0. No GPU, no torch: kopt reads the
# files with Python's ast module.
#
#   tools/import_coverage.sh path/to/leetgpu-challenges/challenges path/to/tensara-problems/problems
#   KOPT=build/cli/kopt OUT=/tmp/imports tools/import_coverage.sh DIR...
set -uo pipefail
kopt=${KOPT:-build/cli/kopt}
out=${OUT:-$(mktemp -d)}
[ $# -gt 0 ] || { echo "usage: tools/import_coverage.sh SUITE_DIR..." >&2; exit 2; }
[ -x "$kopt" ] || { echo "import_coverage: no kopt at $kopt (build first, or set KOPT)" >&2; exit 2; }
imported=0 refused=0 bound=0 unbound=0
while IFS= read -r definition; do
  folder=$(dirname "$definition")
  name=$(basename "$folder")
  target="$out/$name"
  rm -rf "$target"
  if ! said=$("$kopt" import "$definition" --out "$target" 2>&1); then
    refused=$((refused + 1))
    echo "refused  $folder: $(tail -1 <<<"$said")"
    continue
  fi
  imported=$((imported + 1))
  starter="$folder/starter/starter.cu"
  [ -f "$starter" ] || continue
  # An empty body compiles to no kernel; what matters is that the spec binds to the signature.
  if said=$("$kopt" sass "$starter" --spec "$target/kopt.toml" --arch sm_90 --out "$target/sass.json" 2>&1) ||
     grep -q "no kernel" <<<"$said"; then
    bound=$((bound + 1))
  else
    unbound=$((unbound + 1))
    echo "unbound  $folder: $(tail -1 <<<"$said")"
  fi
done < <(find "$@" \( -name challenge.py -o -name def.py \) | sort)
echo "imported $imported of $((imported + refused)); of those with a LeetGPU starter, bound $bound of $((bound + unbound)) (specs in $out)"
