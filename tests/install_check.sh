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

(cd "$work" && cpack --config "$build/CPackConfig.cmake" -B "$work/deb" >/dev/null) || fail "cpack failed"
deb=$(ls "$work"/deb/kopt_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "cpack wrote no kopt_*.deb"
contents=$(dpkg-deb -c "$deb")
for path in ./usr/bin/kopt ./usr/share/kopt/skill/SKILL.md; do
  grep -q " $path\$" <<<"$contents" || fail "$(basename "$deb") lacks $path"
done
[ "$(dpkg-deb -f "$deb" Version)" = "$want_version" ] || fail "the .deb's version is not $want_version"
echo "deb: $(basename "$deb"), depends: $(dpkg-deb -f "$deb" Depends)"
