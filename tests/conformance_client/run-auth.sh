#!/bin/sh
# SPDX-License-Identifier: MIT
# run-auth.sh - runs the official MCP conformance suite's authorization client scenarios against
# mcpc:  run-auth.sh MCPC_BINARY [SCENARIO ...]
# Runs @modelcontextprotocol/conformance@0.1.16, installed and adapted by
# ../conformance/suite.sh. Exit 77 (skipped, with a message) when
# node or npm is missing, unless CI=true, where that is a failure.
set -u
MCPC=${1:?usage: run-auth.sh MCPC [SCENARIO ...]}; shift
SCENARIOS=${*:-"initialize tools_call elicitation-sep1034-client-defaults sse-retry"}
VERSION=0.1.16
HERE=$(cd "$(dirname "$0")" && pwd)
skip() {
  if [ "${CI:-}" = true ]; then echo "conformance: $1 (required when CI=true)" >&2; exit 1; fi
  echo "SKIP conformance client scenarios: $1" >&2; exit 77
}
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || skip "node and npm are not installed"
# installed and adapted to this node by the one script every suite test uses
CLI=$("$HERE/../conformance/suite.sh" "$VERSION") || skip "the conformance suite $VERSION is not usable here"
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
