/* SPDX-License-Identifier: MIT */
/* dispatch.c - from bytes to a running handler and back.
 *
 * mcp__server_accept classifies each message once: client responses and
 * notifications are handled on the spot (they only flip flags or wake
 * waiters, so a transport can call this from its reader thread and never
 * stall behind busy workers); requests become prepared calls. Era selection
 * (2025-11-25 session vs 2026-07-28 stateless) happens here too, so handlers
 * see one uniform mcp_call_t either way.
 */
#include "outbound/outbound.h"
#include "core/request_log.h"
#include "server/era_modern.h"
#include "server/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Returns the bytes sent (0: none). */
static size_t send_error(mcp__channel reply, const json_t *id, int code,
                         const char *message, const json_t *data) {
  mcp__buf out;
  mcp__buf_init(&out);
  size_t sent = 0;
  if (mcp__jsonrpc_encode_error(&out, id, code, message, data)) {
    reply.send(reply.ctx, out.data, out.len, MCP__SEND_FINAL);
    sent = out.len;
  }
  mcp__buf_free(&out);
  return sent;
}

void mcp__reply_error(mcp__channel reply, int code, const char *message) {
  send_error(reply, NULL, code, message, NULL);
}

static void handle_notification(mcp_server_t *s, mcp_session_t *se,
                                mcp__message *msg, mcp__channel reply) {
  if (strcmp(msg->method, "notifications/cancelled") == 0)
    /* A 2026-07-28 stdio client ends a listen stream this way. */
    mcp__listen_cancel(s, reply.ctx, json_object_get(msg->params, "requestId"));
  if (se == NULL)
    return;
  if (strcmp(msg->method, "notifications/initialized") == 0) {
    mcp__session_mark_ready(se);
  } else if (strcmp(msg->method, "notifications/cancelled") == 0) {
    mcp__session_cancel(se, json_object_get(msg->params, "requestId"));
  } else if (strcmp(msg->method, "notifications/roots/list_changed") == 0) {
    mcp__roots_list_changed(s, se);
  }
  /* Other notifications (roots/list_changed, progress, ...) need no action
   * here; unknown ones are ignored as JSON-RPC requires. */
}

/* Binds a legacy request to its session. false after answering. */
static bool bind_legacy(mcp_call_t *call, mcp_session_t *se) {
  const char *method = mcp_call_method(call);
  if (se == NULL) {
    mcp__call_reply_error(call, MCP_RPC_INVALID_REQUEST,
                          "Invalid Request: no session for this request", NULL);
    return false;
  }
  mcp__session_state state = mcp__call_bind_session(call, se);
  bool always_allowed =
      strcmp(method, "initialize") == 0 || strcmp(method, "ping") == 0;
  if (state == MCP__SESSION_NEW && !always_allowed) {
    mcp__call_reply_error(
        call, MCP_RPC_INVALID_REQUEST,
        "Invalid Request: server not initialized; send initialize first", NULL);
    return false;
  }
  if (state == MCP__SESSION_CLOSED) {
    mcp__call_reply_error(call, MCP_RPC_INVALID_REQUEST,
                          "Invalid Request: session closed", NULL);
    return false;
  }
  return true;
}

mcp__accept mcp__server_accept(mcp_server_t *s, mcp_session_t *session,
                               const mcp__peer *peer, const char *bytes,
                               size_t len, mcp__channel reply,
                               mcp_call_t **out) {
  return mcp__server_accept_scanned(s, session, peer, bytes, len, NULL, reply,
                                    out);
}

mcp__accept mcp__server_accept_scanned(mcp_server_t *s, mcp_session_t *session,
                                       const mcp__peer *peer, const char *bytes,
                                       size_t len, const mcp__prescan *scan,
                                       mcp__channel reply, mcp_call_t **out) {
  *out = NULL;
  if (len > mcp__server_max_message_bytes(s)) {
    char msg[128];
    snprintf(msg, sizeof msg,
             "Invalid Request: message of %zu bytes exceeds the limit of %zu",
             len, mcp__server_max_message_bytes(s));
    size_t sent = send_error(reply, NULL, MCP_RPC_INVALID_REQUEST, msg, NULL);
    mcp__request_log_unread(s, peer, NULL, MCP_RPC_INVALID_REQUEST, len, sent);
    return MCP__ACCEPT_REJECTED;
  }
  mcp__message msg;
  mcp__decode_error derr;
  if (mcp__jsonrpc_decode_server(bytes, len, mcp__server_max_json_depth(s),
                                 scan, mcp__frequent_methods, &msg,
                                 &derr) != MCP_OK) {
    if (derr.reply) {
      size_t sent = send_error(reply, derr.id, derr.code, derr.message, NULL);
      mcp__request_log_unread(s, peer, derr.id, derr.code, len, sent);
    }
    mcp__decode_error_clear(&derr);
    return MCP__ACCEPT_REJECTED;
  }
  if (msg.kind == MCP__MSG_RESULT || msg.kind == MCP__MSG_ERROR) {
    mcp__accept a = MCP__ACCEPT_HANDLED;
    /* not awaited here: maybe by another replica (a shared session) */
    if (session && !mcp__session_deliver_response(session, &msg) &&
        mcp__relay_forward_answer(s, session, &msg) == MCP_ERR_CLOSED) {
      send_error(reply, NULL, MCP_RPC_INVALID_REQUEST,
                 "Invalid Request: the server replica that sent this request "
                 "is gone; the request was abandoned",
                 NULL);
      a = MCP__ACCEPT_REJECTED;
    }
    mcp__message_clear(&msg);
    return a;
  }
  if (msg.kind == MCP__MSG_NOTIFICATION) {
    handle_notification(s, session, &msg, reply);
    mcp__message_clear(&msg);
    return MCP__ACCEPT_HANDLED;
  }

  mcp_call_t *call;
  if (mcp__call_new(s, &msg, reply, peer, &call) != MCP_OK)
    return MCP__ACCEPT_REJECTED;
  mcp__call_set_request_bytes(call, len);

  bool ok; /* a modern header decides without looking into _meta */
  if (mcp__is_modern_request(peer, false) ||
      mcp__call_meta_has(call, MCP__META_VERSION)) {
    ok = mcp__modern_bind(call);
    const char *why = NULL;
    mcp_status st = ok ? mcp__input_open(call, &why) : MCP_OK;
    if (st != MCP_OK) {
      mcp__call_reply_error(call,
                            st == MCP_ERR_NOMEM ? MCP_RPC_INTERNAL_ERROR
                                                : MCP_RPC_INVALID_PARAMS,
                            st == MCP_ERR_NOMEM ? "Internal error" : why, NULL);
      ok = false;
    }
  } else {
    ok = bind_legacy(call, session);
  }
  if (!ok) {
    mcp__call_release(call);
    return MCP__ACCEPT_REJECTED;
  }
  mcp__call_track(call, session);
  *out = call;
  return MCP__ACCEPT_REQUEST;
}
