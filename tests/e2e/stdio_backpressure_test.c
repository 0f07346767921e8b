/* SPDX-License-Identifier: MIT */
/* stdio_backpressure_test.c - issue #16 item 10: a stdio client that sends
 * requests but never reads the answers. Once the answers back up, the
 * server stops reading requests, so what it holds stays bounded; measured
 * as the bytes of requests the client manages to hand over (the server's
 * queue plus the pipe), not as RSS over time. When the client finally
 * reads, every request is answered. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#define ANSWER_BYTES 16384
/* The client stops offering requests at this many bytes; the server must
 * have stopped taking them long before. */
#define OFFER_MAX (12u << 20)
/* What the server may take: the queue's 1,024 requests and one read
 * chunk's worth beyond, the requests behind the 8 MiB of backed-up
 * output (about 520 of these answers), the pipe: well under this. */
#define TAKEN_MAX (2u << 20)

static mcp_status big(mcp_call_t *call, json_t *args, mcp_result_t *r,
                      void *ud) {
  (void)call, (void)args, (void)ud;
  char *s = malloc(ANSWER_BYTES + 1);
  memset(s, 'y', ANSWER_BYTES);
  s[ANSWER_BYTES] = '\0';
  mcp_result_add_text(r, s);
  free(s);
  return MCP_OK;
}

typedef struct served {
  mcp_server_t *server;
  int in[2], out[2];
  pthread_t th;
  mcp_status result;
} served;

static void *serve_main(void *p) {
  served *sv = p;
  sv->result = mcp_server_serve_fds(sv->server, sv->in[0], sv->out[1]);
  close(sv->out[1]);
  return NULL;
}

/* Reads from fd until n newlines arrived (fails after 30 s of silence). */
static size_t read_lines(int fd, size_t n) {
  char buf[65536];
  size_t lines = 0, bytes = 0;
  while (lines < n) {
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 30000) <= 0)
      fail_msg("no answer after %zu of %zu lines", lines, n);
    ssize_t got = read(fd, buf, sizeof buf);
    if (got <= 0)
      fail_msg("end of output after %zu of %zu lines", lines, n);
    bytes += (size_t)got;
    for (ssize_t i = 0; i < got; i++)
      lines += buf[i] == '\n';
  }
  return bytes;
}

static void write_line(int fd, const char *s) {
  size_t n = strlen(s);
  assert_int_equal(write(fd, s, n), (ssize_t)n);
  assert_int_equal(write(fd, "\n", 1), 1);
}

static void test_client_that_never_reads(void **state) {
  (void)state;
  served sv = {0};
  assert_int_equal(mcp_server_new("backpressure", "1", &sv.server), MCP_OK);
  mcp_tool_t *t;
  mcp_tool_new("big", &t);
  mcp_tool_set_handler(t, big, NULL, NULL);
  assert_int_equal(mcp_server_add_tool(sv.server, t, NULL), MCP_OK);
  assert_int_equal(pipe(sv.in), 0);
  assert_int_equal(pipe(sv.out), 0);
  assert_int_equal(pthread_create(&sv.th, NULL, serve_main, &sv), 0);

  write_line(sv.in[1],
             "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
             "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
             "{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
  read_lines(sv.out[0], 1);
  write_line(sv.in[1],
             "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

  /* Offer requests without reading; stop when the server has taken none
   * for 2 s or OFFER_MAX bytes went in. A line is shorter than PIPE_BUF,
   * so each write puts all of it in the pipe or nothing. */
  fcntl(sv.in[1], F_SETFL, fcntl(sv.in[1], F_GETFL) | O_NONBLOCK);
  size_t offered = 0, requests = 0;
  while (offered < OFFER_MAX) {
    char line[160];
    int len = snprintf(line, sizeof line,
                       "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":"
                       "\"tools/call\",\"params\":{\"name\":\"big\"}}\n",
                       requests + 1);
    ssize_t w = write(sv.in[1], line, (size_t)len);
    if (w == len) {
      offered += (size_t)len;
      requests++;
      continue;
    }
    assert_true(w < 0 && errno == EAGAIN);
    struct pollfd p = {sv.in[1], POLLOUT, 0};
    if (poll(&p, 1, 2000) == 0)
      break; /* the server stopped reading */
  }
  print_message("offered %zu bytes (%zu requests) before the server stopped "
                "reading\n",
                offered, requests);
  assert_true(offered < TAKEN_MAX);

  /* The client reads at last: every request is answered. */
  close(sv.in[1]);
  read_lines(sv.out[0], requests);
  pthread_join(sv.th, NULL);
  assert_int_equal(sv.result, MCP_OK);
  close(sv.in[0]);
  close(sv.out[0]);
  mcp_server_free(sv.server);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_client_that_never_reads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
