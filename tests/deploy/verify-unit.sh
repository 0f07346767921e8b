#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: verify-unit.sh UNIT DEMO_BIN
# systemd-analyze verify on UNIT with its ExecStart pointed at the built
# DEMO_BIN (verify checks that the program exists): fails on any message,
# an unknown key included (those are only warnings with exit 0). Exit 77
# (skipped, with a message) when systemd-analyze is not installed.
set -u
unit=$1; bin=$2
command -v systemd-analyze >/dev/null 2>&1 ||
  { echo "verify-unit: systemd-analyze not installed (Debian: systemd)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
name=$(basename "$unit")
sed "s|^ExecStart=/usr/bin/mcp-demo-server|ExecStart=$bin|" "$unit" >"$tmp/$name"
grep -q "^ExecStart=$bin " "$tmp/$name" || { echo "verify-unit: no ExecStart=/usr/bin/mcp-demo-server in $unit"; exit 1; }
grep -q '^TimeoutStopSec=' "$tmp/$name" || { echo "verify-unit: $unit sets no TimeoutStopSec"; exit 1; }
rc=0
(cd "$tmp" && systemd-analyze verify "$name") >"$tmp/out" 2>&1 || rc=$?
if [ $rc -ne 0 ] || [ -s "$tmp/out" ]; then
  echo "verify-unit: systemd-analyze verify $name (exit $rc):"; cat "$tmp/out"; exit 1
fi
echo "verify-unit: $name ok"
