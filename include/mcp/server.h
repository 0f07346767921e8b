/* SPDX-License-Identifier: MIT */
/* server.h - the MCP server object.
 *
 * An mcp_server_t holds what the server offers (tools, and later resources,
 * prompts, tasks), its identity (serverInfo) and its limits. Transports
 * (stdio.h, http.h) connect clients to it; one server can serve several
 * transports and sessions at once.
 *
 * Thread safety: configure the server on one thread; once serving, every
 * function may be called from any thread (adding or removing tools while
 * serving is supported and announces notifications/tools/list_changed).
 * Handlers run concurrently on transport worker threads and must be
 * reentrant.
 */
#ifndef MCP_SERVER_H
#define MCP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "mcp/cache.h"
#include "mcp/call.h"
#include "mcp/export.h"
#include "mcp/status.h"
#include "mcp/tool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returns new; free with mcp_server_free. name and version (serverInfo) are
 * copied. */
MCP_API mcp_status mcp_server_new(const char *name, const char *version,
                                  mcp_server_t **out);
/* Stops nothing: stop transports first. NULL is a no-op. */
MCP_API void mcp_server_free(mcp_server_t *server);

/* serverInfo fields and instructions; all copy. */
MCP_API mcp_status mcp_server_set_title(mcp_server_t *s, const char *title);
MCP_API mcp_status mcp_server_set_description(mcp_server_t *s,
                                              const char *description);
MCP_API mcp_status mcp_server_set_website_url(mcp_server_t *s, const char *url);
MCP_API mcp_status mcp_server_set_instructions(mcp_server_t *s,
                                               const char *instructions);
/* Icon on serverInfo; same rules as mcp_tool_add_icon. */
MCP_API mcp_status mcp_server_add_icon(mcp_server_t *s, const char *src,
                                       const char *mime_type, const char *sizes,
                                       const char *theme);

/* ---- limits and behaviour ---------------------------------------------- */
/* Items per page of tools/list (and other lists). Default 50; >= 1. */
MCP_API mcp_status mcp_server_set_page_size(mcp_server_t *s, size_t items);
/* Largest accepted message in bytes (default 4 MiB). */
MCP_API mcp_status mcp_server_set_max_message_bytes(mcp_server_t *s,
                                                    size_t bytes);
/* Deepest accepted JSON nesting (default 64). */
MCP_API mcp_status mcp_server_set_max_json_depth(mcp_server_t *s, size_t depth);
/* Worker threads that run handlers concurrently (default 4). */
MCP_API mcp_status mcp_server_set_worker_threads(mcp_server_t *s,
                                                 unsigned threads);
/* Default wait for a client's answer to a server-to-client request
 * (default 60000 ms). */
MCP_API mcp_status mcp_server_set_request_timeout_ms(mcp_server_t *s,
                                                     int timeout_ms);
/* Declare tools.listChanged (default true). */
MCP_API mcp_status mcp_server_set_tools_list_changed(mcp_server_t *s,
                                                     bool declared);
/* "format" in tool schemas (a field table's .format included) is an
 * annotation by default, as JSON Schema 2020-12 says: emitted, never
 * checked. With on, the schemas of the tools added after this call check
 * it (email, date-time, uri, uuid, ...: docs/schema.md, Formats): an
 * argument that fails its format is an invalid argument, a
 * structuredContent that fails it a server error. A tool's own
 * mcp_tool_set_format_assertion wins. Set it before adding tools:
 * changing it once tools were added is MCP_ERR_STATE (logged), since their
 * schemas were compiled already. */
MCP_API mcp_status mcp_server_set_format_assertion(mcp_server_t *s, bool on);

/* ---- multi-round requests (MCP 2026-07-28; call.h) ---------------------
 * The key that signs requestState: 32 to 64 bytes (copied). Default: random
 * per process, so a state resumes only on the process that issued it; set
 * the same key on every replica behind one endpoint. */
MCP_API mcp_status mcp_server_set_request_state_key(mcp_server_t *s,
                                                    const void *key,
                                                    size_t len);
/* How long a requestState stays valid (default 10 minutes); > 0. */
MCP_API mcp_status mcp_server_set_request_state_ttl_ms(mcp_server_t *s,
                                                       int64_t ttl_ms);

/* ---- caching hints (MCP 2026-07-28; mcp/cache.h) ----------------------
 * Sets the hint of one target; ttl_ms in [0, 2^53 - 1], else
 * MCP_ERR_INVALID_ARG. */
MCP_API mcp_status mcp_server_set_cache_hint(mcp_server_t *s,
                                             mcp_cache_target target,
                                             int64_t ttl_ms,
                                             mcp_cache_scope scope);

/* Diagnostics of the library itself (not MCP log notifications). The
 * default writes warnings and worse to stderr, never to stdout. At
 * MCP_LOG_DEBUG every request gets one line when it ends (the request log,
 * docs/observability.md): "request time=... transport=stdio|http era=...
 * method=... tool=|prompt=|resource=|task=... id=... duration_ms=...
 * outcome=result|tool_error|error|task|input_required|cancelled
 * [code=N] bytes_in=N bytes_out=N"; at MCP_LOG_INFO the HTTP transport
 * logs each connection or request refused by a limit or by authorization.
 * Above debug nothing of a request is measured or formatted. */
typedef void (*mcp_log_fn)(mcp_log_level level, const char *message,
                           void *user_data);
MCP_API void mcp_server_set_log_handler(mcp_server_t *s, mcp_log_fn fn,
                                        void *user_data);
MCP_API void mcp_server_set_log_level(mcp_server_t *s, mcp_log_level min);
/* Request log lines also carry each request's params ("params={...}": a
 * tool's arguments, which may hold secrets). Off by default. */
MCP_API void mcp_server_set_log_params(mcp_server_t *s, bool on);

/* ---- OpenTelemetry traces (docs/observability.md) ---------------------------
 * Off by default, and then free. On, every request the server handles (both
 * eras, stdio and HTTP) becomes a SERVER span named "METHOD TARGET" with
 * the attributes of the OpenTelemetry semantic conventions for MCP,
 * continuing the trace of params._meta.traceparent (and tracestate), sent
 * in batches by a background thread by OTLP/HTTP (protobuf unless
 * mcp_server_set_otlp_protocol says http/json). A full queue or a
 * dead or slow collector never slows a request: spans are dropped and
 * counted. Metrics: mcp_server_enable_otlp_metrics. Call before serving.
 *
 * Exports to traces_url ("http://127.0.0.1:4318/v1/traces"; http:// only),
 * with headers ("Name=value,Name2=value2"; may be NULL) on each export.
 * Queue and batching from OTEL_BSP_SCHEDULE_DELAY (ms, default 5000),
 * OTEL_BSP_MAX_QUEUE_SIZE (2048), OTEL_BSP_MAX_EXPORT_BATCH_SIZE (512);
 * service.name from OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES, else
 * the server's name. MCP_ERR_STATE once serving, MCP_ERR_EXISTS when on
 * already, MCP_ERR_INVALID_ARG (err says why) for an unusable URL. */
MCP_API mcp_status mcp_server_enable_otlp_traces(mcp_server_t *s,
                                                 const char *traces_url,
                                                 const char *headers,
                                                 mcp_error_t *err);
/* OpenTelemetry metrics: the mcp.server.operation.duration histogram
 * (seconds; buckets 0.01 ... 300 of the conventions) per method, tool or
 * prompt, error.type, protocol version and transport, the
 * mcp.server.session.duration histogram (initialize to the session's end)
 * per protocol version and transport, and the counter
 * libmcp.telemetry.dropped (spans, series, exports), posted cumulatively by
 * OTLP/HTTP to metrics_url ("http://127.0.0.1:4318/v1/metrics") every
 * OTEL_METRIC_EXPORT_INTERVAL ms (60000) and when the server is freed.
 * Same rules as mcp_server_enable_otlp_traces. */
MCP_API mcp_status mcp_server_enable_otlp_metrics(mcp_server_t *s,
                                                  const char *metrics_url,
                                                  const char *headers,
                                                  mcp_error_t *err);
/* The encoding of both OTLP exporters, by its OTEL_EXPORTER_OTLP_PROTOCOL
 * name: "http/protobuf" (the default, as the OpenTelemetry specification
 * recommends; Content-Type application/x-protobuf) or "http/json"
 * (application/json). "grpc" and anything else: MCP_ERR_UNSUPPORTED, err
 * naming it. Before mcp_server_enable_otlp_traces/_metrics and before
 * serving (MCP_ERR_STATE). */
MCP_API mcp_status mcp_server_set_otlp_protocol(mcp_server_t *s,
                                                const char *protocol,
                                                mcp_error_t *err);
/* The sampler, by its OTEL_TRACES_SAMPLER name: parentbased_always_on (the
 * default), always_on, always_off, traceidratio, parentbased_always_off,
 * parentbased_traceidratio; ratio (0..1) for the ratio ones. Before
 * serving (MCP_ERR_STATE); MCP_ERR_INVALID_ARG for an unknown name. */
MCP_API mcp_status mcp_server_set_trace_sampler(mcp_server_t *s,
                                                const char *sampler,
                                                double ratio);
/* Tracing as the standard environment says: OTEL_EXPORTER_OTLP_
 * TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + "/v1/traces";
 * OTEL_EXPORTER_OTLP_(TRACES_)HEADERS, OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL
 * (http/protobuf, the default, or http/json: anything else, grpc
 * included, is MCP_ERR_UNSUPPORTED), OTEL_TRACES_
 * SAMPLER and _ARG, OTEL_TRACES_EXPORTER (otlp or none),
 * OTEL_SDK_DISABLED; metrics likewise from OTEL_EXPORTER_OTLP_
 * METRICS_ENDPOINT (else OTEL_EXPORTER_OTLP_ENDPOINT + "/v1/metrics"),
 * OTEL_EXPORTER_OTLP_(METRICS_)PROTOCOL, OTEL_METRICS_EXPORTER, OTEL_METRIC_EXPORT_INTERVAL. MCP_OK and nothing
 * done when no endpoint is set.
 * mcp_server_run calls it. */
MCP_API mcp_status mcp_server_otlp_from_env(mcp_server_t *s, mcp_error_t *err);
/* Spans dropped (queue full, collector failed) and exported so far. */
MCP_API uint64_t mcp_server_otlp_dropped(const mcp_server_t *s);
MCP_API uint64_t mcp_server_otlp_exported(const mcp_server_t *s);

/* ---- tools --------------------------------------------------------------- */
/* Adds tool (steals, even on failure). A tool that needs tasks
 * (execution.taskSupport required or optional) on a server without them
 * is refused at the start of serving (the transport fails to start, naming
 * every such tool) or, once serving, here (MCP_ERR_STATE): tasks are
 * enabled before serving (mcp_server_enable_tasks), so they may come after
 * the tools.  Compiles its schemas and checks them
 * against the JSON Schema meta-schema: MCP_ERR_SCHEMA with err filled when a
 * schema is invalid or one of the tool's schema setters failed (the reason
 * kept by the setter: not JSON, with line and column; not an object
 * schema; NULL); MCP_ERR_EXISTS when the name is taken; MCP_ERR_STATE when
 * no handler was set. Refusals are also logged. Tools are listed in
 * registration order. */
MCP_API mcp_status mcp_server_add_tool(mcp_server_t *s, mcp_tool_t *tool,
                                       mcp_error_t *err);
/* Removes the named tool; calls already running finish normally.
 * MCP_ERR_NOT_FOUND when absent. */
MCP_API mcp_status mcp_server_remove_tool(mcp_server_t *s, const char *name);
MCP_API size_t mcp_server_tool_count(const mcp_server_t *s);

/* ---- server-initiated notifications -----------------------------------------
 * Sends a notification to every live session that finished initialization
 * (on its standalone stream). params: steals, even on failure; may be NULL. */
MCP_API mcp_status mcp_server_broadcast(mcp_server_t *s, const char *method,
                                        json_t *params);

/* ---- the standard command line ---------------------------------------------
 * Serves s as a server program does, with the usual options, so that main is
 *
 *   int main(int argc, char **argv) {
 *     mcp_server_t *s = make_server();  // mcp_server_new, add tools, ...
 *     int rc = mcp_server_run(s, argc, argv);
 *     mcp_server_free(s);
 *     return rc;
 *   }
 *
 *   --stdio            serve over stdin/stdout until stdin closes (default)
 *   --http HOST:PORT   serve Streamable HTTP on http://HOST:PORT/mcp until
 *                      SIGINT or SIGTERM ("[::1]:8808" for IPv6; port 0
 *                      picks a free port); the URL is printed on stderr
 *   --log-level LEVEL  the library's diagnostics on stderr from LEVEL up
 *                      (debug ... emergency; default warning); debug
 *                      logs one line per request
 *   --log-params       request log lines carry the params (arguments)
 *   --no-stdout-guard  stdio: the protocol stays on fd 1 (by default what
 *                      handlers print to stdout goes to stderr; stdio.h)
 *   --metrics ALLOW    with --http: Prometheus metrics on GET /metrics for
 *                      the clients in ALLOW, as mcp_http_options_set_metrics
 *                      takes it ("127.0.0.1/32", "10.0.0.0/8,::1"); a
 *                      malformed list, or no --http, is a usage error
 *   --metrics-path PATH  with --metrics: on PATH instead of /metrics
 *   --help, -h         usage on stdout
 *   --version, -V      "NAME VERSION (libmcp X.Y.Z)" on stdout
 * Options also take the form --opt=VALUE. What the command line leaves
 * open is read from the environment (an empty variable is unset):
 *   MCP_HTTP=HOST:PORT   as --http, unless --stdio or --http is given
 *   MCP_LOG_LEVEL=LEVEL  as --log-level, unless --log-level is given
 * A bad value there is a usage error naming the variable. The OTEL_*
 * variables are read as mcp_server_otlp_from_env reads them. Returns the
 * exit code: 0 after --help, --version or a clean end of serving; 2 for a
 * usage error (message and usage on stderr); 1 when serving failed (e.g.
 * the port is taken) or s is NULL. Does not free s. */
MCP_API int mcp_server_run(mcp_server_t *s, int argc, char **argv);

/* The application's own options, merged into mcp_server_run's command line
 * and --help:
 *
 *   static const char *db = "shop.db";
 *   static const mcp_run_option options[] = {
 *       {.name = "db", .argument = "PATH", .help = "the shop's database",
 *        .env = "SHOP_DB", .target = &db},
 *       {.name = NULL}};
 *   return mcp_server_run_with(s, argc, argv, options);
 *
 * name: the option without its dashes (--db); argument: the value's name in
 * --help, or NULL for a flag (its value is then "true"); help: one line;
 * env: a variable read when the option is not on the command line (NULL:
 * none; empty counts as unset). Exactly one of target (set to the value,
 * borrowed from argv or the environment, left alone when the option is not
 * given) and fn (called with the value; a failure is a usage error, exit 2,
 * naming the option and err's message). Values are delivered after --help
 * and --version are handled and before serving starts. A table mistake (a
 * name of mcp_server_run's own options or taken twice, both or neither of
 * target and fn, ...) ends the run with exit 1 and a message naming the
 * entry. */
typedef mcp_status (*mcp_run_option_fn)(const char *value, void *user_data,
                                        mcp_error_t *err);
typedef struct mcp_run_option {
  const char *name; /* NULL ends the table */
  const char *argument;
  const char *help;
  const char *env;
  const char **target;
  mcp_run_option_fn fn;
  void *user_data;
  const void *reserved[2]; /* zero */
} mcp_run_option;
/* mcp_server_run with options (NULL or a {NULL}-terminated table). */
MCP_API int mcp_server_run_with(mcp_server_t *s, int argc, char **argv,
                                const mcp_run_option *options);

#ifdef __cplusplus
}
#endif
#endif
