#!/usr/bin/env bash
# Runs the GPU tests on the GPU machine with a build folder made on a CPU machine and carried
# there (see docs/development.md). CTest files name absolute paths, so the checkout is linked
# at the path it was built in. Writes logs and check.json files under $OUT when it is set.
# Exits non-zero when any GPU test or any example's check fails (after running them all).
set -euo pipefail
repo=$(pwd)
built_in=${KOPT_BUILT_IN:-/work/main}
if [ "$repo" != "$built_in" ] && [ ! -e "$built_in" ]; then
  mkdir -p "$(dirname "$built_in")" && ln -s "$repo" "$built_in"
fi
cd "$built_in"
out=${OUT:-/tmp/kopt-device}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
ctest=$(command -v ctest || true)
# A stripped or copied unit-test binary is newer than its discovered test list, and ctest would
# rediscover it with the build machine's CMake modules: keep the list (the unit tests run in CI).
touch build/tests/kopt_unit_tests*_tests.cmake 2>/dev/null || true
[ -n "$ctest" ] || { echo "no ctest on this machine"; exit 3; }

failed=()
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv || failed+=("nvidia-smi")
build/cli/kopt doctor | tee "$out/doctor.txt" || failed+=("kopt doctor")
# KOPT_CTEST_ARGS adds ctest options, e.g. "-j4 -R integrity" (timing tests run alone anyway).
# shellcheck disable=SC2086
"$ctest" --test-dir build -L gpu --output-on-failure --timeout 600 ${KOPT_CTEST_ARGS:-} 2>&1 | tee "$out/ctest_gpu.log" | tail -60 \
  || failed+=("ctest -L gpu")
for example in examples/*/; do
  name=$(basename "$example")
  # A Triton example needs the Triton worker's build (docs/triton.md): tools/triton_gpu.sh runs it.
  if [[ $name == triton_* ]] && [ ! -f build/cli/libkopt_worker.so ]; then echo "skipped $example (no libkopt_worker.so)"; continue; fi
  rc=0
  build/cli/kopt check "$example" --out "$out/check_$name.json" > "$out/check_$name.txt" 2>&1 || rc=$?
  echo "kopt check $example: exit $rc"
  [ "$rc" -eq 0 ] || failed+=("kopt check $example")
done
cat "$out"/check_*.txt
if [ ${#failed[@]} -gt 0 ]; then
  printf 'run_on_device.sh: FAILED: %s\n' "${failed[@]}"
  exit 1
fi
