#!/bin/sh
# SPDX-License-Identifier: MIT
# python_client.sh DEMO_BIN [--server-tracing off] - the Python MCP SDK (PyPI mcp 2.x) with
# opentelemetry-sdk calls a tool of mcp-demo-server and sees the server's
# span continue its trace (python_client.py). Both packages go into the venv
# INTEROP_CACHE/py2otel (default ~/.cache/libmcp-interop/py2otel), installed
# once under the interop tests' lock. Exit 77 (skipped, with a message) only
# when python3 is missing or PyPI cannot be reached, and exit 1 instead
# when CI=true.
set -u
DEMO=${1:?usage: python_client.sh DEMO_BIN [--server-tracing off]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
INTEROP_LABEL=otel-python
. "$HERE/../interop/lib.sh"

command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
install_lock
PY="$CACHE/py2otel/bin/python"
# the receiver (tests/e2e/otlp_receiver.py) runs in the same venv: its
# pinned opentelemetry-proto decodes what the server exports
RECEIVER="$HERE/../e2e/otlp_receiver.py"
PINS=$(python3 "$RECEIVER" --pins)
PROTO_PIN=${PINS%% *}
if ! "$PY" -c 'import importlib.metadata as m, sys
import opentelemetry.sdk.trace
sys.exit(not m.version("mcp").startswith("2.") or
         m.version("opentelemetry-proto") != sys.argv[1])' "${PROTO_PIN#*==}" 2>/dev/null; then
  rm -rf "$CACHE/py2otel"
  # shellcheck disable=SC2086
  { python3 -m venv "$CACHE/py2otel" &&
    "$CACHE/py2otel/bin/pip" install -q --no-cache-dir 'mcp>=2,<3' \
      'opentelemetry-sdk>=1.28,<2' $PINS; } \
    >"$WORK/install.log" 2>&1 ||
    install_failed "mcp and opentelemetry-sdk (PyPI)" python3 -c 'import os, urllib.request as u
index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")
u.urlopen(index + "/opentelemetry-sdk/", timeout=20)'
fi
install_unlock
"$PY" -c 'import importlib.metadata as m
print("otel-python: mcp", m.version("mcp"), "opentelemetry-sdk",
      m.version("opentelemetry-sdk"))'
# exec: the driver becomes the test's own process, so its children (which
# die with it) die too when CTest kills the test; it has its own work
# directory
rm -rf "$WORK"
trap - EXIT
exec "$PY" "$HERE/python_client.py" "$DEMO" "$RECEIVER" "$CACHE/py2otel" "$@"
