#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: check-headers.sh INCLUDE_DIR OUT_DIR
# Every public header (mcp/*.h and mcp/mcp.hpp), included alone in a
# translation unit of its own (and twice, for the include guard), compiles as
# ISO C++17 and C++20 without GNU extensions (-pedantic, -std=c++NN not
# gnu++NN) and without warnings, with g++ and with clang++ (a compiler that
# is not installed is reported and skipped; none at all fails).
set -eu
inc=$1; out=$2
mkdir -p "$out"
jansson=$(pkg-config --cflags jansson)
n=0; bad=0; compilers=0
for cxx in g++ clang++; do
  if ! command -v "$cxx" >/dev/null 2>&1; then
    echo "cpp_headers: $cxx not installed: skipped"
    continue
  fi
  compilers=$((compilers + 1))
  for std in c++17 c++20; do
    for h in "$inc"/mcp/*.h "$inc"/mcp/*.hpp; do
      name=$(basename "$h")
      printf '#include <mcp/%s>\n#include <mcp/%s>\n' "$name" "$name" >"$out/tu.cpp"
      n=$((n + 1))
      # shellcheck disable=SC2086
      if ! "$cxx" -std=$std -Wall -Wextra -Wshadow -pedantic -pedantic-errors -Werror \
           -I "$inc" $jansson -fsyntax-only "$out/tu.cpp" 2>"$out/err"; then
        bad=$((bad + 1))
        echo "FAIL $cxx -std=$std mcp/$name:"; cat "$out/err"
      fi
    done
  done
done
echo "cpp_headers: $n compilations with $compilers compilers, $bad failed"
[ "$compilers" -gt 0 ] && [ "$bad" -eq 0 ]
