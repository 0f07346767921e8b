#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh DEMO_BIN SHOT_DIR - the MCP Inspector web UI in headless Chromium
# connects straight to the demo server (CORS), lists its tools and calls
# add (inspector.mjs). npm packages (@modelcontextprotocol/inspector,
# playwright-core; pinned: the 2.x Inspector needs Node >= 22.19) are
# installed once into INSPECTOR_CACHE (default
# ~/.cache/libmcp-inspector-1.0.3). Exit 77 (skipped, with a message) when
# node/npm are missing or npm is unreachable, unless CI=true (then it fails).
set -u
DEMO=${1:?usage: run.sh DEMO_BIN SHOT_DIR}
SHOTS=${2:?usage: run.sh DEMO_BIN SHOT_DIR}
INSPECTOR_VERSION=1.0.3
PLAYWRIGHT_VERSION=1.65.1
CACHE=${INSPECTOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libmcp-inspector-$INSPECTOR_VERSION}
HERE=$(cd "$(dirname "$0")" && pwd)
skip() {
  if [ "${CI:-}" = true ]; then echo "inspector: $1 (required when CI=true)" >&2; exit 1; fi
  echo "SKIP the MCP Inspector browser test: $1" >&2; exit 77
}
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || skip "node and npm are not installed"
[ -x /usr/bin/chromium ] || { echo "inspector: /usr/bin/chromium is missing (scripts/install-deps)" >&2; exit 1; }
if [ ! -f "$CACHE/node_modules/@modelcontextprotocol/inspector-client/bin/client.js" ] ||
   [ ! -d "$CACHE/node_modules/playwright-core" ]; then
  mkdir -p "$CACHE" && (cd "$CACHE" && { [ -f package.json ] || npm init -y >/dev/null; } &&
    npm install --no-audit --no-fund --loglevel=error --engine-strict=false \
      "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" \
      "playwright-core@$PLAYWRIGHT_VERSION" >/dev/null 2>&1) ||
    skip "npm install of @modelcontextprotocol/inspector failed (offline?)"
fi
cp "$HERE/inspector.mjs" "$CACHE/inspector.mjs" # resolves packages from the cache
rm -f "$SHOTS/inspector-failure.png" "$SHOTS/inspector-failure.txt"
cd "$CACHE" && exec node inspector.mjs "$DEMO" "$SHOTS"
