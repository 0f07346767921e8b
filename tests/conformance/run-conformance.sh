#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: run-conformance.sh SERVER_BINARY CONFORMANCE_SCRIPT [KNOWN_FAILURES
#        [SUITE ARGS...]]
# Starts the conformance server on a free loopback port, runs the suite's
# server scenarios against http://127.0.0.1:PORT/mcp (VERSION in the
# environment picks the suite's version, SUITE ARGS e.g. --requirements
# 2026-07-28) and fails unless every failing check is listed in
# KNOWN_FAILURES ("-" for none: then the summary must say "N passed, 0
# failed"). A listed check that passes is reported so the list shrinks.
# Exit 77 = skipped (no node/npm, or the suite cannot be installed, outside
# CI).
set -uo pipefail
SERVER=${1:?server binary}
SUITE=${2:?conformance script}
KNOWN=${3:--}
shift 2
[ $# -gt 0 ] && shift

skip_or_fail() {
  if [ "${CI:-}" = "true" ]; then
    echo "conformance: FAIL (CI=true): $*" >&2
    exit 1
  fi
  echo "conformance: SKIPPED: $*" >&2
  exit 77
}

command -v node >/dev/null && command -v npm >/dev/null ||
  skip_or_fail "node and npm are required to run the MCP conformance suite"
[ -x "$SUITE" ] || skip_or_fail "$SUITE not found"
# The suite is installed and adapted to this node by the one script every
# suite test uses (under a lock: CTest runs several at once); $SUITE then
# finds it ready in the same cache directory.
export VERSION=${VERSION:-0.1.16}
CLI=$("$(dirname "$0")/suite.sh" "$VERSION") ||
  skip_or_fail "the conformance suite $VERSION could not be installed"
export CACHE=${CLI%/node_modules/*}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

LOG=$(mktemp /tmp/conformance-server.XXXXXX)
PID=
cleanup() {
  rc=$?
  if [ -n "$PID" ] && ! kill -0 "$PID" 2>/dev/null; then
    echo "conformance: the server exited during the run; its output:" >&2
    tail -n 80 "$LOG" >&2
  elif [ "$rc" -ne 0 ] && [ -s "$LOG" ]; then
    echo "conformance: the server's output (last lines):" >&2
    tail -n 40 "$LOG" >&2
  fi
  [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  rm -f "$LOG"
}
trap cleanup EXIT

for attempt in 1 2 3 4 5; do
  PORT=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
  port_free "$PORT" || continue
  "$SERVER" --http "127.0.0.1:$PORT" >"$LOG" 2>&1 &
  PID=$!
  for _ in $(seq 1 100); do
    if ! kill -0 "$PID" 2>/dev/null; then PID=; break; fi
    if ! port_free "$PORT"; then
      # Someone answers on the port; make sure it is our server and not a
      # process that took the port first (ours then exits: address in use).
      sleep 0.3
      if kill -0 "$PID" 2>/dev/null && ! grep -q "cannot listen" "$LOG"; then
        break 2
      fi
      PID=
      break
    fi
    sleep 0.05
  done
  [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  PID=
done
[ -n "$PID" ] || { echo "conformance: the server did not start" >&2; cat "$LOG" >&2; exit 1; }

OUT=$("$SUITE" "http://127.0.0.1:$PORT/mcp" "$@" 2>&1)
RC=$?
echo "$OUT"
if [ $RC -eq 2 ] && echo "$OUT" | grep -q "npm install failed\|node and npm are required"; then
  skip_or_fail "the conformance suite could not be installed"
fi
LAST=$(echo "$OUT" | tail -n 1)
case "$LAST" in
  "0 passed, "*) echo "conformance: no check ran (all skipped?)" >&2; exit 1 ;;
  *" passed, "*" failed") ;;
  *) echo "conformance: no summary (exit $RC)" >&2; exit 1 ;;
esac
FAILED=$(echo "$OUT" | sed -n 's/^ *FAILURE \([^:]*\):.*/\1/p' | sort -u)
if [ "$KNOWN" = "-" ]; then
  case "$LAST" in
    *" passed, 0 failed") ;;
    *) echo "conformance: failures (exit $RC)" >&2; exit 1 ;;
  esac
else
  LISTED=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$KNOWN" | grep -v '^$' | sort -u)
  NEW=$(comm -23 <(echo "$FAILED" | grep -v '^$') <(echo "$LISTED"))
  FIXED=$(comm -13 <(echo "$FAILED" | grep -v '^$') <(echo "$LISTED"))
  [ -n "$FIXED" ] && echo "conformance: listed as known but passing now (remove from $KNOWN):" $FIXED
  if [ -n "$NEW" ]; then
    echo "conformance: failures not in $KNOWN:" $NEW >&2
    exit 1
  fi
fi
# The server must stop cleanly (sanitizer reports show up as a non-zero exit).
kill -TERM "$PID"
wait "$PID"
SRC=$?
PID=
if [ $SRC -ne 0 ]; then
  echo "conformance: the server exited with status $SRC" >&2
  cat "$LOG" >&2
  exit 1
fi
exit 0
