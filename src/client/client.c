/* SPDX-License-Identifier: MIT */
/* client.c - the client core: connect + initialize, request ids and the
 * table of requests waiting for answers, routing of incoming messages
 * (responses to their waiter, progress to its callback, server requests to
 * the application's handlers), timeouts with notifications/cancelled. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/internal.h"
#include "jsonrpc/jsonrpc.h"
#include "mcp/call.h"
#include "client/telemetry.h"
#include "mcp/version.h"
#include "util/buf.h"
#include "util/clock.h"
#include "json/load.h"
#include "util/str.h"

/* Protocol revisions this client can speak; version strings compare exactly. */
static const char *const KNOWN_VERSIONS[] = {"2025-11-25", "2025-06-18",
                                             "2025-03-26", "2024-11-05"};

static void observe(mcp_client_t *c, bool incoming, json_t *msg) {
  if (c->opts.observer != NULL)
    c->opts.observer(c, incoming, msg, c->opts.observer_ud);
}

mcp_status mcp__client_send(mcp_client_t *c, const mcp__buf *msg,
                            const mcp__csend *info, mcp_error_t *err) {
  if (c->opts.observer != NULL) {
    /* testers see what goes on the wire, as JSON */
    json_error_t je;
    json_t *seen = mcp__json_load(msg->data, msg->len, &je);
    if (seen != NULL)
      observe(c, false, seen);
    json_decref(seen);
  }
  mcp__csend none = {0};
  return c->transport->ops->send(c->transport, msg->data, msg->len,
                                 info ? info : &none, err);
}

/* Encodes with src/jsonrpc and sends a message that has no answer to wait
 * for (a notification, a reply to the server). ok: the encoder's verdict. */
static mcp_status send_encoded(mcp_client_t *c, mcp__buf *b, bool ok) {
  mcp_status st = ok ? mcp__client_send(c, b, NULL, NULL) : MCP_ERR_NOMEM;
  mcp__buf_free(b);
  return st;
}

/* ---- the pending table (callers hold c->lock) -------------------------- */

static mcp__pending *find_pending(mcp_client_t *c, int64_t id) {
  for (mcp__pending *p = c->pending; p != NULL; p = p->next)
    if (p->id == id)
      return p;
  return NULL;
}

static void unlink_pending(mcp_client_t *c, mcp__pending *p) {
  for (mcp__pending **pp = &c->pending; *pp != NULL; pp = &(*pp)->next)
    if (*pp == p) {
      *pp = p->next;
      return;
    }
}

bool mcp__client_is_pending(mcp_client_t *c, const json_t *id) {
  if (!json_is_integer(id))
    return false;
  pthread_mutex_lock(&c->lock);
  mcp__pending *p = find_pending(c, json_integer_value(id));
  bool waiting = p != NULL && !p->done;
  pthread_mutex_unlock(&c->lock);
  return waiting;
}

void mcp__client_closed(mcp_client_t *c) {
  pthread_mutex_lock(&c->lock);
  c->closed = true;
  pthread_cond_broadcast(&c->cond);
  pthread_mutex_unlock(&c->lock);
}

/* ---- incoming ----------------------------------------------------------- */

static void answer_error(mcp_client_t *c, const json_t *id, int code,
                         const char *message) {
  mcp__buf b;
  mcp__buf_init(&b);
  send_encoded(c, &b, mcp__jsonrpc_encode_error(&b, id, code, message, NULL));
}

mcp_status mcp__client_handle(mcp_client_t *c, const char *method,
                              json_t *params, json_t **result,
                              mcp_error_t *err) {
  *result = NULL;
  mcp_client_request_fn fn = NULL;
  void *ud = NULL;
  if (strcmp(method, "sampling/createMessage") == 0) {
    fn = c->opts.sampling;
    ud = c->opts.sampling_ud;
  } else if (strcmp(method, "elicitation/create") == 0) {
    fn = c->opts.elicitation;
    ud = c->opts.elicitation_ud;
  } else if (strcmp(method, "roots/list") == 0) {
    fn = c->opts.roots;
    ud = c->opts.roots_ud;
  }
  if (fn == NULL)
    return mcp_error_set(err, MCP_ERR_CAPABILITY,
                         "the server asked for %s, which has no handler",
                         method);
  json_t *empty = json_is_object(params) ? NULL : json_object();
  mcp_error_t e = {0};
  mcp_status st = fn(c, method, empty ? empty : params, result, &e, ud);
  json_decref(empty);
  if (st != MCP_OK || *result == NULL) {
    json_decref(*result);
    *result = NULL;
    st = mcp_error_set(err, st != MCP_OK ? st : MCP_ERR_INTERNAL, "%s: %s",
                       method, e.message[0] ? e.message : mcp_strerror(st));
    if (err != NULL)
      err->rpc_code = e.rpc_code;
  }
  return st;
}

static void handle_server_request(mcp_client_t *c, json_t *params,
                                  const char *method, const json_t *id) {
  json_t *result = NULL;
  if (strcmp(method, "ping") == 0) {
    result = json_object();
  } else {
    mcp_error_t e = {0};
    mcp_status st = mcp__client_handle(c, method, params, &result, &e);
    if (st == MCP_ERR_CAPABILITY) {
      answer_error(c, id, MCP_RPC_METHOD_NOT_FOUND, "Method not found");
      return;
    }
    if (st != MCP_OK) {
      /* the handler's own message, without the "method: " prefix */
      const char *m = e.message;
      size_t n = strlen(method);
      if (strncmp(m, method, n) == 0 && m[n] == ':' && m[n + 1] == ' ')
        m += n + 2;
      answer_error(c, id, e.rpc_code ? e.rpc_code : MCP_RPC_INTERNAL_ERROR, m);
      return;
    }
  }
  mcp__buf b;
  mcp__buf_init(&b);
  send_encoded(c, &b,
               result != NULL && mcp__jsonrpc_encode_result(&b, id, result));
  json_decref(result);
}

static void handle_progress(mcp_client_t *c, json_t *params) {
  json_t *token = json_object_get(params, "progressToken");
  json_t *progress = json_object_get(params, "progress");
  if (!json_is_integer(token) || !json_is_number(progress))
    return;
  json_t *total = json_object_get(params, "total");
  const char *message = json_string_value(json_object_get(params, "message"));
  /* The callback runs under the lock so the waiter cannot return (and its
   * stack entry vanish) while it runs; callbacks must not call the client. */
  pthread_mutex_lock(&c->lock);
  for (mcp__pending *p = c->pending; p != NULL; p = p->next)
    if (p->progress_token == json_integer_value(token) && p->progress != NULL &&
        !p->done) {
      p->progress(json_number_value(progress),
                  json_is_number(total) ? json_number_value(total) : -1.0,
                  message, p->progress_ud);
      break;
    }
  pthread_mutex_unlock(&c->lock);
}

/* Routes one incoming message (root: the whole message, taken over; the
 * other arguments are borrowed from it): a server request to the handlers,
 * a notification to progress, cache, tasks and the application, a
 * response (integer id) to its waiter. */
static void route(mcp_client_t *c, json_t *root, const char *method,
                  const json_t *id, json_t *params) {
  observe(c, true, root);
  if (method != NULL && id != NULL) {
    handle_server_request(c, params, method, id);
  } else if (method != NULL) {
    if (strcmp(method, "notifications/progress") == 0)
      handle_progress(c, params);
    mcp__cache_notify(c, method, params);
    if (strcmp(method, "notifications/tasks/status") == 0 ||
        strcmp(method, "notifications/tasks") == 0)
      mcp__client_task_status(c, params);
    if (c->opts.on_notification != NULL)
      c->opts.on_notification(c, method, params, c->opts.notification_ud);
  } else if (json_is_integer(id)) {
    pthread_mutex_lock(&c->lock);
    mcp__pending *p = find_pending(c, json_integer_value(id));
    if (p != NULL && !p->done) {
      p->done = true;
      /* The waiter takes the message over: with a shared reference both
       * threads would decrement it, and jansson's json_decref reads the
       * count non-atomically first. */
      p->response = root;
      root = NULL;
      pthread_cond_broadcast(&c->cond);
    }
    /* else: late answer of a timed-out request, ignored (spec: S ignore) */
    pthread_mutex_unlock(&c->lock);
  }
  json_decref(root);
}

/* The client is the tolerant reader it always was: src/jsonrpc's envelope
 * rules ("jsonrpc": "2.0", an id of the right type, params an object, a
 * well-formed error object) are what the server must send, not what the
 * client insists on, so a waiting request gets even a sloppy answer. Routing
 * reads only method, id and params, so one parse is all a message needs
 * (a strict decode first would refuse some and parse them again). */
void mcp__client_receive_json(mcp_client_t *c, json_t *msg) {
  if (!json_is_object(msg)) {
    json_decref(msg);
    return;
  }
  route(c, msg, json_string_value(json_object_get(msg, "method")),
        json_object_get(msg, "id"), json_object_get(msg, "params"));
}

bool mcp__client_receive_text(mcp_client_t *c, const char *text, size_t len) {
  /* jansson's depth limit applies: the client has none of its own */
  json_error_t je;
  json_t *msg = mcp__json_load(text, len, &je);
  if (msg != NULL) {
    mcp__client_receive_json(c, msg);
    return true;
  }
  if (c->opts.observer != NULL) {
    json_t *raw = json_stringn_nocheck(text, len);
    if (raw != NULL)
      observe(c, true, raw);
    json_decref(raw);
  }
  return false;
}

/* ---- requests ------------------------------------------------------------ */

static mcp_status request_exchange(mcp_client_t *c, const char *method,
                                   json_t *params,
                                   mcp_client_progress_fn progress, void *ud,
                                   int timeout_ms, const uint64_t *listen_gen,
                                   json_t **result, mcp_error_t *err);

/* One request; with OpenTelemetry on, inside its CLIENT span
 * (telemetry.h), whose context rides in params._meta.traceparent. */
static mcp_status request_impl(mcp_client_t *c, const char *method,
                               json_t *params, mcp_client_progress_fn progress,
                               void *ud, int timeout_ms,
                               const uint64_t *listen_gen, json_t **result,
                               mcp_error_t *err) {
  if (c->otlp != NULL && params == NULL)
    params = json_object();
  if ((c->otlp == NULL && c->metrics == NULL) ||
      (params != NULL && !json_is_object(params)))
    return request_exchange(c, method, params, progress, ud, timeout_ms,
                            listen_gen, result, err);
  mcp__cspan sp;
  mcp__cspan_begin(c, method, params, &sp);
  json_t *mine = NULL;
  mcp_error_t local;
  mcp_error_t *e = err ? err : &local;
  mcp_status st =
      request_exchange(c, method, params, progress, ud, timeout_ms,
                       listen_gen, result ? result : &mine, e);
  mcp__cspan_end(c, &sp, method, st, e, result ? *result : mine);
  json_decref(mine);
  return st;
}

static mcp_status wait_for(mcp_client_t *c, mcp__pending *p, int timeout) {
  struct timespec deadline;
  if (timeout > 0) {
    mcp__deadline_in(CLOCK_REALTIME, timeout, &deadline);
  }
  mcp_status st = MCP_OK;
  pthread_mutex_lock(&c->lock);
  while (!p->done && !c->closed) {
    if (timeout > 0) {
      if (pthread_cond_timedwait(&c->cond, &c->lock, &deadline) == ETIMEDOUT) {
        if (!p->done)
          st = MCP_ERR_TIMEOUT;
        break;
      }
    } else {
      pthread_cond_wait(&c->cond, &c->lock);
    }
  }
  if (st == MCP_OK && !p->done)
    st = MCP_ERR_CLOSED;
  unlink_pending(c, p);
  pthread_mutex_unlock(&c->lock);
  return st;
}

static mcp_status restart_session(mcp_client_t *c, uint64_t gen,
                                  mcp_error_t *err);

static mcp_status request_exchange(mcp_client_t *c, const char *method,
                                   json_t *params,
                                   mcp_client_progress_fn progress, void *ud,
                                   int timeout_ms, const uint64_t *listen_gen,
                                   json_t **result, mcp_error_t *err) {
  bool listen = listen_gen != NULL;
  bool modern = c->era == MCP__ERA_MODERN;
  int timeout = timeout_ms < 0    ? 0
                : timeout_ms == 0 ? c->opts.timeout_ms
                                  : timeout_ms;
  if (result != NULL)
    *result = NULL;
  if (params == NULL)
    params = json_object();
  if (!json_is_object(params)) {
    json_decref(params);
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "params must be an object");
  }
  mcp__pending p = {0};
  pthread_mutex_lock(&c->lock);
  if (c->closed) {
    pthread_mutex_unlock(&c->lock);
    json_decref(params);
    return mcp_error_set(err, MCP_ERR_CLOSED, "the connection is closed");
  }
  if (listen && *listen_gen != c->listen_gen) {
    /* mcp_client_listen_stop came before the request was registered (it
     * ends only registered ones): the listen is over before it began */
    pthread_mutex_unlock(&c->lock);
    json_decref(params);
    return MCP_OK;
  }
  p.id = ++c->next_id;
  uint64_t gen = c->session_gen;
  p.progress = progress;
  p.progress_ud = ud;
  p.listen = listen;
  /* The request id doubles as progress token: unique among active requests
   * by construction. Set before p is visible to the reader thread. */
  if (progress != NULL)
    p.progress_token = p.id;
  p.next = c->pending;
  c->pending = &p;
  pthread_mutex_unlock(&c->lock);
  if (progress != NULL) {
    json_t *meta = json_object_get(params, "_meta");
    if (!json_is_object(meta)) {
      meta = json_object();
      json_object_set_new(params, "_meta", meta);
    }
    json_object_set_new(meta, "progressToken", json_integer(p.id));
  }
  char **headers = NULL;
  if (modern) {
    mcp__modern_meta(c, params);
    headers = mcp__modern_headers(c, method, params);
  }
  json_t *id = json_integer(p.id);
  mcp__csend info = {
      .request_id = id, .headers = headers, .timeout_ms = timeout_ms};
  mcp__buf msg;
  mcp__buf_init(&msg);
  bool encoded = mcp__jsonrpc_encode_request(&msg, id, method, params);
  json_decref(params);
  mcp_status st =
      encoded ? mcp__client_send(c, &msg, &info, err) : MCP_ERR_NOMEM;
  if (st == MCP_ERR_NOT_FOUND && !modern && strcmp(method, "initialize") != 0 &&
      c->transport->ops->reset_session != NULL) {
    /* spec (Streamable HTTP, session management): on 404 for a request
     * with a session id, start a new session without one; the request is
     * then sent once more, in the new session, with the same id. */
    st = restart_session(c, gen, err);
    if (st == MCP_OK)
      st = mcp__client_send(c, &msg, &info, err);
  }
  mcp__headers_free(headers);
  if (st == MCP_ERR_NOT_FOUND) {
    st = MCP_ERR_CLOSED; /* the session ended again, or cannot restart */
    if (err != NULL)
      err->status = st;
  }
  mcp__buf_free(&msg);
  if (st != MCP_OK) {
    pthread_mutex_lock(&c->lock);
    unlink_pending(c, &p);
    pthread_mutex_unlock(&c->lock);
    json_decref(p.response);
    json_decref(id);
    if (err != NULL && err->status == st)
      return st;
    return mcp_error_set(err, st, "cannot send %s: %s", method,
                         mcp_strerror(st));
  }
  st = wait_for(c, &p, timeout);
  if (st == MCP_ERR_TIMEOUT) {
    /* 2026-07-28 over HTTP: the closed stream is the cancellation */
    if (!modern || c->opts.argv != NULL) {
      json_t *cancel = json_pack("{s:O,s:s}", "requestId", id, "reason",
                                 "request timed out");
      mcp_client_notify(c, "notifications/cancelled", cancel);
    }
    json_decref(id);
    return mcp_error_set(err, st, "%s timed out after %d ms", method, timeout);
  }
  json_decref(id);
  if (st != MCP_OK)
    return mcp_error_set(err, st, "%s: the connection closed before the answer",
                         method);
  json_t *error = json_object_get(p.response, "error");
  json_t *res = json_object_get(p.response, "result");
  if (listen && p.response == NULL) {
    /* ended by mcp_client_listen_stop */
  } else if (error != NULL) {
    json_t *code = json_object_get(error, "code");
    const char *message = json_string_value(json_object_get(error, "message"));
    st = mcp_error_set(err, MCP_ERR_PEER, "%s", message ? message : "error");
    if (err != NULL)
      err->rpc_code = json_is_integer(code) ? (int)json_integer_value(code) : 0;
  } else if (!json_is_object(res)) {
    st = mcp_error_set(err, MCP_ERR_PARSE,
                       "%s: the response has no result object", method);
  } else if (result != NULL) {
    *result = json_incref(res);
  }
  json_decref(p.response);
  return st;
}

mcp_status mcp_client_request(mcp_client_t *c, const char *method,
                              json_t *params, mcp_client_progress_fn progress,
                              void *user_data, json_t **result,
                              mcp_error_t *err) {
  if (c == NULL || method == NULL) {
    json_decref(params);
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "invalid argument");
  }
  if (c->era == MCP__ERA_MODERN)
    return mcp__modern_request(c, method, params, progress, user_data, false,
                               result, err);
  return request_impl(c, method, params, progress, user_data, 0, NULL, result,
                      err);
}

mcp_status mcp__client_request_once(mcp_client_t *c, const char *method,
                                    json_t *params,
                                    mcp_client_progress_fn progress, void *ud,
                                    int timeout_ms, const uint64_t *listen_gen,
                                    json_t **result, mcp_error_t *err) {
  return request_impl(c, method, params, progress, ud, timeout_ms, listen_gen,
                      result, err);
}

mcp_status mcp_client_notify(mcp_client_t *c, const char *method,
                             json_t *params) {
  if (c == NULL || method == NULL) {
    json_decref(params);
    return MCP_ERR_INVALID_ARG;
  }
  mcp__buf b;
  mcp__buf_init(&b);
  bool ok = mcp__jsonrpc_encode_notification(&b, method, params);
  json_decref(params);
  return send_encoded(c, &b, ok);
}

/* ---- connect / close ----------------------------------------------------- */

static json_t *client_capabilities(const mcp_client_options_t *o) {
  json_t *caps = json_object();
  if (o->sampling_caps)
    json_object_set(caps, "sampling", o->sampling_caps);
  if (o->elicitation_caps)
    json_object_set(caps, "elicitation", o->elicitation_caps);
  if (o->roots_caps)
    json_object_set(caps, "roots", o->roots_caps);
  return caps;
}

static mcp_status initialize(mcp_client_t *c, mcp_error_t *err) {
  json_t *params = json_pack("{s:s,s:o,s:{s:s,s:s}}", "protocolVersion",
                             c->opts.protocol_version, "capabilities",
                             client_capabilities(&c->opts), "clientInfo",
                             "name", c->opts.name, "version", c->opts.version);
  json_t *result = NULL;
  mcp_status st =
      request_impl(c, "initialize", params, NULL, NULL, 0, NULL, &result, err);
  if (st != MCP_OK)
    return st;
  const char *v = json_string_value(json_object_get(result, "protocolVersion"));
  bool known = false;
  for (size_t i = 0;
       v != NULL && i < sizeof KNOWN_VERSIONS / sizeof *KNOWN_VERSIONS; i++)
    known = known || strcmp(v, KNOWN_VERSIONS[i]) == 0;
  if (!known) {
    json_decref(result);
    /* spec: the client SHOULD disconnect on a version it does not speak */
    return mcp_error_set(err, MCP_ERR_UNSUPPORTED,
                         "the server chose protocol version %s, which this "
                         "client does not support",
                         v ? v : "(none)");
  }
  char *version = strdup(v);
  if (version == NULL) {
    json_decref(result);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }
  pthread_mutex_lock(&c->lock);
  if (c->init_result != NULL) {
    /* a restarted session: keep the old values alive (borrowed by callers) */
    json_array_append_new(c->retired, c->init_result);
    json_array_append_new(c->retired, json_string(c->protocol_version));
    free(c->protocol_version);
  }
  c->init_result = result;
  c->protocol_version = version;
  pthread_mutex_unlock(&c->lock);
  if (c->transport->ops->set_protocol_version != NULL)
    c->transport->ops->set_protocol_version(c->transport, v);
  return mcp_client_notify(c, "notifications/initialized", NULL);
}

/* Starts a new session after the server forgot the one of generation gen:
 * the first thread to get here re-initializes, later ones (whose request
 * failed in the same old session) find the generation moved on and just
 * retry. */
static mcp_status restart_session(mcp_client_t *c, uint64_t gen,
                                  mcp_error_t *err) {
  mcp_status st = MCP_OK;
  pthread_mutex_lock(&c->restart_lock);
  pthread_mutex_lock(&c->lock);
  bool current = c->session_gen == gen;
  pthread_mutex_unlock(&c->lock);
  if (current) {
    c->transport->ops->reset_session(c->transport);
    st = initialize(c, err);
    pthread_mutex_lock(&c->lock);
    c->session_gen++;
    pthread_mutex_unlock(&c->lock);
  }
  pthread_mutex_unlock(&c->restart_lock);
  if (st != MCP_OK && err != NULL) {
    char reason[sizeof err->message];
    snprintf(reason, sizeof reason, "%s", err->message);
    mcp_error_set(err, st,
                  "the server ended the session and a new one could not "
                  "start: %s",
                  reason);
  }
  return st;
}

/* The era: server/discover first unless 2025-11-25 or older is forced,
 * 2026-07-28 when the server offers it, initialize otherwise (auto). */
static mcp_status start(mcp_client_t *c, mcp_error_t *err) {
  if (c->wanted != MCP__ERA_LEGACY) {
    c->era = MCP__ERA_MODERN;
    if (c->transport->ops->set_protocol_version != NULL)
      c->transport->ops->set_protocol_version(c->transport,
                                              MCP__MODERN_VERSION);
    mcp_status st = mcp__modern_discover(c, err);
    if (st == MCP_OK || st != MCP_ERR_UNSUPPORTED ||
        c->wanted == MCP__ERA_MODERN)
      return st;
    c->era = MCP__ERA_LEGACY;
    if (c->transport->ops->set_protocol_version != NULL)
      c->transport->ops->set_protocol_version(c->transport, NULL);
    if (err != NULL)
      memset(err, 0, sizeof *err);
  }
  c->era = MCP__ERA_LEGACY;
  return initialize(c, err);
}

mcp_status mcp_client_connect(const mcp_client_options_t *o, mcp_client_t **out,
                              mcp_error_t *err) {
  if (err != NULL)
    memset(err, 0, sizeof *err);
  if (o != NULL && o->refusals != NULL) { /* options.c refuse */
    char list[512];
    mcp__str_one_line(o->refusals, list, sizeof list);
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "options refused: %s",
                         list);
  }
  if (o == NULL || out == NULL || (o->argv == NULL) == (o->url == NULL))
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "set exactly one of a command or a URL");
  *out = NULL;
  mcp_client_t *c = calloc(1, sizeof *c);
  if (c == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  if (mcp__client_options_copy(&c->opts, o) != MCP_OK) {
    free(c);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }
  pthread_mutex_init(&c->lock, NULL);
  pthread_mutex_init(&c->restart_lock, NULL);
  pthread_cond_init(&c->cond, NULL);
  pthread_cond_init(&c->task_cond, NULL);
  c->retired = json_array();
  c->cache = json_object();
  c->cache_server = mcp__cache_server_identity(&c->opts);
  c->tool_headers = json_object();
  c->task_seen = json_object();
  const char *want = o->protocol_version;
  if (want == NULL || strcmp(want, "auto") == 0) {
    c->wanted = MCP__ERA_AUTO;
    free(c->opts.protocol_version);
    c->opts.protocol_version = strdup(MCP_PROTOCOL_LATEST);
  } else {
    c->wanted = strcmp(want, MCP__MODERN_VERSION) >= 0 ? MCP__ERA_MODERN
                                                       : MCP__ERA_LEGACY;
  }
  c->modern_caps = client_capabilities(&c->opts);
  json_object_set_new(c->modern_caps, "extensions",
                      json_pack("{s:{}}", MCP__TASKS_EXT));
  if (c->opts.protocol_version == NULL || c->retired == NULL ||
      c->cache == NULL || c->cache_server == NULL || c->tool_headers == NULL ||
      c->task_seen == NULL || c->modern_caps == NULL) {
    mcp_client_close(c);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }
  mcp_status st =
      c->opts.argv
          ? mcp__ctransport_stdio_new(c, c->opts.argv, &c->transport, err)
          : mcp__ctransport_http_new(c, &c->transport, err);
  if (st == MCP_OK) /* before start: initialize gets its span too */
    st = mcp__client_telemetry_start(c, err);
  if (st == MCP_OK)
    st = start(c, err);
  if (st != MCP_OK) {
    mcp_client_close(c);
    return st;
  }
  mcp__client_session_begin(c);
  *out = c;
  return MCP_OK;
}

void mcp_client_close(mcp_client_t *c) {
  if (c == NULL)
    return;
  /* the session's duration ends before the transport's close, which
   * waits for a stdio server to exit */
  if (c->metrics != NULL && c->session_started_ns != 0)
    mcp__client_session_end(c);
  if (c->transport != NULL)
    c->transport->ops->close(c->transport);
  mcp__client_telemetry_stop(c);
  json_decref(c->init_result);
  json_decref(c->retired);
  json_decref(c->cache);
  free(c->cache_server);
  json_decref(c->tool_headers);
  json_decref(c->task_seen);
  json_decref(c->modern_caps);
  free(c->log_level);
  pthread_cond_destroy(&c->task_cond);
  free(c->protocol_version);
  mcp__client_options_clear(&c->opts);
  pthread_cond_destroy(&c->cond);
  pthread_mutex_destroy(&c->restart_lock);
  pthread_mutex_destroy(&c->lock);
  free(c);
}

json_t *mcp_client_initialize_result(const mcp_client_t *c) {
  return c ? c->init_result : NULL;
}

json_t *mcp_client_server_info(const mcp_client_t *c) {
  if (c == NULL)
    return NULL;
  json_t *si = json_object_get(c->init_result, "serverInfo");
  if (si == NULL)
    si = json_object_get(json_object_get(c->init_result, "_meta"),
                         "io.modelcontextprotocol/serverInfo");
  return json_is_object(si) ? si : NULL;
}

const char *mcp_client_protocol_version(const mcp_client_t *c) {
  return c ? c->protocol_version : NULL;
}

bool mcp_client_server_has(const mcp_client_t *c, const char *capability) {
  if (c == NULL || capability == NULL)
    return false;
  json_t *caps = json_object_get(c->init_result, "capabilities");
  if (c->era == MCP__ERA_MODERN && strcmp(capability, "tasks") == 0)
    return json_object_get(json_object_get(caps, "extensions"),
                           MCP__TASKS_EXT) != NULL;
  return json_object_get(caps, capability) != NULL;
}

const char *mcp_client_session_id(const mcp_client_t *c) {
  if (c == NULL || c->transport == NULL ||
      c->transport->ops->session_id == NULL)
    return NULL;
  return c->transport->ops->session_id(c->transport);
}
