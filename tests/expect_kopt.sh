#!/usr/bin/env bash
# Runs one kopt command and checks what a user would see: the exit code, and that the
# output says the right thing. Used by the CLI tests (no GPU) and the GPU tests.
#
#   expect_kopt.sh KOPT [--gpu | --no-gpu] [--exit N] [--match REGEX]... [--one-line-error] -- ARGS...
#
#   --gpu             skip (exit 77) where the machine has no GPU (nvidia-smi -L lists none and
#                     /dev/nvidia0 is absent); FAIL where it has one but `kopt doctor --no-ncu`
#                     does not pass: a broken probe must not turn the GPU suite into skips
#   --no-gpu          skip (exit 77) where the machine has a GPU or kopt doctor finds one
#                     (tests of what happens without one)
#   --fresh PATH      remove PATH before the command, so that what later tests read there
#                     is this run's output, never an earlier run's (repeatable)
#   --exit N          the exit code kopt must return (N,M,...: any one of them)
#   --match REGEX     stdout+stderr must match this extended regex (repeatable)
#   --no-match REGEX  stdout+stderr must not match this extended regex (repeatable)
#   --one-line-error  stderr must be exactly one line, starting with "kopt: "
#   --needs TOOL      skip (exit 77) unless kopt doctor finds TOOL (one of the CUDA tools it lists)
#   --gpus N          skip (exit 77) unless nvidia-smi -L lists at least N GPUs (tests of a host
#                     with several; use with --gpu)
#   ARGS              the command; the word @KOPT@ in it is replaced by the kopt binary
set -u
kopt=$1
shift
want_exit=0 gpu="" one_line=0 needs="" gpus=0
matches=() absent=() fresh=()
while [ $# -gt 0 ]; do
  case $1 in
    --gpu) gpu=need ;;
    --no-gpu) gpu=absent ;;
    --exit) want_exit=$2; shift ;;
    --match) matches+=("$2"); shift ;;
    --no-match) absent+=("$2"); shift ;;
    --one-line-error) one_line=1 ;;
    --needs) needs=$2; shift ;;
    --gpus) gpus=$2; shift ;;
    --fresh) fresh+=("$2"); shift ;;
    --) shift; break ;;
    *) echo "expect_kopt.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

# Whether the machine has an NVIDIA GPU, asked of the driver, not of kopt.
machine_has_gpu() {
  { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; } || [ -e /dev/nvidia0 ]
}

if [ -n "$gpu" ]; then
  doctor_out=$("$kopt" doctor --no-ncu 2>&1)
  doctor_rc=$?
  if [ "$gpu" = need ] && [ $doctor_rc -ne 0 ]; then
    if machine_has_gpu; then
      echo "$doctor_out"
      echo "FAILED: this machine has a GPU but kopt doctor --no-ncu exits $doctor_rc"
      exit 1
    fi
    echo "SKIPPED: no GPU here (nvidia-smi -L lists none, no /dev/nvidia0)"; exit 77
  fi
  if [ "$gpu" = absent ] && { [ $doctor_rc -eq 0 ] || machine_has_gpu; }; then
    echo "SKIPPED: this machine has a GPU"; exit 77
  fi
fi

if [ "$gpus" -gt 1 ]; then
  listed=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
  if [ "$listed" -lt "$gpus" ]; then echo "SKIPPED: needs $gpus GPUs, nvidia-smi -L lists $listed"; exit 77; fi
fi

# Asked of kopt itself: it also looks where ./setup installs the tools the toolkit lacks.
if [ -n "$needs" ] && ! "$kopt" doctor --no-ncu 2>/dev/null | grep -qE "^$needs +ok "; then
  echo "SKIPPED: kopt doctor does not find $needs (./setup installs it)"; exit 77
fi

for path in "${fresh[@]+"${fresh[@]}"}"; do rm -rf -- "$path"; done

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
if [[ ",$want_exit," != *",$got_exit,"* ]]; then echo "FAILED: exit code $got_exit, expected $want_exit"; status=1; fi
for regex in "${matches[@]+"${matches[@]}"}"; do
  if ! cat "$out" "$err" | grep -Eq -- "$regex"; then echo "FAILED: output does not match /$regex/"; status=1; fi
done
for regex in "${absent[@]+"${absent[@]}"}"; do
  if cat "$out" "$err" | grep -Eq -- "$regex"; then echo "FAILED: output matches /$regex/"; status=1; fi
done
if [ $one_line -eq 1 ]; then
  lines=$(grep -c . "$err")
  if [ "$lines" -ne 1 ] || ! head -n1 "$err" | grep -q '^kopt: '; then
    echo "FAILED: stderr should be one line starting with 'kopt: ', got $lines lines"; status=1
  fi
fi
exit $status
