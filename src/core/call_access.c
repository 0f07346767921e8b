/* SPDX-License-Identifier: MIT */
/* call_access.c - the call seen from outside core: how the dispatcher makes
 * and binds one, and what features read and change on it. The layout stays
 * in call_internal.h, so a field can change without touching a feature. */
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/call_internal.h"
#include "core/request_log.h"
#include "core/request_metrics.h"
#include "core/request_span.h"
#include "util/clock.h"
#include "util/str.h"

#if defined(__GLIBC__) && UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct mcp_call) <= 1032,
               "a call outgrew glibc's per-thread cache (1032 bytes): shrink "
               "raw_small or move a rarely used field out");
#endif

mcp_status mcp__call_new(mcp_server_t *s, mcp__message *msg, mcp__channel reply,
                         const mcp__peer *peer, mcp_call_t **out) {
  *out = NULL;
  /* malloc and zeroing, not calloc: glibc's calloc (2.36) never takes its
   * per-thread cache, which costs about 250 instructions per call made.
   * Zeroed up to raw_small only, the result's buffer (a third of the
   * call), which needs no zeroes (gcc turns malloc + a whole memset back
   * into calloc; this one it leaves alone). */
  mcp_call_t *call = malloc(sizeof *call);
  if (call == NULL) {
    mcp__buf buf;
    mcp__buf_init(&buf);
    if (mcp__jsonrpc_encode_error(&buf, msg->id, MCP_RPC_INTERNAL_ERROR,
                                  "Internal error", NULL))
      reply.send(reply.ctx, buf.data, buf.len, MCP__SEND_FINAL);
    mcp__buf_free(&buf);
    mcp__message_clear(msg);
    return MCP_ERR_NOMEM;
  }
  memset(call, 0, offsetof(mcp_call_t, raw_small));
  call->server = s;
  if (mcp__request_log_on(s))
    call->log_started_ns = mcp__monotonic_ns();
  mcp__buf_init_on(&call->raw_result, call->raw_small, sizeof call->raw_small);
  call->msg = *msg;
  *msg = (mcp__message){0};
  call->reply = reply;
  if (peer)
    call->peer = *peer;
  pthread_mutex_init(&call->send_lock, NULL);
  atomic_init(&call->cancelled, false);
  /* params come built (the general decoder) or as a tape, built when
   * somebody asks (mcp_call_params) */
  atomic_init(&call->params, json_incref(call->msg.params));
  if (call->msg.params_tape != NULL) {
    /* one walk over the params (an object; the last of duplicates) */
    const mcp__tnode *params = call->msg.params_tape->nodes;
    for (const mcp__tnode *k = params + 1, *e = params + params->skip; k != e;
         k += 1 + k[1].skip) {
      if (k->dead)
        continue;
      if (k->n == 5 && memcmp(k->v.s, "_meta", 5) == 0)
        call->meta_tape = k + 1;
      else if (k->n == 4 && memcmp(k->v.s, "name", 4) == 0)
        call->name_tape = k + 1;
    }
  }
  if (mcp__call_meta_has(call, "progressToken"))
    call->progress_token =
        json_object_get(mcp__call_meta_object(call), "progressToken");
  if (call->progress_token && !mcp__jsonrpc_id_is_valid(call->progress_token))
    call->progress_token = NULL;
  if (s->otlp != NULL) /* tracing: off by default, then nothing is done */
    mcp__span_begin(call);
  if (s->metrics != NULL) /* likewise metrics */
    call->metrics_started_ns = mcp__monotonic_ns();
  *out = call;
  return MCP_OK;
}

void mcp__call_reply_error(mcp_call_t *call, int code, const char *message,
                           const json_t *data) {
  mcp__buf out;
  mcp__buf_init(&out);
  size_t sent = 0;
  if (mcp__jsonrpc_encode_error(&out, call->msg.id, code, message, data)) {
    call->reply.send(call->reply.ctx, out.data, out.len, MCP__SEND_FINAL);
    sent = out.len;
  }
  mcp__buf_free(&out);
  mcp__request_log_call(call, MCP_ERR_INVALID_REQUEST, NULL, code, sent);
  mcp__span_end(call, MCP_ERR_INVALID_REQUEST, NULL, code);
  mcp__metrics_end(call, NULL, code);
  call->log_started_ns = 0; /* one line per request */
}

void mcp__call_set_request_bytes(mcp_call_t *call, size_t bytes) {
  call->request_bytes = bytes;
}

void mcp__call_note_tool_error(mcp_call_t *call) {
  call->tool_error = true;
}

void mcp__call_bind_modern(mcp_call_t *call, const char *version, json_t *caps,
                           json_t *info) {
  call->stateless = true;
  mcp__str_copy(call->protocol_version, sizeof call->protocol_version,
                version); /* snprintf's "%s" cost 600 instructions here */
  call->client_capabilities = caps;
  call->client_info = info;
}

void mcp__call_bind_modern_owned(mcp_call_t *call, const char *version,
                                 json_t *caps, json_t *info) {
  json_decref(atomic_exchange(&call->owned_caps, caps));
  json_decref(atomic_exchange(&call->owned_info, info));
  mcp__call_bind_modern(call, version, caps, info);
}

void mcp__call_bind_modern_tape(mcp_call_t *call, const char *version,
                                const mcp__tnode *caps,
                                const mcp__tnode *info) {
  mcp__call_bind_modern(call, version, NULL, NULL);
  call->caps_tape = caps;
  call->info_tape = info;
}

void mcp__call_unpin_session(mcp_call_t *call) {
  if (call->session_pinned) {
    mcp__session_retain(call->session);
    call->session_pinned = false;
  }
}

mcp__session_state mcp__call_bind_session(mcp_call_t *call,
                                          mcp_session_t *session) {
  call->session_pinned = call->reply.pins_session;
  if (!call->session_pinned)
    mcp__session_retain(session);
  call->session = session;
  return mcp__session_snapshot(
      session, call->protocol_version, sizeof call->protocol_version,
      &call->client_capabilities, &call->client_info, call);
}

const char *mcp__call_version_seen(const mcp_call_t *call,
                                   char buf[MCP__MAX_VERSION_LEN]) {
  if (call->protocol_version[0] != '\0' || call->session == NULL)
    return call->protocol_version;
  json_t *caps, *info;
  buf[0] = '\0';
  (void)mcp__session_snapshot(call->session, buf, MCP__MAX_VERSION_LEN, &caps,
                              &info, NULL);
  return buf;
}

void mcp__call_track(mcp_call_t *call, mcp_session_t *connection) {
  if (call->session) {
    if (!call->tracked) /* mcp__call_bind_session listed a ready one */
      mcp__session_add_inflight(call->session, call);
  } else if (connection) {
    mcp__session_retain(connection);
    call->cancel_scope = connection;
    mcp__session_add_inflight(connection, call);
  }
}

mcp_session_t *mcp__call_session(const mcp_call_t *call) {
  return call->session;
}
const mcp__peer *mcp__call_peer(const mcp_call_t *call) {
  return &call->peer;
}
mcp__buf *mcp__call_raw_result(mcp_call_t *call) {
  return &call->raw_result;
}
bool mcp__call_has_error(const mcp_call_t *call) {
  return call->error_message != NULL;
}

void mcp__call_set_task(mcp_call_t *call, const char *task_id,
                        void (*task_input)(mcp_call_t *call, bool waiting),
                        void (*handoff)(mcp_call_t *call, void *ctx),
                        void *ctx) {
  call->task_id = task_id;
  call->task_input = task_input;
  call->handoff = handoff;
  call->handoff_ctx = ctx;
}
const char *mcp_call_task_id(const mcp_call_t *call) {
  return call ? call->task_id : NULL;
}
void mcp__call_set_task_id(mcp_call_t *call, const char *task_id) {
  call->task_id = task_id;
}
bool mcp__call_is_handed_off(const mcp_call_t *call) {
  return call->handoff != NULL;
}
void *mcp__call_handoff_ctx(const mcp_call_t *call) {
  return call->handoff_ctx;
}
mcp_status mcp__call_send_raw(mcp_call_t *call, const char *msg, size_t len,
                              unsigned flags) {
  return call->reply.send(call->reply.ctx, msg, len, flags);
}
void mcp__call_rebind(mcp_call_t *call, mcp__channel reply,
                      const char *subject) {
  if (call->session)
    mcp__session_remove_inflight(call->session, call);
  mcp__call_unpin_session(call); /* the old channel's promise ends */
  pthread_mutex_lock(&call->send_lock);
  call->reply = reply;
  /* The transport's strings were lent for the request only. */
  call->peer = (mcp__peer){0};
  call->peer.subject = subject;
  pthread_mutex_unlock(&call->send_lock);
}

bool mcp__call_can_suspend(const mcp_call_t *call) {
  return call->can_suspend;
}
void mcp__call_suspend(mcp_call_t *call, void (*suspend)(mcp_call_t *, void *),
                       void *ctx) {
  call->pending = true;
  call->suspend = suspend;
  call->suspend_ctx = ctx;
}
void mcp__call_unsuspend(mcp_call_t *call) {
  call->pending = false;
  call->suspend = NULL;
  call->suspend_ctx = NULL;
}

json_t *mcp__call_asked(const mcp_call_t *call) {
  return call->asked;
}
json_t *mcp__call_take_asked(mcp_call_t *call) {
  json_t *asked = call->asked;
  call->asked = NULL;
  return asked;
}
void mcp__call_reset_round(mcp_call_t *call) {
  json_decref(call->asked);
  call->asked = NULL;
  call->questions = 0;
  call->next_key[0] = '\0';
}
mcp_status mcp__call_add_answer(mcp_call_t *call, const char *key,
                                const json_t *value) {
  if (call->answers == NULL && (call->answers = json_object()) == NULL)
    return MCP_ERR_NOMEM;
  return json_object_set_new(call->answers, key, json_deep_copy(value)) == 0
             ? MCP_OK
             : MCP_ERR_NOMEM;
}
