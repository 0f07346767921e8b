/* SPDX-License-Identifier: MIT */
/* http_internal.h - the HTTP transport's private structures, shared by
 * http_request.c (the engine's request callback, POST/GET/DELETE), http_daemon.c
 * (start, stop, workers),
 * http_session.c (the session table) and http_stream.c (SSE streams).
 *
 * Lock order: req->lock, then hs_session->lock, then stream->lock, then the
 * event store's own lock. h->sess_lock and h->streams_lock are leaves except
 * that streams_lock is taken before a stream's lock by the housekeeper.
 * mcp__he_resume never calls back into us, so it may be called with
 * any of these held.
 */
#ifndef MCP_TRANSPORT_HTTP_INTERNAL_H
#define MCP_TRANSPORT_HTTP_INTERNAL_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "mcp/http.h"
#include "server/dispatch.h"
#include "transport/http_limits.h"
#include "transport/http_options.h"
#include "transport/http_engine.h"
#include "util/buf.h"
#include "util/pool.h"

#define HS_SESSION_ID_LEN 36 /* a UUIDv4 */
#define HS_STREAM_ID_MAX  16
#define HS_GET_STREAM_ID  "0"

typedef struct hs_session hs_session;
typedef struct hs_stream hs_stream;
typedef struct hs_req hs_req;

/* A logical SSE stream: the events of one POST (or the GET stream) of a
 * session. It outlives its HTTP connection, so a client can reattach with
 * GET + Last-Event-ID. At most one connection is attached at a time; gen
 * counts attachments so that a replaced connection's reader ends. */
struct hs_stream {
  atomic_int refs;
  mcp_http_server_t *h;
  hs_session *session; /* counted; NULL for a stream without resumability */
  pthread_mutex_t lock;
  char id[HS_STREAM_ID_MAX];
  bool resumable; /* events get ids and go to the event store */
  mcp__buf out;   /* bytes not yet handed to the attached connection */
  size_t out_off; /* consumed prefix of out */
  mcp__he_conn *conn; /* attached connection or NULL */
  unsigned gen;                /* attachment generation */
  bool suspended;  /* conn is suspended in the reader, waiting for bytes */
  bool finished;   /* the last event is queued: end after the flush */
  bool poll_close; /* end this connection after the flush; stream lives on */
  bool cut;        /* over its buffer limit: its connection was cut */
  size_t high_water; /* bytes out may hold for the connection */
  size_t charged;    /* of out's bytes, counted in h->stream_bytes */
  /* end in out of a "state changed" notification (MCP__SEND_STATE) not
   * yet handed to the connection, by its key, or 0: not queued twice */
  size_t state_end[MCP__SEND_STATE_KEYS];
  int64_t last_write_ms;
  hs_stream *prev, *next; /* h->streams */
  hs_stream *snext;       /* hs_session->streams (live POST streams) */
};

/* An HTTP-level session: the core session plus its streams. */
struct hs_session {
  atomic_int refs;
  hs_session *next; /* hash chain */
  char id[HS_SESSION_ID_LEN + 1];
  mcp_session_t *se; /* counted */
  mcp_http_server_t *h;
  pthread_mutex_t lock;
  hs_stream *get_stream; /* counted, or NULL */
  hs_stream *streams;    /* live POST streams, counted */
  unsigned next_stream;
  int64_t last_active_ms;
  int active; /* HTTP requests in progress */
  bool ended;
  char *subject; /* the authenticated subject that opened it, or NULL */
  char *shared;  /* state last saved to the session store (http_share.c) */
};

#define HS_MAX_RETIRED 8 /* daemons still serving connections after reloads */

struct mcp_http_server {
  /* mcp_http_server_stop holds one reference; every stream, session and
   * request one (each of them touches h or releases into the mcp_server_t).
   * The last release frees h; stop waits for that (stop_wait), so that once
   * it returns nothing of the transport touches the mcp_server_t. */
  atomic_int refs;
  /* set by stop before it drops its own reference; read by the last */
  _Atomic(struct hs_stop_wait *) stop_wait;
  mcp_server_t *server;
  mcp_http_options_t *o; /* own copy */
  /* this server installed the shared DPoP replay record on o->auth (its
   * tasks store is PostgreSQL); removed when h is freed */
  bool shares_dpop_jti;
  mcp__he_daemon *daemon;
  /* How daemons are started (http_tls.c starts new ones on reload). */
  int listen_fd;
  unsigned io_threads;
  /* TLS reloads: the daemon started with the previous certificate stops
   * accepting and serves its open connections until they end (reaped by
   * the housekeeper). Guarded by tls_lock. */
  pthread_mutex_t tls_lock;
  mcp__he_daemon *retired[HS_MAX_RETIRED];
  size_t nretired;
  uint16_t port;
  mcp_event_store store;
  bool owns_store;
  size_t max_depth;
  atomic_bool stopping;
  atomic_int live_reqs; /* HTTP requests the engine has not completed yet */
  hs_limits *limits;    /* connection and stream admission */

  pthread_mutex_t sess_lock;
  hs_session **buckets;
  size_t nbuckets, nsessions;

  pthread_mutex_t streams_lock;
  hs_stream *streams;
  atomic_size_t stream_bytes; /* buffered in all streams (http_stream.c) */

  pthread_mutex_t q_lock;
  pthread_cond_t q_nonempty, q_idle;
  hs_req *qhead, *qtail;
  unsigned idle_workers, busy, qlen;
  unsigned pollers; /* idle workers in a timed wait (see worker_main) */
  uint64_t q_taken; /* requests taken so far (progress, see worker_main) */
  bool q_stop;
  mcp__pool workers;

  pthread_mutex_t hk_lock;
  pthread_cond_t hk_cond;
  bool hk_stop, hk_started;
  pthread_t hk;
};

enum req_method { M_POST = 1, M_GET, M_DELETE, M_OPTIONS, M_OTHER };
enum req_state {
  R_READING = 0, /* receiving the body */
  R_RUNNING,     /* the call runs; the connection is suspended */
  R_JSON,        /* resp holds the whole answer */
  R_SSE,         /* answered through stream */
  R_QUEUED       /* a response was queued; nothing left to do */
};

/* Mcp-Param-* headers kept per request; more is a 400. */
#define HS_MAX_PARAM_HEADERS 32

/* One HTTP request (the engine's per-request *req). Counted: the engine
 * holds one reference until its completion callback, a running call
 * another until its channel's done. */
struct hs_req {
  atomic_int refs;
  mcp_http_server_t *h;
  mcp__he_conn *conn;
  pthread_mutex_t lock;
  enum req_method method;
  enum req_state state;
  bool suspended;     /* suspended by on_request while the call runs */
  bool hold;          /* the worker is parsing: do not resume yet */
  bool engine_done;      /* the engine completed the request (client may be gone) */
  bool too_large;     /* body over the limit: discard, then 413 */
  bool modern;        /* served per 2026-07-28 */
  bool rejected;      /* dispatch rejected the message: 400 */
  bool stream_only;   /* a GET stream: not session activity (idle timeout) */
  bool listen;        /* a long-lived answer (mcp__triage) */
  bool auth_answered; /* auth_wait's answer came (lock) */
  bool proto_legacy;  /* proto is a version before 2026-07-28 */
  const char *proto;  /* MCP-Protocol-Version (points into proto_buf) or NULL */
  char proto_buf[32]; /* a copy: the call may outlive the connection */
  /* Mcp-Method, Mcp-Name, Mcp-Param-* of a POST (SEP-2243), copied on the
   * network thread for the same reason; see mcp__peer. */
  mcp__peer peer;
  char *subject, *scopes; /* granted by the resource server, or NULL */
  /* the token is being introspected (the connection is parked at its
   * head; the waiter holds a reference of r), or NULL */
  struct mcp__auth_wait *auth_wait;
  /* one block holding the Mcp-Param-* table, then every copied string,
   * or NULL */
  char *hdr_copies;
  char hdr_small[64]; /* where they go when they fit (the common case) */
  /* tracing on: what the call's span records (peer points into it) */
  struct hs_span_facts {
    struct sockaddr_in6 client; /* the client's address */
    char text[];                /* Host, then traceparent, NUL-ended */
  } *span_facts;
  mcp__buf body;
  mcp__prescan scan; /* of body, kind and depth, for a worker that parses */
  mcp__buf resp;     /* JSON answer */
  unsigned status;
  hs_session *hs;      /* counted, or NULL */
  bool new_session;    /* hs was created by this initialize */
  mcp_session_t *temp; /* stateless legacy session (counted) or NULL */
  hs_stream *stream;   /* counted, once upgraded to SSE */
  mcp_session_t *se;   /* the session the body goes to (borrowed) or NULL */
  mcp_call_t *call;    /* queued call, or NULL: the worker parses body */
  hs_req *qnext;
};

/* ---- http_request.c ---------------------------------------------------- */
/* The engine's per-request callbacks (cls: the server). */
extern const mcp__he_handler mcp__hs_handler;
void mcp__hs_on_completed(void *cls, mcp__he_conn *conn,
                          void **con_cls, enum mcp__he_end toe);

/* Worker side of a queued request: parses r->body when r->call is NULL,
 * then runs the call (cancelled first when cancel). */
void mcp__hs_work(hs_req *r, bool cancel);

/* ---- http_daemon.c ----------------------------------------------------- */
/* Hands r (whose call is set) to a worker. */
void mcp__hs_enqueue(mcp_http_server_t *h, hs_req *r);

/* ---- http_tls.c ---------------------------------------------------------- */
/* Starts a daemon on h->listen_fd with h's settings, serving TLS with the
 * certificate and key files of h->o when set. NULL with err set. */
mcp__he_daemon *mcp__hs_daemon_start(mcp_http_server_t *h, mcp_error_t *err);
/* Stops retired daemons whose connections all ended (all: every one). */
void mcp__hs_retired_reap(mcp_http_server_t *h, bool all);

/* ---- http_session.c ------------------------------------------------------ */
mcp_status mcp__hs_sessions_init(mcp_http_server_t *h);
void mcp__hs_sessions_destroy(mcp_http_server_t *h);
/* A new session registered in the table (returns a counted reference; the
 * table holds another). MCP_ERR_LIMIT when max_sessions are live. */
mcp_status mcp__hs_session_create(mcp_http_server_t *h, hs_session **out);
/* Looks id up (returns a counted reference) or NULL. */
/* The session (retained) or NULL; *unreachable (may be NULL) is set when it
 * is not here and the session store could not be asked. */
hs_session *mcp__hs_session_find(mcp_http_server_t *h, const char *id,
                                 bool *unreachable);
/* A session another replica created, with its saved state (copied) and
 * the subject that opened it (copied; NULL: none), into the table; streams
 * numbered from stream_base. Like create, *out is retained for the caller
 * (an already adopted one when two race). */
mcp_status mcp__hs_session_adopt(mcp_http_server_t *h, const char *id,
                                 const char *state, const char *subject,
                                 uint32_t stream_base, hs_session **out);
/* http_share.c: the session store. save stores the session's state when it
 * changed since the last save; load adopts a session of another replica
 * (NULL when the store does not know it); drop ends it in the store. All
 * are no-ops without a session store. */
void mcp__hs_share_save(hs_session *hs);
hs_session *mcp__hs_share_load(mcp_http_server_t *h, const char *id,
                               bool *unreachable);
void mcp__hs_share_drop(hs_session *hs);
void mcp__hs_session_retain(hs_session *hs);
void mcp__hs_session_release(hs_session *hs);
/* Ends a session (DELETE, expiry, stop): later lookups fail, calls are
 * cancelled, streams end, stored events are dropped. Idempotent. */
void mcp__hs_session_end(hs_session *hs);
/* Request accounting for the idle timeout. */
void mcp__hs_session_touch(hs_session *hs, int delta);
/* Ends sessions idle for longer than the idle timeout. */
void mcp__hs_sessions_expire(mcp_http_server_t *h, int64_t now);
/* Ends every session (stop). */
void mcp__hs_sessions_end_all(mcp_http_server_t *h);
/* Finishes the GET stream of every session (stop). */
void mcp__hs_sessions_finish_get_streams(mcp_http_server_t *h);
/* The next stream id of the session, or false once it ended. */
bool mcp__hs_session_next_stream_id(hs_session *hs, char id[HS_STREAM_ID_MAX]);
/* Registers / unregisters a live POST stream for resumption. */
void mcp__hs_session_add_stream(hs_session *hs, hs_stream *st);
void mcp__hs_session_remove_stream(hs_session *hs, hs_stream *st);
/* The live stream with this id (counted) or NULL. */
hs_stream *mcp__hs_session_find_stream(hs_session *hs, const char *id);

/* ---- http_daemon.c ------------------------------------------------------- */
/* References on h (see refs); the last release frees it and wakes a
 * waiting mcp_http_server_stop. */
void mcp__hs_server_retain(mcp_http_server_t *h);
void mcp__hs_server_release(mcp_http_server_t *h);

/* ---- http_stream.c ------------------------------------------------------- */
/* A stream attached to conn (may be NULL). session: retained when given
 * (resumable streams need one). Returns a counted reference or NULL. */
hs_stream *mcp__hs_stream_new(mcp_http_server_t *h, hs_session *session,
                              const char *id, bool resumable,
                              mcp__he_conn *conn);
void mcp__hs_stream_retain(hs_stream *st);
void mcp__hs_stream_release(hs_stream *st);
/* Queues the priming event (id + retry + empty data) of a resumable
 * stream; with poll, the connection then ends (SEP-1699). */
mcp_status mcp__hs_stream_prime(hs_stream *st, bool poll);
/* Queues one message as an event (stored when resumable); flags are the
 * channel's (MCP__SEND_FINAL marks the stream finished; MCP__SEND_STATE
 * drops a notification whose key waits unsent already). MCP_ERR_CLOSED
 * once finished. */
mcp_status mcp__hs_stream_send(hs_stream *st, const char *msg, size_t len,
                               unsigned flags);
/* Whether a client connection is attached and the stream not finished. */
bool mcp__hs_stream_is_live(hs_stream *st);
/* Ends the stream: attached connections end after the flush. */
void mcp__hs_stream_finish(hs_stream *st);
/* Attaches conn (replacing any previous connection) after queuing the
 * stored events that follow last_event_id (none when NULL).
 * MCP_ERR_NOT_FOUND when the store does not know the id. */
mcp_status mcp__hs_stream_attach(hs_stream *st, mcp__he_conn *conn,
                                 const char *last_event_id);
/* A response that drains the stream into its attached connection. */
mcp__he_resp *mcp__hs_stream_response(hs_stream *st);
/* The stream carries notifications only (subscriptions/listen, GET): it
 * may hold the small buffer of mcp_http_options_set_stream_buffer_bytes
 * for a client that does not read, not the 8 MiB of an answer. */
void mcp__hs_stream_notifications_only(hs_stream *st);
/* Heartbeat for every attached idle stream; finishes all when finish_all. */
void mcp__hs_streams_tick(mcp_http_server_t *h, int64_t now, bool finish_all);

#endif
