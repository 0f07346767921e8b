/* SPDX-License-Identifier: MIT */
/* http.h - serving MCP over Streamable HTTP (MCP 2025-11-25 and 2026-07-28).
 *
 * One endpoint (default "/mcp") takes POST (one JSON-RPC message per
 * request), GET (the session's standalone SSE stream for server-initiated
 * messages, and resumption with Last-Event-ID) and DELETE (end a session).
 * Served by libmcp's own HTTP/1.1 engine on a few epoll threads; SSE
 * connections are suspended while idle, so there is no thread per
 * connection. Requests go to a worker pool and their connection is resumed
 * when output is ready; only a tools/call that cannot need to reach the
 * client before its response, of a tool whose recent runs were all fast and
 * silent, runs on a network thread (docs/http.md, Threads).
 *
 * Ownership: options are owned by the caller (the server copies them at
 * start); the handle returned by mcp_http_server_start is owned by the caller
 * and released by mcp_http_server_stop. The mcp_server_t is borrowed and must
 * outlive the handle.
 *
 * Thread safety: an mcp_http_options_t is used by one thread at a time.
 * mcp_http_server_port may be called from any thread; mcp_http_server_stop
 * once, from any thread that is not a handler.
 */
#ifndef MCP_HTTP_H
#define MCP_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/event_store.h"
#include "mcp/export.h"
#include "mcp/server.h"
#include "mcp/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_http_options mcp_http_options_t;
typedef struct mcp_http_server mcp_http_server_t;

/* Returns new, with the defaults listed at each setter; free with
 * mcp_http_options_free (NULL is a no-op). */
MCP_API mcp_status mcp_http_options_new(mcp_http_options_t **out);
MCP_API void mcp_http_options_free(mcp_http_options_t *opts);

/* Address to bind: an IPv4 or IPv6 literal or a host name resolved at start
 * (copied; default "127.0.0.1"), and the TCP port (default 8808; 0 picks a
 * free port, see mcp_http_server_port). */
MCP_API mcp_status mcp_http_options_set_bind(mcp_http_options_t *o,
                                             const char *address,
                                             uint16_t port);
/* Endpoint path, starting with '/' (copied; default "/mcp"). */
MCP_API mcp_status mcp_http_options_set_endpoint(mcp_http_options_t *o,
                                                 const char *path);
/* Adds an allowed Origin, e.g. "https://app.example" (copied). Once any is
 * added only listed origins (and requests without Origin) pass; others get
 * 403. Default: on a loopback bind, http://localhost:PORT,
 * http://127.0.0.1:PORT and http://[::1]:PORT; elsewhere every origin. "*"
 * allows every origin. */
MCP_API mcp_status mcp_http_options_add_allowed_origin(mcp_http_options_t *o,
                                                       const char *origin);
/* Adds an allowed Host header value, e.g. "mcp.example:443" (copied). Once
 * any is added other Hosts get 403. Default: on a loopback bind,
 * localhost:PORT, 127.0.0.1:PORT and [::1]:PORT; elsewhere every host. "*"
 * allows every host. */
MCP_API mcp_status mcp_http_options_add_allowed_host(mcp_http_options_t *o,
                                                     const char *host);
/* CORS, for browser clients (web apps, the MCP Inspector's web UI in direct
 * mode). Off by default: no Access-Control-* headers, OPTIONS gets 405.
 * Adds an origin ("https://app.example", "http://localhost:6274"; copied)
 * to the CORS allow-list; an origin on it also passes the Origin check
 * above (the Host check still applies). Preflight OPTIONS requests from a
 * listed origin get 204 with the methods and the MCP request headers
 * (Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name,
 * Mcp-Param-*, Authorization, ...), others 403; answers to a listed origin
 * carry Access-Control-Allow-Origin and expose Mcp-Session-Id and
 * MCP-Protocol-Version. "*" allows every origin, and so also turns the
 * Origin check off; it is refused (MCP_ERR_INVALID_ARG) with credentials.
 * MCP_ERR_INVALID_ARG for a value that is not scheme://host[:port]. */
MCP_API mcp_status mcp_http_options_add_cors_origin(mcp_http_options_t *o,
                                                    const char *origin);
/* Access-Control-Allow-Credentials: true (default false), for browsers that
 * send cookies or HTTP authentication; MCP_ERR_INVALID_ARG when "*" is on
 * the CORS list. */
MCP_API mcp_status mcp_http_options_set_cors_credentials(mcp_http_options_t *o,
                                                         bool allow);
/* Stateless mode (default false): no session ids, every POST is
 * self-contained, GET and DELETE get 405, no resumability. */
MCP_API mcp_status mcp_http_options_set_stateless(mcp_http_options_t *o,
                                                  bool stateless);
/* Offer the GET standalone stream (default true; false: GET gets 405). */
MCP_API mcp_status mcp_http_options_set_get_stream(mcp_http_options_t *o,
                                                   bool enabled);
/* Answer every request as text/event-stream (default false: JSON unless the
 * handler sends something before its response). */
MCP_API mcp_status mcp_http_options_set_always_sse(mcp_http_options_t *o,
                                                   bool always);
/* Largest POST body in bytes (default 4 MiB; beyond: 413). */
MCP_API mcp_status mcp_http_options_set_max_body_bytes(mcp_http_options_t *o,
                                                       size_t bytes);
/* Memory for one request's headers in bytes (default 16 KiB; beyond: 431). */
MCP_API mcp_status mcp_http_options_set_max_header_bytes(mcp_http_options_t *o,
                                                         size_t bytes);
/* Deepest JSON nesting accepted in a body (default 0: the server's
 * mcp_server_set_max_json_depth); deeper bodies get 400. */
MCP_API mcp_status mcp_http_options_set_max_json_depth(mcp_http_options_t *o,
                                                       size_t depth);
/* A session without requests for this long ends (default 600000 ms; 0:
 * never); an open GET stream does not count as a request, so it does not
 * keep its session alive. Later requests with its id get 404. */
MCP_API mcp_status
mcp_http_options_set_session_idle_timeout_ms(mcp_http_options_t *o, int64_t ms);
/* Live sessions at most (default 1024); initialize beyond gets 503 with a
 * JSON-RPC error. */
MCP_API mcp_status mcp_http_options_set_max_sessions(mcp_http_options_t *o,
                                                     size_t count);
/* Threads that run handlers (default 0: the server's worker_threads). */
MCP_API mcp_status mcp_http_options_set_worker_threads(mcp_http_options_t *o,
                                                       unsigned threads);
/* Network threads (default 0: 2). */
MCP_API mcp_status mcp_http_options_set_io_threads(mcp_http_options_t *o,
                                                   unsigned threads);
/* Which HTTP/1.1 implementation serves the transport (docs/http.md
 * "Engines"): since 2026-12-04 only libmcp's own engine. DEFAULT and OWN
 * select it; LIBMICROHTTPD (removed) is refused with MCP_ERR_UNSUPPORTED,
 * and mcp_http_server_start refuses to start (MCP_ERR_UNSUPPORTED, err says
 * why) while the environment variable MCP_HTTP_ENGINE names another
 * engine. Each server starts an engine of its own. */
typedef enum mcp_http_engine {
  MCP_HTTP_ENGINE_DEFAULT = 0,
  MCP_HTTP_ENGINE_LIBMICROHTTPD = 1,
  MCP_HTTP_ENGINE_OWN = 2
} mcp_http_engine;
MCP_API mcp_status mcp_http_options_set_engine(mcp_http_options_t *o,
                                               mcp_http_engine engine);
/* The retry: hint in ms sent on SSE streams (default 1000). */
MCP_API mcp_status mcp_http_options_set_sse_retry_ms(mcp_http_options_t *o,
                                                     int ms);
/* Polling (SEP-1699): close each POST SSE stream after its priming event;
 * the client resumes with GET + Last-Event-ID (default false). */
MCP_API mcp_status mcp_http_options_set_sse_poll(mcp_http_options_t *o,
                                                 bool poll);
/* Interval of ": ping" comments on idle SSE streams (default 15000 ms; 0:
 * none). */
MCP_API mcp_status mcp_http_options_set_heartbeat_ms(mcp_http_options_t *o,
                                                     int ms);
/* Close connections idle (no bytes) for this long (default 30 s); see also
 * mcp_http_options_set_request_timeout_ms. */
MCP_API mcp_status mcp_http_options_set_connection_timeout_s(
    mcp_http_options_t *o, unsigned seconds);
/* How long mcp_http_server_stop lets in-flight requests finish before it
 * cancels them (default 5000 ms). */
MCP_API mcp_status
mcp_http_options_set_shutdown_deadline_ms(mcp_http_options_t *o, int ms);
/* ---- limits (docs/security.md) ------------------------------------------
 * A request refused by a limit gets 503 (the server-wide share is used) or
 * 429 (the client's share is used) with a JSON-RPC error body, a
 * Retry-After header (mcp_http_options_set_retry_after_s) and
 * "Connection: close". */

/* Open connections at most (default 1020; 1 to 1000000; lowered at start so
 * that they fit in the process's RLIMIT_NOFILE). When a connection arrives
 * at the limit, the connection that has waited longest for its next
 * request is closed to make room; when every connection has a request in
 * progress, the new one is answered 503. Each open 2026-07-28
 * subscriptions/listen stream (and each 2025-11-25 GET stream) holds one;
 * for many listeners raise it, the stream limits below, the per-address
 * limit (when they share an address) and RLIMIT_NOFILE. */
MCP_API mcp_status mcp_http_options_set_max_connections(mcp_http_options_t *o,
                                                        size_t count);
/* Open connections per client address (IPv4 address, IPv6 /64; default
 * 128): beyond, the address's longest-waiting connection is closed, or the
 * new one answered 429 when all of them have a request in progress. */
MCP_API mcp_status mcp_http_options_set_max_connections_per_address(
    mcp_http_options_t *o, size_t count);
/* A request's head must arrive within this many ms after the connection
 * opened (or its previous request ended), and its body within as many ms
 * after the head (default 10000; 0: no deadline). A connection missing
 * either deadline is closed, so an idle keep-alive connection closes after
 * it as well. */
MCP_API mcp_status
mcp_http_options_set_request_timeout_ms(mcp_http_options_t *o, int64_t ms);
/* Long-lived SSE responses (GET streams, resumptions, POST answers streamed
 * as SSE, subscriptions/listen streams) open at once, in total (default 0:
 * three quarters of max_connections, so that requests always find a
 * connection) and per session (default 8; 0: none). A GET or
 * subscriptions/listen beyond them gets 503 (total) or 429 (session); a POST
 * answer that turns into SSE is never cut off, but counts. */
MCP_API mcp_status mcp_http_options_set_max_streams(mcp_http_options_t *o,
                                                    size_t count);
MCP_API mcp_status mcp_http_options_set_max_streams_per_session(
    mcp_http_options_t *o, size_t count);
/* The Retry-After value of 503 and 429 answers, in seconds (1 to 86400;
 * default 1). */
MCP_API mcp_status mcp_http_options_set_retry_after_s(mcp_http_options_t *o,
                                                      unsigned seconds);
/* Bytes of events a stream holds for a client that does not read them.
 * Each subscriptions/listen and GET stream at most `bytes` (default 64
 * KiB; 4 KiB to 64 MiB); all streams together at most `total` (default 32
 * MiB; at least 64 KiB). A stream that would go beyond is cut: its
 * buffered events are dropped and its connection ends, so the client
 * reconnects and resynchronises (a resumable GET stream resumes from the
 * event store). A POST answer streamed as SSE is cut only by the total (or
 * beyond 8 MiB of its own). A list_changed notification already waiting
 * unsent on a stream is not queued again. */
MCP_API mcp_status
mcp_http_options_set_stream_buffer_bytes(mcp_http_options_t *o, size_t bytes);
MCP_API mcp_status mcp_http_options_set_stream_buffer_total_bytes(
    mcp_http_options_t *o, size_t total);
/* Event store for resumability (borrowed: it must outlive every server
 * started with these options; the caller closes it). Default: each server
 * creates and owns a memory store with the default limits. A store with NULL
 * ops disables resumability (no event ids, no replay). */
MCP_API mcp_status mcp_http_options_set_event_store(mcp_http_options_t *o,
                                                    mcp_event_store store);

/* Serves HTTPS with the PEM certificate chain cert_file (leaf first) and
 * the PEM private key key_file, TLS 1.2 and 1.3 only. Both NULL: plain
 * HTTP (the default). The files are read at start and again by
 * mcp_http_server_reload_tls. */
MCP_API mcp_status mcp_http_options_set_tls(mcp_http_options_t *o,
                                            const char *cert_file,
                                            const char *key_file);

/* Prometheus (docs/observability.md): serves the server's metrics - the
 * ones exported by OTLP, mcp.server.operation.duration,
 * mcp.server.session.duration and libmcp.telemetry.dropped - in the
 * Prometheus text format 0.0.4 on GET path (copied; NULL: "/metrics").
 * Off by default; on, it turns metric collection on even when OTLP metrics
 * are off (so the HTTP server must start before the server serves on
 * another transport). allow: the client addresses answered, a list of IPv4
 * and IPv6 addresses and CIDR blocks separated by commas or spaces
 * ("127.0.0.1/32", "10.0.0.0/8, ::1"); NULL: loopback only (127.0.0.0/8
 * and ::1). Other clients get the answer of an unknown path (404): the
 * endpoint is not revealed. Scrapers do not do OAuth, so the endpoint does
 * not ask for the bearer token of mcp_http_options_set_auth: the address
 * list is its access control; the Host and Origin checks apply as to the
 * MCP endpoint. MCP_ERR_INVALID_ARG (and mcp_http_server_start refuses the
 * options, naming the culprit) for a path that does not start with '/',
 * holds a space, control character, '?' or '#', lies under
 * "/.well-known/" or equals the MCP endpoint (also checked at start), and
 * for a malformed address or block, or one with bits set beyond its
 * prefix ("10.0.0.1/8"). */
MCP_API mcp_status mcp_http_options_set_metrics(mcp_http_options_t *o,
                                                const char *path,
                                                const char *allow);

/* Starts serving server and returns at once (returns new *out). options is
 * borrowed for the call (NULL: defaults). Errors: MCP_ERR_INVALID_ARG,
 * MCP_ERR_IO (address unresolvable, port taken; err says which),
 * MCP_ERR_NOMEM. */
MCP_API mcp_status mcp_http_server_start(mcp_server_t *server,
                                         const mcp_http_options_t *options,
                                         mcp_http_server_t **out,
                                         mcp_error_t *err);
/* The bound TCP port (the actual one when 0 was asked). */
MCP_API uint16_t mcp_http_server_port(const mcp_http_server_t *h);
/* Reads the certificate and key files of mcp_http_options_set_tls again:
 * new connections get the new certificate, open ones keep theirs and are
 * not interrupted. On failure (unreadable files, a key that does not fit)
 * the server goes on with the old certificate. MCP_ERR_STATE without TLS.
 * Not concurrently with mcp_http_server_stop. mcp_server_serve_http_options
 * calls it on SIGHUP when TLS is configured. */
MCP_API mcp_status mcp_http_server_reload_tls(mcp_http_server_t *h,
                                              mcp_error_t *err);
/* Graceful stop: refuses new connections, lets in-flight requests finish
 * within the shutdown deadline, then cancels the rest, ends every SSE stream
 * cleanly and frees h. A stream or session another thread still holds (a
 * task's notification being sent) is ended and waited for: once this
 * returns, the transport no longer uses the mcp_server_t, which may be freed
 * at once. NULL is a no-op. Must not be called from a handler. */
MCP_API void mcp_http_server_stop(mcp_http_server_t *h);

/* Blocking convenience: serves on "HOST:PORT" ("[::1]:8808" for IPv6) with
 * default options until SIGINT or SIGTERM, then stops gracefully. */
MCP_API mcp_status mcp_server_serve_http(mcp_server_t *server,
                                         const char *host_port);
/* Same with options (borrowed); their bind address is used. */
MCP_API mcp_status mcp_server_serve_http_options(mcp_server_t *server,
                                                 const mcp_http_options_t *o);

#ifdef __cplusplus
}
#endif
#endif
