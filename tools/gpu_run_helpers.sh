# shellcheck shell=bash
# Sourced by the GPU-machine scripts (tools/triton_gpu.sh, tools/cutlass_gpu.sh,
# bench/device_round.sh), from the repository root. Not a script of its own.

# champion_defines RUN: the -D arguments of a run's best variant (RUN/state.json); nothing when
# the run has no state or its best has no -D values.
champion_defines() {
  python3 -c 'import json, sys
best = json.load(open(sys.argv[1])).get("best") or {}
print(" ".join(f"-D {k}={v}" for k, v in (best.get("defines") or {}).items()))' "$1/state.json" 2>/dev/null || true
}

# ensure_cutlass_headers: CUTLASS's headers where kopt finds them by itself. With neither
# $CUTLASS_PATH nor the nvidia-cutlass package, installs the wheel carried as
# third_party/nvidia_cutlass-*.whl (git-ignored), offline and --no-deps; fails when there is none.
ensure_cutlass_headers() {
  [ -n "${CUTLASS_PATH:-}" ] && return 0
  python3 -c "import importlib.util as u, sys; sys.exit(u.find_spec('cutlass_library') is None)" 2>/dev/null && return 0
  local wheel
  wheel=$(ls third_party/nvidia_cutlass-*.whl 2>/dev/null | head -n 1)
  [ -n "$wheel" ] || return 1
  python3 -m pip install --quiet --no-deps --no-index "$wheel" 2>/dev/null \
    || python3 -m pip install --quiet --no-deps --no-index --break-system-packages "$wheel"
}
