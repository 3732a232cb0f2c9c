#!/usr/bin/env bash
# Measures kopt's own measurement on a GPU machine: agreement with Nsight Compute,
# repeatability, cost, and discrimination (docs/measurement.md). Usage, from the repo root:
#   bench/measure_kopt.sh [OUT_DIR]
# Needs build/cli/kopt, ncu and python3. Prints one table row per figure at the end.
set -uo pipefail
out=${1:-${OUT:-/tmp/kopt-measure}}
mkdir -p "$out"
kopt=build/cli/kopt
export PATH="$PATH:/usr/local/cuda/bin"
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
median_of() { json_get "$1" "[v for v in d['variants'] if not v['label'].startswith('reference')][0]['summary']['median']"; }

# 1. Agreement with ncu's gpu__time_duration.sum, same clocks (--clock-control none), cold
#    caches on both sides (ncu's default --cache-control all flushes before each launch).
agreement() {  # name folder kernel-regex case
  local name=$1 dir=$2 kernel=$3 case=$4
  $kopt bench "$dir" --case "$case" --no-reference --out "$out/agree_$name.json" > "$out/agree_$name.txt" 2>&1
  local kopt_median; kopt_median=$(median_of "$out/agree_$name.json")
  ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base -k "regex:$kernel" -c 5 \
      --target-processes all $kopt check "$dir" --case "$case" --seeds 3 --out /tmp/ncu_check.json \
      > "$out/agree_${name}_ncu.csv" 2> "$out/agree_${name}_ncu.err"
  local ncu_median
  ncu_median=$(python3 - "$out/agree_${name}_ncu.csv" <<'PY'
import csv, statistics, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
header = rows[0]
values = [float(r[-1]) * 1e-9 for r in rows[1:] if r[header.index("Metric Name")] == "gpu__time_duration.sum"]
print(statistics.median(values))
PY
)
  python3 -c "k=$kopt_median; n=$ncu_median; print(f'agreement {\"$name\"}: kopt median {k*1e6:.2f} us, ncu median {n*1e6:.2f} us, difference {100*(k-n)/n:+.2f} %')"
}
agreement sgemm_4096 examples/sgemm_naive sgemm_naive_kernel default
agreement vector_add_2p26 examples/vector_add vector_add_kernel default

# 2. Repeatability: 5 separate kopt bench runs of a kernel of 100 us or more.
for i in 1 2 3 4 5; do
  $kopt bench examples/vector_add --case default --no-reference --out "$out/repeat_$i.json" > /dev/null 2>&1
done
python3 - "$out" <<'PY'
import json, sys
m = [[v for v in json.load(open(f"{sys.argv[1]}/repeat_{i}.json"))["variants"]][0]["summary"]["median"] for i in range(1, 6)]
print(f"repeatability vector_add 2^26: medians {', '.join(f'{x*1e6:.2f}' for x in m)} us; spread (max-min)/median {100*(max(m)-min(m))/sorted(m)[2]:.3f} %")
PY

# 3. Cost: wall time of kopt bench on a ~100 us kernel, compile and check cached.
$kopt bench examples/vector_add --dim N=33554432 --case default --no-reference --out "$out/cost_warmup.json" > /dev/null 2>&1
start=$(date +%s.%N)
$kopt bench examples/vector_add --dim N=33554432 --case default --no-reference --out "$out/cost.json" > "$out/cost.txt" 2>&1
end=$(date +%s.%N)
echo "cost: kopt bench (vector_add N=2^25, median $(python3 -c "print(round($(median_of "$out/cost.json")*1e6,1))") us) took $(python3 -c "print(round($end-$start,2))") s wall"

# 4. Discrimination: a real 2 % difference, 20 times; A against A, 20 times.
for i in $(seq 1 20); do
  $kopt compare bench/discrimination/slower_2pct.cu bench/discrimination/base.cu --spec bench/discrimination/kopt.toml \
      --json --out /tmp/ab.json 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['verdicts'][0]['verdict'])"
done > "$out/discrimination_ab.txt"
for i in $(seq 1 20); do
  $kopt compare bench/discrimination/base.cu bench/discrimination/base.cu --spec bench/discrimination/kopt.toml \
      --json --out /tmp/aa.json 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['verdicts'][0]['verdict'])"
done > "$out/discrimination_aa.txt"
echo "discrimination 2 %: slower_2pct then base, verdicts for base (faster expected): $(sort "$out/discrimination_ab.txt" | uniq -c | tr '\n' ' ')"
echo "discrimination A/A: verdicts: $(sort "$out/discrimination_aa.txt" | uniq -c | tr '\n' ' ')"
