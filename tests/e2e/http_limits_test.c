/* SPDX-License-Identifier: MIT */
/* http_limits_test.c - issue #16 items 1 and 2: slow clients (slowloris)
 * neither hold every connection slot nor keep a connection past the
 * request deadline; per-address and total connection limits answer 429 and
 * 503 with Retry-After; SSE streams are limited per session and in total;
 * an open GET stream does not keep an idle session alive.
 *
 * Waits are bounded polls for a condition (the server's own counters, a
 * socket's end), never assertions on durations. */
#include "http_fixture.h"

#include <stddef.h>

#include "transport/http_internal.h"

#define SLOW_HEAD "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:"

/* A connection from src (e.g. "127.0.0.2") to 127.0.0.1:port. */
static int connect_from(const char *src, int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  assert_true(fd >= 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  inet_pton(AF_INET, src, &a.sin_addr);
  assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  a.sin_port = htons((uint16_t)port);
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
  return fd;
}

/* Opens n slow connections from src that send the start of a request head
 * and nothing more. */
static void open_slow(int *fds, int n, const char *src, int port) {
  for (int i = 0; i < n; i++) {
    fds[i] = connect_from(src, port);
    assert_true(write(fds[i], SLOW_HEAD, strlen(SLOW_HEAD)) > 0);
  }
}

static hs_limits_stats stats(fixture *f) {
  return mcp__hs_limits_stats(f->http->limits);
}

/* Polls (10 ms steps, at most 20 s) until the counter at offset (a size_t
 * of hs_limits_stats, e.g. offsetof(hs_limits_stats, evicted)) reaches n;
 * fails the test when it never does. */
static void wait_stat(fixture *f, size_t offset, size_t n) {
  size_t v = 0;
  for (int i = 0; i < 2000; i++) {
    hs_limits_stats st = stats(f);
    memcpy(&v, (const char *)&st + offset, sizeof v);
    if (v >= n)
      return;
    sleep_ms(10);
  }
  fail_msg("server counter at offset %zu stayed at %zu (< %zu)", offset, v, n);
}

/* Writes byte to fd every 50 ms (at most 400 times, 20 s) until the server
 * closes the connection; whether it did. */
static bool trickle_until_closed(int fd, char byte) {
  for (int i = 0; i < 400; i++) {
    sleep_ms(50);
    if (write(fd, &byte, 1) != 1)
      return true;
    struct pollfd p = {fd, POLLIN, 0};
    char c;
    if (poll(&p, 1, 0) > 0 && read(fd, &c, 1) <= 0)
      return true;
  }
  return false;
}

/* Whether the server closed fd (EOF or reset) within 20 s; bytes the
 * server sent first (a 503/429 answer) are skipped. */
static bool closed_by_server(int fd) {
  char buf[4096];
  for (int i = 0; i < 200; i++) {
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 100) > 0) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n <= 0)
        return true;
    }
  }
  return false;
}

/* Asks the client when called with {"ask":true} (keeps ask_client used). */
static mcp_status echo(mcp_call_t *call, json_t *args, mcp_result_t *r,
                       void *ud) {
  (void)ud;
  if (json_is_true(json_object_get(args, "ask")))
    json_decref(ask_client(call, "sure?", 1000, r));
  mcp_result_add_text(r, "ok");
  return MCP_OK;
}

/* One network thread: connections are accepted in the order they were
 * made, so the first slow connection is the longest-waiting one. */
/* Info lines the server logged (refusals, issue #26 item 1). */
typedef struct info_log {
  pthread_mutex_t lock;
  char text[16384];
} info_log;

static void keep_info(mcp_log_level l, const char *m, void *ud) {
  info_log *log = ud;
  if (l != MCP_LOG_INFO)
    return;
  pthread_mutex_lock(&log->lock);
  size_t used = strlen(log->text);
  if (used + strlen(m) + 2 <= sizeof log->text) { /* the first lines are kept */
    strcat(log->text, m);
    strcat(log->text, "\n");
  }
  pthread_mutex_unlock(&log->lock);
}

/* serve() with the info lines kept in log. */
static void serve_logged(fixture *f, mcp_http_options_t *o, info_log *log) {
  mcp_http_options_set_io_threads(o, 1);
  fixture_new_server(f, "limits");
  mcp_server_set_log_handler(f->server, keep_info, log);
  mcp_server_set_log_level(f->server, MCP_LOG_INFO);
  add_tool(f->server, "echo", echo, MCP_TASK_FORBIDDEN);
  fixture_serve(f, o);
}

/* Every server of this test logs its info lines into limits_log. */
static info_log limits_log = {PTHREAD_MUTEX_INITIALIZER, ""};

static void serve(fixture *f, mcp_http_options_t *o) {
  pthread_mutex_lock(&limits_log.lock);
  limits_log.text[0] = '\0';
  pthread_mutex_unlock(&limits_log.lock);
  serve_logged(f, o, &limits_log);
}

/* A normal client: initialize answered 200 with a session id. */
static void assert_served(int port) {
  char *body = NULL, sid[64];
  assert_int_equal(tc_do(port, "POST", ACCEPT, INIT, &body, sid), 200);
  assert_non_null(strstr(body, "\"result\""));
  assert_int_equal(strlen(sid), 36);
  free(body);
}

/* A server for slow clients with these connection limits (0: default);
 * the request deadline (120 s) is not the defence here. */
static void serve_slowloris(fixture *f, unsigned total, unsigned per_address) {
  mcp_http_options_t *o = base_options();
  if (total)
    assert_int_equal(mcp_http_options_set_max_connections(o, total), MCP_OK);
  if (per_address)
    assert_int_equal(
        mcp_http_options_set_max_connections_per_address(o, per_address),
        MCP_OK);
  mcp_http_options_set_request_timeout_ms(o, 120000);
  serve(f, o);
}

/* The end of a slowloris: a normal client is served, the first (longest
 * waiting) slow connection was displaced; then the n slow connections
 * close and the server stops. */
static void end_slowloris(fixture *f, int *fds, int n) {
  assert_served(f->port);
  assert_true(closed_by_server(fds[0]));
  for (int i = 0; i < n; i++)
    close(fds[i]);
  fixture_stop(f);
}

/* Slowloris against the total limit: more slow connections (from many
 * addresses, so the per-address limit plays no part) than the server
 * takes; a normal client is still served, because a new connection
 * displaces the one that has waited longest for its request. Fails without
 * the limits: the engine then takes connections until its own limit and
 * closes the rest unanswered. */
static void test_slowloris_total(void **state) {
  (void)state;
  fixture f;
  serve_slowloris(&f, 48, 0);
  enum { N = 96 };
  int fds[N];
  char src[32];
  for (int i = 0; i < N; i++) {
    snprintf(src, sizeof src, "127.0.1.%d", 1 + i % 32);
    open_slow(&fds[i], 1, src, f.port);
  }
  wait_stat(&f, offsetof(hs_limits_stats, connections), 48);
  assert_served(f.port);
  hs_limits_stats s = stats(&f);
  assert_true(s.evicted >= N - 48);
  assert_true(s.connections <= 48 + 1);
  end_slowloris(&f, fds, N); /* served again; the first ones displaced */
  if (strstr(limits_log.text, "http: closed 1 connection(s) still waiting "
                              "for a request to admit a new one") == NULL)
    fail_msg("no eviction logged at info:\n%s", limits_log.text);
}

/* Slowloris from one address: it never holds more than its share, and a
 * client from another address is served at once. */
static void test_slowloris_per_address(void **state) {
  (void)state;
  fixture f;
  serve_slowloris(&f, 0, 8);
  enum { N = 40 };
  int fds[N];
  open_slow(fds, N, "127.0.0.2", f.port);
  /* every connection beyond 8 displaced an older one of the address */
  wait_stat(&f, offsetof(hs_limits_stats, evicted), N - 8);
  assert_int_equal(stats(&f).evicted, N - 8);
  assert_true(stats(&f).connections <= 8);
  end_slowloris(&f, fds, N); /* served from 127.0.0.1 */
}

/* A head or body that trickles in is cut at the request deadline although
 * bytes keep arriving (the idle timeout never fires). Fails without the
 * deadline: the connection lives as long as bytes come. */
static void test_request_deadline(void **state) {
  (void)state;
  fixture f;
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_request_timeout_ms(o, 300), MCP_OK);
  serve(&f, o);
  char head[256];
  snprintf(head, sizeof head, SLOW_HEAD "%d\r\nX-Slow: ", f.port);
  int fd = connect_from("127.0.0.1", f.port);
  assert_true(write(fd, head, strlen(head)) > 0);
  assert_true(trickle_until_closed(fd, 'a'));
  close(fd);

  /* the body: head complete, body trickling */
  snprintf(head, sizeof head,
           SLOW_HEAD "%d\r\n" ACCEPT "Content-Type: application/json\r\n"
                     "Content-Length: 1000\r\n\r\n{",
           f.port);
  fd = connect_from("127.0.0.1", f.port);
  assert_true(write(fd, head, strlen(head)) > 0);
  assert_true(trickle_until_closed(fd, ' '));
  close(fd);
  assert_true(stats(&f).deadline_closed >= 2);
  assert_served(f.port);
  fixture_stop(&f);
  if (strstr(limits_log.text, "past the request deadline (300 ms)") == NULL)
    fail_msg("no deadline closing logged at info:\n%s", limits_log.text);
}

/* GET stream of session sid on c; asserts 200. */
static void open_get(tc_conn *c, int port, const char *sid) {
  char hdr[256];
  get_hdr(hdr, sizeof hdr, sid);
  assert_true(tc_open(c, port, "GET", "/mcp", hdr, NULL, 5000));
  assert_int_equal(c->status, 200);
}

static void assert_retry_after(tc_conn *c, int status) {
  char v[32];
  assert_int_equal(c->status, status);
  assert_non_null(tc_header(c, "Retry-After", v, sizeof v));
  assert_string_equal(v, "7");
}

/* When every connection of an address carries a stream (nothing to
 * displace), the next request gets 429 with Retry-After, logged at info. */
static void test_per_address_full_429(void **state) {
  (void)state;
  fixture f;
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_max_connections_per_address(o, 2),
                   MCP_OK);
  mcp_http_options_set_retry_after_s(o, 7);
  serve(&f, o);
  char a[64], b[64];
  open_session_expecting(f.port, "\"result\"", a);
  open_session_expecting(f.port, "\"result\"", b);
  tc_conn ga, gb, c;
  open_get(&ga, f.port, a);
  open_get(&gb, f.port, b);
  char hdr[256];
  session_hdr(hdr, sizeof hdr, a);
  assert_true(tc_open(&c, f.port, "POST", "/mcp", hdr,
                      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
                      5000));
  assert_retry_after(&c, 429);
  tc_close(&c);
  tc_close(&ga);
  tc_close(&gb);
  fixture_stop(&f);
  if (strstr(limits_log.text, "http: refused client=127.0.0.1:") == NULL ||
      strstr(limits_log.text,
             " status=429: Too many connections from this address") == NULL)
    fail_msg("no refusal logged at info:\n%s", limits_log.text);
}

/* Streams: a session beyond its share gets 429, the server beyond its
 * total 503, both with Retry-After. Fails without the limits (200). */
static void test_stream_limits(void **state) {
  (void)state;
  fixture f;
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_max_streams(o, 2), MCP_OK);
  assert_int_equal(mcp_http_options_set_max_streams_per_session(o, 1), MCP_OK);
  mcp_http_options_set_retry_after_s(o, 7);
  /* a suspended stream notices its client left at its next write */
  mcp_http_options_set_heartbeat_ms(o, 50);
  serve(&f, o);
  char a[64], b[64], c3[64];
  open_session_expecting(f.port, "\"result\"", a);
  open_session_expecting(f.port, "\"result\"", b);
  open_session_expecting(f.port, "\"result\"", c3);
  tc_conn ga, gb, x;
  open_get(&ga, f.port, a);
  char *ev = tc_next_event(&ga, 5000); /* the priming event */
  assert_non_null(ev);
  char id[64];
  event_field(ev, "id", id, sizeof id);
  free(ev);
  /* a second stream of session a (a resumption): 429 */
  char hdr[512];
  snprintf(hdr, sizeof hdr,
           "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\n"
           "Last-Event-ID: %s\r\n",
           a, id);
  assert_true(tc_open(&x, f.port, "GET", "/mcp", hdr, NULL, 5000));
  assert_retry_after(&x, 429);
  tc_close(&x);
  open_get(&gb, f.port, b);
  /* a third stream in all: 503 */
  get_hdr(hdr, sizeof hdr, c3);
  assert_true(tc_open(&x, f.port, "GET", "/mcp", hdr, NULL, 5000));
  assert_retry_after(&x, 503);
  tc_close(&x);
  /* a closed stream frees its slot (polls for at most 20 s) */
  tc_close(&gb);
  bool ok = false;
  for (int i = 0; i < 2000 && !ok; i++) {
    assert_true(tc_open(&x, f.port, "GET", "/mcp", hdr, NULL, 5000));
    ok = x.status == 200;
    tc_close(&x);
    if (!ok)
      sleep_ms(10);
  }
  assert_true(ok);
  tc_close(&ga);
  fixture_stop(&f);
}

/* An open GET stream does not keep its session past the idle timeout: the
 * session ends, the stream with it, and the id is unknown afterwards.
 * Fails without the fix: the stream counted as a request in progress. */
static void test_stream_does_not_keep_session(void **state) {
  (void)state;
  fixture f;
  mcp_http_options_t *o = base_options();
  mcp_http_options_set_session_idle_timeout_ms(o, 300);
  mcp_http_options_set_heartbeat_ms(o, 100);
  serve(&f, o);
  char sid[64];
  open_session_expecting(f.port, "\"result\"", sid);
  tc_conn g;
  open_get(&g, f.port, sid);
  /* events (heartbeats) until the stream ends: at most 200 of them */
  bool ended = false;
  for (int i = 0; i < 200 && !ended; i++) {
    char *ev = tc_next_event(&g, 1000);
    ended = ev == NULL && (g.ended || g.eof);
    free(ev);
  }
  assert_true(ended);
  tc_close(&g);
  char hdr[256];
  session_hdr(hdr, sizeof hdr, sid);
  assert_int_equal(tc_do(f.port, "POST", hdr,
                         "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
                         NULL, NULL),
                   404);
  fixture_stop(&f);
}

/* subscriptions/listen answers are long-lived SSE streams: they count, and
 * one beyond the total is refused 503 before it is parked. */
static void test_listen_streams_count(void **state) {
  (void)state;
  fixture f;
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_max_streams(o, 1), MCP_OK);
  serve(&f, o);
  const char *body =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\","
      "\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
      "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}},"
      "\"notifications\":{\"toolsListChanged\":true}}}";
  const char *hdr = ACCEPT "MCP-Protocol-Version: 2026-07-28\r\n"
                           "Mcp-Method: subscriptions/listen\r\n";
  tc_conn a, b;
  assert_true(tc_open(&a, f.port, "POST", "/mcp", hdr, body, 5000));
  assert_int_equal(a.status, 200);
  wait_stat(&f, offsetof(hs_limits_stats, streams), 1);
  assert_int_equal(stats(&f).streams, 1);
  assert_true(tc_open(&b, f.port, "POST", "/mcp", hdr, body, 5000));
  assert_int_equal(b.status, 503);
  tc_close(&b);
  tc_close(&a);
  fixture_stop(&f);
}

/* A GET stream on a connection whose receive buffer is small: what the
 * client does not read stays on the server's side. */
static void open_get_small(tc_conn *c, int port, const char *sid) {
  memset(c, 0, sizeof *c);
  c->content_length = -1;
  c->fd = socket(AF_INET, SOCK_STREAM, 0);
  int small = 4096;
  setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  assert_int_equal(connect(c->fd, (struct sockaddr *)&a, sizeof a), 0);
  char hdr[256], host[32];
  get_hdr(hdr, sizeof hdr, sid);
  snprintf(host, sizeof host, "127.0.0.1:%d", port);
  assert_true(tc_write_request(c->fd, host, "GET", "/mcp", hdr, NULL));
  assert_true(tc_read_head(c, 5000));
  assert_int_equal(c->status, 200);
}

/* Bytes all streams of the server hold for their connections. */
static size_t streams_backlog(fixture *f) {
  size_t n = 0;
  pthread_mutex_lock(&f->http->streams_lock);
  for (hs_stream *st = f->http->streams; st; st = st->next) {
    pthread_mutex_lock(&st->lock);
    n += st->out.len - st->out_off;
    pthread_mutex_unlock(&st->lock);
  }
  pthread_mutex_unlock(&f->http->streams_lock);
  return n;
}

/* The server-wide stream buffer (issue 25, N4): three GET streams whose
 * clients do not read, each allowed 64 MiB of its own, together at most
 * 64 KiB: twice the kernel's largest send buffer of notifications per
 * stream leave at most the total (plus one event) buffered, and the streams
 * over it are cut: their clients, reading at last, see them end. */
static void test_stream_buffer_total(void **state) {
  (void)state;
  fixture f;
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_stream_buffer_bytes(o, 64u << 20),
                   MCP_OK);
  assert_int_equal(mcp_http_options_set_stream_buffer_total_bytes(o, 64u << 10),
                   MCP_OK);
  mcp_http_options_set_heartbeat_ms(o, 0);
  mcp_event_store none = {0};
  mcp_http_options_set_event_store(o, none); /* nothing kept for resumes */
  serve(&f, o);
  char sid[3][64];
  tc_conn g[3];
  for (int i = 0; i < 3; i++) {
    open_session_expecting(f.port, "\"result\"", sid[i]);
    open_get_small(&g[i], f.port, sid[i]);
  }
  wait_stat(&f, offsetof(hs_limits_stats, streams), 3);
  char *text = malloc(8192 + 1);
  memset(text, 'x', 8192);
  text[8192] = '\0';
  /* Enough that no stream can pass it all to the kernel: a socket's send
   * buffer grows up to tcp_wmem's maximum (4 MiB by default), and a stream
   * whose bytes all fit there is never over its bound, so never cut (CI saw
   * that with 300 events). */
  long wmem_max = 4L << 20;
  FILE *wf = fopen("/proc/sys/net/ipv4/tcp_wmem", "r");
  if (wf != NULL) {
    long lo, def, hi;
    if (fscanf(wf, "%ld %ld %ld", &lo, &def, &hi) == 3 && hi > wmem_max)
      wmem_max = hi;
    fclose(wf);
  }
  int events = (int)(2 * wmem_max / 8192) + 64;
  size_t worst = 0;
  for (int i = 0; i < events; i++) {
    mcp_server_broadcast(f.server, "notifications/message",
                         json_pack("{s:s,s:s}", "level", "info", "data", text));
    size_t held = streams_backlog(&f);
    worst = held > worst ? held : worst;
  }
  free(text);
  print_message("streams held at most %zu bytes\n", worst);
  assert_true(worst <= (64u << 10) + 9 * 1024);
  for (int i = 0; i < 3; i++) {
    bool ended = false;
    for (int k = 0; k < 2000 && !ended; k++) {
      char *ev = tc_next_event(&g[i], 2000);
      ended = ev == NULL && (g[i].ended || g[i].eof);
      if (ev == NULL && !ended)
        break;
      free(ev);
    }
    assert_true(ended);
    tc_close(&g[i]);
  }
  fixture_stop(&f);
}

static void test_option_ranges(void **state) {
  (void)state;
  mcp_http_options_t *o = NULL;
  assert_int_equal(mcp_http_options_new(&o), MCP_OK);
  assert_int_equal(mcp_http_options_set_max_connections(o, 0),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_http_options_set_max_connections_per_address(o, 0),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_http_options_set_request_timeout_ms(o, -1),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_http_options_set_retry_after_s(o, 0),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_http_options_set_max_streams(NULL, 1),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_http_options_set_max_connections(o, 1000001),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_http_options_set_stream_buffer_bytes(o, 4095),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_http_options_set_stream_buffer_bytes(o, (64u << 20) + 1),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_http_options_set_stream_buffer_total_bytes(o, 65535),
                   MCP_ERR_INVALID_ARG);
  assert_int_equal(mcp_http_options_set_stream_buffer_bytes(o, 4096), MCP_OK);
  assert_int_equal(mcp_http_options_set_stream_buffer_total_bytes(o, 65536),
                   MCP_OK);
  mcp_http_options_free(o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_option_ranges),
      cmocka_unit_test(test_slowloris_total),
      cmocka_unit_test(test_slowloris_per_address),
      cmocka_unit_test(test_request_deadline),
      cmocka_unit_test(test_per_address_full_429),
      cmocka_unit_test(test_stream_limits),
      cmocka_unit_test(test_stream_does_not_keep_session),
      cmocka_unit_test(test_listen_streams_count),
      cmocka_unit_test(test_stream_buffer_total),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
