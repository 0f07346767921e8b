/* SPDX-License-Identifier: MIT */
/* http_stream_ref_test.c - a stream holds a reference on its HTTP server
 * (#16 hardening): a notification sent from another thread may still hold
 * a stream when mcp_http_server_stop runs; the stop returns without waiting
 * for it, the stream is finished (sends answer MCP_ERR_CLOSED) and the
 * server's memory goes with the stream's last reference. Fails without the
 * fix under ASan: the stop waited (up to 5 s) and then freed the server,
 * which the stream's release used afterwards. */
#include "testutil.h"

#include <pthread.h>

#include "mcp/http.h"
#include "mcp/mcp.h"
#include "transport/http_internal.h"

static void quiet_log(mcp_log_level l, const char *m, void *ud) {
  (void)l, (void)m, (void)ud;
}

static mcp_http_server_t *start_server(mcp_server_t **s) {
  assert_int_equal(mcp_server_new("stream-ref", "1", s), MCP_OK);
  mcp_server_set_log_handler(*s, quiet_log, NULL);
  mcp_http_options_t *o;
  assert_int_equal(mcp_http_options_new(&o), MCP_OK);
  mcp_http_options_set_bind(o, "127.0.0.1", 0);
  mcp_http_server_t *h = NULL;
  mcp_error_t err;
  assert_int_equal(mcp_http_server_start(*s, o, &h, &err), MCP_OK);
  mcp_http_options_free(o);
  return h;
}

typedef struct holder {
  hs_stream *st;
  mcp_status sent;
} holder;

/* The other thread: sends on the stream it holds, then lets it go. */
static void *late_sender(void *arg) {
  holder *x = arg;
  x->sent = mcp__hs_stream_send(x->st, "{}", 2, false);
  mcp__hs_stream_release(x->st);
  return NULL;
}

static void test_stream_held_across_stop(void **state) {
  (void)state;
  mcp_server_t *s;
  mcp_http_server_t *h = start_server(&s);
  /* a stream held the way a notification from another thread holds it */
  holder x = {mcp__hs_stream_new(h, NULL, "held", false, NULL), MCP_OK};
  assert_non_null(x.st);
  mcp_http_server_stop(h);
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, late_sender, &x), 0);
  pthread_join(th, NULL);
  assert_int_equal(x.sent, MCP_ERR_CLOSED); /* the stop finished it */
  mcp_server_free(s);
}

/* Streams released before the stop: the stop frees everything itself. */
static void test_streams_released_before_stop(void **state) {
  (void)state;
  mcp_server_t *s;
  mcp_http_server_t *h = start_server(&s);
  for (int i = 0; i < 3; i++) {
    hs_stream *st = mcp__hs_stream_new(h, NULL, "gone", false, NULL);
    assert_non_null(st);
    assert_int_equal(mcp__hs_stream_send(st, "{}", 2, false), MCP_OK);
    mcp__hs_stream_release(st);
  }
  mcp_http_server_stop(h);
  mcp_server_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stream_held_across_stop),
      cmocka_unit_test(test_streams_released_before_stop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
