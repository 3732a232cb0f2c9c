#!/usr/bin/env bash
# Issue 26's figures (docs/results.md): the staged screen's rate and cost split, and kopt's
# search against Kernel Tuner's on one space and one wall-clock budget. On the GPU machine,
# from the repository root, with a built tree in build/:
#
#   OUT=/some/folder tools/bench_tuner.sh
#
# 1. cuBLAS FP32 (TF32 off) SGEMM at 4096^3 through PyTorch, the point of comparison;
# 2. for each strategy in $STRATEGIES (default "auto"; empty: none): `kopt optimize examples/sgemm_tiled --branches $BRANCHES` (default 16)
#    from its slow defaults with a --budget of $BUDGET minutes (default 2.5), cut off at
#    $BUDGET minutes + $GRACE seconds (default 25) since the budget is checked only before
#    each iteration starts; each run has a cache folder of its own (no run reuses another's
#    compiles, checks or results);
# 3. for each strategy in $KT_STRATEGIES (default "random_sample simulated_annealing"; empty:
#    none): Kernel Tuner over the same [tune] space and restrictions, with that same cut-off as
#    its time_limit (tools/kernel_tuner_sgemm.py says how it times and checks); it needs the
#    kernel_tuner package (skipped, with a line, where it cannot be imported);
# 4. one line per run: the best median, TFLOP/s, % of cuBLAS, candidates per GPU-minute of
#    first look, and the cost split summed over its iterations (iteration.json time.stages);
#    and every run's best configuration timed again by the same judge, `kopt bench --case
#    default` (cold L2, the median with its interval), so the two tools' bests are compared on
#    one clock.
#
# Writes under $OUT: cublas.txt, summary.txt, per kopt strategy optimize_S.txt (stdout),
# optimize_S.err (stderr: kopt.log's lines, among them each iteration's cost line) and
# run_S.tgz (the run folder without Nsight reports or raw sample files); per Kernel Tuner
# strategy kernel_tuner_S.json and .txt; judge_NAME.json and .txt for each best re-timed.
# EXTRA adds options to every optimize: EXTRA="--simulate tests/fixtures/loop/sgemm_tiled_model.json"
# KT_STRATEGIES="" is a dry run of the script without a GPU. PACK=1 leaves summary.txt and one
# details.tgz of everything else (the device tool brings back at most 8 files).
# Takes at most (1 + the number of Kernel Tuner strategies) x (BUDGET minutes + GRACE s) plus
# ~20 s a best re-timed and ~20 s for cuBLAS: about 9.5 min with the defaults and BUDGET=2.3.
set -uo pipefail

KOPT=${KOPT:-build/cli/kopt}
OUT=${OUT:?set OUT to the output folder}
BUDGET=${BUDGET:-2.5}
BRANCHES=${BRANCHES:-16}   # kopt's --branches: the first look is cheap, the later steps are not (loop.md)
GRACE=${GRACE:-25}
STRATEGIES=${STRATEGIES-auto}   # empty: no kopt run (only Kernel Tuner)
KT_STRATEGIES=${KT_STRATEGIES-random_sample simulated_annealing}
EXTRA=${EXTRA:-}
KERNEL=examples/sgemm_tiled

die() { echo "$(basename "$0"): $*" >&2; exit 2; }
[ -f "$KERNEL/kopt.toml" ] || die "run from the repository root (no $KERNEL/kopt.toml here)"
[ -x "$KOPT" ] || die "kopt not found at $KOPT: build it (ninja -C build) or set KOPT=/path/to/kopt"
command -v python3 > /dev/null || die "python3 not found: it measures cuBLAS and reads kopt's JSON"
mkdir -p "$OUT" || die "cannot create $OUT"
export PATH="$PATH:/usr/local/cuda/bin"
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_tuner.XXXXXX") || die "no temporary folder"
trap 'rm -rf "$work"' EXIT

# 1. cuBLAS: torch.mm on fp32 with TF32 off, CUDA events, the median of 50 calls after 10 warm-up.
python3 - > "$OUT/cublas.txt" 2>&1 <<'PY'
import statistics
try:
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    n = 4096
    a = torch.randn(n, n, device="cuda", dtype=torch.float32)
    b = torch.randn(n, n, device="cuda", dtype=torch.float32)
    for _ in range(10):
        torch.mm(a, b)
    times = []
    for _ in range(50):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record(); torch.mm(a, b); end.record(); torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e-3)
    median = statistics.median(times)
    print(f"cublas_fp32_median_s {median:.9f}")
    print(f"cuBLAS FP32 (TF32 off, torch {torch.__version__}, {torch.cuda.get_device_name()}): "
          f"{median * 1e6:.1f} us = {2 * n**3 / median / 1e12:.2f} TFLOP/s at {n}^3")
except Exception as e:  # no torch, no GPU: the rest still runs, without the percentage
    print(f"cuBLAS not measured: {e!r}")
PY
cat "$OUT/cublas.txt"

limit=$(python3 -c "print(int($BUDGET * 60 + $GRACE))")

# A best configuration ("BM=64 BN=256 ...") timed by kopt bench on the timed case; one line.
judge() {
  local name=$1 defines=$2 flags=() define
  for define in $defines; do flags+=(-D "$define"); done
  "$KOPT" bench "$KERNEL" "${flags[@]}" --case default --seeds 1 --out "$OUT/judge_$name.json" > "$OUT/judge_$name.txt" 2>&1
  python3 - "$OUT/judge_$name.json" "$name" "$defines" "$OUT/cublas.txt" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
path, name, defines, cublas_file = sys.argv[1:]
cublas = next((float(l.split()[1]) for l in open(cublas_file) if l.startswith("cublas_fp32_median_s")), None)
try:
    variant = json.load(open(path))["variants"][0]
except (OSError, KeyError, IndexError, ValueError) as e:
    print(f"judge {name}: not timed ({e!r}): see judge_{name}.txt"); sys.exit(0)
s = variant["summary"]
lo, hi = s["median_ci"]["low"], s["median_ci"]["high"]
share = f", {cublas / s['median'] * 100:.1f} % of cuBLAS" if cublas else ""
print(f"judge {name} ({defines}): kopt bench median {s['median'] * 1e6:.1f} us [{lo * 1e6:.1f}, {hi * 1e6:.1f}]{share}")
PY
}

# 2. and 4.
for strategy in $STRATEGIES; do
  run="$work/run_$strategy"
  start=$(date +%s)
  timeout "$limit" "$KOPT" optimize "$KERNEL" --run "$run" --budget "$BUDGET" --iterations 40 --branches "$BRANCHES" \
      --strategy "$strategy" --cache-dir "$work/cache_$strategy" $EXTRA > "$OUT/optimize_$strategy.txt" 2> "$OUT/optimize_$strategy.err"
  status=$?
  wall=$(( $(date +%s) - start ))
  python3 - "$run" "$strategy" "$status" "$wall" "$OUT/cublas.txt" <<'PY' | tee -a "$OUT/summary.txt"
import glob, json, os, sys
run, strategy, status, wall, cublas_file = sys.argv[1:]
cublas = None
for line in open(cublas_file):
    if line.startswith("cublas_fp32_median_s"):
        cublas = float(line.split()[1])
try:
    state = json.load(open(os.path.join(run, "state.json")))
except OSError:
    print(f"{strategy}: no run (exit {status}, {wall} s): see optimize_{strategy}.err")
    sys.exit(0)
best = state["best_median_s"]
flops = 2 * 4096**3
stages, iterations = {}, 0
for path in sorted(glob.glob(os.path.join(run, "iter*", "iteration.json"))):
    iterations += 1
    for name, cost in json.load(open(path)).get("time", {}).get("stages", {}).items():
        total = stages.setdefault(name, {"wall_s": 0.0, "compile_s": 0.0, "device_s": 0.0, "candidates": 0})
        for key in total:
            total[key] += cost[key]
look = stages.get("first_look")
rate = f"{look['candidates'] * 60 / look['device_s']:.1f}" if look and look["device_s"] > 0 else "n/a"
split = "; ".join(f"{n} {c['candidates']} in {c['wall_s']:.1f} s (compile {c['compile_s']:.1f}, GPU {c['device_s']:.1f})"
                  for n, c in sorted(stages.items(), key=lambda s: ["first_look", "full_check", "finals", "ablation"].index(s[0])))
share = f"{cublas / best * 100:.1f} % of cuBLAS" if cublas else "cuBLAS not measured"
print(f"{strategy}: exit {status} after {wall} s, {iterations} iteration(s) closed, stop {state.get('stop_reason') or 'cut off'}; "
      f"baseline {state['baseline_median_s'] * 1e6:.1f} us, best {best * 1e6:.1f} us = {flops / best / 1e12:.2f} TFLOP/s = "
      f"{share} ({state['best'].get('defines', {})}); first look: {rate} candidates per GPU-minute; cost: {split}")
PY
  tar czf "$OUT/run_$strategy.tgz" -C "$work" --exclude='*.ncu-rep' --exclude='*samples*.bin' "run_$strategy" 2> /dev/null
  rm -rf "$work/cache_$strategy"
  best=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["best"].get("defines", {}); print(" ".join(f"{k}={v}" for k, v in d.items()))' \
         "$run/state.json" 2> /dev/null)
  [ -n "$best" ] && judge "kopt_$strategy" "$best"
done

# 3. and 4.
for strategy in $KT_STRATEGIES; do
  if ! python3 -c 'import kernel_tuner' 2> /dev/null; then
    echo "kernel_tuner $strategy: not run: the kernel_tuner package cannot be imported here" | tee -a "$OUT/summary.txt"
    continue
  fi
  timeout $((limit + 60)) python3 tools/kernel_tuner_sgemm.py --strategy "$strategy" --time-limit "$limit" --out "$OUT" \
      > "$OUT/kernel_tuner_$strategy.txt" 2>&1
  tail -1 "$OUT/kernel_tuner_$strategy.txt" | tee -a "$OUT/summary.txt"
  best=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["best"] or {}; print(" ".join(f"{k}={v}" for k, v in d.items()))' \
         "$OUT/kernel_tuner_$strategy.json" 2> /dev/null)
  [ -n "$best" ] && judge "kernel_tuner_$strategy" "$best"
done

# PACK=1: everything but summary.txt in one details.tgz, for a caller that brings back few files
# (the device tool returns at most 8).
if [ "${PACK:-0}" = 1 ]; then
  (cd "$OUT" && find . -maxdepth 1 -type f ! -name summary.txt ! -name details.tgz -printf '%f\n' |
     tar czf details.tgz -T - && find . -maxdepth 1 -type f ! -name summary.txt ! -name details.tgz -delete)
fi
