#!/usr/bin/env bash
# interrupt.sh KOPT REPO: kopt stopped from outside while a child runs (here a stand-in nvcc
# that never finishes, named by KOPT_NVCC; no GPU needed).
#   SIGTERM, SIGINT, SIGHUP: kopt exits 143, 130, 129 with one line naming the signal; the
#     child and the process it started (its process group) are gone; the compile's
#     temporary folder in the cache is removed.
#   SIGKILL (no cleanup can run): the child dies with kopt (PR_SET_PDEATHSIG).
set -u
kopt=$(realpath "$1") repo=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export KOPT_CACHE_DIR="$work/cache"

# The stand-in: answers --version; otherwise records its pid, starts a grandchild that would
# outlive it, and waits forever.
cat >"$work/nvcc" <<EOF
#!/bin/sh
case "\$1" in --version) echo "Cuda compilation tools, release 13.0, V13.0.88"; exit 0 ;; esac
sleep 300 &
echo \$! >"$work/grandchild.pid"
echo \$\$ >"$work/child.pid"
wait
EOF
chmod +x "$work/nvcc"
# For SIGKILL: the child is the long process itself (exec), the one PR_SET_PDEATHSIG covers.
cat >"$work/nvcc_exec" <<EOF
#!/bin/sh
case "\$1" in --version) echo "Cuda compilation tools, release 13.0, V13.0.88"; exit 0 ;; esac
echo \$\$ >"$work/child.pid"
exec sleep 300
EOF
chmod +x "$work/nvcc_exec"

failed=0
fail() { echo "FAIL: $*"; failed=1; }

alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }

# Starts kopt check on the good kernel with the stand-in `nvcc`, waits until the child runs.
start_kopt() {
  rm -f "$work/child.pid" "$work/grandchild.pid"
  KOPT_NVCC="$work/$1" "$kopt" check "$repo/tests/gpu/kernels/good" --arch sm_90 >"$work/out" 2>"$work/err" &
  kopt_pid=$!
  for _ in $(seq 1 200); do
    [ -s "$work/child.pid" ] && break
    sleep 0.05
  done
  [ -s "$work/child.pid" ] || { fail "the stand-in nvcc never started"; cat "$work/err"; return 1; }
  sleep 0.2
}

for pair in TERM:143 INT:130 HUP:129; do
  signal=${pair%%:*} want=${pair##*:}
  start_kopt nvcc || continue
  child=$(cat "$work/child.pid") grandchild=$(cat "$work/grandchild.pid")
  kill -s "$signal" "$kopt_pid"
  wait "$kopt_pid"
  got=$?
  sleep 0.2
  [ "$got" -eq "$want" ] || fail "SIG$signal: exit $got, expected $want"
  [ "$(grep -c . "$work/err")" -eq 1 ] && grep -q "^kopt: interrupted by SIG$signal; ended 1 child process group$" "$work/err" ||
    { fail "SIG$signal: stderr is not the one line"; cat "$work/err"; }
  alive "$child" && fail "SIG$signal: the child ($child) survived"
  alive "$grandchild" && fail "SIG$signal: the child's own child ($grandchild) survived"
  leftovers=$(find "$work/cache" -name 'compile.*' 2>/dev/null)
  [ -z "$leftovers" ] || fail "SIG$signal: temporary folders left: $leftovers"
  [ $failed -eq 0 ] && echo "ok   SIG$signal: exit $got, child and grandchild ended, no temporaries"
done

start_kopt nvcc_exec && {
  child=$(cat "$work/child.pid")
  kill -KILL "$kopt_pid"
  wait "$kopt_pid" 2>/dev/null
  for _ in $(seq 1 40); do alive "$child" || break; sleep 0.05; done
  if alive "$child"; then fail "SIGKILL: the child ($child) outlived kopt"; kill -KILL "$child"; else echo "ok   SIGKILL: the child died with kopt"; fi
}

exit $failed
