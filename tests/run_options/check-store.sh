#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: check-store.sh STORE_APP
# mcp_server_run --store SPEC / MCP_STORE: tasks enabled on that store when
# a tool runs as a task (the tasks capability is declared, a SQLite file is
# created), refused with exit 2 and the reason when no tool needs it or the
# program has its own store; in --help.
set -u
app=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "run_store: $*"; echo "stdout:"; cat "$tmp/out"; echo "stderr:"; cat "$tmp/err"; exit 1; }
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
# run WANT_RC ARGS...: one initialize over stdio, then end of input
run() {
  want=$1; shift
  rc=0
  echo "$init" | "$app" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [ "$rc" -eq "$want" ] || fail "$*: exit $rc, not $want"
}
has() { grep -qF -- "$2" "$tmp/$1" || fail "no '$2' in $1"; }
hasnt() { ! grep -qF -- "$2" "$tmp/$1" || fail "'$2' in $1"; }

run 0 --help
has out "--store SPEC"; has out "MCP_STORE=SPEC"
# without a store a task tool is refused, the hint names --store
STORE_APP_TOOLS=task run 1
has err "need"; has err "(or give a task store: --store SPEC or MCP_STORE)"
# --store memory: tasks on
STORE_APP_TOOLS=task run 0 --store memory
has out '"tasks"'
# MCP_STORE=sqlite:PATH: the file is the store
STORE_APP_TOOLS=task MCP_STORE="sqlite:$tmp/tasks.db" run 0
has out '"tasks"'
[ -s "$tmp/tasks.db" ] || fail "no SQLite store at $tmp/tasks.db"
# the command line wins over the environment
STORE_APP_TOOLS=task MCP_STORE="sqlite:$tmp/env.db" run 0 --store memory
[ ! -e "$tmp/env.db" ] || fail "MCP_STORE used although --store was given"
# an empty variable counts as unset
STORE_APP_TOOLS=plain MCP_STORE= run 0
hasnt out '"tasks"'
# nothing would use it: refused, not ignored
STORE_APP_TOOLS=plain run 2 --store memory
has err "--store refused: no tool runs as a task"
STORE_APP_TOOLS=none MCP_STORE=memory run 2
has err "MCP_STORE refused: no tool runs as a task"
# the program's own store: a second one is refused
STORE_APP_TOOLS=own run 2 --store memory
has err "--store refused: the program enabled tasks on its own store"
STORE_APP_TOOLS=own run 0
has out '"tasks"'
# a spec mcp_store_open does not know
STORE_APP_TOOLS=task run 2 --store bogus
has err "--store refused:"
run 2 --store
has err "missing value for --store"
echo "run_store: ok"
