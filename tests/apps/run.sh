#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh DEMO_BIN SHOT_DIR - the demo's MCP App (ui://demo/orders) in a real
# host: headless Chromium, a host page on the official host library
# (host.mjs). The npm packages (pinned) are installed once into
# APPS_HOST_CACHE (default $XDG_CACHE_HOME/libmcp-apps-host-2.0.4): into a
# fresh directory renamed into place when complete, so concurrent first
# runs never see a half-installed cache and need no lock (the loser of the
# rename drops its copy). Exit 77 (skipped, with a message) when node/npm
# are missing or npm is unreachable, unless CI=true (then it fails).
set -u
DEMO=${1:?usage: run.sh DEMO_BIN SHOT_DIR}
SHOTS=${2:?usage: run.sh DEMO_BIN SHOT_DIR}
EXT_APPS_VERSION=2.0.4
CLIENT_VERSION=2.4.0
PLAYWRIGHT_VERSION=1.65.1
CACHE=${APPS_HOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libmcp-apps-host-$EXT_APPS_VERSION}
HERE=$(cd "$(dirname "$0")" && pwd)
skip() {
  if [ "${CI:-}" = true ]; then echo "apps host: $1 (required when CI=true)" >&2; exit 1; fi
  echo "SKIP the MCP Apps host browser test: $1" >&2; exit 77
}
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || skip "node and npm are not installed"
[ -x /usr/bin/chromium ] || { echo "apps host: /usr/bin/chromium is missing (scripts/install-deps)" >&2; exit 1; }
if [ ! -f "$CACHE/complete" ]; then
  mkdir -p "$(dirname "$CACHE")" || exit 1
  TMP=$(mktemp -d "$CACHE.new.XXXXXX") || exit 1
  trap 'rm -rf "$TMP"' EXIT
  (cd "$TMP" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund --loglevel=error \
      "@modelcontextprotocol/ext-apps@$EXT_APPS_VERSION" \
      "@modelcontextprotocol/client@$CLIENT_VERSION" \
      "playwright-core@$PLAYWRIGHT_VERSION" >/dev/null 2>&1 &&
    touch complete) ||
    skip "npm install of @modelcontextprotocol/ext-apps failed (offline?)"
  # rename into place; a concurrent run may have won: use its copy
  mv -T "$TMP" "$CACHE" 2>/dev/null || [ -f "$CACHE/complete" ] ||
    { echo "apps host: cannot install into $CACHE" >&2; exit 1; }
  trap - EXIT
  rm -rf "$TMP"
fi
mkdir -p "$SHOTS"
exec node "$HERE/host.mjs" "$DEMO" "$SHOTS" "$CACHE"
