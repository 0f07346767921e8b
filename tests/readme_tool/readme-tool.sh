#!/bin/sh
# SPDX-License-Identifier: MIT
# readme-tool.sh extract README OUT.c - the ```c block after <!-- tool20
# readme-tool.sh run README BINARY     - counts the tool's lines (first
#   typedef through the line that ends the mcp_tool_decl, blank lines
#   excluded: at most 20) and calls the tool over stdio.
set -eu
block() {
  awk '/<!-- tool20/ { armed = 1 } armed && /^```c/ { inb = 1; next }
       inb && /^```/ { exit } inb { print }' "$1"
}
case $1 in
extract)
  block "$2" > "$3"
  [ -s "$3" ] || { echo "no <!-- tool20 --> c block in $2"; exit 1; }
  ;;
run)
  lines=$(block "$2" | awk '/^typedef/ { on = 1 } on && NF { n++ }
                            on && /mcp_tool_decl/ && /};$/ { print n; exit }
                            on && /\.fn = / && /};$/ { print n; exit }')
  echo "tool lines: ${lines:-?}"
  [ -n "$lines" ] && [ "$lines" -le 20 ] || { echo "FAIL: more than 20 lines"; exit 1; }
  out=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"quote","arguments":{"item":"mug","quantity":3}}}' \
    '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"quote","arguments":{"item":"shirt","quantity":1,"express":true}}}' \
    '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"quote","arguments":{"item":"mug","quantity":0}}}' \
    | "$3" --stdio)
  echo "$out"
  check() {
    echo "$out" | grep -F -- "$1" > /dev/null || { echo "FAIL: missing $1"; exit 1; }
  }
  check '"quantity":{"type":"integer","description":"How many","minimum":1,"maximum":100}'
  check '"express":{"type":"boolean","description":"Express delivery (+5)","default":false}'
  check '"outputSchema":{"type":"object"'
  check '"id":3,"result":{"content":[{"type":"text","text":"{\"total\":25.5,\"currency\":\"EUR\"}"}],"structuredContent":{"total":25.5,"currency":"EUR"}}'
  check '"structuredContent":{"total":24.0,"currency":"EUR"}'
  check '"id":5,"result":{"content":[{"type":"text","text":"Invalid arguments for tool'
  echo "ok"
  ;;
*) echo "usage: $0 extract|run ..."; exit 2 ;;
esac
