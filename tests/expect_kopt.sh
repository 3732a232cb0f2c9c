#!/usr/bin/env bash
# Runs one kopt command and checks what a user would see: the exit code, and that the
# output says the right thing. Used by the CLI tests (no GPU) and the GPU tests.
#
#   expect_kopt.sh KOPT [--gpu | --no-gpu] [--exit N] [--match REGEX]... [--one-line-error] -- ARGS...
#
#   --gpu             skip (exit 77) unless `kopt doctor` finds a usable GPU and nvcc
#   --no-gpu          skip (exit 77) when it does (tests of what happens without one)
#   --exit N          the exit code kopt must return
#   --match REGEX     stdout+stderr must match this extended regex (repeatable)
#   --one-line-error  stderr must be exactly one line, starting with "kopt: "
#   --needs TOOL      skip (exit 77) unless kopt doctor finds TOOL (one of the CUDA tools it lists)
#   ARGS              the command; the word @KOPT@ in it is replaced by the kopt binary
set -u
kopt=$1
shift
want_exit=0 gpu="" one_line=0 needs=""
matches=()
while [ $# -gt 0 ]; do
  case $1 in
    --gpu) gpu=need ;;
    --no-gpu) gpu=absent ;;
    --exit) want_exit=$2; shift ;;
    --match) matches+=("$2"); shift ;;
    --one-line-error) one_line=1 ;;
    --needs) needs=$2; shift ;;
    --) shift; break ;;
    *) echo "expect_kopt.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

if [ -n "$gpu" ]; then
  "$kopt" doctor --no-ncu >/dev/null 2>&1
  has_gpu=$?
  if [ "$gpu" = need ] && [ $has_gpu -ne 0 ]; then echo "SKIPPED: no usable GPU and nvcc here (kopt doctor)"; exit 77; fi
  if [ "$gpu" = absent ] && [ $has_gpu -eq 0 ]; then echo "SKIPPED: this machine has a GPU"; exit 77; fi
fi

# Asked of kopt itself: it also looks where ./setup installs the tools the toolkit lacks.
if [ -n "$needs" ] && ! "$kopt" doctor --no-ncu 2>/dev/null | grep -qE "^$needs +ok "; then
  echo "SKIPPED: kopt doctor does not find $needs (./setup installs it)"; exit 77
fi

args=()
for arg in "$@"; do args+=("${arg//@KOPT@/$kopt}"); done
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"${args[@]}" >"$out" 2>"$err"
got_exit=$?
echo "\$ ${args[*]}"
cat "$out"
cat "$err" >&2

status=0
if [ "$got_exit" -ne "$want_exit" ]; then echo "FAILED: exit code $got_exit, expected $want_exit"; status=1; fi
for regex in "${matches[@]+"${matches[@]}"}"; do
  if ! cat "$out" "$err" | grep -Eq -- "$regex"; then echo "FAILED: output does not match /$regex/"; status=1; fi
done
if [ $one_line -eq 1 ]; then
  lines=$(grep -c . "$err")
  if [ "$lines" -ne 1 ] || ! head -n1 "$err" | grep -q '^kopt: '; then
    echo "FAILED: stderr should be one line starting with 'kopt: ', got $lines lines"; status=1
  fi
fi
exit $status
