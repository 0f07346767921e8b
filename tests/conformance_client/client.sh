#!/bin/sh
# SPDX-License-Identifier: MIT
# client.sh - the "client under test" the conformance suite starts:
#   client.sh URL   (scenario name in $MCP_CONFORMANCE_SCENARIO)
# Maps each client scenario to the mcpc commands a user would run.
# MCPC is the mcpc binary (set by run.sh).
set -u
url=$(eval echo "\${$#}")
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  initialize)
    exec "$MCPC" -u "$url" info ;;
  tools_call)
    exec "$MCPC" -u "$url" tools call add_numbers a=5 b=3 ;;
  elicitation-sep1034-client-defaults)
    exec "$MCPC" -u "$url" --elicit accept tools call test_client_elicitation_defaults ;;
  sse-retry)
    exec "$MCPC" -u "$url" tools call test_reconnection ;;
  *)
    echo "client.sh: no mapping for scenario '${MCP_CONFORMANCE_SCENARIO:-}'" >&2
    exit 2 ;;
esac
