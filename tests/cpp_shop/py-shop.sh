#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: py-shop.sh SHOP_BIN
# The official Python SDK client (PyPI mcp 2.x, installed once into
# INTEROP_CACHE by tests/interop/lib.sh) against examples/cpp/shop.cpp over
# stdio and over Streamable HTTP (py_shop.py). Exit 77 (skipped, with a
# message) when PyPI cannot be reached or python3 is missing, unless CI=true.
set -u
SHOP=${1:?usage: py-shop.sh SHOP_BIN}
HERE=$(cd "$(dirname "$0")" && pwd)
INTEROP_LABEL="py2 -> $(basename "$SHOP")"
. "$HERE/../interop/lib.sh"

install_lock
install_py2
install_unlock

"$PY" "$HERE/py_shop.py" stdio "$SHOP" || exit 1
start_on_free_port "$WORK/shop.log" "$SHOP" --http 127.0.0.1:PORT ||
  { echo "py_shop: the shop did not start:"; cat "$WORK/shop.log"; exit 1; }
"$PY" "$HERE/py_shop.py" http "http://127.0.0.1:$PORT/mcp" || exit 1
kill "$PID" && wait "$PID" || { echo "py_shop: the shop did not stop cleanly:"; cat "$WORK/shop.log"; exit 1; }
PID=
echo "py_shop: ok"
