#!/usr/bin/env bash
# installed_tour.sh BUILD_DIR: a new user's tour from `cmake --install` alone, in an empty
# folder, without the source tree: the examples and the lab model are installed with kopt, an
# example folder copied elsewhere still finds its reference, and the README's first command
# (there, with the installed model) runs the loop and says Simulated. Without a GPU.
set -u
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 || { echo "FAIL: cmake --install: $(tail -3 "$work/install.log")"; exit 1; }
share=$prefix/share/kopt
failed=0
for f in bin/kopt share/kopt/skill/SKILL.md share/kopt/models/sgemm_tiled_model.json \
         share/kopt/evidence/h200_sgemm_naive/roofline.json share/kopt/examples/sgemm_tiled/ref.cu \
         share/kopt/examples/vector_add/kopt.toml; do
  [ -e "$prefix/$f" ] || { echo "FAIL: the install has no $f"; failed=1; }
done
[ -e "$share/examples/sgemm_tiled/check.json" ] && { echo "FAIL: a kernel's output was installed"; failed=1; }
tour=$work/tour
mkdir -p "$tour" && cd "$tour" || exit 1
cp -r "$share/examples/sgemm_tiled" "$share/examples/vector_add" .
# No source tree and no build folder on the way: only what the install put there.
export PATH="$prefix/bin:/usr/bin:/bin"
kopt tune-space sgemm_tiled > tune.out 2>&1 || { echo "FAIL: kopt tune-space exited $?: $(tail -2 tune.out)"; failed=1; }
kopt optimize sgemm_tiled --simulate "$share/models/sgemm_tiled_model.json" --run run > optimize.out 2>&1 \
  || { echo "FAIL: kopt optimize --simulate exited $?: $(tail -3 optimize.out)"; failed=1; }
grep -q '^\*\*Simulated:\*\*' optimize.out || { echo "FAIL: the installed tour's run does not say Simulated"; failed=1; }
kopt report run > report.out 2>&1 || { echo "FAIL: kopt report exited $?: $(tail -2 report.out)"; failed=1; }
[ -s run/report.html ] || { echo "FAIL: no report.html"; failed=1; }
kopt skill install --dest skill > skill.out 2>&1 || { echo "FAIL: kopt skill install exited $?"; failed=1; }
echo "edited" >> skill/SKILL.md
kopt skill install --dest skill > skill2.out 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "differs" skill2.out || { echo "FAIL: skill install over an edited SKILL.md exited $rc: $(cat skill2.out)"; failed=1; }
[ "$failed" -eq 0 ] && echo "ok: the tour from the install"
exit "$failed"
