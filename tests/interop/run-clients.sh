#!/bin/sh
# SPDX-License-Identifier: MIT
# run-clients.sh CLIENT DEMO_BIN - runs one official SDK client against
# mcp-demo-server, over stdio and then over Streamable HTTP on a free
# loopback port. CLIENT is one of
#   py2  Python `mcp` 2.x Client, default mode (server/discover: 2026-07-28)
#   ts2  TypeScript @modelcontextprotocol/client 2.x, negotiation 'auto'
#   ts1  TypeScript @modelcontextprotocol/sdk 1.x (2025-11-25, initialize)
# The SDKs are installed from their registries into INTEROP_CACHE (default
# ~/.cache/libmcp-interop; py2: a venv in py2/, ts2: npm project ts2/, ts1:
# the top npm project, shared with run-servers.sh ts1). Exit 77 (skipped, with a message)
# only when the registry cannot be reached or node/python is missing, and
# then exit 1 instead when CI=true. Sanitizer reports of the server fail.
set -u
CLIENT=${1:?usage: run-clients.sh py2|ts2|ts1 DEMO_BIN}
DEMO=${2:?usage: run-clients.sh py2|ts2|ts1 DEMO_BIN}
PAGE_SIZE=6 # the demo's tools span at least two tools/list pages
HERE=$(cd "$(dirname "$0")" && pwd)
INTEROP_LABEL=$CLIENT
. "$HERE/lib.sh"

install_lock
case $CLIENT in
py2)
  install_py2
  set -- "$PY" "$HERE/py_client.py"
  ;;
ts2 | ts1)
  if [ "$CLIENT" = ts2 ]; then
    DIR="$CACHE/ts2"
    npm_install "$DIR" @modelcontextprotocol/client '@modelcontextprotocol/client@^2'
  else
    DIR="$CACHE"
    npm_install "$DIR" @modelcontextprotocol/sdk '@modelcontextprotocol/sdk@^1'
  fi
  # The script must sit next to node_modules to resolve the SDK.
  cp "$HERE/ts_client.mjs" "$DIR/ts_client.mjs" || exit 1
  set -- node "$DIR/ts_client.mjs" "$CLIENT"
  ;;
*)
  echo "run-clients.sh: unknown client $CLIENT" >&2
  exit 2
  ;;
esac
install_unlock

fail=0
sanitizer_clean() { # log
  if grep -q 'Sanitizer' "$1"; then
    echo "interop $CLIENT: sanitizer report from the server:" >&2
    cat "$1" >&2
    return 1
  fi
}

# stdio: the client starts the server itself.
echo "== $CLIENT over stdio"
if ! timeout 180 "$@" stdio "$DEMO" "$WORK/stdio.db" "$PAGE_SIZE" 2>"$WORK/stdio.err"; then
  echo "interop $CLIENT over stdio failed:" >&2
  cat "$WORK/stdio.err" >&2
  fail=1
fi
sanitizer_clean "$WORK/stdio.err" || fail=1

# HTTP: a free port (retried when another process takes it first).
echo "== $CLIENT over HTTP"
start_on_free_port "$WORK/server.err" "$DEMO" --http "127.0.0.1:PORT" \
  --db "$WORK/http.db" --store "sqlite:$WORK/http.db" --page-size "$PAGE_SIZE"
if [ -z "$PID" ]; then
  echo "interop $CLIENT: the demo server did not start on HTTP:" >&2
  cat "$WORK/server.err" >&2
  exit 1
fi
if ! timeout 180 "$@" http "http://127.0.0.1:$PORT/mcp" 2>"$WORK/http.err"; then
  echo "interop $CLIENT over HTTP failed:" >&2
  cat "$WORK/http.err" >&2
  fail=1
fi
kill "$PID" 2>/dev/null
wait "$PID" 2>/dev/null
PID=
sanitizer_clean "$WORK/server.err" || fail=1
[ $fail -eq 0 ] && echo "interop $CLIENT: ok"
exit $fail
