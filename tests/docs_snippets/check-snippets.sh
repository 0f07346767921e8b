#!/bin/sh
# SPDX-License-Identifier: MIT
# check-snippets.sh CC INCLUDE_DIR MARKDOWN OUT_DIR - compiles each ```c block
# of MARKDOWN as its own translation unit (-Wall -Wextra -Werror, C17).
set -eu
cc=$1; inc=$2; md=$3; out=$4
mkdir -p "$out"
rm -f "$out"/snippet-*.c
awk -v out="$out" '
  /^```c$/ { n++; f = sprintf("%s/snippet-%d.c", out, n); inblock = 1; next }
  /^```/   { inblock = 0; next }
  inblock  { print > f }
' "$md"
count=0
for f in "$out"/snippet-*.c; do
  [ -e "$f" ] || continue
  count=$((count + 1))
  "$cc" -std=c17 -Wall -Wextra -Werror -Wmissing-prototypes -I "$inc" \
    $(pkg-config --cflags jansson) -c "$f" -o "${f%.c}.o"
done
echo "compiled $count snippets from $md"
[ "$count" -gt 0 ]
