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
/* Told after each HTTP exchange of an HTTP client, on the thread that made
 * it: the verb ("POST", "GET", "DELETE"), the URL, the HTTP status (0 when
 * no response came), the milliseconds it took (for an SSE response: until
 * the stream ended), and whether the response was an SSE stream. For
 * verbose output (mcpc -v). */
typedef void (*mcp_client_http_fn)(mcp_client_t *client, const char *verb,
                                   const char *url, long status,
                                   double elapsed_ms, bool sse,
                                   void *user_data);

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
/* Trust the CA certificates of this PEM file for https instead of the
 * system store (NULL: the system store again). Certificates and host names
 * are always verified. Copied. */
MCP_API mcp_status mcp_client_options_set_cacert(mcp_client_options_t *o,
                                                 const char *path);

/* A source of bearer tokens (OAuth, see include/mcp/oauth.h), asked by the
 * HTTP transport: with status 0 before each request (*token: the token to
 * send, malloc'd, or NULL for none); with status 401 or 403 and the
 * response's WWW-Authenticate value (or NULL) after a refusal, when it may
 * obtain a new token (MCP_OK with *token set: the request is sent again;
 * anything else ends it with that error). url is the MCP endpoint. Runs on
 * the thread sending the request; must be thread-safe when the client is
 * used from several threads. */
typedef mcp_status (*mcp_client_token_fn)(void *user_data, const char *url,
                                          int status,
                                          const char *www_authenticate,
                                          char **token, mcp_error_t *err);
/* Installs fn (user_data borrowed; it must outlive the client). It takes
 * precedence over mcp_client_options_set_bearer. */
MCP_API mcp_status mcp_client_options_set_token_provider(
    mcp_client_options_t *o, mcp_client_token_fn fn, void *user_data);
/* clientInfo (copied). Default "libmcp-client" and the library version. */
MCP_API mcp_status mcp_client_options_set_info(mcp_client_options_t *o,
                                               const char *name,
                                               const char *version);
/* The protocol era (copied). NULL or "auto" (the default): server/discover
 * first and 2026-07-28 when the server offers it, else initialize offering
 * MCP_PROTOCOL_LATEST. "2026-07-28": that era only (connect fails when the
 * server does not speak it). An older version ("2025-11-25", ...): the
 * initialize handshake only, offering that version; the client accepts
 * 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25 in the answer.
 *
 * One API for both eras: in 2026-07-28 every request carries the _meta
 * keys (protocolVersion, clientCapabilities with the tasks extension but
 * on a plain tools/call, clientInfo), HTTP requests carry Mcp-Method, Mcp-Name and the Mcp-Param-*
 * headers of x-mcp-header tool properties (tools/list drops tools whose
 * annotations are invalid), results with ttlMs are cached until they go
 * stale, input_required results are answered through the sampling,
 * elicitation and roots handlers and retried with requestState, and
 * mcp_client_call_tool follows a task result (of a tool that requires a
 * task) to its end. */
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
    mcp_client_options_t *o, mcp_client_request_fn fn,
    const json_t *capabilities, void *user_data);
MCP_API mcp_status mcp_client_options_set_elicitation_handler(
    mcp_client_options_t *o, mcp_client_request_fn fn,
    const json_t *capabilities, void *user_data);
MCP_API mcp_status mcp_client_options_set_roots_handler(
    mcp_client_options_t *o, mcp_client_request_fn fn,
    const json_t *capabilities, void *user_data);
MCP_API mcp_status mcp_client_options_set_observer(mcp_client_options_t *o,
                                                   mcp_client_observer_fn fn,
                                                   void *user_data);
/* OpenTelemetry (docs/observability.md): a CLIENT span per request, named
 * "METHOD TARGET" with the MCP semantic conventions' attributes, whose
 * context goes to the server in params._meta.traceparent (a traceparent
 * the caller put there becomes the span's parent), exported by OTLP/HTTP
 * (protobuf unless mcp_client_options_set_otlp_protocol says http/json) to
 * traces_url (http:// only; MCP_ERR_INVALID_ARG otherwise) by a
 * background thread; headers "Name=value,..." or NULL. NULL url: off (the
 * default). service.name from OTEL_SERVICE_NAME, else the client's name. */
MCP_API mcp_status mcp_client_options_set_otlp_traces(mcp_client_options_t *o,
                                                      const char *traces_url,
                                                      const char *headers);
/* The OTLP encoding of the CLIENT spans and histograms: "http/protobuf"
 * (the default) or "http/json"; "grpc" and anything else are refused
 * (MCP_ERR_INVALID_ARG; mcp_client_connect's err then names the value). */
MCP_API mcp_status
mcp_client_options_set_otlp_protocol(mcp_client_options_t *o,
                                     const char *protocol);
/* OpenTelemetry metrics: the mcp.client.operation.duration (per request)
 * and mcp.client.session.duration (from mcp_client_connect to
 * mcp_client_close) histograms, in seconds with the conventions' buckets,
 * exported by OTLP/HTTP (as mcp_client_options_set_otlp_protocol says) to
 * metrics_url (http:// only) every
 * OTEL_METRIC_EXPORT_INTERVAL ms (60000) and once at close; headers as
 * above. NULL url: off (the default). */
MCP_API mcp_status mcp_client_options_set_otlp_metrics(
    mcp_client_options_t *o, const char *metrics_url, const char *headers);
/* Both from the environment: traces from
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT +
 * "/v1/traces", with ..._TRACES_HEADERS or ..._HEADERS (off with
 * OTEL_TRACES_EXPORTER=none); metrics from
 * OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT +
 * "/v1/metrics", with ..._METRICS_HEADERS or ..._HEADERS (off with
 * OTEL_METRICS_EXPORTER=none); the encoding from
 * OTEL_EXPORTER_OTLP_TRACES_PROTOCOL (else ..._PROTOCOL) as
 * mcp_client_options_set_otlp_protocol. OTEL_SDK_DISABLED=true: both off.
 * MCP_OK and nothing set when no endpoint is named. An exporter other than
 * otlp or none, or a protocol other than http/protobuf or http/json, is
 * refused (MCP_ERR_INVALID_ARG, the variable named in the refusals), as
 * mcp_server_otlp_from_env refuses it. */
MCP_API mcp_status mcp_client_options_otlp_from_env(mcp_client_options_t *o);
/* Sets the HTTP exchange observer (see mcp_client_http_fn; not called for
 * stdio). */
MCP_API mcp_status mcp_client_options_set_http_observer(
    mcp_client_options_t *o, mcp_client_http_fn fn, void *user_data);

/* ---- a result cache shared by several clients ---------------------------- */

/* In 2026-07-28 the lists (tools, prompts, resources, resource templates)
 * and resources/read carry ttlMs (how long the result stays fresh) and
 * cacheScope. Every client keeps its own cache of such results. A result
 * marked cacheScope "public" (the same for every caller) may also be shared
 * between clients of one process: create a shared cache and attach it to
 * the clients' options. A client then answers a request from the shared
 * cache when another client attached to it got a fresh public result for
 * the same server, method and params (the server is its URL for HTTP, its
 * command line for stdio). "private" results, and results without
 * cacheScope, never enter the shared cache. An entry expires ttlMs after it
 * was received (at most a day); a change notification (list_changed,
 * resources/updated) received by any attached client drops that server's
 * entries it makes stale.
 *
 * Ownership: the cache is the caller's; clients borrow it, so free it after
 * every client attached to it is closed. Thread-safe. */
typedef struct mcp_client_cache mcp_client_cache_t;

/* Returns new (free with mcp_client_cache_free; NULL is a no-op). At most
 * max_entries results are kept (0: 1024); when full, expired entries go
 * first, then everything. */
MCP_API mcp_status mcp_client_cache_new(size_t max_entries,
                                        mcp_client_cache_t **out);
MCP_API void mcp_client_cache_free(mcp_client_cache_t *cache);
/* The number of entries (fresh or not yet swept), for tests and metrics. */
MCP_API size_t mcp_client_cache_size(mcp_client_cache_t *cache);
/* Attaches cache (borrowed, may be NULL: none) to the clients connected
 * with these options. */
MCP_API mcp_status mcp_client_options_set_shared_cache(
    mcp_client_options_t *o, mcp_client_cache_t *cache);

/* ---- connection ---------------------------------------------------------- */

/* Connects and initializes. *out returns new. On failure nothing is left
 * running and err (may be NULL) says why. */
MCP_API mcp_status mcp_client_connect(const mcp_client_options_t *o,
                                      mcp_client_t **out, mcp_error_t *err);
/* Ends the session (HTTP: DELETE; stdio: close stdin, then SIGTERM and
 * SIGKILL after grace periods) and frees everything. NULL is a no-op. */
MCP_API void mcp_client_close(mcp_client_t *client);

/* The InitializeResult, or in 2026-07-28 the DiscoverResult (both carry
 * "capabilities"; borrowed). */
MCP_API json_t *mcp_client_initialize_result(const mcp_client_t *client);
/* The server's Implementation (name, version, title...) in either era:
 * InitializeResult.serverInfo, or the DiscoverResult's
 * _meta["io.modelcontextprotocol/serverInfo"] (borrowed; NULL when the
 * server gave none). */
MCP_API json_t *mcp_client_server_info(const mcp_client_t *client);
/* Negotiated protocol version (borrowed). */
MCP_API const char *mcp_client_protocol_version(const mcp_client_t *client);
/* True when the server declared the top-level capability ("tools",
 * "resources", "prompts", "logging", "completions", "tasks"; in
 * 2026-07-28 "tasks" is the io.modelcontextprotocol/tasks extension). */
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
 * the CallToolResult; an isError result is MCP_OK: inspect it. In
 * 2026-07-28 the call does not declare the tasks extension, so the tool
 * runs as a task only when it requires one (the server answers -32021: the
 * call is sent again declaring it, and the task followed to its result). */
MCP_API mcp_status mcp_client_call_tool(mcp_client_t *client, const char *name,
                                        const json_t *arguments,
                                        mcp_client_progress_fn progress,
                                        void *user_data, json_t **result,
                                        mcp_error_t *err);
/* tools/call as a task (params.task.ttl = ttl_ms when > 0). *result (returns
 * new) is the CreateTaskResult, or the plain CallToolResult when the server
 * ignored the task request (check for a "task" member). */
MCP_API mcp_status mcp_client_call_tool_task(mcp_client_t *client,
                                             const char *name,
                                             const json_t *arguments,
                                             int64_t ttl_ms,
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
/* tasks/update (2026-07-28): delivers inputResponses (borrowed; an object
 * key -> result) to a task that is input_required. MCP_ERR_UNSUPPORTED in
 * 2025-11-25, where the server asks through the request handlers. */
MCP_API mcp_status mcp_client_task_update(mcp_client_t *client,
                                          const char *task_id,
                                          const json_t *input_responses,
                                          mcp_error_t *err);
/* Status callback of mcp_client_task_wait (task borrowed). */
typedef void (*mcp_client_task_fn)(json_t *task, void *user_data);
/* Waits until the task is terminal (completed, failed, cancelled) or
 * input_required: polls tasks/get every pollInterval (pollIntervalMs in
 * 2026-07-28; default_interval_ms when the server gives none; <= 0: 1000),
 * and returns at once when a status notification of the task arrives
 * meanwhile (notifications/tasks/status, or notifications/tasks on a listen
 * stream). on_status (may be NULL) sees every state. In 2026-07-28 a
 * completed task carries its result inline ("result"). *task returns new. */
MCP_API mcp_status mcp_client_task_wait(mcp_client_t *client,
                                        const char *task_id,
                                        int default_interval_ms,
                                        mcp_client_task_fn on_status,
                                        void *user_data, json_t **task,
                                        mcp_error_t *err);

/* Listens for notifications (they reach the notification handler) until
 * the server ends the stream, the connection closes, or
 * mcp_client_listen_stop() is called (then MCP_OK). Blocks. filter
 * (borrowed, may be NULL) is a SubscriptionFilter: toolsListChanged,
 * promptsListChanged, resourcesListChanged (booleans), resourceSubscriptions
 * (URIs), taskIds. 2026-07-28: subscriptions/listen, whose first
 * notification is notifications/subscriptions/acknowledged. 2025-11-25:
 * resources/subscribe for the URIs, then the session's own stream. */
MCP_API mcp_status mcp_client_listen(mcp_client_t *client,
                                     const json_t *filter,
                                     mcp_error_t *err);
/* Ends every running mcp_client_listen, and every mcp_client_listen_at whose
 * generation it follows, begun or not (any thread; safe in a callback). */
MCP_API void mcp_client_listen_stop(mcp_client_t *client);
/* For a listen run on another thread: the client's listen generation, which
 * each mcp_client_listen_stop advances. Read it before starting the thread
 * and pass it to mcp_client_listen_at there, so that a stop made in between
 * is not lost. */
MCP_API uint64_t mcp_client_listen_generation(mcp_client_t *client);
/* mcp_client_listen, but ended by every mcp_client_listen_stop made since
 * generation (mcp_client_listen_generation) was read, also one that came
 * before this call: it then returns MCP_OK at once without sending
 * anything. mcp_client_listen(c, f, e) is mcp_client_listen_at(c,
 * mcp_client_listen_generation(c), f, e). */
MCP_API mcp_status mcp_client_listen_at(mcp_client_t *client,
                                        uint64_t generation,
                                        const json_t *filter,
                                        mcp_error_t *err);

/* resources/read, resources/subscribe, resources/unsubscribe
 * (2025-11-25 only: MCP_ERR_UNSUPPORTED in 2026-07-28, see
 * mcp_client_listen). */
MCP_API mcp_status mcp_client_read_resource(mcp_client_t *client,
                                            const char *uri, json_t **result,
                                            mcp_error_t *err);
MCP_API mcp_status mcp_client_subscribe(mcp_client_t *client, const char *uri,
                                        bool subscribe, mcp_error_t *err);

/* prompts/get. arguments borrowed (object of strings, may be NULL). */
MCP_API mcp_status mcp_client_get_prompt(mcp_client_t *client, const char *name,
                                         const json_t *arguments,
                                         json_t **result,
                                         mcp_error_t *err);

/* completion/complete. ref borrowed ({"type":"ref/prompt","name":...} or
 * {"type":"ref/resource","uri":...}); context_arguments borrowed, may be
 * NULL. *result returns new (the CompleteResult). */
MCP_API mcp_status mcp_client_complete(mcp_client_t *client,
                                       const json_t *ref,
                                       const char *argument, const char *value,
                                       const json_t *context_arguments,
                                       json_t **result, mcp_error_t *err);

/* logging/setLevel ("debug" ... "emergency"); in 2026-07-28 the level goes
 * into every later request's _meta instead. */
MCP_API mcp_status mcp_client_set_log_level(mcp_client_t *client,
                                            const char *level,
                                            mcp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
