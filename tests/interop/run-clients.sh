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
CACHE=${INTEROP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libmcp-interop}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
PID=
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

skip() {
  if [ "${CI:-}" = true ]; then
    echo "interop $CLIENT: $1 (required when CI=true)" >&2
    exit 1
  fi
  echo "SKIP interop $CLIENT: $1" >&2
  exit 77
}
# An install failed: skip when the registry is unreachable, else fail.
install_failed() { # what registry-probe-command...
  what=$1
  shift
  if "$@" >/dev/null 2>&1; then
    echo "interop $CLIENT: installing $what failed although its registry" \
      "answers:" >&2
    cat "$WORK/install.log" >&2
    exit 1
  fi
  skip "the registry of $what cannot be reached (offline?)"
}

mkdir -p "$CACHE" || skip "cannot create $CACHE"
# One installer at a time (the tests run in parallel).
exec 9>"$CACHE/.install-lock"
flock 9 2>/dev/null || true
case $CLIENT in
py2)
  command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
  RUN="$CACHE/py2/bin/python"
  if ! "$RUN" -c 'import importlib.metadata as m, sys
sys.exit(not m.version("mcp").startswith("2."))' 2>/dev/null; then
    { python3 -m venv "$CACHE/py2" &&
      "$CACHE/py2/bin/pip" install -q 'mcp>=2,<3'; } >"$WORK/install.log" 2>&1 ||
      install_failed "mcp (PyPI)" python3 -c 'import os, urllib.request as u
index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")
u.urlopen(index + "/mcp/", timeout=20)'
  fi
  set -- "$RUN" "$HERE/py_client.py"
  ;;
ts2 | ts1)
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
    skip "node and npm are not installed"
  if [ "$CLIENT" = ts2 ]; then
    DIR="$CACHE/ts2" PKG=@modelcontextprotocol/client SPEC='@modelcontextprotocol/client@^2'
  else
    DIR="$CACHE" PKG=@modelcontextprotocol/sdk SPEC='@modelcontextprotocol/sdk@^1'
  fi
  major=$(node -p "require('$DIR/node_modules/$PKG/package.json').version" \
    2>/dev/null | cut -d. -f1)
  if [ "$major" != "${SPEC##*^}" ]; then
    mkdir -p "$DIR" && (cd "$DIR" && { [ -f package.json ] || npm init -y >/dev/null; } &&
      npm install --no-audit --no-fund --loglevel=error "$SPEC") \
      >"$WORK/install.log" 2>&1 ||
      install_failed "$PKG (npm)" npm ping
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
flock -u 9 2>/dev/null || true
exec 9>&-

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
for attempt in 1 2 3; do
  PORT=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
    node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  "$DEMO" --http "127.0.0.1:$PORT" --db "$WORK/http.db" --store "sqlite:$WORK/http.db" \
    --page-size "$PAGE_SIZE" 2>"$WORK/server.err" &
  PID=$!
  i=0
  until node -e "require('net').connect($PORT,'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))" 2>/dev/null ||
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 1)" 2>/dev/null; do
    kill -0 "$PID" 2>/dev/null || break
    i=$((i + 1))
    [ $i -gt 300 ] && break
    sleep 0.1
  done
  kill -0 "$PID" 2>/dev/null && break
  wait "$PID" 2>/dev/null
  PID=
done
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
