/* SPDX-License-Identifier: MIT */
/* http_stream_ref_test.c - a stream holds a reference on its HTTP server
 * (#16 hardening): a notification sent from another thread may still hold
 * a stream, and through it a session, when mcp_http_server_stop runs. The
 * stop finishes the stream (sends answer MCP_ERR_CLOSED) and returns only
 * once the other thread let it go, so that the caller may free the
 * mcp_server_t right after the stop: releasing the stream releases its
 * session through that server. */
#include "testutil.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "core/feature.h"
#include "core/sessions.h"
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
  mcp_http_server_t *h;
  hs_stream *st;
  mcp_status sent;
  bool stop_returned;     /* set by the main thread after the stop */
  bool saw_stop_returned; /* stop_returned when the holder let go */
} holder;

/* The other thread: once the stop has finished the stream, sends on it and
 * lets it go when the stop waits for that (h->stop_wait set) or has
 * returned (the bug: the caller might already have freed the server). A
 * bounded poll for a condition: the holder knows no other way of seeing
 * where the stop is. */
static void *late_sender(void *arg) {
  holder *x = arg;
  bool finished = false, waiting = false, returned = false;
  for (int i = 0; i < 20000 && !(finished && (waiting || returned)); i++) {
    if (!finished)
      finished = mcp__hs_stream_send(x->st, "{}", 2, 0) == MCP_ERR_CLOSED;
    waiting = atomic_load(&x->h->stop_wait) != NULL; /* x->st keeps h */
    returned = __atomic_load_n(&x->stop_returned, __ATOMIC_SEQ_CST);
    if (!(finished && (waiting || returned)))
      usleep(1000);
  }
  x->sent = mcp__hs_stream_send(x->st, "{}", 2, 0);
  x->saw_stop_returned = __atomic_load_n(&x->stop_returned, __ATOMIC_SEQ_CST);
  mcp__hs_stream_release(x->st); /* and with it the session */
  return NULL;
}

/* Fails without the fix: the stop returned while the other thread still
 * held the stream and its session (saw_stop_returned), and freeing the
 * server then was a use after free (ASan) when that thread let go. */
static void test_stream_held_across_stop(void **state) {
  (void)state;
  mcp_server_t *s;
  mcp_http_server_t *h = start_server(&s);
  hs_session *hs = NULL;
  assert_int_equal(mcp__hs_session_create(h, &hs), MCP_OK);
  /* a stream of the session, held the way a notification from another
   * thread holds it; the table keeps the session until the stop ends it */
  holder x = {h, mcp__hs_stream_new(h, hs, "1", true, NULL), MCP_OK, false,
              false};
  mcp__hs_session_release(hs);
  assert_non_null(x.st);
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, late_sender, &x), 0);
  mcp_http_server_stop(h);
  __atomic_store_n(&x.stop_returned, true, __ATOMIC_SEQ_CST);
  mcp_server_free(s); /* at once, as a program does after the stop */
  pthread_join(th, NULL);
  assert_false(x.saw_stop_returned);
  assert_int_equal(x.sent, MCP_ERR_CLOSED); /* the stop finished it */
}

/* Streams released before the stop: the stop frees everything itself. */
static void test_streams_released_before_stop(void **state) {
  (void)state;
  mcp_server_t *s;
  mcp_http_server_t *h = start_server(&s);
  for (int i = 0; i < 3; i++) {
    hs_stream *st = mcp__hs_stream_new(h, NULL, "gone", false, NULL);
    assert_non_null(st);
    assert_int_equal(mcp__hs_stream_send(st, "{}", 2, 0), MCP_OK);
    mcp__hs_stream_release(st);
  }
  mcp_http_server_stop(h);
  mcp_server_free(s);
}

/* A task message (MCP__SEND_LIVE) for a session whose GET stream has no
 * client is refused, and the stream is let go all the same. Fails without
 * the fix: the refusal kept a reference on the stream, the stream its
 * session, and mcp_http_server_stop waited on them for ever (a demo stopped
 * while a task waited on an elicitation hung about once in ten stops). */
static void test_live_message_without_client_lets_go(void **state) {
  (void)state;
  mcp_server_t *s;
  mcp_http_server_t *h = start_server(&s);
  hs_session *hs = NULL;
  assert_int_equal(mcp__hs_session_create(h, &hs), MCP_OK);
  hs_stream *get = mcp__hs_stream_new(h, hs, HS_GET_STREAM_ID, true, NULL);
  assert_non_null(get);
  pthread_mutex_lock(&hs->lock);
  hs->get_stream = get; /* the session's reference: no client attached */
  pthread_mutex_unlock(&hs->lock);
  int before = atomic_load(&get->refs);
  assert_int_equal(mcp__session_notify_live(hs->se, "{}", 2, 0),
                   MCP_ERR_CLOSED);
  assert_int_equal(atomic_load(&get->refs), before);
  mcp__hs_session_release(hs);
  mcp_http_server_stop(h); /* returns: nothing holds the session */
  mcp_server_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stream_held_across_stop),
      cmocka_unit_test(test_streams_released_before_stop),
      cmocka_unit_test(test_live_message_without_client_lets_go),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
