#!/usr/bin/env bash
# Issue 23: kopt's own host work before a .py reference runs, on a machine without a GPU (the
# check fills and writes the reference's inputs before it asks for a device). Runs `kopt check`
# of the matvec fixture at 4096 x 4096 under strace, RUNS times, and prints the gap from the
# first worker's start to Python's start: kopt alone, filling 64 MiB per secret seed.
#   tools/host_fill_gap.sh              # from the repository root; KOPT (build/cli/kopt), RUNS (5)
set -euo pipefail
kopt=${KOPT:-$PWD/build/cli/kopt}
command -v strace > /dev/null || { echo "host_fill_gap.sh: strace is not installed" >&2; exit 3; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r tests/fixtures/loop/matvec "$work/matvec"
rm -f "$work/matvec/model.json"
for _ in $(seq 1 "${RUNS:-5}"); do
  strace -f -tt -e trace=execve -o "$work/trace" "$kopt" check "$work/matvec" --dim M=4096 --dim N=4096 > /dev/null 2>&1 || true
  python3 - "$work/trace" <<'PY'
import sys
def at(line):
    h, m, s = line.split()[1].split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)
lines = [l for l in open(sys.argv[1]) if "execve(" in l and "= 0" in l]
worker = next((l for l in lines if '"worker"' in l), None)
python = next((l for l in lines if "python" in l.split("execve(")[1].split(",")[0]), None)
if not worker or not python:
    sys.exit("host_fill_gap.sh: no worker or no Python start in the trace")
print(f"gap {at(python) - at(worker):.3f} s (first worker's start to Python's)")
PY
done
