#!/usr/bin/env bash
# cpu_tour.sh KOPT_DIR REPO: docs/guide.md's "A tour without a GPU", run as a reader would.
# Its ```bash blocks run in order in one shell from the repository root (the tour's folder
# moved into a temporary one, its kopt the one just built), and fail the test when a command
# fails. Then: the `Then:` line that init prints runs as printed; each file the tour
# promises exists; and the source tree is as it was (the tour writes only under $TOUR).
set -euo pipefail
kopt_dir=$1 repo=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$repo"

doctor=$("$kopt_dir/kopt" doctor --no-ncu 2>/dev/null || true)  # exit 3 without a GPU
grep -qE "^nvcc +ok " <<<"$doctor" || { echo "SKIPPED: kopt doctor does not find nvcc"; exit 77; }
grep -qE "^cuobjdump +ok " <<<"$doctor" \
  || { echo "SKIPPED: kopt doctor does not find cuobjdump (./setup installs it)"; exit 77; }

python3 - "$repo/docs/guide.md" "$work/tour.sh" "$kopt_dir" "$work/tour" <<'PY'
import re, sys
guide, script, kopt_dir, tour = sys.argv[1:]
text = open(guide).read()
section = re.search(r"^## 2\. A tour without a GPU\n(.*?)^## 3\.", text, re.S | re.M).group(1)
blocks = re.findall(r"```bash\n(.*?)```", section, re.S)
body = "".join(blocks)
for promised in ('PATH="$PWD/build/cli:$PATH"', "TOUR=/tmp/kopt-tour"):
    if promised not in body:
        sys.exit(f"the tour no longer sets {promised}: update cpu_tour.sh")
body = body.replace('PATH="$PWD/build/cli:$PATH"', f'PATH="{kopt_dir}:$PATH"').replace("TOUR=/tmp/kopt-tour", f"TOUR={tour}")
open(script, "w").write("set -euo pipefail\n" + body)
print(f"{len(blocks)} blocks")
PY

before=$(git status --porcelain --untracked-files=all 2>/dev/null || true)
bash "$work/tour.sh" >"$work/tour.log" 2>&1 || { cat "$work/tour.log"; echo "FAIL: a tour command failed"; exit 1; }
cat "$work/tour.log"
after=$(git status --porcelain --untracked-files=all 2>/dev/null || true)
[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); echo "FAIL: the tour changed the source tree"; exit 1; }

tour=$work/tour
fail() { echo "FAIL: $*"; exit 1; }
for file in sass.json sass_vs.json plan.json run/iter1/iteration.json run/summary.md optimized/report.html \
            h200/report.html compare/compare.html; do
  [ -s "$tour/$file" ] || fail "the tour wrote no $file"
done

# The step init prints is the one the tour runs, and it works as printed.
model="$repo/tests/fixtures/loop/sgemm_tiled_model.json"
grep -qxF "Then: kopt close $tour/run --simulate $model" "$work/tour.log" \
  || fail "init did not print 'Then: kopt close $tour/run --simulate $model'"
export PATH="$kopt_dir:$PATH"
kopt init examples/sgemm_tiled --run "$work/follow" --simulate "$model" >"$work/init.log"
mkdir -p "$work/follow/iter1/branches/b1"
echo '{"defines": {"BM": "64"}}' >"$work/follow/iter1/branches/b1/variant.json"
echo '{"hypothesis": "smaller tiles fill more SMs", "expected_gain_percent": [5, 20], "cost": "less reuse per load"}' >"$work/follow/iter1/branches/b1/experiment.json"
echo '{"methods": []}' >"$work/follow/iter1/methods.json"
then_line=$(sed -n 's/^Then: //p' "$work/init.log")
eval "$then_line" >"$work/close.log" || fail "the printed step '$then_line' failed"
next_line=$(sed -n 's/^Then: //p' "$work/close.log")
[[ "$next_line" == *"--simulate $model"* ]] || fail "close printed '$next_line' without --simulate"
echo "followed: $then_line"
