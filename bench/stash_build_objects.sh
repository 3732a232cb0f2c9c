#!/usr/bin/env bash
# Moves build/'s object files, archives and precompiled headers aside (out) or back (in), so that the build folder
# carried to the GPU machine stays under the device tool's 64 MiB. Run from the repo root.
#   bench/stash_build_objects.sh out   # before the device call
#   bench/stash_build_objects.sh in    # after it (or just rebuild)
set -euo pipefail
stash=${KOPT_OBJECT_STASH:-/tmp/kopt-object-stash}
case ${1:-} in
  out)
    rm -rf "$stash"; mkdir -p "$stash"
    find build \( -name '*.o' -o -name '*.a' -o -name '*.gch' \) -print0 |
      while IFS= read -r -d '' f; do mkdir -p "$stash/$(dirname "$f")"; mv "$f" "$stash/$f"; done ;;
  in)
    (cd "$stash" && find build -type f -print0) |
      while IFS= read -r -d '' f; do mkdir -p "$(dirname "$f")"; mv "$stash/$f" "$f"; done ;;
  *) echo "usage: $0 out|in" >&2; exit 2 ;;
esac
du -sh build
