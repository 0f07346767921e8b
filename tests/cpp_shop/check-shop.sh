#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: check-shop.sh MCPC SHOP [LABEL]
# examples/cpp/shop.cpp (or its C twin examples/shop/shop.c, LABEL shop)
# through mcpc, over stdio and over HTTP (--http, from
# mcp::run), in both protocol eras: tools/list shows quote with its input
# and output schemas, quote answers structuredContent, resources/read
# shop://terms and prompts/get order_help work.
set -eu
mcpc=$1; shop=$2; label=${3:-cpp_shop}
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "$label: $*"; exit 1; }

# check LABEL PYTHON_ASSERTION MCPC_ARGS...: the JSON output of mcpc as j
check() {
  step=$1; expr=$2; shift 2
  "$mcpc" --format json "$@" >"$tmp/out.json" 2>"$tmp/err" ||
    fail "$step: mcpc $*: $(cat "$tmp/err" "$tmp/out.json")"
  python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
if not eval("(" + sys.argv[2] + ")"):
    sys.exit("assertion failed: " + sys.argv[2] + "\n" + json.dumps(j))
' "$tmp/out.json" "$expr" || fail "$step"
  echo "$label: $step ok"
}

exercise() { # $1: label; the rest: how mcpc connects
  where=$1; shift
  check "$where tools/list" '
len(j["tools"]) == 1 and j["tools"][0]["name"] == "quote" and
j["tools"][0]["inputSchema"] == {"type": "object", "properties": {
  "item": {"type": "string", "enum": ["mug", "shirt"], "description": "Article"},
  "quantity": {"type": "integer", "description": "How many", "minimum": 1, "maximum": 100},
  "express": {"type": "boolean", "description": "Express delivery (+5)", "default": False}},
  "required": ["item", "quantity"]} and
j["tools"][0]["outputSchema"] == {"type": "object", "properties": {
  "total": {"type": "number", "description": "Price"},
  "currency": {"type": "string", "description": "ISO 4217 code"}},
  "required": ["total", "currency"]}' "$@" tools list
  check "$where tools/call quote" \
    'j["structuredContent"] == {"total": 24.0, "currency": "EUR"} and not j.get("isError")' \
    "$@" tools call quote --args '{"item":"shirt","quantity":1,"express":true}'
  # a tool error: mcpc exits 1 and prints the isError result
  if "$mcpc" --format json "$@" tools call quote --args '{"item":"mug","quantity":101}' \
       >"$tmp/out.json" 2>&1; then
    fail "$where: quantity 101 was accepted"
  fi
  grep -q '"isError": true' "$tmp/out.json" || fail "$where: no isError: $(cat "$tmp/out.json")"
  check "$where resources/read shop://terms" \
    'j["contents"][0]["uri"] == "shop://terms" and "returns within 30 days" in j["contents"][0]["text"]' \
    "$@" resources read shop://terms
  check "$where prompts/get order_help" \
    'j["messages"][0]["role"] == "user" and j["messages"][0]["content"]["text"] == "Help me order mug from the shop."' \
    "$@" prompts get order_help item=mug
}

exercise "stdio" -c "$shop"
exercise "stdio 2025-11-25" -c "$shop" --protocol 2025-11-25

# HTTP on a free port; the server dies with this script (timeout) even when
# the script is killed without running its trap. --foreground: timeout
# passes our SIGTERM to the server once (without it, it signals its whole
# process group as well, and a second SIGTERM during the graceful stop
# ends the server at once)
timeout --foreground 300 "$shop" --http 127.0.0.1:0 2>"$tmp/shop.log" &
pid=$!
url=
for _ in $(seq 100); do
  url=$(sed -n 's/.*serving MCP on \(http:[^ ]*\).*/\1/p' "$tmp/shop.log" 2>/dev/null || true)
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || fail "the HTTP server died: $(cat "$tmp/shop.log")"
  sleep 0.1
done
[ -n "$url" ] || fail "no URL printed: $(cat "$tmp/shop.log")"
exercise "HTTP" -u "$url"
exercise "HTTP 2025-11-25" -u "$url" --protocol 2025-11-25
kill "$pid"
rc=0
wait "$pid" || rc=$?
[ $rc -eq 0 ] || fail "the HTTP server did not stop cleanly on SIGTERM (exit $rc): $(cat "$tmp/shop.log")"
pid=
echo "$label: ok"
