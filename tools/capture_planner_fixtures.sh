#!/usr/bin/env bash
# On the GPU machine, from the repository root with a built tree in build/: profiles every
# kernel of the planner test set (tests/planner/kernels/<name>) with `kopt profile` (Nsight
# Compute --set full, clocks as a normal run sees them) and packs the exports the CPU test
# reads (tests/unit/catalog/planner_set_test.cpp) into $OUT/planner_fixtures.tgz:
#   planner/<name>/raw.csv        the ncu raw export the test plans from
#   planner/<name>/roofline.json  kopt roofline's placement (measured peaks if doctor --peaks ran)
#   planner/<name>/profile.json   kopt's own reading of it (for people; the test re-reads raw.csv)
#   planner/<name>/plan.json      `kopt plan` on this machine's evidence (kopt roofline + plan)
#   planner/sgemm_tiled_champion/ the same four files for examples/sgemm_tiled as kopt's tuner
#                                 leaves it (128x128x8 tiles, 8x8 per thread, float4, two stages):
#                                 the champion of a good first iteration, where issue 58 found the
#                                 plan blind to issue saturation (planner_set_test.cpp reads it)
#   evidence/h200_{sgemm_naive,vector_add}/  profile.json, ncu_top.json, roofline.json of the
#                                 examples, refreshed with today's concepts (the kopt plan CLI tests)
# Unpack at the repository root: tar -xzf planner_fixtures.tgz -C tests/fixtures
# Also writes $OUT/planner_capture.log (one line per kernel: exit codes, top 3) and
# $OUT/planner_versions.txt. About 30-60 s per kernel on an H200 (a check, then ncu --set full
# replaying one solve call ~40 times), 10-15 minutes for all. To stay under a 10-minute
# command limit, name a subset and run twice (the archives unpack into the same folders):
#   tools/capture_planner_fixtures.sh uncoalesced_matvec strided_aos ...   (default: all, and
#   the champion; name sgemm_tiled_champion to capture it among a subset, or alone:
#   EVIDENCE=0 tools/capture_planner_fixtures.sh sgemm_tiled_champion)
#   EVIDENCE=0 skips the refresh of the two examples' evidence below; CHAMPION=0 the champion.
set -uo pipefail
out=${OUT:-/tmp/kopt-planner}
work=$(mktemp -d)
mkdir -p "$out" "$work/planner"
export PATH="$PATH:/usr/local/cuda/bin"
kopt=build/cli/kopt
log="$out/planner_capture.log"
: > "$log"
{ ncu --version | tail -1; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git rev-parse HEAD; } \
  > "$out/planner_versions.txt" 2>&1
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(ls tests/planner/kernels) sgemm_tiled_champion)
for name in "${names[@]}"; do
  [ "$name" = sgemm_tiled_champion ] && continue  # the champion is captured below
  dir=tests/planner/kernels/$name
  [ -d "$dir" ] || { echo "$name: no such kernel in tests/planner/kernels" | tee -a "$log"; continue; }
  dest="$work/planner/$name"
  mkdir -p "$dest"
  timeout 420 "$kopt" roofline "$dir" --seeds 1 --clock-control none --out "$work/run/$name" \
    > "$work/run_$name.out" 2>&1
  roofline_rc=$?
  for file in raw.csv profile.json roofline.json; do
    [ -f "$work/run/$name/$file" ] && cp "$work/run/$name/$file" "$dest/"
  done
  plan_rc=-
  if [ -f "$work/run/$name/roofline.json" ]; then
    "$kopt" plan "$work/run/$name" --out "$dest/plan.json" > /dev/null 2>&1
    plan_rc=$?
  fi
  top=$(python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))['ranked'][:3]))" \
        "$dest/plan.json" 2>/dev/null)
  echo "$name: roofline exit $roofline_rc, plan exit $plan_rc, top 3: ${top:-?}" | tee -a "$log"
  [ "$roofline_rc" -eq 0 ] || tail -5 "$work/run_$name.out" >> "$log"
done
# The tuned tiled SGEMM (issue 58's "champion of a good first iteration"), profiled with its
# champion's defines; sgemm_tiled's spec runs 4096x4096x4096.
if [ "${CHAMPION:-1}" != 0 ] && [[ " ${names[*]} " == *" sgemm_tiled_champion "* ]]; then
  name=sgemm_tiled_champion
  dest="$work/planner/$name"
  mkdir -p "$dest"
  timeout 420 "$kopt" roofline examples/sgemm_tiled -D BM=128 -D BN=128 -D BK=8 -D TM=8 -D TN=8 -D VEC=4 \
    -D STAGES=2 --seeds 1 --clock-control none --out "$work/run/$name" > "$work/run_$name.out" 2>&1
  roofline_rc=$?
  for file in raw.csv profile.json roofline.json; do
    [ -f "$work/run/$name/$file" ] && cp "$work/run/$name/$file" "$dest/"
  done
  [ -f "$work/run/$name/roofline.json" ] && "$kopt" plan "$work/run/$name" --out "$dest/plan.json" > /dev/null 2>&1
  echo "$name: roofline exit $roofline_rc" | tee -a "$log"
  [ "$roofline_rc" -eq 0 ] || tail -5 "$work/run_$name.out" >> "$log"
fi
examples=(sgemm_naive vector_add)
[ "${EVIDENCE:-1}" = 0 ] && examples=()
mkdir -p "$work/evidence"
for example in "${examples[@]+"${examples[@]}"}"; do
  dest="$work/evidence/h200_$example"
  mkdir -p "$dest"
  timeout 420 "$kopt" roofline "examples/$example" --seeds 1 --clock-control none --out "$work/run/$example" \
    > "$work/run_$example.out" 2>&1
  echo "evidence $example: roofline exit $?" | tee -a "$log"
  for file in profile.json ncu_top.json roofline.json; do
    [ -f "$work/run/$example/$file" ] && cp "$work/run/$example/$file" "$dest/"
  done
done
tar -czf "$out/planner_fixtures.tgz" -C "$work" planner evidence
rm -rf "$work"
echo "wrote $out/planner_fixtures.tgz"
