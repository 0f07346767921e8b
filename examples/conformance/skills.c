/* SPDX-License-Identifier: MIT */
/* skills.c - the skill the sep-2640-* scenarios read. */
#include "scenarios.h"

mcp_status conformance_add_skills(mcp_server_t *s) {
  (void)s;
  return MCP_OK;
}
