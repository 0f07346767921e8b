#!/bin/sh
# SPDX-License-Identifier: MIT
# Compiles every ```c block of README.md and docs/**/*.md as its own
# translation unit (-Wall -Wextra -Werror), so documented code cannot rot.
#   check-snippets.sh SOURCE_DIR CC CFLAGS...
set -u
src=$1; cc=$2; shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0; bad=0
for md in "$src/README.md" $(find "$src/docs" -name '*.md' | sort); do
  awk -v dir="$tmp" -v base="$(basename "$md" .md)" '
    /^```c[[:space:]]*$/ { inblock = 1; k++; file = sprintf("%s/%s_%02d.c", dir, base, k); next }
    /^```/ && inblock { inblock = 0; close(file); next }
    inblock { print > file }
  ' "$md"
done
for f in "$tmp"/*.c; do
  [ -e "$f" ] || continue
  n=$((n + 1))
  if ! "$cc" -std=c17 -Wall -Wextra -Werror -Wno-unused-function -c "$f" \
       -o "$tmp/out.o" "$@" 2>"$tmp/err"; then
    bad=$((bad + 1))
    echo "FAIL $(basename "$f"):"; cat "$tmp/err"
  fi
done
echo "doc snippets: $n compiled, $bad failed"
[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
