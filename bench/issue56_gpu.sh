#!/usr/bin/env bash
# bench/issue56_gpu.sh OUT: issue 56's GPU evidence in one bounded call (docs/integrity.md,
# "Streams"): the planted kernels and controls of both families with kopt's default options,
# what the stream watch saw in each (bench.json "streams"), the wall time of the default
# `kopt bench examples/vector_add` (the first after a check) and of a ~3 µs add under the kopt
# before the change ($KOPT_BEFORE, when given) and after, alternated; then A/A at ~2, ~7 and
# ~200 µs (tools/bench_aa.sh, AA_RUNS each).
#   KOPT=build-gpu/kopt KOPT_BEFORE=build-gpu/kopt_before AA_RUNS=10 bench/issue56_gpu.sh /tmp/out
set -uo pipefail
export PATH=$PATH:/usr/local/cuda/bin
kopt=$(realpath "${KOPT:-build/cli/kopt}")
before=${KOPT_BEFORE:+$(realpath "$KOPT_BEFORE")}
out=$(realpath -m "$1"); mkdir -p "$out"
P=tests/gpu/kernels
nvidia-smi -L
export KOPT_CACHE_DIR=$out/cache

# run NAME CMD...: the command's exit code, its FLAG/WARN/verdict lines, the watch's record.
run() {
  local name=$1; shift
  local start=$SECONDS
  "$@" --out "$out/$name.json" > "$out/$name.txt" 2>&1
  echo "== $name: exit $? in $((SECONDS - start)) s"
  grep -E "^(FLAG|WARN|OK|FAIL)|faster|slower|same speed|not distinguishably|batch of|timed unheld" "$out/$name.txt" | cut -c1-400 | head -12
  python3 - "$out/$name.json" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except Exception as e:
    print("  (no bench.json:", e, ")"); sys.exit()
for v in doc.get("variants", []):
    s = v.get("streams", {})
    print(f"  {v['label']}: probes {v.get('streams', {}).get('probes_judged')}; median {v['summary']['median']*1e6:.3f} us, {v['calls_per_sample']} calls/sample; "
          f"spread {s.get('median_batch_call_spread')}; outside {s.get('outside')}; unjoined {s.get('unjoined')}; "
          f"unlike {s.get('batch_calls_unlike', [])[:1]}; launches {s.get('unbatched_launches')}; unwatched '{s.get('unwatched')}'")
PY
}

echo "== planted and controls ($(date +%T))"
run honest_short_add "$kopt" bench $P/honest_short_add
run batch_ahead "$kopt" bench $P/cheat_batch_ahead
run batch_ahead_early_exit "$kopt" bench $P/cheat_batch_ahead_early_exit
run stash_side_stream "$kopt" bench $P/cheat_stash_side_stream
run side_stream "$kopt" bench $P/cheat_side_stream
run own_stream "$kopt" bench $P/honest_own_stream
run head_start "$kopt" compare $P/honest_add/kernel.cu $P/cheat_head_start/kernel.cu --spec $P/cheat_head_start/kopt.toml
run honest_add "$kopt" bench $P/honest_add --strict
if [ -n "$before" ]; then
  run before_batch_ahead "$before" bench $P/cheat_batch_ahead
  run before_head_start "$before" compare $P/honest_add/kernel.cu $P/cheat_head_start/kernel.cu --spec $P/cheat_head_start/kopt.toml
fi

echo "== wall time, before and after, alternated ($(date +%T))"
"$kopt" check examples/vector_add > /dev/null 2>&1
"$kopt" check $P/honest_short_add > /dev/null 2>&1
for round in 1 2 3; do
  for who in before after; do
    bin=$kopt; [ $who = before ] && bin=$before
    [ -n "$bin" ] || continue
    for target in examples/vector_add $P/honest_short_add; do
      s=$(date +%s.%N); "$bin" bench "$target" --out "$out/wall.json" > /dev/null 2>&1; rc=$?; e=$(date +%s.%N)
      python3 -c "import sys; print(f'wall $who $(basename $target) round $round: {float(sys.argv[2]) - float(sys.argv[1]):.2f} s exit $rc')" "$s" "$e"
    done
  done
done

echo "== A/A ($(date +%T))"
KOPT=$kopt OUT=$out/aa RUNS=${AA_RUNS:-10} timeout "${AA_LIMIT:-240}" tools/bench_aa.sh
