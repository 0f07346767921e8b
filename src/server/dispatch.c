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
#include "server/era_modern.h"
#include "server/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef mcp_status (*method_fn)(mcp_call_t *call, json_t **result);

static mcp_status handle_ping(mcp_call_t *call, json_t **result) {
  (void)call;
  *result = json_object();
  return *result ? MCP_OK : MCP_ERR_NOMEM;
}

/* Which era a method exists in. */
#define ERA_LEGACY 1
#define ERA_MODERN 2

static const struct {
  const char *method;
  method_fn fn;
  int eras;
} methods[] = {
    {"initialize", mcp__handle_initialize, ERA_LEGACY},
    {"ping", handle_ping, ERA_LEGACY},
    {"server/discover", mcp__handle_discover, ERA_MODERN},
    {"tools/list", mcp__handle_tools_list, ERA_LEGACY | ERA_MODERN},
    {"tools/call", mcp__handle_tools_call, ERA_LEGACY | ERA_MODERN},
    {"logging/setLevel", mcp__handle_set_level, ERA_LEGACY},
    {"resources/list", mcp__handle_resources_list, ERA_LEGACY | ERA_MODERN},
    {"resources/templates/list", mcp__handle_templates_list,
     ERA_LEGACY | ERA_MODERN},
    {"resources/read", mcp__handle_resources_read, ERA_LEGACY | ERA_MODERN},
    {"resources/subscribe", mcp__handle_subscribe, ERA_LEGACY},
    {"resources/unsubscribe", mcp__handle_unsubscribe, ERA_LEGACY},
    {"prompts/list", mcp__handle_prompts_list, ERA_LEGACY | ERA_MODERN},
    {"prompts/get", mcp__handle_prompts_get, ERA_LEGACY | ERA_MODERN},
    {"completion/complete", mcp__handle_complete, ERA_LEGACY | ERA_MODERN},
    {"subscriptions/listen", mcp__handle_subscriptions_listen, ERA_MODERN},
    /* Tasks exist only in 2025-11-25 (an extension in 2026-07-28); the
     * handlers answer -32601 unless tasks are enabled. */
    {"tasks/get", mcp__handle_tasks_get, ERA_LEGACY},
    {"tasks/result", mcp__handle_tasks_result, ERA_LEGACY},
    {"tasks/list", mcp__handle_tasks_list, ERA_LEGACY},
    {"tasks/cancel", mcp__handle_tasks_cancel, ERA_LEGACY},
};

static method_fn find_method(const char *name, bool stateless) {
  int era = stateless ? ERA_MODERN : ERA_LEGACY;
  for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
    if (strcmp(methods[i].method, name) == 0 && (methods[i].eras & era))
      return methods[i].fn;
  return NULL;
}

static void send_error(mcp__channel reply, const json_t *id, int code,
                       const char *message, const json_t *data) {
  mcp__buf out;
  mcp__buf_init(&out);
  if (mcp__jsonrpc_encode_error(&out, id, code, message, data))
    reply.send(reply.ctx, out.data, out.len, MCP__SEND_FINAL);
  mcp__buf_free(&out);
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
    pthread_mutex_lock(&se->lock);
    if (se->state == MCP__SESSION_INITIALIZED)
      se->state = MCP__SESSION_READY;
    pthread_mutex_unlock(&se->lock);
  } else if (strcmp(msg->method, "notifications/cancelled") == 0) {
    mcp__session_cancel(se, json_object_get(msg->params, "requestId"));
  } else if (strcmp(msg->method, "notifications/roots/list_changed") == 0) {
    mcp__roots_list_changed(s, se);
  }
  /* Other notifications (roots/list_changed, progress, ...) need no action
   * here; unknown ones are ignored as JSON-RPC requires. */
}

static void call_free(mcp_call_t *call) {
  if (call->session) {
    mcp__session_remove_inflight(call->session, call);
    mcp__session_release(call->session);
  }
  if (call->cancel_scope) {
    mcp__session_remove_inflight(call->cancel_scope, call);
    mcp__session_release(call->cancel_scope);
  }
  if (call->owns_params)
    json_decref(call->params);
  mcp__message_clear(&call->msg);
  free(call->error_message);
  json_decref(call->error_data);
  mcp__buf_free(&call->raw_result);
  json_decref(call->answers);
  json_decref(call->asked);
  json_decref(call->round_state);
  json_decref(call->missing_caps);
  pthread_mutex_destroy(&call->send_lock);
  free(call);
}

void mcp__call_release(mcp_call_t *call) {
  if (call)
    call_free(call);
}

/* Binds a legacy request to its session. false after answering. */
static bool bind_legacy(mcp_call_t *call) {
  mcp_session_t *se = call->session;
  const char *method = call->msg.method;
  if (se == NULL) {
    send_error(call->reply, call->msg.id, MCP_RPC_INVALID_REQUEST,
               "Invalid Request: no session for this request", NULL);
    return false;
  }
  pthread_mutex_lock(&se->lock);
  mcp__session_state state = se->state;
  snprintf(call->protocol_version, sizeof call->protocol_version, "%s",
           se->protocol_version);
  call->client_capabilities = se->client_capabilities;
  call->client_info = se->client_info;
  pthread_mutex_unlock(&se->lock);
  bool always_allowed =
      strcmp(method, "initialize") == 0 || strcmp(method, "ping") == 0;
  if (state == MCP__SESSION_NEW && !always_allowed) {
    send_error(call->reply, call->msg.id, MCP_RPC_INVALID_REQUEST,
               "Invalid Request: server not initialized; send initialize first",
               NULL);
    return false;
  }
  if (state == MCP__SESSION_CLOSED) {
    send_error(call->reply, call->msg.id, MCP_RPC_INVALID_REQUEST,
               "Invalid Request: session closed", NULL);
    return false;
  }
  return true;
}

mcp__accept mcp__server_accept(mcp_server_t *s, mcp_session_t *session,
                               const mcp__peer *peer, const char *bytes,
                               size_t len, mcp__channel reply,
                               mcp_call_t **out) {
  *out = NULL;
  if (len > s->max_message_bytes) {
    char msg[128];
    snprintf(msg, sizeof msg,
             "Invalid Request: message of %zu bytes exceeds the limit of %zu",
             len, s->max_message_bytes);
    mcp__reply_error(reply, MCP_RPC_INVALID_REQUEST, msg);
    return MCP__ACCEPT_REJECTED;
  }
  mcp__message msg;
  mcp__decode_error derr;
  if (mcp__jsonrpc_decode(bytes, len, s->max_json_depth, &msg, &derr) !=
      MCP_OK) {
    if (derr.reply)
      send_error(reply, derr.id, derr.code, derr.message, NULL);
    mcp__decode_error_clear(&derr);
    return MCP__ACCEPT_REJECTED;
  }
  if (msg.kind == MCP__MSG_RESULT || msg.kind == MCP__MSG_ERROR) {
    if (session)
      mcp__session_deliver_response(session, &msg);
    mcp__message_clear(&msg);
    return MCP__ACCEPT_HANDLED;
  }
  if (msg.kind == MCP__MSG_NOTIFICATION) {
    handle_notification(s, session, &msg, reply);
    mcp__message_clear(&msg);
    return MCP__ACCEPT_HANDLED;
  }

  mcp_call_t *call = calloc(1, sizeof *call);
  if (call == NULL) {
    send_error(reply, msg.id, MCP_RPC_INTERNAL_ERROR, "Internal error", NULL);
    mcp__message_clear(&msg);
    return MCP__ACCEPT_REJECTED;
  }
  call->server = s;
  call->msg = msg;
  call->reply = reply;
  if (peer)
    call->peer = *peer;
  pthread_mutex_init(&call->send_lock, NULL);
  atomic_init(&call->cancelled, false);
  call->params = msg.params;
  if (call->params == NULL) {
    call->params = json_object();
    call->owns_params = true;
    if (call->params == NULL) {
      send_error(reply, msg.id, MCP_RPC_INTERNAL_ERROR, "Internal error", NULL);
      call_free(call);
      return MCP__ACCEPT_REJECTED;
    }
  }
  json_t *meta = json_object_get(call->params, "_meta");
  call->progress_token = json_object_get(meta, "progressToken");
  if (call->progress_token && !mcp__jsonrpc_id_is_valid(call->progress_token))
    call->progress_token = NULL;

  bool ok;
  if (mcp__is_modern_request(peer, call->params)) {
    ok = mcp__modern_bind(call);
    const char *why = NULL;
    mcp_status st = ok ? mcp__input_open(call, &why) : MCP_OK;
    if (st != MCP_OK) {
      send_error(reply, msg.id,
                 st == MCP_ERR_NOMEM ? MCP_RPC_INTERNAL_ERROR
                                     : MCP_RPC_INVALID_PARAMS,
                 st == MCP_ERR_NOMEM ? "Internal error" : why, NULL);
      ok = false;
    }
  } else {
    if (session) {
      mcp__session_retain(session);
      call->session = session;
    }
    ok = bind_legacy(call);
  }
  if (!ok) {
    call_free(call);
    return MCP__ACCEPT_REJECTED;
  }
  if (call->session) {
    mcp__session_add_inflight(call->session, call);
  } else if (session) { /* stdio in 2026-07-28: cancellable by its client */
    mcp__session_retain(session);
    call->cancel_scope = session;
    mcp__session_add_inflight(session, call);
  }
  *out = call;
  return MCP__ACCEPT_REQUEST;
}

bool mcp__must_accept_at_once(const char *bytes, size_t len) {
  return memmem(bytes, len, "\"method\"", 8) == NULL ||
         memmem(bytes, len, "notifications/", 14) != NULL ||
         memmem(bytes, len, "\"initialize\"", 12) != NULL ||
         memmem(bytes, len, "\"ping\"", 6) != NULL;
}

bool mcp__call_shed_request(mcp_call_t *call) {
  json_t *root = json_object();
  json_t *id = json_deep_copy(call->msg.id);
  json_t *method = json_string(call->msg.method);
  json_t *params = json_object();
  if (root == NULL || id == NULL || method == NULL || params == NULL ||
      json_object_set(root, "id", id) != 0 ||
      json_object_set(root, "method", method) != 0) {
    json_decref(root);
    json_decref(id);
    json_decref(method);
    json_decref(params);
    return false;
  }
  json_decref(id);
  json_decref(method);
  /* A cancellation compares msg.id under the lock of the session that
   * lists the call. */
  mcp_session_t *lister = call->session ? call->session : call->cancel_scope;
  if (lister)
    pthread_mutex_lock(&lister->lock);
  if (call->owns_params)
    json_decref(call->params);
  call->params = params;
  call->owns_params = true;
  /* Everything borrowed from the request goes with it. */
  call->progress_token = NULL;
  call->client_capabilities = NULL;
  call->client_info = NULL;
  json_decref(call->msg.root);
  call->msg.root = root;
  call->msg.id = id;
  call->msg.method = json_string_value(method);
  call->msg.params = NULL;
  if (lister)
    pthread_mutex_unlock(&lister->lock);
  return true;
}

const char *mcp__call_method(const mcp_call_t *call) {
  return call->msg.method;
}

void mcp__call_cancel(mcp_call_t *call) {
  atomic_store(&call->cancelled, true);
}

void mcp__call_allow_suspend(mcp_call_t *call) {
  call->can_suspend = true;
}

static void call_finish(mcp_call_t *call, mcp_status st, json_t *result);

void mcp__call_run(mcp_call_t *call) {
  json_t *result = NULL;
  mcp_status st;
  method_fn fn = find_method(call->msg.method, call->stateless);
  if (fn == NULL) {
    char msg[200];
    snprintf(msg, sizeof msg, "Method not found: %.150s", call->msg.method);
    st = mcp__call_fail(call, MCP_RPC_METHOD_NOT_FOUND, msg);
  } else if (atomic_load(&call->cancelled)) {
    st = MCP_ERR_CANCELLED;
  } else {
    st = fn(call, &result);
  }
  if (st == MCP_OK && call->pending) {
    /* Suspended: the call now belongs to suspend's target, which may
     * complete (and free) it as soon as suspend returns. */
    json_decref(result);
    call->suspend(call, call->suspend_ctx);
    return;
  }
  call_finish(call, st, result);
}

void mcp__call_complete(mcp_call_t *call, mcp_status st, json_t *result) {
  call->pending = false;
  call_finish(call, st, result);
}

static void call_finish(mcp_call_t *call, mcp_status st, json_t *result) {
  /* A call a task took over is no longer a request in flight: from now on
   * only tasks/cancel may stop it, not notifications/cancelled for the
   * original id nor the end of the session (DELETE), and that must hold
   * before the client can see the task id in the response. */
  if (st == MCP_OK && call->handoff != NULL && call->session != NULL)
    mcp__session_remove_inflight(call->session, call);
  if (st == MCP_OK && call->handoff != NULL && call->cancel_scope != NULL)
    mcp__session_remove_inflight(call->cancel_scope, call);
  /* A cancelled request gets no response at all (spec: cancellation). */
  if (!atomic_load(&call->cancelled)) {
    mcp__buf out;
    mcp__buf_init(&out);
    bool encoded = mcp__buf_reserve(&out, 512 + call->raw_result.len);
    if (st == MCP_OK && call->raw_result.len > 0) {
      mcp__buf *raw = &call->raw_result;
      if (call->stateless) { /* raw ends with '}': add resultType inside */
        raw->len--;
        encoded = mcp__buf_append_str(raw, ",\"resultType\":\"complete\"}");
      }
      encoded = encoded &&
                mcp__buf_append_str(&out, "{\"jsonrpc\":\"2.0\",\"id\":") &&
                mcp__buf_append_json(&out, call->msg.id, 0) &&
                mcp__buf_append_str(&out, ",\"result\":") &&
                mcp__buf_append(&out, raw->data, raw->len) &&
                mcp__buf_append_char(&out, '}');
    } else if (st == MCP_ERR_INPUT_REQUIRED && call->asked) {
      encoded = encoded && mcp__input_required_result(call, &out);
    } else if (st == MCP_OK) {
      if (call->stateless && json_object_get(result, "resultType") == NULL)
        json_object_set_new(result, "resultType", json_string("complete"));
      encoded =
          encoded && mcp__jsonrpc_encode_result(&out, call->msg.id, result);
    } else {
      int code;
      const char *message;
      json_t *data;
      mcp__call_error_for_status(call, st, &code, &message, &data);
      encoded =
          mcp__jsonrpc_encode_error(&out, call->msg.id, code, message, data);
    }
    pthread_mutex_lock(&call->send_lock);
    if (encoded)
      call->reply.send(call->reply.ctx, out.data, out.len, MCP__SEND_FINAL);
    else {
      mcp__buf_reset(&out);
      if (mcp__jsonrpc_encode_error(&out, call->msg.id, MCP_RPC_INTERNAL_ERROR,
                                    "Internal error", NULL))
        call->reply.send(call->reply.ctx, out.data, out.len, MCP__SEND_FINAL);
    }
    pthread_mutex_unlock(&call->send_lock);
    mcp__buf_free(&out);
  }
  json_decref(result);
  mcp__channel reply = call->reply;
  void (*handoff)(mcp_call_t *, void *) = st == MCP_OK ? call->handoff : NULL;
  if (handoff) {
    /* A task took the call over: the exchange with the transport ends here
     * (the CreateTaskResult was its response), the call lives on. */
    call->handoff = NULL;
    if (reply.done)
      reply.done(reply.ctx);
    handoff(call, call->handoff_ctx);
    return;
  }
  call_free(call);
  if (reply.done)
    reply.done(reply.ctx);
}
