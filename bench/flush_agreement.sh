#!/usr/bin/env bash
# Cold L2: how kopt's flush changes a streaming kernel's time, against Nsight Compute
# (docs/measurement.md, "Cold L2"). From the repo root on a GPU machine, with build/:
#   bench/flush_agreement.sh OUT_DIR
# 1. bench/flush_modes.cu: vector add 2^26 timed with events after a write flush, a read
#    flush, no flush; the same binary under ncu (--clock-control none, default
#    --cache-control all) gives gpu__time_duration.sum of the same kernel;
# 2. kopt bench examples/vector_add with --l2-flush read and write, and kopt profile of it
#    (ncu, --clock-control none): kopt's median against ncu's duration.
set -uo pipefail
out=${1:?OUT_DIR}; mkdir -p "$out"
kopt=build/cli/kopt
export PATH="$PATH:/usr/local/cuda/bin"
nvcc -O3 -arch=sm_90 -o "$out/flush_modes" bench/flush_modes.cu
"$out/flush_modes" | tee "$out/flush_modes.txt"
ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base -k vector_add -s 50 -c 20 \
  "$out/flush_modes" > "$out/flush_modes_ncu.csv" 2> "$out/flush_modes_ncu.err"
python3 - "$out/flush_modes_ncu.csv" <<'PY'
import csv, statistics, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
h = rows[0]
v = [float(r[-1].replace(",", "")) for r in rows[1:] if r[h.index("Metric Name")] == "gpu__time_duration.sum"]
print(f"ncu gpu__time_duration.sum of vector_add (flush_modes.cu): median {statistics.median(v)/1e3:.2f} us over {len(v)} launches")
PY
for flush in read write; do
  $kopt bench examples/vector_add --case default --seeds 1 --no-reference --l2-flush $flush \
    --out "$out/bench_vector_add_$flush.json" > "$out/bench_vector_add_$flush.txt" 2>&1
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); v=d['variants'][0]; print(f\"kopt bench vector add, --l2-flush $flush: median {v['summary']['median']*1e6:.2f} us ({len(v['samples_seconds'])} samples)\")" \
    "$out/bench_vector_add_$flush.json" || tail -3 "$out/bench_vector_add_$flush.txt"
done
$kopt profile examples/vector_add --case default --seeds 1 --out "$out/profile_vector_add" > "$out/profile_vector_add.txt" 2>&1
grep -i "duration\|dram" "$out/profile_vector_add.txt" | head -5
