#!/usr/bin/env bash
# The profiling figures of docs/profiling.md, on a GPU machine: measured peaks against the
# datasheet, kopt profile's duration against kopt bench's median at the same clock policy
# (ncu --clock-control none: the clocks a normal run sees), and vector add's place on the
# roofline against the measured DRAM bandwidth. Usage, from the repo root:
#   bench/measure_profiling.sh [OUT_DIR]
set -uo pipefail
out=${1:-${OUT:-/tmp/kopt-profiling}}
mkdir -p "$out"
kopt=build/cli/kopt
export PATH="$PATH:/usr/local/cuda/bin"
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# 1. Peaks, measured now (cached per device afterwards), beside the datasheet.
$kopt doctor --peaks --remeasure > "$out/peaks.txt" 2>&1; echo "doctor --peaks: exit $?"
sed -n '/^peaks/,$p' "$out/peaks.txt"

# 2. Duration agreement, naive SGEMM 4096^3: profile (ncu, clock control none) vs bench.
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

# 3. Vector add 2^26 on the roofline, against the measured peaks.
$kopt roofline examples/vector_add --seeds 1 --out "$out/vector_add_profile" > "$out/vector_add_roofline.txt" 2>&1
echo "kopt roofline vector_add: exit $?"; cat "$out/vector_add_roofline.txt"
$kopt roofline examples/sgemm_naive --seeds 1 --out "$out/sgemm_roofline" > "$out/sgemm_roofline.txt" 2>&1
echo "kopt roofline sgemm_naive: exit $?"; cat "$out/sgemm_roofline.txt"

# 4. Several kernels in one solve; the raw page kept as a fixture.
$kopt profile tests/gpu/kernels/two_kernels --seeds 1 --out "$out/two_kernels" > "$out/two_kernels.txt" 2>&1
echo "kopt profile two_kernels: exit $?"; cat "$out/two_kernels.txt"
