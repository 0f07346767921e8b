/* SPDX-License-Identifier: MIT */
/* hang_as.h - what the tests of a slow or dead authorization server share
 * (auth_fetch_test.c: key fetches, auth_introspect_test.c: token
 * introspection): an authorization server on 127.0.0.1 that answers
 * through a mini_as callback until told to hang, then accepts each
 * connection and keeps it open without a byte; and timed requests to the
 * server under test (a 2026-07-28 tools/call of "whoami", or a GET).
 * Include after http_fixture.h and mini_as.h. Header-only (one executable
 * per *_test.c). */
#ifndef MCP_TEST_HANG_AS_H
#define MCP_TEST_HANG_AS_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- an authorization server that may hang ------------------------------ */

typedef struct hang_as {
  mini_as as; /* its answering function and counters; not its thread */
  int fd, port;
  pthread_t thread;
  atomic_bool stop, hang;
  atomic_int accepted; /* connections so far, answered or held */
  int held[256];
  int nheld;
} hang_as;

static void *hang_main(void *arg) {
  hang_as *h = arg;
  while (!atomic_load(&h->stop)) {
    struct pollfd p = {h->fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0)
      continue;
    int c = accept(h->fd, NULL, NULL);
    if (c < 0)
      continue;
    atomic_fetch_add(&h->accepted, 1);
    if (atomic_load(&h->hang) && h->nheld < 256) {
      h->held[h->nheld++] = c; /* never answered */
      continue;
    }
    mini_as_serve_one(&h->as, c);
    close(c);
  }
  return NULL;
}

/* Starts h answering through fn (its mini_as's ud is ud, or h when ud is
 * NULL), hanging from the start when hang. */
static void hang_start(hang_as *h, mini_as_fn fn, void *ud, bool hang) {
  memset(h, 0, sizeof *h);
  h->as.fn = fn;
  h->as.ud = ud ? ud : h;
  atomic_store(&h->hang, hang);
  h->fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t al = sizeof a;
  if (bind(h->fd, (struct sockaddr *)&a, sizeof a) != 0 ||
      listen(h->fd, 64) != 0 ||
      getsockname(h->fd, (struct sockaddr *)&a, &al) != 0)
    abort();
  h->port = ntohs(a.sin_port);
  pthread_create(&h->thread, NULL, hang_main, h);
}

static void hang_stop(hang_as *h) {
  atomic_store(&h->stop, true);
  pthread_join(h->thread, NULL);
  for (int i = 0; i < h->nheld; i++)
    close(h->held[i]);
  close(h->fd);
}

/* ---- timed requests -------------------------------------------------------
 */

/* The tool the requests call: answers with the caller's subject. */
static mcp_status whoami(mcp_call_t *call, json_t *args, mcp_result_t *r,
                         void *ud) {
  (void)args;
  (void)ud;
  mcp_result_add_textf(r, "sub=%s", mcp_call_subject(call));
  return MCP_OK;
}

/* The server under test: "whoami" over HTTP, its bearer tokens checked by
 * the resource server a. */
static void serve_whoami(fixture *f, const char *name, mcp_auth_t *a) {
  fixture_new_server(f, name);
  add_tool(f->server, "whoami", whoami, MCP_TASK_FORBIDDEN);
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_auth(o, a), MCP_OK);
  fixture_serve(f, o);
}

typedef struct answer {
  int status;
  char retry_after[32];
  int64_t ms; /* time to the whole answer */
} answer;

/* One request (a 2026-07-28 tools/call of whoami, or a GET of path when
 * path is not NULL) with an optional bearer token; timed. */
static answer request(int port, const char *token, const char *get_path) {
  char hdr[4096];
  snprintf(hdr, sizeof hdr,
           "%sMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n"
           "Mcp-Name: whoami\r\n%s%s%s",
           ACCEPT, token ? "Authorization: Bearer " : "", token ? token : "",
           token ? "\r\n" : "");
  const char *body =
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
      "\"params\":{\"name\":\"whoami\",\"arguments\":{},"
      "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
      "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
  answer a = {0, "", 0};
  int64_t t0 = now_ms();
  tc_conn c;
  if (tc_open(&c, port, get_path ? "GET" : "POST", get_path ? get_path : "/mcp",
              hdr, get_path ? NULL : body, 15000) &&
      tc_read_body(&c, 15000)) {
    a.status = c.status;
    if (!tc_header(&c, "Retry-After", a.retry_after, sizeof a.retry_after))
      a.retry_after[0] = '\0';
  }
  a.ms = now_ms() - t0;
  tc_close(&c);
  return a;
}

/* A connection that sends tokens one request after the other: token each
 * time, or, with distinct, "<token>-<n>" (a token no cache holds). */
typedef struct spammer {
  pthread_t thread;
  int port;
  const char *token;
  atomic_bool *stop;
  int sent, slow; /* answers; answers that took over slow_ms */
  int other;      /* answers neither 503 nor 401 */
  bool distinct;
  int slow_ms; /* 0: 2000 */
} spammer;

static void *spam_main(void *arg) {
  spammer *s = arg;
  char token[256];
  while (!atomic_load(s->stop)) {
    snprintf(token, sizeof token, "%.200s-%d", s->token, s->sent);
    answer a = request(s->port, s->distinct ? token : s->token, NULL);
    s->sent++;
    if (a.ms > (s->slow_ms ? s->slow_ms : 2000))
      s->slow++;
    if (a.status != 503 && a.status != 401)
      s->other++;
    sleep_ms(20);
  }
  return NULL;
}

/* Times n metadata GETs and n token-less POSTs; returns the slowest and
 * counts in *slow those that took fast_ms or more. */
static int64_t slowest_keyless(int port, int n, int fast_ms, int *slow) {
  int64_t worst = 0;
  *slow = 0;
  for (int i = 0; i < n; i++) {
    answer m = request(port, NULL, "/.well-known/oauth-protected-resource");
    assert_int_equal(m.status, 200);
    answer u = request(port, NULL, NULL);
    assert_int_equal(u.status, 401);
    *slow += (m.ms >= fast_ms) + (u.ms >= fast_ms);
    worst = m.ms > worst ? m.ms : worst;
    worst = u.ms > worst ? u.ms : worst;
    sleep_ms(30);
  }
  return worst;
}

#endif
