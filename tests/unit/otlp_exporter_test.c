/* SPDX-License-Identifier: MIT */
/* otlp_exporter_test.c - the trace exporter's queue of span records
 * (telemetry/otlp.h): spans submitted in several rounds all reach a
 * collector on 127.0.0.1 in batches of max_batch (the records of one
 * exported batch are recycled for the next spans: ASan and TSan see every
 * reuse), a span too long for a recycled record travels in one of its
 * own, in http/protobuf and http/json, and the exporter's random ids
 * differ. */
#include "testutil.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "telemetry/otlp.h"
#include "telemetry/span.h"

/* A collector answering 200 to every request until it is stopped; it
 * keeps every body, back to back. */
typedef struct collector {
  int fd, port;
  pthread_mutex_t lock;
  int requests;
  char *bodies;
  size_t len;
  pthread_t thread;
} collector;

static void *collect(void *arg) {
  collector *c = arg;
  for (;;) {
    int conn = accept(c->fd, NULL, NULL);
    if (conn < 0)
      return NULL;
    char *buf = NULL;
    size_t got = 0, cap = 0;
    for (;;) {
      if (cap - got < 4096) {
        cap = cap ? 2 * cap : 65536;
        buf = realloc(buf, cap + 1);
        assert_non_null(buf);
      }
      ssize_t r = recv(conn, buf + got, cap - got, 0);
      if (r <= 0)
        break;
      got += (size_t)r;
      buf[got] = '\0';
      char *end = strstr(buf, "\r\n\r\n");
      const char *cl = end ? strstr(buf, "Content-Length: ") : NULL;
      if (cl && got >= (size_t)(end + 4 - buf) + (size_t)atoi(cl + 16)) {
        pthread_mutex_lock(&c->lock);
        size_t body = got - (size_t)(end + 4 - buf);
        c->bodies = realloc(c->bodies, c->len + body + 1);
        assert_non_null(c->bodies);
        memcpy(c->bodies + c->len, end + 4, body);
        c->len += body;
        c->bodies[c->len] = '\0';
        c->requests++;
        pthread_mutex_unlock(&c->lock);
        break;
      }
    }
    static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
    if (send(conn, ok, sizeof ok - 1, MSG_NOSIGNAL) < 0)
      perror("send");
    close(conn);
    free(buf);
  }
}

static void collector_start(collector *c) {
  memset(c, 0, sizeof *c);
  pthread_mutex_init(&c->lock, NULL);
  c->fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  assert_int_equal(bind(c->fd, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(listen(c->fd, 16), 0);
  assert_int_equal(getsockname(c->fd, (struct sockaddr *)&a, &len), 0);
  c->port = ntohs(a.sin_port);
  assert_int_equal(pthread_create(&c->thread, NULL, collect, c), 0);
}

static void collector_stop(collector *c) {
  shutdown(c->fd, SHUT_RDWR); /* accept fails: the thread ends */
  pthread_join(c->thread, NULL);
  close(c->fd);
  free(c->bodies);
  pthread_mutex_destroy(&c->lock);
}

static void submit(mcp__otlp *e, const char *name, size_t name_len) {
  mcp__span_draft d;
  mcp__span_draft_init(&d);
  assert_int_equal(mcp__otlp_random_id(e, d.h.trace_id, 16), MCP_OK);
  assert_int_equal(mcp__otlp_random_id(e, d.h.span_id, 8), MCP_OK);
  mcp__span_draft_name(&d, "tools/call", name, name_len);
  d.h.kind = MCP__SPAN_KIND_SERVER;
  d.h.start_ns = 1;
  d.h.end_ns = 2;
  mcp__span_draft_cstr(&d, "mcp.method.name", "tools/call");
  mcp__span_draft_int(&d, "server.port", 8080);
  assert_true(mcp__otlp_submit(e, &d));
}

static void wait_exported(mcp__otlp *e, uint64_t n) {
  for (int i = 0; i < 500 && mcp__otlp_exported(e) < n; i++)
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  assert_int_equal(mcp__otlp_exported(e), n);
}

static void rounds(mcp__otlp_protocol protocol) {
  collector c;
  collector_start(&c);
  char url[64], why[200] = "";
  snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/traces", c.port);
  mcp__otlp_config cfg = {.traces_url = url,
                          .resource_attributes_json = "",
                          .schedule_delay_ms = 20,
                          .max_queue = 16,
                          .max_batch = 4,
                          .protocol = protocol};
  mcp__otlp *e;
  if (mcp__otlp_start(&cfg, &e, why, sizeof why) != MCP_OK)
    fail_msg("start: %s", why);
  for (int round = 0; round < 3; round++) { /* rounds 2, 3: recycled */
    for (int i = 0; i < 4; i++) {
      char name[16];
      int n = snprintf(name, sizeof name, "t%d", 4 * round + i);
      submit(e, name, (size_t)n);
    }
    wait_exported(e, 4 * (uint64_t)(round + 1));
  }
  char longname[700]; /* past a recycled record's room */
  memset(longname, 'L', sizeof longname);
  submit(e, longname, sizeof longname);
  wait_exported(e, 13);
  unsigned char a[16], b[16];
  assert_int_equal(mcp__otlp_random_id(e, a, 16), MCP_OK);
  assert_int_equal(mcp__otlp_random_id(e, b, 16), MCP_OK);
  assert_memory_not_equal(a, b, 16);
  assert_int_equal(mcp__otlp_dropped(e), 0);
  mcp__otlp_stop(e);
  pthread_mutex_lock(&c.lock);
  assert_true(c.requests >= 4);
  /* every span's name arrived (in protobuf as raw bytes, too) */
  for (int i = 0; i < 12; i++) {
    char name[32];
    snprintf(name, sizeof name, "tools/call t%d", i);
    bool found = memmem(c.bodies, c.len, name, strlen(name)) != NULL;
    if (!found)
      fail_msg("%s missing", name);
  }
  assert_non_null(memmem(c.bodies, c.len, longname, sizeof longname));
  pthread_mutex_unlock(&c.lock);
  collector_stop(&c);
}

static void test_rounds_protobuf(void **state) {
  (void)state;
  rounds(MCP__OTLP_HTTP_PROTOBUF);
}

static void test_rounds_json(void **state) {
  (void)state;
  rounds(MCP__OTLP_HTTP_JSON);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rounds_protobuf),
      cmocka_unit_test(test_rounds_json),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
