#!/bin/sh
# SPDX-License-Identifier: MIT
# Compiles every ```cpp block of README.md and docs/**/*.md as its own
# translation unit (ISO C++17, -Wall -Wextra -pedantic -Werror), as
# check-snippets.sh does for the ```c blocks.
#   check-cpp-snippets.sh SOURCE_DIR CXX CXXFLAGS...
set -u
src=$1; cxx=$2; shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0; bad=0
for md in "$src/README.md" $(find "$src/docs" -name '*.md' | sort); do
  # docs/cpp/tool.md -> docs_cpp_tool: pages of one name in two folders
  # (docs/tool.md, docs/cpp/tool.md) must not overwrite each other's blocks.
  rel=${md#"$src"/}
  base=$(printf '%s' "${rel%.md}" | tr '/' '_')
  awk -v dir="$tmp" -v base="$base" '
    /^```cpp[[:space:]]*$/ { inblock = 1; k++; file = sprintf("%s/%s_%02d.cpp", dir, base, k); next }
    /^```/ && inblock { inblock = 0; close(file); next }
    inblock { print > file }
  ' "$md"
done
for f in "$tmp"/*.cpp; do
  [ -e "$f" ] || continue
  n=$((n + 1))
  if ! "$cxx" -std=c++17 -Wall -Wextra -pedantic -Werror -Wno-unused-function -c "$f" \
       -o "$tmp/out.o" "$@" 2>"$tmp/err"; then
    bad=$((bad + 1))
    echo "FAIL $(basename "$f"):"; cat "$tmp/err"
  fi
done
echo "doc C++ snippets: $n compiled, $bad failed"
[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
