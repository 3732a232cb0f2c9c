# shellcheck shell=bash
# Sourced by tools/bench_*.sh (issue 17's figures for docs/measurement.md): finds kopt and
# python3, makes the output folder, and runs one `kopt compare` printing one line per run.
# Not a script of its own.
set -uo pipefail

KOPT=${KOPT:-build/cli/kopt}
OUT=${OUT:-/tmp/kopt-issue17}
DISCRIMINATION=bench/discrimination
# n of bench/discrimination/base.cu for kernels of about 2, 7 and 200 us on the H200 (used by
# the scripts that source this file).
# shellcheck disable=SC2034
N_2US=32768 N_7US=131072 N_200US=4194304

die() { echo "$(basename "$0"): $*" >&2; exit 2; }

[ -f "$DISCRIMINATION/kopt.toml" ] || die "run from the repository root (no $DISCRIMINATION/kopt.toml here)"
[ -x "$KOPT" ] || die "kopt not found at $KOPT: build it (ninja -C build) or set KOPT=/path/to/kopt"
command -v python3 > /dev/null || die "python3 not found: it reads kopt's JSON"
mkdir -p "$OUT" || die "cannot create $OUT"

# compare_line A.cu B.cu N [kopt options...]: one `kopt compare` of A and B at n = N; prints
# "verdict ratio low high median_us samples stop_reason calls_per_sample" (the verdict is B's
# against A), or "error" when kopt gave no verdict.
compare_line() {
  local a=$1 b=$2 n=$3
  shift 3
  "$KOPT" compare "$a" "$b" --spec "$DISCRIMINATION/kopt.toml" --dim "n=$n" --seeds 1 --json "$@" \
      --out "$OUT/compare_last.json" 2> "$OUT/compare_last.err" | python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)
    v, m = r["verdicts"][0], r["variants"][0]
    print(v["verdict"], "%.5f %.5f %.5f" % (v["time_ratio"], v["time_ratio_ci"]["low"], v["time_ratio_ci"]["high"]),
          "%.3f" % (m["summary"]["median"] * 1e6), m["summary"]["count"], m["stop_reason"], m["calls_per_sample"])
except Exception as e:
    print("error", repr(e).replace(" ", "_"))
'
}

# tally FILE: "faster 0, slower 0, same 19, ambiguous 1, error 0" from compare_line's lines.
tally() {
  local file=$1 out="" word
  for word in faster slower same ambiguous error; do
    out+="$word $(grep -c "^$word " "$file"), "
  done
  echo "${out%, }"
}

# median_of FILE COLUMN: the median of a numeric column of compare_line's lines (errors skipped).
median_of() {
  grep -v '^error' "$1" | awk -v c="$2" '{print $c}' | sort -g | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]; else print "nan"}'
}
