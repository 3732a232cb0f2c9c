#!/usr/bin/env bash
# One GPU-machine session: the GPU tests, then (with --measure) kopt's own benchmarks, then
# (with --fixtures) real tool output for the parser tests; --profiling runs
# bench/measure_profiling.sh (peaks, profile against bench, roofline). Everything lands in one tarball
# under $OUT (the device tool returns few files), plus summary.txt.
set -uo pipefail
work=/tmp/kopt-session
rm -rf "$work"; mkdir -p "$work"
{
  OUT=$work tests/gpu/run_on_device.sh
  for arg in "$@"; do
    case $arg in
      --measure) cd /work/main && bench/measure_kopt.sh "$work/measure" ;;
      --profiling) cd /work/main && bench/measure_profiling.sh "$work/profiling" ;;
      --fixtures) cd /work/main && OUT=$work/fixtures tests/gpu/capture_fixtures.sh ;;
    esac
  done
} 2>&1 | tee "$work/summary.txt"
tar czf "$OUT/session.tgz" -C "$work" .
cp "$work/summary.txt" "$OUT/summary.txt"
