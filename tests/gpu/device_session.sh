#!/usr/bin/env bash
# One GPU-machine session: the GPU tests, then (with --measure) kopt's own benchmarks, then
# (with --fixtures) real tool output for the parser tests; --profiling runs
# bench/measure_profiling.sh (peaks, profile against bench, roofline). Everything lands in one tarball
# under $OUT (the device tool returns few files), plus summary.txt.
# Exits non-zero when any step fails, after every step has run and the tarball is written.
set -euo pipefail
work=/tmp/kopt-session
rm -rf "$work"; mkdir -p "$work"
status=0
{
  failed=0
  OUT=$work tests/gpu/run_on_device.sh || failed=1
  for arg in "$@"; do
    case $arg in
      --measure) (cd /work/main && bench/measure_kopt.sh "$work/measure") || failed=1 ;;
      --profiling) (cd /work/main && bench/measure_profiling.sh "$work/profiling") || failed=1 ;;
      --fixtures) (cd /work/main && OUT=$work/fixtures tests/gpu/capture_fixtures.sh) || failed=1 ;;
      *) echo "device_session.sh: unknown option $arg"; failed=1 ;;
    esac
  done
  exit $failed
} 2>&1 | tee "$work/summary.txt" || status=$?
tar czf "$OUT/session.tgz" -C "$work" .
cp "$work/summary.txt" "$OUT/summary.txt"
[ "$status" -eq 0 ] || echo "device_session.sh: a step failed (see summary.txt)"
exit "$status"
