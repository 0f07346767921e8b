#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh MCPC - starts server.mjs (official TypeScript SDK, installed with npm
# into INTEROP_CACHE, default ~/.cache/libmcp-interop) on 127.0.0.1 and has
# mcpc list and call its tools. Exit 77 (skipped, with a message) without
# node/npm unless CI=true.
set -u
MCPC=${1:?usage: run.sh MCPC}
CACHE=${INTEROP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libmcp-interop}
HERE=$(cd "$(dirname "$0")" && pwd)
skip() {
  if [ "${CI:-}" = true ]; then echo "interop: $1 (required when CI=true)" >&2; exit 1; fi
  echo "SKIP interop with the TypeScript SDK: $1" >&2; exit 77
}
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || skip "node and npm are not installed"
if [ ! -d "$CACHE/node_modules/@modelcontextprotocol/sdk" ]; then
  mkdir -p "$CACHE" && (cd "$CACHE" && { [ -f package.json ] || npm init -y >/dev/null; } &&
    npm install --no-audit --no-fund --loglevel=error @modelcontextprotocol/sdk >/dev/null) ||
    skip "npm install of @modelcontextprotocol/sdk failed (offline?)"
fi
cp "$HERE/server.mjs" "$CACHE/server.mjs"   # resolve the SDK from the cache
# Port 0: the server takes a free port and says which (no collisions with
# tests running in parallel).
LOG=$(mktemp)
node "$CACHE/server.mjs" 0 2>"$LOG" &
PID=$!
trap 'kill $PID 2>/dev/null; rm -f "$LOG"' EXIT
i=0; PORT=
until [ -n "$PORT" ]; do
  PORT=$(sed -n 's/^listening on \([0-9]*\)$/\1/p' "$LOG")
  i=$((i + 1))
  if [ -z "$PORT" ] && [ $i -gt 300 ]; then
    echo "interop: server did not start; its output:" >&2
    cat "$LOG" >&2
    exit 1
  fi
  [ -n "$PORT" ] || sleep 0.1
done
URL="http://127.0.0.1:$PORT/mcp"
"$MCPC" -u "$URL" ping >/dev/null || { echo "interop: ping failed" >&2; cat "$LOG" >&2; exit 1; }
fail=0
out=$("$MCPC" -u "$URL" tools list) || fail=1
echo "$out" | grep -q multiply || { echo "interop: tools list: $out" >&2; fail=1; }
out=$("$MCPC" -u "$URL" tools call multiply a=6 b=7) || fail=1
echo "$out" | grep -q "product=42" || { echo "interop: tools call: $out" >&2; fail=1; }
"$MCPC" -u "$URL" tools call fail >/dev/null 2>&1; [ $? -eq 1 ] || { echo "interop: isError not exit 1" >&2; fail=1; }
"$MCPC" -u "$URL" --format json info | grep -q ts-interop || fail=1
[ $fail -eq 0 ] && echo "interop: ok"
exit $fail
