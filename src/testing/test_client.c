/* SPDX-License-Identifier: MIT */
/* test_client.c - the in-process client of testing.h: requests go through
 * mcp__server_accept and mcp__call_run as a transport's do, on a thread
 * started and joined per request, while the caller's thread reads what the
 * call sends (questions, notifications, the response) and answers. */
#include "mcp/testing.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/channel.h"
#include "server/dispatch.h"
#include "util/clock.h"
#include "util/thread.h"

/* The most 2026-07-28 input_required rounds one request may take: a
 * handler that asks forever is a bug the test should see, not a hang. */
#define MAX_ROUNDS 64

/* What one exchange's channel received, for the caller's thread. */
typedef struct inbox {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  json_t *messages; /* not yet read */
  bool done;        /* the call is finished with the channel */
} inbox;

struct mcp_test_client {
  mcp_server_t *server;
  char *version;
  bool modern;
  json_t *capabilities;
  mcp_session_t *session; /* legacy only */
  inbox notify;           /* the session's notifications (legacy) */
  json_t *notifications;  /* read so far */
  mcp_test_answer_fn answer;
  void *answer_data;
  size_t questions;
  json_int_t next_id;
};

static json_t *answer_all(mcp_test_client_t *c, const json_t *requests);

static void inbox_init(inbox *b) {
  pthread_mutex_init(&b->lock, NULL);
  pthread_cond_init(&b->cond, NULL);
  b->messages = json_array();
  b->done = false;
}

static void inbox_destroy(inbox *b) {
  json_decref(b->messages);
  pthread_cond_destroy(&b->cond);
  pthread_mutex_destroy(&b->lock);
}

static mcp_status inbox_send(void *ctx, const char *msg, size_t len,
                             unsigned flags) {
  (void)flags;
  inbox *b = ctx;
  json_t *v = json_loadb(msg, len, 0, NULL);
  if (v == NULL) /* the server wrote what no client could read */
    v = json_pack("{s:s,s:s%}", "invalid", "the server sent invalid JSON",
                  "text", msg, len);
  if (v == NULL)
    return MCP_ERR_NOMEM;
  pthread_mutex_lock(&b->lock);
  json_array_append_new(b->messages, v);
  pthread_cond_broadcast(&b->cond);
  pthread_mutex_unlock(&b->lock);
  return MCP_OK;
}

static void inbox_done(void *ctx) {
  inbox *b = ctx;
  pthread_mutex_lock(&b->lock);
  b->done = true;
  pthread_cond_broadcast(&b->cond);
  pthread_mutex_unlock(&b->lock);
}

static mcp__channel inbox_channel(inbox *b) {
  mcp__channel ch = {inbox_send, inbox_done, b, NULL, false};
  return ch;
}

/* Waits for the next message (new reference), or NULL once the call is
 * done and everything was read. */
static json_t *inbox_next(inbox *b) {
  pthread_mutex_lock(&b->lock);
  while (json_array_size(b->messages) == 0 && !b->done)
    pthread_cond_wait(&b->cond, &b->lock);
  json_t *m = NULL;
  if (json_array_size(b->messages) > 0) {
    m = json_incref(json_array_get(b->messages, 0));
    json_array_remove(b->messages, 0);
  }
  pthread_mutex_unlock(&b->lock);
  return m;
}

/* Moves the session's notifications to c->notifications. */
static void collect_notifications(mcp_test_client_t *c) {
  if (c->modern)
    return;
  pthread_mutex_lock(&c->notify.lock);
  json_array_extend(c->notifications, c->notify.messages);
  json_array_clear(c->notify.messages);
  pthread_mutex_unlock(&c->notify.lock);
}

static void *run_call(void *call) {
  mcp__call_run(call);
  return NULL;
}

/* Sends one JSON text and handles what comes back; returns the response. */
static json_t *exchange(mcp_test_client_t *c, const char *text) {
  inbox box;
  inbox_init(&box);
  mcp_call_t *call = NULL;
  mcp__accept a = mcp__server_accept(c->server, c->session, NULL, text,
                                     strlen(text), inbox_channel(&box), &call);
  pthread_t thread;
  bool threaded = false;
  if (a == MCP__ACCEPT_REQUEST) {
    if (mcp__thread_start(&thread, run_call, call) == 0)
      threaded = true;
    else
      mcp__call_run(call); /* no thread: inline, questions then fail */
  } else {
    box.done = true; /* rejected: the error (if any) was sent already */
  }
  json_t *response = NULL;
  for (json_t *m; (m = inbox_next(&box)) != NULL;) {
    const char *method = json_string_value(json_object_get(m, "method"));
    json_t *id = json_object_get(m, "id");
    if (method != NULL && id != NULL) { /* a question for the client */
      c->questions++;
      json_t *result =
          c->answer ? c->answer(method, json_object_get(m, "params"),
                                c->answer_data)
                    : NULL;
      json_t *reply =
          result ? json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id,
                             "result", result)
                 : json_pack("{s:s,s:O,s:{s:i,s:s}}", "jsonrpc", "2.0", "id",
                             id, "error", "code", -32603, "message",
                             "the test client has no answer");
      char *reply_text = reply ? json_dumps(reply, JSON_COMPACT) : NULL;
      if (reply_text != NULL) {
        mcp_call_t *none = NULL;
        inbox ignored;
        inbox_init(&ignored);
        mcp__server_accept(c->server, c->session, NULL, reply_text,
                           strlen(reply_text), inbox_channel(&ignored), &none);
        inbox_destroy(&ignored);
      }
      free(reply_text);
      json_decref(reply);
    } else if (method != NULL) {
      json_array_append(c->notifications, m);
    } else {
      json_decref(response);
      response = json_incref(m);
    }
    json_decref(m);
  }
  if (threaded)
    pthread_join(thread, NULL);
  inbox_destroy(&box);
  collect_notifications(c);
  return response;
}

/* One request message; params is stolen. */
static json_t *send_request(mcp_test_client_t *c, const char *method,
                            json_t *params) {
  if (c->modern) { /* the era's _meta on every request */
    json_t *meta = json_object_get(params, "_meta");
    if (!json_is_object(meta)) {
      meta = json_object();
      json_object_set_new(params, "_meta", meta);
    }
    json_object_set_new(meta, "io.modelcontextprotocol/protocolVersion",
                        json_string(c->version));
    json_object_set(meta, "io.modelcontextprotocol/clientCapabilities",
                    c->capabilities);
  }
  json_t *msg = json_pack("{s:s,s:I,s:s,s:o}", "jsonrpc", "2.0", "id",
                          ++c->next_id, "method", method, "params", params);
  char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
  json_decref(msg);
  if (text == NULL)
    return NULL;
  json_t *r = exchange(c, text);
  free(text);
  return r;
}

json_t *mcp_test_client_request(mcp_test_client_t *c, const char *method,
                                const json_t *params) {
  if (c == NULL || method == NULL)
    return NULL;
  json_t *p = params ? json_deep_copy(params) : json_object();
  if (p == NULL)
    return NULL;
  for (int round = 0;; round++) {
    json_t *r = send_request(c, method, json_deep_copy(p));
    json_t *result = json_object_get(r, "result");
    const char *type = json_string_value(json_object_get(result, "resultType"));
    if (!c->modern || type == NULL || strcmp(type, "input_required") != 0 ||
        round == MAX_ROUNDS) {
      json_decref(p);
      return r;
    }
    /* 2026-07-28: answer every question and send the request again */
    json_t *answers = answer_all(c, json_object_get(result, "inputRequests"));
    if (answers == NULL) { /* no answer: the test sees the question */
      json_decref(p);
      return r;
    }
    json_object_set_new(p, "inputResponses", answers);
    json_t *state = json_object_get(result, "requestState");
    if (state != NULL)
      json_object_set(p, "requestState", state);
    else
      json_object_del(p, "requestState");
    json_decref(r);
  }
}

/* Answers for every entry of inputRequests (new object), or NULL when
 * the answer function gave none. */
static json_t *answer_all(mcp_test_client_t *c, const json_t *requests) {
  json_t *answers = json_object();
  const char *key;
  json_t *q;
  json_object_foreach((json_t *)requests, key, q) {
    c->questions++;
    json_t *a = c->answer
                    ? c->answer(json_string_value(json_object_get(q, "method")),
                                json_object_get(q, "params"), c->answer_data)
                    : NULL;
    if (a == NULL) {
      json_decref(answers);
      return NULL;
    }
    json_object_set_new(answers, key, a);
  }
  return answers;
}

json_t *mcp_test_client_await_task(mcp_test_client_t *c, const char *task_id,
                                   int timeout_ms) {
  if (c == NULL || task_id == NULL)
    return NULL;
  json_t *id = json_pack("{s:s}", "taskId", task_id);
  if (id == NULL)
    return NULL;
  if (!c->modern) { /* tasks/result waits for the end */
    json_t *r = mcp_test_client_request(c, "tasks/result", id);
    json_decref(id);
    return r;
  }
  int64_t deadline =
      mcp__monotonic_ms() + (timeout_ms > 0 ? timeout_ms : 30000);
  for (;;) {
    json_t *r = mcp_test_client_request(c, "tasks/get", id);
    json_t *task = json_object_get(r, "result");
    const char *status = json_string_value(json_object_get(task, "status"));
    if (status == NULL || strcmp(status, "completed") == 0 ||
        strcmp(status, "failed") == 0 || strcmp(status, "cancelled") == 0 ||
        mcp__monotonic_ms() > deadline) {
      json_decref(id);
      return r;
    }
    if (strcmp(status, "input_required") == 0 &&
        json_object_size(json_object_get(task, "inputRequests")) > 0) {
      json_t *answers =
          answer_all(c, json_object_get(task, "inputRequests"));
      if (answers == NULL) {
        json_decref(id);
        return r;
      }
      json_t *update = json_pack("{s:s,s:o}", "taskId", task_id,
                                 "inputResponses", answers);
      json_t *ack = update ? mcp_test_client_request(c, "tasks/update", update)
                           : NULL;
      json_decref(update);
      json_decref(ack);
    } else {
      struct timespec pause = {0, 2 * 1000 * 1000};
      nanosleep(&pause, NULL);
    }
    json_decref(r);
  }
}

json_t *mcp_test_client_list_tools(mcp_test_client_t *c) {
  return mcp_test_client_request(c, "tools/list", NULL);
}

static json_t *named(mcp_test_client_t *c, const char *method,
                     const char *key, const char *name,
                     const json_t *arguments) {
  if (c == NULL || name == NULL)
    return NULL;
  json_t *p = json_pack("{s:s}", key, name);
  if (p != NULL && arguments != NULL)
    json_object_set_new(p, "arguments", json_deep_copy(arguments));
  json_t *r = p ? mcp_test_client_request(c, method, p) : NULL;
  json_decref(p);
  return r;
}

json_t *mcp_test_client_call_tool(mcp_test_client_t *c, const char *name,
                                  const json_t *arguments) {
  if (arguments == NULL) {
    json_t *empty = json_object();
    json_t *r = named(c, "tools/call", "name", name, empty);
    json_decref(empty);
    return r;
  }
  return named(c, "tools/call", "name", name, arguments);
}

json_t *mcp_test_client_read_resource(mcp_test_client_t *c, const char *uri) {
  return named(c, "resources/read", "uri", uri, NULL);
}

json_t *mcp_test_client_get_prompt(mcp_test_client_t *c, const char *name,
                                   const json_t *arguments) {
  return named(c, "prompts/get", "name", name, arguments);
}

size_t mcp_test_client_questions(const mcp_test_client_t *c) {
  return c ? c->questions : 0;
}

const json_t *mcp_test_client_notifications(const mcp_test_client_t *c) {
  return c ? c->notifications : NULL;
}

void mcp_test_client_set_answer(mcp_test_client_t *c, mcp_test_answer_fn fn,
                                void *user_data) {
  if (c == NULL)
    return;
  c->answer = fn;
  c->answer_data = user_data;
}

static mcp_status initialize(mcp_test_client_t *c, mcp_error_t *err) {
  json_t *p = json_pack("{s:s,s:O,s:{s:s,s:s}}", "protocolVersion",
                        c->version, "capabilities", c->capabilities,
                        "clientInfo", "name", "mcp_test_client", "version",
                        "1");
  if (p == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  json_t *r = send_request(c, "initialize", p);
  json_t *e = json_object_get(r, "error");
  mcp_status st = MCP_OK;
  if (r == NULL || e != NULL)
    st = mcp_error_set(err, MCP_ERR_PEER, "initialize failed: %s",
                       e ? json_string_value(json_object_get(e, "message"))
                         : "no response");
  json_decref(r);
  if (st == MCP_OK) {
    json_t *none = exchange(
        c, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    json_decref(none);
  }
  return st;
}

mcp_status mcp_test_client_new(mcp_server_t *server,
                               const char *protocol_version,
                               const json_t *capabilities,
                               mcp_test_client_t **out, mcp_error_t *err) {
  if (out != NULL)
    *out = NULL;
  if (server == NULL || out == NULL)
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "mcp_test_client_new: the %s is NULL",
                         server == NULL ? "server" : "out pointer");
  const char *version = protocol_version ? protocol_version : "2026-07-28";
  if (!mcp__version_is_supported(version) &&
      !mcp__version_is_modern(version))
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "mcp_test_client_new: protocol version '%.64s' is "
                         "not one this library serves",
                         version);
  if (capabilities != NULL && !json_is_object(capabilities))
    return mcp_error_set(err, MCP_ERR_INVALID_ARG,
                         "mcp_test_client_new: capabilities must be an object");
  mcp_status st = mcp__server_start_serving(server, err);
  if (st != MCP_OK)
    return st;
  mcp_test_client_t *c = calloc(1, sizeof *c);
  if (c == NULL)
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  c->server = server;
  c->version = strdup(version);
  c->modern = mcp__version_is_modern(version);
  c->capabilities =
      capabilities ? json_deep_copy(capabilities) : json_object();
  c->notifications = json_array();
  inbox_init(&c->notify);
  if (c->version == NULL || c->capabilities == NULL ||
      c->notifications == NULL) {
    mcp_test_client_free(c);
    return mcp_error_set(err, MCP_ERR_NOMEM, "out of memory");
  }
  if (!c->modern) {
    st = mcp__session_new(server, inbox_channel(&c->notify), &c->session);
    if (st == MCP_OK)
      st = initialize(c, err);
    else
      mcp_error_set(err, st, "cannot open a session: %s", mcp_strerror(st));
    if (st != MCP_OK) {
      mcp_test_client_free(c);
      return st;
    }
  }
  *out = c;
  return MCP_OK;
}

void mcp_test_client_free(mcp_test_client_t *c) {
  if (c == NULL)
    return;
  if (c->session != NULL) {
    mcp__session_close(c->session);
    mcp__session_release(c->session);
  }
  inbox_destroy(&c->notify);
  json_decref(c->notifications);
  json_decref(c->capabilities);
  free(c->version);
  free(c);
}
