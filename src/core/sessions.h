/* SPDX-License-Identifier: MIT */
/* sessions.h - a 2025-11-25 session as the dispatcher and feature modules
 * see it (session.c, session_share.c): its state, what initialize
 * negotiated, its in-flight calls, its notification stream, the named sets
 * of strings it keeps for feature modules. What a transport does with a
 * session is in core/channel.h; the layout (core/session_internal.h) is
 * private to core.
 *
 * Locking: the server lock before the session lock; never call a channel's
 * send while holding a session lock.
 */
#ifndef MCP_CORE_SESSIONS_H
#define MCP_CORE_SESSIONS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "core/channel.h"
#include "jsonrpc/jsonrpc.h"
#include "mcp/call.h"
#include "mcp/server.h"

typedef enum mcp__session_state {
  MCP__SESSION_NEW = 0,     /* no initialize yet */
  MCP__SESSION_INITIALIZED, /* initialize answered */
  MCP__SESSION_READY,       /* notifications/initialized received */
  MCP__SESSION_CLOSED
} mcp__session_state;

void mcp__session_retain(mcp_session_t *s);
/* Sends msg to the session's standalone stream (if any). */
void mcp__session_notify(mcp_session_t *s, const char *msg, size_t len);
/* Like mcp__session_notify with MCP__SEND_LIVE added to flags: MCP_OK only
 * when the message reached a connected stream. */
mcp_status mcp__session_notify_live(mcp_session_t *s, const char *msg,
                                    size_t len, unsigned flags);
void mcp__session_add_inflight(mcp_session_t *s, mcp_call_t *call);
void mcp__session_remove_inflight(mcp_session_t *s, mcp_call_t *call);
/* notifications/cancelled: raise the flag of the matching in-flight call. */
void mcp__session_cancel(mcp_session_t *s, const json_t *request_id);
/* A client response: wake the waiting outbound request, which takes
 * msg->root over (msg->root is NULL then). false when no request of this
 * process waits for it. */
bool mcp__session_deliver_response(mcp_session_t *s, mcp__message *msg);
bool mcp__session_is_ready(mcp_session_t *s);
bool mcp__session_is_closed(mcp_session_t *s);
/* The transport's id of a session (HTTP: Mcp-Session-Id): whether it is id;
 * a malloc'd copy (NULL: none); the listed session with that id (retained,
 * or NULL). */
bool mcp__session_id_is(mcp_session_t *s, const char *id);
char *mcp__session_id_copy(mcp_session_t *s);
mcp_session_t *mcp__server_session_by_id(mcp_server_t *srv, const char *id);
/* initialize: records the negotiated version, the client's capabilities
 * (caps is stolen, even on failure) and info (borrowed; may be NULL).
 * false when the session was initialized already. */
bool mcp__session_initialize(mcp_session_t *s, const char *version,
                             json_t *caps, json_t *info);
/* notifications/initialized. */
void mcp__session_mark_ready(mcp_session_t *s);
/* logging/setLevel. */
void mcp__session_set_log_level(mcp_session_t *s, mcp_log_level level);
/* The session's state, version (into version[n]) and client capabilities
 * and info (borrowed: the session keeps them while it lives). A ready
 * session also lists track (may be NULL) in flight, as
 * mcp__session_add_inflight, under the same lock. */
mcp__session_state mcp__session_snapshot(mcp_session_t *s, char *version,
                                         size_t n, json_t **caps, json_t **info,
                                         mcp_call_t *track);
/* Wakes whatever waits on the session (its condition variable): a task's
 * state changed for a waiting tasks/result. */
void mcp__session_wake(mcp_session_t *s);
/* A random key naming this session as the creator of tasks (tasks/list
 * without authentication), made on first use; NULL if the CSPRNG failed. */
const char *mcp__session_owner_key(mcp_session_t *s);
/* True when s is ready and its owner key (never made here) is key: the
 * session, maybe adopted from another replica, that created a task
 * (session_share.c). */
bool mcp__session_has_owner_key(mcp_session_t *s, const char *key);

/* Named sets of strings a session keeps for feature modules. */
typedef enum mcp__session_set {
  MCP__SET_SUBSCRIPTIONS,   /* resources/subscribe URIs (resources) */
  MCP__SET_URL_ELICITATIONS /* elicitation ids sent to the client (outbound) */
} mcp__session_set;
/* Adds (add) or removes key. MCP_ERR_NOMEM when it cannot be added. */
mcp_status mcp__session_set_update(mcp_session_t *s, mcp__session_set set,
                                   const char *key, bool add);
/* True when the session (ready ones only, when ready_only) holds a key for
 * which match(key, ud) is true; with take, that key is removed. */
bool mcp__session_set_match(mcp_session_t *s, mcp__session_set set,
                            bool ready_only,
                            bool (*match)(const char *key, const void *ud),
                            const void *ud, bool take);
/* The first session of s holding key in set, which is removed from it
 * (returns a counted reference, or NULL). */
mcp_session_t *mcp__server_take_session_key(mcp_server_t *s,
                                            mcp__session_set set,
                                            const char *key);

#endif
