/* SPDX-License-Identifier: MIT */
/* call.c - the per-request context (mcp_call_t) and what a handler can do
 * with it: read who is asking, report progress, log, fail with a chosen
 * JSON-RPC error, and ask the client something (server-to-client requests).
 */
#include "core/call_internal.h"
#include "core/session_internal.h"
#include "util/clock.h"
#include "json/load.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const level_names[] = {"debug",   "info",     "notice",
                                          "warning", "error",    "critical",
                                          "alert",   "emergency"};

const char *mcp_log_level_name(mcp_log_level level) {
  return (unsigned)level <= MCP_LOG_EMERGENCY ? level_names[level] : NULL;
}

mcp_status mcp_log_level_parse(const char *name, mcp_log_level *out) {
  for (int i = 0; name && i <= MCP_LOG_EMERGENCY; i++)
    if (strcmp(name, level_names[i]) == 0) {
      *out = (mcp_log_level)i;
      return MCP_OK;
    }
  return MCP_ERR_INVALID_ARG;
}

mcp_server_t *mcp_call_server(const mcp_call_t *c) {
  return c ? c->server : NULL;
}
mcp_session_t *mcp_call_session(const mcp_call_t *c) {
  return c && !c->stateless ? c->session : NULL;
}
const char *mcp_call_method(const mcp_call_t *c) {
  return c ? c->msg.method : NULL;
}
json_t *mcp_call_request_id(const mcp_call_t *c) {
  return c ? c->msg.id : NULL;
}
/* Installs built (a new reference, or NULL) into slot unless another
 * thread was first; returns what the slot holds. Values built from the
 * request are caches: the request itself never changes. */
static json_t *install_once(_Atomic(json_t *) *slot, json_t *built) {
  json_t *expected = NULL;
  if (built == NULL ||
      atomic_compare_exchange_strong_explicit(
          slot, &expected, built, memory_order_acq_rel, memory_order_acquire))
    return built;
  json_decref(built); /* two threads raced here; the loser drops its copy */
  return expected;
}

json_t *mcp_call_params(const mcp_call_t *c) {
  if (c == NULL)
    return NULL;
  json_t *p = atomic_load_explicit(&c->params, memory_order_acquire);
  if (p != NULL)
    return p;
  return install_once(&((mcp_call_t *)c)->params,
                      c->msg.params_tape
                          ? mcp__json_from_tnode(c->msg.params_tape->nodes)
                          : json_object());
}

json_t *mcp__call_meta_object(const mcp_call_t *c) {
  json_t *m = atomic_load_explicit(&c->meta, memory_order_acquire);
  if (m != NULL)
    return m;
  if (mcp__call_params_built(c) || c->msg.params_tape == NULL)
    return mcp__call_param(c, "_meta");
  if (c->meta_tape == NULL)
    return NULL;
  return install_once(&((mcp_call_t *)c)->meta,
                      mcp__json_from_tnode(c->meta_tape));
}

const mcp__tnode *mcp__call_meta_tape(const mcp_call_t *c) {
  return mcp__call_params_built(c) ? NULL : c->meta_tape;
}

json_t *mcp__call_paramn(const mcp_call_t *c, const char *name,
                         size_t name_len) {
  json_t *p = atomic_load_explicit(&c->params, memory_order_acquire);
  if (p == NULL) {
    if (c->msg.params_tape == NULL ||
        mcp__tnode_member(c->msg.params_tape->nodes, name, name_len) == NULL)
      return NULL; /* absent: nothing to build */
    p = mcp_call_params(c);
  }
  return json_object_getn(p, name, name_len);
}

bool mcp__call_meta_hasn(const mcp_call_t *c, const char *name,
                         size_t name_len) {
  if (atomic_load_explicit(&c->meta, memory_order_acquire) == NULL &&
      !mcp__call_params_built(c) && c->msg.params_tape != NULL)
    return mcp__tnode_member(c->meta_tape, name, name_len) != NULL;
  return json_object_getn(mcp__call_meta_object(c), name, name_len) != NULL;
}

bool mcp__call_params_built(const mcp_call_t *c) {
  return atomic_load_explicit(&c->params, memory_order_acquire) != NULL;
}

const mcp__tnode *mcp__call_params_tape(const mcp_call_t *c) {
  return c->msg.params_tape ? c->msg.params_tape->nodes : NULL;
}

bool mcp__call_param_stringn(const mcp_call_t *c, const char *name,
                             size_t name_len, const char **s, size_t *len) {
  const mcp__tnode *tape = mcp__call_params_tape(c);
  if (tape != NULL) {
    const mcp__tnode *v = name_len == 4 && memcmp(name, "name", 4) == 0
                              ? c->name_tape
                              : mcp__tnode_member(tape, name, name_len);
    /* no NUL to look for: a params tape has no string with one (see
     * mcp__message.params_tape) */
    if (v == NULL || v->type != MCP__J_STRING)
      return false;
    *s = v->n ? v->v.s : "";
    *len = v->n;
    return true;
  }
  json_t *v = mcp__call_paramn(c, name, name_len);
  if (!json_is_string(v) ||
      strlen(json_string_value(v)) != json_string_length(v))
    return false;
  *s = json_string_value(v);
  *len = json_string_length(v);
  return true;
}

json_t *mcp_call_meta(const mcp_call_t *c) {
  json_t *meta = c ? mcp__call_meta_object(c) : NULL;
  return json_is_object(meta) ? meta : NULL;
}
json_t *mcp_call_progress_token(const mcp_call_t *c) {
  return c ? c->progress_token : NULL;
}
const char *mcp_call_protocol_version(const mcp_call_t *c) {
  return c ? c->protocol_version : NULL;
}
bool mcp_call_is_stateless(const mcp_call_t *c) {
  return c ? c->stateless : false;
}
/* A 2026-07-28 request's capabilities or info kept on the tape
 * (caps_tape, info_tape): built into slot when first asked for. */
static json_t *built_from_tape(_Atomic(json_t *) *slot,
                               const mcp__tnode *node) {
  json_t *v = atomic_load_explicit(slot, memory_order_acquire);
  if (v != NULL || node == NULL)
    return v;
  return install_once(slot, mcp__json_from_tnode(node));
}

json_t *mcp_call_client_capabilities(const mcp_call_t *c) {
  if (c == NULL)
    return NULL;
  if (c->client_capabilities != NULL || c->caps_tape == NULL)
    return c->client_capabilities;
  return built_from_tape(&((mcp_call_t *)c)->owned_caps, c->caps_tape);
}
json_t *mcp_call_client_info(const mcp_call_t *c) {
  if (c == NULL)
    return NULL;
  if (c->client_info != NULL || c->info_tape == NULL)
    return c->client_info;
  return built_from_tape(&((mcp_call_t *)c)->owned_info, c->info_tape);
}
bool mcp_call_client_has(const mcp_call_t *c, const char *name) {
  if (c == NULL || name == NULL)
    return false;
  if (c->client_capabilities == NULL && c->caps_tape != NULL)
    return mcp__tnode_member(c->caps_tape, name, strlen(name)) != NULL;
  return json_object_get(c->client_capabilities, name) != NULL;
}
const char *mcp_call_subject(const mcp_call_t *c) {
  return c ? c->peer.subject : NULL;
}

const char *mcp_call_scopes(const mcp_call_t *c) {
  return c && c->peer.subject ? c->peer.scopes : NULL;
}
bool mcp_call_is_cancelled(const mcp_call_t *c) {
  return c ? atomic_load(&c->cancelled) : true;
}

/* Spec (tasks): every notification and request tied to a task carries
 * _meta["io.modelcontextprotocol/related-task"] = {taskId}. */
static void add_related_task(mcp_call_t *call, json_t *params) {
  if (call->task_id == NULL || !json_is_object(params))
    return;
  json_t *meta = json_object_get(params, "_meta");
  if (!json_is_object(meta)) {
    meta = json_object();
    if (meta == NULL || json_object_set_new(params, "_meta", meta) != 0)
      return;
  }
  json_object_set_new(meta, "io.modelcontextprotocol/related-task",
                      json_pack("{s:s}", "taskId", call->task_id));
}

mcp_status mcp__call_send(mcp_call_t *call, const mcp__buf *msg) {
  if (atomic_load(&call->cancelled))
    return MCP_ERR_CANCELLED;
  pthread_mutex_lock(&call->send_lock);
  call->emitted = true; /* before its response (schedule.c) */
  mcp_status st = call->reply.send(call->reply.ctx, msg->data, msg->len,
                                   MCP__SEND_NOTIFICATION);
  pthread_mutex_unlock(&call->send_lock);
  return st;
}

/* Sends a notification tied to this call (with the related-task _meta
 * when the call runs as a task). params: steals; NULL means "allocation
 * failed". */
static mcp_status send_notification(mcp_call_t *call, const char *method,
                                    json_t *params) {
  add_related_task(call, params);
  mcp__buf msg;
  mcp__buf_init(&msg);
  mcp_status st = MCP_ERR_NOMEM;
  if (params && mcp__jsonrpc_encode_notification(&msg, method, params))
    st = mcp__call_send(call, &msg);
  json_decref(params);
  mcp__buf_free(&msg);
  return st;
}

mcp_status mcp_call_progress(mcp_call_t *call, double progress, double total,
                             const char *message) {
  /* JSON has no Infinity or NaN; a negative total means "none" */
  if (call == NULL || !isfinite(progress) || (total >= 0 && !isfinite(total)))
    return MCP_ERR_INVALID_ARG;
  if (call->progress_token == NULL)
    return MCP_OK;
  pthread_mutex_lock(&call->send_lock);
  bool increasing = !call->has_progress || progress > call->last_progress;
  if (increasing) {
    call->has_progress = true;
    call->last_progress = progress;
  }
  pthread_mutex_unlock(&call->send_lock);
  if (!increasing)
    return MCP_ERR_INVALID_ARG;
  json_t *params = json_pack("{s:O,s:f}", "progressToken", call->progress_token,
                             "progress", progress);
  if (params && total >= 0)
    json_object_set_new(params, "total", json_real(total));
  if (params && message)
    json_object_set_new(params, "message", json_string(message));
  return send_notification(call, "notifications/progress", params);
}

/* The level below which messages are dropped for this call. */
static int effective_log_level(mcp_call_t *call) {
  if (call->stateless) {
    json_t *meta = mcp_call_meta(call);
    mcp_log_level lvl;
    const char *name = json_string_value(
        json_object_get(meta, "io.modelcontextprotocol/logLevel"));
    /* 2026-07-28: no logLevel in the request means the client wants none. */
    return name && mcp_log_level_parse(name, &lvl) == MCP_OK
               ? (int)lvl
               : MCP_LOG_EMERGENCY + 1;
  }
  if (call->session == NULL)
    return 0;
  pthread_mutex_lock(&call->session->lock);
  int lvl = call->session->log_level;
  pthread_mutex_unlock(&call->session->lock);
  return lvl < 0 ? 0 : lvl;
}

mcp_status mcp_call_log(mcp_call_t *call, mcp_log_level level,
                        const char *logger, json_t *data) {
  if (call == NULL || mcp_log_level_name(level) == NULL) {
    json_decref(data);
    return MCP_ERR_INVALID_ARG;
  }
  if (data == NULL)
    return MCP_ERR_NOMEM;
  if ((int)level < effective_log_level(call)) {
    json_decref(data);
    return MCP_OK;
  }
  json_t *params =
      json_pack("{s:s,s:o}", "level", mcp_log_level_name(level), "data", data);
  if (params && logger)
    json_object_set_new(params, "logger", json_string(logger));
  return send_notification(call, "notifications/message", params);
}

mcp_status mcp_call_logf(mcp_call_t *call, mcp_log_level level,
                         const char *logger, const char *fmt, ...) {
  if (fmt == NULL)
    return MCP_ERR_INVALID_ARG;
  char *text = NULL;
  va_list ap;
  va_start(ap, fmt);
  int n = vasprintf(&text, fmt, ap);
  va_end(ap);
  if (n < 0)
    return MCP_ERR_NOMEM;
  json_t *data = json_string(text);
  free(text);
  return mcp_call_log(call, level, logger, data);
}

mcp_status mcp_call_set_error(mcp_call_t *call, int code, const char *message,
                              json_t *data) {
  if (call == NULL || message == NULL) {
    json_decref(data);
    return MCP_ERR_INVALID_ARG;
  }
  char *copy = strdup(message);
  if (copy == NULL) {
    json_decref(data);
    return MCP_ERR_NOMEM;
  }
  free(call->error_message);
  json_decref(call->error_data);
  call->error_code = code;
  call->error_message = copy;
  call->error_data = data;
  return MCP_OK;
}

int mcp__rpc_code_for_status(mcp_status st) {
  switch (st) {
  case MCP_ERR_PARSE:
  case MCP_ERR_TOO_DEEP:
    return MCP_RPC_PARSE_ERROR;
  case MCP_ERR_INVALID_REQUEST:
  case MCP_ERR_TOO_LARGE:
    return MCP_RPC_INVALID_REQUEST;
  case MCP_ERR_METHOD_NOT_FOUND:
    return MCP_RPC_METHOD_NOT_FOUND;
  case MCP_ERR_INVALID_PARAMS:
  case MCP_ERR_INVALID_ARG:
  case MCP_ERR_NOT_FOUND:
  case MCP_ERR_ARG_MISSING:
  case MCP_ERR_ARG_NULL:
  case MCP_ERR_ARG_TYPE:
    return MCP_RPC_INVALID_PARAMS;
  case MCP_ERR_RESOURCE_NOT_FOUND:
    return MCP_RPC_RESOURCE_NOT_FOUND;
  default:
    return MCP_RPC_INTERNAL_ERROR;
  }
}

static mcp_status status_for_code(int code) {
  switch (code) {
  case MCP_RPC_INVALID_PARAMS:
    return MCP_ERR_INVALID_PARAMS;
  case MCP_RPC_METHOD_NOT_FOUND:
    return MCP_ERR_METHOD_NOT_FOUND;
  case MCP_RPC_INVALID_REQUEST:
    return MCP_ERR_INVALID_REQUEST;
  case MCP_RPC_RESOURCE_NOT_FOUND:
    return MCP_ERR_RESOURCE_NOT_FOUND;
  default:
    return MCP_ERR_INTERNAL;
  }
}

mcp_status mcp__call_fail(mcp_call_t *call, int code, const char *message) {
  mcp_status st = mcp_call_set_error(call, code, message, NULL);
  return st == MCP_OK ? status_for_code(code) : st;
}

mcp_status mcp__call_missing_capability(mcp_call_t *call, const char *name,
                                        const char *member) {
  json_t *inner = json_object();
  if (inner && member)
    json_object_set_new(inner, member, json_object());
  if (call->missing_caps == NULL)
    call->missing_caps = json_object();
  if (call->missing_caps && inner)
    json_object_set_new(call->missing_caps, name, inner);
  else
    json_decref(inner);
  return MCP_ERR_CAPABILITY;
}

mcp_status mcp_call_require_capability(mcp_call_t *call, const char *name) {
  if (call == NULL || name == NULL)
    return MCP_ERR_INVALID_ARG;
  return mcp_call_client_has(call, name)
             ? MCP_OK
             : mcp__call_missing_capability(call, name, NULL);
}

/* "Missing required client capability: sampling.tools" (names joined by
 * ", "): the message is all that most clients show (the Python SDK, the
 * Inspector); data.requiredCapabilities alone leaves the user guessing.
 * Kept on the call, which the caller borrows it from; NULL without memory. */
static const char *missing_caps_message(mcp_call_t *call) {
  char list[300] = "";
  size_t o = 0, n = 0;
  const char *name, *member;
  json_t *inner, *unused;
  json_object_foreach(call->missing_caps, name, inner) {
    if (json_object_size(inner) == 0 && o < sizeof list)
      o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", n++ ? ", " : "",
                            name);
    bool extension = strcmp(name, "extensions") == 0;
    json_object_foreach(inner, member, unused) {
      if (o >= sizeof list)
        break;
      o += (size_t)snprintf(list + o, sizeof list - o, "%s%s%s%s",
                            n++ ? ", " : "", extension ? "extension " : name,
                            extension ? "" : ".", member);
    }
  }
  free(call->missing_caps_message);
  call->missing_caps_message = NULL;
  if (n > 0 &&
      asprintf(&call->missing_caps_message,
               "Missing required client capabilit%s: %s", n == 1 ? "y" : "ies",
               list) < 0)
    call->missing_caps_message = NULL;
  return call->missing_caps_message;
}

void mcp__call_error_for_status(mcp_call_t *call, mcp_status st, int *code,
                                const char **message, json_t **data) {
  if (call->error_message != NULL) {
    *code = call->error_code;
    /* 2026-07-28 has no -32002 (SEP-2164): an unknown resource is -32602 */
    if (call->stateless && *code == MCP_RPC_RESOURCE_NOT_FOUND)
      *code = MCP_RPC_INVALID_PARAMS;
    *message = call->error_message;
    *data = call->error_data;
    return;
  }
  if (st == MCP_ERR_CAPABILITY && call->stateless) {
    /* data is borrowed by the caller: keep it on the call */
    json_decref(call->error_data);
    call->error_data = json_pack(
        "{s:o}", "requiredCapabilities",
        call->missing_caps ? json_incref(call->missing_caps) : json_object());
    *code = MCP_RPC_MISSING_CLIENT_CAPABILITY;
    *message = missing_caps_message(call);
    if (*message == NULL)
      *message = "Missing required client capability";
    *data = call->error_data;
    return;
  }
  *code = mcp__rpc_code_for_status(st);
  if (call->stateless && *code == MCP_RPC_RESOURCE_NOT_FOUND)
    *code = MCP_RPC_INVALID_PARAMS;
  *message =
      *code == MCP_RPC_INTERNAL_ERROR ? "Internal error" : mcp_strerror(st);
  /* 2025-11-25 has no -32021 (the code stays): the message names it */
  if (st == MCP_ERR_CAPABILITY && call->missing_caps != NULL &&
      missing_caps_message(call) != NULL)
    *message = call->missing_caps_message;
  *data = NULL;
}

/* ---- server-to-client requests ------------------------------------------- */

static const char *capability_for(const char *method) {
  if (strcmp(method, "sampling/createMessage") == 0)
    return "sampling";
  if (strcmp(method, "elicitation/create") == 0)
    return "elicitation";
  if (strcmp(method, "roots/list") == 0)
    return "roots";
  return NULL;
}

static void send_cancel(mcp_call_t *call, int64_t id, const char *reason) {
  json_t *params =
      json_pack("{s:I,s:s}", "requestId", (json_int_t)id, "reason", reason);
  mcp__buf msg;
  mcp__buf_init(&msg);
  if (params && mcp__jsonrpc_encode_notification(
                    &msg, "notifications/cancelled", params)) {
    pthread_mutex_lock(&call->send_lock);
    call->emitted = true;
    call->reply.send(call->reply.ctx, msg.data, msg.len,
                     MCP__SEND_NOTIFICATION);
    pthread_mutex_unlock(&call->send_lock);
  }
  json_decref(params);
  mcp__buf_free(&msg);
}

mcp_status mcp_call_request(mcp_call_t *call, const char *method,
                            json_t *params, int timeout_ms, json_t **result,
                            mcp_error_t *err) {
  if (result)
    *result = NULL;
  if (call == NULL || method == NULL || result == NULL) {
    json_decref(params);
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  }
  const char *cap = capability_for(method);
  if (cap && !mcp_call_client_has(call, cap)) {
    json_decref(params);
    mcp__call_missing_capability(call, cap, NULL);
    return mcp_error_set(err, MCP_ERR_CAPABILITY,
                         "the client did not declare the '%s' capability", cap);
  }
  if (call->stateless)
    return mcp__input_request(call, method, params, result, err);
  if (call->session == NULL) {
    json_decref(params);
    return mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                         "server-to-client requests need a session");
  }
  mcp_session_t *se = call->session;
  mcp__outbound *o = calloc(1, sizeof *o);
  if (o == NULL) {
    json_decref(params);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }
  pthread_mutex_lock(&se->lock);
  if (se->state == MCP__SESSION_CLOSED || se->input_closed) {
    /* Nobody could answer (e.g. a task whose session was deleted): do not
     * send a request that would reach some other stream for nothing. */
    pthread_mutex_unlock(&se->lock);
    free(o);
    json_decref(params);
    return mcp_error_set(err, MCP_ERR_CLOSED, "session closed: cannot send %s",
                         method);
  }
  o->id = se->next_outbound_id++;
  o->next = se->outbound;
  se->outbound = o;
  pthread_mutex_unlock(&se->lock);
  /* a shared session: the answer may reach another replica */
  mcp__relay_await(se, o->id, true);

  if (call->task_id) {
    if (params == NULL)
      params = json_object();
    add_related_task(call, params);
    if (call->task_input)
      call->task_input(call, true);
  }
  json_t *id = json_integer((json_int_t)o->id);
  mcp__buf msg;
  mcp__buf_init(&msg);
  mcp_status st = MCP_OK;
  if (id == NULL || !mcp__jsonrpc_encode_request(&msg, id, method, params))
    st = mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  json_decref(id);
  json_decref(params);
  if (st == MCP_OK) {
    pthread_mutex_lock(&call->send_lock);
    call->emitted = true;
    st =
        call->reply.send(call->reply.ctx, msg.data, msg.len, MCP__SEND_REQUEST);
    pthread_mutex_unlock(&call->send_lock);
    if (st != MCP_OK)
      mcp_error_set(err, st, "cannot send %s to the client", method);
  }
  mcp__buf_free(&msg);

  if (timeout_ms <= 0)
    timeout_ms = call->server->request_timeout_ms;
  struct timespec deadline;
  mcp__deadline_in(CLOCK_MONOTONIC, timeout_ms, &deadline);
  pthread_mutex_lock(&se->lock);
  while (st == MCP_OK && !o->done) {
    if (atomic_load(&call->cancelled))
      st = MCP_ERR_CANCELLED;
    else if (se->state == MCP__SESSION_CLOSED || se->input_closed)
      st = MCP_ERR_CLOSED;
    else if (pthread_cond_timedwait(&se->cond, &se->lock, &deadline) ==
             ETIMEDOUT)
      st = o->done ? MCP_OK : MCP_ERR_TIMEOUT;
  }
  for (mcp__outbound **p = &se->outbound; *p; p = &(*p)->next)
    if (*p == o) {
      *p = o->next;
      break;
    }
  pthread_mutex_unlock(&se->lock);
  mcp__relay_await(se, o->id, false);
  if (call->task_id && call->task_input)
    call->task_input(call, false);

  if (st == MCP_ERR_TIMEOUT || st == MCP_ERR_CANCELLED) {
    send_cancel(call, o->id,
                st == MCP_ERR_TIMEOUT ? "timed out" : "request cancelled");
    mcp_error_set(err, st, "no answer to %s: %s", method, mcp_strerror(st));
  } else if (st == MCP_ERR_CLOSED)
    mcp_error_set(err, st, "session closed while waiting for %s", method);
  if (st == MCP_OK) {
    json_t *res = json_object_get(o->response, "result");
    json_t *error = json_object_get(o->response, "error");
    if (res) {
      *result = json_incref(res);
    } else {
      st = MCP_ERR_PEER;
      if (err) {
        mcp_error_set(err, MCP_ERR_PEER, "%s",
                      json_string_value(json_object_get(error, "message"))
                          ? json_string_value(json_object_get(error, "message"))
                          : "error");
        err->rpc_code = (int)json_integer_value(json_object_get(error, "code"));
      }
    }
  }
  json_decref(o->response);
  free(o);
  return st;
}
