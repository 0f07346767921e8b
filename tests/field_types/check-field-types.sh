#!/bin/sh
# SPDX-License-Identifier: MIT
# check-field-types.sh CC INCLUDE_DIR SRC_DIR OUT_DIR - right.c must compile
# warning-free; each case of wrong.c must be refused by the compiler with its
# expected message. When a C++ compiler is installed, the same as C++20 (the
# macros' C++ form of the check) and the headers alone as C++17.
set -u
cc=$1; inc=$2; src=$3; out=$4
mkdir -p "$out"
jansson=$(pkg-config --cflags jansson)
fail=0

# $1: compiler and flags; $2: language label
check_with() {
  compile=$1; label=$2
  if ! $compile -c "$src/right.c" -o "$out/right.o" 2>"$out/right.err"; then
    echo "FAIL ($label): right.c does not compile:"; cat "$out/right.err"
    fail=1
  fi
  cases=0
  grep -E '^#(el)?if CASE == [0-9]+ /\* expect: ' "$src/wrong.c" |
    sed -E 's/^#(el)?if CASE == ([0-9]+) \/\* expect: (.*) \*\/$/\2|\3/' \
      >"$out/cases"
  while IFS='|' read -r n expect; do
    cases=$((cases + 1))
    if $compile -DCASE="$n" -c "$src/wrong.c" -o "$out/wrong-$n.o" \
      >"$out/wrong-$n.err" 2>&1; then
      echo "FAIL ($label): case $n compiled; expected: $expect"
      fail=1
    elif ! grep -qF -- "$expect" "$out/wrong-$n.err"; then
      echo "FAIL ($label): case $n refused without naming the field; expected: $expect"
      cat "$out/wrong-$n.err"
      fail=1
    else
      echo "ok ($label): case $n refused: $expect"
    fi
  done <"$out/cases"
  [ -s "$out/cases" ] || { echo "FAIL: no cases in wrong.c"; fail=1; }
}

check_with "$cc -std=c17 -Wall -Wextra -Werror -Wmissing-prototypes -I $inc $jansson" "C17"

cxx=$(command -v c++ || command -v g++ || command -v clang++ || true)
if [ -n "$cxx" ]; then
  printf '#include <mcp/mcp.h>\nint main() { return 0; }\n' >"$out/header.cpp"
  if ! "$cxx" -std=c++17 -Wall -Wextra -Werror -I "$inc" $jansson \
    -c "$out/header.cpp" -o "$out/header.o" 2>"$out/header.err"; then
    echo "FAIL (C++17): the headers do not compile:"; cat "$out/header.err"
    fail=1
  fi
  # the macros' designated initializers need C++20; the C++ form of the
  # check is a static_assert in a lambda
  check_with "$cxx -x c++ -std=c++20 -Wall -Wextra -Wno-missing-field-initializers -Werror -I $inc $jansson" "C++20"
else
  echo "no C++ compiler: C++ form not checked"
fi
exit $fail
