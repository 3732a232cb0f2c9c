#!/usr/bin/env bash
# The profiling figures of docs/profiling.md, on a GPU machine: measured peaks against the
# datasheet, kopt profile's duration against kopt bench's median at the same clock policy
# (ncu --clock-control none: the clocks a normal run sees), and vector add's place on the
# roofline against the measured DRAM bandwidth, naive and as kopt optimize leaves it. Usage,
# from the repo root:
#   [SECTIONS="peaks agreement roofline kernels tuned_vector_add"] bench/measure_profiling.sh [OUT_DIR]
set -uo pipefail
out=${1:-${OUT:-/tmp/kopt-profiling}}
mkdir -p "$out"
kopt=build/cli/kopt
export PATH="$PATH:/usr/local/cuda/bin"
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
sections=${SECTIONS:-peaks agreement roofline kernels tuned_vector_add}
wants() { [[ " $sections " == *" $1 "* ]]; }

# 1. Peaks, measured now (cached per device afterwards), beside the datasheet.
if wants peaks; then
$kopt doctor --peaks --remeasure > "$out/peaks.txt" 2>&1; echo "doctor --peaks: exit $?"
sed -n '/^peaks/,$p' "$out/peaks.txt"
fi

# 2. Duration agreement, naive SGEMM 4096^3: profile (ncu, clock control none) vs bench.
if wants agreement; then
$kopt profile examples/sgemm_naive --seeds 1 --clock-control none --out "$out/sgemm_profile" > "$out/sgemm_profile.txt" 2>&1
echo "kopt profile sgemm_naive: exit $?"; cat "$out/sgemm_profile.txt"
$kopt bench examples/sgemm_naive --case default --seeds 1 --no-reference --out "$out/sgemm_bench.json" > "$out/sgemm_bench.txt" 2>&1
python3 - "$out/sgemm_profile/profile.json" "$out/sgemm_bench.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
ncu = p["whole"]["duration_s"]; kopt = b["variants"][0]["summary"]["median"]
names = [k["name"].split("(")[0] for k in p["kernels"]]
print(f"profile vs bench, sgemm 4096^3, clock control none: kernels {names}; ncu {ncu*1e3:.3f} ms, "
      f"bench median {kopt*1e3:.3f} ms, difference {100*(ncu-kopt)/kopt:+.2f} %")
PY
fi

# 3. Vector add 2^26 (the naive kernel: every switch at its default) on the roofline, against
#    the measured peaks.
if wants roofline; then
$kopt roofline examples/vector_add --seeds 1 --clock-control none --out "$out/vector_add_profile" > "$out/vector_add_roofline.txt" 2>&1
echo "kopt roofline vector_add: exit $?"; cat "$out/vector_add_roofline.txt"
$kopt roofline examples/sgemm_naive --seeds 1 --out "$out/sgemm_roofline" > "$out/sgemm_roofline.txt" 2>&1
echo "kopt roofline sgemm_naive: exit $?"; cat "$out/sgemm_roofline.txt"
fi

# 4. Several kernels in one solve; the raw page kept as a fixture.
if wants kernels; then
$kopt profile tests/gpu/kernels/two_kernels --seeds 1 --out "$out/two_kernels" > "$out/two_kernels.txt" 2>&1
echo "kopt profile two_kernels: exit $?"; cat "$out/two_kernels.txt"
fi

# 5. Vector add as kopt optimize leaves it (the plan's methods switched on, the parameters
#    tuned), placed on the same roofline: what the naive kernel's gap was made of.
if wants tuned_vector_add; then
timeout ${OPTIMIZE_LIMIT:-300} $kopt optimize examples/vector_add --run "$out/run_vector_add" --budget 4 \
  --iterations 3 --branches 8 --seeds 1 > "$out/optimize_vector_add.txt" 2> "$out/optimize_vector_add.err"
echo "kopt optimize vector_add: exit $?"; cat "$out/optimize_vector_add.txt"; tail -25 "$out/run_vector_add/kopt.log"
defines=$(json_get "$out/run_vector_add/state.json" "' '.join(f'-D {k}={v}' for k, v in d['best']['defines'].items())")
echo "champion: $defines"
# shellcheck disable=SC2086  # one -D NAME=VALUE pair per word
$kopt roofline examples/vector_add $defines --seeds 1 --clock-control none --out "$out/vector_add_tuned_profile" \
  > "$out/vector_add_tuned_roofline.txt" 2>&1
echo "kopt roofline vector_add (champion): exit $?"; cat "$out/vector_add_tuned_roofline.txt"
for profile in vector_add_profile vector_add_tuned_profile; do
  [ -f "$out/$profile/profile.json" ] || continue
  python3 - "$out/$profile" <<'PY'
import json, sys
p = json.load(open(sys.argv[1] + "/profile.json")); r = json.load(open(sys.argv[1] + "/roofline.json"))
c = p["whole"]["concepts"]; value = lambda k: c[k]["value"]
achieved, peak = r["achieved"]["bytes_per_second"], r["peaks"]["bytes_per_second"]  # not the clamped utilization
print(f"{sys.argv[1].rsplit('/', 1)[1]}: {value('dram_bytes')/1e6:.1f} MB in {p['whole']['duration_s']*1e6:.2f} us = "
      f"{achieved/1e12:.3f} TB/s = {100*achieved/peak:.1f} % of "
      f"{peak/1e12:.3f} TB/s ({r['peaks']['bytes_source']}); bound {r['bound']}; "
      f"occupancy {value('achieved_occupancy'):.2f}, long scoreboard {value('stall_long_scoreboard'):.2f}, "
      f"registers {value('registers_per_thread'):.0f}, waves {value('waves_per_sm'):.1f}")
PY
done
fi
