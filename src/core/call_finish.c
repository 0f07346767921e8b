/* SPDX-License-Identifier: MIT */
/* call_finish.c - running a call's method row and the end of a call: its
 * response (or input_required, or nothing when cancelled), the hand-over
 * to a task, and freeing it. */
#include <stdlib.h>
#include <string.h>

#include "core/call_internal.h"
#include "core/request_log.h"
#include "core/request_metrics.h"
#include "core/request_span.h"
#include "core/schedule.h"
#include "core/session_internal.h"
#include <stdio.h>

static void call_free(mcp_call_t *call) {
  if (call->session) {
    mcp__session_remove_inflight(call->session, call);
    if (!call->session_pinned)
      mcp__session_release(call->session);
  }
  if (call->cancel_scope) {
    mcp__session_remove_inflight(call->cancel_scope, call);
    mcp__session_release(call->cancel_scope);
  }
  json_decref(atomic_load(&call->params));
  json_decref(atomic_load(&call->meta));
  json_decref(atomic_load(&call->owned_caps));
  json_decref(atomic_load(&call->owned_info));
  mcp__message_clear(&call->msg);
  free(call->error_message);
  json_decref(call->error_data);
  mcp__buf_free(&call->raw_result);
  json_decref(call->answers);
  json_decref(call->asked);
  json_decref(call->round_state);
  json_decref(call->missing_caps);
  free(call->missing_caps_message);
  mcp__span_discard(call);
  pthread_mutex_destroy(&call->send_lock);
  free(call);
}

void mcp__call_release(mcp_call_t *call) {
  if (call)
    call_free(call);
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
  json_decref(atomic_exchange(&call->params, params));
  json_decref(atomic_exchange(&call->meta, NULL));
  /* Everything borrowed from the request goes with it. */
  call->progress_token = NULL;
  call->client_capabilities = NULL;
  call->client_info = NULL;
  call->caps_tape = call->info_tape = call->meta_tape = NULL;
  json_decref(atomic_exchange(&call->owned_caps, NULL));
  json_decref(atomic_exchange(&call->owned_info, NULL));
  mcp__message_clear(&call->msg);
  call->msg.kind = MCP__MSG_REQUEST;
  call->msg.root = root;
  call->msg.id = id;
  call->msg.method = json_string_value(method);
  if (lister)
    pthread_mutex_unlock(&lister->lock);
  return true;
}

void mcp__call_cancel(mcp_call_t *call) {
  atomic_store(&call->cancelled, true);
}

void mcp__call_allow_suspend(mcp_call_t *call) {
  call->can_suspend = true;
}

void mcp__call_complete(mcp_call_t *call, mcp_status st, json_t *result) {
  call->pending = false;
  mcp__call_finish(call, st, result);
}

void mcp__call_finish(mcp_call_t *call, mcp_status st, json_t *result) {
  /* A call a task took over is no longer a request in flight: from now on
   * only tasks/cancel may stop it, not notifications/cancelled for the
   * original id nor the end of the session (DELETE), and that must hold
   * before the client can see the task id in the response. */
  if (st == MCP_OK && call->handoff != NULL && call->session != NULL)
    mcp__session_remove_inflight(call->session, call);
  if (st == MCP_OK && call->handoff != NULL && call->cancel_scope != NULL)
    mcp__session_remove_inflight(call->cancel_scope, call);
  /* whether it sent anything before this response (read again under
   * send_lock when the response goes out) */
  bool emitted = call->emitted;
  int log_code = 0;    /* for the request log: the error code sent, */
  size_t log_sent = 0; /* the response's bytes */
  /* A cancelled request gets no response at all (spec: cancellation). */
  if (!atomic_load(&call->cancelled)) {
    char small[1024]; /* most responses: no allocation */
    mcp__buf out;
    mcp__buf_init_on(&out, small, sizeof small);
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
      log_code = code;
      encoded =
          mcp__jsonrpc_encode_error(&out, call->msg.id, code, message, data);
    }
    /* A task takes over: its notifications follow from other threads at
     * once, so this answer must not wait behind them. */
    unsigned flags = MCP__SEND_FINAL | (call->handoff ? MCP__SEND_NOW : 0);
    pthread_mutex_lock(&call->send_lock);
    emitted = call->emitted;
    if (encoded) {
      call->reply.send(call->reply.ctx, out.data, out.len, flags);
      log_sent = out.len;
    } else {
      mcp__buf_reset(&out);
      log_code = MCP_RPC_INTERNAL_ERROR;
      if (mcp__jsonrpc_encode_error(&out, call->msg.id, MCP_RPC_INTERNAL_ERROR,
                                    "Internal error", NULL)) {
        call->reply.send(call->reply.ctx, out.data, out.len, flags);
        log_sent = out.len;
      }
    }
    pthread_mutex_unlock(&call->send_lock);
    mcp__buf_free(&out);
  }
  if (call->timed) /* what the scheduler learns from the run */
    mcp__sched_finished(call, emitted);
  /* Every request that became a call ends here (those refused while being
   * bound end in mcp__call_reply_error): its line of the request log. */
  if (call->log_started_ns != 0) {
    mcp__request_log_call(call, st, result, log_code, log_sent);
    call->log_started_ns = 0; /* a task's later end is not a request's */
  }
  if (call->span != NULL)
    mcp__span_end(call, st, result, log_code);
  if (call->metrics_started_ns != 0)
    mcp__metrics_end(call, result, log_code);
  json_decref(result);
  mcp__channel reply = call->reply;
  void (*handoff)(mcp_call_t *, void *) = st == MCP_OK ? call->handoff : NULL;
  if (handoff) {
    /* A task took the call over: the exchange with the transport ends here
     * (the CreateTaskResult was its response), the call lives on. */
    call->handoff = NULL;
    mcp__call_unpin_session(call); /* it outlives the exchange */
    if (reply.done)
      reply.done(reply.ctx);
    handoff(call, call->handoff_ctx);
    return;
  }
  call_free(call);
  if (reply.done)
    reply.done(reply.ctx);
}

void mcp__call_run(mcp_call_t *call) {
  json_t *result = NULL;
  mcp_status st;
  mcp__method_fn fn =
      mcp__server_find_method(call->server, call->msg.method, call->stateless);
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
    /* it ends on another thread: no thread's CPU time says what it cost */
    call->timer.probed = false;
    call->suspend(call, call->suspend_ctx);
    return;
  }
  mcp__call_finish(call, st, result);
}
