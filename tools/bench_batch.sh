#!/usr/bin/env bash
# Issue 17, where kopt's 7 us figure departs from Nsight Compute's: is it a cost paid once per
# sample (the event pair, the blocker's release, the flush's tail), shared by a batch's calls,
# or one paid by every call (the GPU's gap between back-to-back kernels)? At n = N (default
# the 7 us size) one `kopt bench` of bench/discrimination/base.cu per cap in CAPS
# (--max-calls-per-sample), RUNS runs each, then ncu's gpu__time_duration.sum of the same
# kernel (tools/ncu_fma_chain.cu, --clock-control none). Prints each cap's per-call median and
# a least-squares fit of t(n) = per_call + per_sample / n: a per-sample cost shows as
# per_sample > 0 and per_call near ncu's figure; a per-call cost as per_call above ncu's.
#
#   tools/bench_batch.sh             # from the repository root, on the GPU machine
# Env: KOPT, OUT, N (131072), CAPS ("1 2 4 8"), RUNS (3), LAUNCHES (20), NCU, NVCC.
# shellcheck source=tools/bench_common.sh
source "$(dirname "$0")/bench_common.sh"

NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NCU" ] || die "ncu (Nsight Compute) not found: put it on PATH or set NCU=/path/to/ncu"
[ -x "$NVCC" ] || die "nvcc not found: put it on PATH or set NVCC=/path/to/nvcc"
n=${N:-$N_7US}
"$NVCC" -O3 -arch=native tools/ncu_fma_chain.cu -o "$OUT/ncu_fma_chain" || die "nvcc could not build tools/ncu_fma_chain.cu"

results=()
for cap in ${CAPS:-1 2 4 8}; do
  for r in $(seq 1 "${RUNS:-3}"); do
    json="$OUT/batch_${cap}_$r.json"
    "$KOPT" bench "$DISCRIMINATION/base.cu" --spec "$DISCRIMINATION/kopt.toml" --dim "n=$n" --seeds 1 \
        --max-calls-per-sample "$cap" --out "$json" > "$OUT/batch_${cap}_$r.txt" 2>&1 \
        || die "kopt bench --max-calls-per-sample $cap failed: see $OUT/batch_${cap}_$r.txt"
    results+=("$json")
  done
done
"$NCU" --clock-control none --metrics gpu__time_duration.sum --csv --kernel-name fma_chain \
    "$OUT/ncu_fma_chain" "$n" "${LAUNCHES:-20}" > "$OUT/batch_ncu.csv" 2> "$OUT/batch_ncu.err" \
    || die "ncu failed: see $OUT/batch_ncu.err"

python3 - "$n" "$OUT/batch_ncu.csv" "${results[@]}" <<'PY'
import csv, json, statistics, sys
n, ncu_path, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
scale = {"nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3, "second": 1.0, "s": 1.0}
rows = csv.DictReader(line for line in open(ncu_path) if line.startswith('"'))
ncu = statistics.median(float(r["Metric Value"].replace(",", "")) * scale[r["Metric Unit"]] for r in rows
                        if r.get("Metric Name") == "gpu__time_duration.sum")
by_calls = {}
for path in paths:
    v = json.load(open(path))["variants"][0]
    by_calls.setdefault(v["calls_per_sample"], []).append(v["summary"]["median"])
xs, ys = [], []
for calls, medians in sorted(by_calls.items()):
    m = statistics.median(medians)
    xs.append(1 / calls); ys.append(m)
    print(f"n={n} calls per sample {calls}: per-call medians {', '.join(f'{x * 1e6:.3f}' for x in medians)} us "
          f"(median {m * 1e6:.3f}, {100 * (m - ncu) / ncu:+.2f} % from ncu)")
if len(xs) >= 2:
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    per_call = my - slope * mx
    print(f"fit t(n) = per_call + per_sample / n: per_call {per_call * 1e6:.3f} us ({100 * (per_call - ncu) / ncu:+.2f} % "
          f"from ncu), per_sample {slope * 1e6:.3f} us; ncu {ncu * 1e6:.3f} us (--clock-control none)")
PY
