#!/usr/bin/env bash
# Issue 17, "A/A: at most 1 significant verdict in 20 runs, at 2 us, 7 us and 200 us each".
# `kopt compare base.cu base.cu` (bench/discrimination, the kernels of the GPU tests
# compare.a_a_2us/7us/200us) RUNS times at each size, with kopt's defaults; a verdict is
# significant when it says faster or slower. One summary line per size.
#
#   tools/bench_aa.sh                 # from the repository root, on the GPU machine
#   RUNS=10 SIZES="32768" tools/bench_aa.sh   # fewer runs, one size
# Env: KOPT (build/cli/kopt), OUT (/tmp/kopt-issue17: every run's line), RUNS (20),
# SIZES (the n of each size), MAX_TIME (--max-time per compare, 5 s).
# shellcheck source=tools/bench_common.sh
source "$(dirname "$0")/bench_common.sh"

RUNS=${RUNS:-20}
for n in ${SIZES:-$N_2US $N_7US $N_200US}; do
  lines="$OUT/aa_$n.txt"
  : > "$lines"
  started=$SECONDS
  for _ in $(seq 1 "$RUNS"); do
    compare_line "$DISCRIMINATION/base.cu" "$DISCRIMINATION/base.cu" "$n" --max-time "${MAX_TIME:-5}" >> "$lines"
  done
  significant=$(grep -cE '^(faster|slower) ' "$lines")
  echo "A/A n=$n ($(median_of "$lines" 5) us per call, $(median_of "$lines" 8) calls per sample):" \
       "$significant of $RUNS significant (aim <= 1); $(tally "$lines");" \
       "ratios $(median_of "$lines" 2) median; $((SECONDS - started)) s"
done
