/* SPDX-License-Identifier: MIT */
/* sampling.h - asking the client's LLM for a completion
 * (sampling/createMessage).
 *
 * Build the request with an mcp_sampling_t (messages, maxTokens and the
 * optional fields), then send it from a handler with mcp_call_sample. Only
 * a client that declared the sampling capability may be asked; tools and
 * toolChoice need sampling.tools, and includeContext other than "none"
 * needs sampling.context: otherwise MCP_ERR_CAPABILITY and nothing is sent.
 *
 * Thread safety: a request belongs to one thread; it may be reused for
 * several calls.
 */
#ifndef MCP_SAMPLING_H
#define MCP_SAMPLING_H

#include <stdbool.h>

#include <jansson.h>

#include "mcp/call.h"
#include "mcp/export.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_sampling mcp_sampling_t;

/* Message roles (sampling and prompts). */
typedef enum mcp_role { MCP_ROLE_USER = 0, MCP_ROLE_ASSISTANT } mcp_role;

/* includeContext */
typedef enum mcp_include_context {
  MCP_CONTEXT_UNSET = 0, /* not sent (the client assumes "none") */
  MCP_CONTEXT_NONE,
  MCP_CONTEXT_THIS_SERVER,
  MCP_CONTEXT_ALL_SERVERS
} mcp_include_context;

/* Returns new (free with mcp_sampling_free) with max_tokens (> 0). */
MCP_API mcp_status mcp_sampling_new(int max_tokens, mcp_sampling_t **out);
MCP_API void mcp_sampling_free(mcp_sampling_t *s);

/* A message with one text block (copied). */
MCP_API mcp_status mcp_sampling_add_text(mcp_sampling_t *s, mcp_role role,
                                         const char *text);
/* A message with content: a content block object or an array of them
 * (text, image, audio, tool_use, tool_result). Steals, even on failure. */
MCP_API mcp_status mcp_sampling_add_message(mcp_sampling_t *s, mcp_role role,
                                            json_t *content);
MCP_API mcp_status mcp_sampling_set_system_prompt(mcp_sampling_t *s,
                                                  const char *prompt);
MCP_API mcp_status mcp_sampling_set_temperature(mcp_sampling_t *s,
                                                double temperature);
MCP_API mcp_status mcp_sampling_add_stop_sequence(mcp_sampling_t *s,
                                                  const char *stop);
MCP_API mcp_status mcp_sampling_set_include_context(mcp_sampling_t *s,
                                                    mcp_include_context ctx);
/* modelPreferences: hints in order of preference (copied). */
MCP_API mcp_status mcp_sampling_add_model_hint(mcp_sampling_t *s,
                                               const char *name);
/* Priorities in [0, 1]; a negative value leaves that one unset. */
MCP_API mcp_status mcp_sampling_set_priorities(mcp_sampling_t *s, double cost,
                                               double speed,
                                               double intelligence);
/* metadata object; steals, even on failure. */
MCP_API mcp_status mcp_sampling_set_metadata(mcp_sampling_t *s,
                                             json_t *metadata);
/* tools: an array of Tool objects; steals, even on failure. */
MCP_API mcp_status mcp_sampling_set_tools(mcp_sampling_t *s, json_t *tools);
/* toolChoice.mode: "auto", "required" or "none". */
MCP_API mcp_status mcp_sampling_set_tool_choice(mcp_sampling_t *s,
                                                const char *mode);
/* The CreateMessageRequest params (returns new). */
MCP_API json_t *mcp_sampling_to_json(const mcp_sampling_t *s);

/* Sends the request (borrowed) and waits (timeout_ms <= 0: server default).
 * On MCP_OK *result is a new reference to the CreateMessageResult, checked
 * to carry role, content and model. Errors: MCP_ERR_CAPABILITY,
 * MCP_ERR_PEER (error answer or malformed result), MCP_ERR_TIMEOUT,
 * MCP_ERR_CANCELLED, MCP_ERR_UNSUPPORTED (stateless). */
MCP_API mcp_status mcp_call_sample(mcp_call_t *call,
                                   const mcp_sampling_t *request,
                                   int timeout_ms, json_t **result,
                                   mcp_error_t *err);
/* Convenience: the text of the first text block of a CreateMessageResult
 * (borrowed from result) or NULL. */
MCP_API const char *mcp_sampling_result_text(const json_t *result);

#ifdef __cplusplus
}
#endif
#endif
