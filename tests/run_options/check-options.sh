#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: check-options.sh APP
# mcp_server_run_with: the application's options in --help, from the command
# line and the environment (the command line wins), a callback's refusal
# as a usage error, a table mistake named.
set -u
app=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "run_options: $*"; echo "stdout:"; cat "$tmp/out"; echo "stderr:"; cat "$tmp/err"; exit 1; }
# run WANT_RC ARGS...: runs the app (stdin /dev/null: stdio ends at once)
run() {
  want=$1; shift
  rc=0
  "$app" "$@" </dev/null >"$tmp/out" 2>"$tmp/err" || rc=$?
  [ "$rc" -eq "$want" ] || fail "$*: exit $rc, not $want"
}
has() { grep -qF -- "$2" "$tmp/$1" || fail "no '$2' in $1"; }

run 0 --help
has out "--db PATH"; has out "the database (env APP_DB)"; has out "--verbose"
has out "--greeting TEXT"; has out "--http HOST:PORT"
run 0
has out "db=default verbose=- greeting=-"
run 0 --db x --verbose --greeting=hi
has out "db=x verbose=true greeting=hi"; has err "greeting=hi"
APP_DB=y run 0
has out "db=y "
APP_DB=y run 0 --db=z
has out "db=z "
APP_DB= run 0
has out "db=default "
run 2 --greeting bad
has err "run_options_app: --greeting: bad: no bad greetings"; has err "usage: run_options_app"
APP_GREETING=bad run 2
has err "--greeting from APP_GREETING: bad: no bad greetings"
run 2 --db
has err "missing value for --db"
APP_BAD_TABLE=1 run 1 --help
has err "option table, entry 0 (--http): the name is one of mcp_server_run's own options"
echo "run_options: ok"
