/* SPDX-License-Identifier: MIT */
/* client.h - an MCP client: connect to a server over stdio or Streamable
 * HTTP and call what it offers.
 *
 * Configure an mcp_client_options_t (where to connect, identity, handlers),
 * then mcp_client_connect() spawns the server process or prepares the HTTP
 * endpoint and runs the initialize handshake (version negotiation included).
 * Every request function blocks until the answer arrives, the per-request
 * timeout expires (the request is then cancelled with
 * notifications/cancelled) or the connection closes.
 *
 * Ownership: the options are owned by the caller; connect copies what it
 * needs, so they may be freed right after. The mcp_client_t is owned by the
 * caller and released by mcp_client_close(). json_t results marked "returns
 * new" are the caller's to json_decref; "borrowed" ones live as long as the
 * client.
 *
 * Thread safety: request functions may be called from several threads at
 * once on one client (each waits for its own answer). mcp_client_close()
 * must be called once, when no other call is running. Callbacks (progress,
 * notifications, server-to-client request handlers, the message observer)
 * run on the client's reader thread for stdio and on the thread performing
 * the HTTP request for HTTP; a stdio callback must not issue a blocking
 * request on the same client (it would wait for its own reader thread).
 *
 * Errors: MCP_ERR_PEER when the server answered with a JSON-RPC error (err
 * carries rpc_code and message), MCP_ERR_TIMEOUT, MCP_ERR_CLOSED when the
 * connection ended, MCP_ERR_IO for transport failures (HTTP status, spawn),
 * MCP_ERR_PARSE for a malformed answer, MCP_ERR_CAPABILITY when the server
 * did not declare what the call needs (the request is not sent).
 */
#ifndef MCP_CLIENT_H
#define MCP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/export.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_client mcp_client_t;
typedef struct mcp_client_options mcp_client_options_t;

/* ---- callbacks ----------------------------------------------------------- */

/* notifications/progress for a request that asked for progress. total < 0
 * when the server sent none; message may be NULL. */
typedef void (*mcp_client_progress_fn)(double progress, double total,
                                       const char *message, void *user_data);

/* Every notification from the server (params borrowed, may be NULL). */
typedef void (*mcp_client_notification_fn)(mcp_client_t *client,
                                           const char *method, json_t *params,
                                           void *user_data);

/* A server-to-client request (sampling/createMessage, elicitation/create,
 * roots/list). params is borrowed (never NULL). Return MCP_OK with *result
 * set (steals) to answer with that result, or a failure status with err
 * filled (rpc_code, message) to answer with a JSON-RPC error. */
typedef mcp_status (*mcp_client_request_fn)(mcp_client_t *client,
                                            const char *method, json_t *params,
                                            json_t **result, mcp_error_t *err,
                                            void *user_data);

/* Sees every message the client receives (incoming == true) or sends, as
 * parsed JSON (borrowed), before it is processed. For testers that validate
 * traffic. */
typedef void (*mcp_client_observer_fn)(mcp_client_t *client, bool incoming,
                                       json_t *message, void *user_data);

/* ---- options ------------------------------------------------------------- */

/* Returns new; free with mcp_client_options_free (NULL is a no-op). */
MCP_API mcp_status mcp_client_options_new(mcp_client_options_t **out);
MCP_API void mcp_client_options_free(mcp_client_options_t *o);

/* Spawn argv[0] (searched in PATH) with argv, NULL-terminated (copied); talk
 * over its stdin/stdout. Its stderr is inherited. */
MCP_API mcp_status mcp_client_options_set_command(mcp_client_options_t *o,
                                                  const char *const *argv);
/* Streamable HTTP endpoint, e.g. "http://127.0.0.1:8808/mcp" (copied). */
MCP_API mcp_status mcp_client_options_set_url(mcp_client_options_t *o,
                                              const char *url);
/* Extra HTTP header on every request (copied). */
MCP_API mcp_status mcp_client_options_add_header(mcp_client_options_t *o,
                                                 const char *name,
                                                 const char *value);
/* Sends "Authorization: Bearer TOKEN" over HTTP (copied). */
MCP_API mcp_status mcp_client_options_set_bearer(mcp_client_options_t *o,
                                                 const char *token);
/* clientInfo (copied). Default "libmcp-client" and the library version. */
MCP_API mcp_status mcp_client_options_set_info(mcp_client_options_t *o,
                                               const char *name,
                                               const char *version);
/* protocolVersion offered in initialize (copied). Default
 * MCP_PROTOCOL_LATEST. The client accepts 2024-11-05, 2025-03-26,
 * 2025-06-18 and 2025-11-25 in the answer and refuses others. */
MCP_API mcp_status mcp_client_options_set_protocol_version(
    mcp_client_options_t *o, const char *version);
/* Per-request timeout (default 60000 ms; <= 0: wait forever). */
MCP_API mcp_status mcp_client_options_set_timeout_ms(mcp_client_options_t *o,
                                                     int timeout_ms);
MCP_API mcp_status mcp_client_options_set_notification_handler(
    mcp_client_options_t *o, mcp_client_notification_fn fn, void *user_data);
/* Handlers for server-to-client requests. Setting one declares the matching
 * client capability (sampling, elicitation, roots); capabilities is an
 * optional JSON object for that capability (borrowed, copied), NULL for {}.
 * Requests without a handler are answered -32601; ping is answered
 * automatically. */
MCP_API mcp_status mcp_client_options_set_sampling_handler(
    mcp_client_options_t *o, mcp_client_request_fn fn, json_t *capabilities,
    void *user_data);
MCP_API mcp_status mcp_client_options_set_elicitation_handler(
    mcp_client_options_t *o, mcp_client_request_fn fn, json_t *capabilities,
    void *user_data);
MCP_API mcp_status mcp_client_options_set_roots_handler(
    mcp_client_options_t *o, mcp_client_request_fn fn, json_t *capabilities,
    void *user_data);
MCP_API mcp_status mcp_client_options_set_observer(mcp_client_options_t *o,
                                                   mcp_client_observer_fn fn,
                                                   void *user_data);

/* ---- connection ---------------------------------------------------------- */

/* Connects and initializes. *out returns new. On failure nothing is left
 * running and err (may be NULL) says why. */
MCP_API mcp_status mcp_client_connect(const mcp_client_options_t *o,
                                      mcp_client_t **out, mcp_error_t *err);
/* Ends the session (HTTP: DELETE; stdio: close stdin, then SIGTERM and
 * SIGKILL after grace periods) and frees everything. NULL is a no-op. */
MCP_API void mcp_client_close(mcp_client_t *client);

/* The InitializeResult (borrowed). */
MCP_API json_t *mcp_client_initialize_result(const mcp_client_t *client);
/* Negotiated protocol version (borrowed). */
MCP_API const char *mcp_client_protocol_version(const mcp_client_t *client);
/* True when the server declared the top-level capability ("tools",
 * "resources", "prompts", "logging", "completions", "tasks"). */
MCP_API bool mcp_client_server_has(const mcp_client_t *client,
                                   const char *capability);
/* The HTTP session id, or NULL (stdio, or none issued). Borrowed, valid
 * until the next request: when the server answers 404 to a request in the
 * session (restart, expiry) the client starts a new session (initialize
 * without a session id) and resends the request once. */
MCP_API const char *mcp_client_session_id(const mcp_client_t *client);

/* ---- generic requests ---------------------------------------------------- */

/* Sends method with params (steals, even on failure; NULL for none) and
 * waits. progress may be NULL; otherwise a progress token is added to
 * params._meta and progress notifications for it reach the callback.
 * *result returns new. */
MCP_API mcp_status mcp_client_request(mcp_client_t *client, const char *method,
                                      json_t *params,
                                      mcp_client_progress_fn progress,
                                      void *user_data, json_t **result,
                                      mcp_error_t *err);
/* Sends a notification (params steals, may be NULL). */
MCP_API mcp_status mcp_client_notify(mcp_client_t *client, const char *method,
                                     json_t *params);

/* ---- MCP methods --------------------------------------------------------- */

MCP_API mcp_status mcp_client_ping(mcp_client_t *client, mcp_error_t *err);

/* Calls a paginated list method ("tools/list", "resources/list",
 * "resources/templates/list", "prompts/list", "tasks/list") following
 * nextCursor until the last page, and returns every item of key ("tools",
 * "resources", "resourceTemplates", "prompts", "tasks") in one array
 * (*items returns new). Gives MCP_ERR_LIMIT after max_pages pages (0: 1000)
 * or when a cursor repeats. */
MCP_API mcp_status mcp_client_list_all(mcp_client_t *client, const char *method,
                                       const char *key, size_t max_pages,
                                       json_t **items, mcp_error_t *err);
MCP_API mcp_status mcp_client_list_tools(mcp_client_t *client, json_t **tools,
                                         mcp_error_t *err);

/* tools/call. arguments borrowed (NULL for none). *result (returns new) is
 * the CallToolResult; an isError result is MCP_OK: inspect it. */
MCP_API mcp_status mcp_client_call_tool(mcp_client_t *client, const char *name,
                                        json_t *arguments,
                                        mcp_client_progress_fn progress,
                                        void *user_data, json_t **result,
                                        mcp_error_t *err);
/* tools/call as a task (params.task.ttl = ttl_ms when > 0). *result (returns
 * new) is the CreateTaskResult, or the plain CallToolResult when the server
 * ignored the task request (check for a "task" member). */
MCP_API mcp_status mcp_client_call_tool_task(mcp_client_t *client,
                                             const char *name,
                                             json_t *arguments, int64_t ttl_ms,
                                             mcp_client_progress_fn progress,
                                             void *user_data, json_t **result,
                                             mcp_error_t *err);

/* tasks/get, tasks/result, tasks/cancel (results return new). */
MCP_API mcp_status mcp_client_task_get(mcp_client_t *client,
                                       const char *task_id, json_t **task,
                                       mcp_error_t *err);
MCP_API mcp_status mcp_client_task_result(mcp_client_t *client,
                                          const char *task_id, json_t **result,
                                          mcp_error_t *err);
MCP_API mcp_status mcp_client_task_cancel(mcp_client_t *client,
                                          const char *task_id, json_t **task,
                                          mcp_error_t *err);
/* Status callback of mcp_client_task_wait (task borrowed). */
typedef void (*mcp_client_task_fn)(json_t *task, void *user_data);
/* Polls tasks/get until the task is terminal (completed, failed,
 * cancelled) or input_required, sleeping the task's pollInterval between
 * polls (default_interval_ms when the server gives none; <= 0: 1000).
 * on_status (may be NULL) sees every polled state. *task returns new. */
MCP_API mcp_status mcp_client_task_wait(mcp_client_t *client,
                                        const char *task_id,
                                        int default_interval_ms,
                                        mcp_client_task_fn on_status,
                                        void *user_data, json_t **task,
                                        mcp_error_t *err);

/* resources/read, resources/subscribe, resources/unsubscribe. */
MCP_API mcp_status mcp_client_read_resource(mcp_client_t *client,
                                            const char *uri, json_t **result,
                                            mcp_error_t *err);
MCP_API mcp_status mcp_client_subscribe(mcp_client_t *client, const char *uri,
                                        bool subscribe, mcp_error_t *err);

/* prompts/get. arguments borrowed (object of strings, may be NULL). */
MCP_API mcp_status mcp_client_get_prompt(mcp_client_t *client, const char *name,
                                         json_t *arguments, json_t **result,
                                         mcp_error_t *err);

/* completion/complete. ref borrowed ({"type":"ref/prompt","name":...} or
 * {"type":"ref/resource","uri":...}); context_arguments borrowed, may be
 * NULL. *result returns new (the CompleteResult). */
MCP_API mcp_status mcp_client_complete(mcp_client_t *client, json_t *ref,
                                       const char *argument, const char *value,
                                       json_t *context_arguments,
                                       json_t **result, mcp_error_t *err);

/* logging/setLevel ("debug" ... "emergency"). */
MCP_API mcp_status mcp_client_set_log_level(mcp_client_t *client,
                                            const char *level,
                                            mcp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
