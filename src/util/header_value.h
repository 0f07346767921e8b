/* SPDX-License-Identifier: MIT */
/* header_value.h - HTTP header values as MCP compares them (SEP-2243). */
#ifndef MCP_UTIL_HEADER_VALUE_H
#define MCP_UTIL_HEADER_VALUE_H

#include "mcp/status.h"

/* An HTTP header value as the spec compares it: optional whitespace
 * trimmed, "=?base64?...?=" decoded (must be UTF-8). *out is malloc'd.
 * MCP_ERR_INVALID for control characters, obs-text or bad base64. */
mcp_status mcp__header_value_decode(const char *raw, char **out);

#endif
