#!/usr/bin/env bash
# kopt export --torch without a GPU (docs/export.md): a kernel and a run's champion compiled by
# the real nvcc into a package (the runtime, the library with solve and the shim, manifest.json),
# the package's rules read by its own modules, its import without torch refused in one line, a
# Triton kernel copied with nothing compiled. Skips (77) where kopt finds no nvcc.
#
#   export_torch.sh KOPT REPO
set -u
kopt=$1 repo=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
"$kopt" doctor --no-ncu 2>/dev/null | grep -qE "^nvcc +ok " || { echo "SKIPPED: kopt doctor finds no nvcc"; exit 77; }

out=$("$kopt" export "$repo/examples/vector_add" --torch "$work/out" --arch sm_90 2>&1) || fail "export: $out"
echo "$out"
echo "$out" | grep -qF "exported kopt::vector_add (sm_90) to $work/out/vector_add" || fail "no 'exported' line"
echo "$out" | grep -qF "import sys; sys.path.insert(0, \"$work/out\"); import vector_add" || fail "no import line"
package=$work/out/vector_add
for file in __init__.py kopt_torch_rules.py kopt_expression.py libvector_add.so manifest.json; do
  [ -f "$package/$file" ] || fail "the package lacks $file"
done
cmp -s "$package/__init__.py" "$repo/python/kopt_torch_export.py" || fail "__init__.py is not kopt's runtime"
# The library kopt checks and times: solve, and the shim the runtime reads launch errors from.
symbols=$(nm -D --defined-only "$package/libvector_add.so")
for symbol in solve kopt_shim_last_error kopt_shim_error_string; do
  echo "$symbols" | grep -qw "$symbol" || fail "libvector_add.so does not export $symbol"
done

# The package's own modules read its manifest (no torch needed for the rules).
python3 - "$package" <<'PY' || fail "the package's rules"
import sys
sys.path.insert(0, sys.argv[1])
import kopt_torch_rules as rules
op = rules.OpRules(rules.read_manifest(sys.argv[1]))
assert op.schema() == "(Tensor A, Tensor B) -> Tensor", op.schema()
assert op.manifest["arch"] == "sm_90" and op.manifest["library"] == "libvector_add.so"
assert [c["dims"]["N"] for c in op.manifest["cases"]] == [67108864, 1000003, 3]
PY
# Imported without torch: one line saying what it needs, never a traceback from deep inside.
if ! python3 -c "import torch" 2>/dev/null; then
  err=$(cd "$work" && python3 -c "import sys; sys.path.insert(0, 'out'); import vector_add" 2>&1)
  echo "$err" | tail -n1 | grep -qE "^ImportError: kopt::vector_add needs torch" || fail "import without torch: $err"
fi

# Again with a define: the earlier export is replaced, the manifest says what was compiled.
"$kopt" export "$repo/examples/vector_add" --torch "$work/out" --arch sm_90 -D THREADS=128 >/dev/null \
  || fail "the second export"
grep -q '"THREADS",' "$package/manifest.json" || fail "the manifest lacks -D THREADS"

# A run's champion: its defines and the run's flags, without naming them again.
"$kopt" optimize "$repo/examples/sgemm_tiled" --run "$work/run" --iterations 1 --branches 2 \
  --simulate "$repo/tests/fixtures/loop/sgemm_tiled_model.json" >/dev/null 2>&1 || fail "the simulated run"
out=$("$kopt" export "$work/run" --torch "$work/out" --arch sm_90 --name champion 2>&1) || fail "export of the run: $out"
python3 - "$work/run/state.json" "$work/out/champion/manifest.json" <<'PY' || fail "the champion's manifest"
import json, sys
state, manifest = (json.load(open(p)) for p in sys.argv[1:])
assert manifest["defines"] == sorted([k, v] for k, v in state["best"]["defines"].items()), manifest["defines"]
assert manifest["source"]["variant"] == state["best"]["label"] and manifest["source"]["run"].endswith("/run")
assert any(f.startswith("-I") for f in manifest["flags"]), manifest["flags"]
PY

# A Triton kernel: kernel.py and the host that imports it, nothing compiled.
out=$(KOPT_NVCC=/no/such/nvcc "$kopt" export "$repo/examples/triton_softmax" --torch "$work/out" 2>&1) \
  || fail "the Triton export: $out"
for file in __init__.py kernel.py kopt_triton_host.py manifest.json; do
  [ -f "$work/out/triton_softmax/$file" ] || fail "the Triton package lacks $file"
done
echo "PASS: kopt export --torch (vector_add, a run's champion, triton_softmax)"
