/* SPDX-License-Identifier: MIT */
/* prompt.h - prompts (prompts/list, prompts/get).
 *
 * A prompt is a name, metadata (title, description, icons, _meta), declared
 * arguments (name, title, description, required) and a handler that builds
 * the messages. prompts/get checks the request before the handler runs:
 * an unknown prompt, arguments that are not a string-to-string object, or a
 * missing required argument give -32602.
 *
 * Messages carry one content block each - text, image, audio,
 * resource_link or embedded resource - built with the same refiners as tool
 * results (mcp_content_set_*, result.h).
 *
 * Build a prompt on one thread, then give it to mcp_server_add_prompt,
 * which takes ownership; once added it is immutable and its handler may run
 * on many threads at once. The server declares the prompts capability only
 * while a prompt is registered.
 */
#ifndef MCP_PROMPT_H
#define MCP_PROMPT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "mcp/call.h"
#include "mcp/completion.h"
#include "mcp/export.h"
#include "mcp/result.h"
#include "mcp/sampling.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_prompt mcp_prompt_t;
typedef struct mcp_prompt_result mcp_prompt_result_t;

/* The handler. args: borrowed object whose values are all strings (every
 * required argument present). Add messages to out; return MCP_OK or a
 * failure status for a JSON-RPC error (call.h). */
typedef mcp_status (*mcp_prompt_fn)(mcp_call_t *call, json_t *args,
                                    mcp_prompt_result_t *out, void *user_data);

/* Returns new (free with mcp_prompt_free unless given to a server). name is
 * copied; it must be 1-128 characters without control characters. */
MCP_API mcp_status mcp_prompt_new(const char *name, mcp_prompt_t **out);
MCP_API void mcp_prompt_free(mcp_prompt_t *p);
MCP_API const char *mcp_prompt_name(const mcp_prompt_t *p);
MCP_API mcp_status mcp_prompt_set_title(mcp_prompt_t *p, const char *title);
MCP_API mcp_status mcp_prompt_set_description(mcp_prompt_t *p,
                                              const char *description);
/* Declares an argument (strings copied; title and description may be NULL).
 * MCP_ERR_EXISTS when the name is taken. Listed in declaration order. */
MCP_API mcp_status mcp_prompt_add_argument(mcp_prompt_t *p, const char *name,
                                           const char *title,
                                           const char *description,
                                           bool required);
/* Completion handler for the declared argument (MCP_ERR_NOT_FOUND when not
 * declared, MCP_ERR_EXISTS when one is set). free_user_data (may be NULL)
 * is called exactly once when the prompt is freed, unless this fails. */
MCP_API mcp_status mcp_prompt_set_completion(mcp_prompt_t *p,
                                             const char *argument,
                                             mcp_complete_fn fn,
                                             void *user_data,
                                             void (*free_user_data)(void *));
/* Icon (SEP-973); same rules as mcp_tool_add_icon. */
MCP_API mcp_status mcp_prompt_add_icon(mcp_prompt_t *p, const char *src,
                                       const char *mime_type, const char *sizes,
                                       const char *theme);
/* _meta; steals, even on failure. */
MCP_API mcp_status mcp_prompt_set_meta(mcp_prompt_t *p, json_t *meta);
MCP_API mcp_status mcp_prompt_set_handler(mcp_prompt_t *p, mcp_prompt_fn fn,
                                          void *user_data,
                                          void (*free_user_data)(void *));
/* The Prompt object as listed (returns new). */
MCP_API json_t *mcp_prompt_to_json(const mcp_prompt_t *p);

/* ---- building GetPromptResult -------------------------------------------- */
/* Each add appends one message and returns its content block (borrowed, for
 * mcp_content_set_* refinements) or NULL on bad input or allocation failure
 * (the server then answers with an error). Strings are copied. */
MCP_API mcp_status mcp_prompt_result_set_description(mcp_prompt_result_t *r,
                                                     const char *description);
MCP_API mcp_content_t *mcp_prompt_add_text(mcp_prompt_result_t *r,
                                           mcp_role role, const char *text);
MCP_API mcp_content_t *mcp_prompt_add_image(mcp_prompt_result_t *r,
                                            mcp_role role, const char *base64,
                                            const char *mime_type);
MCP_API mcp_content_t *mcp_prompt_add_audio(mcp_prompt_result_t *r,
                                            mcp_role role, const char *base64,
                                            const char *mime_type);
MCP_API mcp_content_t *mcp_prompt_add_resource_link(mcp_prompt_result_t *r,
                                                    mcp_role role,
                                                    const char *uri,
                                                    const char *name);
MCP_API mcp_content_t *mcp_prompt_add_text_resource(mcp_prompt_result_t *r,
                                                    mcp_role role,
                                                    const char *uri,
                                                    const char *text,
                                                    const char *mime_type);
MCP_API mcp_content_t *
mcp_prompt_add_blob_resource(mcp_prompt_result_t *r, mcp_role role,
                             const char *uri, const void *data, size_t len,
                             const char *mime_type);

/* ---- on the server ------------------------------------------------------- */
/* Adding steals, even on failure (MCP_ERR_EXISTS for a taken name,
 * MCP_ERR_STATE without a handler). Adding and removing announce
 * notifications/prompts/list_changed when declared. */
MCP_API mcp_status mcp_server_add_prompt(mcp_server_t *s, mcp_prompt_t *p);
MCP_API mcp_status mcp_server_remove_prompt(mcp_server_t *s, const char *name);
MCP_API size_t mcp_server_prompt_count(const mcp_server_t *s);
/* Declare prompts.listChanged (default true). */
MCP_API mcp_status mcp_server_set_prompts_list_changed(mcp_server_t *s,
                                                       bool declared);

#ifdef __cplusplus
}
#endif
#endif
