#!/usr/bin/env bash
# first_hour.sh KOPT REPO: what a new user meets in the first hour without a GPU (issue 60),
# on the simulated lab:
#   - the README's simulated SGEMM run never shows a figure above the roofline it draws: every
#     median's FLOP/s and bytes/s (the spec's work over it) and every iteration's roofline.json
#     stay under the ceilings, and the gaps move as the kernel gets faster; report.html says
#     Simulated before its first chart;
#   - a resumed run is not silently continued with another kernel or other settings;
#   - `kopt status` on a simulated run prints a next step that works (with --simulate), and
#     init's Write list names experiment.json, which close requires;
#   - --dim with --simulate is refused (a model answers for the spec's own dims).
set -u
kopt=$1 repo=$2
model=$repo/tests/fixtures/loop/sgemm_tiled_model.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# expect CODE REGEX -- COMMAND...: the exit code, and REGEX in its output.
expect() {
  local code=$1 pattern=$2
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  [ "$rc" -eq "$code" ] || { fail "$* exited $rc, not $code: $(echo "$out" | tail -2)"; return; }
  echo "$out" | grep -qE -- "$pattern" || fail "$*: no '$pattern' in: $(echo "$out" | tail -3)"
}

echo "== the simulated run stays under its roofline"
run=$work/sgemm
"$kopt" optimize "$repo/examples/sgemm_tiled" --simulate "$model" --run "$run" > "$work/optimize.out" 2>&1 \
  || fail "optimize --simulate exited $?: $(tail -3 "$work/optimize.out")"
python3 - "$run" <<'PY' || failed=1
import json, pathlib, sys
run = pathlib.Path(sys.argv[1])
s = json.loads((run / "summary.json").read_text())
peaks = s["baseline_roofline"]["peaks"]
work = s["work"]
medians = [s["baseline_median_s"], s["best_median_s"]]
medians += [it["champion_median_s"] for it in s["iterations"] if isinstance(it.get("champion_median_s"), (int, float))]
medians += [f["median_s"] for f in s["frontier"]]
bad = [m for m in medians
       if work["flops"] / m > peaks["flop_per_second"] * 1.005 or work["bytes"] / m > peaks["bytes_per_second"] * 1.005]
if bad:
    print(f"FAIL: {len(bad)} medians above the roofline, the fastest at {work['flops'] / min(bad) / 1e12:.1f} TFLOP/s "
          f"against a {peaks['flop_per_second'] / 1e12:.1f} TFLOP/s ceiling")
    sys.exit(1)
rooflines = sorted(run.glob("iter*/roofline.json"))
gaps = set()
for f in rooflines:
    r = json.loads(f.read_text())
    for rate in ("flop_per_second", "bytes_per_second"):
        if r["achieved"][rate] > r["peaks"][rate] * 1.005:
            print(f"FAIL: {f}: achieved {rate} above its ceiling"); sys.exit(1)
    gaps.add(json.dumps(r["gaps"], sort_keys=True))
if len(rooflines) > 1 and len(gaps) < 2:
    print(f"FAIL: every iteration's roofline.json has the same gaps: {gaps}"); sys.exit(1)
PY
"$kopt" report "$run" > /dev/null 2>&1 || fail "kopt report exited $?"
python3 - "$run/report.html" <<'PY' || failed=1
import sys
page = open(sys.argv[1], encoding="utf-8").read()
first_chart, said = page.find("<svg"), page.find("Simulated")
if said < 0 or (first_chart >= 0 and said > first_chart):
    print("FAIL: report.html does not say Simulated before its first chart"); sys.exit(1)
PY

echo "== a resumed run keeps what it was started with, or refuses"
expect 2 "holds a run of .*sgemm_tiled.*, not of .*sgemm_naive" -- "$kopt" optimize "$repo/examples/sgemm_naive" --run "$run" --simulate "$model" --iterations 1
expect 2 "--iterations 1: the run was started with --iterations 10" -- "$kopt" optimize "$repo/examples/sgemm_tiled" --run "$run" --simulate "$model" --iterations 1
expect 2 "--branches 2: the run was started with --branches 8" -- "$kopt" optimize --run "$run" --simulate "$model" --branches 2
expect 0 "Simulated" -- "$kopt" optimize "$repo/examples/sgemm_tiled" --run "$run" --simulate "$model" --iterations 10

echo "== the next steps printed work"
driven=$work/driven
expect 0 "iter1/branches/b1/experiment.json" -- "$kopt" init "$repo/examples/sgemm_tiled" --simulate "$model" --run "$driven" --branches 2
expect 0 "Then: kopt close .*driven --simulate .*sgemm_tiled_model.json" -- "$kopt" status "$driven"
next=$("$kopt" status "$driven" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["next"]["command"])')
case $next in *"--simulate "*"--json"*|*"--json"*"--simulate "*) ;; *) fail "status --json's next command lacks --simulate or --json: $next" ;; esac

echo "== a model answers for the spec's own dims"
expect 2 "--dim M=2000000000 with --simulate" -- "$kopt" optimize "$repo/examples/sgemm_tiled" --simulate "$model" --run "$work/dims" --dim M=2000000000
[ -e "$work/dims" ] && fail "the refused run left a folder"

[ "$failed" -eq 0 ] && echo "ok"
exit "$failed"
