/* SPDX-License-Identifier: MIT */
/* session_internal.h - the session structure, private to src/core: every
 * other module reaches a session through the functions of core/sessions.h and
 * channel.h (state, client capabilities, streams, key sets, wake-ups). */
#ifndef MCP_CORE_SESSION_INTERNAL_H
#define MCP_CORE_SESSION_INTERNAL_H

#include "core/server_internal.h"
#include "core/viewer.h"

/* A pending server-to-client request, waiting for the client's answer. */
typedef struct mcp__outbound {
  struct mcp__outbound *next;
  int64_t id;
  bool done;
  json_t *response; /* the whole response message (new reference) */
} mcp__outbound;

/* Requests in flight are listed in stripes chosen by the thread that lists
 * them, each with its own lock: every request is listed and unlisted once,
 * and with one lock for all the threads that run a session's requests at
 * once (a stdio reader and its workers, HTTP workers) waited on each other
 * there more than anywhere else. A cancel looks through every stripe. A
 * stripe fills 64 bytes. */
#define MCP__INFLIGHT_STRIPES 8
typedef union mcp__inflight_stripe {
  struct {
    pthread_mutex_t lock;
    mcp_call_t *calls; /* linked via next and prev */
  };
  char line[64];
} mcp__inflight_stripe;

struct mcp_session {
  atomic_int refs;
  mcp_server_t *server;
  mcp_session_t *next, *prev; /* server->sessions */

  pthread_mutex_t lock;
  pthread_cond_t cond; /* outbound answers */
  /* Written under lock; read without it where READY is all that matters:
   * what initialize negotiated (version, capabilities, info) never changes
   * once the session is ready, so a request reads it without the lock. */
  _Atomic mcp__session_state state;
  bool input_closed; /* the client cannot answer requests any more */
  bool listed;       /* in server->sessions (stateless ones are not) */
  char protocol_version[MCP__MAX_VERSION_LEN];
  json_t *client_capabilities; /* never NULL once initialized */
  json_t *client_info;
  int log_level;       /* -1: client never set one */
  mcp__channel notify; /* standalone stream; send may be NULL */
  mcp__inflight_stripe inflight[MCP__INFLIGHT_STRIPES];
  unsigned stripes; /* in use: all, or 1 for a throw-away session */
  /* Ids named by notifications/cancelled before their request was accepted
   * (it may still sit in a transport queue): a small ring under lock,
   * consulted when a request is listed while early_cancels_kept is not 0.
   * A cancel adds to it holding every stripe, and a request is listed
   * holding one, so one of the two always sees the other. Ids
   * are never reused within a session. */
  json_t *early_cancels[16];
  unsigned early_cancel_next;
  atomic_uint early_cancels_kept;
  int64_t next_outbound_id;
  mcp__outbound *outbound;
  char *id;                 /* transport session id (HTTP) or NULL */
  /* OpenTelemetry metrics (request_metrics.h): when initialize was
   * answered (0: not, or metrics off) and over which transport */
  int64_t metrics_started_ns;
  bool metrics_http;
  json_t *subscriptions;    /* uri -> true (resources/subscribe) or NULL */
  json_t *url_elicitations; /* elicitationId -> true, sent to this client */
  void *transport_data;
  /* Random key naming this session as the creator of tasks (tasks/list
   * without authentication); set lazily by src/tasks under lock. */
  char tasks_key[40];
  /* The caller of the latest resources/subscribe: updates of resources it
   * may not read are not sent (core/viewer.c). */
  mcp__viewer viewer;
};

/* mcp__session_notify with the channel flags given (MCP__SEND_STATE_AS
 * for a list change). */
void mcp__session_notify_as(mcp_session_t *se, const char *msg, size_t len,
                            unsigned flags);

#endif
