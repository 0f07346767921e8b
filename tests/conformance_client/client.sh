#!/bin/sh
# SPDX-License-Identifier: MIT
# client.sh - mcpc as the "client under test" the conformance suite starts:
#   client.sh URL   (scenario in $MCP_CONFORMANCE_SCENARIO, wire revision in
#   $MCP_CONFORMANCE_PROTOCOL_VERSION)
# Maps each 2025-11-25 client scenario to the mcpc command a user would run.
# MCPC is the mcpc binary (set by CMake).
set -u
url=$(eval echo "\${$#}")
proto=${MCP_CONFORMANCE_PROTOCOL_VERSION:-auto}
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  initialize)
    exec "$MCPC" --protocol "$proto" -u "$url" info ;;
  tools_call)
    exec "$MCPC" --protocol "$proto" -u "$url" tools call add_numbers a=5 b=3 ;;
  elicitation-sep1034-client-defaults)
    exec "$MCPC" --protocol "$proto" -u "$url" --elicit accept tools call test_client_elicitation_defaults ;;
  sse-retry)
    exec "$MCPC" --protocol "$proto" -u "$url" tools call test_reconnection ;;
  *)
    echo "client.sh: no mapping for scenario '${MCP_CONFORMANCE_SCENARIO:-}'" >&2
    exit 2 ;;
esac
