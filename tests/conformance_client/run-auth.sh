#!/bin/sh
# SPDX-License-Identifier: MIT
# run-auth.sh - runs the official MCP conformance suite's authorization client scenarios against
# mcpc:  run-auth.sh MCPC_BINARY [SCENARIO ...]
# Installs @modelcontextprotocol/conformance@0.1.16 with npm into a cache
# directory outside the repository (CONFORMANCE_CACHE, default
# ~/.cache/mcp-conformance-0.1.16). Exit 77 (skipped, with a message) when
# node or npm is missing, unless CI=true, where that is a failure.
set -u
MCPC=${1:?usage: run-auth.sh MCPC [SCENARIO ...]}; shift
SCENARIOS=${*:-"initialize tools_call elicitation-sep1034-client-defaults sse-retry"}
VERSION=0.1.16
CACHE=${CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-conformance-$VERSION}
HERE=$(cd "$(dirname "$0")" && pwd)
skip() {
  if [ "${CI:-}" = true ]; then echo "conformance: $1 (required when CI=true)" >&2; exit 1; fi
  echo "SKIP conformance client scenarios: $1" >&2; exit 77
}
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || skip "node and npm are not installed"
CLI="$CACHE/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -f "$CLI" ]; then
  mkdir -p "$CACHE" && (cd "$CACHE" && { [ -f package.json ] || npm init -y >/dev/null; } &&
    npm install --no-audit --no-fund --loglevel=error "@modelcontextprotocol/conformance@$VERSION" >/dev/null) ||
    skip "npm install of the conformance suite failed (offline?)"
fi
# The 0.1.16 build imports fs.globSync (node >= 22); on older node replace
# that import with a lazy stub, as /work/shared/tools/conformance does (only
# its tier-check command uses it).
if grep -q 'globSync as ' "$CLI" && ! grep -q '__fsNS' "$CLI"; then
  node - "$CLI" <<'JS' || { echo "conformance: cannot adapt the suite to this node" >&2; exit 1; }
const fs = require('fs'); const f = process.argv[2]; let s = fs.readFileSync(f, 'utf8');
const m = s.match(/import\{([^}]*)\}from"fs";/);
if (!m) process.exit(1);
const parts = m[1].split(','); const g = parts.find(p => p.startsWith('globSync as '));
if (!g) process.exit(1);
const alias = g.slice('globSync as '.length);
const rest = parts.filter(p => p !== g).join(',');
s = s.replace(m[0], `import{${rest}}from"fs";import*as __fsNS from"fs";const ${alias}=__fsNS.globSync??(()=>{throw Error("fs.globSync needs node>=22")});`);
fs.writeFileSync(f, s);
JS
fi
export MCPC
OUT=$(mktemp -d /tmp/mcpc-conformance.XXXXXX)
fail=0
for s in $SCENARIOS; do
  mkdir -p "$(dirname "$OUT/$s")" # auth/... names a folder
  node "$CLI" client --command "$HERE/client.sh" --scenario "$s" -o "$OUT/$s" >"$OUT/$s.log" 2>&1
  # judge by the checks the suite recorded: any FAILURE fails the scenario
  if node - "$OUT/$s" "$s" <<'JS'
const fs = require('fs'), path = require('path');
const [dir, name] = process.argv.slice(2);
const files = [];
(function walk(d) { if (!fs.existsSync(d)) return; for (const e of fs.readdirSync(d)) {
  const p = path.join(d, e); if (fs.statSync(p).isDirectory()) walk(p); else if (e === 'checks.json') files.push(p); } })(dir);
if (!files.length) { console.log(`FAIL ${name}: no checks recorded`); process.exit(1); }
let bad = 0, ok = 0;
for (const f of files) for (const c of JSON.parse(fs.readFileSync(f, 'utf8'))) {
  if (c.status === 'FAILURE') { bad++; console.log(`  FAILURE ${c.id}: ${c.errorMessage || c.description}`); }
  else if (c.status === 'SUCCESS') ok++;
  else if (c.status === 'WARNING') console.log(`  WARNING ${c.id}: ${c.errorMessage || c.description}`);
}
console.log(`${bad ? 'FAIL' : 'ok  '} ${name}: ${ok} passed, ${bad} failed`);
process.exit(bad || !ok ? 1 : 0);
JS
  then :; else fail=1; cat "$OUT/$s.log" >&2; fi
done
[ $fail -eq 0 ] && rm -rf "$OUT"
exit $fail
