#!/usr/bin/env bash
# bench/loop_cost.sh OUT: where a loop's time goes on a 1 ms community kernel with a `.py`
# reference (issue 59; docs/measurement.md, "The loop's cost"). Each command's wall time and
# kopt's own split (check.json phase_seconds, bench.json worker_phase_seconds, the close's
# time_spent) land under OUT. Steps (STEPS, default all):
#   first   a first `kopt check` + `kopt bench` of bench/realk/matvec, cold kopt cache
#   vadd    the default `kopt bench examples/vector_add`, the first after a `kopt check`, 3 runs
#   loop    `kopt init` + one iteration of 4 branches (`kopt optimize --iterations 1`), cold cache
#   sets    `kopt profile` of the kernel with each of ncu's sets full, detailed and basic: what
#           the set costs of a profile's time (profile.json phase_seconds)
#   KOPT=build-gpu/kopt bench/loop_cost.sh /tmp/out
set -uo pipefail
export PATH=$PATH:/usr/local/cuda/bin
kopt=$(realpath "${KOPT:-build/cli/kopt}")
out=$(realpath -m "$1"); mkdir -p "$out"
kernel=${KERNEL:-bench/realk/matvec}
steps=${STEPS:-first vadd loop}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# timed NAME CMD...: the command's wall time and exit code; its output under OUT/NAME.txt.
timed() {
  local name=$1; shift
  local s e rc
  s=$(date +%s.%N); "$@" > "$out/$name.txt" 2>&1; rc=$?; e=$(date +%s.%N)
  python3 -c "import sys; print(f'{sys.argv[1]}: {float(sys.argv[3]) - float(sys.argv[2]):.2f} s, exit {sys.argv[4]}')" "$name" "$s" "$e" "$rc"
}
phases() {  # the phase splits of a check.json or bench.json
  python3 - "$1" <<'PY'
import json, sys
try: d = json.load(open(sys.argv[1]))
except Exception as e: print("  (no json:", e, ")"); sys.exit()
def show(label, obj):
    if isinstance(obj, dict) and obj:
        print(f"  {label}: " + ", ".join(f"{k} {v:.2f}" for k, v in obj.items() if isinstance(v, (int, float))))
show("phase_seconds", d.get("phase_seconds"))
show("worker_phase_seconds", d.get("worker_phase_seconds"))
show("reference_seconds", d.get("reference_seconds"))
for c in d.get("checks", [])[:2]:
    show("check phase_seconds", c.get("phase_seconds")); show("check worker_phase_seconds", c.get("worker_phase_seconds"))
    show("check reference_seconds", c.get("reference_seconds"))
show("time", d.get("time"))
PY
}
for step in $steps; do
  case $step in
    first)
      export KOPT_CACHE_DIR=$out/cache_first; rm -rf "$KOPT_CACHE_DIR"
      timed first_check "$kopt" check "$kernel" --out "$out/first_check.json"; phases "$out/first_check.json"
      timed first_bench "$kopt" bench "$kernel" --out "$out/first_bench.json"; phases "$out/first_bench.json"
      grep -E "^time|faster|median" "$out/first_bench.txt" | head -5 ;;
    vadd)
      export KOPT_CACHE_DIR=$out/cache_vadd; rm -rf "$KOPT_CACHE_DIR"
      for run in 1 2 3; do
        "$kopt" check examples/vector_add > /dev/null 2>&1
        timed "vadd_bench_$run" "$kopt" bench examples/vector_add --out "$out/vadd_$run.json"
        grep -E "^time" "$out/vadd_bench_$run.txt"; phases "$out/vadd_$run.json"
      done ;;
    loop)
      export KOPT_CACHE_DIR=$out/cache_loop; rm -rf "$KOPT_CACHE_DIR"
      timed loop "timeout" "${LOOP_LIMIT:-300}" "$kopt" optimize "$kernel" --run "$out/run" --budget 1 --iterations 1 --branches 4
      grep -iE "time|went|init|iteration|champion|first verified" "$out/loop.txt" | head -30
      for f in "$out"/run/iter*/iteration.json; do
        [ -f "$f" ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[1].split('/run/')[1], json.dumps(d.get('time', {}))[:1500])" "$f"
      done
      for f in $(find "$out/run" -name profile.json | sort | head -3); do  # the profile's split
        echo "${f#"$out"/run/}: check_reused $(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('check_reused'))" "$f")"
        phases "$f"
      done
      tail -40 "$out/run/kopt.log" 2>/dev/null ;;
    sets)
      export KOPT_CACHE_DIR=$out/cache_sets; rm -rf "$KOPT_CACHE_DIR"
      "$kopt" check "$kernel" > /dev/null 2>&1  # its compile and the reference's cache, as in a loop
      for set in full detailed basic; do
        timed "profile_$set" "$kopt" profile "$kernel" --set "$set" --out "$out/profile_$set"
        phases "$out/profile_$set/profile.json"
      done ;;
  esac
done
