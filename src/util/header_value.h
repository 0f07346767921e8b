/* SPDX-License-Identifier: MIT */
/* header_value.h - HTTP header values as MCP compares them (SEP-2243). */
#ifndef MCP_UTIL_HEADER_VALUE_H
#define MCP_UTIL_HEADER_VALUE_H

#include <stdbool.h>
#include <stddef.h>

#include "mcp/status.h"

/* An HTTP header value as the spec compares it: optional whitespace
 * trimmed, "=?base64?...?=" decoded (must be UTF-8). *out is malloc'd.
 * MCP_ERR_INVALID for control characters, obs-text or bad base64. */
mcp_status mcp__header_value_decode(const char *raw, char **out);

/* Whether the header value raw, read as mcp__header_value_decode reads it,
 * is body. Plain values are compared in place (no copy); false for a value
 * that is not valid. */
bool mcp__header_value_equals(const char *raw, const char *body);
/* The same for a body value of n bytes (need not be NUL-terminated; a NUL
 * among them never matches). */
bool mcp__header_value_equalsn(const char *raw, const char *body, size_t n);

/* The other direction, for a client: n bytes of text as a header value,
 * plain when it is visible ASCII without surrounding white space, else
 * "=?base64?...?=" (also for plain text that would read as that marker).
 * Returns malloc'd text, NULL when out of memory. */
char *mcp__header_value_encode(const char *text, size_t n);

/* Which body value the Mcp-Name header repeats for a method: "name",
 * "uri", "taskId", or NULL for methods without one. One rule for the
 * server that checks the header and the client that sends it. */
const char *mcp__header_name_field(const char *method);

#endif
