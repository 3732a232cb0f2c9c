#!/usr/bin/env bash
# Issue 16's cost bound: what the integrity work adds to `kopt bench` on a ~200 us kernel.
# Times the whole command (wall clock, cached compile) of this kopt and of a kopt built from
# the commit before the integrity work (c8762d4^ = e352e1d), alternately, RUNS times each, on
# bench/discrimination (one case, ~200 us, no reference). Usage, from the repo root:
#   BASE_KOPT=/path/to/old/kopt [RUNS=3] [DIMS="--dim n=8388608"] bench/integrity_cost.sh
# DIMS: kopt options that size the kernel (the default n is a ~93 us kernel on the H200;
# n=8388608 one of ~200 us).
# Prints one line per run and the ratio of the medians.
set -uo pipefail
base=${BASE_KOPT:?set BASE_KOPT to a kopt built from e352e1d}
new=${KOPT:-build/cli/kopt}
runs=${RUNS:-3}
for k in "$base" "$new"; do
  [ -x "$k" ] || { echo "integrity_cost: $k is not an executable" >&2; exit 2; }
  # shellcheck disable=SC2086  # DIMS holds separate options
  "$k" check bench/discrimination --seeds 1 ${DIMS:-} > /dev/null 2>&1  # warm the compile cache
done
# shellcheck disable=SC2086  # DIMS holds separate options
wall() { local t0=$EPOCHREALTIME; "$1" bench bench/discrimination ${DIMS:-} > /dev/null 2>&1; local rc=$?
         awk -v a="$t0" -v b="$EPOCHREALTIME" -v rc=$rc 'BEGIN { printf "%.2f %d\n", b - a, rc }'; }
base_times=(); new_times=()
for i in $(seq "$runs"); do
  read -r tb rb < <(wall "$base"); read -r tn rn < <(wall "$new")
  echo "run $i: before integrity ${tb} s (exit $rb), now ${tn} s (exit $rn)"
  base_times+=("$tb"); new_times+=("$tn")
done
python3 - "${base_times[*]}" "${new_times[*]}" "${DIMS:-}" <<'PY'
import statistics, sys
b = [float(x) for x in sys.argv[1].split()]; n = [float(x) for x in sys.argv[2].split()]
mb, mn = statistics.median(b), statistics.median(n)
print(f"integrity cost ({sys.argv[3] or 'default n'}): median {mb:.2f} s before, {mn:.2f} s now: x{mn/mb:.2f} (bound: x1.20)")
PY
