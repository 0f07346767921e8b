#!/bin/sh
# SPDX-License-Identifier: MIT
# run-servers.sh PEER MCPC INTEROP_CLIENT - mcpc and libmcp-client (the
# interop_client program) against a server written with another SDK, over
# stdio and then Streamable HTTP on a free loopback port. PEER is one of
#   py2  Python `mcp` 2.x (PyPI), peers/py_server.py: both eras on both
#        transports (auto: server/discover -> 2026-07-28; forced 2025-11-25)
#   ts2  TypeScript @modelcontextprotocol/server 2.x (npm),
#        peers/ts2_server.mjs: both eras on both transports; over HTTP the
#        2025-11-25 era is the SDK's stateless fallback, which cannot send
#        the client a request, so no elicitation there
#   ts1  TypeScript @modelcontextprotocol/sdk 1.x (npm), peers/ts1_server.mjs:
#        2025-11-25 (auto mode falls back from server/discover to
#        initialize), with a task (the SDK's experimental tasks)
# Neither 2.x server SDK implements tasks, so only ts1 runs a task.
# Each run: list tools, call one, an isError result, read a resource, get a
# prompt, an elicitation answered by the client (mcpc: --elicit accept;
# libmcp-client: its elicitation handler), a task where the peer has one,
# and in 2026-07-28 a public read result shared between two libmcp-client
# handles through an mcp_client_cache_t.
# The SDKs are installed into INTEROP_CACHE (default ~/.cache/libmcp-interop:
# py2/ venv, ts2s/ npm project, the top npm project for ts1). Exit 77
# (skipped, with a message) only when the registry cannot be reached or
# node/python is missing, and then exit 1 instead when CI=true.
set -u
usage="usage: run-servers.sh py2|ts2|ts1 MCPC INTEROP_CLIENT"
PEER=${1:?$usage}
MCPC=${2:?$usage}
ICLIENT=${3:?$usage}
HERE=$(cd "$(dirname "$0")" && pwd)
INTEROP_LABEL="$PEER server"
. "$HERE/lib.sh"

install_lock
case $PEER in
py2)
  install_py2
  SERVER="$PY $HERE/peers/py_server.py"
  ERAS="auto:2026-07-28 2025-11-25:2025-11-25"
  ;;
ts2 | ts1)
  if [ "$PEER" = ts2 ]; then
    DIR="$CACHE/ts2s"
    npm_install "$DIR" @modelcontextprotocol/server '@modelcontextprotocol/server@^2'
    ERAS="auto:2026-07-28 2025-11-25:2025-11-25"
  else
    DIR="$CACHE"
    npm_install "$DIR" @modelcontextprotocol/sdk '@modelcontextprotocol/sdk@^1'
    ERAS="auto:2025-11-25 2025-11-25:2025-11-25"
  fi
  # The script must sit next to node_modules to resolve the SDK.
  cp "$HERE/peers/${PEER}_server.mjs" "$DIR/${PEER}_server.mjs" || exit 1
  SERVER="node $DIR/${PEER}_server.mjs"
  ;;
*)
  echo "run-servers.sh: unknown peer $PEER" >&2
  exit 2
  ;;
esac
install_unlock

fail=0
bad() {
  echo "interop $PEER server: FAIL $1" >&2
  [ -s "$WORK/out" ] && sed 's/^/  | /' "$WORK/out" >&2
  fail=1
}
# mcpc_runs TRANSPORT PROTOCOL EXPECTED CONNECT-OPTION...: the mcpc checks.
mcpc_runs() {
  via=$1 proto=$2 want=$3
  shift 3
  what="mcpc over $via, --protocol $proto"
  m() { timeout 60 "$MCPC" "$@" --protocol "$proto" >"$WORK/out" 2>&1 </dev/null; }
  m "$@" info && grep -q "protocol: $want" "$WORK/out" ||
    bad "$what: info (expected protocol $want)"
  m "$@" tools list && grep -q archive "$WORK/out" || bad "$what: tools list"
  m "$@" tools call add a=20 b=22 && grep -q '"sum":42' "$WORK/out" ||
    bad "$what: tools call add"
  m "$@" tools call fail
  [ $? -eq 1 ] || bad "$what: tools call fail: isError is exit 1"
  m "$@" resources read interop://greeting && grep -q "hello from $PEER" "$WORK/out" ||
    bad "$what: resources read"
  m "$@" prompts get greet name=Ada && grep -q "greet Ada" "$WORK/out" ||
    bad "$what: prompts get"
  if [ "$via $PEER $want" = "http ts2 2025-11-25" ]; then
    echo "  skip elicitation: the SDK's stateless 2025-11-25 fallback cannot ask the client"
  else
    m "$@" --elicit accept --elicit-content '{"confirm": true}' tools call archive older_than_days=30 &&
      grep -q "asks: Archive the orders older than 30 days" "$WORK/out" &&
      grep -q "archived 42 orders" "$WORK/out" || bad "$what: elicitation"
  fi
  if [ "$PEER" = ts1 ]; then
    m "$@" tools call square n=7 --task --wait && grep -q "square=49" "$WORK/out" ||
      bad "$what: task (tools call --task --wait)"
  fi
  echo "  $what: done"
}
# client_run TRANSPORT PROTOCOL EXPECTED CONNECT-ARGS...: libmcp-client.
client_run() {
  via=$1 proto=$2 want=$3
  shift 3
  set -- --protocol "$proto" --expect "$want" "$@"
  [ "$via $PEER $want" = "http ts2 2025-11-25" ] && set -- --no-elicit "$@"
  [ "$PEER" = ts1 ] && set -- --task "$@"
  # the 2.x peers mark their resource public with a ttlMs in 2026-07-28
  [ "$want" = 2026-07-28 ] && set -- --shared-cache "$@"
  timeout 120 "$ICLIENT" "$@" >"$WORK/out" 2>&1 ||
    bad "libmcp-client over $via, --protocol $proto"
  echo "  libmcp-client over $via, --protocol $proto: $(grep -c '^ok ' "$WORK/out") checks"
}

echo "== $PEER over stdio"
for era in $ERAS; do
  mcpc_runs stdio "${era%%:*}" "${era##*:}" -c "$SERVER stdio"
  # shellcheck disable=SC2086 # SERVER is a command line
  client_run stdio "${era%%:*}" "${era##*:}" -- $SERVER stdio
done

echo "== $PEER over HTTP"
# shellcheck disable=SC2086 # SERVER is a command line
start_on_free_port "$WORK/server.log" $SERVER http PORT
if [ -z "$PID" ]; then
  echo "interop $PEER server: the peer did not start on HTTP:" >&2
  cat "$WORK/server.log" >&2
  exit 1
fi
URL="http://127.0.0.1:$PORT/mcp"
for era in $ERAS; do
  mcpc_runs http "${era%%:*}" "${era##*:}" -u "$URL"
  client_run http "${era%%:*}" "${era##*:}" -u "$URL"
done
if [ $fail -ne 0 ]; then
  echo "interop $PEER server: the peer's log:" >&2
  sed 's/^/  | /' "$WORK/server.log" >&2
  exit 1
fi
echo "interop $PEER server: ok"
