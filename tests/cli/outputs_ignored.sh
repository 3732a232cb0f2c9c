#!/usr/bin/env bash
# outputs_ignored.sh REPO: what kopt writes by default beside a kernel (check.json,
# bench.json, sass.json, profile/) is git-ignored in every folder of this repository that
# holds a kernel, and so is report.html in every recorded run: running kopt on the examples,
# the planted kernels or the fixtures never changes or adds a tracked file.
# Skips (77) outside a git checkout.
set -u
repo=$1
cd "$repo" || exit 1
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "SKIPPED: $repo is not a git checkout"; exit 77; }
failed=0
expect_ignored() {
  if git ls-files --error-unmatch "$1" >/dev/null 2>&1; then echo "FAIL: $1 is tracked"; failed=1
  elif ! git check-ignore -q --no-index "$1"; then echo "FAIL: $1 would be written and is not git-ignored"; failed=1
  fi
}
kernel_dirs=$(git ls-files '*.cu' | grep -v -e '^runtime/' -e '^tests/fixtures/' | xargs -n1 dirname | sort -u)
[[ -n "$kernel_dirs" ]] || { echo "FAIL: no kernel found in $repo"; exit 1; }
for dir in $kernel_dirs; do
  for output in check.json bench.json sass.json profile/profile.json profile/raw.csv profile/plan.json; do
    expect_ignored "$dir/$output"
  done
done
for run in $(git ls-files 'tests/fixtures/*state.json' | xargs -n1 dirname); do
  expect_ignored "$run/report.html"
done
[[ $failed == 0 ]] && echo "every default output path is git-ignored ($(echo "$kernel_dirs" | wc -l) kernel folders)"
exit $failed
