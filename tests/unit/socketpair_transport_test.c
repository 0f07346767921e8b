/* SPDX-License-Identifier: MIT */
/* socketpair_transport_test.c - the transport contract (core/channel.h) in
 * one small transport: newline-delimited JSON-RPC over a socketpair, a
 * reader thread and one worker. It names no MCP method: the core says where
 * each message is accepted and where its call runs. */
#include "testutil.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/dispatch.h"

typedef struct job {
  mcp_call_t *call; /* queued by the core, or NULL: accept bytes first */
  char *bytes;      /* and len: the line, for a worker to accept */
  size_t len;
} job;

typedef struct xport {
  mcp_server_t *server;
  mcp_session_t *session;
  int fd;
  pthread_mutex_t lock; /* writes to fd, the queue, inflight */
  pthread_cond_t cond;
  job queue[64];
  size_t queued;
  int inflight;
  bool stop;
} xport;

/* 4. send and done: one line per message, from any thread. */
static mcp_status x_send(void *ctx, const char *msg, size_t len, unsigned f) {
  xport *x = ctx;
  (void)f;
  pthread_mutex_lock(&x->lock);
  bool ok = write(x->fd, msg, len) == (ssize_t)len && write(x->fd, "\n", 1) == 1;
  pthread_mutex_unlock(&x->lock);
  return ok ? MCP_OK : MCP_ERR_IO;
}
static void x_done(void *ctx) {
  xport *x = ctx;
  pthread_mutex_lock(&x->lock);
  x->inflight--;
  pthread_cond_broadcast(&x->cond);
  pthread_mutex_unlock(&x->lock);
}

/* 2. accept bytes (a request counts in flight until its done) */
static bool x_accept(xport *x, const char *b, size_t n,
                     const mcp__prescan *scan, mcp_call_t **call) {
  pthread_mutex_lock(&x->lock), x->inflight++, pthread_mutex_unlock(&x->lock);
  mcp__channel reply = {x_send, x_done, x, x, .pins_session = true};
  if (mcp__server_accept_scanned(x->server, x->session, NULL, b, n, scan,
                                 reply, call) == MCP__ACCEPT_REQUEST)
    return true;
  x_done(x); /* not a request: the channel was never taken */
  return false;
}

/* 3. run: the worker's side of the runner */
static bool x_push(xport *x, job j) {
  pthread_mutex_lock(&x->lock);
  bool room = x->queued < 64;
  if (room)
    x->queue[x->queued++] = j;
  pthread_cond_broadcast(&x->cond);
  pthread_mutex_unlock(&x->lock);
  return room;
}
static bool x_queue(void *ctx, mcp_call_t *call) { /* the runner's */
  return x_push(ctx, (job){call, NULL, 0});
}
static void *x_worker(void *arg) {
  xport *x = arg;
  mcp__runner worker = {.any_thread = true};
  pthread_mutex_lock(&x->lock);
  while (x->queued > 0 || !x->stop) {
    if (x->queued == 0) {
      pthread_cond_wait(&x->cond, &x->lock);
      continue;
    }
    job j = x->queue[0];
    memmove(x->queue, x->queue + 1, --x->queued * sizeof *x->queue);
    pthread_mutex_unlock(&x->lock);
    if (j.call || x_accept(x, j.bytes, j.len, NULL, &j.call))
      mcp__call_run_queued(j.call, &worker);
    free(j.bytes);
    pthread_mutex_lock(&x->lock);
  }
  pthread_mutex_unlock(&x->lock);
  return NULL;
}

/* 2 and 3 on the reader: the core's triage, then its schedule. */
static void x_line(xport *x, const char *line, size_t len) {
  mcp__prescan scan;
  mcp__tape tape;
  mcp__jsonrpc_scan(line, len, &tape, &scan);
  mcp__triage t = mcp__server_triage(x->server, &scan);
  char *copy = t.at_once || t.cheap ? NULL : strndup(line, len);
  if (copy == NULL || !x_push(x, (job){NULL, copy, len})) {
    free(copy);
    mcp_call_t *call;
    mcp__runner reader = {.queue = x_queue, .ctx = x, .any_thread = true};
    if (x_accept(x, line, len, &scan, &call))
      mcp__call_schedule(call, &reader);
  }
  mcp__tape_release(&tape);
}

/* 1 and 5: make the session, serve until input ends, close. */
static void x_serve(mcp_server_t *s, int fd) {
  xport x = {.server = s, .fd = fd};
  assert_int_equal(mcp__server_start_serving(s, NULL), MCP_OK);
  pthread_mutex_init(&x.lock, NULL), pthread_cond_init(&x.cond, NULL);
  mcp__channel notify = {x_send, NULL, &x, &x, false};
  assert_int_equal(mcp__session_new(s, notify, &x.session), MCP_OK);
  pthread_t worker;
  pthread_create(&worker, NULL, x_worker, &x);
  char buf[65536];
  size_t have = 0;
  ssize_t got;
  while ((got = read(fd, buf + have, sizeof buf - have)) > 0) {
    have += (size_t)got;
    char *nl;
    while ((nl = memchr(buf, '\n', have)) != NULL) {
      x_line(&x, buf, (size_t)(nl - buf));
      have -= (size_t)(nl + 1 - buf);
      memmove(buf, nl + 1, have);
    }
  }
  mcp__server_channel_gone(s, &x);
  mcp__session_input_closed(x.session);
  pthread_mutex_lock(&x.lock);
  x.stop = true; /* the worker runs what is queued, then ends */
  pthread_cond_broadcast(&x.cond);
  pthread_mutex_unlock(&x.lock);
  pthread_join(worker, NULL);
  pthread_mutex_lock(&x.lock);
  while (x.inflight > 0) /* calls a task or a listen stream still holds */
    pthread_cond_wait(&x.cond, &x.lock);
  pthread_mutex_unlock(&x.lock);
  mcp__session_close(x.session), mcp__session_release(x.session);
  pthread_mutex_destroy(&x.lock), pthread_cond_destroy(&x.cond);
}

/* ---- the test: a client on the other end of the socketpair -------------- */

typedef struct served {
  mcp_server_t *server;
  int fd;
  pthread_t reader; /* the thread in x_serve */
} served;

/* a + b, and which thread ran it: the reader or the worker */
static mcp_status add_tool(mcp_call_t *call, json_t *args, mcp_result_t *r,
                           void *ud) {
  (void)call;
  mcp_result_add_textf(
      r, "%lld",
      (long long)(json_integer_value(json_object_get(args, "a")) +
                  json_integer_value(json_object_get(args, "b"))));
  const served *sv = ud;
  mcp_result_add_text(r, pthread_equal(pthread_self(), sv->reader) ? "reader"
                                                                   : "worker");
  return MCP_OK;
}

static void *serve_main(void *arg) {
  served *sv = arg;
  sv->reader = pthread_self(); /* before any call runs */
  x_serve(sv->server, sv->fd);
  return NULL;
}

/* Which thread ran the tools/call answered by m. */
static const char *ran_on(const json_t *m) {
  json_t *c = json_object_get(json_object_get(m, "result"), "content");
  return json_string_value(json_object_get(json_array_get(c, 1), "text"));
}

/* The next line the server wrote, parsed. */
static json_t *next_message(FILE *in) {
  char line[4096];
  assert_non_null(fgets(line, sizeof line, in));
  json_t *msg = json_loads(line, 0, NULL);
  assert_non_null(msg);
  return msg;
}

/* initialize, a pipelined burst of tools/call (on the worker while the
 * tool is learnt, later ones wherever the core says), ping, an unknown
 * method: every request answered once, in the session initialize made.
 * Then calls one at a time: once the tool has proven cheap, one runs on
 * the reader. */
static void test_initialize_and_call(void **state) {
  (void)state;
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("pair", "1", &s), MCP_OK);
  mcp_tool_t *t = NULL;
  assert_int_equal(mcp_tool_new("add", &t), MCP_OK);
  served sv = {.server = s};
  mcp_tool_set_handler(t, add_tool, &sv, NULL);
  assert_int_equal(mcp_server_add_tool(s, t, NULL), MCP_OK);
  int fds[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  sv.fd = fds[1];
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, serve_main, &sv), 0);
  FILE *in = fdopen(dup(fds[0]), "r");
  dprintf(fds[0], "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
                  "\"params\":{\"protocolVersion\":\"2025-11-25\","
                  "\"capabilities\":{},\"clientInfo\":{\"name\":\"c\","
                  "\"version\":\"1\"}}}\n"
                  "{\"jsonrpc\":\"2.0\",\"method\":"
                  "\"notifications/initialized\"}\n");
  json_t *m = next_message(in);
  assert_string_equal(json_string_value(json_object_get(
                          json_object_get(m, "result"), "protocolVersion")),
                      "2025-11-25");
  json_decref(m);
  enum { CALLS = 40 };
  for (int i = 1; i <= CALLS; i++)
    dprintf(fds[0], "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":"
                    "\"tools/call\",\"params\":{\"name\":\"add\","
                    "\"arguments\":{\"a\":%d,\"b\":2}}}\n", i, i);
  dprintf(fds[0], "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n"
                  "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"no/such\"}\n",
          CALLS + 1, CALLS + 2);
  bool seen[CALLS + 3] = {false};
  for (int n = 0; n < CALLS + 2; n++) {
    m = next_message(in);
    int id = (int)json_integer_value(json_object_get(m, "id"));
    assert_true(id >= 1 && id <= CALLS + 2 && !seen[id]);
    seen[id] = true;
    json_t *result = json_object_get(m, "result");
    if (id <= CALLS) {
      char want[16];
      snprintf(want, sizeof want, "%d", id + 2);
      json_t *c = json_array_get(json_object_get(result, "content"), 0);
      assert_string_equal(json_string_value(json_object_get(c, "text")), want);
    } else if (id == CALLS + 1) {
      assert_non_null(result); /* ping: {} */
    } else {
      assert_int_equal(tu_error_code(m), MCP_RPC_METHOD_NOT_FOUND);
    }
    json_decref(m);
  }
  bool on_reader = false;
  for (int i = 0; i < 500 && !on_reader; i++) {
    dprintf(fds[0], "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
                    "\"tools/call\",\"params\":{\"name\":\"add\","
                    "\"arguments\":{\"a\":1,\"b\":2}}}\n");
    m = next_message(in);
    on_reader = strcmp(ran_on(m), "reader") == 0;
    json_decref(m);
  }
  assert_true(on_reader);
  shutdown(fds[0], SHUT_WR); /* input ends: the transport closes */
  assert_int_equal(pthread_join(th, NULL), 0);
  fclose(in);
  close(fds[0]);
  close(fds[1]);
  mcp_server_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_initialize_and_call),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
