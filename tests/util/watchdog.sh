#!/bin/sh
# SPDX-License-Identifier: MIT
# watchdog.sh OWNER_PID CMD [ARG ...] - runs CMD once the process OWNER_PID
# has ended, and prints the watchdog's own pid (kill it when CMD is no
# longer needed).
# For fixtures that outlive the command that started them (a PostgreSQL
# server daemonized by pg_ctl): when their owner (CTest, or the test program)
# ends in any way, killed at its timeout included, CMD stops them. The
# watchdog runs in a session of its own with no inherited descriptors, so
# neither CTest (which waits for a test's output pipes to close) nor a kill of
# the test's process tree reaches it.
set -u
owner=${1:?usage: watchdog.sh OWNER_PID CMD [ARG ...]}
shift
[ $# -gt 0 ] || { echo "usage: watchdog.sh OWNER_PID CMD [ARG ...]" >&2; exit 2; }
setsid sh -c 'owner=$1; shift
  while kill -0 "$owner" 2>/dev/null; do sleep 1; done
  exec "$@"' watchdog "$owner" "$@" </dev/null >/dev/null 2>&1 &
echo $!
