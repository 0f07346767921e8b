/* SPDX-License-Identifier: MIT */
/* session_store.h - 2025-11-25 HTTP sessions shared by the replicas of a
 * server behind a load balancer, without sticky sessions.
 *
 * With a session store set (mcp_http_options_set_session_store), a session
 * initialized on one replica is saved there, and a replica that receives a
 * request for a session id it does not know loads it from the store and
 * serves it: negotiated version, client capabilities and info, log level,
 * resource subscriptions and the session's tasks (tasks/list) go along.
 * Requests in flight, server-to-client requests waiting for an answer and
 * open streams stay on the replica that has them (with a relay of version
 * 2, mcp/relay.h, a client's answer reaching another replica is routed to
 * the one waiting, and a task's question reaches the client's stream on
 * another replica); with a shared event
 * store as well (mcp_event_store_postgres_new), a client resumes any
 * stream with Last-Event-ID on any replica. DELETE ends the session on
 * every replica that loads it afterwards; a replica that already holds it
 * keeps serving it until it idles out there.
 *
 * The state a store keeps is JSON text it need not understand; with
 * authorization on it includes the subject that opened the session (never
 * the token), so every replica refuses the session to other subjects.
 *
 * A store is a plug-in (a const ops table plus impl), like the event store.
 * libmcp ships one on PostgreSQL.
 */
#ifndef MCP_SESSION_STORE_H
#define MCP_SESSION_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "mcp/event_store.h"
#include "mcp/export.h"
#include "mcp/http.h"
#include "mcp/status.h"
#include "mcp/store.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_session_store_ops {
  int version;      /* 1; members are only appended */
  const char *name; /* "postgres", ... */
  /* Inserts or replaces the state (JSON text, borrowed) of session id. */
  mcp_status (*save)(void *impl, const char *id, const char *state);
  /* *state (malloc'd, NUL-terminated) receives the saved state and
   * *stream_base a number this load alone gets (>= 1): stream ids of the
   * loading replica start there so they never clash with another's.
   * MCP_ERR_NOT_FOUND when unknown, ended or expired. */
  mcp_status (*load)(void *impl, const char *id, char **state,
                     uint32_t *stream_base);
  /* The client ended the session (HTTP DELETE). */
  void (*drop)(void *impl, const char *id);
  /* Frees impl. */
  void (*close)(void *impl);
} mcp_session_store_ops;

typedef struct mcp_session_store {
  const mcp_session_store_ops *ops;
  void *impl;
} mcp_session_store;

/* Shares the sessions of servers started with o through store (borrowed:
 * it must outlive them; the caller closes it). Without one (the default)
 * sessions live in their process. Ignored in stateless mode. */
MCP_API mcp_status mcp_http_options_set_session_store(mcp_http_options_t *o,
                                                      mcp_session_store store);

/* Sessions kept in the PostgreSQL database of store (a store from
 * mcp_store_postgres_open, which must outlive this one) in table
 * mcp_sessions; a session not saved or loaded for idle_ms (0: one day) is
 * gone. Release with out->ops->close(out->impl) after the HTTP server
 * stopped. */
MCP_API mcp_status mcp_session_store_postgres_new(mcp_store_t *store,
                                                  int64_t idle_ms,
                                                  mcp_session_store *out,
                                                  mcp_error_t *err);

/* SSE events kept in the PostgreSQL database of store (table mcp_events),
 * so that Last-Event-ID resumes on any replica. Event ids are
 * "<stream>-<n>", n from one database sequence. Events older than
 * max_age_ms (0: 5 minutes) are removed. Release with
 * out->ops->close(out->impl) after the HTTP server stopped. */
MCP_API mcp_status mcp_event_store_postgres_new(mcp_store_t *store,
                                                int64_t max_age_ms,
                                                mcp_event_store *out,
                                                mcp_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
