#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh - runs the official MCP conformance suite's client scenarios of one
# requirement set against a client program:
#   run.sh CLIENT_COMMAND REVISION [SCENARIO ...]
# REVISION is 2025-11-25, 2026-07-28 or "extension" (then name the
# scenarios); without scenarios every client
# scenario the suite requires for it runs, except the authorization ones
# (auth/*), which run instead with AUTH=only. Each runs at that
# revision's wire (--spec-version). Installs @modelcontextprotocol/conformance
# (VERSION, default 0.2.0-alpha.12) through ../conformance/suite.sh (a
# cache directory outside the repository, adapted to the node at hand). Exit 77 (skipped, with a message) when
# node or npm is missing, unless CI=true, where that is a failure.
set -u
CLIENT=${1:?usage: run.sh CLIENT_COMMAND REVISION [SCENARIO ...]}
REV=${2:?usage: run.sh CLIENT_COMMAND REVISION [SCENARIO ...]}
shift 2
VERSION=${VERSION:-0.2.0-alpha.12}
HERE=$(cd "$(dirname "$0")" && pwd)
skip() {
  if [ "${CI:-}" = true ]; then echo "conformance: $1 (required when CI=true)" >&2; exit 1; fi
  echo "SKIP conformance client scenarios: $1" >&2; exit 77
}
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || skip "node and npm are not installed"
# installed and adapted to this node by the one script every suite test uses
CLI=$("$HERE/../conformance/suite.sh" "$VERSION") || skip "the conformance suite $VERSION is not usable here"
# AUTH=only: the authorization scenarios (auth/*) instead of the others;
# outside CI only QUICK_AUTH of them unless AUTH_ALL=1 (CI runs them all).
required=$(node "$CLI" list --client --requirements "$REV" 2>/dev/null |
  sed -n '/^Client scenarios/,/^$/p' | sed -n 's/^  - //p')
if [ "${AUTH:-}" = only ]; then
  required=$(echo "$required" | grep '^auth/')
  if [ "${CI:-}" != true ] && [ "${AUTH_ALL:-}" != 1 ] && [ -n "${QUICK_AUTH:-}" ]; then
    required=$(for q in $QUICK_AUTH; do echo "$required" | grep -x "$q"; done)
  fi
else
  required=$(echo "$required" | grep -v '^auth/')
fi
SCENARIOS=${*:-$required}
# QUICK: outside CI (and unless ALL=1) only these of the named scenarios
if [ -n "${QUICK:-}" ] && [ "${CI:-}" != true ] && [ "${ALL:-}" != 1 ]; then
  SCENARIOS=$(for q in $QUICK; do echo "$SCENARIOS" | tr ' ' '\n' | grep -x "$q"; done)
fi
[ -n "$SCENARIOS" ] || { echo "conformance: no client scenarios for $REV" >&2; exit 1; }
OUT=$(mktemp -d /tmp/mcp-client-conformance.XXXXXX)
fail=0
for s in $SCENARIOS; do
  d="$OUT/$(echo "$s" | tr / _)"
  # REVISION "extension": extension scenarios, which stand outside the
  # spec timeline (no --spec-version)
  if [ "$REV" = extension ]; then
    node "$CLI" client --command "$CLIENT" --scenario "$s" -o "$d" >"$d.log" 2>&1
  else
    # FORCE=1: also the scenarios outside REV's timeline (extensions, other
    # revisions' scenarios), at REV's wire
    node "$CLI" client --command "$CLIENT" --scenario "$s" --spec-version "$REV" \
      ${FORCE:+--force} -o "$d" >"$d.log" 2>&1
  fi
  code=$?
  # judge by the checks the suite recorded (any FAILURE or WARNING fails)
  # and by its own verdict (a client that exits non-zero fails it)
  if node - "$d" "$s" "$code" <<'JS'
const fs = require('fs'), path = require('path');
const [dir, name, code] = process.argv.slice(2);
const files = [];
(function walk(d) { if (!fs.existsSync(d)) return; for (const e of fs.readdirSync(d)) {
  const p = path.join(d, e); if (fs.statSync(p).isDirectory()) walk(p); else if (e === 'checks.json') files.push(p); } })(dir);
if (!files.length) { console.log(`FAIL ${name}: no checks recorded`); process.exit(1); }
let bad = 0, ok = 0;
for (const f of files) for (const c of JSON.parse(fs.readFileSync(f, 'utf8'))) {
  if (c.status === 'FAILURE' || c.status === 'WARNING') { bad++; console.log(`  ${c.status} ${c.id}: ${c.errorMessage || c.description}`); }
  else if (c.status === 'SUCCESS') ok++;
}
if (code !== '0') { console.log(`  the suite's verdict: exit ${code}`); bad++; }
console.log(`${bad ? 'FAIL' : 'ok  '} ${name}: ${ok} passed, ${bad} failed`);
process.exit(bad || !ok ? 1 : 0);
JS
  then :; else fail=1; cat "$d.log" >&2; fi
done
[ $fail -eq 0 ] && rm -rf "$OUT"
exit $fail
