#!/usr/bin/env bash
# Measures kopt's own measurement on a GPU machine: agreement with Nsight Compute,
# repeatability, cost, and discrimination (docs/measurement.md). Usage, from the repo root:
#   bench/measure_kopt.sh [OUT_DIR] [--agreement-only]   (the latter: vector add agreement alone)
#   SECTIONS="agreement repeat cost discrimination" bench/measure_kopt.sh OUT_DIR   (a subset)
#   SECTIONS="defaults sizes" bench/measure_kopt.sh OUT_DIR   (issue 17: wall time with the
#   defaults; A/A and 2 % verdicts at ~2, ~7 and ~200 us, SIZES="n ..." and SIZE_RUNS=20)
# Needs build/cli/kopt, ncu and python3. Prints one table row per figure at the end.
set -uo pipefail
out=${1:-${OUT:-/tmp/kopt-measure}}
[ "$out" = "--agreement-only" ] && out=${OUT:-/tmp/kopt-measure}
mkdir -p "$out"
kopt=build/cli/kopt
export PATH="$PATH:/usr/local/cuda/bin"

# 1. Agreement with ncu's gpu__time_duration.sum, same clocks (--clock-control none), cold
#    caches on both sides (ncu's default --cache-control all flushes before each launch).
#    `kopt profile` runs ncu on exactly the kernels of one solve call and reports that metric
#    as profile.json's whole.duration_s. (Running ncu around `kopt check` instead relies on
#    ncu following kopt's worker process, which it did not on the GPU machine of 2026-11-29:
#    "No kernels were profiled".)
agreement() {  # name folder case
  local name=$1 dir=$2 case=$3
  $kopt bench "$dir" --case "$case" --seeds 1 --no-reference --out "$out/agree_$name.json" > "$out/agree_$name.txt" 2>&1
  $kopt profile "$dir" --case "$case" --seeds 1 --clock-control none --out "$out/agree_${name}_profile" \
      > "$out/agree_${name}_profile.txt" 2>&1
  python3 - "$out/agree_$name.json" "$out/agree_${name}_profile/profile.json" "$name" <<'PY'
import json, sys
kopt = [v for v in json.load(open(sys.argv[1]))["variants"] if not v["label"].startswith("reference")][0]["summary"]["median"]
ncu = json.load(open(sys.argv[2]))["whole"]["duration_s"]
print(f"agreement {sys.argv[3]}: kopt median {kopt*1e6:.2f} us, ncu {ncu*1e6:.2f} us, difference {100*(kopt-ncu)/ncu:+.2f} %")
PY
}
sections=${SECTIONS:-agreement repeat cost discrimination}
wants() { [[ " $sections " == *" $1 "* ]]; }
if wants agreement; then
agreement vector_add_2p26 examples/vector_add default
[ "${1:-}" = "--agreement-only" ] || [ "${2:-}" = "--agreement-only" ] && exit 0
agreement sgemm_4096 examples/sgemm_naive default
fi

# 2. Repeatability: 5 separate kopt bench runs of a kernel of 100 us or more.
repeat() {  # name folder case
  for i in 1 2 3 4 5; do
    $kopt bench "$2" --case "$3" --seeds 1 --no-reference --out "$out/repeat_$1_$i.json" > /dev/null 2>&1
  done
  python3 - "$out" "$1" <<'PY'
import json, sys
m = [json.load(open(f"{sys.argv[1]}/repeat_{sys.argv[2]}_{i}.json"))["variants"][0]["summary"]["median"] for i in range(1, 6)]
print(f"repeatability {sys.argv[2]}: medians {', '.join(f'{x*1e6:.2f}' for x in m)} us; spread (max-min)/median {100*(max(m)-min(m))/sorted(m)[2]:.3f} %")
PY
}
if wants repeat; then
repeat sgemm_4096 examples/sgemm_naive default
repeat vector_add_2p26 examples/vector_add default
fi

# 3. Cost: wall time of kopt bench on a ~100 us kernel, compile and check cached.
if wants cost; then
$kopt bench examples/vector_add --dim N=33554432 --case default --seeds 1 --no-reference --out "$out/cost_warmup.json" > /dev/null 2>&1
for i in 1 2 3; do
  python3 - "$kopt" "$out/cost.json" <<'PY'
import json, subprocess, sys, time
start = time.time()
subprocess.run([sys.argv[1], "bench", "examples/vector_add", "--dim", "N=33554432", "--case", "default", "--seeds", "1",
                "--no-reference", "--out", sys.argv[2]], capture_output=True, check=True)
wall = time.time() - start
median = json.load(open(sys.argv[2]))["variants"][0]["summary"]["median"]
print(f"cost: kopt bench of a {median*1e6:.1f} us kernel, compile and check cached: {wall:.2f} s wall")
PY
done
fi

# 3b. Issue 17: wall time of kopt bench with its defaults (perf case, reference included),
#     compile and check cached; the first run fills the caches and is not counted.
if wants defaults; then
for target in examples/vector_add "examples/vector_add --dim N=2097152"; do
  $kopt bench $target --out "$out/defaults_warmup.json" > /dev/null 2>&1
  for i in 1 2 3; do
    python3 - "$kopt" "$out/defaults.json" $target <<'PY'
import json, subprocess, sys, time
start = time.time()
subprocess.run([sys.argv[1], "bench", *sys.argv[3:], "--out", sys.argv[2]], capture_output=True, check=True)
wall = time.time() - start
report = json.load(open(sys.argv[2]))
rows = ", ".join(f"{v['label']} {v['summary']['median']*1e6:.2f} us ({v['summary']['count']} samples, {v['stop_reason']})"
                 for v in report["variants"])
print(f"defaults: kopt bench {' '.join(sys.argv[3:])}: {wall:.2f} s wall; tick {report.get('event_tick_seconds', 0)*1e9:.1f} ns; {rows}")
PY
  done
done
fi

# 3c. Issue 17: verdicts at three kernel lengths, 20 runs each: A/A (at most 1 faster or
#     slower) and a real 2 % difference (at least 19 of 20 "faster" for base.cu).
if wants sizes; then
for n in ${SIZES:-32768 131072 4194304}; do
  for pair in "base.cu base.cu aa" "slower_2pct.cu base.cu ab"; do
    set -- $pair
    for i in $(seq 1 ${SIZE_RUNS:-20}); do
      $kopt compare bench/discrimination/$1 bench/discrimination/$2 --spec bench/discrimination/kopt.toml \
          --dim n=$n --seeds 1 --json --out "$out/size_${3}_$n.json" 2>/dev/null | python3 -c "
import json, sys
r = json.load(sys.stdin); v = r['verdicts'][0]; m = r['variants'][0]
print(v['verdict'], '%.4f [%.4f, %.4f]' % (v['time_ratio'], v['time_ratio_ci']['low'], v['time_ratio_ci']['high']),
      '%.2f us' % (m['summary']['median'] * 1e6), m['summary']['count'], m['stop_reason'])"
    done > "$out/size_${3}_$n.txt"
    echo "sizes n=$n $3: $(cut -d' ' -f1 "$out/size_${3}_$n.txt" | sort | uniq -c | tr '\n' ' ')(median $(head -1 "$out/size_${3}_$n.txt" | cut -d' ' -f5-6))"
  done
done
fi

# 4. Discrimination: a real 2 % difference, 20 times; A against A, 20 times.
wants discrimination || exit 0
for i in $(seq 1 20); do
  $kopt compare bench/discrimination/slower_2pct.cu bench/discrimination/base.cu --spec bench/discrimination/kopt.toml \
      --seeds 1 --json --out /tmp/ab.json 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['verdicts'][0]['verdict'])"
done > "$out/discrimination_ab.txt"
for i in $(seq 1 ${AA_RUNS:-20}); do
  $kopt compare bench/discrimination/base.cu bench/discrimination/base.cu --spec bench/discrimination/kopt.toml \
      --seeds 1 --json --out /tmp/aa.json 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['verdicts'][0]['verdict'])"
done > "$out/discrimination_aa.txt"
echo "discrimination 2 %: slower_2pct then base, verdicts for base (faster expected): $(sort "$out/discrimination_ab.txt" | uniq -c | tr '\n' ' ')"
echo "discrimination A/A: verdicts: $(sort "$out/discrimination_aa.txt" | uniq -c | tr '\n' ' ')"
