#!/usr/bin/env bash
# readme_first_command.sh KOPT_DIR REPO: the README's first command, as written (less its
# ./setup, which built KOPT_DIR), passes on a machine without a GPU: it runs the loop on the
# bundled example with the simulated lab, exits 0, says Simulated before its first figure (in
# summary.md and in report.html), and
# leaves its run folder git-ignored. The run folder is removed afterwards.
set -u
kopt_dir=$1 repo=$2
cd "$repo" || exit 1
line=$(grep -m1 -E '^    \./setup && build/cli/kopt ' README.md) || { echo "FAIL: README.md has no '    ./setup && build/cli/kopt ...' command"; exit 1; }
command=${line#    ./setup && }
command=${command/build\/cli\/kopt/$kopt_dir/kopt}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# shellcheck disable=SC2086  # the command's words, as the README writes them
$command > "$out" 2>&1
rc=$?
run=$(grep -oE 'wrote (run_[0-9]{8}-[0-9]{6})/summary.md' "$out" | head -1 | sed -E 's#wrote (.*)/summary.md#\1#')
failed=0
[ "$rc" -eq 0 ] || { echo "FAIL: '$command' exited $rc"; tail -5 "$out"; failed=1; }
grep -q '^\*\*Simulated:\*\*' "$out" || { echo "FAIL: the output does not say Simulated"; failed=1; }
if [ -z "$run" ]; then echo "FAIL: no run folder named in the output"; failed=1
else
  # report.html says so too, before its first chart.
  if "$kopt_dir/kopt" report "$run" > /dev/null 2>&1; then
    python3 - "$run/report.html" <<'PY' || failed=1
import sys
page = open(sys.argv[1], encoding="utf-8").read()
said, chart = page.find("Simulated"), page.find("<svg")
if said < 0 or said > chart >= 0:
    print("FAIL: report.html does not say Simulated before its first chart"); sys.exit(1)
PY
  else
    echo "FAIL: kopt report $run failed"; failed=1
  fi
  if git rev-parse --is-inside-work-tree > /dev/null 2>&1 && ! git check-ignore -q --no-index "$run"; then
    echo "FAIL: the run folder $run is not git-ignored"; failed=1
  fi
  rm -rf "$run"
fi
[ "$failed" -eq 0 ] && echo "ok: $command"
exit "$failed"
