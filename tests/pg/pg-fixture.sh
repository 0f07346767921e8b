#!/bin/sh
# SPDX-License-Identifier: MIT
# pg-fixture.sh start|stop|restart|kill ENVFILE
# A private PostgreSQL for the tests: initdb into a fresh temporary
# directory, listening only on a Unix socket in that directory (no TCP port,
# so parallel builds never collide), run as the "postgres" user when called
# as root (PostgreSQL refuses root). `start` writes ENVFILE:
#   MCP_PG_CONNINFO='host=DIR port=5432 user=postgres dbname=postgres'
#   MCP_PG_URI='postgresql://postgres@/postgres?host=DIR' (the same, as URI)
#   MCP_PG_DATA=DIR/data
# or, when PostgreSQL is not installed and CI is not true, MCP_PG_SKIP='why'
# (the tests then exit 77 with that message). With CI=true a missing
# PostgreSQL fails. `stop` stops the server and removes the directory;
# `restart` stops it (fast) and starts it again on the same data; `down`
# and `up` do each half of that. `start` also leaves a watchdog
# (tests/util/watchdog.sh) that runs `reap` (stop at once, remove) when the
# owner ends without `stop`: MCP_PG_OWNER (a pid), else the caller (CTest).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cmd=${1:?usage: pg-fixture.sh start|stop|restart|down|up|reap ENVFILE}
envfile=${2:?usage: pg-fixture.sh start|stop|restart|down|up|reap ENVFILE}

bindir=
for d in "$(pg_config --bindir 2>/dev/null)" /usr/lib/postgresql/*/bin; do
  if [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then bindir=$d; fi
done

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

skip() {
  if [ "${CI:-}" = true ]; then
    echo "pg-fixture: $1 (PostgreSQL is required when CI=true)" >&2
    exit 1
  fi
  echo "pg-fixture: SKIP PostgreSQL tests: $1" >&2
  printf "MCP_PG_SKIP='%s'\n" "$1" >"$envfile"
  exit 0
}

case $cmd in
start)
  rm -f "$envfile"
  [ -n "$bindir" ] || skip "initdb/pg_ctl not found (apt-get install postgresql)"
  if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
    skip "running as root and there is no 'postgres' user to run the server"
  fi
  dir=$(mktemp -d /tmp/libmcp-pg.XXXXXX) || exit 1
  chmod 755 "$dir"
  [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
  if ! as_owner "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust \
      -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1; then
    cat "$dir/initdb.log" >&2
    rm -rf "$dir"
    echo "pg-fixture: initdb failed" >&2
    exit 1
  fi
  # tests: no fsync unless MCP_PG_FSYNC=on (a crash of this machine loses a
  # test database; benchmarks measure with it on)
  cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$dir'
port = 5432
fsync = ${MCP_PG_FSYNC:-off}
max_connections = 200
shared_buffers = 32MB
CONF
  if ! as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
      -t 60 start >/dev/null; then
    cat "$dir/server.log" >&2
    rm -rf "$dir"
    echo "pg-fixture: the server did not start" >&2
    exit 1
  fi
  # The server is a daemon: nothing kills it with its owner (CTest for the
  # shared fixture, or the test program that started a private one, named by
  # MCP_PG_OWNER). A watchdog stops it and removes its directory once the
  # owner has ended, killed at its timeout included.
  owner=${MCP_PG_OWNER:-$PPID}
  watchdog=$("$here/../util/watchdog.sh" "$owner" "$here/pg-fixture.sh" reap "$envfile")
  {
    printf "MCP_PG_WATCHDOG='%s'\n" "$watchdog"
    printf "MCP_PG_CONNINFO='host=%s port=5432 user=postgres dbname=postgres'\n" "$dir"
    printf "MCP_PG_URI='postgresql://postgres@/postgres?host=%s'\n" "$dir"
    printf "MCP_PG_DATA='%s/data'\n" "$dir"
    printf "MCP_PG_BIN='%s'\n" "$bindir"
  } >"$envfile"
  echo "pg-fixture: PostgreSQL running in $dir"
  ;;
stop | restart | down | up | reap)
  [ -f "$envfile" ] || exit 0
  MCP_PG_DATA= MCP_PG_WATCHDOG=
  . "$envfile"
  [ -n "$MCP_PG_DATA" ] || exit 0
  if [ "$cmd" = reap ]; then # the watchdog's: the owner is gone, nobody waits
    as_owner "$bindir/pg_ctl" -D "$MCP_PG_DATA" -m immediate -w stop >/dev/null 2>&1
  elif [ "$cmd" != up ]; then
    as_owner "$bindir/pg_ctl" -D "$MCP_PG_DATA" -m fast -w stop >/dev/null 2>&1
  fi
  if [ "$cmd" = restart ] || [ "$cmd" = up ]; then
    as_owner "$bindir/pg_ctl" -D "$MCP_PG_DATA" -l "$MCP_PG_DATA/../server.log" \
      -w -t 60 start >/dev/null || exit 1
  fi
  if [ "$cmd" = stop ] && [ -n "$MCP_PG_WATCHDOG" ]; then
    kill "$MCP_PG_WATCHDOG" 2>/dev/null
  fi
  if [ "$cmd" = stop ] || [ "$cmd" = reap ]; then
    rm -rf "$(dirname "$MCP_PG_DATA")"
    rm -f "$envfile"
  fi
  ;;
*)
  echo "pg-fixture: unknown command $cmd" >&2
  exit 2
  ;;
esac
