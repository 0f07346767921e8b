#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# python-tasks.sh DEMO - the Python MCP SDK (PyPI mcp 2.x, installed with pip
# into a venv in INTEROP_CACHE, default ~/.cache/libmcp-interop/python) runs
# the demo's start_long_export as a 2026-07-28 task (tasks extension) against
# mcp-demo-server over Streamable HTTP (python_tasks.py). Exit 77 (skipped,
# with a message) without python3/venv or when PyPI is unreachable, unless
# CI=true.
set -u
DEMO=${1:?usage: python-tasks.sh DEMO}
CACHE=${INTEROP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libmcp-interop}/python
HERE=$(cd "$(dirname "$0")" && pwd)
skip() {
  if [ "${CI:-}" = true ]; then echo "interop: $1 (required when CI=true)" >&2; exit 1; fi
  echo "SKIP interop with the Python SDK: $1" >&2; exit 77
}
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
PY=$CACHE/venv/bin/python
if ! "$PY" -c 'import mcp.client.extension' 2>/dev/null; then
  rm -rf "$CACHE/venv"
  mkdir -p "$CACHE" && python3 -m venv "$CACHE/venv" >/dev/null 2>&1 ||
    skip "python3 -m venv failed"
  "$CACHE/venv/bin/pip" install -q 'mcp>=2.3,<3' >/dev/null 2>&1 ||
    skip "pip install of mcp 2.x failed (offline?)"
fi
TMP=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for attempt in 1 2 3 4 5; do
  PORT=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
  port_free "$PORT" || continue
  "$DEMO" --http "127.0.0.1:$PORT" --db "$TMP/demo.db" --store memory \
    >"$TMP/log" 2>&1 &
  PID=$!
  for _ in $(seq 1 100); do
    if ! kill -0 "$PID" 2>/dev/null; then PID=; break; fi
    if ! port_free "$PORT"; then
      # ours, not a process that took the port first (ours then exits)
      sleep 0.3
      kill -0 "$PID" 2>/dev/null && ! grep -q "cannot listen" "$TMP/log" &&
        break 2
      PID=
      break
    fi
    sleep 0.05
  done
  [ -n "$PID" ] && kill "$PID" 2>/dev/null
  PID=
done
[ -n "$PID" ] || { echo "interop: the demo did not start" >&2; cat "$TMP/log" >&2; exit 1; }
"$PY" "$HERE/python_tasks.py" "http://127.0.0.1:$PORT/mcp"
