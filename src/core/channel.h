/* SPDX-License-Identifier: MIT */
/* channel.h - where a server's messages go, what a transport knows about a
 * sender, and the session and call operations a transport uses besides the
 * dispatcher (server/dispatch.h includes this header; transports include
 * that one).
 */
#ifndef MCP_CORE_CHANNEL_H
#define MCP_CORE_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

#include "mcp/call.h"
#include "mcp/server.h"

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

/* Runs the call's handler on the calling thread, sends the response
 * (unless the call was cancelled) and frees the call, or leaves it to
 * whoever the handler suspended it for (call_finish.c). */
void mcp__call_run(mcp_call_t *call);

/* The caller behind the session's notification stream becomes peer's
 * (core/viewer.h): a GET stream opened on a session, maybe adopted from
 * another replica, carries only what that caller may see. */
mcp_status mcp__session_set_viewer_peer(mcp_session_t *s,
                                        const mcp__peer *peer);

/* Lets the call's handler answer later, from another thread: a blocked
 * tasks/result then frees its worker and the response (and done) come when
 * the task ends. Only for transports whose channel accepts send and done
 * from any thread at any time. Call before mcp__call_run. */
void mcp__call_allow_suspend(mcp_call_t *call);
/* The session's standalone stream is open again (HTTP GET): messages of
 * tasks queued while no stream could carry them are delivered now. */
void mcp__session_stream_opened(mcp_session_t *s);
/* The method of a prepared call (borrowed). */
const char *mcp__call_method(const mcp_call_t *call);
/* Cancels a prepared call's flag (transport shutdown). */
void mcp__call_cancel(mcp_call_t *call);
/* The client of the reply channel whose context is ctx is gone (HTTP: the
 * connection of a streamed answer closed; stdio: input ended): its
 * subscriptions/listen streams end without a response. Cheap when it has
 * none. */
void mcp__server_channel_gone(mcp_server_t *s, const void *ctx);
/* The transport `owner` stops: the subscriptions/listen streams on its
 * channels end with their final result (server-initiated end). */
void mcp__server_end_streams(mcp_server_t *s, const void *owner);

/* ---- running cheap calls on a network thread (core/inline_runs.c) ------- */
/* The statistics slot of a call that may run on a transport's network
 * thread once its tool has proven fast, or -1 when it never may. */
int mcp__call_inline_slot(const mcp_call_t *call);
/* The slot of the tool named by len bytes at name (the same slot
 * mcp__call_inline_slot gives its calls), for a transport that decides
 * before parsing, from its prescan, where a request is parsed. */
int mcp__inline_slot_of_name(const char *name, size_t len);
/* Whether the tool of slot has proven fast enough to run inline. */
bool mcp__server_inline_ok(mcp_server_t *s, int slot);
/* How a tracked call went: run inline or on a worker, how long it took,
 * whether it emitted anything before its response. */
void mcp__server_inline_record(mcp_server_t *s, int slot, bool ran_inline,
                               int64_t elapsed_ns, bool emitted);
/* Times one run for mcp__server_inline_record; start and read it on the
 * same thread. A probed run also counts the thread's CPU time and whether
 * it blocked: when it did not block, its CPU time is what counts, so a run
 * that was slow only because the thread waited for a core (preempted on a
 * busy machine, e.g. by the client its own write woke) does not make a
 * cheap tool look slow. The probe costs two system calls: transports probe
 * the worker runs of tools still being learnt, not the hot path. */
typedef struct {
  int64_t start_ns;
  int64_t cpu_ns; /* probed: the thread's CPU time at the start */
  long voluntary; /* probed: its voluntary context switches so far */
  bool probed;
} mcp__inline_timer;
void mcp__inline_timer_start(mcp__inline_timer *timer, bool probe);
/* The run's cost in nanoseconds: wall time, or a probed run's CPU time
 * when it never blocked. */
int64_t mcp__inline_timer_cost(const mcp__inline_timer *timer);

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

#endif
