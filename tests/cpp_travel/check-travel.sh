#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: check-travel.sh MCPC TRAVEL
# examples/cpp/travel.cpp (the reference documents' server in C++) through
# mcpc: flights from SQLite, customer lookup (a missing one is an isError
# result) and update, a report behind a resource_link, the export as a task
# (--task --wait), and an export a SIGKILL interrupted, resumed and
# completed by the restarted server (HTTP, SQLite task store).
set -eu
mcpc=$1; travel=$2
tmp=$(mktemp -d)
pid=
# pid is the server's timeout(1) (so the server dies with the test even when
# the test is killed without running this trap; --foreground: it passes a
# SIGTERM to the server once, not to its process group as well); server is
# the server itself
server=
trap '[ -n "$server" ] && kill -9 "$server" 2>/dev/null; [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "cpp_travel: $*"; exit 1; }
cd "$tmp"
export TRAVEL_DB="$tmp/travel.db" TRAVEL_TASKS="sqlite:$tmp/tasks.db"
expect() { # LABEL TEXT MCPC_ARGS...: the output holds TEXT
  label=$1; want=$2; shift 2
  out=$("$mcpc" "$@" 2>&1) || true
  case "$out" in *"$want"*) echo "cpp_travel: $label ok" ;; *) fail "$label: $out" ;; esac
}
s="-c $travel"
# shellcheck disable=SC2086
{
expect "tools/list" "build_report" $s tools list
expect "flights" '"fldate":"2026-12-09","price":666.0,"currency":"EUR","planetype":"A340-600"' \
  $s tools call get_flight_details carrid=LH connid=400
expect "customer without e-mail" '{"id":"C002","name":"Grace Hopper","city":"Arlington"}' \
  $s tools call get_customer_info customer_id=C002
expect "unknown customer" "no customer C009" $s tools call get_customer_info customer_id=C009
expect "update" "Customer C002 updated." $s tools call update_customer customer_id=C002 \
  email=grace@example.com
expect "updated customer" '"email":"grace@example.com"' $s tools call get_customer_info customer_id=C002
expect "report link" "[resource_link reports://sales/2026-Q3 sales-report]" \
  $s tools call build_report period=2026-Q3
expect "report" "Sales 2026-Q3: 2 orders, 244.99 total" $s resources read reports://sales/2026-Q3
expect "export task" '{"file":"export-customers.csv","rows":3}' \
  $s tools call start_export table=customers --task --wait
}
test "$(wc -l < export-customers.csv)" -eq 3 || fail "export-customers.csv: $(cat export-customers.csv)"

# an export interrupted by SIGKILL (one second per row: it is still running)
start() { # serves HTTP on $1 (0: a free port); sets pid and url
  timeout --foreground 300 "$travel" --http "127.0.0.1:$1" 2>"$tmp/http.log" &
  pid=$!
  url=
  for _ in $(seq 100); do
    url=$(sed -n 's/.*serving MCP on \(http:[^ ]*\).*/\1/p' "$tmp/http.log" 2>/dev/null || true)
    server=$(ps -o pid= --ppid "$pid" | tr -d ' ')
    [ -n "$url" ] && [ -n "$server" ] && return 0
    kill -0 "$pid" 2>/dev/null || fail "the HTTP server died: $(cat "$tmp/http.log")"
    sleep 0.1
  done
  fail "no URL printed: $(cat "$tmp/http.log")"
}
TRAVEL_ROW_MS=1000 start 0
out=$("$mcpc" -u "$url" tools call start_export table=flights --task 2>&1) || fail "--task: $out"
id=$(echo "$out" | grep -o '[0-9a-f]\{8\}-[0-9a-f]\{4\}-[0-9a-f]\{4\}-[0-9a-f]\{4\}-[0-9a-f]\{12\}' | head -n1)
[ -n "$id" ] || fail "no task id in: $out"
kill -9 "$server"
wait "$pid" 2>/dev/null || true
pid= server=
# the restart (on a new port: the task id is what names the task)
TRAVEL_ROW_MS=10 start 0
expect "resumed export" "Exported 5 rows to export-flights.csv (resumed after a restart)" \
  -u "$url" tasks result "$id"
kill "$pid"
wait "$pid" || fail "the HTTP server did not stop cleanly: $(cat "$tmp/http.log")"
pid= server=
grep -q "AddressSanitizer\|runtime error" "$tmp/http.log" && fail "sanitizer: $(cat "$tmp/http.log")"
echo "cpp_travel: ok"
