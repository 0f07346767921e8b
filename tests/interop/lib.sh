# SPDX-License-Identifier: MIT
# lib.sh - what run-clients.sh and run-servers.sh share: a work directory
# cleaned up on exit with the server they started, skipping (exit 77, or
# failing when CI=true) only when a registry or a runtime is missing,
# installing the SDKs once into INTEROP_CACHE under a lock, and starting a
# server on a free loopback port. Sourced (POSIX sh); the caller sets
# INTEROP_LABEL (how messages name the run) first.

CACHE=${INTEROP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libmcp-interop}
WORK=$(mktemp -d)
PID=
interop_cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  rm -rf "$WORK"
}
trap interop_cleanup EXIT
trap 'exit 1' INT TERM

skip() {
  if [ "${CI:-}" = true ]; then
    echo "interop $INTEROP_LABEL: $1 (required when CI=true)" >&2
    exit 1
  fi
  echo "SKIP interop $INTEROP_LABEL: $1" >&2
  exit 77
}

# An install failed: skip when the registry is unreachable, else fail.
install_failed() { # what registry-probe-command...
  what=$1
  shift
  if "$@" >/dev/null 2>&1; then
    echo "interop $INTEROP_LABEL: installing $what failed although its" \
      "registry answers:" >&2
    cat "$WORK/install.log" >&2
    exit 1
  fi
  skip "the registry of $what cannot be reached (offline?)"
}

# One installer at a time (the tests run in parallel).
install_lock() {
  mkdir -p "$CACHE" || skip "cannot create $CACHE"
  exec 9>"$CACHE/.install-lock"
  flock 9 2>/dev/null || true
}
install_unlock() {
  flock -u 9 2>/dev/null || true
  exec 9>&-
}

# Python `mcp` 2.x in the venv $CACHE/py2; sets PY to its python.
install_py2() {
  command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
  PY="$CACHE/py2/bin/python"
  if ! "$PY" -c 'import importlib.metadata as m, sys
sys.exit(not m.version("mcp").startswith("2."))' 2>/dev/null; then
    { python3 -m venv "$CACHE/py2" &&
      "$CACHE/py2/bin/pip" install -q 'mcp>=2,<3'; } >"$WORK/install.log" 2>&1 ||
      install_failed "mcp (PyPI)" python3 -c 'import os, urllib.request as u
index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")
u.urlopen(index + "/mcp/", timeout=20)'
  fi
}

# npm package PKG at SPEC's major version in the npm project DIR.
npm_install() { # DIR PKG SPEC
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
    skip "node and npm are not installed"
  major=$(node -p "require('$1/node_modules/$2/package.json').version" \
    2>/dev/null | cut -d. -f1)
  [ "$major" = "${3##*^}" ] && return 0
  mkdir -p "$1" && (cd "$1" && { [ -f package.json ] || npm init -y >/dev/null; } &&
    npm install --no-audit --no-fund --loglevel=error "$3") \
    >"$WORK/install.log" 2>&1 || install_failed "$2 (npm)" npm ping
}

# Starts "COMMAND... PORT-ARGS" on a free loopback port and waits until it
# accepts connections (three tries: another process may take the port
# first). COMMAND's arguments contain the word PORT where the port goes.
# Sets PORT and PID; false (PID empty) when it never listened.
start_on_free_port() { # LOG COMMAND...
  log=$1
  shift
  for attempt in 1 2 3; do
    PORT=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
      node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
    cmd=
    for a in "$@"; do
      case $a in
      *PORT*) a=$(printf '%s' "$a" | sed "s/PORT/$PORT/g") ;;
      esac
      cmd="$cmd '$a'"
    done
    # exec: $! must be the server itself, not a subshell around it (killing
    # the subshell would leave the server running)
    eval "exec $cmd" >"$log" 2>&1 &
    PID=$!
    i=0
    while [ $i -le 300 ] && kill -0 "$PID" 2>/dev/null; do
      if python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 1)" 2>/dev/null ||
        node -e "require('net').connect($PORT,'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))" 2>/dev/null; then
        return 0
      fi
      i=$((i + 1))
      sleep 0.1
    done
    # died, or alive but never listening within 30 s: not started
    kill "$PID" 2>/dev/null
    wait "$PID" 2>/dev/null
    PID=
  done
  return 1
}
