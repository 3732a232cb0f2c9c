#!/usr/bin/env bash
# Issue 19's GPU evidence: kopt optimize with the built-in search on eight community-style
# kernels that declare nothing (bench/realk/*), and the imported-problem checks.
#
#   OUT=/some/folder tools/bench_realk.sh        # from the repository root, build/ built
#
# Per kernel: `kopt optimize bench/realk/NAME --iterations 1 --branches $BRANCHES --seeds 1
# --budget $BUDGET_MIN`. --budget is the search's (counted after init's baseline measurement
# and profile, ~30 s per kernel on the H200), and one iteration always runs: every kernel gets
# a real search of $BRANCHES configurations, each proposed only if it can launch (kopt
# tune-space lists the restrictions). Each kernel is cut at $PER_KERNEL_S seconds, and no
# kernel starts or runs past $TOTAL_S seconds of the call (the device's 9-minute window): a
# kernel the call had no time for is reported as not run.
# Defaults: 4 branches, 0.1 min, 100 s per kernel, 510 s in all. On the H200 (2026-12-02) a
# kernel took 66-139 s to its end (init ~30 s, one iteration of 4 branches with its finals,
# champion profile, ablation and final audit), so the eight take two calls with 200 s each:
#   KERNELS="vector_add matmul_naive reduction_sum softmax" PER_KERNEL_S=200 TOTAL_S=520 OUT=A tools/bench_realk.sh
#   KERNELS="layernorm conv1d histogram transpose" CHECKS=0 PER_KERNEL_S=200 TOTAL_S=520 PREVIOUS_ROWS=A/realk_rows.tsv OUT=B tools/bench_realk.sh
# (497 s and 362 s there; the second's table and geomean cover all eight).
# With CHECKS=1 (default), then
#   - a LeetGPU challenge imported, with an unmodified community solution: kopt check
#   - a Tensara def.py imported, with an unmodified community solution: kopt check
#   - the seed task folder: kopt check tests/fixtures/seed_task/gemm --M=512 --N=512 --K=256
# Writes $OUT/realk_results.md (per kernel: baseline, champion, speedup or kopt's reason, with
# the bandwidth reached; the geomean; the checks' verdicts), $OUT/realk_rows.tsv (the rows, for
# PREVIOUS_ROWS) and $OUT/realk_logs.tar.gz (every command's log and run folder). Exit 0 when
# every step ran (a kernel kopt could not speed up is a result, not a failure); 1 when a check failed.
set -uo pipefail

KOPT=${KOPT:-build/cli/kopt}
OUT=${OUT:-/tmp/kopt-realk}
BRANCHES=${BRANCHES:-4}
BUDGET_MIN=${BUDGET_MIN:-0.1}
PER_KERNEL_S=${PER_KERNEL_S:-100}
TOTAL_S=${TOTAL_S:-510}
CHECKS=${CHECKS:-1}
PREVIOUS_ROWS=${PREVIOUS_ROWS:-}
KERNELS=${KERNELS:-"vector_add matmul_naive reduction_sum softmax layernorm conv1d histogram transpose"}

die() { echo "$(basename "$0"): $*" >&2; exit 2; }
[ -d bench/realk ] || die "run from the repository root (no bench/realk here)"
[ -z "$PREVIOUS_ROWS" ] || [ -f "$PREVIOUS_ROWS" ] || die "PREVIOUS_ROWS=$PREVIOUS_ROWS: no such file"
[ -x "$KOPT" ] || die "kopt not found at $KOPT: build it (ninja -C build) or set KOPT=/path/to/kopt"
command -v python3 > /dev/null || die "python3 not found: it reads kopt's JSON"
WORK="$OUT/realk"
rm -rf "$WORK" && mkdir -p "$WORK/logs" "$WORK/runs" "$WORK/imported" || die "cannot create $WORK"
RESULTS="$OUT/realk_results.md"
ROWS="$WORK/rows.tsv"
: > "$ROWS"
CALL_STARTED=$(date +%s)

# row NAME: one line of the table from the run's summary.json, else kopt's own last word.
row() {
  local name=$1 rc=$2 seconds=$3
  python3 - "$WORK/runs/$name" "$WORK/logs/$name.log" "$name" "$rc" "$seconds" <<'PY' >> "$ROWS"
import glob, json, os, sys
run, log, name, rc, seconds = sys.argv[1:]
def last_line():
    lines = [l.strip() for l in open(log, errors="replace") if l.strip()] if os.path.exists(log) else []
    kopt = [l for l in lines if l.startswith("kopt: ")]
    return (kopt or lines or ["(no output)"])[-1].replace("|", "/")[:200]
summary = os.path.join(run, "summary.json")
if not os.path.exists(summary):
    why = "cut at %s s before its summary" % seconds if rc in ("124", "137") else last_line()
    print("\t".join([name, "-", "-", "-", why, seconds]))
    sys.exit()
s = json.load(open(summary))
base, best = s["baseline_median_s"] * 1e6, s["best_median_s"] * 1e6
speedup = s.get("speedup_vs_baseline") or base / best
why = "champion %s: %s" % (s["best"]["label"], " ".join("%s=%s" % kv for kv in s["best"]["defines"].items())) \
    if s.get("best_iteration") else "no branch significantly faster (stop: %s)" % s.get("stop_reason")
audit = s.get("audit") or {}
if s.get("best_iteration") and audit.get("verdict"):
    # The final audit's verdict over every case, beside the perf case's speedup.
    why += "; final audit over %d case(s): %s" % (len(audit.get("cases", [])), audit["verdict"])
work = s.get("work") or {}
if work.get("bytes"):
    why += "; %.2f TB/s at best" % (work["bytes"] / s["best_median_s"] / 1e12)
failed = []
for screen in glob.glob(os.path.join(run, "iter*", "screen.json")):
    for o in json.load(open(screen)).get("outcomes", []):
        if not o.get("passed"):
            failed.append("%s: %s" % (o.get("label"), str(o.get("failure"))[:80]))
if failed:
    why += "; %d branch(es) dropped, e.g. %s" % (len(failed), failed[0].replace("|", "/"))
print("\t".join([name, "%.2f" % base, "%.2f" % best, "%.3f" % speedup, why, seconds]))
PY
}

for name in $KERNELS; do
  started=$(date +%s)
  left=$(( TOTAL_S - (started - CALL_STARTED) ))
  cut=$(( left < PER_KERNEL_S ? left : PER_KERNEL_S ))
  if [ "$cut" -lt 45 ]; then  # less than init and a look: nothing would be searched
    printf '%s\t-\t-\t-\tnot run: the call had %s s of its TOTAL_S=%s left\t0\n' "$name" "$left" "$TOTAL_S" >> "$ROWS"
    echo "$name: not run ($left s left)" >&2
    continue
  fi
  timeout --kill-after=10 "$cut" "$KOPT" optimize "bench/realk/$name" --run "$WORK/runs/$name" \
      --iterations 1 --branches "$BRANCHES" --seeds 1 --budget "$BUDGET_MIN" > "$WORK/logs/$name.log" 2>&1
  rc=$?
  row "$name" "$rc" "$(( $(date +%s) - started ))"
  echo "$name: exit $rc, $(( $(date +%s) - started )) s" >&2
done
cp "$ROWS" "$OUT/realk_rows.tsv"

# The checks: each command's verdict line and exit code.
checks=()
check() {
  local label=$1 log="$WORK/logs/check_$1.log"
  shift
  "$@" > "$log" 2>&1
  local rc=$?
  local verdict
  verdict=$(grep -E '^(PASS|FAIL)' "$log" | tail -1)
  [ -n "$verdict" ] || verdict=$(grep -v '^ *$' "$log" | tail -1)
  checks+=("| $label | \`${*//$WORK/\$OUT\/realk}\` | $rc | ${verdict//|//} |")
  return $rc
}
status=0
if [ "$CHECKS" = 1 ]; then
  "$KOPT" import tests/fixtures/import/leetgpu_saxpy/challenge.py --out "$WORK/imported/leetgpu_saxpy" \
      > "$WORK/logs/import_leetgpu.log" 2>&1 || status=1
  cp tests/fixtures/import/leetgpu_saxpy/solution.cu "$WORK/imported/leetgpu_saxpy/" 2>/dev/null
  check leetgpu_saxpy "$KOPT" check "$WORK/imported/leetgpu_saxpy" || status=1
  "$KOPT" import tests/fixtures/import/tensara_leaky_relu/def.py --out "$WORK/imported/tensara_leaky_relu" \
      > "$WORK/logs/import_tensara.log" 2>&1 || status=1
  cp tests/fixtures/import/tensara_leaky_relu/solution.cu "$WORK/imported/tensara_leaky_relu/" 2>/dev/null
  check tensara_leaky_relu "$KOPT" check "$WORK/imported/tensara_leaky_relu" || status=1
  check seed_task_gemm "$KOPT" check tests/fixtures/seed_task/gemm --M=512 --N=512 --K=256 || status=1
fi

python3 - "$ROWS" "$PREVIOUS_ROWS" "$RESULTS" "$BRANCHES" "$BUDGET_MIN" "$PER_KERNEL_S" "$("$KOPT" --version 2>/dev/null | head -1)" \
    "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" <<'PY'
import math, sys
rows_file, previous_rows, results, branches, budget, cut, version, gpu = sys.argv[1:]
files = [previous for previous in [previous_rows] if previous] + [rows_file]
rows = [l.rstrip("\n").split("\t") for f in files for l in open(f) if l.strip()]
lines = ["# kopt optimize on eight unannotated community-style kernels (bench/realk)", "",
         "%s on %s; per kernel `kopt optimize bench/realk/NAME --iterations 1 --branches %s --seeds 1 "
         "--budget %s` (the search's, after init), cut at %s s (tools/bench_realk.sh)." % (version or "kopt", gpu or "?", branches, budget, cut), "",
         "| kernel | baseline µs | best µs | speedup | kopt says | s |", "| --- | --- | --- | --- | --- | --- |"]
speedups = []
for name, base, best, speedup, why, seconds in rows:
    lines.append("| %s | %s | %s | %s | %s | %s |" % (name, base, best, speedup, why, seconds))
    if speedup != "-":
        speedups.append(float(speedup))
geomean = math.exp(sum(map(math.log, speedups)) / len(speedups)) if speedups else float("nan")
lines += ["", "Geomean speedup over the %d kernels with a summary: **%.3f×** (a kernel kopt kept at its "
          "baseline counts as 1.000×)." % (len(speedups), geomean), ""]
open(results, "w").write("\n".join(lines))
PY
[ "$CHECKS" = 1 ] && {
  echo "## Imported problems and the seed task folder: kopt check"
  echo
  echo "| what | command | exit | verdict |"
  echo "| --- | --- | --- | --- |"
  printf '%s\n' "${checks[@]}"
} >> "$RESULTS"
tar -czf "$OUT/realk_logs.tar.gz" -C "$OUT" realk && rm -rf "$WORK"
cat "$RESULTS"
exit $status
