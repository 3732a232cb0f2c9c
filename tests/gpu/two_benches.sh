#!/usr/bin/env bash
# Two kopt processes started on one GPU at once (docs/measurement.md, "One GPU, one kopt"):
# both benches pass, and one of them waited for the other's lock of the GPU, naming it.
#   two_benches.sh KOPT KERNEL OUT_DIR
set -u
kopt=$1 kernel=$2 out=$3
mkdir -p "$out"
export KOPT_LOCK_DIR="$out/locks"
rm -rf "$KOPT_LOCK_DIR"
# The first samples for at least 4 s of GPU time; the second starts 1 s later, so it reaches
# its timing while the first still holds the GPU.
"$kopt" bench "$kernel" --no-reference --min-time 4 --max-time 8 --out "$out/first.json" > "$out/first.txt" 2>&1 &
first=$!
sleep 1
"$kopt" bench "$kernel" --no-reference --out "$out/second.json" > "$out/second.txt" 2>&1 &
second=$!
wait $first; first_rc=$?
wait $second; second_rc=$?
cat "$out/first.txt" "$out/second.txt"
[ "$first_rc" = 0 ] && [ "$second_rc" = 0 ] || { echo "a bench failed: exits $first_rc, $second_rc"; exit 1; }
grep -q "kopt: waiting for gpu-.*: held by pid $first: .*kopt bench" "$out/second.txt" ||
  { echo "the second bench did not wait for the first's lock of the GPU"; exit 1; }
echo "SERIALISED: the second bench waited for the first's lock of the GPU"
