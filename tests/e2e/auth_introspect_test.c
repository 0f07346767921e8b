/* SPDX-License-Identifier: MIT */
/* auth_introspect_test.c - token introspection (RFC 7662) never holds the
 * HTTP transport's network threads. An introspection endpoint on 127.0.0.1
 * (hang_as.h) that accepts connections and never answers: a request whose
 * token it must judge gets 503 with Retry-After within the introspection
 * deadline (4 s, below the 10 s request deadline), while on other
 * connections token-less requests (401), metadata GETs and requests with a
 * cached token are answered at once, also while four connections keep
 * sending tokens no cache holds; failures are backed off (503 at once);
 * requests with the same token share one introspection; a client that
 * leaves while its token is introspected, and a server that stops, wait
 * for nothing. While the endpoint answers, a request parked for its
 * introspection is resumed and its body read then: with Expect:
 * 100-continue (the 100 comes after the admission) and with a pipelined
 * request behind it on the same connection, and from a client that shut
 * its sending side after the whole request. */
#include <stdatomic.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "http_fixture.h"
#include "mini_as.h"
#include "hang_as.h"
#pragma GCC diagnostic pop
#include "mcp/auth.h"

#define RESOURCE "https://mcp.example.test/mcp"
/* Other connections are answered within FAST_MS while an introspection
 * hangs; a shared machine (and a sanitizer build) has hiccups: a few may
 * take longer, none near an introspection's stall (4 s and more when it
 * runs on the network thread). */
#define FAST_MS 100
#define SLOW_ALLOWED 3
#define NEVER_MS 1000
/* A token request waits at most for the introspection deadline (4 s). */
#define DEADLINE_MS 4000

/* The endpoint: tokens "good*" are active (subject: the token), "slow*"
 * the same after 300 ms, anything else inactive. */
static char *intro_answer(mini_as *as, const char *method, const char *path,
                          const char *body, int *status) {
  (void)as, (void)method;
  *status = 200;
  if (strcmp(path, "/introspect") != 0)
    return NULL;
  const char *t = strstr(body, "token=");
  if (t == NULL) {
    *status = 400;
    return strdup("{}");
  }
  t += 6;
  int n = (int)strcspn(t, "&");
  if (strncmp(t, "slow", 4) == 0)
    sleep_ms(300);
  json_t *doc =
      strncmp(t, "good", 4) == 0 || strncmp(t, "slow", 4) == 0
          ? json_pack("{s:b,s:s#,s:s,s:s,s:I}", "active", 1, "sub", t, n,
                      "scope", "mcp:tools", "aud", RESOURCE, "exp",
                      (json_int_t)time(NULL) + 3600)
          : json_pack("{s:b}", "active", 0);
  char *out = json_dumps(doc, JSON_COMPACT);
  json_decref(doc);
  return out;
}

static mcp_auth_t *introspecting_auth(const hang_as *as) {
  char url[80];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/introspect", as->port);
  mcp_auth_t *a = NULL;
  assert_int_equal(mcp_auth_new(RESOURCE, &a), MCP_OK);
  assert_int_equal(mcp_auth_set_introspection(a, url, "rs", "secret"), MCP_OK);
  return a;
}

/* What every case starts: an introspection endpoint (answering at once,
 * or accepting and never answering when hang), a resource server asking
 * it, an HTTP server using that. */
typedef struct world {
  hang_as as;
  mcp_auth_t *a;
  fixture f;
} world;

static void world_start(world *w, bool hang) {
  hang_start(&w->as, intro_answer, NULL, hang);
  w->a = introspecting_auth(&w->as);
  serve_whoami(&w->f, "auth-introspect-test", w->a);
}

/* Stops the HTTP server, then the resource server (which ends transfers
 * under way: at once, even with the endpoint hanging), then the endpoint. */
static void world_end(world *w) {
  fixture_stop(&w->f);
  int64_t t0 = now_ms();
  mcp_auth_free(w->a);
  assert_true(now_ms() - t0 < 2000);
  hang_stop(&w->as);
}

/* A request on its own thread. */
typedef struct pending {
  pthread_t thread;
  int port;
  const char *token;
  answer a;
} pending;

static void *pending_main(void *arg) {
  pending *p = arg;
  p->a = request(p->port, p->token, NULL);
  return NULL;
}

static void pending_start(pending *p, int port, const char *token) {
  *p = (pending){0, port, token, {0, "", 0}};
  pthread_create(&p->thread, NULL, pending_main, p);
}

static void test_hanging_endpoint(void **state) {
  (void)state;
  world w;
  world_start(&w, false);

  /* while it answers: introspected once (the request parked meanwhile,
   * its body read after), then served from the cache */
  answer t = request(w.f.port, "good-cached", NULL);
  assert_int_equal(t.status, 200);
  assert_int_equal(atomic_load(&w.as.accepted), 1);
  t = request(w.f.port, "good-cached", NULL);
  assert_int_equal(t.status, 200);
  assert_int_equal(atomic_load(&w.as.accepted), 1);

  atomic_store(&w.as.hang, true);
  pending waiter;
  pending_start(&waiter, w.f.port, "good-fresh");
  /* four connections of tokens no cache holds */
  atomic_bool stop = false;
  spammer sp[4];
  static const char *const prefix[4] = {"made-up-a", "made-up-b", "made-up-c",
                                        "made-up-d"};
  for (int i = 0; i < 4; i++) {
    sp[i] = (spammer){0, w.f.port, prefix[i], &stop, 0, 0, 0, true,
                      DEADLINE_MS + 2000};
    /* one after the other: each network loop gets some (a loop accepts
     * the connections waiting when it looks) */
    sleep_ms(40);
    pthread_create(&sp[i].thread, NULL, spam_main, &sp[i]);
  }
  sleep_ms(100);
  /* meanwhile nothing else waits: token-less, metadata, cached token */
  int64_t t0 = now_ms(), worst = 0;
  int slow = 0, rounds = 0;
  while (now_ms() - t0 < 3000) {
    int s = 0;
    int64_t keyless = slowest_keyless(w.f.port, 1, FAST_MS, &s);
    answer c = request(w.f.port, "good-cached", NULL);
    assert_int_equal(c.status, 200);
    s += c.ms >= FAST_MS;
    worst = keyless > worst ? keyless : worst;
    worst = c.ms > worst ? c.ms : worst;
    slow += s;
    rounds++;
  }
  pthread_join(waiter.thread, NULL);
  atomic_store(&stop, true);
  print_message("hanging introspection: token request %d in %lld ms "
                "(Retry-After %s); other connections: slowest %lld ms, %d of "
                "%d over %d ms\n",
                waiter.a.status, (long long)waiter.a.ms, waiter.a.retry_after,
                (long long)worst, slow, rounds * 3, FAST_MS);
  assert_int_equal(waiter.a.status, 503);
  assert_true(atoi(waiter.a.retry_after) >= 1);
  assert_true(waiter.a.ms >= DEADLINE_MS - 500);
  assert_true(waiter.a.ms < DEADLINE_MS + 1000); /* request deadline: 10 s */
  assert_true(rounds >= 10);
  assert_true(slow <= SLOW_ALLOWED);
  assert_true(worst < NEVER_MS);

  /* backed off: a token no cache holds is refused at once */
  int before = atomic_load(&w.as.accepted);
  t = request(w.f.port, "good-later", NULL);
  print_message("backed off: %d in %lld ms (Retry-After %s)\n", t.status,
                (long long)t.ms, t.retry_after);
  assert_int_equal(t.status, 503);
  assert_true(t.ms < 500);
  assert_true(atoi(t.retry_after) >= 1);
  assert_int_equal(atomic_load(&w.as.accepted), before);

  int sent = 0;
  for (int i = 0; i < 4; i++) {
    pthread_join(sp[i].thread, NULL);
    sent += sp[i].sent;
    assert_int_equal(sp[i].slow, 0);
    assert_int_equal(sp[i].other, 0);
  }
  print_message("%d made-up tokens answered, %d introspection connections\n",
                sent, atomic_load(&w.as.accepted));
  /* at most MCP__INTROSPECTORS (4) transfers hang at a time, and none
   * starts while backed off */
  assert_true(atomic_load(&w.as.accepted) <= 1 + 4);

  world_end(&w);
}

/* Requests with the same token wait for one introspection. */
static void test_same_token_one_introspection(void **state) {
  (void)state;
  world w;
  world_start(&w, true);
  pending p[6];
  for (int i = 0; i < 6; i++)
    pending_start(&p[i], w.f.port, "good-shared");
  for (int i = 0; i < 6; i++) {
    pthread_join(p[i].thread, NULL);
    assert_int_equal(p[i].a.status, 503);
    assert_true(p[i].a.ms < DEADLINE_MS + 1000);
  }
  assert_int_equal(atomic_load(&w.as.accepted), 1);
  world_end(&w);
}

/* A client that leaves while its token is introspected, and a server
 * stopped with one waiting: nothing waits for the hanging endpoint. */
static void test_leaving_while_introspected(void **state) {
  (void)state;
  world w;
  world_start(&w, true);
  tc_conn c;
  char hdr[256];
  snprintf(hdr, sizeof hdr, "%sAuthorization: Bearer good-gone\r\n", ACCEPT);
  assert_false(tc_open(&c, w.f.port, "POST", "/mcp", hdr, "{}", 200));
  tc_close(&c); /* gone before the answer */
  answer t = request(w.f.port, NULL, NULL);
  assert_int_equal(t.status, 401);
  assert_true(t.ms < NEVER_MS);
  /* one more waits while the server stops */
  assert_false(tc_open(&c, w.f.port, "POST", "/mcp", hdr, "{}", 200));
  int64_t t0 = now_ms();
  fixture_stop(&w.f);
  print_message("server stop with a request waiting: %lld ms\n",
                (long long)(now_ms() - t0));
  /* drained like any request in flight (2 s), not held for the
   * introspection deadline or a hanging transfer */
  assert_true(now_ms() - t0 < 3000);
  tc_close(&c);
  mcp_auth_free(w.a);
  hang_stop(&w.as);
}

/* Reads from fd until text has appeared `times` times or timeout_ms pass;
 * returns how many times it appeared. */
static int read_until(int fd, char *buf, size_t cap, const char *text,
                      int times, int timeout_ms) {
  size_t len = 0;
  int64_t end = now_ms() + timeout_ms;
  int seen = 0;
  buf[0] = '\0';
  while (seen < times && now_ms() < end && len < cap - 1) {
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0)
      continue;
    ssize_t n = read(fd, buf + len, cap - 1 - len);
    if (n <= 0)
      break;
    len += (size_t)n;
    buf[len] = '\0';
    seen = 0;
    for (const char *s = buf; (s = strstr(s, text)) != NULL; s++)
      seen++;
  }
  return seen;
}

#define CALL_BODY                                                              \
  "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","                   \
  "\"params\":{\"name\":\"whoami\",\"arguments\":{},"                          \
  "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"                    \
  "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}"

static int call_head(char *out, size_t n, int port, const char *token,
                     const char *extra) {
  return snprintf(out, n,
                  "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%s"
                  "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call"
                  "\r\nMcp-Name: whoami\r\nContent-Type: application/json\r\n"
                  "Authorization: Bearer %s\r\n%sContent-Length: %zu\r\n\r\n",
                  port, ACCEPT, token, extra, strlen(CALL_BODY));
}

/* The endpoint answers after 300 ms: the request is parked at its head
 * meanwhile, then its body is read (after a 100 Continue, or from the
 * bytes that came with the head, a pipelined request behind them). */
static void test_body_read_after_introspection(void **state) {
  (void)state;
  world w;
  world_start(&w, false);
  char head[1024], buf[16384];

  /* Expect: 100-continue: the 100 comes once the token is admitted */
  int fd = tc_connect(w.f.port);
  assert_true(fd >= 0);
  int n = call_head(head, sizeof head, w.f.port, "slow-continue",
                    "Expect: 100-continue\r\n");
  assert_int_equal(write(fd, head, (size_t)n), n);
  int64_t t0 = now_ms();
  answer other = request(w.f.port, NULL, NULL); /* not held up meanwhile */
  assert_int_equal(other.status, 401);
  assert_true(other.ms < NEVER_MS);
  assert_int_equal(read_until(fd, buf, sizeof buf, "100 Continue", 1, 3000),
                   1);
  assert_true(now_ms() - t0 >= 250);
  assert_int_equal(write(fd, CALL_BODY, strlen(CALL_BODY)),
                   (ssize_t)strlen(CALL_BODY));
  assert_int_equal(read_until(fd, buf, sizeof buf, "sub=slow-continue", 1,
                              3000),
                   1);
  assert_non_null(strstr(buf, "HTTP/1.1 200"));
  close(fd);

  /* head, body and a second request in one write */
  fd = tc_connect(w.f.port);
  assert_true(fd >= 0);
  char two[8192];
  size_t len = 0;
  for (int i = 0; i < 2; i++) {
    len += (size_t)call_head(two + len, sizeof two - len, w.f.port,
                             "slow-pipelined", "");
    memcpy(two + len, CALL_BODY, strlen(CALL_BODY));
    len += strlen(CALL_BODY);
  }
  assert_int_equal(write(fd, two, len), (ssize_t)len);
  assert_int_equal(read_until(fd, buf, sizeof buf, "sub=slow-pipelined", 2,
                              5000),
                   2);
  close(fd);

  /* the whole request, then the client shuts its sending side: answered
   * all the same (the end of its input is met once the body is read) */
  fd = tc_connect(w.f.port);
  assert_true(fd >= 0);
  len = (size_t)call_head(two, sizeof two, w.f.port, "slow-halfclose", "");
  memcpy(two + len, CALL_BODY, strlen(CALL_BODY));
  len += strlen(CALL_BODY);
  assert_int_equal(write(fd, two, len), (ssize_t)len);
  assert_int_equal(shutdown(fd, SHUT_WR), 0);
  assert_int_equal(read_until(fd, buf, sizeof buf, "sub=slow-halfclose", 1,
                              5000),
                   1);
  assert_non_null(strstr(buf, "HTTP/1.1 200"));
  close(fd);
  assert_int_equal(atomic_load(&w.as.accepted), 3);
  world_end(&w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hanging_endpoint),
      cmocka_unit_test(test_same_token_one_introspection),
      cmocka_unit_test(test_leaving_while_introspected),
      cmocka_unit_test(test_body_read_after_introspection),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
