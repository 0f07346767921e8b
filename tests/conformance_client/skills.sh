#!/bin/sh
# SPDX-License-Identifier: MIT
# skills.sh - mcpc as the host in the suite's skills scenarios (SEP-2640):
# "mcpc skills get pdf-processing" must verify SKILL.md against its entry
# before reading (or writing) anything else; "mcpc skills list" must read
# no skill file. MCPC is the mcpc binary.
set -u
url=$(eval echo "\${$#}")
# listing loads nothing: no file may be read ahead of need
[ "${MCP_CONFORMANCE_SCENARIO:-}" = sep-2640-client-no-prefetch ] &&
  exec "$MCPC" -u "$url" skills list
dir=$(mktemp -d /tmp/mcpc-skills.XXXXXX)
"$MCPC" -u "$url" skills get pdf-processing --dir "$dir/pdf"
rc=$?
rm -rf "$dir"
exit $rc
