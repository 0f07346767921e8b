#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: check-configs.sh MCPC DEMO_BIN CLIENTS_MD
# Every JSON block of docs/clients.md marked <!-- config: NAME --> is a
# client configuration (Claude Desktop, VS Code, Cursor; stdio or HTTP).
# Each is written to a file with the page's example paths and port replaced
# by this build's, and mcpc, which reads the same files, calls add through
# it: the configurations on the page are the ones that work.
set -eu
mcpc=$1; demo=$2; md=$3
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "clients: $*"; exit 1; }

# the HTTP demo on a free port (tests run in parallel: retry on a taken one)
i=0
while :; do
  i=$((i + 1))
  [ $i -le 20 ] || fail "no free port for the demo"
  port=$(( ( ($$ * 31 + i * 7919) % 25000 ) + 30000 ))
  "$demo" --http "127.0.0.1:$port" --db "$tmp/http.db" 2>"$tmp/demo.log" &
  pid=$!
  up=no
  for _ in $(seq 50); do
    if "$mcpc" -u "http://127.0.0.1:$port/mcp" ping >/dev/null 2>&1; then up=yes; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ $up = yes ] && break
  kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=
done

names=$(sed -n 's/^<!-- config: \([a-z-]*\) -->$/\1/p' "$md")
[ -n "$names" ] || fail "no <!-- config: NAME --> blocks in $md"
n=0
for name in $names; do
  awk -v want="$name" '
    $0 == "<!-- config: " want " -->" { armed = 1; next }
    armed && /^```json/ { inb = 1; next }
    inb && /^```/ { exit }
    inb { print }' "$md" |
    sed -e "s|/home/me/libmcp/build/bin/mcp-demo-server|$demo|g" \
        -e "s|/home/me/mcp-demo.db|$tmp/stdio.db|g" \
        -e "s|127.0.0.1:8808|127.0.0.1:$port|g" > "$tmp/$name.json"
  [ -s "$tmp/$name.json" ] || fail "$name: empty block"
  out=$("$mcpc" --servers "$tmp/$name.json" -p libmcp-demo tools call add a=10 b=5 2>&1) ||
    fail "$name: mcpc failed: $out"
  echo "$out" | grep -q '15' || fail "$name: add did not give 15: $out"
  case $name in
    *-http) grep -q '"url"' "$tmp/$name.json" || fail "$name: no url" ;;
    *-stdio) grep -q '"command"' "$tmp/$name.json" || fail "$name: no command" ;;
  esac
  n=$((n + 1))
  echo "clients: $name ok"
done
[ $n -ge 5 ] || fail "only $n configurations found"
echo "clients: $n configurations work"
