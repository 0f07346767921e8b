/* SPDX-License-Identifier: MIT */
/* channel.h - the contract between the server and a transport.
 *
 * A transport moves bytes; the server decides everything about MCP. Five
 * steps (tests/unit/socketpair_transport_test.c shows all of them in one
 * small transport):
 *
 *  1. make a session: mcp__session_new with a notify channel (where
 *     session-wide messages go); a stateless transport passes NULL.
 *  2. accept bytes: scan them (jsonrpc/prescan.h), ask mcp__server_triage
 *     where they are to be accepted (this thread, or a worker's), then
 *     mcp__server_accept_scanned (server/dispatch.h) there with a reply
 *     channel. A request comes back as a prepared call.
 *  3. run: mcp__call_schedule(call, runner) on the thread that accepted,
 *     mcp__call_run_queued on the worker a call was queued to. The core
 *     decides the order of lifecycle requests, which calls run on the
 *     receiving thread, the hand-off to a worker, and times the runs.
 *  4. send/done: the server writes each message through the channel's
 *     send (the flags below say what it is), and calls done once when the
 *     exchange of a call is over.
 *  5. close: mcp__session_input_closed when input ends,
 *     mcp__server_channel_gone when a client leaves, mcp__session_close
 *     and mcp__session_release at the end.
 *
 * A transport names no MCP method (CTest: layers_method_names).
 * server/dispatch.h includes this header; transports include that one.
 */
#ifndef MCP_CORE_CHANNEL_H
#define MCP_CORE_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

#include "jsonrpc/prescan.h"
#include "mcp/call.h"
#include "mcp/server.h"

/* ---- send/done (step 4) ------------------------------------------------- */
/* Flags for mcp__channel.send */
#define MCP__SEND_FINAL        1u /* the response that ends the exchange */
#define MCP__SEND_NOTIFICATION 2u /* a notification */
#define MCP__SEND_REQUEST      4u /* a server-to-client request */
/* Deliver only to a stream with a connected client; otherwise fail with
 * MCP_ERR_CLOSED and keep nothing (the sender queues the message itself).
 * Channels that are always connected (stdio) may ignore it. */
#define MCP__SEND_LIVE 8u
/* Send it now, never held behind later messages: a response after which
 * other threads speak for the same exchange at once (a task's
 * CreateTaskResult, then its status notifications). */
#define MCP__SEND_NOW 16u
/* A notification that only says "this changed, ask again" (a list
 * changed): while one waits unsent, a second one of the same key says
 * nothing more, and a transport that holds messages may drop it. The key
 * (MCP__SEND_STATE_KEY, below MCP__SEND_STATE_KEYS) tells which state;
 * only notifications of one key stand for each other. */
#define MCP__SEND_STATE           32u
#define MCP__SEND_STATE_KEYS      4u
#define MCP__SEND_STATE_AS(key)   (MCP__SEND_STATE | ((unsigned)(key) << 8))
#define MCP__SEND_STATE_KEY(flags) (((flags) >> 8) & (MCP__SEND_STATE_KEYS - 1))

/* Where messages go. send must accept one whole message (no newline) and may
 * be called from any thread; it must not call back into the server. */
typedef struct mcp__channel {
  mcp_status (*send)(void *ctx, const char *msg, size_t len, unsigned flags);
  /* Optional: called exactly once when a prepared call is finished with the
   * channel (after its final send, or when a cancelled call sends nothing). */
  void (*done)(void *ctx);
  void *ctx;
  /* The transport instance the channel belongs to (stdio transport, HTTP
   * server), so that it can end the streams it holds when it stops; may
   * be NULL. */
  const void *owner;
  /* The transport keeps the session it passed with this channel alive
   * until done has run (stdio: its one session, released only when no
   * request is in flight), so a call bound to it takes no reference of its
   * own (an atomic every core wrote twice per request) until it outlives
   * the exchange (a task takes it over). */
  bool pins_session;
} mcp__channel;

/* One HTTP header: for Mcp-Param-* headers name is what follows the
 * prefix, as sent. */
typedef struct mcp__header {
  const char *name, *value;
} mcp__header;

/* Facts the transport knows about the sender. The strings are borrowed for
 * the time of mcp__server_accept and the handler's run (not for a task that
 * takes the call over). */
typedef struct mcp__peer {
  const char *subject; /* authenticated subject or NULL */
  const char *scopes;  /* its granted scopes (space-separated) */
  /* The resource server's scope rules (HTTP with authorization): whether
   * scopes allow reading the resource uri, so that notifications about it
   * reach only streams whose caller may read it. NULL: no rules. policy
   * must outlive the server's streams (the transport's auth object). */
  bool (*may_read)(const void *policy, const char *scopes, const char *uri);
  const void *policy;
  const char *protocol_header; /* MCP-Protocol-Version header or NULL */
  /* HTTP (2026-07-28 header checks, SEP-2243); all unset on stdio. */
  bool http;
  bool repeated_header; /* an Mcp-* header came more than once */
  const char *method_header, *name_header; /* Mcp-Method, Mcp-Name or NULL */
  const mcp__header *param_headers;        /* Mcp-Param-* */
  size_t param_header_count;
  /* For OpenTelemetry spans (core/request_span.c), HTTP only: the client's
   * socket address (NULL: unknown), the Host and traceparent headers (NULL:
   * absent), the port the server listens on, the HTTP minor version. */
  const struct sockaddr *client_addr;
  const char *host_header, *traceparent_header;
  unsigned local_port;
  int http_minor;
} mcp__peer;

/* ---- make a session (step 1) and close it (step 5) ---------------------- */
/* Creates a session (returns a counted reference, release with
 * mcp__session_release) registered with the server. notify may have a NULL
 * send. */
mcp_status mcp__session_new(mcp_server_t *s, mcp__channel notify,
                            mcp_session_t **out);
/* A session for one self-contained legacy request (stateless HTTP): already
 * initialized with protocol version `version` (NULL: "2025-03-26"), empty
 * client capabilities, and input closed (no client can answer a
 * server-to-client request). Returns a counted reference. */
mcp_status mcp__session_new_stateless(mcp_server_t *s, const char *version,
                                      mcp_session_t **out);
void mcp__session_set_notify(mcp_session_t *s, mcp__channel notify);
/* Server-to-client requests of s are numbered from first on (when higher
 * than the next number): a session shared by several replicas gives each
 * its own range, so that an answer names the replica that asked. */
void mcp__session_set_outbound_base(mcp_session_t *s, int64_t first);
/* Marks the session closed: pending outbound requests fail, in-flight calls
 * see cancellation. */
void mcp__session_close(mcp_session_t *s);
void mcp__session_release(mcp_session_t *s);
/* The client can no longer answer (its input ended): server-to-client
 * requests fail at once with MCP_ERR_CLOSED, running calls go on. */
void mcp__session_input_closed(mcp_session_t *s);

/* ---- sessions a transport keeps streams for (HTTP) ---------------------- */
/* The caller behind the session's notification stream becomes peer's
 * (core/viewer.h): a GET stream opened on a session, maybe adopted from
 * another replica, carries only what that caller may see. */
mcp_status mcp__session_set_viewer_peer(mcp_session_t *s,
                                        const mcp__peer *peer);

/* The session's standalone stream is open again (HTTP GET): messages of
 * tasks queued while no stream could carry them are delivered now. */
void mcp__session_stream_opened(mcp_session_t *s);
/* Cancels a prepared call's flag (transport shutdown). */
void mcp__call_cancel(mcp_call_t *call);

/* ---- a client leaves, a transport stops (step 5) ------------------------ */
/* The client of the reply channel whose context is ctx is gone (HTTP: the
 * connection of a streamed answer closed; stdio: input ended): its
 * subscriptions/listen streams end without a response. Cheap when it has
 * none. */
void mcp__server_channel_gone(mcp_server_t *s, const void *ctx);
/* The transport `owner` stops: the subscriptions/listen streams on its
 * channels end with their final result (server-initiated end). */
void mcp__server_end_streams(mcp_server_t *s, const void *owner);

/* ---- where a message is accepted and where its call runs (step 2, 3) ---- */
/* What the core makes of a scanned message before it is parsed. */
typedef struct mcp__triage {
  /* Accept it on the receiving thread now: a response or a notification
   * (a cancellation must never wait behind busy workers), an unreadable
   * message (the parser answers it), or a request that must run in input
   * order and at once (lifecycle: initialize, ping). */
  bool at_once;
  /* A call of a tool that has proven cheap: the receiving thread may
   * accept it and mcp__call_schedule run it there (a transport spreading a
   * burst over its threads may hand it to a worker instead). */
  bool cheap;
  /* Its answer may open a session (initialize): a transport with sessions
   * makes one for it. */
  bool opens_session;
  /* Its answer is a stream of notifications that lives until the client
   * leaves or cancels (subscriptions/listen): admitted as a stream. */
  bool long_lived;
} mcp__triage;
/* Neither at_once nor cheap: the transport hands the bytes to a worker,
 * which accepts them there and runs the call with mcp__call_run_queued
 * (memory a message allocates is then allocated and freed on one thread). */
mcp__triage mcp__server_triage(mcp_server_t *s, const mcp__prescan *scan);

/* How a transport runs calls: what it offers the core. */
typedef struct mcp__runner {
  /* Hands call to one of the transport's workers, which runs it with
   * mcp__call_run_queued. false when it cannot (out of memory): the core
   * then runs it on this thread. NULL on a worker. */
  bool (*queue)(void *ctx, mcp_call_t *call);
  /* Optional: a call is about to run on this thread; cheap: it is a call
   * of a tool that has proven cheap (it will not block). What the
   * transport holds back and must not wait behind the call goes first:
   * requests not yet handed to its workers (they came earlier), answers
   * held to be written together (unless cheap). */
  void (*before_run)(void *ctx, bool cheap);
  void *ctx;
  /* What a call sends before its response waits until the run ends (HTTP:
   * the answer becomes an SSE stream only then), so a call that sends
   * anything early does not belong on a receiving thread. */
  bool holds_events;
  /* The reply channel's send and done work from any thread at any time:
   * a call a worker runs may suspend (a blocked tasks/result frees its
   * worker and is answered when the task ends). */
  bool any_thread;
} mcp__runner;

/* Runs call (from mcp__server_accept_scanned on this thread) here or
 * queues it: lifecycle requests at once, in input order (before_run
 * first); a tools/call of a tool proven cheap here, when nothing can need
 * this thread while it runs (no progress token, a client that cannot be
 * asked anything); anything else through runner->queue. Returns true when
 * it ran here (its answer is sent, or the call suspended), false when
 * queued. Runs of tools are timed: the core learns from them which tools
 * are cheap (core/inline_runs.c). */
bool mcp__call_schedule(mcp_call_t *call, const mcp__runner *runner);
/* Runs a call on a worker of the transport (queued by mcp__call_schedule,
 * or accepted there from bytes the triage sent to a worker). */
void mcp__call_run_queued(mcp_call_t *call, const mcp__runner *runner);
/* Runs the call's handler on the calling thread, untimed, and sends the
 * response (unless the call was cancelled) and frees the call, or leaves
 * it to whoever the handler suspended it for (call_finish.c). For tests
 * and in-process clients; transports use mcp__call_schedule. */
void mcp__call_run(mcp_call_t *call);
/* Lets the call's handler answer later, from another thread (what
 * runner->any_thread does for mcp__call_run_queued). Call before
 * mcp__call_run. */
void mcp__call_allow_suspend(mcp_call_t *call);

/* ---- for transports: the server's and sessions' facts they need -------- */
void mcp__log(mcp_server_t *s, mcp_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A server setter refusing its argument: logs why at MCP_LOG_ERROR (the
 * default handler prints it on stderr) and returns MCP_ERR_INVALID_ARG, so
 * `return mcp__refuse(s, "mcp_server_set_x: ...", ...)`. */
mcp_status mcp__refuse(mcp_server_t *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* mcp_server_set_max_message_bytes, mcp_server_set_worker_threads. */
size_t mcp__server_max_message_bytes(const mcp_server_t *s);
unsigned mcp__server_worker_threads(const mcp_server_t *s);
/* mcp_server_set_stdout_guard: whether mcp_server_serve_stdio moves the
 * protocol off fd 1 (the default). */
bool mcp__server_guards_stdout(const mcp_server_t *s);
/* The shareable state of an initialized session as JSON text (malloc'd;
 * NULL before initialize or out of memory): version, client capabilities
 * and info, log level, subscriptions, tasks key (core/session_share.c). For
 * a session store shared by replicas (mcp/session_store.h). */
char *mcp__session_export(mcp_session_t *s);
/* Gives s the state of text (from mcp__session_export, maybe of another
 * process) and makes it ready; MCP_ERR_PARSE, and nothing changes, for
 * foreign text. */
mcp_status mcp__session_import(mcp_session_t *s, const char *text);
/* initialize was answered (and maybe notifications/initialized seen). */
bool mcp__session_is_initialized(mcp_session_t *s);
/* The transport's own record of a session and its id (HTTP): set after
 * mcp__session_new, cleared (data NULL) when the transport ends it; read
 * with a counted reference taken by the transport (retain, under the
 * session's lock so it cannot be cleared meanwhile). */
mcp_status mcp__session_set_transport(mcp_session_t *s, const char *id,
                                      void *data);
void mcp__session_clear_transport(mcp_session_t *s);
/* Calls retain(data) under the session lock and returns data, or NULL when
 * cleared. */
void *mcp__session_transport_data(mcp_session_t *s, void (*retain)(void *));

/* Whether s records spans (OpenTelemetry tracing on): a transport keeps
 * the facts of mcp__peer's span fields only then. Set before serving. */
bool mcp__server_traces(const mcp_server_t *s);

/* ---- for the HTTP transport's Prometheus endpoint ---------------------- */
struct mcp__buf;
/* The Prometheus endpoint of the HTTP transport (core/prometheus.c):
 * turns metric collection on (no export) unless OTLP metrics are on;
 * MCP_ERR_STATE with err when s serves already without it (the metrics
 * pointer is read unlocked by every request). Then appends the metrics as
 * Prometheus text 0.0.4 to out; false when out of memory or not
 * collecting. */
mcp_status mcp__server_collect_metrics(mcp_server_t *s, mcp_error_t *err);
bool mcp__server_metrics_text(mcp_server_t *s, struct mcp__buf *out);

#endif
