#!/usr/bin/env bash
# Issue 17, "`kopt bench examples/vector_add` with defaults (cached compile): <= 1.5 s wall; a
# 5 us kernel: <= 3 s; with the reference included". RUNS runs of each (after one run that
# fills the caches and is not counted), with kopt's defaults; one line per target with every
# wall time, and where the median run's time went (bench.json phase_seconds).
#
#   tools/bench_wall.sh               # from the repository root, on the GPU machine
# Env: KOPT, OUT, RUNS (5), SMALL_N (1048576: the vector add of ~5 us).
# shellcheck source=tools/bench_common.sh
source "$(dirname "$0")/bench_common.sh"
[ -d examples/vector_add ] || die "run from the repository root (no examples/vector_add here)"

RUNS=${RUNS:-5}
targets=("examples/vector_add" "examples/vector_add --dim N=${SMALL_N:-1048576}")
for i in "${!targets[@]}"; do
  target=${targets[$i]}
  # shellcheck disable=SC2086  # the target's words are separate arguments
  "$KOPT" bench $target --out "$OUT/wall_${i}_warmup.json" > "$OUT/wall_${i}_warmup.txt" 2>&1 \
      || die "kopt bench $target failed: see $OUT/wall_${i}_warmup.txt"
  for r in $(seq 1 "$RUNS"); do
    # shellcheck disable=SC2086  # the target's words are separate arguments
    python3 - "$KOPT" "$OUT/wall_${i}_$r.json" $target > "$OUT/wall_${i}_$r.line" <<'PY' || die "kopt bench $target failed"
import json, subprocess, sys, time
start = time.time()
subprocess.run([sys.argv[1], "bench", *sys.argv[3:], "--out", sys.argv[2]], capture_output=True, check=True)
print(f"{time.time() - start:.3f}")
PY
  done
  python3 - "$OUT" "$i" "$RUNS" "$target" <<'PY'
import json, statistics, sys
out, i, runs, target = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
walls = [float(open(f"{out}/wall_{i}_{r}.line").read()) for r in range(1, runs + 1)]
middle = sorted(range(runs), key=lambda r: walls[r])[runs // 2] + 1
report = json.load(open(f"{out}/wall_{i}_{middle}.json"))
kernel = [v for v in report["variants"] if v["label"] != "reference"][0]
phases = report.get("phase_seconds", {})
print(f"wall kopt bench {target}: {', '.join(f'{w:.2f}' for w in walls)} s (median {statistics.median(walls):.2f} s); "
      f"kernel {kernel['summary']['median'] * 1e6:.2f} us, {kernel['calls_per_sample']} calls per sample, "
      f"{kernel['summary']['count']} samples, {kernel['stop_reason']}; median run: checks {phases.get('checks', 0):.2f} s, "
      f"timing {phases.get('timing', 0):.2f} s, audit {phases.get('audit', 0):.2f} s, total {phases.get('total', 0):.2f} s")
PY
done
