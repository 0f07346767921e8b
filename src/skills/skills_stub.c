/* SPDX-License-Identifier: MIT */
#include "server/extensions.h"
#include "server/internal.h"
mcp_status mcp__handle_skills_list(mcp_call_t *call, json_t **result) {
  (void)result;
  return mcp__call_fail(call, MCP_RPC_METHOD_NOT_FOUND, "Method not found: skills/list");
}
mcp_status mcp__handle_skills_get(mcp_call_t *call, json_t **result) {
  (void)result;
  return mcp__call_fail(call, MCP_RPC_METHOD_NOT_FOUND, "Method not found: skills/get");
}
mcp_status mcp__handle_directory_read(mcp_call_t *call, json_t **result) {
  (void)result;
  return mcp__call_fail(call, MCP_RPC_METHOD_NOT_FOUND, "Method not found");
}
void mcp__skills_capabilities(const mcp_server_t *s, json_t *caps) {
  (void)s, (void)caps;
}
