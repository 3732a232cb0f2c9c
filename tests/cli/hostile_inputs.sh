#!/usr/bin/env bash
# hostile_inputs.sh KOPT REPO: kopt against what a careless or hostile user hands it — shell
# metacharacters in every argument that reaches nvcc, devices, FIFOs, symlink loops, huge
# files, NaN and infinity in numeric options and keys, malformed run files, outputs that are
# not regular files. Each case asserts the exit code, that standard error is one line
# "kopt: ..." matching a pattern, that it ends within 30 s (a FIFO must not hang it), and
# that nothing was executed: a marker file that every injected command would create stays
# absent. No GPU needed: kopt refuses all of these before any kernel runs.
#
# nvcc itself re-expands its arguments through a shell; so that the injection cases prove
# something on a machine without nvcc too, KOPT_NVCC names a stand-in that does the same
# (it evaluates its arguments with sh): an argument kopt let through would create the marker.
set -u
kopt=$(realpath "$1") repo=$(realpath "$2")
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
mark="$work/EXECUTED"
good="$repo/tests/gpu/kernels/good"
tiled="$repo/examples/sgemm_tiled"
lab="$repo/tests/fixtures/loop/sgemm_tiled_model.json"
export KOPT_CACHE_DIR="$work/cache"
cd "$work" || exit 1

# The stand-in nvcc: answers --version, and otherwise hands all its arguments to a shell, as
# nvcc does with those it passes to its sub-commands.
cat >"$work/nvcc" <<'EOF'
#!/bin/sh
case "$1" in --version) echo "Cuda compilation tools, release 13.0, V13.0.88"; exit 0 ;; esac
eval "echo $*" >/dev/null 2>&1
# Writes an empty output, so that kopt goes on to its next compile (the kernel's, after the
# runtime shim's) as it would after a real one.
out=""
for arg in "$@"; do [ "$out" = next ] && out=$arg; [ "$arg" = -o ] && out=next; done
[ -n "$out" ] && [ "$out" != next ] && : >"$out"
exit 0
EOF
chmod +x "$work/nvcc"
export KOPT_NVCC="$work/nvcc"

passed=0 failed=0
# expect EXIT REGEX -- COMMAND...
expect() {
  local want=$1 regex=$2
  shift 3
  rm -f "$mark"
  timeout 30 "$@" >"$work/out" 2>"$work/err"
  local got=$? problems=""
  [ "$got" -eq "$want" ] || problems+=" exit $got (expected $want);"
  [ "$(grep -c . "$work/err")" -eq 1 ] && head -n1 "$work/err" | grep -q '^kopt: ' ||
    problems+=" stderr is not one line starting with 'kopt: ';"
  grep -Eq -- "$regex" "$work/err" || problems+=" stderr does not match /$regex/;"
  [ -e "$mark" ] && problems+=" A COMMAND WAS EXECUTED (the marker file exists);"
  if [ -z "$problems" ]; then
    passed=$((passed + 1))
    echo "ok   $*"
  else
    failed=$((failed + 1))
    echo "FAIL $*:$problems"
    sed 's/^/     | /' "$work/err" | head -n 5
  fi
}

# A copy of the good kernel whose kopt.toml gets one more line (a [build] or [tune] table).
spec_with() {
  local dir
  dir=$(mktemp -d "$work/spec.XXXXXX")
  cp "$good/kernel.cu" "$dir/"
  sed "s|\.\./vector_add_ref.cu|$repo/tests/gpu/kernels/vector_add_ref.cu|" "$good/kopt.toml" >"$dir/kopt.toml"
  printf '%s\n' "$@" >>"$dir/kopt.toml"
  echo "$dir"
}

echo "== injection: -D, --arch, [build] flags, [tune] values"
metachars=('$(touch EXECUTED)' '`touch EXECUTED`' ';touch EXECUTED' '|touch EXECUTED' '&touch EXECUTED'
           $'\ntouch EXECUTED' '"$(touch EXECUTED)"' "'\$(touch EXECUTED)'" '\$(touch EXECUTED)'
           '>EXECUTED' '<EXECUTED' ' -o EXECUTED' '$IFS' '*' '{a,b}')
for m in "${metachars[@]}"; do
  expect 2 "refuses shell metacharacters" -- "$kopt" check "$good" --arch sm_90 -D "X=1$m"
done
expect 2 "define name \"X;touch EXECUTED\" is not a C identifier" -- "$kopt" check "$good" --arch sm_90 -D 'X;touch EXECUTED=1'
expect 2 "define name .* is not a C identifier" -- "$kopt" check "$good" --arch sm_90 -D '$(touch EXECUTED)'
expect 2 "define name \"1X\" is not a C identifier" -- "$kopt" check "$good" --arch sm_90 -D '1X=2'
expect 2 "--arch: unknown target architecture" -- "$kopt" check "$good" --arch 'sm_90;touch EXECUTED'
expect 2 "--arch: unknown target architecture" -- "$kopt" check "$good" --arch 'sm_90$(touch EXECUTED)'
expect 2 "--arch: unknown target architecture" -- "$kopt" check "$good" --arch 'sm_90 -ccbin=/bin/sh'
for flag in '"-O2;touch EXECUTED;true"' '"$(touch EXECUTED)"' '"`touch EXECUTED`"' '"-O2|touch EXECUTED"' \
            '"-O2&&touch EXECUTED"' '"-O2\ntouch EXECUTED"'; do
  expect 2 "\\[build\\] flags: flag .* which nvcc's shell would interpret" -- \
    "$kopt" check "$(spec_with '[build]' "flags = [\"-Xcompiler\", $flag]")" --arch sm_90
done
expect 2 "uses -ccbin" -- "$kopt" check "$(spec_with '[build]' 'flags = ["-ccbin=/tmp"]')" --arch sm_90
expect 2 "uses -fplugin" -- "$kopt" check "$(spec_with '[build]' 'flags = ["-Xcompiler", "-fPIC,-fplugin=/tmp/x.so"]')" --arch sm_90
expect 2 "uses -o" -- "$kopt" check "$(spec_with '[build]' 'flags = ["-o", "/tmp/elsewhere.so"]')" --arch sm_90
expect 2 "\\[tune\\]: the value of BM" -- "$kopt" check "$(spec_with '[tune]' 'BM = ["16", "$(touch EXECUTED)"]')" --arch sm_90
expect 2 "\\[build\\] arch" -- "$kopt" check "$(spec_with '[build]' 'arch = "sm_90;touch EXECUTED"')"

echo "== injection through a branch's variant.json (the loop, simulated lab)"
"$kopt" init "$tiled" --run "$work/run" --simulate "$lab" >/dev/null 2>&1 || { echo "FAIL: kopt init on the simulated lab"; exit 1; }
echo '{"methods": []}' >"$work/run/iter1/methods.json"
branch_defines() {
  rm -rf "$work/run/iter1/branches"
  mkdir -p "$work/run/iter1/branches/b1"
  printf '%s\n' "$1" >"$work/run/iter1/branches/b1/variant.json"
  echo '{"hypothesis": "smaller tiles fill more SMs", "expected_gain_percent": [5, 20], "cost": "less reuse per load"}' >"$work/run/iter1/branches/b1/experiment.json"
}
for defines in '{"defines": {"BM; touch EXECUTED": "64"}}' '{"defines": {"BM": "$(touch EXECUTED)"}}' \
               '{"defines": {"BM": "`touch EXECUTED`"}}' '{"defines": {"BM": "64\ntouch EXECUTED"}}' \
               '{"defines": {"BM": "64|touch EXECUTED"}}' '{"defines": {"BM": "64 -ccbin=/tmp"}}'; do
  branch_defines "$defines"
  expect 2 "b1/variant.json: (define name|the value of)" -- "$kopt" close "$work/run" --simulate "$lab"
done
branch_defines '[]'
expect 2 "variant.json: \"defines\" must be an object" -- "$kopt" close "$work/run" --simulate "$lab"
branch_defines '{"defines": '
expect 2 "variant.json: not valid JSON" -- "$kopt" close "$work/run" --simulate "$lab"
branch_defines '{"defines": ["BM"]}'
expect 2 "\"defines\" must be an object" -- "$kopt" close "$work/run" --simulate "$lab"

echo "== inputs that are not regular files"
mkfifo "$work/fifo.cu"
expect 2 "fifo.cu is a FIFO, not a regular file" -- "$kopt" check "$work/fifo.cu"
ln -s /dev/zero "$work/zero.cu"
expect 2 "zero.cu is a character device, not a regular file" -- "$kopt" check "$work/zero.cu"
ln -s loop.cu "$work/loop.cu"
expect 2 "loop.cu: Too many levels of symbolic links" -- "$kopt" check "$work/loop.cu"
truncate -s 300M "$work/huge.cu"
expect 2 "huge.cu is 300 MiB, more than the 256 MiB kopt reads" -- "$kopt" check "$work/huge.cu"
expect 2 "/dev/null is a character device" -- "$kopt" check "$good/kernel.cu" --spec /dev/null
expect 2 "is a folder, not a regular file" -- "$kopt" check "$good/kernel.cu" --spec "$work"
expect 2 "fifo.cu is a FIFO" -- "$kopt" check "$good/kernel.cu" --spec "$work/fifo.cu"
# A kopt.toml that is a FIFO, in the folder given or beside the kernel: refused, never passed over.
fifo_spec=$(spec_with)
rm "$fifo_spec/kopt.toml" && mkfifo "$fifo_spec/kopt.toml"
expect 2 "kopt.toml is a FIFO, not a regular file" -- "$kopt" check "$fifo_spec"
expect 2 "kopt.toml is a FIFO, not a regular file" -- "$kopt" check "$fifo_spec/kernel.cu"
folder_kernel=$(spec_with)
rm "$folder_kernel/kernel.cu" && mkdir "$folder_kernel/kernel.cu"
expect 2 "kernel.cu is a folder, not a regular file" -- "$kopt" check "$folder_kernel"
expect 2 "/no/such/kernel.cu: no such file" -- "$kopt" check /no/such/kernel.cu
expect 2 "no such file" -- "$kopt" check "$good/../../../../../../no/such/../kernel.cu"
printf 'name = "\xff\xfe"\n' >"$work/bad_utf8.toml"
expect 2 "bad_utf8.toml" -- "$kopt" check "$work/bad_utf8.toml"
expect 2 "kopt.toml:.*(duplicate|already|redefin)" -- "$kopt" check "$(spec_with '[dims]' 'N = 5')"
expect 2 "\\[\\[cases\\]\\] Q is not a dim declared in \\[dims\\] \\(N\\)" -- "$kopt" check "$(spec_with '[[cases]]' 'Q = 5')"
expect 2 "\\[\\[cases\\]\\] N must be a finite number" -- "$kopt" check "$(spec_with '[[cases]]' 'N = nan')"
expect 2 "\\[\\[cases\\]\\] N must be a finite number" -- "$kopt" check "$(spec_with '[[cases]]' 'N = inf')"
expect 2 "unknown key \"cflags\"" -- "$kopt" check "$(spec_with '[build]' 'cflags = ["-O2"]')"

echo "== numbers: NaN, infinity, signs"
for value in nan inf -inf 1e999 abc; do
  expect 2 "--timeout: \"$value\" is not (a|a finite) number" -- "$kopt" check "$good" --timeout "$value"
done
expect 2 "--timeout: -1 is not > 0" -- "$kopt" check "$good" --timeout -1
expect 2 "--timeout: 0 is not > 0" -- "$kopt" check "$good" --timeout 0
for value in -1 1.5 1e3 +3 abc; do
  expect 2 "--seed: \"[-+.0-9a-z]+\" is not a whole number" -- "$kopt" check "$good" --seed "$value"
done
expect 2 "--tuner-seed: \"-1\" is not a whole number" -- "$kopt" optimize "$tiled" --run "$work/never" --tuner-seed -1 --simulate "$lab"
expect 2 "--device: \"nan\" is not a finite number" -- "$kopt" check "$good" --device nan
expect 2 "--device: -1 is negative" -- "$kopt" check "$good" --device -1
expect 2 "--dim N: \"nan\" is not a finite number" -- "$kopt" check "$good" --dim N=nan
expect 2 "--dim N: \"inf\" is not a finite number" -- "$kopt" check "$good" --dim N=inf
expect 2 "--dim N: \"lots\" is not a number" -- "$kopt" check "$good" --dim N=lots
expect 2 "--dim expects NAME=VALUE" -- "$kopt" check "$good" --dim =5
expect 2 "--min-effect: \"nan\" is not a finite number" -- "$kopt" optimize "$tiled" --run "$work/never" --min-effect nan --simulate "$lab"
expect 2 "--budget: \"inf\" is not a finite number" -- "$kopt" optimize "$tiled" --run "$work/never" --budget inf --simulate "$lab"
expect 2 "--max-time: \"nan\" is not a finite number" -- "$kopt" bench "$good" --max-time nan
expect 2 "--seeds: Value 0 not in range 1 to 1000" -- "$kopt" check "$good" --seeds 0
[ -e "$work/never" ] && { echo "FAIL: a refused optimize created its run folder"; failed=$((failed + 1)); }

echo "== outputs that are not regular files or cannot be written"
plan_evidence="$repo/tests/fixtures/evidence/h200_vector_add"
# A device node of the test's own (a copy of /dev/full where mknod is allowed): a kopt that
# replaces what --out names must not be able to destroy the system's.
if mknod "$work/full" c 1 7 2>/dev/null; then
  expect 2 "full is a character device; kopt writes only regular files" -- "$kopt" plan "$plan_evidence" --out "$work/full"
  [ -c "$work/full" ] || { echo "FAIL: the device node was replaced"; failed=$((failed + 1)); }
fi
ln -s "$work/target.json" "$work/link.json"
echo keep >"$work/target.json"
expect 2 "link.json is a symbolic link; kopt writes only regular files" -- "$kopt" plan "$plan_evidence" --out "$work/link.json"
grep -qx keep "$work/target.json" || { echo "FAIL: the symlink's target was changed"; failed=$((failed + 1)); }
expect 2 "fifo.cu is a FIFO; kopt writes only regular files" -- "$kopt" plan "$plan_evidence" --out "$work/fifo.cu"
echo text >"$work/a.cu"
expect 2 "a.cu is a regular file, not a folder" -- "$kopt" plan "$plan_evidence" --out "$work/a.cu/x.json"
expect 2 "--cache-dir: .*a.cu is a regular file, not a folder" -- "$kopt" check "$good" --cache-dir "$work/a.cu/cache"
expect 2 "--cache-dir: .*a.cu is a regular file, not a folder" -- "$kopt" check "$good" --cache-dir "$work/a.cu"
expect 2 "--run: .*a.cu is a regular file, not a folder" -- "$kopt" init "$tiled" --run "$work/a.cu" --simulate "$lab"
expect 2 "--dest: .*a.cu is a regular file, not a folder" -- "$kopt" skill install --dest "$work/a.cu/skills"
expect 2 "--out: .*a.cu is a regular file, not a folder" -- "$kopt" report --compare "$work/run" "$work/run" --out "$work/a.cu"
expect 2 "cannot write in /proc/1" -- "$kopt" check "$good" --cache-dir /proc/1/kopt-cache

echo "== run files kopt reads"
cp -r "$work/run" "$work/bad_run"
echo '[]' >"$work/bad_run/state.json"
expect 2 "state.json: schema is not kopt.state/1" -- "$kopt" status "$work/bad_run"
echo '{"schema": "kopt.state/1"}' >"$work/bad_run/state.json"
expect 2 "state.json: malformed" -- "$kopt" status "$work/bad_run"
printf '{"schema": ' >"$work/bad_run/state.json"
expect 2 "state.json: not valid JSON" -- "$kopt" close "$work/bad_run" --simulate "$lab"
rm "$work/bad_run/state.json"; mkfifo "$work/bad_run/state.json"
expect 2 "state.json is a FIFO" -- "$kopt" status "$work/bad_run"
echo '{"methods": ' >"$work/run/iter1/methods.json"
branch_defines '{"defines": {"BM": "64"}}'
expect 2 "methods.json: not valid JSON" -- "$kopt" close "$work/run" --simulate "$lab"
echo '[]' >"$work/run/iter1/methods.json"
expect 2 "methods.json" -- "$kopt" close "$work/run" --simulate "$lab"

echo "== the command line"
expect 2 "unknown command \"teleport\"" -- "$kopt" teleport --help
expect 2 "unknown command \"frobnicate\"" -- "$kopt" frobnicate
expect 2 "A subcommand is required" -- "$kopt"
expect 2 "--frobnicate" -- "$kopt" check "$good" --frobnicate
expect 2 "--arch: 1 required TEXT missing" -- "$kopt" check "$good" --arch

echo "== --json: one error document on standard output as well"
"$kopt" check "$good" --json --timeout nan >"$work/json_out" 2>/dev/null
python3 - "$work/json_out" <<'PY' && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL --json error document"; }
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == "kopt.error/1" and doc["exit_code"] == 2 and doc["kind"] == "bad_input", doc
assert "--timeout" in doc["message"], doc
print("ok   --json error document:", doc["message"])
PY

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -ge 60 ]
