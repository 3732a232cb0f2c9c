#!/usr/bin/env bash
# `cmake --install` and the .deb from CPack: both hold a kopt that runs from its installed
# place (data embedded, nothing read from the source tree) and the agent skill.
#   install_check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd) source=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null
installed="$work/prefix/bin/kopt"
[ -x "$installed" ] || fail "no bin/kopt under the install prefix"
want_version=$(sed -n 's/^project(kopt VERSION \([0-9.]*\).*/\1/p' "$source/CMakeLists.txt")
got_version=$(cd "$work" && env -u KOPT_DATA_DIR "$installed" --version)
[ "$got_version" = "$want_version" ] || fail "installed kopt --version printed '$got_version', not $want_version"
# The skill, from the binary's own embedded copy, equals the installed file and the source.
(cd "$work" && env -u KOPT_DATA_DIR "$installed" skill install --dest "$work/skill" >/dev/null)
cmp -s "$work/skill/SKILL.md" "$source/skill/SKILL.md" || fail "kopt skill install wrote a different SKILL.md"
cmp -s "$work/prefix/share/kopt/skill/SKILL.md" "$source/skill/SKILL.md" || fail "share/kopt/skill/SKILL.md missing or different"
echo "install: $installed --version = $got_version; share/kopt/skill/SKILL.md"

# The skill's rehearsal from the installed kopt alone (nothing read from the source tree but the
# example kernel): its model, written by kopt skill rehearsal, equals the installed one; then one
# iteration as the skill drives it, on that model, with a branch marked to rehearse faster.
for f in model.json evidence/profile.json evidence/ncu_top.json evidence/roofline.json; do
  cmp -s "$work/prefix/share/kopt/skill/rehearsal/$f" "$source/skill/rehearsal/$f" || fail "share/kopt/skill/rehearsal/$f missing or different"
  cmp -s "$work/skill/rehearsal/$f" "$source/skill/rehearsal/$f" || fail "kopt skill install wrote no rehearsal/$f beside SKILL.md"
done
rehearse() { (cd "$work" && env -u KOPT_DATA_DIR -u KOPT_SIMULATE KOPT_CACHE_DIR="$work/cache" "$installed" "$@"); }
model=$(rehearse skill rehearsal --dest "$work/rehearsal" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["model"])')
cmp -s "$model" "$source/skill/rehearsal/model.json" || fail "kopt skill rehearsal wrote a different model.json"
cp -r "$source/examples/vector_add" "$work/vector_add"
rehearse init "$work/vector_add" --run "$work/run" --iterations 1 --branches 1 --simulate "$model" --json > "$work/next.json"
command=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["command"])' "$work/next.json")
case $command in *" --json"*"--simulate $model"*) ;; *) fail "init's next command lacks --json or the model: $command" ;; esac
mkdir -p "$work/run/iter1/branches/b1"
{ cat "$work/run/baseline/kernel.cu"; echo "// rehearsal: faster"; } > "$work/run/iter1/branches/b1/kernel.cu"
echo '{"methods": []}' > "$work/run/iter1/methods.json"
echo '{"hypothesis": "a rehearsal", "expected_gain_percent": [10, 50], "cost": "none"}' > "$work/run/iter1/branches/b1/experiment.json"
rehearse close "$work/run" --simulate "$model" --json > "$work/closed.json"
python3 - "$work/closed.json" <<'PY' || fail "the rehearsal's close did not advance"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["iteration"]["verdict"] == "advanced" and c["iteration"]["champion"] == "b1", c["iteration"]["verdict"]
assert c["next"]["command"].startswith("kopt finalize ") and " --json" in c["next"]["command"], c["next"]["command"]
PY
rehearse finalize "$work/run" --simulate "$model" --json > /dev/null
grep -q "^\*\*Simulated:\*\*" "$work/run/summary.md" || fail "the rehearsal's summary does not say Simulated"
echo "rehearsal: the installed kopt's own model drove init, close and finalize"

(cd "$work" && cpack --config "$build/CPackConfig.cmake" -B "$work/deb" >/dev/null) || fail "cpack failed"
deb=$(ls "$work"/deb/kopt_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "cpack wrote no kopt_*.deb"
contents=$(dpkg-deb -c "$deb")
for path in ./usr/bin/kopt ./usr/share/kopt/skill/SKILL.md; do
  grep -q " $path\$" <<<"$contents" || fail "$(basename "$deb") lacks $path"
done
[ "$(dpkg-deb -f "$deb" Version)" = "$want_version" ] || fail "the .deb's version is not $want_version"
echo "deb: $(basename "$deb"), depends: $(dpkg-deb -f "$deb" Depends)"
