#!/bin/sh
# SPDX-License-Identifier: MIT
# suite.sh [VERSION] - makes the official MCP conformance suite
# (@modelcontextprotocol/conformance, VERSION default 0.2.0-alpha.12) ready
# to run and prints the path of its CLI (dist/index.js).
#
# Every test that runs the suite goes through here, so that a machine whose
# caches are empty behaves like one that ran the suite before:
#  - installs it with npm into CACHE (CONFORMANCE_CACHE, else
#    $XDG_CACHE_HOME/mcp-conformance-VERSION, else ~/.cache/...), the same
#    directory ../shared/tools/conformance uses, so that script finds it ready;
#  - under an exclusive lock (flock), because CTest runs the tests that need
#    it in parallel and two npm installs into one directory corrupt it;
#  - adapts builds that import fs.globSync (node >= 22) to older node (>= 18):
#    the import becomes a lazy stub (only the suite's tier-check command calls
#    it), as ../shared/tools/conformance does.
# Exit 2 with a message on stderr when node/npm are missing or the install or
# the adaptation fails.
set -u
VERSION=${1:-0.2.0-alpha.12}
CACHE=${CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-conformance-$VERSION}
fail() { echo "conformance suite $VERSION: $*" >&2; exit 2; }

command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
  fail "node and npm are not installed"
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
[ "$major" -ge 18 ] 2>/dev/null || fail "node $(node --version 2>/dev/null) is older than 18"
mkdir -p "$CACHE" || fail "cannot create $CACHE"
CLI="$CACHE/node_modules/@modelcontextprotocol/conformance/dist/index.js"

prepare() {
  if [ ! -f "$CLI" ] || [ ! -f "$CACHE/.installed" ]; then
    (cd "$CACHE" && { [ -f package.json ] || npm init -y >/dev/null; } &&
      npm install --no-audit --no-fund --loglevel=error \
        "@modelcontextprotocol/conformance@$VERSION" >/dev/null) ||
      fail "npm install failed (offline?)"
    [ -f "$CLI" ] || fail "npm installed no $CLI"
    : >"$CACHE/.installed"
  fi
  if [ "$major" -lt 22 ] && grep -q 'globSync as ' "$CLI" && ! grep -q '__fsNS' "$CLI"; then
    node - "$CLI" <<'JS' || fail "cannot adapt the suite's fs.globSync import to node $major"
const fs = require('fs'); const f = process.argv[2]; let s = fs.readFileSync(f, 'utf8');
const m = s.match(/import\{([^}]*)\}from"fs";/);
if (!m) process.exit(1);
const parts = m[1].split(','); const g = parts.find(p => p.startsWith('globSync as '));
if (!g) process.exit(1);
const alias = g.slice('globSync as '.length);
const rest = parts.filter(p => p !== g).join(',');
s = s.replace(m[0], `import{${rest}}from"fs";import*as __fsNS from"fs";const ${alias}=__fsNS.globSync??(()=>{throw Error("fs.globSync needs node>=22")});`);
fs.writeFileSync(f + '.tmp', s); fs.renameSync(f + '.tmp', f);
JS
  fi
}

if command -v flock >/dev/null 2>&1; then
  # the lock file lives beside the cache, not in it (npm may clean the cache)
  exec 9>"$CACHE.lock" || fail "cannot open $CACHE.lock"
  flock -w 600 9 || fail "waited 10 minutes for another install ($CACHE.lock)"
fi
prepare
# the adapted CLI must at least start on this node
node "$CLI" --help >/dev/null 2>&1 || fail "the suite does not start on node $(node --version)"
echo "$CLI"
