/* SPDX-License-Identifier: MIT */
/* internal.h - the client object and the transport interface it drives.
 *
 * The core (client.c) owns request ids, the table of requests waiting for an
 * answer, and the routing of every incoming message. A transport only moves
 * bytes: send() hands it one serialized message, and it calls
 * mcp__client_receive_text() for each message that arrives. Two transports
 * exist, chosen at connect time, so they sit behind a small vtable. */
#ifndef MCP_CLIENT_INTERNAL_H
#define MCP_CLIENT_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "jsonrpc/jsonrpc.h"
#include "mcp/client.h"
#include "util/buf.h"

typedef struct mcp__ctransport mcp__ctransport;

/* What the core tells a transport about one outgoing message. */
typedef struct mcp__csend {
  /* The id when the message is a request (the transport may need to wait
   * for its answer, HTTP does), else NULL. */
  const json_t *request_id;
  /* Extra header lines ("Name: value"), NULL-terminated, or NULL: the
   * 2026-07-28 routing headers (Mcp-Method, Mcp-Name, Mcp-Param-*). */
  char *const *headers;
  /* 0: the client's timeout; < 0: none (a subscriptions/listen stream). */
  int timeout_ms;
} mcp__csend;

/* Which protocol era a client speaks (fixed at connect). */
typedef enum mcp__era {
  MCP__ERA_AUTO = 0, /* option: discover first, initialize otherwise */
  MCP__ERA_LEGACY,   /* initialize, sessions (2025-11-25 and older) */
  MCP__ERA_MODERN    /* per-request _meta, server/discover (2026-07-28) */
} mcp__era;

#define MCP__MODERN_VERSION "2026-07-28"
#define MCP__TASKS_EXT      "io.modelcontextprotocol/tasks"

typedef struct mcp__ctransport_ops {
  /* Sends one message (len bytes of compact JSON), see mcp__csend.
   * MCP_ERR_NOT_FOUND means the server no longer knows the session the
   * message was sent in (HTTP 404 to a request carrying a session id): the
   * core then starts a new session. */
  mcp_status (*send)(mcp__ctransport *t, const char *bytes, size_t len,
                     const mcp__csend *info, mcp_error_t *err);
  /* The protocol version became known (HTTP sends it as a header from now
   * on). "2026-07-28" is set before server/discover and means: no session,
   * no standalone GET stream; NULL goes back to the legacy start (no
   * version yet, before a fallback initialize). */
  void (*set_protocol_version)(mcp__ctransport *t, const char *version);
  const char *(*session_id)(mcp__ctransport *t);
  /* Forgets the session (id, protocol version, standalone stream) so the
   * next message starts a new one; NULL when the transport has no sessions.
   * Called with no request of this transport in its send step except the
   * caller's own. */
  void (*reset_session)(mcp__ctransport *t);
  /* Ends the connection and frees the transport. */
  void (*close)(mcp__ctransport *t);
} mcp__ctransport_ops;

struct mcp__ctransport {
  const mcp__ctransport_ops *ops;
  mcp_client_t *client;
};

struct mcp_client_options {
  char **argv; /* NULL-terminated, or NULL */
  char *url;
  char **headers; /* "Name: value", NULL-terminated */
  size_t nheaders;
  char *bearer;
  char *cacert; /* CA bundle for https, NULL: the system store */
  mcp_client_token_fn token_fn; /* OAuth and other token providers */
  void *token_ud;
  /* DPoP (RFC 9449), set by mcp_client_options_use_oauth: the proof for a
   * request (htm, htu) carrying token, malloc'd, or NULL to send the token
   * as Bearer; and every DPoP-Nonce a response carries (token_ud). */
  char *(*dpop_proof_fn)(void *ud, const char *htm, const char *htu,
                         const char *token);
  void (*dpop_nonce_fn)(void *ud, const char *nonce);
  char *name, *version, *protocol_version;
  int timeout_ms;
  mcp_client_notification_fn on_notification;
  void *notification_ud;
  mcp_client_request_fn sampling, elicitation, roots;
  void *sampling_ud, *elicitation_ud, *roots_ud;
  json_t *sampling_caps, *elicitation_caps, *roots_caps;
  mcp_client_observer_fn observer;
  void *observer_ud;
  char *otlp_traces_url, *otlp_headers; /* CLIENT spans (telemetry.c) */
  char *otlp_metrics_url, *otlp_metrics_headers; /* and histograms */
  mcp_client_http_fn http_observer;
  void *http_observer_ud;
  mcp_client_cache_t *shared_cache; /* borrowed */
  /* why setters refused their arguments, one per line (NULL: none);
   * mcp_client_connect refuses such options with them in err (not copied) */
  char *refusals;
};

/* One request waiting for its answer. Lives on the waiting thread's stack. */
typedef struct mcp__pending {
  struct mcp__pending *next;
  int64_t id;
  int64_t progress_token; /* 0: none */
  bool listen;            /* a subscriptions/listen (ends by stop) */
  mcp_client_progress_fn progress;
  void *progress_ud;
  bool done;
  json_t *response; /* the whole response message once done */
} mcp__pending;

struct mcp_client {
  mcp_client_options_t opts; /* deep copy */
  struct mcp__otlp *otlp;    /* CLIENT spans' exporter, or NULL */
  struct mcp__metrics *metrics; /* the client's histograms, or NULL */
  /* server.address and server.port of CLIENT spans (HTTP; "" for stdio),
   * and when the connection began (mcp.client.session.duration; 0: not
   * connected or metrics off) */
  char otel_server_address[256];
  unsigned otel_server_port;
  int64_t session_started_ns;
  mcp__ctransport *transport;
  pthread_mutex_t lock;
  pthread_cond_t cond; /* signalled when a pending request completes */
  mcp__pending *pending;
  int64_t next_id;
  bool closed; /* the transport reported the end of the connection */
  json_t *init_result;
  char *protocol_version;
  /* Session restarts (HTTP 404): restart_lock lets one thread re-initialize
   * while the others wait; session_gen counts restarts (under lock), so a
   * request that failed in an old session does not restart a new one.
   * Results of earlier initializes stay in retired until close, since
   * callers may still hold them (they are documented as borrowed for the
   * client's lifetime). */
  pthread_mutex_t restart_lock;
  uint64_t session_gen;
  json_t *retired;
  /* 2026-07-28 (modern.c, cache.c) */
  mcp__era era;             /* LEGACY or MODERN once connected */
  mcp__era wanted;          /* what the options asked for */
  json_t *modern_caps;      /* clientCapabilities sent on every request */
  json_t *tool_headers;     /* tool name -> {"Header": ["arg", ...path]} */
  bool tools_listed;        /* tool_headers came from a tools/list */
  json_t *cache;            /* key -> {"r": result, "t": expiry ms} */
  char *cache_server;       /* the server's identity in the shared cache */
  char *log_level;          /* per-request logLevel (modern), or NULL */
  pthread_cond_t task_cond; /* a task status notification arrived */
  json_t *task_seen;        /* task id -> last DetailedTask seen */
  uint64_t listen_gen;      /* bumped by mcp_client_listen_stop */
};

/* Called by transports for each incoming message: len bytes of JSON, parsed
 * once and routed by its members (method, id, params) even when it breaks
 * the JSON-RPC envelope rules (the client is a tolerant reader); text that
 * does not parse reaches the observer as a JSON string, so a tester can
 * report it, and makes the answer false. */
bool mcp__client_receive_text(mcp_client_t *c, const char *text, size_t len);
/* The same for a message the transport parsed itself (msg taken over; a
 * value that is not an object is dropped). */
void mcp__client_receive_json(mcp_client_t *c, json_t *msg);
/* Called by transports when the connection ended (reader EOF). */
void mcp__client_closed(mcp_client_t *c);
/* True while the request with this id still waits for its answer. */
bool mcp__client_is_pending(mcp_client_t *c, const json_t *id);
/* Sends one message encoded with src/jsonrpc (msg borrowed) through the
 * transport; the observer sees it parsed. */
mcp_status mcp__client_send(mcp_client_t *c, const mcp__buf *msg,
                            const mcp__csend *info, mcp_error_t *err);

/* One request, no multi-round handling (client.c). timeout_ms as in
 * mcp__csend; listen_gen marks a subscriptions/listen, started when the
 * client's listen_gen was *listen_gen: when mcp_client_listen_stop bumped
 * it since, nothing is sent and MCP_OK returned. */
mcp_status mcp__client_request_once(mcp_client_t *c, const char *method,
                                    json_t *params,
                                    mcp_client_progress_fn progress, void *ud,
                                    int timeout_ms, const uint64_t *listen_gen,
                                    json_t **result, mcp_error_t *err);

/* ---- 2026-07-28 (modern.c) ---- */
/* Adds the per-request _meta keys to params (modern era). */
mcp_status mcp__modern_meta(mcp_client_t *c, json_t *params);
/* The routing headers of a request (NULL-terminated, malloc'd lines; free
 * with mcp__headers_free), or NULL when there are none. */
char **mcp__modern_headers(mcp_client_t *c, const char *method,
                           const json_t *params);
void mcp__headers_free(char **h);
/* Post-processes a modern result: drops tools with invalid x-mcp-header
 * annotations from tools/list and remembers the header maps. */
void mcp__modern_after(mcp_client_t *c, const char *method, json_t *result);
/* server/discover; MCP_ERR_UNSUPPORTED when the server does not speak
 * 2026-07-28 (the caller may fall back to initialize). */
mcp_status mcp__modern_discover(mcp_client_t *c, mcp_error_t *err);
/* A request in the modern era: multi-round input_required answered
 * through the handlers, task results of tools/call awaited when wait_task. */
mcp_status mcp__modern_request(mcp_client_t *c, const char *method,
                               json_t *params, mcp_client_progress_fn progress,
                               void *ud, bool wait_task, json_t **result,
                               mcp_error_t *err);
/* Answers one server-to-client request (method, params) with the
 * application's handler: *result returns new. */
mcp_status mcp__client_handle(mcp_client_t *c, const char *method,
                              json_t *params, json_t **result,
                              mcp_error_t *err);
/* A task status notification (either era) arrived: remember, wake waiters. */
void mcp__client_task_status(mcp_client_t *c, json_t *task);

/* ---- the result cache (cache.c) ---- */
/* A cached, still fresh result for method + params, or NULL (new ref). */
json_t *mcp__cache_get(mcp_client_t *c, const char *method,
                       const json_t *params);
/* A fresh public result of the shared cache (new ref), or NULL. */
json_t *mcp__cache_shared_get(mcp_client_t *c, const char *method,
                              const json_t *params);
/* Stores result when it carries ttlMs > 0 (and no multi-round input); in
 * the shared cache too when its cacheScope is "public". */
void mcp__cache_put(mcp_client_t *c, const char *method, const json_t *params,
                    const json_t *result);
/* The client's identity of its server in the shared cache (malloc'd):
 * "http URL" or "stdio ARGV-as-JSON". */
char *mcp__cache_server_identity(const mcp_client_options_t *o);
/* Drops entries that a notification makes stale (own and shared). */
void mcp__cache_notify(mcp_client_t *c, const char *method,
                       const json_t *params);

/* Sleeps ms milliseconds, resuming after signal handlers. */
static inline void mcp__client_sleep_ms(int64_t ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

/* Transport constructors (client.c picks one). */
mcp_status mcp__ctransport_stdio_new(mcp_client_t *c, char *const *argv,
                                     mcp__ctransport **out, mcp_error_t *err);
mcp_status mcp__ctransport_http_new(mcp_client_t *c, mcp__ctransport **out,
                                    mcp_error_t *err);

/* Options deep copy / release (options.c). */
mcp_status mcp__client_options_copy(mcp_client_options_t *dst,
                                    const mcp_client_options_t *src);
void mcp__client_options_clear(mcp_client_options_t *o);

#endif
