/* SPDX-License-Identifier: MIT */
/* listen_transport_test.c - subscriptions/listen over real transports:
 * Streamable HTTP on 127.0.0.1 (the stream is the SSE answer of the POST;
 * closing the connection ends it; stopping the server sends the final
 * result) and stdio over pipes (notifications/cancelled ends a stream; the
 * end of input ends the rest, and serving returns). */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* The shared fixture header has helpers this test does not need. */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "core/feature.h"
#include "core/listen.h"
#include "http_fixture.h"

#define META                                                                   \
  "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","     \
  "\"io.modelcontextprotocol/clientCapabilities\":{}}"
#define LISTEN(id)                                                             \
  "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"subscriptions/listen\","    \
  "\"params\":{" META ",\"notifications\":{\"toolsListChanged\":true}}}"

static mcp_status noop(mcp_call_t *call, json_t *args, mcp_result_t *r,
                       void *ud) {
  (void)call, (void)args, (void)ud;
  mcp_result_add_text(r, "ok");
  return MCP_OK;
}

/* Waits (up to 10 s) to be cancelled; says whether it was. */
static atomic_int saw_cancel, cancel_waiting;
static mcp_status wait_cancel(mcp_call_t *call, json_t *args, mcp_result_t *r,
                              void *ud) {
  (void)args, (void)ud;
  atomic_store(&cancel_waiting, 1);
  for (int i = 0; i < 1000 && !mcp_call_is_cancelled(call); i++)
    sleep_ms(10);
  atomic_store(&saw_cancel, mcp_call_is_cancelled(call) ? 1 : 2);
  mcp_result_add_text(r, "finished");
  return MCP_OK;
}

static void add_plain_tool(mcp_server_t *s, const char *name) {
  add_tool(s, name, noop, MCP_TASK_FORBIDDEN);
}

/* Reads from fd until needle has arrived (appending to *acc), or fails. */
static void read_until(int fd, mcp__buf *acc, const char *needle,
                       int timeout_ms) {
  int waited = 0;
  while (acc->data == NULL || strstr(acc->data, needle) == NULL) {
    struct pollfd p = {fd, POLLIN, 0};
    int r = poll(&p, 1, 100);
    if (r == 0) {
      waited += 100;
      if (waited >= timeout_ms)
        fail_msg("no \"%s\" within %d ms; got: %s", needle, timeout_ms,
                 acc->data ? acc->data : "(nothing)");
      continue;
    }
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0)
      fail_msg("connection ended before \"%s\"; got: %s", needle,
               acc->data ? acc->data : "(nothing)");
    assert_true(mcp__buf_append(acc, buf, (size_t)n));
  }
}

/* A raw listen POST on a new connection; returns the socket. */
static int open_listen_http(int port, const char *id) {
  char body[512], req[1024];
  snprintf(body, sizeof body,
           "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"subscriptions/listen\","
           "\"params\":{" META
           ",\"notifications\":{\"toolsListChanged\":true}}}",
           id);
  int n = snprintf(req, sizeof req,
                   "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                   "Content-Type: application/json\r\n" ACCEPT
                   "MCP-Protocol-Version: 2026-07-28\r\n"
                   "Mcp-Method: subscriptions/listen\r\n"
                   "Content-Length: %zu\r\n\r\n%s",
                   port, strlen(body), body);
  int fd = tc_connect(port);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, req, (size_t)n), n);
  return fd;
}

static void wait_for_count(mcp_server_t *s, size_t want) {
  for (int i = 0; i < 500 && mcp__listen_count(s) != want; i++)
    sleep_ms(10);
  assert_int_equal(mcp__listen_count(s), want);
}

static void test_http_stream(void **state) {
  (void)state;
  fixture f;
  fixture_new_server(&f, "listen-http");
  add_plain_tool(f.server, "first");
  /* A suspended connection is not watched for its client leaving; the
   * next write (a heartbeat at the latest) finds out. */
  mcp_http_options_t *o = base_options();
  assert_int_equal(mcp_http_options_set_heartbeat_ms(o, 50), MCP_OK);
  fixture_serve(&f, o);

  int fd = open_listen_http(f.port, "\"s1\"");
  mcp__buf acc;
  mcp__buf_init(&acc);
  read_until(fd, &acc, "notifications/subscriptions/acknowledged", 5000);
  assert_non_null(strstr(acc.data, "text/event-stream"));
  wait_for_count(f.server, 1);
  add_plain_tool(f.server, "second");
  read_until(fd, &acc, "notifications/tools/list_changed", 5000);
  const char *n = strstr(acc.data, "notifications/tools/list_changed");
  assert_non_null(
      strstr(n, "\"io.modelcontextprotocol/subscriptionId\":\"s1\""));
  /* The ack came before anything else of the subscription. */
  assert_true(strstr(acc.data, "acknowledged") < n);

  /* The client leaves: the stream ends, nothing is held for it. */
  close(fd);
  wait_for_count(f.server, 0);
  add_plain_tool(f.server, "third"); /* nobody to tell */

  /* A stream open when the server stops gets the final result. */
  fd = open_listen_http(f.port, "9");
  mcp__buf_reset(&acc);
  read_until(fd, &acc, "acknowledged", 5000);
  wait_for_count(f.server, 1);
  mcp_http_server_stop(f.http);
  read_until(fd, &acc, "\"resultType\":\"complete\"", 5000);
  const char *res = strstr(acc.data, "\"id\":9,\"result\"");
  assert_non_null(res);
  assert_non_null(strstr(res, "\"io.modelcontextprotocol/subscriptionId\":9"));
  close(fd);
  mcp__buf_free(&acc);
  mcp_server_free(f.server);
}

typedef struct stdio_run {
  mcp_server_t *server;
  int in, out;
  mcp_status st;
} stdio_run;

static void *serve(void *arg) {
  stdio_run *r = arg;
  r->st = mcp_server_serve_fds(r->server, r->in, r->out);
  return NULL;
}

static void send_line(int fd, const char *line) {
  size_t n = strlen(line);
  assert_int_equal(write(fd, line, n), (ssize_t)n);
  assert_int_equal(write(fd, "\n", 1), 1);
}

static void test_stdio_streams(void **state) {
  (void)state;
  mcp_server_t *s = NULL;
  assert_int_equal(mcp_server_new("listen-stdio", "1.0", &s), MCP_OK);
  mcp_server_set_log_handler(s, quiet_log, NULL);
  add_plain_tool(s, "first");
  add_tool(s, "wait_cancel", wait_cancel, MCP_TASK_FORBIDDEN);
  int to_server[2], from_server[2];
  assert_int_equal(pipe(to_server), 0);
  assert_int_equal(pipe(from_server), 0);
  stdio_run run = {s, to_server[0], from_server[1], MCP_OK};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, serve, &run), 0);

  mcp__buf acc;
  mcp__buf_init(&acc);
  send_line(to_server[1], LISTEN("1"));
  send_line(to_server[1], LISTEN("2"));
  read_until(from_server[0], &acc, "subscriptionId\":1}", 5000);
  read_until(from_server[0], &acc, "subscriptionId\":2}", 5000);
  wait_for_count(s, 2);

  /* The client cancels stream 1: no response for it, stream 2 lives. */
  send_line(to_server[1], "{\"jsonrpc\":\"2.0\",\"method\":"
                          "\"notifications/cancelled\",\"params\":{"
                          "\"requestId\":1}}");
  wait_for_count(s, 1);
  mcp__buf_reset(&acc);
  add_plain_tool(s, "second");
  read_until(from_server[0], &acc, "tools/list_changed", 5000);
  assert_non_null(strstr(acc.data, "subscriptionId\":2}"));
  assert_null(strstr(acc.data, "subscriptionId\":1}"));
  assert_null(strstr(acc.data, "\"id\":1"));

  /* A 2026-07-28 tools/call on stdio is cancelled the same way: the
   * handler sees it and no response is sent. */
  atomic_store(&saw_cancel, 0);
  atomic_store(&cancel_waiting, 0);
  send_line(to_server[1],
            "{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\"tools/call\","
            "\"params\":{" META ",\"name\":\"wait_cancel\",\"arguments\":{}}}");
  /* cancelled while it runs, not before it starts */
  for (int i = 0; i < 500 && atomic_load(&cancel_waiting) == 0; i++)
    sleep_ms(10);
  assert_int_equal(atomic_load(&cancel_waiting), 1);
  send_line(to_server[1], "{\"jsonrpc\":\"2.0\",\"method\":"
                          "\"notifications/cancelled\",\"params\":{"
                          "\"requestId\":77}}");
  for (int i = 0; i < 500 && atomic_load(&saw_cancel) == 0; i++)
    sleep_ms(10);
  assert_int_equal(atomic_load(&saw_cancel), 1);
  send_line(to_server[1],
            "{\"jsonrpc\":\"2.0\",\"id\":78,\"method\":\"tools/call\","
            "\"params\":{" META ",\"name\":\"first\",\"arguments\":{}}}");
  read_until(from_server[0], &acc, "\"id\":78", 5000);
  assert_null(strstr(acc.data, "\"id\":77"));

  /* End of input: stream 2 ends and serving returns. */
  close(to_server[1]);
  assert_int_equal(pthread_join(th, NULL), 0);
  assert_int_equal(run.st, MCP_OK);
  assert_int_equal(mcp__listen_count(s), 0);
  close(to_server[0]);
  close(from_server[0]);
  close(from_server[1]);
  mcp__buf_free(&acc);
  mcp_server_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_http_stream),
      cmocka_unit_test(test_stdio_streams),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
