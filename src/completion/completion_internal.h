/* SPDX-License-Identifier: MIT */
/* completion_internal.h - completion handlers as stored on prompts and
 * templates, and the CompleteResult under construction. */
#ifndef MCP_COMPLETION_INTERNAL_H
#define MCP_COMPLETION_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "catalog/completer.h"
#include "mcp/call.h"
#include "mcp/completion.h"

/* completion/complete: the method row (registered by mcp_server_new). */
struct mcp_server;
mcp_status mcp__completion_register(struct mcp_server *s);
mcp_status mcp__handle_complete(mcp_call_t *call, json_t **result);

struct mcp_completion {
  json_t *values;   /* array, at most MCP_COMPLETION_MAX_VALUES */
  uint64_t offered; /* values offered by the handler, sent or not */
  bool has_total, has_more, failed;
  uint64_t total;
};

#endif
