/* SPDX-License-Identifier: MIT */
/* header_params.h - x-mcp-header properties of tools (SEP-2243). */
#ifndef MCP_TOOLS_HEADER_PARAMS_H
#define MCP_TOOLS_HEADER_PARAMS_H

#include <jansson.h>

#include "mcp/call.h"
#include "mcp/status.h"
#include "mcp/tool.h"

/* Checks the x-mcp-header marks of tool's inputSchema (at registration).
 * MCP_ERR_SCHEMA with err naming the property at fault. */
mcp_status mcp__header_params_check(mcp_tool_t *tool, mcp_error_t *err);

/* Compares the Mcp-Param-* headers of a 2026-07-28 HTTP call with args;
 * a mismatch fails the call with -32020. MCP_OK elsewhere. */
mcp_status mcp__header_params_verify(mcp_call_t *call, mcp_tool_t *tool,
                                     const json_t *args);

#endif
