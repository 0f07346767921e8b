/* SPDX-License-Identifier: MIT */
/* validate_tape.h - the validator's fast path over a parsed tape. */
#ifndef MCP_SCHEMA_VALIDATE_TAPE_H
#define MCP_SCHEMA_VALIDATE_TAPE_H

#include "mcp/status.h"
#include "json/tape.h"

/* The fast path over a parsed tape (root: t->nodes): MCP_OK,
 * MCP_ERR_INVALID or MCP_ERR_NOMEM. Exposed for the benchmark, which times
 * validation apart from parsing. */
struct mcp_schema;
mcp_status mcp__validate_tape(const struct mcp_schema *schema,
                              const mcp__tnode *root);

#endif
