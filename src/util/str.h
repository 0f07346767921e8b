/* SPDX-License-Identifier: MIT */
/* str.h - the optional-string setter every builder object uses. */
#ifndef MCP_UTIL_STR_H
#define MCP_UTIL_STR_H

#include "mcp/status.h"

/* Replaces *slot (malloc'd or NULL) by a copy of value, or by NULL when value
 * is NULL. On MCP_ERR_NOMEM *slot is left as it was. */
mcp_status mcp__str_replace(char **slot, const char *value);

#endif
