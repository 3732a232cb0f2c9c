#!/usr/bin/env bash
# Issue 17, "Agreement with Nsight Compute (--clock-control none) within 2 % at 7 us and
# 200 us; 5-run repeatability of medians <= 0.5 %". At each size: 5 separate `kopt bench` runs
# of bench/discrimination/base.cu (defaults, --seeds 1), whose medians give the
# repeatability, (max - min) / median, and kopt's figure, the median of the 5; then Nsight
# Compute's gpu__time_duration.sum of the same kernel in a standalone program
# (tools/ncu_fma_chain.cu, LAUNCHES launches, median), with --clock-control none and its
# default cache flush before each kernel. One line per figure, and a third line with one run of
# one call per sample (--max-calls-per-sample 1) beside them: a batch's per-call time holds the
# GPU's gap between back-to-back kernels, which ncu's per-kernel duration does not, and one
# call's holds the events' own latency instead.
#
#   tools/bench_ncu.sh                # from the repository root, on the GPU machine
# Env: KOPT, OUT, SIZES ("131072 4194304"), REPEATS (5), LAUNCHES (20), NCU (ncu on PATH, or
# /usr/local/cuda/bin/ncu), NVCC (likewise).
# shellcheck source=tools/bench_common.sh
source "$(dirname "$0")/bench_common.sh"

find_tool() {  # name env_value
  if [ -n "$2" ]; then echo "$2"; return; fi
  command -v "$1" 2> /dev/null || { [ -x "/usr/local/cuda/bin/$1" ] && echo "/usr/local/cuda/bin/$1"; }
}
NCU=$(find_tool ncu "${NCU:-}")
NVCC=$(find_tool nvcc "${NVCC:-}")
if [ -z "$NCU" ] || [ ! -x "$NCU" ]; then die "ncu (Nsight Compute) not found: put it on PATH or set NCU=/path/to/ncu"; fi
if [ -z "$NVCC" ] || [ ! -x "$NVCC" ]; then die "nvcc not found: put it on PATH or set NVCC=/path/to/nvcc"; fi
"$NVCC" -O3 -arch=native tools/ncu_fma_chain.cu -o "$OUT/ncu_fma_chain" || die "nvcc could not build tools/ncu_fma_chain.cu"

for n in ${SIZES:-$N_7US $N_200US}; do
  started=$SECONDS
  medians=()
  for i in $(seq 1 "${REPEATS:-5}"); do
    "$KOPT" bench "$DISCRIMINATION/base.cu" --spec "$DISCRIMINATION/kopt.toml" --dim "n=$n" --seeds 1 \
        --out "$OUT/repeat_${n}_$i.json" > "$OUT/repeat_${n}_$i.txt" 2>&1 || die "kopt bench failed: see $OUT/repeat_${n}_$i.txt"
    medians+=("$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["variants"][0]["summary"]["median"])' \
                 "$OUT/repeat_${n}_$i.json")")
  done
  "$KOPT" bench "$DISCRIMINATION/base.cu" --spec "$DISCRIMINATION/kopt.toml" --dim "n=$n" --seeds 1 \
      --max-calls-per-sample 1 --out "$OUT/single_${n}.json" > "$OUT/single_${n}.txt" 2>&1 \
      || die "kopt bench --max-calls-per-sample 1 failed: see $OUT/single_${n}.txt"
  "$NCU" --clock-control none --metrics gpu__time_duration.sum --csv --kernel-name fma_chain \
      "$OUT/ncu_fma_chain" "$n" "${LAUNCHES:-20}" > "$OUT/ncu_$n.csv" 2> "$OUT/ncu_$n.err" \
      || die "ncu failed: see $OUT/ncu_$n.err"
  python3 - "$n" "$OUT/ncu_$n.csv" "$((SECONDS - started))" "$OUT/single_${n}.json" "$OUT/repeat_${n}_1.json" \
      "${medians[@]}" <<'PY'
import csv, json, statistics, sys
n, path, seconds, single_path, first_path = sys.argv[1:6]
medians = [float(m) for m in sys.argv[6:]]
scale = {"nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3, "second": 1.0, "s": 1.0}
rows = csv.DictReader(line for line in open(path) if line.startswith('"'))
ncu = [float(r["Metric Value"].replace(",", "")) * scale[r["Metric Unit"]] for r in rows
       if r.get("Metric Name") == "gpu__time_duration.sum"]
if not ncu:
    sys.exit(f"ncu n={n}: no gpu__time_duration.sum in {path}")
kopt, ncu_median = statistics.median(medians), statistics.median(ncu)
spread = (max(medians) - min(medians)) / kopt
print(f"repeatability n={n}: kopt medians {', '.join(f'{m * 1e6:.3f}' for m in medians)} us; "
      f"spread (max-min)/median {100 * spread:.3f} % (aim <= 0.5 %)")
print(f"agreement n={n}: kopt {kopt * 1e6:.3f} us (median of {len(medians)} runs), ncu {ncu_median * 1e6:.3f} us "
      f"(median of {len(ncu)} launches, --clock-control none), difference {100 * (kopt - ncu_median) / ncu_median:+.2f} % "
      f"(aim within 2 %); {seconds} s")
single = json.load(open(single_path))["variants"][0]["summary"]["median"]
calls = json.load(open(first_path))["variants"][0]["calls_per_sample"]
print(f"one call per sample n={n}: kopt {single * 1e6:.3f} us ({100 * (single - ncu_median) / ncu_median:+.2f} % from ncu); "
      f"the runs above took {calls} calls per sample")
PY
done
