#!/bin/sh
# SPDX-License-Identifier: MIT
# check-license.sh SOURCE_DIR - every tracked source file (C, headers, CMake,
# Makefile, shell and other scripts, pkg-config templates) carries
# "SPDX-License-Identifier: MIT" on its first line, or on its second when the
# first is a shebang. Data files (JSON, Markdown, .gitignore, .clang-format)
# are not checked. Lists the files that lack it and fails.
set -eu
src=$1
cd "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files=$(git ls-files)
else # a source tarball: every file but the build trees
  files=$(find . -path ./build -prune -o -type f -print | sed 's|^\./||')
fi
is_source() {
  case "$1" in
    *.c | *.h | *.cmake | *.cmake.in | *.pc.in | CMakeLists.txt | */CMakeLists.txt | \
      Makefile | */Makefile | *.sh | *.py | *.js | *.mjs | *.lua | *.inc)
      return 0 ;;
    *.md | *.json | *.txt | .gitignore | */.gitignore | .clang-format) return 1 ;;
  esac
  # extensionless scripts (bench/*/run, scripts/install-deps, .ci/run)
  [ "$(head -c 2 "$1")" = "#!" ]
}
n=0
bad=0
for f in $files; do
  [ -f "$f" ] || continue
  is_source "$f" || continue
  n=$((n + 1))
  if [ "$(head -c 2 "$f")" = "#!" ]; then
    line=$(sed -n 2p "$f")
  else
    line=$(sed -n 1p "$f")
  fi
  case "$line" in
    *"SPDX-License-Identifier: MIT"*) ;;
    *) echo "missing SPDX-License-Identifier: MIT: $f"; bad=$((bad + 1)) ;;
  esac
done
echo "license: $n files checked, $bad without an SPDX line"
[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
