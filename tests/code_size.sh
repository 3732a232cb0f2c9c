#!/usr/bin/env bash
# code_size.sh SOURCE_DIR: the layout docs/architecture.md promises, held: no file under src/
# or cli/ over 400 lines, no command file (cli/cmd_*.cpp) over 80. Each file over names itself.
set -u
cd "$1" || exit 2
failed=0
while read -r lines file; do
  [ "$file" = total ] && continue
  limit=400
  case $file in cli/cmd_*.cpp) limit=80 ;; esac
  if [ "$lines" -gt "$limit" ]; then echo "FAIL: $file is $lines lines, over $limit"; failed=1; fi
done < <(find src cli -name '*.cpp' -o -name '*.hpp' | sort | xargs wc -l)
[ "$failed" -eq 0 ] && echo "ok: every file of src/ and cli/ within its limit"
exit "$failed"
