/* SPDX-License-Identifier: MIT */
/* testing.h - an in-process client for unit tests of a server's tools,
 * resources and prompts: no socket, no process, no thread to manage.
 *
 *   mcp_test_client_t *c;
 *   mcp_test_client_new(server, "2026-07-28", NULL, &c, &err);
 *   json_t *r = mcp_test_client_call_tool(c, "quote", args);
 *   ... json_object_get(r, "result") or json_object_get(r, "error") ...
 *   json_decref(r);
 *   mcp_test_client_free(c);
 *
 * Every request goes through the dispatcher the transports use (the same
 * parsing, era rules, validation and errors as over stdio or HTTP); the
 * answer is the JSON-RPC response as the client would have received it.
 * A call runs on a thread of the client's own, started and joined inside
 * each request function, so a tool may ask the client questions:
 * elicitation/create, sampling/createMessage and roots/list are answered by
 * the function set with mcp_test_client_set_answer, in either era
 * (2025-11-25: the server's requests on the call's stream; 2026-07-28: an
 * input_required result is retried with the answers as inputResponses and
 * its requestState, round after round, until the final result).
 *
 * Tasks: a call that becomes a task returns its CreateTaskResult as over a
 * real transport (2025-11-25: with params.task; 2026-07-28: when the
 * capabilities declare extensions["io.modelcontextprotocol/tasks"]);
 * mcp_test_client_await_task drives it to its end, answering its
 * questions; mcp_test_client_request sends any other tasks/ method.
 *
 * Thread safety: one client is used by one thread at a time; several
 * clients may share a server and run at once. Free every client before the
 * server.
 */
#ifndef MCP_TESTING_H
#define MCP_TESTING_H

#include <stddef.h>

#include <jansson.h>

#include "mcp/export.h"
#include "mcp/server.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_test_client mcp_test_client_t;

/* Answers a question the server asks: method ("elicitation/create", ...)
 * and its params (borrowed). Returns the result object (new reference; the
 * client steals it), or NULL to answer with a JSON-RPC error (2025-11-25)
 * or to stop the rounds and return the input_required result (2026-07-28).
 * Runs on the thread that called the request function. */
typedef json_t *(*mcp_test_answer_fn)(const char *method,
                                      const json_t *params, void *user_data);

/* Connects to server (which must outlive the client) in protocol_version
 * ("2025-11-25", any earlier legacy version, or "2026-07-28"; NULL: the
 * newest), announcing capabilities (borrowed; NULL: {}, e.g.
 * {"elicitation":{}} for a client that answers questions). A legacy client
 * initializes its session here; a 2026-07-28 client sends its version and
 * capabilities with every request. MCP_ERR_INVALID_ARG (an unknown
 * version), MCP_ERR_STATE (the server refuses to serve: a tool needs tasks
 * that are not enabled, ...), MCP_ERR_PEER (initialize failed), each
 * explained in err (may be NULL); MCP_ERR_NOMEM. */
MCP_API mcp_status mcp_test_client_new(mcp_server_t *server,
                                       const char *protocol_version,
                                       const json_t *capabilities,
                                       mcp_test_client_t **out,
                                       mcp_error_t *err);
/* Ends the session (legacy) and frees the client. NULL is a no-op. */
MCP_API void mcp_test_client_free(mcp_test_client_t *c);
/* The answer function (NULL: questions get a JSON-RPC error / the
 * input_required result is returned as is). */
MCP_API void mcp_test_client_set_answer(mcp_test_client_t *c,
                                        mcp_test_answer_fn fn,
                                        void *user_data);

/* Sends a request: method and params (borrowed; NULL: {}). Returns the
 * response message (new reference): an object with "result" or "error".
 * NULL only when memory runs out or the server sent no response. */
MCP_API json_t *mcp_test_client_request(mcp_test_client_t *c,
                                        const char *method,
                                        const json_t *params);
/* Shorthands of mcp_test_client_request. arguments: borrowed; NULL: {}. */
MCP_API json_t *mcp_test_client_list_tools(mcp_test_client_t *c);
MCP_API json_t *mcp_test_client_call_tool(mcp_test_client_t *c,
                                          const char *name,
                                          const json_t *arguments);
MCP_API json_t *mcp_test_client_read_resource(mcp_test_client_t *c,
                                              const char *uri);
MCP_API json_t *mcp_test_client_get_prompt(mcp_test_client_t *c,
                                           const char *name,
                                           const json_t *arguments);

/* Drives the task task_id to its end and returns, in 2025-11-25, the
 * tasks/result response (blocks until the task ends); in 2026-07-28, the
 * last tasks/get response (the DetailedTask, with its result or error once
 * terminal), polling every 2 ms and answering each round of inputRequests
 * with tasks/update (the answer function; NULL from it returns the
 * input_required task as is). Gives up after timeout_ms (0: 30 s), then
 * returns the last tasks/get response. */
MCP_API json_t *mcp_test_client_await_task(mcp_test_client_t *c,
                                           const char *task_id,
                                           int timeout_ms);

/* The questions answered so far (one per elicitation/create, ...; in
 * 2026-07-28 one per inputRequests entry). */
MCP_API size_t mcp_test_client_questions(const mcp_test_client_t *c);
/* The notifications received so far (progress, logging, list changes...),
 * in order: a borrowed array, valid until the next request or free. */
MCP_API const json_t *
mcp_test_client_notifications(const mcp_test_client_t *c);

#ifdef __cplusplus
}
#endif
#endif
