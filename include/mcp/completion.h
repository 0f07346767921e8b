/* SPDX-License-Identifier: MIT */
/* completion.h - argument completion (completion/complete).
 *
 * Completion handlers are attached per prompt argument
 * (mcp_prompt_set_completion, prompt.h) and per resource-template variable
 * (mcp_resource_template_set_completion, resource.h). The server declares
 * the completions capability only while at least one handler is
 * registered; without one completion/complete answers -32601.
 *
 * A handler receives the argument's name, the partial value typed so far
 * and the other arguments already chosen (context.arguments), and adds
 * suggestions, best first, to an mcp_completion_t. At most 100 values are
 * sent: later ones are counted, not sent, and hasMore is set.
 *
 * Thread safety: an mcp_completion_t belongs to one call; handlers run
 * concurrently and must be reentrant.
 */
#ifndef MCP_COMPLETION_H
#define MCP_COMPLETION_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/call.h"
#include "mcp/export.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values per completion/complete result (spec maximum). */
#define MCP_COMPLETION_MAX_VALUES 100

typedef struct mcp_completion mcp_completion_t;

/* The handler. argument and value are borrowed (value may be ""); context
 * is a borrowed object of string values ({} when the client sent none).
 * Return MCP_OK, or a failure status for a JSON-RPC error (call.h). */
typedef mcp_status (*mcp_complete_fn)(mcp_call_t *call, const char *argument,
                                      const char *value, json_t *context,
                                      mcp_completion_t *out, void *user_data);

/* Adds a suggestion (copied). Past MCP_COMPLETION_MAX_VALUES the value is
 * only counted: hasMore becomes true and total defaults to the count. */
MCP_API mcp_status mcp_completion_add(mcp_completion_t *c, const char *value);
/* Total number of matches known to the handler (may exceed those added). */
MCP_API mcp_status mcp_completion_set_total(mcp_completion_t *c,
                                            uint64_t total);
MCP_API mcp_status mcp_completion_set_has_more(mcp_completion_t *c,
                                               bool has_more);

#ifdef __cplusplus
}
#endif
#endif
